// /api/idp/**, /api/idp-admin/**, /api/iam-idp/**, /api/iam-idp-admin/**, /api/oauth/**,
// /api/oauth-admin/**: any method but TRACE and CONNECT, bodies streamed both ways. Plain-HTTP
// upstreams (the usual private-network admin APIs) go through our own kept-alive HTTP/1.1 client
// (http1.ts), which knows where a body ends without a second stream around it; https upstreams
// (and everything when HTTP_PROXY is set) through Bun's fetch (fetch-client.ts).
// Who may call which prefix is the gate's decision (access.ts); this file only forwards.

import { Elysia } from 'elysia'
import type { Services } from '../services.ts'
import { ApiError } from '../http/errors.ts'
import { attachedSession, pathnameOf, requestIdOf } from '../http/request-context.ts'
import { noteOn } from '../http/request-notes.ts'
import { describeError } from '../log.ts'
import { ANSWER_LOST, ANSWER_UNREADABLE, OUTCOME_UNKNOWN, UPSTREAM_OUTCOME_HEADER } from './answer-lost.ts'
import { forwardedRequestHeaders, relayedResponseHeaders } from './headers.ts'
import { fetchUpstream } from './fetch-client.ts'
import { Http1Pool, UpstreamProtocolError, type UpstreamAnswer } from './http1.ts'
import { markPassthrough } from './passthrough.ts'
import { DeadlineClock } from './deadline.ts'
import { auditedPath, basePathOf, isUnderBase, joinUpstreamUrl, keyedPublicPath, pathUnderBase, reachesAdminApi, type UpstreamTarget } from './url.ts'
import { normalizePath } from '../http/access.ts'
import { errorCodeFor, failureOf, type UpstreamFailure } from '../upstream/client.ts'
import { PROXY_PREFIXES, proxyPrefixOf, type ProxyPrefix } from './upstreams.ts'
import { StorageUnavailableError } from '../db/storage.ts'
import { isPlainIdentifier } from '../identities/model.ts'
import { cappedStream, readCapped } from '../http/body.ts'
import { canonicalUuid } from '../text.ts'

const PLACEHOLDER_BASE = new URL('http://upstream.invalid/')
const NO_BODY_METHODS = new Set(['GET', 'HEAD'])
const NOT_FORWARDED_METHODS = new Set(['TRACE', 'CONNECT'])
/** The largest body streamed to an upstream; counted as it streams, whatever Content-Length said. */
export const PROXY_BODY_LIMIT = 64 * 1024 * 1024
/** Answers up to this size, with a Content-Length, are read whole from the upstream and sent in one piece. */
const WHOLE_BODY_BYTES = 64 * 1024

class BodyTooLarge extends Error {
  override name = 'BodyTooLarge'
}

/** The client's body on its way to the upstream, cut with BodyTooLarge once it passes the limit. */
const limitedBody = (body: ReadableStream<Uint8Array>, limit: number) => cappedStream(body, limit, () => new BodyTooLarge())

type Failure = { code: 'gateway_timeout' | 'bad_gateway' | 'proxy_error' | 'service_unavailable'; class: UpstreamFailure }

/** The proxy's codes (decisions §6): timeout 504, no connection 502, our own exhaustion 503, anything else 500 proxy_error. */
function classifyFailure(error: unknown, aborted: boolean): Failure {
  // An answer our client could not read (UpstreamProtocolError) has no code of its own: invalid_response.
  const failure = failureOf(error, aborted)
  return { code: failure === 'invalid_response' || failure === 'rejected' ? 'proxy_error' : (errorCodeFor(failure) as Failure['code']), class: failure }
}

/**
 * Failures that prove the request never left this host (no connection was made): anything else
 * after the request went out (a reset, an answer cut short) leaves its outcome unknown.
 */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'ConnectionRefused', 'FailedToOpenSocket'])
/**
 * A TLS handshake refused (a certificate not trusted, expired, for another name; a peer that speaks
 * no TLS): nothing was sent either. Only handshake and verification codes: a TLS failure later, once
 * the request may have gone out, is not one of them.
 */
const TLS_REFUSAL = /^(?:CERT_[A-Z_]+|ERR_TLS_CERT_ALTNAME_INVALID|UNABLE_TO_[A-Z_]+|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|HOSTNAME_MISMATCH|ERR_SSL_WRONG_VERSION_NUMBER)$/
function neverSent(error: unknown): boolean {
  const code = String((error as { code?: unknown } | null)?.code ?? (error as { cause?: { code?: unknown } } | null)?.cause?.code ?? '')
  return NOT_SENT.has(code) || TLS_REFUSAL.test(code)
}

