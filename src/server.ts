// Serving: Bun.serve around the Elysia app, one log line per request, graceful stop.

import type { Server } from 'bun'
import type { Logger } from './log.ts'
import { DEFAULT_PROXY_TIMEOUT_MS } from './config.ts'
import { errorCodeOf, errorResponse } from './http/errors.ts'
import { SECURITY_HEADERS } from './http/gate.ts'
import { assignRequestId, attachedSession, ensuredRequestId, pathnameOf, requestIdOf } from './http/request-context.ts'
import { notesOf } from './http/request-notes.ts'
import { describeError, type BodyEnd, type RequestLine } from './log.ts'

/**
 * Bun's own ceiling, far above ours: the limits that answer are enforced in our code with the
 * envelope (JSON_BODY_LIMIT for our routes, PROXY_BODY_LIMIT for streams through the proxy).
 */
const MAX_REQUEST_BODY_BYTES = 1024 * 1024 * 1024
const DRAIN_TIMEOUT_MS = 10_000
/** After the cut, how long the bodies it cancelled may take to report how far they got. */
const CUT_SETTLE_MS = 100

export interface RunningServer {
  server: Server<undefined>
  url: URL
  /** Stops accepting, waits for in-flight requests (bounded), then closes everything. */
  stop(): Promise<void>
}

interface ServeOptions {
  /** The app's answer to a request (createApp's `handle`). */
  handle: (request: Request) => Response | Promise<Response>
  hostname: string
  port: number
  log: Logger
  /** Sees every response before it is sent; the test suite checks error bodies here. */
  observe?: (request: Request, response: Response) => void
  /** How long `stop()` waits for in-flight requests before it cuts them; DRAIN_TIMEOUT_MS unless a test shortens it. */
  drainTimeoutMs?: number
  /** How long a request may wait for an upstream (PROXY_TIMEOUT_MS): the connection is kept that long and more (`idleSecondsFor`). */
  upstreamTimeoutMs?: number
}

/** The longest idle timeout Bun.serve takes, in seconds. */
export const MOST_IDLE_SECONDS = 255

/**
 * How long a connection may stay idle before Bun closes it (10 s unless told). A request waiting for
 * an upstream is idle to Bun: its connection must outlast the wait, with room for the answer, or a
 * slow upstream's answer (or our 504) goes to a connection already closed.
 */
export function idleSecondsFor(upstreamTimeoutMs: number): number {
  return Math.min(MOST_IDLE_SECONDS, Math.ceil(upstreamTimeoutMs / 1000) + 5)
}

/** A request whose log line is not written yet. */
interface InFlight {
  request: Request
  started: number
  /** Set once the handler has answered and the body is still streaming: the line, waiting for the body's end. */
  answered: { line: RequestLine; completion: Promise<BodyEnd> } | null
  /** Its index in `InFlightRequests`; -1 once its line is written. */
  slot: number
}

/**
 * The requests whose line is not written yet: an array with swap-removal, O(1) both ways. (A Set,
 * churned by every request, kept about 14 MiB more resident under load at c256.)
 */
class InFlightRequests {
  private readonly entries: InFlight[] = []

  get size(): number {
    return this.entries.length
  }

  add(entry: InFlight): void {
    entry.slot = this.entries.length
    this.entries.push(entry)
  }

  /** Whether it was still in flight (its line not yet written). */
  delete(entry: InFlight): boolean {
    const { slot } = entry
    if (slot < 0) return false
    const last = this.entries.pop()!
    if (last !== entry) {
      this.entries[slot] = last
      last.slot = slot
    }
    entry.slot = -1
    return true
  }

