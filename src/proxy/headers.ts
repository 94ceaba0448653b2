// Header hygiene both ways (decisions §6): hop-by-hop headers and those named in Connection never
// cross; the client's forwarding headers are not trusted; our own cookies never reach an upstream
// and an upstream can never set them; the API key is added last, so nothing can strip it; and
// our security headers are set last on every proxied answer, whatever the upstream said.

import { SECURITY_HEADERS } from '../http/gate.ts'
import { RETURN_TO_COOKIE } from '../auth/return-to.ts'
import { FLOW_BINDING_COOKIE, HOST_SESSION_COOKIE, SESSION_COOKIE, STATE_COOKIE, VERIFIER_COOKIE, withoutCookieSpace } from '../session/cookie.ts'
import type { HeaderFields } from './http1.ts'
import { RELAYED_ANSWER_POLICY } from './relayed-policy.ts'

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade'])
/**
 * Never passed on: what only this hop may say (the host, the length), and what would have an
 * upstream take the client's word for where it is or what it asked. Kratos records a session's
 * address from `True-Client-IP` (ory/x httpx.ClientIP, beside `X-Real-IP` and `X-Forwarded-For`)
 * and its place from Cloudflare's `Cf-Ipcity` and `Cf-Ipcountry`: passed on, any client could set
 * what the Sessions page and the session map show. A proxy in front of an upstream may take a URL
 * or a method from the `X-Original-URL` family of headers, past the prefix's path rules.
 */
const CLIENT_ONLY = new Set([
  'host',
  'forwarded',
  'x-real-ip',
  'content-length',
  'true-client-ip',
  'x-client-ip',
  'x-cluster-client-ip',
  'fastly-client-ip',
  'cf-connecting-ip',
  'cf-connecting-ipv6',
  'cf-pseudo-ipv4',
  'cf-ipcountry',
  'cf-ipcity',
  'cf-ipcontinent',
  'cf-iplatitude',
  'cf-iplongitude',
  'cf-region',
  'cf-region-code',
  'cf-metro-code',
  'cf-postal-code',
  'cf-timezone',
  'x-original-url',
  'x-rewrite-url',
  'x-http-method-override',
  'x-http-method',
  'x-method-override',
])
/**
 * An upstream's challenge that a browser answers by asking its user for a name and a password (a
 * basic-auth gate in front of an admin API, say): the dashboard's own page would ask for credentials
 * on an upstream's behalf, as a 407 would (refused, proxy/index.ts). Bearer challenges pass.
 */
const PROMPTING_CHALLENGE = /(?:^|,)\s*(?:basic|digest|negotiate|ntlm)\b/i

/** Every cookie this service sets: the session and the sign-in's flow cookies. */
const OWN_COOKIES = new Set([SESSION_COOKIE, HOST_SESSION_COOKIE, STATE_COOKIE, VERIFIER_COOKIE, RETURN_TO_COOKIE, FLOW_BINDING_COOKIE])
const NONE: ReadonlySet<string> = new Set()

/** The header names a Connection header lists: they are hop-by-hop for this message. */
function namedIn(connection: string | null): ReadonlySet<string> {
  if (connection === null) return NONE
  return new Set(
    connection
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
  )
}

/** The Cookie header without our own cookies, or null when nothing is left. */
export function foreignCookies(cookie: string): string | null {
  if (!cookie.includes(';')) {
    // One cookie (an admin's request carries just the session): the general rule below, without its lists.
    const only = withoutCookieSpace(cookie)
    return only === '' || OWN_COOKIES.has(withoutCookieSpace(only.slice(0, Math.max(0, only.indexOf('='))))) ? null : only
  }
  const kept = cookie
    .split(';')
    .map(withoutCookieSpace)
    .filter((part) => part !== '' && !OWN_COOKIES.has(withoutCookieSpace(part.slice(0, Math.max(0, part.indexOf('='))))))
  return kept.length > 0 ? kept.join('; ') : null
}

/** The name our cookie reader sees in a pair: the text before its first `=` (all of it without one), trimmed as readCookieValues trims. */
function nameAsRead(pair: string): string {
  const eq = pair.indexOf('=')
  return withoutCookieSpace(eq < 0 ? pair : pair.slice(0, eq))
}

