// The gate: the one place that decides who may call what (spec "Gate order", decisions §6, §11).
// It runs in onRequest, before routing, body parsing and validation, for every request.

import { classifyPath, requirementOf, type Access, type Requirement } from './access.ts'
import { errorResponse, type ErrorCode } from './errors.ts'
import { assignRequestId, attachSession, hasUsableUrl, hasValidHost, pathnameOf } from './request-context.ts'
import { noteOn } from './request-notes.ts'
import { sessionClearHeaders } from '../session/cookie.ts'
import { afterCheck, type SessionCheck, type SessionVerifier } from '../session/verifier.ts'

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

interface GateDeps {
  verifier: SessionVerifier
  /** The origin users open (BASE_URL); null when not configured. */
  baseOrigin: string | null
  secureCookies: boolean
}

interface GateContext {
  request: Request
  set: { headers: Record<string, string | number> }
}

/**
 * The gate's decision about a request that has its id: a refusal with an envelope, or undefined to
 * let it through. It answers without a promise when it has nothing to wait for (a public path, a
 * session checked a moment ago).
 */
export type GateCheck = (request: Request) => Response | undefined | Promise<Response | undefined>

/**
 * The gate as Elysia's onRequest hook: the security headers and the request's id go into the one
 * header set Elysia builds every answer from, refusals and errors included, then the check runs.
 * Elysia awaits the result either way: the handler it compiles reads `await onRequest[0](c)` for a
 * hook whose source returns a call. Were that await ever lost, a pending check would reach the
 * server as no answer at all and become a 500: closed, never open (test/session-cookie.test.ts).
 */
export type Gate = (context: GateContext) => Response | undefined | Promise<Response | undefined>

export function gateHook(check: GateCheck): Gate {
  return ({ request, set }) => {
    Object.assign(set.headers, SECURITY_HEADERS)
    set.headers['x-request-id'] = assignRequestId(request)
    return check(request)
  }
}

/** The check itself; the request must have its id (assignRequestId) before it runs. */
export function createGate(deps: GateDeps): GateCheck {
  return (request) => {
    // Nothing about Host is trusted for access; a request without a usable one is not routed at all.
    if (!hasValidHost(request) || !hasUsableUrl(request)) return refuse(request, 'bad_request', {}, { message: 'The Host header is missing or invalid.' })
    const access: Access = classifyPath(pathnameOf(request))
    const requirement = requirementOf(access)
    if (requirement === 'none') return undefined
    return checkSession(deps, request, requirement)
  }
}

function checkSession(deps: GateDeps, request: Request, requirement: Requirement): Response | undefined | Promise<Response | undefined> {
  return afterCheck(deps.verifier.check(request.headers.get('cookie')), (check) => admit(deps, request, requirement, check))
}

function admit(deps: GateDeps, request: Request, requirement: Requirement, check: SessionCheck): Response | undefined {
  if (!check.ok) {
    const headers: HeadersInit = check.clearCookie ? sessionClearHeaders(deps.secureCookies) : {}
    return refuse(request, check.code, headers)
  }
  if (requirement === 'admin' && check.session.role !== 'admin') return refuse(request, 'forbidden')
  if (isCrossSiteWrite(request, deps.baseOrigin)) {
    return refuse(request, 'forbidden', {}, CROSS_SITE_REFUSAL)
  }
  attachSession(request, check.session)
  return undefined
}

// The security headers and the id are added to this answer by Elysia (from set.headers) or by the direct lane.
function refuse(request: Request, code: ErrorCode, headers: HeadersInit = {}, text: { message?: string; hint?: string } = {}): Response {
  noteOn(request, { error: code })
  return errorResponse(code, { headers, ...text })
}

/** A cross-site write's 403: asking an administrator for access would not help, using the dashboard would. */
export const CROSS_SITE_REFUSAL = { message: 'Cross-site requests are not allowed.', hint: 'Make the change from the dashboard itself, at its own address.' }

/**
 * A state-changing request from another site, or another host of this one (decisions §11).
 * Browsers send `Origin` on every cross-origin write and `Sec-Fetch-Site` on all requests; either
 * one is enough to refuse (`same-site` is another origin too: a sibling host).
 */
export function isCrossSiteWrite(request: Request, baseOrigin: string | null): boolean {
  if (SAFE_METHODS.has(request.method)) return false
  const site = request.headers.get('sec-fetch-site')
  if (site === 'cross-site' || site === 'same-site') return true
  const origin = request.headers.get('origin')
  if (origin === null) return false
  return origin !== (baseOrigin ?? originOfRequest(request))
}

function originOfRequest(request: Request): string | null {
  const host = request.headers.get('host')
  if (!host) return null
  return `http://${host}`
}
