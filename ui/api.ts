// The one way the UI calls the service: our own /api/** routes only. Every failure comes back as
// our envelope's { error, message }; a page never parses or shows an upstream body.
import type { PatchOp } from './components/json-patch.ts'
import { MOST_IDENTITY_SESSIONS } from './identity-sessions.ts'
import { OUTCOME_UNKNOWN, UPSTREAM_OUTCOME_HEADER } from '../src/proxy/answer-lost.ts'
import { RELAYED_ANSWER_POLICY } from '../src/proxy/relayed-policy.ts'
import { nextPageToken } from '../src/upstream/link.ts'
import { isHydraError, isKratosError } from '../src/upstream/ory-error.ts'
import {
  readClient,
  readIdentity,
  readMessage,
  readRecoveryCode,
  readRecoveryLink,
  readSchemas,
  readSession,
  type Identity,
  type IdentitySchema,
  type KratosSession,
  type OAuthClient,
} from './ory-records.ts'

export interface ApiFailure {
  error: string
  message: string
  status: number
  /**
   * A change whose outcome is unknown: the request reached the upstream, which may have made it,
   * and no readable answer came back (504: not in time; the proxy's X-Upstream-Outcome on a 502 or
   * 500; a success whose body could not be read). Never set on a read.
   */
  maybeDone?: boolean
  /**
   * With `maybeDone`, why the outcome is unknown, as the message begins ("Kratos did not answer in
   * time", "Hydra's answer did not come through"); no answer in time when absent.
   */
  unknownWhy?: string
  /** The upstream a call through one of our proxy prefixes failed at, by name; absent for our own routes. */
  upstream?: UpstreamService
  /**
   * The id this service gave the failed request (its answer's `X-Request-Id`): what its log line
   * and any audit event of it carry, for whoever reads them. Absent when no answer came.
   */
  requestId?: string
}
/** `requestId` on an answer: the id this service gave its request, for a page that finds the data unusable. */
export type ApiResult<T> = { ok: true; data: T; requestId?: string } | { ok: false; failure: ApiFailure }

/**
 * A delete's outcome: done, with `already` when the service answered 404 (deleted elsewhere first:
 * another tab, the command line, the upstream's own tools), since what the person asked for is so;
 * or its failure.
 */
export function deleteOutcome(result: ApiResult<void>): { ok: true; already: boolean } | { ok: false; failure: ApiFailure } {
  if (result.ok) return { ok: true, already: false }
  // A 404 page of something in front of Kratos or Hydra is not a 404 here (send(), foreignPage).
  return result.failure.status === 404 ? { ok: true, already: true } : result
}

/**
 * A delete's outcome as deleteOutcome says it, one of unknown outcome (`maybeDone`) settled by
 * reading the record again (`readAgain`) rather than offering the question again for something that
 * may be gone: gone (the upstream's own 404) is deleted; still there is said so (`what`: "the
 * client"); a read that fails leaves the delete's own failure.
 */
export async function settledDelete(result: ApiResult<void>, readAgain: () => Promise<ApiResult<unknown>>, what: string): Promise<ReturnType<typeof deleteOutcome>> {
  const outcome = deleteOutcome(result)
  if (outcome.ok || !outcome.failure.maybeDone) return outcome
  const read = await readAgain()
  if (read.ok) return { ok: false, failure: unknownOutcomeSaid(outcome.failure, `Read again afterwards, ${what} is still there: it was not deleted, or its deletion is still under way.`) }
  return read.failure.status === 404 ? { ok: true, already: false } : outcome
}

export type Role = 'admin' | 'viewer'
export interface SessionUser {
  identityId: string
  email: string
  role: Role
}
export type UpstreamName = 'idp' | 'idp-admin' | 'iam-idp' | 'iam-idp-admin' | 'oauth' | 'oauth-admin'
export interface PublicConfig {
  upstreams: Record<UpstreamName, boolean>
  [key: string]: unknown
}
export interface ServiceHealth {
  name: UpstreamName
  configured: boolean
  healthy: boolean
  version: string | null
  response_ms: number | null
}
export interface LocationPoint {
  lat: number
  lng: number
  label: string
  count: number
}
export interface AuditEvent {
  id: number
  at: string
  action: string
  actor: string | null
  target: string | null
  detail?: Record<string, string | number | boolean | null> | null
}
export interface Setting {
  key: string
  value: string
  encrypted: boolean
  category: string | null
  updated_at?: string
}
export interface PostureCheck {
  id: string
  status: 'pass' | 'warn' | 'fail'
  message: string
  remedy?: string
}
export type Layout = Record<string, unknown>

