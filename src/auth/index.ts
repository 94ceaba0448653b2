// GET /api/auth/login, GET /api/auth/callback, GET /api/auth/session, POST /api/auth/logout.
// These sit under the public /api/auth/**; each one does its own session work.

import { Elysia } from 'elysia'
import { timingSafeEqual } from 'node:crypto'
import * as oauth from 'oauth4webapi'
import type { Services } from '../services.ts'
import { afterCheck, type SessionCheck } from '../session/verifier.ts'
import { missingLoginVariables } from '../config.ts'
import { ApiError, errorResponse } from '../http/errors.ts'
import { noteOn } from '../http/request-notes.ts'
import { requestIdOf } from '../http/request-context.ts'
import { prepared } from '../http/plain-answer.ts'
import type { DirectHandler } from '../http/direct.ts'
import { CROSS_SITE_REFUSAL, isCrossSiteWrite } from '../http/gate.ts'
import { describeError } from '../log.ts'
import { isInactive, roleOf, storeFailureSays } from '../identities/store.ts'
import {
  FLOW_BINDING_COOKIE,
  FLOW_COOKIE_SECONDS,
  flowBindingAttributes,
  flowCookieAttributes,
  newSessionId,
  readCookieValues,
  serializeCookie,
  secureCookies,
  sessionClearHeaders,
  sessionCookieValues,
  sessionLifetime,
  sessionSetCookies,
  signSessionCookie,
  STATE_COOKIE,
  verifySessionCookie,
  VERIFIER_COOKIE,
  type Role,
  type SessionPayload,
} from '../session/cookie.ts'
import { LoginClient, type ProviderFailure } from './oauth.ts'
import { errorCodeFor, type UpstreamFailure } from '../upstream/client.ts'
import { DEFAULT_RETURN_TO, RETURN_TO_COOKIE, safeReturnTo } from './return-to.ts'
import { failurePage, wantsPage } from './failure-page.ts'
import { oncePerWindow } from '../throttle.ts'

const LOGIN_PATH = '/api/auth/login'

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

function redirect(location: string, cookies: string[]): Response {
  const headers = new Headers({ location })
  for (const cookie of cookies) headers.append('set-cookie', cookie)
  return new Response(null, { status: 302, headers })
}

/** One classification for every login step: the provider said no → 401; else the upstream client's code. */
function providerError(failure: ProviderFailure): ApiError {
  return new ApiError(failure === 'rejected' ? 'login_failed' : errorCodeFor(failure))
}

/** GET /api/auth/session: who is signed in, from the session cookie (a public path: the check is this route's own). */
export function sessionRoute(services: Pick<Services, 'config' | 'verifier'>): DirectHandler {
  const { config, verifier } = services
  const secure = secureCookies(config)
  // A verified session is one object for as long as its cookie is in the verifier's cache: its
  // answer is made (and serialized) once, and goes when the session object does.
  const answers = new WeakMap<SessionPayload, object>()
  const answerFor = (session: SessionPayload) => {
    let answer = answers.get(session)
    if (answer === undefined) {
      answer = prepared({ user: { identityId: session.sub, email: session.email, role: session.role } })
      answers.set(session, answer)
    }
    return answer
  }
  const answer = (request: Request, check: SessionCheck) => {
    if (!check.ok) {
      return errorResponse(check.code, { headers: check.clearCookie ? sessionClearHeaders(secure) : {} })
    }
    // A public route, so the gate attached no session: the log line learns who asked from here.
    noteOn(request, { subject: check.session.sub })
    return answerFor(check.session)
  }
  return (request) => afterCheck(verifier.check(request.headers.get('cookie')), (check) => answer(request, check))
}

/** The callback's parameters that may appear once only. */
const REPEATABLE_NOT = ['code', 'state', 'iss']

/** How often one person's sign-in refused for one reason is put in the audit trail, at most. */
export const REFUSAL_RECORDED_EVERY_MS = 10 * 60_000

