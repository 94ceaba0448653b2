// The signed `admin-session` cookie (decisions §5):
//   base64url(JSON payload) "." base64url(HMAC-SHA256(key, "admin-session." + payload part))
// The MAC is checked, in constant time, before the payload is read.

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

export const SESSION_COOKIE = 'admin-session'
/**
 * The same session in a cookie no other host of the site can set or replace (`__Host-`: Secure,
 * this host only, Path=/), beside the spec's `admin-session` wherever cookies are Secure. Another
 * host of the site can plant an `admin-session` for this one (`Domain=` the site): beside a
 * person's own, the two were refused and this host's cleared, leaving the planted one (its
 * attacker's session, or a lock-out at every sign-in). Where a request carries this cookie, it
 * alone names the session; a client that sends `admin-session` only (curl, as the spec shows) is
 * read as before.
 */
export const HOST_SESSION_COOKIE = '__Host-admin-session'
/** No cookie verifies longer after its issue; identity revocations are forgotten only this long (and a margin) after they were made. */
export const MAX_SESSION_SECONDS = 28_800
/** A cookie longer than this is refused before any work is done on it. */
const MAX_COOKIE_LENGTH = 2048
/** Tolerated clock difference for `iat` in the future. */
const CLOCK_SKEW_SECONDS = 60

export type Role = 'admin' | 'viewer'

export interface SessionPayload {
  v: 1
  sid: string
  sub: string
  email: string
  role: Role
  iat: number
  /** Issue time in ms, so a revocation in the same second can tell before from after; absent in older cookies. */
  iatMs?: number
  exp: number
}

type VerifyResult =
  | { ok: true; session: SessionPayload }
  | { ok: false; reason: 'malformed' | 'bad_signature' | 'expired' }

const BASE64URL = /^[A-Za-z0-9_-]+$/
const SIGNATURE_LENGTH = 43 // 32 bytes, base64url without padding

function mac(key: Uint8Array, payloadPart: string): Buffer {
  return createHmac('sha256', key).update(`${SESSION_COOKIE}.${payloadPart}`).digest()
}

/**
 * What tells two signing keys apart without revealing either: an HMAC of a fixed text under the
 * key (the database keeps it, to see a replica started with another key).
 */
export function signingKeyFingerprint(key: Uint8Array): string {
  return createHmac('sha256', key).update('admin-dashboard session signing key fingerprint v1').digest('base64url').slice(0, 22)
}

export function newSessionId(): string {
  return randomBytes(18).toString('base64url')
}

export function signSessionCookie(key: Uint8Array, session: SessionPayload): string {
  const payloadPart = Buffer.from(JSON.stringify(session)).toString('base64url')
  return `${payloadPart}.${mac(key, payloadPart).toString('base64url')}`
}

function isSessionPayload(value: unknown): value is SessionPayload {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const p = value as Record<string, unknown>
  return (
    p.v === 1 &&
    typeof p.sid === 'string' && p.sid.length > 0 && p.sid.length <= 64 &&
    typeof p.sub === 'string' && p.sub.length > 0 && p.sub.length <= 128 &&
    typeof p.email === 'string' && p.email.length <= 320 &&
    (p.role === 'admin' || p.role === 'viewer') &&
    Number.isSafeInteger(p.iat) && Number.isSafeInteger(p.exp) &&
    (p.iatMs === undefined || (Number.isSafeInteger(p.iatMs) && Math.floor((p.iatMs as number) / 1000) === p.iat)) &&
    Object.keys(p).length === (p.iatMs === undefined ? 7 : 8)
  )
}

export function verifySessionCookie(key: Uint8Array, value: string, nowSeconds: number): VerifyResult {
  if (value.length === 0 || value.length > MAX_COOKIE_LENGTH) return { ok: false, reason: 'malformed' }
  const dot = value.indexOf('.')
  if (dot <= 0 || dot !== value.lastIndexOf('.')) return { ok: false, reason: 'malformed' }
  const payloadPart = value.slice(0, dot)
  const signaturePart = value.slice(dot + 1)
  if (signaturePart.length !== SIGNATURE_LENGTH || !BASE64URL.test(signaturePart) || !BASE64URL.test(payloadPart)) {
    return { ok: false, reason: 'malformed' }
  }
  const given = Buffer.from(signaturePart, 'base64url')
  const expected = mac(key, payloadPart)
  // Both are 32 bytes here (the length was checked above), so timingSafeEqual cannot throw.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: 'bad_signature' }
  }
  // Only a payload we signed ourselves is parsed.
  let payload: unknown
  try {
    payload = JSON.parse(Buffer.from(payloadPart, 'base64url').toString('utf8'))
  } catch {
    return { ok: false, reason: 'malformed' }
  }
  if (!isSessionPayload(payload)) return { ok: false, reason: 'malformed' }
  if (payload.exp <= nowSeconds) return { ok: false, reason: 'expired' }
  if (payload.iat > nowSeconds + CLOCK_SKEW_SECONDS || payload.exp - payload.iat > MAX_SESSION_SECONDS) {
    return { ok: false, reason: 'malformed' }
  }
  return { ok: true, session: payload }
}

/** Seconds a new session lives: min(expires_in, 28800); 3600 when the provider gave none. */
export function sessionLifetime(expiresIn: number | undefined): number {
  if (expiresIn === undefined || !Number.isFinite(expiresIn) || expiresIn <= 0) return Math.min(3600, MAX_SESSION_SECONDS)
  return Math.min(Math.floor(expiresIn), MAX_SESSION_SECONDS)
}

interface CookieAttributes {
  path: string
  httpOnly: true
  sameSite: 'Strict' | 'Lax'
  secure: boolean
}

