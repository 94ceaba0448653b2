// /api/idp/**, /api/idp-admin/**, /api/iam-idp/**, /api/iam-idp-admin/**, /api/oauth/**,
// /api/oauth-admin/**: any method, bodies streamed both ways. Plain-HTTP upstreams (the usual
// private-network admin APIs) go through our own kept-alive HTTP/1.1 client (http1.ts), which
// knows where a body ends without a second stream around it; https upstreams (and everything when
// HTTP_PROXY is set) through Bun's fetch.
// Who may call which prefix is the gate's decision (access.ts); this file only forwards.

import { Elysia } from 'elysia'
import type { Services } from '../services.ts'
import { ApiError } from '../http/errors.ts'
import { attachedSession, pathnameOf, requestIdOf } from '../http/request-context.ts'
import { noteOn } from '../http/request-notes.ts'
import { describeError, type BodyEnd } from '../log.ts'
import { forwardedRequestHeaders, relayedResponseHeaders } from './headers.ts'
import { Http1Pool, UpstreamProtocolError, type UpstreamBody } from './http1.ts'
import { markPassthrough } from './passthrough.ts'
import { joinUpstreamUrl } from './url.ts'
import { errorCodeFor, failureOf, type UpstreamFailure } from '../upstream/client.ts'
import { PROXY_PREFIXES, proxyPrefixOf, type ProxyPrefix } from './upstreams.ts'

const PLACEHOLDER_BASE = new URL('http://upstream.invalid/')
const NO_BODY_METHODS = new Set(['GET', 'HEAD'])
/** The largest body streamed to an upstream; counted as it streams, whatever Content-Length said. */
export const PROXY_BODY_LIMIT = 64 * 1024 * 1024
/** Answers up to this size, with a Content-Length, are read whole from the upstream and sent in one piece. */
const WHOLE_BODY_BYTES = 64 * 1024

class BodyTooLarge extends Error {
  override name = 'BodyTooLarge'
}

/** The client's body on its way to the upstream, cut with BodyTooLarge once it passes the limit. */
function limitedBody(body: ReadableStream<Uint8Array>, limit: number): ReadableStream<Uint8Array> {
  let bytes = 0
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        bytes += chunk.byteLength
        if (bytes > limit) controller.error(new BodyTooLarge())
        else controller.enqueue(chunk)
      },
    }),
  )
}

type Failure = { code: 'gateway_timeout' | 'bad_gateway' | 'proxy_error' | 'service_unavailable'; class: UpstreamFailure }

/** The proxy's codes (decisions §6): timeout 504, no connection 502, our own exhaustion 503, anything else 500 proxy_error. */
function classifyFailure(error: unknown, aborted: boolean): Failure {
  const failure = error instanceof UpstreamProtocolError ? 'invalid_response' : failureOf(error, aborted)
  return { code: failure === 'invalid_response' || failure === 'rejected' ? 'proxy_error' : (errorCodeFor(failure) as Failure['code']), class: failure }
}

/**
 * The upstream body as it streams to the client, settling `ended` when it has all been sent
 * (`body: 'complete'`) or has stopped early (`body: 'incomplete'`, the upstream cut it or the client left).
 */
function watchedBody(body: ReadableStream<Uint8Array>): { stream: ReadableStream<Uint8Array>; ended: Promise<BodyEnd> } {
  let bytes = 0
  let settle!: (fields: BodyEnd) => void
  const ended = new Promise<BodyEnd>((resolve) => (settle = resolve))
  const reader = body.getReader()
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { value, done } = await reader.read()
          if (done) {
            controller.close()
            settle({ body: 'complete', body_bytes: bytes })
            return
          }
          bytes += value.byteLength
          controller.enqueue(value)
        } catch (error) {
          settle({ body: 'incomplete', body_bytes: bytes, ...describeError(error) })
          controller.error(error)
        }
      },
      cancel(reason) {
        settle({ body: 'incomplete', body_bytes: bytes })
        return reader.cancel(reason)
      },
    },
    { highWaterMark: 0 },
  )
  return { stream, ended }
}
/** What came back from the upstream, whichever client fetched it. */
interface Answer {
  status: number
  statusText: string
  headers: Headers
  /** The body's announced length, when it was announced. */
  length: number | null
  body: UpstreamBody | ReadableStream<Uint8Array> | null
}