/** `session` answers GET /api/auth/session here too (HEAD, the trailing slash, the OpenAPI document); the direct lane answers GET first (app.ts). */
export function authRoutes(
  services: Pick<Services, 'config' | 'clock' | 'log' | 'audit' | 'verifier' | 'revocations' | 'fetch' | 'loginStore'>,
  session: DirectHandler,
) {
  const { config, clock, log, audit, verifier, revocations } = services
  const secure = secureCookies(config)
  const nowSeconds = () => Math.floor(clock.now() / 1000)
  const loginClient =
    missingLoginVariables(config).length === 0 ? new LoginClient({ config, fetch: services.fetch, log, now: () => clock.now() }) : null
  const flowCookie = (name: string, value: string) =>
    serializeCookie(name, value, flowCookieAttributes(secure), value === '' ? 0 : FLOW_COOKIE_SECONDS)
  const flowBinding = (value: string) => serializeCookie(FLOW_BINDING_COOKIE, value, flowBindingAttributes(), value === '' ? 0 : FLOW_COOKIE_SECONDS)
  const clearFlowCookies = [flowCookie(STATE_COOKIE, ''), flowCookie(VERIFIER_COOKIE, ''), flowCookie(RETURN_TO_COOKIE, ''), ...(secure ? [flowBinding('')] : [])]

  /**
   * The flow this browser began: its state and verifier. Where cookies are Secure, from the one
   * cookie no other host can set (FLOW_BINDING_COOKIE), the spec's `oauth_state` holding the same
   * state among its values; elsewhere (development) from the spec's two, each present once. Null
   * when there is no such flow, or more than one could be meant.
   */
  const flowOf = (cookieHeader: string | null): { state: string; verifier: string } | null => {
    const states = readCookieValues(cookieHeader, STATE_COOKIE)
    if (!secure) {
      const verifiers = readCookieValues(cookieHeader, VERIFIER_COOKIE)
      return states.length === 1 && verifiers.length === 1 && states[0] && verifiers[0] ? { state: states[0], verifier: verifiers[0] } : null
    }
    const bound = readCookieValues(cookieHeader, FLOW_BINDING_COOKIE)
    if (bound.length !== 1) return null
    const [state = '', verifier = '', ...rest] = bound[0]!.split('.')
    if (state === '' || verifier === '' || rest.length > 0 || !states.some((value) => sameText(value, state))) return null
    return { state, verifier }
  }

  const requireLoginClient = (): LoginClient => {
    if (!loginClient) throw new ApiError('not_configured', { message: 'Sign-in is not configured on this service.' })
    return loginClient
  }

  /** Whether a refusal (its reason and subject) goes in the audit trail now. */
  const recordRefusal = oncePerWindow(REFUSAL_RECORDED_EVERY_MS, () => clock.now())
  /**
   * Someone the provider signed in, refused here: in the audit trail (an operator wants to see who
   * tried), then the 403. The refusal stands when the event cannot be written. The same person
   * refused for the same reason is recorded once per REFUSAL_RECORDED_EVERY_MS on this replica:
   * anyone the provider knows (a customer, when admins share Kratos with them) can sign in here as
   * often as they like, and each time would otherwise add a row to the trail.
   */
  const refused = async (subject: string, reason: 'unknown_identity' | 'no_role' | 'inactive', requestId: string | undefined): Promise<ApiError> => {
    // In the log each time, with why (the failure page says it to the person; the audit event may be skipped below).
    log.info('login_refused', { request_id: requestId, reason })
    if (recordRefusal(`${reason}\u0000${subject}`)) {
      await audit.recordOrLog(log, { action: 'login', actor: subject, target: null, detail: { outcome: 'refused', reason }, requestId })
    }
    return reason === 'inactive' ? deactivated() : reason === 'unknown_identity' ? unknownAccount() : noRole()
  }

  /** The callback after its state check: the code exchange, the role, the session cookie. A failure is thrown. */
  const finishLogin = async (request: Request, client: LoginClient, url: URL, expectedState: string, codeVerifier: string, returnToCookie: string | undefined): Promise<Response> => {
    const outcome = await client.exchange(url.searchParams, expectedState, codeVerifier)
    if (!outcome.ok) throw providerError(outcome.failure)

    if (!services.loginStore) throw new ApiError('upstream_not_configured')
    // Taken before the read: a change made to the identity meanwhile (a deactivation) is asked about again at its next request.
    const readMark = verifier.confirmationMark()
    const found = await services.loginStore.getIdentity(outcome.subject)
    if (!found.ok) {
      // The identity store refusing or garbling its answer is its fault (502), not the browser's:
      // said as what happened there (its key refused, not reached), and logged with this request.
      if (found.failure !== 'not_found') {
        const prefix = services.loginStore.prefix
        const keyRefused = found.failure === 'rejected' && (found.status === 401 || found.status === 403)
        // How to mend it goes to the log only: whoever signed in at the provider (a customer, where
        // the provider is shared) is told what happened, not how this service is run.
        const remedy = keyRefused ? `store this service's key for it: admin-dashboard settings set proxy.${prefix}.api_key --encrypted (the key on standard input)` : undefined
        log.warn('login_store_failed', { request_id: requestIdOf(request), upstream: prefix, failure: found.failure, status: found.status, remedy })
        throw loginStoreFailure(found.failure, keyRefused)
      }
      throw await refused(outcome.subject, 'unknown_identity', requestIdOf(request))
    }
    // A provider that signs in an account Kratos has deactivated (one not backed by Kratos's own
    // login) does not bring it back: the lock-out holds here too.
    if (isInactive(found.identity)) throw await refused(outcome.subject, 'inactive', requestIdOf(request))
    const traits = (found.identity.traits ?? {}) as Record<string, unknown>
    // Read as the session check reads it at each presence lookup (a session whose identity has another role ends).
    const role = roleOf(found.identity)
    if (role !== 'admin' && role !== 'viewer') throw await refused(outcome.subject, 'no_role', requestIdOf(request))
    const email = typeof traits.email === 'string' ? traits.email : (outcome.email ?? '')

    // Always a fresh session id: a login never keeps anything the browser brought.
    const iatMs = Math.floor(clock.now())
    const iat = Math.floor(iatMs / 1000)
    const lifetime = sessionLifetime(outcome.expiresIn)
    const session = { v: 1 as const, sid: newSessionId(), sub: outcome.subject, email, role: role as Role, iat, iatMs, exp: iat + lifetime }
    verifier.confirmIdentity(outcome.subject, readMark, role)
    await audit.record({ action: 'login', actor: outcome.subject, target: null, detail: { role }, requestId: requestIdOf(request) })
    return redirect(landingPath(returnToCookie), [...clearFlowCookies, ...sessionSetCookies(secure, signSessionCookie(config.sessionSigningKey, session), lifetime)])
  }

  return new Elysia({ name: 'auth' })
    .get('/api/auth/login', async ({ request }) => {
      const query = new URL(request.url, 'http://localhost').searchParams
      // Where to land afterwards travels beside the state, never inside it; a refused one is dropped.
      const returnTo = safeReturnTo(query.get('return_to'))
      try {
        const client = requireLoginClient()
        const state = oauth.generateRandomState()
        const verifierValue = oauth.generateRandomCodeVerifier()
        // After an account was refused, the way back lets the person name another one.
        const location = await client.authorizationUrl(state, verifierValue, query.get('prompt') === 'login')
        const cookies = [flowCookie(STATE_COOKIE, state), flowCookie(VERIFIER_COOKIE, verifierValue)]
        cookies.push(flowCookie(RETURN_TO_COOKIE, returnTo ? encodeURIComponent(returnTo) : ''))
        if (secure) cookies.push(flowBinding(`${state}.${verifierValue}`))
        return redirect(location.href, cookies)
      } catch (error) {
        if (!(error instanceof ApiError) || !wantsPage(request)) throw error
        return failurePage({ code: error.code, heading: 'Sign-in unavailable', message: error.publicMessage, hint: error.hint, signIn: signInAgain(returnTo), again: 'Try again' })
      }
    })

    .get('/api/auth/callback', async ({ request }) => {
      const client = requireLoginClient()
      const url = new URL(request.url)
      const cookieHeader = request.headers.get('cookie')
      const flow = flowOf(cookieHeader)
      const [returnToCookie] = readCookieValues(cookieHeader, RETURN_TO_COOKIE)
      const state = url.searchParams.get('state')
      // The state check comes first: without it nothing else is looked at, and nothing is sent.
      if (flow === null || state === null || !sameText(flow.state, state)) return redirect(LOGIN_PATH, clearFlowCookies)
      const { state: expectedState, verifier: codeVerifier } = flow
      const fail = (error: ApiError) => {
        // The request's log line names the failure, as an error answered by the error handler's does.
        noteOn(request, { error: error.code })
        const headers = clearFlowCookies.map((c) => ['set-cookie', c] as [string, string])
        if (!wantsPage(request)) return errorResponse(error.code, { message: error.publicMessage, hint: error.hint, headers })
        // An account refused here (no role, unknown) would only be refused again: the provider is
        // asked to let the person sign in as someone else.
        const signIn = signInAgain(landingPath(returnToCookie), error.code === 'forbidden')
        return failurePage({ code: error.code, heading: 'Sign-in failed', message: error.publicMessage, hint: error.hint, signIn, again: 'Sign in again', headers })
      }
      // A parameter given twice is the request's fault (which one would be meant?), not the provider's.
      const repeated = REPEATABLE_NOT.some((name) => url.searchParams.getAll(name).length > 1)
      if (repeated || url.searchParams.has('error') || !url.searchParams.get('code') || !codeVerifier) return fail(new ApiError('login_failed'))
      // The flow cookies are cleared whatever the outcome, a failure of our own (the database
      // down when the login is recorded) included.
      try {
        return await finishLogin(request, client, url, expectedState, codeVerifier, returnToCookie)
      } catch (error) {
        if (error instanceof ApiError) return fail(error)
        log.error('unhandled_error', { request_id: requestIdOf(request), path: '/api/auth/callback', ...describeError(error) })
        return fail(new ApiError('internal_error'))
      }
    })

    .get('/api/auth/session', ({ request }) => session(request))

    .post('/api/auth/logout', async ({ request }) => {
      // A public path, so the gate's cross-site rule did not run: a page of another origin on the
      // same site (which the browser sends the Strict cookie from) must not end the session either.
      if (isCrossSiteWrite(request, config.baseUrl?.origin ?? null)) throw new ApiError('forbidden', CROSS_SITE_REFUSAL)
      const values = new Set(sessionCookieValues(request.headers.get('cookie'), secure))
      const ended = new Set<string>()
      for (const value of values) {
        const result = verifySessionCookie(config.sessionSigningKey, value, nowSeconds())
        if (!result.ok) continue
        // A session ended before (a copy of an old cookie, sent again and again) is not ended again:
        // the trail would gain a logout in its person's name at every try.
        if (ended.has(result.session.sid) || revocations.revocationOf(result.session) === 'revoked') continue
        ended.add(result.session.sid)
        // Kept until the cookie could no longer verify anyway, so a replayed copy stays dead.
        // The revocation and its audit event are one transaction: when it cannot be committed
        // (database unavailable) neither is done, the answer is 503 and the cookie stays, so it can
        // be tried again; a 204 means both.
        await revocations.revokeSession(result.session.sid, result.session.exp, audit.entry({ action: 'logout', actor: result.session.sub, target: null, requestId: requestIdOf(request) }))
      }
      return new Response(null, { status: 204, headers: sessionClearHeaders(secure) })
    })
}

