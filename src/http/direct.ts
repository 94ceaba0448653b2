// The requests asked most often, answered without Elysia's lifecycle around them: the public GET
// routes a balancer or the UI asks thousands of times a second (/api/health, /api/auth/session)
// and every request under a proxy prefix. The same gate, the same route rule, the same handler and
// the same answer, minus Elysia's context, its awaits and its router.
// Every other request, and the listed paths with another method or a trailing slash, go to Elysia.

import { classifyPath, requirementOf } from './access.ts'
import { SECURITY_HEADERS, type GateCheck } from './gate.ts'
import { gateJson, isPlainValue } from './plain-answer.ts'
import { assignRequestId, pathnameOf, requestIdOf } from './request-context.ts'
import { proxyPrefixOf, type ProxyPrefix } from '../proxy/upstreams.ts'

/** A route's own work: a plain JSON value or a Response, or a promise of one. */
export type DirectHandler = (request: Request) => unknown

/** Turns what a handler threw into the envelope (the app's Elysia error hook). */
type ErrorAnswer = (context: { code: unknown; error: unknown; request: Request }) => Response

/** The route rule checked after routing (session-assertion.ts), given the pattern the request was routed to. */
type RouteRule = (context: { request: Request; route: string }) => void

interface ProxyLane {
  /** The proxy's own answer to a request under `prefix` (src/proxy/index.ts); it carries the gate's headers itself. */
  forward(prefix: ProxyPrefix, request: Request): Promise<Response>
  /** The route rule Elysia runs before the proxy's handler. */
  routeRule: RouteRule
}

/**
 * Answers the listed paths for GET, and with `proxy` every request under a proxy prefix, or returns
 * undefined for Elysia to answer. Only public paths may be listed: the listed routes have no route
 * rule to run. The proxy's routes have one (the admin prefixes), and the lane runs it.
 */
export function createDirectLane(options: { gate: GateCheck; onError: ErrorAnswer; routes: Record<string, DirectHandler>; proxy?: ProxyLane }) {
  const { gate, onError, proxy } = options
  const routes = new Map<string, DirectHandler>()
  for (const [path, handler] of Object.entries(options.routes)) {
    if (requirementOf(classifyPath(path)) !== 'none') throw new Error(`${path} is not public: it cannot be answered without Elysia`)
    routes.set(path, handler)
  }

  /** What the gate or a handler threw, answered as Elysia answers it, with the gate's headers. */
  const failure = (request: Request, error: unknown) => withGateHeaders(onError({ code: codeOf(error), error, request }), request)
  const settled = (request: Request, answer: Response | Promise<Response>) => (answer instanceof Promise ? answer.catch((error) => failure(request, error)) : answer)

  /**
   * The gate, then `respond(request, what)`. The steps are functions made once, not per request:
   * `what` is the route's handler or the proxy prefix. The gate's headers are not gathered in a
   * header set first, as Elysia's hook does: an answer made here carries them (gateJson, the
   * proxy), and any other answer is given them on its way out (withGateHeaders).
   */
  const gated = <T>(request: Request, respond: (request: Request, what: T) => Response | Promise<Response>, what: T): Response | Promise<Response> => {
    assignRequestId(request)
    try {
      // A public path is decided at once (a bad Host refused, or let through); a session may take a promise.
      const refused = gate(request)
      if (refused === undefined) return settled(request, respond(request, what))
      if (refused instanceof Promise) {
        return refused
          .then((early) => (early ? withGateHeaders(early, request) : settled(request, respond(request, what))))
          .catch((error) => failure(request, error))
      }
      return withGateHeaders(refused, request)
    } catch (error) {
      return failure(request, error)
    }
  }
  const forwarded =
    proxy &&
    ((request: Request, prefix: ProxyPrefix) => {
      proxy.routeRule({ request, route: prefix.route })
      // The relayed answer already carries the gate's headers (the proxy puts them there).
      return proxy.forward(prefix, request)
    })
  const handled = (request: Request, handler: DirectHandler) => {
    const value = handler(request)
    return value instanceof Promise ? value.then((settledValue) => answer(settledValue, request)) : answer(value, request)
  }

  return (request: Request): Response | Promise<Response> | undefined => {
    const path = pathnameOf(request)
    if (forwarded !== undefined) {
      // Elysia routes `<prefix>/*` for every method: the same literal test (proxyPrefixOf) decides here.
      const prefix = proxyPrefixOf(path)
      if (prefix !== null) return gated(request, forwarded, prefix)
    }
    if (request.method !== 'GET') return undefined
    const handler = routes.get(path)
    if (handler === undefined) return undefined
    return gated(request, handled, handler)
  }
}

/** What Elysia makes of a handler's value with the gate's headers (its mapResponse, answerPlainValue). */
function answer(value: unknown, request: Request): Response {
  if (value instanceof Response) return withGateHeaders(value, request)
  if (!isPlainValue(value)) throw new Error('a direct route answered with something other than a Response or a plain JSON value')
  return gateJson(value, requestIdOf(request)!)
}

/** The gate's headers on an answer that does not set them itself, as Elysia merges `set.headers`. */
function withGateHeaders(response: Response, request: Request): Response {
  const headers = response.headers
  for (const name in SECURITY_HEADERS) if (!headers.has(name)) headers.set(name, SECURITY_HEADERS[name]!)
  if (!headers.has('x-request-id')) headers.set('x-request-id', requestIdOf(request)!)
  return response
}

/** The code Elysia gives a thrown error before its error hooks see it. */
function codeOf(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code ?? 'UNKNOWN'
}