/** An admin API path under a public prefix: where it is served instead. */
const ADMIN_PATH_REFUSAL = {
  message: 'Admin API paths are not forwarded through a public prefix.',
  hint: 'Use the admin prefix of the same API (for example /api/idp-admin/admin/…) with an admin session.',
}

const IDENTITY_PATH = /^\/admin\/identities\/([^/]+)\/?$/

/** A request on its way to an upstream: where it goes, and the length its body declared. */
interface Target {
  prefix: ProxyPrefix
  request: Request
  url: UpstreamTarget
  base: URL
  declaredLength: number | null
  /** A write through an admin prefix: its audit event, written before it is sent (beginWrite). */
  auditId?: number
  /** A recovery request's body, read whole before it is sent (its identity is in it), and what it told. */
  read?: { body: Uint8Array<ArrayBuffer>; facts: WriteFacts }
  /** Its path as the upstream reads it (auditedPath), once an admin write or search asks for it. */
  audited?: string
}

/** The path of a request under an admin prefix as the upstream reads it, made once per request. */
const auditedPathOf = (target: Target): string => (target.audited ??= auditedPath(pathUnderBase(target.url, target.base)))

/** `Location` inside the upstream's base URL → the same place under our prefix (nginx `proxy_redirect default`). */
export function rewriteLocation(location: string, base: URL, prefix: ProxyPrefix): string {
  const absolute = /^[a-z][a-z0-9+.-]*:/i.test(location) || location.startsWith('//')
  // A relative reference ("next", "../x") stays correct under our prefix as it is.
  if (!absolute && !location.startsWith('/')) return location
  let target: URL
  try {
    target = new URL(location, base)
  } catch {
    return location
  }
  return isUnderBase(target, base) ? prefix.path + target.pathname.slice(basePathOf(base).length) + target.search + target.hash : location
}

/** What an admin write did, told from its path, its query's ids, its answer or (a recovery link or code) its request: never a value. */
type WriteFacts = { state?: string; created?: string; client_id?: string; identity_id?: string }

/** Kratos's admin paths whose request body, not their path, names the identity they act on. */
const RECOVERY_PATHS = new Set(['/admin/recovery/link', '/admin/recovery/code'])
/** The most of such a body read before it is sent (Kratos's is a few fields: the id, an expiry, a flow type). */
const RECOVERY_BODY_BYTES = 16 * 1024

/**
 * The identity a recovery link or code is asked for (`identity_id` in the body), read before the
 * body is sent on, so that the trail says whose it was; null when the body names none plainly.
 */
function recoveryIdentityIn(body: Uint8Array): string | null {
  const id = recordIn(body)?.identity_id
  return typeof id === 'string' && isPlainIdentifier(id) ? canonicalUuid(id) : null
}

/**
 * The facts of a successful write an auditor asks about that its path does not hold: the state an
 * identity was left in (a Deactivate is a PATCH like any other), the id of what a POST made, the
 * client whose tokens were revoked (Hydra takes it in the query). Ids and states only.
 */
function factsOf(method: string, path: string, search: string, record: Record<string, unknown> | null): WriteFacts {
  if (method === 'DELETE' && path === '/admin/oauth2/tokens') {
    const client = new URLSearchParams(search).get('client_id')
    return client && isPlainIdentifier(client) ? { client_id: client } : {}
  }
  if (record === null) return {}
  const facts: WriteFacts = {}
  if ((method === 'PATCH' || method === 'PUT') && IDENTITY_PATH.test(path) && (record.state === 'active' || record.state === 'inactive')) facts.state = record.state
  if (method === 'POST' && (path === '/admin/identities' || path === '/admin/clients')) {
    const made = path === '/admin/identities' ? record.id : record.client_id
    if (typeof made === 'string' && isPlainIdentifier(made)) facts.created = made
  }
  return facts
}

/** A JSON object answer read whole, or null. */
function recordIn(answer: Uint8Array | null): Record<string, unknown> | null {
  if (answer === null) return null
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(answer))
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null
  } catch {
    return null
  }
}

/**
 * How an upstream's status reads in the audit trail: a 4xx is a refusal; a 5xx may come from
 * something in front of the upstream (a gateway's 502 or 504) after it acted, so it may have been
 * done; no status at all (an answer lost) likewise.
 */