function deactivated(): ApiError {
  return new ApiError('forbidden', {
    message: 'This account is deactivated.',
    hint: 'Ask an administrator to activate it again.',
  })
}

/** The login identity store failed the sign-in's lookup: in its own words (storeFailureSays); a key it refused, said so. */
function loginStoreFailure(failure: UpstreamFailure, keyRefused: boolean): ApiError {
  const code = errorCodeFor(failure === 'rejected' ? 'invalid_response' : failure)
  if (!keyRefused) return new ApiError(code, { message: storeFailureSays(failure) })
  return new ApiError(code, {
    message: "The identity store refused this service's access, so the sign-in cannot be checked.",
    hint: "An administrator finds what to do in the service's log (login_store_failed).",
  })
}

/**
 * The provider signed in a subject the identity store has no identity for: most often the
 * provider's subject is not the identity's ID (a login app that names accounts its own way), which
 * "no role" would send the operator looking for in the wrong place.
 */
function unknownAccount(): ApiError {
  return new ApiError('forbidden', {
    message: 'This account is not an identity in the identity store.',
    hint: 'Ask an administrator: the sign-in provider must name the account by its identity ID.',
  })
}

function noRole(): ApiError {
  return new ApiError('forbidden', {
    message: 'This account has no role in the admin dashboard.',
    hint: 'Ask an administrator to give your account a role.',
  })
}

/** The sign-in again, to the same place (the dashboard's own front page needs no return_to); `askAgain`: as someone else. */
function signInAgain(returnTo: string | null, askAgain = false): string {
  const query = new URLSearchParams()
  if (returnTo !== null && returnTo !== DEFAULT_RETURN_TO) query.set('return_to', returnTo)
  if (askAgain) query.set('prompt', 'login')
  const search = query.toString()
  return search === '' ? LOGIN_PATH : `${LOGIN_PATH}?${search}`
}

/** The callback's destination: the remembered deep link, checked again, else the dashboard. */
function landingPath(cookieValue: string | undefined): string {
  if (!cookieValue) return DEFAULT_RETURN_TO
  let decoded: string
  try {
    decoded = decodeURIComponent(cookieValue)
  } catch {
    return DEFAULT_RETURN_TO
  }
  return safeReturnTo(decoded) ?? DEFAULT_RETURN_TO
}
