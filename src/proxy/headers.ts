// Header hygiene both ways (decisions §6): hop-by-hop headers and those named in Connection never
// cross; the client's forwarding headers are not trusted; our own cookies never reach an upstream
// and an upstream can never set them; the API key is added last, so nothing can strip it; and
// our security headers are set last on every proxied answer, whatever the upstream said.

import { SECURITY_HEADERS } from '../http/gate.ts'

const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']
const CLIENT_ONLY = ['host', 'forwarded', 'x-real-ip', 'content-length']
const OWN_COOKIES = new Set(['admin-session', 'oauth_state', 'oauth_verifier'])

function removeHopByHop(headers: Headers): void {
  const named = (headers.get('connection') ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean)
  for (const name of [...HOP_BY_HOP, ...named]) headers.delete(name)
}

export function forwardedRequestHeaders(incoming: Headers, options: { apiKey: string | null; adminPrefix: boolean }): Headers {
  const headers = new Headers(incoming)
  removeHopByHop(headers)
  for (const name of CLIENT_ONLY) headers.delete(name)
  for (const name of [...headers.keys()]) if (name.startsWith('x-forwarded-')) headers.delete(name)

  const cookie = headers.get('cookie')
  if (cookie !== null) {
    const kept = cookie
      .split(';')
      .map((part) => part.trim())
      .filter((part) => part !== '' && !OWN_COOKIES.has(part.slice(0, Math.max(0, part.indexOf('='))).trim()))
    if (kept.length > 0) headers.set('cookie', kept.join('; '))
    else headers.delete('cookie')
  }

  if (options.apiKey) headers.set('authorization', `Bearer ${options.apiKey}`)
  else if (options.adminPrefix) headers.delete('authorization')
  return headers
}

/** What every proxied answer carries: never cached, never framed, never sniffed, and HTML from an upstream runs nothing. */
const PROXIED_ANSWER_HEADERS: Readonly<Record<string, string>> = {
  ...SECURITY_HEADERS,
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'; sandbox",
}
// An upstream's own caching and framing rules never reach the browser beside ours.
const UPSTREAM_POLICY = ['cache-control', 'expires', 'pragma', 'content-security-policy-report-only', 'x-xss-protection']

export function relayedResponseHeaders(upstream: Headers, rewriteLocation: (location: string) => string): Headers {
  const headers = new Headers()
  const named = new Set(
    (upstream.get('connection') ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
  )
  for (const [name, value] of upstream) {
    if (name === 'set-cookie' || HOP_BY_HOP.includes(name) || named.has(name)) continue
    headers.set(name, name === 'location' ? rewriteLocation(value) : value)
  }
  for (const line of upstream.getSetCookie()) {
    const name = line.slice(0, Math.max(0, line.indexOf('='))).trim()
    if (!OWN_COOKIES.has(name)) headers.append('set-cookie', line)
  }
  for (const name of UPSTREAM_POLICY) headers.delete(name)
  for (const [name, value] of Object.entries(PROXIED_ANSWER_HEADERS)) headers.set(name, value)
  return headers
}