export type { CourierMessage, ClientLifespan, FormSchema, Identity, IdentitySchema, KratosSession, OAuthClient } from './ory-records.ts'
export { CLIENT_LIFESPANS } from './ory-records.ts'
export interface IdentityPage {
  identities: Identity[]
  next_page_token: string | null
  has_more: boolean
  /** Rows that could not be read (see ory-records.ts), left out of `identities`. */
  skipped: number
}
/** A list of Ory records: the ones that can be read, how many could not, and the token of the next page (from the `Link` header). */
export interface Paged<T> {
  items: T[]
  skipped: number
  next: string | null
}
/** The newest of an identity's active sessions (see `identitySessions`). */
export interface SessionStretch {
  items: KratosSession[]
  /** Rows that could not be read, left out of `items`. */
  skipped: number
  /** How many active sessions the identity has (Kratos's `X-Total-Count`); null when it did not say. */
  total: number | null
  /** Kratos answered fewer rows than asked for: these are all. */
  end: boolean
}
/** GET /api/geo's answer (src/support/geo-routes.ts). */
export interface GeoAnswer {
  ip: string
  country: string
  country_name?: string
  lat: number
  lng: number
  city?: string
  region?: string
}

const GENERIC: Record<number, string> = {
  0: 'The service cannot be reached. Check your connection and try again.',
  404: 'That was not found.',
}

/**
 * Who made a request: a person (a click, a navigation) or the page by itself (a timer, the page
 * becoming visible again), with nobody necessarily at the keyboard.
 */
export type Caller = 'person' | 'page'

/** A 401 from our API: the session is gone. */
export interface Unauthenticated {
  /** The refused request was a change. */
  lostWrite: boolean
  /** The page asked by itself: only a person may be sent to the sign-in. */
  caller: Caller
}
/** Set by the app: what to do when the session is gone (sign in again, or say that it has ended). */
let onUnauthenticated: (refused: Unauthenticated) => void = () => {}
export function whenUnauthenticated(handler: (refused: Unauthenticated) => void): void {
  onUnauthenticated = handler
}
/** This browser's session was ended by the person's own action: on to the sign-in, as a 401 would lead. */
export function sessionGone(saidAfter?: { identityId: string; said: string }): void {
  // Said once the same identity is back from the sign-in in this tab (a person signing in as
  // someone else is not told of another's sessions).
  if (saidAfter) sessionStorage.setItem(SAID_AFTER_SIGN_IN, JSON.stringify(saidAfter))
  onUnauthenticated({ lostWrite: false, caller: 'person' })
}

const SAID_AFTER_SIGN_IN = 'admin-dashboard.said-after-sign-in'

/** What sessionGone left to say to this identity after its sign-in, taken (said once); null when nothing. */
export function takeSaidAfterSignIn(identityId: string): string | null {
  const stored = sessionStorage.getItem(SAID_AFTER_SIGN_IN)
  if (stored === null) return null
  sessionStorage.removeItem(SAID_AFTER_SIGN_IN)
  try {
    const kept = JSON.parse(stored) as { identityId?: unknown; said?: unknown }
    return kept.identityId === identityId && typeof kept.said === 'string' ? kept.said : null
  } catch {
    return null
  }
}
let onForbidden: () => void = () => {}
/** Our API's 403 `forbidden`: the role may have changed since the page learnt it. */
export function whenForbidden(handler: () => void): void {
  onForbidden = handler
}

async function request<T>(method: string, path: string, body?: unknown, caller: Caller = 'person', headers?: Record<string, string>): Promise<ApiResult<T>> {
  return (await send<T>(method, path, body, { caller, headers })).result
}