function outcomeOfStatus(status: number | null): 'ok' | 'upstream_refused' | 'upstream_error' {
  if (status === null || status >= 500) return 'upstream_error'
  return status < 400 ? 'ok' : 'upstream_refused'
}

/** The proxy: its Elysia routes (one per prefix), and `forward`, which answers a request under a prefix whatever calls it. */
export function createProxy(services: Pick<Services, 'config' | 'log' | 'settings' | 'audit' | 'endSessionsOf' | 'verifier' | 'fetch'>) {
  const { config, log, settings } = services
  const pool = new Http1Pool()
  const deadlines = new DeadlineClock(config.proxyTimeoutMs, () => new DOMException('upstream timeout', 'TimeoutError'))
  // Our client never goes through an HTTP proxy: where the environment names one, plain-HTTP
  // upstreams stay with fetch, which uses it.
  const ownClient = !config.outboundHttpProxy
  const plugin = new Elysia({ name: 'proxy' })
  for (const prefix of PROXY_PREFIXES) {
    plugin.all(prefix.route, async ({ request, set }) => {
      const response = await forward(prefix, request)
      // The relayed answer already carries every header the gate put in `set` (the security headers
      // and the request id): with `set` empty, Elysia sends it as it is instead of copying it into
      // a new Response with the two header sets merged.
      set.headers = {}
      return response
    })
  }
  return { routes: plugin, forward }

  /**
   * The upstream's answer to a request under `prefix`. Nothing is awaited that is already known: a
   * request whose API key is in memory and whose small answer arrives whole waits for that answer
   * alone. Throws (or rejects with) the envelope's ApiError.
   */
  function forward(prefix: ProxyPrefix, request: Request): Promise<Response> {
    // TRACE asks the hops to echo the request back, the API key this service adds included; CONNECT
    // would make the connection a tunnel. Neither is part of Kratos's or Hydra's API.
    if (NOT_FORWARDED_METHODS.has(request.method)) throw new ApiError('method_not_allowed', { message: 'This method is not forwarded.' })
    const rawPath = pathnameOf(request)
    const url = request.url
    const queryStart = url.indexOf('?')
    const rest = rawPath.slice(prefix.path.length)
    const search = queryStart < 0 ? '' : url.slice(queryStart)
    // A path that could leave the upstream is refused whether or not the upstream is configured.
    const joined = joinUpstreamUrl(config.upstreams[prefix.name] ?? PLACEHOLDER_BASE, rest, search)
    if (!joined.ok) {
      log.warn('proxy_refused', { request_id: requestIdOf(request), prefix: prefix.name, reason: joined.reason })
      throw new ApiError('bad_request', { message: 'The path cannot be forwarded.' })
    }
    // A public prefix needs no session: its API key must not open an admin API for anyone who asks.
    if (!prefix.admin && reachesAdminApi(rest)) {
      log.warn('proxy_refused', { request_id: requestIdOf(request), prefix: prefix.name, reason: 'admin_path' })
      throw new ApiError('not_found', ADMIN_PATH_REFUSAL)
    }
    const base = config.upstreams[prefix.name]
    if (!base) throw new ApiError('upstream_not_configured')

    const declared = request.headers.get('content-length')
    if (declared !== null && Number(declared) > PROXY_BODY_LIMIT) throw new ApiError('payload_too_large')
    const target: Target = { prefix, request, url: joined.url, base, declaredLength: declared !== null && /^\d+$/.test(declared) ? Number(declared) : null }
    // A public prefix's key goes only with its upstream's public API (url.ts keyedPublicPath).
    if (!prefix.admin && !keyedPublicPath(rest)) return send(target, null)
    const known = settings.cachedApiKey(prefix.name)
    if (known === undefined) return readApiKey(target).then((apiKey) => send(target, apiKey))
    return send(target, known)
  }

  /** The API key when memory could not answer at once (settings.apiKeyFor), with what its failures mean here. */
  async function readApiKey(target: Target): Promise<string | null> {
    const { prefix, request } = target
    try {
      return await settings.apiKeyFor(prefix.name)
    } catch (error) {
      if (error instanceof StorageUnavailableError) {
        // While the database cannot be reached, public routes (the sign-in and sign-up flows) are
        // forwarded with the key this process read last rather than refused: it goes only to the
        // upstream it is for, and that upstream judges it. The admin prefixes are refused (503
        // database_unavailable, like the rest of the API), as the gate refuses their sessions.
        const last = prefix.admin ? undefined : settings.lastReadApiKey(prefix.name)
        if (last === undefined) throw error
        return last
      }
      // A key that cannot be decrypted (ENCRYPTION_KEY changed or unset) is a failure of the proxy
      // path like any other: 500 proxy_error, its cause only in the log (apiKeyFor logs it).
      noteOn(request, { upstream_failure: 'api_key_unreadable' })
      if (prefix.admin) await auditWrite(target, null, 'api_key_unreadable')
      throw new ApiError('proxy_error')
    }
  }

  function send(target: Target, apiKey: string | null): Promise<Response> {
    const { prefix, request } = target
    if (prefix.admin && target.read === undefined && namesIdentityInBody(target)) return readRecoveryBody(target).then(() => send(target, apiKey))
    if (prefix.admin && target.auditId === undefined && !NO_BODY_METHODS.has(request.method)) return beginWrite(target).then(() => send(target, apiKey))
    const headers = forwardedRequestHeaders(request.headers, { apiKey, adminPrefix: prefix.admin })
    const deadline = deadlines.start()
    /**
     * `status`: the upstream's status line, when it came before the failure (a body cut short);
     * `sent: false`: the request certainly never reached the upstream (a proxy on the way refused it).
     */
    const failed = async (error: unknown, at: { status?: number; sent?: false } = {}): Promise<never> => {
      deadline.stop()
      if (error instanceof BodyTooLarge || (error as { cause?: unknown }).cause instanceof BodyTooLarge) {
        // Cut off before its end: the upstream got no whole request, and its event says so.
        await auditWrite(target, null, 'payload_too_large')
        throw new ApiError('payload_too_large')
      }
      const failure = classifyFailure(error, deadline.aborted)
      // Anything but a connection never made may have reached the upstream: its change may have been made.
      const reached = at.sent !== false && !neverSent(error)
      log.warn('proxy_failed', { request_id: requestIdOf(request), prefix: prefix.name, method: request.method, failure: failure.class, ...describeError(error) })
      noteOn(request, { upstream_failure: failure.class })
      const words = !reached ? undefined : failure.code === 'bad_gateway' ? ANSWER_LOST : failure.code === 'proxy_error' ? ANSWER_UNREADABLE : undefined
      const change = !NO_BODY_METHODS.has(request.method)
      const searched = prefix.admin && !change ? identitySearchOf(target) : null
      if (searched !== null) await auditSearch(target, searched, at.status ?? null, failure.class)
      if (prefix.admin && change) {
        if (reached) await afterIdentityWrite(target, at.status ?? null)
        const outcome = words === ANSWER_LOST ? 'answer_lost' : words === ANSWER_UNREADABLE ? 'answer_unreadable' : failure.class
        await auditWrite(target, at.status ?? null, outcome)
      }
      if (words === undefined) throw new ApiError(failure.code)
      throw new ApiError(failure.code, { message: words, headers: { [UPSTREAM_OUTCOME_HEADER]: OUTCOME_UNKNOWN } })
    }
    const body = target.read ? new Blob([target.read.body]).stream() : NO_BODY_METHODS.has(request.method) || !request.body ? undefined : limitedBody(request.body, PROXY_BODY_LIMIT)
    // The timeout covers the upstream's answer (status and headers, and a small body); a long download may take longer.
    const outbound = { method: request.method, headers, body, bodyLength: target.declaredLength, signal: deadline }
    let answer: Promise<UpstreamAnswer>
    try {
      answer = ownClient && target.url.protocol === 'http:' ? pool.request(target.url, outbound) : fetchUpstream(services.fetch, target.url, { ...outbound, signal: deadline.signal })
    } catch (error) {
      return failed(error)
    }
    return answer.then((upstream) => {
      // 407 asks for a proxy's credentials: an HTTP_PROXY on the way, or a proxy in front of the
      // upstream, wants them from us. Relayed, it would have the browser ask its user for them.
      if (upstream.status === 407) {
        void Promise.resolve(upstream.body?.cancel()).catch(() => undefined)
        return failed(new UpstreamProtocolError('a proxy on the way asks for its credentials (407)'), { sent: false })
      }
      // A small answer of known length is read whole before anything is sent: no stream to pump, its
      // end is known, and an upstream that cuts it short gets our 502 instead of a truncated 200.
      const announced = upstream.body
      if (request.method === 'HEAD' || announced === null || announced.length === null || announced.length > WHOLE_BODY_BYTES) {
        deadline.stop()
        return relay(target, upstream, null)
      }
      const arrived = announced.arrived()
      if (arrived !== null) {
        deadline.stop()
        return relay(target, upstream, arrived)
      }
      return announced.bytes().then(
        (whole) => {
          deadline.stop()
          return relay(target, upstream, whole)
        },
        (error: unknown) => failed(error, { status: upstream.status }),
      )
    }, failed)
  }

  /** What follows an admin write, then the answer (the audit event is written before the answer goes). */
  function relay(target: Target, upstream: UpstreamAnswer, whole: Uint8Array<ArrayBuffer> | null): Response | Promise<Response> {
    if (target.prefix.admin) {
      if (!NO_BODY_METHODS.has(target.request.method)) return afterAdminWrite(target, upstream, whole).then(() => answerWith(target, upstream, whole))
      const searched = identitySearchOf(target)
      if (searched !== null) return auditSearch(target, searched, upstream.status).then(() => answerWith(target, upstream, whole))
    }
    return answerWith(target, upstream, whole)
  }

  /**
   * The identifier a GET of an identity store's list looks people up by (`credentials_identifier`),
   * or null: a search as /api/identities makes one (admin-api.md rule 6), made through the proxy.
   */
  function identitySearchOf({ prefix, request, url, base }: Target): string | null {
    if (request.method !== 'GET' || (prefix.name !== 'idp-admin' && prefix.name !== 'iam-idp-admin') || url.search === '') return null
    // Read as Kratos reads them: the query's names decoded, the path decoded and normalized (a
    // spelling the gate reads as the list is taken for it; a search recorded twice costs nothing).
    const query = new URLSearchParams(url.search)
    const filter = query.get('credentials_identifier') || query.get('preview_credentials_identifier_similar')
    if (!filter || normalizePath(pathUnderBase(url, base)).path !== '/admin/identities') return null
    return filter
  }

  /**
   * A search through the proxy, as the identities route records its own: a JSON line and an event
   * (its filter as text only when it is one a search would take). `failure`: how it failed, where no
   * answer came.
   */
  async function auditSearch({ prefix, request }: Target, filter: string, status: number | null, failure?: string): Promise<void> {
    const adminId = attachedSession(request)?.sub ?? null
    const outcome = failure ?? outcomeOfStatus(status)
    const requestId = requestIdOf(request)
    log.audit({ action: 'identity_search', adminId, searchFilter: filter, timestamp: new Date().toISOString(), outcome, prefix: prefix.name, request_id: requestId })
    const plain = isPlainIdentifier(filter)
    const detail: Record<string, string | number> = plain ? { outcome, prefix: prefix.name } : { outcome, prefix: prefix.name, filter_length: filter.length }
    await services.audit.recordOrLog(log, { action: 'identity_search', actor: adminId, target: plain ? filter : null, detail, requestId })
  }

  async function afterAdminWrite(target: Target, upstream: UpstreamAnswer, whole: Uint8Array | null): Promise<void> {
    const { request, url } = target
    // A success's answer, read whole, as a record: once, for the sessions and for the audit event.
    const record = upstream.status >= 200 && upstream.status < 300 ? recordIn(whole) : null
    await afterIdentityWrite(target, upstream.status, record)
    await auditWrite(target, upstream.status, outcomeOfStatus(upstream.status), upstream.status < 300 ? factsOf(request.method, auditedPathOf(target), url.search, record) : {})
  }

  /**
   * What a write to an identity of the login or managed store means for its dashboard sessions.
   * `status`: the upstream's, or null when its answer was lost (the write may have been made);
   * `answer`: its body as a record, when it was read whole (a small one).
   */
  async function afterIdentityWrite(target: Target, status: number | null, answer: Record<string, unknown> | null = null): Promise<void> {
    const { prefix, request } = target
    if (prefix.name !== 'idp-admin' && prefix.name !== 'iam-idp-admin') return
    if (status !== null && (status < 200 || status >= 300)) return
    // The id as Kratos reads it (decoded, lower case): the sessions it ends are keyed by it.
    const identity = auditedPathOf(target).match(IDENTITY_PATH)
    if (!identity) return
    const id = identity[1]!
    if (request.method === 'DELETE' && status !== null) {
      // Erasing an identity ends its dashboard sessions now, not at the next presence check.
      // The upstream's answer stands even when this cannot be recorded; the erasure check still catches it.
      await services.endSessionsOf(id).catch((error: unknown) => log.error('end_sessions_failed', { request_id: requestIdOf(request), ...describeError(error) }))
    } else if (request.method === 'PATCH' || request.method === 'PUT' || request.method === 'DELETE') {
      if (status !== null && answer?.state === 'inactive') {
        // Deactivated (Kratos's lock-out): its dashboard sessions end now on every replica (a
        // revocation, shared through the database), not only on this one, where the next request
        // would ask the store; the others trusted it until their recheck window ran out.
        await services.endSessionsOf(id).catch((error: unknown) => log.error('end_sessions_failed', { request_id: requestIdOf(request), ...describeError(error) }))
        return
      }
      // A change that may have deactivated or erased it (its answer lost, or too large to have been
      // read whole): its next request asks the store again.
      services.verifier.forgetIdentity(id)
    }
  }

  function answerWith({ prefix, request, base }: Target, upstream: UpstreamAnswer, whole: Uint8Array<ArrayBuffer> | null): Response | Promise<Response> {
    const responseHeaders = relayedResponseHeaders(upstream.fields, (location) => rewriteLocation(location, base, prefix))
    const id = requestIdOf(request)
    if (id !== undefined) responseHeaders.set('x-request-id', id)
    markPassthrough(request)
    const init = { status: upstream.status, statusText: upstream.statusText, headers: responseHeaders }
    if (whole !== null) {
      noteOn(request, { body: 'complete', body_bytes: whole.byteLength })
      return new Response(whole, init)
    }
    const relayed = upstream.body
    if (relayed === null || request.method === 'HEAD' || upstream.status === 204 || upstream.status === 304) {
      const cancelled = relayed?.cancel()
      return cancelled instanceof Promise ? cancelled.then(() => new Response(null, init)) : new Response(null, init)
    }
    noteOn(request, { completion: relayed.ended })
    return new Response(relayed.stream(), init)
  }

  /** A POST for a recovery link or code with a small body of declared length: its body says whose it is. */
  function namesIdentityInBody(target: Target): boolean {
    const { request, declaredLength } = target
    return request.method === 'POST' && declaredLength !== null && declaredLength <= RECOVERY_BODY_BYTES && RECOVERY_PATHS.has(auditedPathOf(target))
  }

  /** Reads a recovery request's body whole (sent on as it came), and the identity it names. */
  async function readRecoveryBody(target: Target): Promise<void> {
    let body: Uint8Array<ArrayBuffer>
    try {
      body = await readCapped(target.request.body, RECOVERY_BODY_BYTES, () => new BodyTooLarge())
    } catch {
      // The client went away, or sent more than it declared: nothing was sent on, nothing recorded.
      throw new ApiError('bad_request', { message: 'The request body could not be read.' })
    }
    const identity = recoveryIdentityIn(body)
    target.read = { body, facts: identity === null ? {} : { identity_id: identity } }
  }

  /** The event of a write through an admin prefix, before it is sent: nothing reaches an upstream that the trail does not hold (a database that cannot take it answers 503 first). */
  async function beginWrite(target: Target): Promise<void> {
    target.auditId = await services.audit.begin(writeEvent(target, null, 'pending'))
  }

  /**
   * How a write through an admin prefix ended: its event (begun before it was sent) completed, or,
   * for a write that never got as far as that, recorded. `facts`: what the write did, where it can
   * be told without a value (factsOf).
   */
  async function auditWrite(target: Target, status: number | null, outcome: string, facts: WriteFacts = {}): Promise<void> {
    if (!target.prefix.admin || NO_BODY_METHODS.has(target.request.method)) return
    const event = writeEvent(target, status, outcome, facts)
    // The upstream has already acted: its answer still goes back; a missing outcome is logged loudly
    // (the event then stays "pending": the trail says the write was sent, and not how it ended).
    if (target.auditId !== undefined) return services.audit.complete(log, target.auditId, event)
    await services.audit.recordOrLog(log, event, { prefix: target.prefix.name })
  }

  /** A write through an admin prefix, in the audit trail: who, which method and path (ids, never query values or bodies), how it ended. */
  function writeEvent(target: Target, status: number | null, outcome: string, facts: WriteFacts = {}) {
    const { prefix, request, read } = target
    const detail = { prefix: prefix.name, method: request.method, status, outcome, ...read?.facts, ...facts }
    return { action: 'proxy_write', actor: attachedSession(request)?.sub ?? null, target: auditedPathOf(target), detail, requestId: requestIdOf(request) } as const
  }
}

/** Our own JSON body parsing must leave proxied bodies untouched: they are streamed through. */
export function isProxiedPath(request: Request): boolean {
  return proxyPrefixOf(pathnameOf(request)) !== null
}
