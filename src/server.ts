// Serving: Bun.serve around the Elysia app, one log line per request, graceful stop.

import type { Server } from 'bun'
import type { App } from './app.ts'
import type { Logger } from './log.ts'
import { errorCodeOf, errorResponse } from './http/errors.ts'
import { SECURITY_HEADERS } from './http/gate.ts'
import { attachedSession, pathnameOf, requestIdOf } from './http/request-context.ts'
import { notesOf } from './http/request-notes.ts'
import { describeError, type RequestLine } from './log.ts'

/**
 * Bun's own ceiling, far above ours: the limits that answer are enforced in our code with the
 * envelope (JSON_BODY_LIMIT for our routes, PROXY_BODY_LIMIT for streams through the proxy).
 */
const MAX_REQUEST_BODY_BYTES = 1024 * 1024 * 1024
const DRAIN_TIMEOUT_MS = 10_000

export interface RunningServer {
  server: Server<undefined>
  url: URL
  /** Stops accepting, waits for in-flight requests (bounded), then closes everything. */
  stop(): Promise<void>
}

interface ServeOptions {
  app: App
  hostname: string
  port: number
  log: Logger
  /** Sees every response before it is sent; the test suite checks error bodies here. */
  observe?: (request: Request, response: Response) => void
}

function lastResort(): Response {
  const response = errorResponse('internal_error')
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.headers.set(name, value)
  return response
}

/** The response with X-Request-Id; a response whose headers cannot change (a redirect) is rebuilt around its body. */
function withRequestId(response: Response, id: string): Response {
  try {
    response.headers.set('x-request-id', id)
    return response
  } catch {
    const copy = new Response(response.body, { status: response.status, statusText: response.statusText, headers: response.headers })
    copy.headers.set('x-request-id', id)
    return copy
  }
}

/** An IPv6 address in brackets for a URL; HOST may already carry them (`[::1]`), which Bun keeps as given. */
function urlHost(hostname: string): string {
  return hostname.includes(':') && !hostname.startsWith('[') ? `[${hostname}]` : hostname
}

const milliseconds = (since: number) => Math.round((performance.now() - since) * 100) / 100

export function serve(options: ServeOptions): RunningServer {
  const { app, log } = options
  const handle = app.fetch
  const server = Bun.serve({
    hostname: options.hostname,
    port: options.port,
    reusePort: false,
    development: false,
    maxRequestBodySize: MAX_REQUEST_BODY_BYTES,
    async fetch(request) {
      const started = performance.now()
      let response: Response
      let id: string | undefined
      try {
        response = await handle(request)
        // The gate gave the request its id, and Elysia sent it with the other headers the gate set.
        id = requestIdOf(request)
        if (id === undefined) {
          id = crypto.randomUUID()
          response = withRequestId(response, id)
        }
      } catch (error) {
        id = requestIdOf(request) ?? crypto.randomUUID()
        log.error('unhandled_error', { request_id: id, path: pathnameOf(request), ...describeError(error) })
        response = withRequestId(lastResort(), id)
      }
      options.observe?.(request, response)
      // One wide line per request: who, what, how it ended; never a query value, cookie or body.
      const notes = notesOf(request)
      const line: RequestLine = {
        request_id: id,
        method: request.method,
        path: pathnameOf(request),
        status: response.status,
        duration_ms: milliseconds(started),
        subject: notes?.subject ?? attachedSession(request)?.sub,
        error: notes?.error ?? errorCodeOf(response),
        upstream_failure: notes?.upstream_failure,
        body: notes?.body,
        body_bytes: notes?.body_bytes,
      }
      // A streamed answer is logged when its body has really ended, with what happened to it.
      if (notes?.completion) void notes.completion.then((ended) => log.request({ ...line, ...ended, duration_ms: milliseconds(started) }))
      else log.request(line)
      return response
    },
    error(error) {
      log.error('server_error', describeError(error))
      return lastResort()
    },
  })
  return {
    server,
    url: new URL(`http://${urlHost(server.hostname ?? options.hostname)}:${server.port}`),
    async stop() {
      const drained = server.stop(false)
      const timedOut = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), DRAIN_TIMEOUT_MS).unref())
      if ((await Promise.race([drained.then(() => 'drained' as const), timedOut])) === 'timeout') {
        log.warn('drain_timeout', { timeout_ms: DRAIN_TIMEOUT_MS })
        await server.stop(true)
      }
    },
  }
}