/**
 * Whether a Set-Cookie would come back from a browser as one of our cookies. Only its pair (up to
 * the first `;`) is the cookie. A pair without a name (`=admin-session=x`, or no `=` at all) is a
 * nameless cookie under RFC 6265bis (§5.6), and a nameless cookie is sent back as its value alone:
 * `Cookie: admin-session=x`, which readCookieValues reads as ours (Chromium refuses such a cookie,
 * other user agents have not always). A bare own name is refused too: a parser that takes it for a
 * name with an empty value would replace our cookie. Names are compared as readCookieValues
 * compares them: exactly (`Admin-Session` is not ours), spaces and tabs around them dropped (withoutCookieSpace).
 */
function setsOwnCookie(setCookie: string): boolean {
  const end = setCookie.indexOf(';')
  const pair = end < 0 ? setCookie : setCookie.slice(0, end)
  const name = nameAsRead(pair)
  if (name !== '') return OWN_COOKIES.has(name)
  const eq = pair.indexOf('=')
  return eq >= 0 && OWN_COOKIES.has(nameAsRead(pair.slice(eq + 1)))
}

/** The fields sent upstream (names in lower case), built in one pass over the client's. */
export function forwardedRequestHeaders(incoming: Headers, options: { apiKey: string | null; adminPrefix: boolean }): HeaderFields {
  const fields: HeaderFields = []
  const named = namedIn(incoming.get('connection'))
  const dropAuthorization = Boolean(options.apiKey) || options.adminPrefix
  // Headers iterates in lower case, one entry per name (Cookie joined with "; "), sorted by name.
  incoming.forEach((value, name) => {
    // `X_Forwarded_For` is `X-Forwarded-For` to a server that folds `_` into `-` (CGI and the stacks
    // after it), so it is judged as that name.
    const judged = name.includes('_') ? name.replaceAll('_', '-') : name
    if (HOP_BY_HOP.has(judged) || CLIENT_ONLY.has(judged) || named.has(name) || named.has(judged) || judged.startsWith('x-forwarded-')) return
    if (name === 'authorization' && dropAuthorization) return
    if (name === 'cookie') {
      const kept = foreignCookies(value)
      if (kept !== null) fields.push('cookie', kept)
      return
    }
    fields.push(name, value)
  })
  // Added last, after everything the client sent was filtered: nothing can strip or replace it.
  if (options.apiKey) fields.push('authorization', `Bearer ${options.apiKey}`)
  return fields
}

/** What every proxied answer carries: never cached, never framed, never sniffed, and HTML from an upstream runs nothing. */
const PROXIED_ANSWER_HEADERS: readonly (readonly [string, string])[] = Object.entries({
  ...SECURITY_HEADERS,
  'content-security-policy': RELAYED_ANSWER_POLICY,
})
// An upstream's own caching and framing rules never reach the browser beside ours, nor its request
// id (the answer carries ours, the one in our log); Set-Cookie is taken apart below.
const NOT_RELAYED = new Set([
  ...PROXIED_ANSWER_HEADERS.map(([name]) => name),
  'expires',
  'pragma',
  'content-security-policy-report-only',
  'x-xss-protection',
  'x-request-id',
  'set-cookie',
])

/** Ours on every proxied answer, prepared once: each answer starts from a native copy. */
const PROXIED_ANSWER_HEADER_SET = new Headers(PROXIED_ANSWER_HEADERS as [string, string][])

/** The values of the Connection fields of a field list, joined; null when there is none. */
function connectionOf(fields: HeaderFields): string | null {
  let connection: string | null = null
  for (let i = 0; i < fields.length; i += 2) if (fields[i] === 'connection') connection = connection === null ? fields[i + 1]! : `${connection}, ${fields[i + 1]}`
  return connection
}

/**
 * The headers sent back to the client, built in one pass over the upstream's fields. They start as
 * ours: an upstream header of the same name is never relayed (NOT_RELAYED), so nothing replaces them.
 */
export function relayedResponseHeaders(upstream: HeaderFields, rewriteLocation: (location: string) => string): Headers {
  const headers = new Headers(PROXIED_ANSWER_HEADER_SET)
  const named = namedIn(connectionOf(upstream))
  for (let i = 0; i < upstream.length; i += 2) {
    const name = upstream[i]!
    const value = upstream[i + 1]!
    if (name === 'set-cookie') {
      if (!setsOwnCookie(value)) headers.append('set-cookie', value)
      continue
    }
    if (NOT_RELAYED.has(name) || HOP_BY_HOP.has(name) || named.has(name)) continue
    if (name === 'www-authenticate' && PROMPTING_CHALLENGE.test(value)) continue
    headers.append(name, name === 'location' ? rewriteLocation(value) : value)
  }
  return headers
}
