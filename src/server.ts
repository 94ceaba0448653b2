// Serving: Bun.serve around the Elysia app, one log line per request, graceful stop.

import type { Server } from 'bun'
import type { App } from './app.ts'
import type { Logger } from './log.ts'
import { errorResponse } from './http/errors.ts'
import { SECURITY_HEADERS } from './http/gate.ts'
import { pathnameOf } from './http/request-context.ts'
import { describeError } from './log.ts'

/** Streams through the proxy may be large; our own JSON bodies have their own, smaller limit. */
export const MAX_REQUEST_BODY_BYTES = 64 * 1024 * 1024
const DRAIN_TIMEOUT_MS = 10_000

export interface RunningServer {
  server: Server<undefined>
  url: URL
  /** Stops accepting, waits for in-flight requests (bounded), then closes everything. */
  stop(): Promise<void>
}

export interface ServeOptions {
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
      try {
        response = await handle(request)
      } catch (error) {
        log.error('unhandled_error', { path: pathnameOf(request), ...describeError(error) })
        response = lastResort()
      }
      options.observe?.(request, response)
      log.info('request', {
        method: request.method,
        path: pathnameOf(request),
        status: response.status,
        duration_ms: Math.round((performance.now() - started) * 100) / 100,
      })
      return response
    },
    error(error) {
      log.error('server_error', describeError(error))
      return lastResort()
    },
  })
  return {
    server,
    url: new URL(`http://${server.hostname?.includes(':') ? `[${server.hostname}]` : server.hostname}:${server.port}`),
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
