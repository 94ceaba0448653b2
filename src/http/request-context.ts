// What the gate learned about a request, for the handlers that run after it, and the one
// computation of "the path" that the gate and the router share.

import type { SessionPayload } from '../session/cookie.ts'
import { ApiError } from './errors.ts'
import type { RequestNotes } from './request-notes.ts'

/**
 * Everything the handling of one request records about it, in one object carried by the request
 * itself (under a symbol no code outside this file knows). One property per request instead of a
 * WeakMap entry per fact: a WeakMap entry costs a hash insertion and the collector's weak-reference
 * work for each of the tens of thousands of requests a second.
 */
export interface RequestState {
  /** Our own id for the request, made by the gate. */
  id: string | undefined
  /** The session the gate verified. */
  session: SessionPayload | undefined
  /** What the request's log line should carry (request-notes.ts). */
  notes: RequestNotes | undefined
  /** Its answer is an upstream's, relayed as it came (proxy/passthrough.ts). */
  passthrough: boolean
  /** pathnameOf, computed once. */
  path: string | undefined
}

const STATE = Symbol('request state')

type Carrier = Request & { [STATE]?: RequestState }

/** The request's state, made on first use. */
export function stateOf(request: Request): RequestState {
  let state = (request as Carrier)[STATE]
  if (state === undefined) {
    state = { id: undefined, session: undefined, notes: undefined, passthrough: false, path: undefined }
    ;(request as Carrier)[STATE] = state
  }
  return state
}

/** The request's state if anything was recorded about it (a read that makes none). */
export function recorded(request: Request): RequestState | undefined {
  return (request as Carrier)[STATE]
}

/**
 * Our own id for the request (an incoming X-Request-Id is not trusted), made by the gate so that
 * it goes out with the security headers in the one header set Elysia builds the answer from.
 */
export function assignRequestId(request: Request): string {
  const id = crypto.randomUUID()
  stateOf(request).id = id
  return id
}

/** The request's id, given to it now when the gate never saw it (a request the shutdown cut, or one whose handler threw). */
export function ensuredRequestId(request: Request): string {
  return requestIdOf(request) ?? assignRequestId(request)
}

/** The id the gate gave the request; undefined when the gate never saw it. */
export function requestIdOf(request: Request): string | undefined {
  return recorded(request)?.id
}

export function attachSession(request: Request, session: SessionPayload): void {
  stateOf(request).session = session
}

/** The session the gate attached, if any (the route-level assertion reads it without throwing). */
export function attachedSession(request: Request): SessionPayload | undefined {
  return recorded(request)?.session
}

/**
 * The session the gate verified. A handler behind a session rule that finds none is a bug (the
 * gate and the router disagreed): fail closed with a 500 and never run the handler's work.
 */
export function sessionOf(request: Request): SessionPayload {
  const session = recorded(request)?.session
  if (!session) throw new ApiError('internal_error')
  return session
}

/**
 * Where the path starts in `request.url`. Bun builds the URL as `http://` + the Host header +
 * the path, so the path starts at the first `/` after the scheme. Elysia's router, configured with
 * `handler: { standardHostname: false }` (app.ts), searches from exactly this offset; with its
 * default it searched from offset 11 and read from inside the path when the host was shorter
 * than four characters. The gate (`hasUsableUrl`) refuses any URL that is not `http://host/…`,
 * so this offset always lands on the first `/` after a valid host.
 */
const PATH_SEARCH_OFFSET = 'http://'.length

/** The path the router dispatches: the same computation as Elysia's, character for character. */
export function pathnameOf(request: Request): string {
  const state = stateOf(request)
  return (state.path ??= pathOfUrl(request.url))
}

function pathOfUrl(url: string): string {
  const start = url.indexOf('/', PATH_SEARCH_OFFSET)
  if (start < 0) return '/'
  const end = url.indexOf('?', start + 1)
  return end < 0 ? url.slice(start) : url.slice(start, end)
}

/** `host` or `host:port` as RFC 9110 allows it here: a DNS name or IPv4 address, or an IPv6 literal. */
const HOST_HEADER = /^(?:\[[0-9A-Fa-f:.]{2,45}\]|[A-Za-z0-9][A-Za-z0-9._-]{0,252})(?::([0-9]{1,5}))?$/

let lastValidHost = ''

/** Whether the Host header is present once and a valid host[:port] (a duplicate arrives joined by ", "). */
export function hasValidHost(request: Request): boolean {
  const host = request.headers.get('host')
  if (!host) return false
  // Nearly every request names the same host: the last one found valid is not checked again.
  if (host === lastValidHost) return true
  const match = HOST_HEADER.exec(host)
  if (!match) return false
  if (match[1] !== undefined && Number(match[1]) > 65535) return false
  lastValidHost = host
  return true
}

/**
 * Bun falls back to a bare path (`/x/api/settings`) as `request.url` when the Host header is
 * empty or unparsable; a router searching from a fixed offset would then read from inside the
 * path. Only `http://host/…` URLs are routed.
 */
export function hasUsableUrl(request: Request): boolean {
  const url = request.url
  return url.startsWith('http://') && url.indexOf('/', PATH_SEARCH_OFFSET) > PATH_SEARCH_OFFSET
}