/** The one place the session cookie's attributes are decided; every write and delete uses it. */
function sessionCookieAttributes(secure: boolean): CookieAttributes {
  return { path: '/', httpOnly: true, sameSite: 'Strict', secure }
}

export function serializeCookie(name: string, value: string, attributes: CookieAttributes, maxAge: number): string {
  const parts = [`${name}=${value}`, `Path=${attributes.path}`, `Max-Age=${Math.max(0, Math.floor(maxAge))}`]
  if (maxAge <= 0) parts.push('Expires=Thu, 01 Jan 1970 00:00:00 GMT')
  if (attributes.httpOnly) parts.push('HttpOnly')
  if (attributes.secure) parts.push('Secure')
  parts.push(`SameSite=${attributes.sameSite}`)
  return parts.join('; ')
}

/** The login flow cookies (decisions §4): Lax, because Strict is not sent on the provider's redirect back. */
export const STATE_COOKIE = 'oauth_state'
export const VERIFIER_COOKIE = 'oauth_verifier'
export const FLOW_COOKIE_SECONDS = 600

export function flowCookieAttributes(secure: boolean): CookieAttributes {
  return { path: '/api/auth', httpOnly: true, sameSite: 'Lax', secure }
}

/**
 * The sign-in's state and verifier again, in one cookie no other host can set (`__Host-`: Secure,
 * this host only, Path=/), beside the spec's two (decisions §4). Another host of the same site can
 * plant `oauth_state` and `oauth_verifier` for this one (Domain=the site, a longer Path sent
 * first): with its own sign-in's values, a browser sent to its callback URL would be signed in as
 * the attacker's account, and with stale ones every sign-in would loop back to the start. Where
 * cookies are Secure, this one decides which flow the callback finishes. Its value:
 * `<state>.<verifier>` (both base64url, without dots).
 */
export const FLOW_BINDING_COOKIE = '__Host-oauth_flow'

export function flowBindingAttributes(): CookieAttributes {
  return { path: '/', httpOnly: true, sameSite: 'Lax', secure: true }
}

/** The Set-Cookie lines that sign a session in: `admin-session`, and where cookies are Secure `__Host-admin-session` too. */
export function sessionSetCookies(secure: boolean, value: string, maxAge: number): string[] {
  const lines = [serializeCookie(SESSION_COOKIE, value, sessionCookieAttributes(secure), maxAge)]
  if (secure) lines.push(serializeCookie(HOST_SESSION_COOKIE, value, sessionCookieAttributes(true), maxAge))
  return lines
}

/** Whether our cookies carry `Secure`: everywhere but development (decisions §2, NODE_ENV). */
export function secureCookies(config: { environment: string }): boolean {
  return config.environment !== 'development'
}

/** The Set-Cookie lines that end a session in this browser: both cookies where cookies are Secure. */
export function sessionClearCookies(secure: boolean): string[] {
  const cleared = [serializeCookie(SESSION_COOKIE, '', sessionCookieAttributes(secure), 0)]
  if (secure) cleared.push(serializeCookie(HOST_SESSION_COOKIE, '', sessionCookieAttributes(true), 0))
  return cleared
}

/** `sessionClearCookies` as header entries, for a response's headers. */
export function sessionClearHeaders(secure: boolean): [string, string][] {
  return sessionClearCookies(secure).map((line) => ['set-cookie', line])
}

/**
 * The session cookie values of a request: those of `__Host-admin-session` when it has any (where
 * cookies are Secure), else those of `admin-session`. The caller refuses more than one.
 */
export function sessionCookieValues(header: string | null, secure: boolean): string[] {
  if (header === null) return []
  // A header of one cookie is read as `admin-session` unless it is the other (curl's, and the bench's).
  if (secure && (header.indexOf(';') >= 0 || header.startsWith(HOST_SESSION_COOKIE))) {
    const bound = readCookieValues(header, HOST_SESSION_COOKIE)
    if (bound.length > 0) return bound
  }
  return readCookieValues(header, SESSION_COOKIE)
}

const EQUALS = '='.charCodeAt(0)

/**
 * A cookie's name or value without the spaces and tabs around it, and only those (RFC 6265's
 * whitespace). `trim()` also takes U+00A0 and other Unicode spaces away: a browser keeps
 * `\xA0__Host-admin-session` as a name of its own, which another host of the site may set, and
 * read with `trim()` it would pass for ours (the cookie-prefix bypass of "Cookie Chaos").
 */
export function withoutCookieSpace(text: string): string {
  let start = 0
  let end = text.length
  while (start < end && (text.charCodeAt(start) === 32 || text.charCodeAt(start) === 9)) start++
  while (end > start && (text.charCodeAt(end - 1) === 32 || text.charCodeAt(end - 1) === 9)) end--
  return start === 0 && end === text.length ? text : text.slice(start, end)
}

/**
 * The values of one cookie name in a Cookie header. More than one `admin-session` is refused by
 * the caller: a second cookie planted from a sibling origin must not pick the session.
 */
export function readCookieValues(header: string | null, name: string): string[] {
  if (!header) return []
  // What a browser sends for the dashboard alone: this one cookie and nothing else (same result as below).
  if (header.indexOf(';') < 0 && header.startsWith(name) && header.charCodeAt(name.length) === EQUALS) return [withoutCookieSpace(header.slice(name.length + 1))]
  const values: string[] = []
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq < 0) continue
    if (withoutCookieSpace(part.slice(0, eq)) === name) values.push(withoutCookieSpace(part.slice(eq + 1)))
  }
  return values
}
