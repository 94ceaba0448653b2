// The public GET routes a balancer or the UI asks thousands of times a second (/api/health,
// /api/auth/session), answered without Elysia's lifecycle around them: the same gate, the same
// handler and the same answer, minus Elysia's context, its awaits and its router.
// Every other request, and these paths with another method or a trailing slash, go to Elysia.

import { classifyPath, requirementOf } from './access.ts'
import type { Gate } from './gate.ts'
import { answerPlainValue } from './plain-answer.ts'
import { pathnameOf } from './request-context.ts'

/** A route's own work: a plain JSON value or a Response, or a promise of one. */
export type DirectHandler = (request: Request) => unknown

/** Turns what a handler threw into the envelope (the app's Elysia error hook). */
type ErrorAnswer = (context: { code: unknown; error: unknown; request: Request }) => Response

type GateHeaders = Record<string, string | number>

/**
 * Answers the listed paths for GET, or returns undefined for Elysia to answer. Only public paths
 * may be listed: the route-level session assertion (session-assertion.ts) runs in Elysia alone.
 */
export function createDirectLane(options: { gate: Gate; onError: ErrorAnswer; routes: Record<string, DirectHandler> }) {
  const { gate, onError } = options
  const routes = new Map<string, DirectHandler>()
  for (const [path, handler] of Object.entries(options.routes)) {
    if (requirementOf(classifyPath(path)) !== 'none') throw new Error(`${path} is not public: it cannot be answered without Elysia`)
    routes.set(path, handler)
  }
  return (request: Request): Response | Promise<Response> | undefined => {
    if (request.method !== 'GET') return undefined
    const handler = routes.get(pathnameOf(request))
    if (handler === undefined) return undefined
    const set = { headers: {} as GateHeaders, status: 200 }
    const fail = (error: unknown) => withGateHeaders(onError({ code: codeOf(error), error, request }), set.headers)
    const respond = (): Response | Promise<Response> => {
      const value = handler(request)
      return value instanceof Promise ? value.then((settled) => answer(settled, set)).catch(fail) : answer(value, set)
    }
    try {
      // On a public path the gate decides at once: it refuses a bad Host or lets the request through.
      const refused = gate({ request, set })
      if (refused instanceof Promise) return refused.then((early) => (early ? withGateHeaders(early, set.headers) : respond())).catch(fail)
      return refused ? withGateHeaders(refused, set.headers) : respond()
    } catch (error) {
      return fail(error)
    }
  }
}

/** What Elysia makes of a handler's value with the gate's headers in `set` (its mapResponse). */
function answer(value: unknown, set: { headers: GateHeaders; status: number }): Response {
  if (value instanceof Response) return withGateHeaders(value, set.headers)
  const plain = answerPlainValue({ response: value, set })
  if (plain === undefined) throw new Error('a direct route answered with something other than a Response or a plain JSON value')
  return plain
}

/** The gate's headers on an answer that does not set them itself, as Elysia merges `set.headers`. */
function withGateHeaders(response: Response, headers: GateHeaders): Response {
  for (const name in headers) if (!response.headers.has(name)) response.headers.set(name, String(headers[name]))
  return response
}

/** The code Elysia gives a thrown error before its error hooks see it. */
function codeOf(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code ?? 'UNKNOWN'
}