function answerOfFetch(response: Response): Answer {
  const length = Number(response.headers.get('content-length') ?? Number.NaN)
  return { status: response.status, statusText: response.statusText, headers: response.headers, length: Number.isNaN(length) ? null : length, body: response.body }
}

const IDENTITY_PATH = /^\/admin\/identities\/([^/]+)\/?$/

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
  const basePath = base.pathname.replace(/\/+$/, '')
  const inside = target.origin === base.origin && (target.pathname === basePath || target.pathname.startsWith(basePath + '/'))
  return inside ? prefix.path + target.pathname.slice(basePath.length) + target.search + target.hash : location
}

export function proxyRoutes(services: Pick<Services, 'config' | 'log' | 'settings' | 'audit' | 'endSessionsOf' | 'fetch'>) {
  const { config, log, settings } = services
  const pool = new Http1Pool()
  // Our client never goes through an HTTP proxy: where the environment names one, plain-HTTP
  // upstreams stay with fetch, which uses it.
  const ownClient = !config.outboundHttpProxy
  const plugin = new Elysia({ name: 'proxy' })
  for (const prefix of PROXY_PREFIXES) {
    plugin.all(`${prefix.path}/*`, async ({ request, set }) => {
      const response = await forward(prefix, request)
      // The relayed answer already carries every header the gate put in `set` (the security headers
      // and the request id): with `set` empty, Elysia sends it as it is instead of copying it into
      // a new Response with the two header sets merged.
      set.headers = {}
      return response
    })
  }
  return plugin

  async function forward(prefix: ProxyPrefix, request: Request): Promise<Response> {
    const rawPath = pathnameOf(request)
    const queryStart = request.url.indexOf('?')
    const rest = rawPath.slice(prefix.path.length)
    const search = queryStart < 0 ? '' : request.url.slice(queryStart)
    // A path that could leave the upstream is refused whether or not the upstream is configured.
    const joined = joinUpstreamUrl(config.upstreams[prefix.name] ?? PLACEHOLDER_BASE, rest, search)
    if (!joined.ok) {
      log.warn('proxy_refused', { prefix: prefix.name, reason: joined.reason })
      throw new ApiError('bad_request', { message: 'The path cannot be forwarded.' })
    }
    const base = config.upstreams[prefix.name]
    if (!base) throw new ApiError('upstream_not_configured')

    const declared = request.headers.get('content-length')
    if (declared !== null && Number(declared) > PROXY_BODY_LIMIT) throw new ApiError('payload_too_large')
    const declaredLength = declared !== null && /^\d+$/.test(declared) ? Number(declared) : null
    const apiKey = await settings.apiKeyFor(prefix.name)
    const headers = forwardedRequestHeaders(request.headers, { apiKey, adminPrefix: prefix.admin })
    const controller = new AbortController()
    const timer = setTimeout(() => controller.abort(new DOMException('upstream timeout', 'TimeoutError')), config.proxyTimeoutMs)
    const failed = async (error: unknown): Promise<never> => {
      if (error instanceof BodyTooLarge || (error as { cause?: unknown }).cause instanceof BodyTooLarge) throw new ApiError('payload_too_large')
      const failure = classifyFailure(error, controller.signal.aborted)
      log.warn('proxy_failed', { prefix: prefix.name, method: request.method, failure: failure.class, ...describeError(error) })
      noteOn(request, { upstream_failure: failure.class })
      if (prefix.admin) await auditWrite(prefix, request, upstreamPath(joined.url, base), null, failure.class)
      throw new ApiError(failure.code)
    }
    let upstream: Answer
    // A small answer of known length is read whole before anything is sent: no stream to pump, its
    // end is known, and an upstream that cuts it short gets our 502 instead of a truncated 200.
    let whole: Uint8Array<ArrayBuffer> | null = null
    const body = NO_BODY_METHODS.has(request.method) || !request.body ? undefined : limitedBody(request.body, PROXY_BODY_LIMIT)
    try {
      // The timeout covers the upstream's answer (status and headers, and a small body); a long download may take longer.
      if (ownClient && joined.url.protocol === 'http:') {
        // Redirects go back to the client and bytes go on as they came: this client does neither.
        const answer = await pool.request(joined.url, { method: request.method, headers, body, bodyLength: declaredLength, signal: controller.signal })
        upstream = { ...answer, length: answer.body === null ? 0 : answer.body.length }
      } else {
        // fetch would offer gzip, br and zstd on the client's behalf; a client that offered none gets none.
        if (!headers.has('accept-encoding')) headers.set('accept-encoding', 'identity')
        const init: RequestInit & { decompress: boolean; duplex: 'half' } = {
          method: request.method,
          headers,
          body,
          // Redirects go back to the client; bytes go on as they came, with their own Content-Encoding.
          redirect: 'manual',
          decompress: false,
          signal: controller.signal,
          duplex: 'half',
        }
        upstream = answerOfFetch(await services.fetch(joined.url, init))
      }
      if (request.method !== 'HEAD' && upstream.body !== null && upstream.length !== null && upstream.length <= WHOLE_BODY_BYTES) {
        whole = upstream.body instanceof ReadableStream ? await new Response(upstream.body).bytes() : await upstream.body.bytes()
      }
    } catch (error) {
      return await failed(error)
    } finally {
      clearTimeout(timer)
    }

    if (prefix.admin && request.method === 'DELETE' && upstream.status >= 200 && upstream.status < 300) {
      const deleted = joined.url.pathname.slice(base.pathname.replace(/\/+$/, '').length).match(IDENTITY_PATH)
      if (deleted && (prefix.name === 'idp-admin' || prefix.name === 'iam-idp-admin')) {
        // Erasing an identity ends its dashboard sessions now, not at the next presence check.
        // The upstream's answer stands even when this cannot be recorded; the erasure check still catches it.
        await services.endSessionsOf(decodeURIComponent(deleted[1]!)).catch((error: unknown) => log.error('end_sessions_failed', describeError(error)))
      }
    }

    if (prefix.admin) await auditWrite(prefix, request, upstreamPath(joined.url, base), upstream.status, upstream.status < 400 ? 'ok' : 'upstream_refused')

    const responseHeaders = relayedResponseHeaders(upstream.headers, (location) => rewriteLocation(location, base, prefix))
    const id = requestIdOf(request)
    if (id !== undefined) responseHeaders.set('x-request-id', id)
    markPassthrough(request)
    const init = { status: upstream.status, statusText: upstream.statusText, headers: responseHeaders }
    if (whole !== null) {
      noteOn(request, { body: 'complete', body_bytes: whole.byteLength })
      return new Response(whole, init)
    }
    const bodyless = request.method === 'HEAD' || upstream.status === 204 || upstream.status === 304 || upstream.body === null
    if (bodyless) {
      await upstream.body?.cancel()
      return new Response(null, init)
    }
    if (upstream.body instanceof ReadableStream) {
      const { stream, ended } = watchedBody(upstream.body)
      noteOn(request, { completion: ended })
      return new Response(stream, init)
    }
    noteOn(request, { completion: upstream.body!.ended })
    return new Response(upstream.body!.stream(), init)
  }

  /** A write through an admin prefix, in the audit trail: who, which method and path (ids, never query values or bodies), how it ended. */
  async function auditWrite(prefix: ProxyPrefix, request: Request, path: string, status: number | null, outcome: string): Promise<void> {
    if (NO_BODY_METHODS.has(request.method)) return
    try {
      await services.audit.record('proxy_write', attachedSession(request)?.sub ?? null, path, { prefix: prefix.name, method: request.method, status, outcome })
    } catch (error) {
      // The upstream has already acted: its answer still goes back; the missing event is logged loudly.
      log.error('audit_write_failed', { action: 'proxy_write', prefix: prefix.name, ...describeError(error) })
    }
  }
}

/** The path under the upstream's base, without the query. */
function upstreamPath(url: URL, base: URL): string {
  return url.pathname.slice(base.pathname.replace(/\/+$/, '').length) || '/'
}

/** Our own JSON body parsing must leave proxied bodies untouched: they are streamed through. */
export function isProxiedPath(request: Request): boolean {
  return proxyPrefixOf(pathnameOf(request)) !== null
}