/**
 * Why a read is made: to show something, or as the first step of a change (the record read again
 * before a save, to check that nobody changed it meanwhile). A 401 on the latter refuses the change
 * as surely as one on the write itself.
 */
export type ReadFor = 'show' | 'change'

/**
 * The upstreams as the pages' messages name them: by the names operators know them by, the same in
 * every message.
 */
export type UpstreamService = 'Kratos' | 'Hydra'
const KRATOS_ANSWERS: UpstreamService = 'Kratos'
const HYDRA_ANSWERS: UpstreamService = 'Hydra'

/** A 200 whose body is not what the page reads: as unusable as a 502, and told as such (with its request's id, to report). */
export function unreadable(from: UpstreamService, requestId: string | undefined, message = `${from} answered with data this page cannot show.`): { ok: false; failure: ApiFailure } {
  return { ok: false, failure: { error: 'invalid_response', message, status: 200, requestId } }
}

/** An upstream record through its reader (ory-records.ts): refused when it is not one. */
async function requestRecord<T>(from: UpstreamService, read: (value: unknown) => T | null, method: string, path: string, body?: unknown, readFor: ReadFor = 'show'): Promise<ApiResult<T>> {
  const { result } = await send<unknown>(method, path, body, { readFor })
  if (!result.ok) return result
  const record = read(result.data)
  if (record !== null) return { ok: true, data: record, requestId: result.requestId }
  // A change answered with success and something that is no record: made, what it answered not known.
  if (method !== 'GET' && method !== 'HEAD') return { ok: false, failure: { ...unknownOutcome(from, `${from} answered, but not with what this page can read`, 'invalid_response', 200), requestId: result.requestId } }
  return unreadable(from, result.requestId)
}

/** The records of a list that can be read, and how many cannot; refused when the answer is no list. */
function readRows<T>(rows: unknown[], read: (value: unknown) => T | null): { items: T[]; skipped: number } {
  const items = rows.map(read).filter((item): item is T => item !== null)
  return { items, skipped: rows.length - items.length }
}

async function requestList<T>(from: UpstreamService, read: (value: unknown) => T | null, path: string): Promise<ApiResult<Paged<T>>> {
  const { result, headers } = await send<unknown>('GET', path)
  if (!result.ok) return result
  if (!Array.isArray(result.data)) return unreadable(from, result.requestId)
  // Read as the service reads it (link.ts). A next link without a token is an answer the page cannot
  // follow: told, rather than shown as the list's end.
  const next = nextPageToken(headers?.get('link') ?? null)
  if (next === null) return unreadable(from, result.requestId)
  return { ok: true, data: { ...readRows(result.data, read), next: next ?? null } }
}

/**
 * The newest `count` of an identity's active sessions (at most MOST_IDENTITY_SESSIONS), always read
 * from the top of Kratos's list in one request, so that what is shown is the list as it is now:
 * sessions that expired or were ended meanwhile are gone, and new ones come first, where an offset
 * read after them would skip or repeat rows.
 *
 * Kratos pages this list by offset (`page` and `per_page`; `x.ParsePagination` in
 * session/handler.go), and its database layer (pop) counts pages from 1, so page 0 and page 1 are
 * both the first rows, while the `Link` header counts them from 0: its next link from the first
 * page answers the first page again, and a last page that is not full is never linked. Whether
 * there are more is therefore read from `X-Total-Count`, never from that header.
 */
async function identitySessions(identityId: string, count: number): Promise<ApiResult<SessionStretch>> {
  const perPage = Math.max(1, Math.min(count, MOST_IDENTITY_SESSIONS))
  const read = await send<unknown>('GET', `${KRATOS}/identities/${id(identityId)}/sessions${q({ active: 'true', page: 1, per_page: perPage })}`)
  if (!read.result.ok) return read.result
  if (!Array.isArray(read.result.data)) return unreadable(KRATOS_ANSWERS, read.result.requestId)
  const rows = read.result.data.slice(0, perPage)
  return { ok: true, data: { ...readRows(rows, readSession), total: totalCount(read.headers), end: rows.length < perPage } }
}