  /** A copy: writing a line removes its entry. */
  list(): InFlight[] {
    return [...this.entries]
  }
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
export function urlHost(hostname: string): string {
  return hostname.includes(':') && !hostname.startsWith('[') ? `[${hostname}]` : hostname
}

const milliseconds = (since: number) => Math.round((performance.now() - since) * 100) / 100

export function serve(options: ServeOptions): RunningServer {
  const { handle, log } = options
  const drainTimeoutMs = options.drainTimeoutMs ?? DRAIN_TIMEOUT_MS
  // Every request not answered at once is here until its one line is written: a request cut at
  // shutdown still gets it. (One answered at once is logged in the same turn; no shutdown comes between.)
  const inFlight = new InFlightRequests()
  /** Set when the drain gave up: bodies ended from then on were cut by the shutdown. */
  let cutting = false
  const writeLine = (entry: InFlight, line: RequestLine) => {
    if (inFlight.delete(entry)) log.request(line)
  }
  /** The line of a request the shutdown cut before its handler answered: nothing was sent (status 0). */
  const unansweredLine = (entry: InFlight): RequestLine => {
    const { request } = entry
    const notes = notesOf(request)
    return {
      request_id: ensuredRequestId(request),
      method: request.method,
      path: pathnameOf(request),
      status: 0,
      duration_ms: milliseconds(entry.started),
      subject: notes?.subject ?? attachedSession(request)?.sub,
      error: notes?.error,
      upstream_failure: notes?.upstream_failure,
      cut: 'shutdown',
    }
  }
  const track = (request: Request, started: number): InFlight => {
    const entry: InFlight = { request, started, answered: null, slot: -1 }
    inFlight.add(entry)
    return entry
  }
  /** The last-resort answer to a handler that threw, with the id its error line names. */
  const failed = (request: Request, error: unknown): Response => {
    const id = ensuredRequestId(request)
    log.error('unhandled_error', { request_id: id, path: pathnameOf(request), ...describeError(error) })
    return withRequestId(lastResort(), id)
  }
  /** The answer on its way out: its id, its one line (now, or when a streamed body has ended). */
  const settle = (request: Request, started: number, tracked: InFlight | null, answer: Response): Response => {
    let response = answer
    // The gate gave the request its id, and the answer carries it with the other headers the gate set.
    let id = requestIdOf(request)
    if (id === undefined) {
      id = assignRequestId(request)
      response = withRequestId(response, id)
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
    const completion = notes?.completion
    if (completion) {
      const entry = tracked ?? track(request, started)
      entry.answered = { line, completion }
      void completion.then((ended) =>
        writeLine(entry, { ...line, ...ended, duration_ms: milliseconds(started), cut: cutting && ended.body === 'incomplete' ? 'shutdown' : undefined }),
      )
    } else if (tracked) {
      writeLine(tracked, line)
    } else {
      log.request(line)
    }
    return response
  }
  const server = Bun.serve({
    hostname: options.hostname,
    port: options.port,
    reusePort: false,
    development: false,
    idleTimeout: idleSecondsFor(options.upstreamTimeoutMs ?? DEFAULT_PROXY_TIMEOUT_MS),
    maxRequestBodySize: MAX_REQUEST_BODY_BYTES,
    fetch(request) {
      const started = performance.now()
      let answer: Response | Promise<Response>
      try {
        answer = handle(request)
      } catch (error) {
        return settle(request, started, null, failed(request, error))
      }
      // An answer made at once is logged at once; only one still coming is tracked for the shutdown.
      if (!(answer instanceof Promise)) return settle(request, started, null, answer)
      const entry = track(request, started)
      return answer.then(
        (response) => settle(request, started, entry, response),
        (error) => settle(request, started, entry, failed(request, error)),
      )
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
      const timedOut = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), drainTimeoutMs).unref())
      if ((await Promise.race([drained.then(() => 'drained' as const), timedOut])) === 'drained') return
      log.warn('drain_timeout', { timeout_ms: drainTimeoutMs, in_flight: inFlight.size })
      cutting = true
      // Handlers that have not answered get their line now: the connection is closed without an
      // answer, and what they might still return later is sent to no one (and logged no more).
      for (const entry of inFlight.list()) if (entry.answered === null) writeLine(entry, unansweredLine(entry))
      // Closing the connections cancels the bodies still streaming; each reports how far it got.
      const streaming = inFlight.list().flatMap((entry) => (entry.answered ? [entry.answered.completion] : []))
      await server.stop(true)
      if (streaming.length > 0) {
        const settleTimeout = new Promise<void>((resolve) => setTimeout(resolve, CUT_SETTLE_MS).unref())
        await Promise.race([Promise.allSettled(streaming), settleTimeout])
      }
      for (const entry of inFlight.list()) {
        if (entry.answered) writeLine(entry, { ...entry.answered.line, body: 'incomplete', duration_ms: milliseconds(entry.started), cut: 'shutdown' })
      }
    },
  }
}