/** Kratos's `X-Total-Count`: a count, or null where there is none that can be read. */
function totalCount(headers: Headers | undefined): number | null {
  const text = headers?.get('x-total-count') ?? ''
  return /^[0-9]{1,15}$/.test(text) ? Number(text) : null
}

/**
 * Kratos serves identity schemas on its public API. A self-hosted Kratos's admin API only redirects
 * there, to an address the page may not reach (and its policy forbids): the public prefix is asked
 * when it is configured, else the admin one (enough on Ory Network: one URL serves both). A
 * redirect is never followed.
 */
async function identitySchemas(from: 'idp' | 'idp-admin'): Promise<ApiResult<IdentitySchema[]>> {
  const { result } = await send<unknown>('GET', `/api/${from}/schemas`)
  if (result.ok) {
    const schemas = readSchemas(result.data)
    return schemas ? { ok: true, data: schemas } : unreadable(KRATOS_ANSWERS, result.requestId)
  }
  if (result.failure.error !== 'redirected') return result
  return { ok: false, failure: { ...result.failure, message: 'Kratos sends the identity schemas to its public API. Set IDP_PUBLIC_URL to the address of Kratos’s public API.' } }
}

interface SendOptions {
  caller?: Caller
  headers?: Record<string, string>
  /** A read made as part of a change counts as that change when the session is gone. */
  readFor?: ReadFor
}

async function send<T>(method: string, path: string, body?: unknown, options: SendOptions = {}): Promise<{ result: ApiResult<T>; headers?: Headers }> {
  const { caller = 'person', headers: extra, readFor = 'show' } = options
  let response: Response
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      cache: 'no-store',
      // Never followed. An upstream's redirect comes through our prefix, and the browser resolves a
      // relative Location against the prefix's URL, that is on this service: a compromised Kratos
      // answering a DELETE with `307 ../../../settings/<key>` would have this session delete a
      // setting (or a Hydra client), the method kept. None of our own routes redirects a fetch.
      redirect: 'manual',
      headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...extra },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  } catch {
    return { result: { ok: false, failure: { error: 'unreachable', message: GENERIC[0]!, status: 0 } } }
  }
  if (response.type === 'opaqueredirect') return { result: { ok: false, failure: namedFailure(path, { error: 'redirected', message: 'The service answered with a redirect, which the page does not follow.', status: 0 }) } }
  // Kratos's or Hydra's own answer, relayed by a proxy prefix (it alone carries that policy):
  // its 401 or 403 is about the service's API key, never the dashboard session, and its words are
  // not ours to show.
  // A proxy in front of this service may add a policy of its own, which the browser joins to ours.
  const relayed = (response.headers.get('content-security-policy') ?? '').split(/\s*,\s*/).includes(RELAYED_ANSWER_POLICY)
  if (response.status === 401 && !relayed && !path.startsWith('/api/auth/')) onUnauthenticated({ lostWrite: (method !== 'GET' && method !== 'HEAD') || readFor === 'change', caller })
  const headers = response.headers
  const requestId = requestIdOf(headers)
  const change = method !== 'GET' && method !== 'HEAD'
  const upstream = proxiedTo(path)
  if (response.ok) {
    if (response.status === 204) return { result: { ok: true, data: undefined as T, requestId }, headers }
    try {
      return { result: { ok: true, data: (await response.json()) as T, requestId }, headers }
    } catch {
      // Kratos or Hydra answered a change with success and a body that did not arrive whole: the
      // change was made, and what it answered is not known.
      if (change && upstream !== null) return { result: { ok: false, failure: { ...unknownOutcome(upstream, `${upstream} answered, but its answer could not be read`, 'invalid_response', response.status), requestId } }, headers }
      const from = upstream === null ? 'The service' : upstream
      return { result: { ok: false, failure: { error: 'invalid_response', message: `${from} sent an answer the page cannot read.`, status: response.status, requestId, upstream: upstream ?? undefined } }, headers }
    }
  }
  const envelope = await envelopeOf(response, relayed, upstream)
  // The proxy's word that the request reached Kratos or Hydra and what it did is not known.
  envelope.reached = !relayed && response.headers.get(UPSTREAM_OUTCOME_HEADER) === OUTCOME_UNKNOWN
  if (!relayed && envelope.error === 'identity_backend_unavailable') envelope.message = SESSION_UNCONFIRMED
  // A 404 page of something in front of Kratos or Hydra (an ingress, a wrong base path) says nothing
  // of the thing asked for: never taken for "not there" (deleted already, gone elsewhere).
  if (relayed && response.status === 404 && envelope.upstreamOwn === false && upstream !== null) return { result: { ok: false, failure: { ...foreignPage(upstream), requestId } }, headers }
  const failure = { ...namedFailure(path, envelope), requestId }
  if (change && failure.status === 504) return { result: { ok: false, failure: { ...unknownOutcome(upstream, notAnsweredInTime(upstreamName(failure)), 'gateway_timeout', 504), requestId } }, headers }
  // The request reached Kratos or Hydra and its answer was lost on the way, or came in a form the
  // proxy could not read (the proxy says so): a change it asked for may have been made.
  if (change && upstream !== null && envelope.reached === true) {
    const why = failure.error === 'proxy_error' ? `${upstream}'s answer could not be read` : `${upstream}'s answer did not come through`
    return { result: { ok: false, failure: { ...unknownOutcome(upstream, why, failure.error, failure.status), requestId } }, headers }
  }
  if (failure.status === 403 && failure.error === 'forbidden' && !relayed) onForbidden()
  return { result: { ok: false, failure }, headers }
}

const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The id this service gave a request, from its answer; anything else in that header is not ours and not shown. */
function requestIdOf(headers: Headers): string | undefined {
  const value = headers.get('x-request-id')
  return value !== null && REQUEST_ID.test(value) ? value.toLowerCase() : undefined
}

/** Kratos or Hydra, for a path through one of our proxy prefixes; null for our own routes. */
function proxiedTo(path: string): UpstreamService | null {
  if (/^\/api\/(iam-)?idp(-admin)?\//.test(path)) return 'Kratos'
  if (/^\/api\/oauth(-admin)?\//.test(path)) return 'Hydra'
  return null
}

const WAIT = 'Wait a moment and try again.'

/**
 * The gate could not ask the login identity store whether the signed-in account still exists, for
 * longer than it trusts its last answer: every page is refused until it can (decisions §5). What
 * to check, and the way to mend an API key from the server, since Settings is refused too.
 */
const SESSION_UNCONFIRMED =
  "Your sign-in cannot be confirmed: Kratos, where this service checks that your account still exists, is not answering it. The dashboard comes back as soon as it does. If this goes on, check that Kratos's admin API is running, and that this service's API key for it is valid: on the server, admin-dashboard settings set proxy.iam-idp-admin.api_key --encrypted (or proxy.idp-admin.api_key where the admins have no Kratos of their own)."


/**
 * A failure of a call through a proxy prefix, said of the upstream by name: the proxy's own
 * envelopes speak of "upstream service", and an upstream's refusal (its body is never shown) has
 * only its status. A page's own message for a status it knows (400, 404, 409) still takes its place.
 */
function namedFailure(path: string, failure: ApiFailure & { reached?: boolean }): ApiFailure {
  const name = proxiedTo(path)
  if (name === null) return failure
  const message = (() => {
    switch (failure.error) {
      case 'bad_gateway':
        if (failure.reached === true) return `${name}'s answer did not come through. ${WAIT}`
        return `${name} cannot be reached from this service. ${WAIT} If it goes on, check that ${name} is running.`
      case 'gateway_timeout':
        return `${notAnsweredInTime(name)}. ${WAIT}`
      case 'proxy_error':
        return failure.reached === true ? `${name}'s answer could not be read. ${WAIT}` : failure.message
      case 'upstream_not_configured':
        return `${name} is not configured on this service.`
      case 'redirected':
        return `${name} answered with a redirect, which the page does not follow.`
      case 'request_failed':
        if (failure.status === 429) return `${name} is receiving too many requests (HTTP 429). ${WAIT}`
        if (failure.status === 503) return `${name} is unavailable for the moment (HTTP 503). ${WAIT}`
        if (failure.status === 404) return failure.message
        if (failure.status === 401) return `${name} did not accept this service's credentials (HTTP 401). Check its API key under Settings.`
        return failure.status >= 500 ? `${name} could not carry out the request (HTTP ${failure.status}).` : `${name} refused the request (HTTP ${failure.status}).`
      default:
        return failure.message
    }
  })()
  return { ...failure, message, upstream: name }
}

/**
 * The one wording of an upstream that outlived the service's deadline (504), without the full stop:
 * "Kratos did not answer in time", or "… in time for <what>" when the page names what it asked for.
 */
export function notAnsweredInTime(upstream: string, forWhat?: string): string {
  return `${upstream} did not answer in time${forWhat === undefined ? '' : ` for ${forWhat}`}`
}

/**
 * A change of unknown outcome (`maybeDone`) said by the page that knows what it was: who did not
 * answer, then `outcome` ("The identity may have been created: search for it before creating it again.").
 */
export function unknownOutcomeSaid(failure: ApiFailure, outcome: string): ApiFailure {
  return { ...failure, message: `${whyUnknown(failure)}. ${outcome}` }
}

/** Why a change's outcome is unknown, without the full stop: "Kratos did not answer in time", "… for <what>" when the page names it. */
export function whyUnknown(failure: ApiFailure, forWhat?: string): string {
  if (failure.unknownWhy === undefined) return notAnsweredInTime(upstreamName(failure), forWhat)
  return forWhat === undefined ? failure.unknownWhy : `${failure.unknownWhy} for ${forWhat}`
}

/** Who a failure is of, as its message names it: Kratos or Hydra, else this service's upstream in general. */
export const upstreamName = (failure: ApiFailure): string => failure.upstream ?? 'The upstream service'

/** A 404 that is not Kratos's or Hydra's own: what came instead of their answer, and where to look. */
function foreignPage(upstream: UpstreamService): ApiFailure {
  return {
    error: 'foreign_answer',
    message: `A 404 page came instead of ${upstream}'s answer: check the ${upstream} URL this service is configured with, and any proxy in front of ${upstream}.`,
    status: 502,
    upstream,
  }
}

/**
 * A change whose request reached the upstream but whose answer did not come back (504: the service
 * gave up waiting; 502: the answer was lost on the way): it may have been carried out (or still be
 * under way). Said as unknown, never as failed: a retry could make it twice (a second client, a
 * second identity). `why` begins the message.
 */
function unknownOutcome(upstream: UpstreamService | null, why: string, error: string, status: number): ApiFailure {
  return unknownOutcomeSaid({ error, message: '', status, maybeDone: true, unknownWhy: why, upstream: upstream ?? undefined }, 'The change may have been made: check before trying again.')
}

/**
 * Our envelope's error and message; anything else (an upstream body) is replaced by a generic
 * sentence. A relayed body is read only to tell Kratos's or Hydra's own error from a page of
 * something in front of them (`upstreamOwn`); its words are never shown.
 */
async function envelopeOf(response: Response, relayed: boolean, upstream: UpstreamService | null): Promise<ApiFailure & { reached?: boolean; upstreamOwn?: boolean }> {
  const fallback = { error: 'request_failed', message: GENERIC[response.status] ?? `The request failed (HTTP ${response.status}).`, status: response.status }
  let body: unknown
  try {
    body = await response.json()
  } catch {
    return relayed ? { ...fallback, upstreamOwn: false } : fallback
  }
  const fields = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {}
  if (relayed) return { ...fallback, upstreamOwn: upstream === 'Kratos' ? isKratosError(fields, response.status) : upstream === 'Hydra' && isHydraError(fields) }
  if (typeof fields.error === 'string' && typeof fields.message === 'string') {
    return { error: fields.error, message: fields.message, status: response.status }
  }
  return fallback
}

const q = (params: Record<string, string | number | undefined | null>) => {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== '') search.set(key, String(value))
  const text = search.toString()
  return text ? `?${text}` : ''
}
const id = (value: string) => encodeURIComponent(value)
const KRATOS = '/api/idp-admin/admin'
const HYDRA = '/api/oauth-admin/admin'

export const api = {
  session: () => request<{ user: SessionUser }>('GET', '/api/auth/session'),
  logout: () => request<void>('POST', '/api/auth/logout'),
  config: () => request<PublicConfig>('GET', '/api/config'),
  servicesHealth: (caller: Caller = 'person') => request<{ services: ServiceHealth[] }>('GET', '/api/services/health', undefined, caller),
  sessionLocations: () => request<{ points: LocationPoint[]; truncated: boolean }>('GET', '/api/session-locations'),
  auditPage: (params: { limit: number; before?: string; action?: string; actor?: string; request_id?: string; about?: string }) =>
    request<{ events: AuditEvent[]; next_before: number | null }>('GET', `/api/security/audit${q(params)}`),
  audit: (limit: number) => request<{ events: AuditEvent[]; next_before: number | null }>('GET', `/api/security/audit${q({ limit })}`),
  settings: () => request<Setting[]>('GET', '/api/settings'),
  /** One setting as stored (ciphertext when encrypted); read again before a change, a 401 refuses that change. */
  setting: async (key: string, readFor: ReadFor = 'show') => (await send<Setting>('GET', `/api/settings/${id(key)}`, undefined, { readFor })).result,
  revealSetting: (key: string) => request<Setting>('GET', `/api/settings/${id(key)}?decrypt=true`),
  /**
   * `create` only creates and `replace` only replaces (the service answers 412 when the key is, or
   * is no longer, there); `either` does whichever applies.
   */
  saveSetting: (body: { key: string; value: string; encrypted: boolean; category: string | null }, only: 'create' | 'replace' | 'either') =>
    request<Setting>('POST', '/api/settings', body, 'person', only === 'create' ? { 'if-none-match': '*' } : only === 'replace' ? { 'if-match': '*' } : undefined),
  deleteSetting: (key: string) => request<void>('DELETE', `/api/settings/${id(key)}`),
  posture: () => request<{ checks: PostureCheck[] }>('GET', '/api/security/posture'),
  layout: () => request<{ layout: Layout | null }>('GET', '/api/dashboard/layout'),
  saveLayout: (layout: Layout) => request<{ layout: Layout }>('PUT', '/api/dashboard/layout', { layout }),
  geo: (ip: string) => request<GeoAnswer>('GET', `/api/geo${q({ ip })}`),
  endDashboardSessions: (identityId: string) => request<void>('POST', '/api/security/sessions/revoke', { identity_id: identityId }),

  identities: async (params: { page_size: number; page_token?: string; credentials_identifier?: string }): Promise<ApiResult<IdentityPage>> => {
    // Our route has already checked each row (an id at least); its traits come as Kratos sent them.
    const result = await request<{ identities: unknown[]; next_page_token: string | null; has_more: boolean }>('GET', `/api/identities${q(params)}`)
    if (!result.ok) return result
    const { items, skipped } = readRows(result.data.identities, readIdentity)
    return { ok: true, data: { ...result.data, identities: items, skipped } }
  },
  // Without include_credential, Kratos sends each credential's type and identifiers and never its
  // config (a password's hash, a TOTP secret, OIDC tokens): all the page shows, and nothing more
  // reaches the browser.
  identity: (identityId: string, readFor: ReadFor = 'show') =>
    requestRecord(KRATOS_ANSWERS, readIdentity, 'GET', `${KRATOS}/identities/${id(identityId)}`, undefined, readFor),
  /** An identity of the login identity store (where the admins live): its own Kratos when it has one (decisions §3). */
  loginIdentity: (identityId: string, ownStore: boolean) =>
    requestRecord(KRATOS_ANSWERS, readIdentity, 'GET', `${ownStore ? '/api/iam-idp-admin/admin' : KRATOS}/identities/${id(identityId)}`),
  createIdentity: (body: { schema_id: string; traits: Record<string, unknown>; credentials?: unknown; state?: string }) =>
    requestRecord(KRATOS_ANSWERS, readIdentity, 'POST', `${KRATOS}/identities`, body),
  patchIdentity: (identityId: string, patch: PatchOp[]) => requestRecord(KRATOS_ANSWERS, readIdentity, 'PATCH', `${KRATOS}/identities/${id(identityId)}`, patch),
  setState: (identityId: string, state: 'active' | 'inactive') =>
    requestRecord(KRATOS_ANSWERS, readIdentity, 'PATCH', `${KRATOS}/identities/${id(identityId)}`, [{ op: 'replace', path: '/state', value: state }]),
  deleteIdentity: (identityId: string) => request<void>('DELETE', `${KRATOS}/identities/${id(identityId)}`),
  /** `identifier`: the one oidc or saml link to delete (`<provider>:<subject>`), which Kratos requires for those types. */
  deleteCredential: (identityId: string, type: string, identifier?: string) =>
    request<void>('DELETE', `${KRATOS}/identities/${id(identityId)}/credentials/${id(type)}${q({ identifier })}`),
  identitySessions,
  revokeSession: (sessionId: string) => request<void>('DELETE', `${KRATOS}/sessions/${id(sessionId)}`),
  revokeAllSessions: (identityId: string) => request<void>('DELETE', `${KRATOS}/identities/${id(identityId)}/sessions`),
  schemas: identitySchemas,
  recoveryLink: (identityId: string) => requestRecord(KRATOS_ANSWERS, readRecoveryLink, 'POST', `${KRATOS}/recovery/link`, { identity_id: identityId }),
  sessions: (params: { page_size: number; page_token?: string }) =>
    requestList(KRATOS_ANSWERS, readSession, `${KRATOS}/sessions${q({ ...params, active: 'true' })}&expand=identity&expand=devices`),
  /**
   * The session after the extend: as Kratos answers it, or, when it answers none (204 with
   * `feature_flags.faster_session_extend`), as read again; undefined when it cannot be read.
   */
  extendSession: async (sessionId: string): Promise<ApiResult<KratosSession | undefined>> => {
    const result = await request<unknown>('PATCH', `${KRATOS}/sessions/${id(sessionId)}/extend`)
    if (!result.ok) return result
    if (result.data !== undefined) return { ok: true, data: readSession(result.data) ?? undefined }
    const read = await requestRecord(KRATOS_ANSWERS, readSession, 'GET', `${KRATOS}/sessions/${id(sessionId)}`)
    return { ok: true, data: read.ok ? read.data : undefined }
  },
  messages: (params: { page_size: number; page_token?: string; status?: string; recipient?: string }) =>
    requestList(KRATOS_ANSWERS, readMessage, `${KRATOS}/courier/messages${q(params)}`),
  message: (messageId: string) => requestRecord(KRATOS_ANSWERS, readMessage, 'GET', `${KRATOS}/courier/messages/${id(messageId)}`),
  clients: (params: { page_size: number; page_token?: string; client_name?: string }) => requestList(HYDRA_ANSWERS, readClient, `${HYDRA}/clients${q(params)}`),
  client: (clientId: string, readFor: ReadFor = 'show') => requestRecord(HYDRA_ANSWERS, readClient, 'GET', `${HYDRA}/clients/${id(clientId)}`, undefined, readFor),
  createClient: (client: Partial<OAuthClient>) => requestRecord(HYDRA_ANSWERS, readClient, 'POST', `${HYDRA}/clients`, client),
  patchClient: (clientId: string, patch: PatchOp[]) => requestRecord(HYDRA_ANSWERS, readClient, 'PATCH', `${HYDRA}/clients/${id(clientId)}`, patch),
  deleteClient: (clientId: string) => request<void>('DELETE', `${HYDRA}/clients/${id(clientId)}`),
  revokeClientTokens: (clientId: string) => request<void>('DELETE', `${HYDRA}/oauth2/tokens${q({ client_id: clientId })}`),
  recoveryCode: (identityId: string) => requestRecord(KRATOS_ANSWERS, readRecoveryCode, 'POST', `${KRATOS}/recovery/code`, { identity_id: identityId }),
}
