// The login end to end against a real OAuth 2.0 provider (oidc-provider with Hydra's paths) and
// the Kratos-like identity store.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { KratosFixture, type FixtureIdentity } from './support/kratos.ts'
import { REFUSAL_RECORDED_EVERY_MS } from '../src/auth/index.ts'
import { signIn, signInAtProvider, startOAuthProvider, type RunningProvider } from './support/oauth-provider.ts'
import { startService, TestClock, type TestService } from './support/service.ts'
import { markSecret, markSensitive } from './support/leaks.ts'
import { freePort } from './support/ports.ts'
import { rawRequest } from './support/raw-http.ts'
import { temporaryDir } from './support/temp.ts'
import { readCookieValues } from '../src/session/cookie.ts'
import { foreignCookies, relayedResponseHeaders } from '../src/proxy/headers.ts'

const BASE_URL = 'http://admin.test'
const CLIENT_ID = 'admin-dashboard'

let kratos: KratosFixture
let provider: RunningProvider
let service: TestService
const people: Record<string, FixtureIdentity> = {}

function setCookies(response: Response): Map<string, string> {
  const cookies = new Map<string, string>()
  for (const line of response.headers.getSetCookie()) cookies.set(line.slice(0, line.indexOf('=')), line)
  return cookies
}
const cookieValue = (line: string | undefined) => line?.slice(line.indexOf('=') + 1).split(';')[0] ?? ''

async function startLogin(target = service) {
  const response = await fetch(`${target.url}/api/auth/login`, { redirect: 'manual' })
  const cookies = setCookies(response)
  const state = cookieValue(cookies.get('oauth_state'))
  const verifier = cookieValue(cookies.get('oauth_verifier'))
  markSecret(state, verifier, `${state}.${verifier}`)
  return { response, cookies, location: response.headers.get('location')!, flowCookie: flowCookies(state, verifier), state, verifier }
}

/** The flow cookies a browser holds for a sign-in it began with `state` and `verifier` (cookies are Secure here: the one no other host can set too). */
function flowCookies(state: string, verifier: string): string {
  return `oauth_state=${state}; oauth_verifier=${verifier}; __Host-oauth_flow=${state}.${verifier}`
}

/** Follows the provider's redirect back into our callback, as the browser would. */
async function callback(target: TestService, redirectBack: URL, flowCookie: string, extraCookie = '') {
  markSecret(redirectBack.searchParams.get('code'))
  return fetch(`${target.url}/api/auth/callback${redirectBack.search}`, {
    headers: { cookie: [flowCookie, extraCookie].filter(Boolean).join('; ') },
    redirect: 'manual',
  })
}

function loginAs(email: string, target = service): Promise<{ response: Response; cookie: string }> {
  return signIn(target.url, email)
}

function loginEnv(extra: Record<string, string> = {}) {
  return { BASE_URL, OAUTH_ISSUER_URL: provider.url, OAUTH_CLIENT_ID: CLIENT_ID, IDP_ADMIN_URL: kratos.url, ...extra }
}

beforeAll(async () => {
  kratos = new KratosFixture().start()
  people.admin = kratos.addIdentity({ email: 'ada@example.test', role: 'admin' })
  people.viewer = kratos.addIdentity({ email: 'vic@example.test', role: 'viewer' })
  people.norole = kratos.addIdentity({ email: 'nora@example.test' })
  people.badrole = kratos.addIdentity({ email: 'root@example.test', role: 'superuser' })
  markSensitive(...Object.values(people).flatMap((p) => [p.id, p.traits.email as string]), 'ghost@example.test', kratos.url)
  provider = await startOAuthProvider({
    clientId: CLIENT_ID,
    redirectUris: [`${BASE_URL}/api/auth/callback`],
    findSubject: (login) => {
      if (login === 'ghost@example.test') return { sub: '3f9c0a5e-0000-4000-8000-00000000dead', email: login }
      const identity = [...kratos.identities.values()].find((i) => i.traits.email === login)
      return identity ? { sub: identity.id, email: login } : null
    },
  })
  markSensitive(provider.url, new URL(provider.url).port)
  service = await startService({ env: loginEnv() })
})
afterAll(async () => {
  await service.stop()
  await provider.stop()
  await kratos.stop()
})

describe('GET /api/auth/login', () => {
  test('redirects to the authorization endpoint with exactly the spec’s parameters', async () => {
    const { response, location, state, verifier } = await startLogin()
    expect(response.status).toBe(302)
    const url = new URL(location)
    expect(url.origin + url.pathname).toBe(`${provider.url}/oauth2/auth`)
    expect([...url.searchParams.keys()].sort()).toEqual(
      ['client_id', 'code_challenge', 'code_challenge_method', 'redirect_uri', 'response_type', 'scope', 'state'].sort(),
    )
    expect(url.searchParams.get('client_id')).toBe(CLIENT_ID)
    expect(url.searchParams.get('response_type')).toBe('code')
    expect(url.searchParams.get('scope')).toBe('openid profile email')
    expect(url.searchParams.get('redirect_uri')).toBe(`${BASE_URL}/api/auth/callback`)
    expect(url.searchParams.get('state')).toBe(state)
    expect(state).toMatch(/^[A-Za-z0-9_-]{43,}$/) // ≥ 32 random bytes
    expect(verifier).toMatch(/^[A-Za-z0-9._~-]{43,128}$/)
    expect(url.searchParams.get('code_challenge')).toBe(createHash('sha256').update(verifier).digest('base64url'))
    expect(url.searchParams.get('code_challenge_method')).toBe('S256')
  })

  test('prompt=login, and only that, asks the provider to ask who is signing in (the way back after a refused account)', async () => {
    const prompts: Record<string, string | null> = {}
    for (const query of ['', '?prompt=login', '?prompt=none', '?prompt=consent', '?prompt=login%20consent']) {
      const response = await fetch(`${service.url}/api/auth/login${query}`, { redirect: 'manual' })
      prompts[query] = new URL(response.headers.get('location')!).searchParams.get('prompt')
    }
    expect(prompts).toEqual({ '': null, '?prompt=login': 'login', '?prompt=none': null, '?prompt=consent': null, '?prompt=login%20consent': null })
  })

  test('the state and verifier cookies: HttpOnly, SameSite=Lax, Path=/api/auth, Max-Age=600, Secure', async () => {
    const { cookies } = await startLogin()
    for (const name of ['oauth_state', 'oauth_verifier']) {
      const line = cookies.get(name)!
      expect(line).toContain('HttpOnly')
      expect(line).toContain('SameSite=Lax')
      expect(line).toContain('Path=/api/auth')
      expect(line).toContain('Max-Age=600')
      expect(line).toContain('Secure')
    }
  })

  test('each login gets its own state and verifier', async () => {
    const a = await startLogin()
    const b = await startLogin()
    expect(a.state).not.toBe(b.state)
    expect(a.verifier).not.toBe(b.verifier)
  })
})

describe('a completed login', () => {
  test('sets admin-session and redirects to /dashboard; the session route names the user', async () => {
    const { response, cookie } = await loginAs('ada@example.test')
    expect(response.status).toBe(302)
    expect(response.headers.get('location')).toBe('/dashboard')
    const cookies = setCookies(response)
    const session = cookies.get('admin-session')!
    expect(session).toContain('HttpOnly')
    expect(session).toContain('SameSite=Strict')
    expect(session).toContain('Path=/;')
    expect(session).toContain('Secure')
    expect(session).toContain('Max-Age=3600')
    // Both flow cookies are cleared.
    expect(cookies.get('oauth_state')).toContain('Max-Age=0')
    expect(cookies.get('oauth_verifier')).toContain('Max-Age=0')

    const me = await fetch(`${service.url}/api/auth/session`, { headers: { cookie } })
    expect(me.status).toBe(200)
    expect(await me.json()).toEqual({ user: { identityId: people.admin!.id, email: 'ada@example.test', role: 'admin' } })
  })

  test('every cookie the sign-in sets is one the proxy never forwards upstream and never lets an upstream set', async () => {
    const start = await fetch(`${service.url}/api/auth/login?return_to=${encodeURIComponent('/dashboard/identities')}`, { redirect: 'manual' })
    const { response } = await loginAs('ada@example.test')
    const names = new Set([...setCookies(start).keys(), ...setCookies(response).keys()])
    expect([...names].sort()).toEqual(['__Host-admin-session', '__Host-oauth_flow', 'admin-session', 'oauth_return_to', 'oauth_state', 'oauth_verifier'])
    for (const name of names) {
      expect([name, foreignCookies(`${name}=planted`)]).toEqual([name, null])
      expect([name, foreignCookies(`theme=dark; ${name}=planted`)]).toEqual([name, 'theme=dark'])
      const relayed = relayedResponseHeaders(['set-cookie', `${name}=planted; Path=/`, 'set-cookie', 'csrf_token=kratos; Path=/'], (location) => location)
      expect([name, relayed.getSetCookie()]).toEqual([name, ['csrf_token=kratos; Path=/']])
    }
  })

  test('a viewer gets a viewer session', async () => {
    const { cookie } = await loginAs('vic@example.test')
    const me = await (await fetch(`${service.url}/api/auth/session`, { headers: { cookie } })).json()
    expect(me.user.role).toBe('viewer')
    expect((await fetch(`${service.url}/api/settings`, { headers: { cookie } })).status).toBe(403)
  })

  test('a login never keeps a session id the browser brought', async () => {
    const first = await loginAs('ada@example.test')
    const login = await startLogin()
    const back = await signInAtProvider(login.location, 'ada@example.test')
    const second = await callback(service, back, login.flowCookie, first.cookie)
    const newValue = cookieValue(setCookies(second).get('admin-session'))
    markSecret(newValue)
    const sid = (value: string) => JSON.parse(Buffer.from(value.split('.')[0]!, 'base64url').toString()).sid
    expect(sid(newValue)).not.toBe(sid(first.cookie.slice('admin-session='.length)))
  })

  test('the audit trail records the login with who, not the token', async () => {
    await loginAs('ada@example.test')
    const events = await service.services.audit.list({ limit: 10, action: 'login' })
    expect(events[0]!.actor).toBe(people.admin!.id)
  })
})

describe('the callback refuses', () => {
  test('a wrong state: redirect to login, and no token request reaches the provider', async () => {
    const login = await startLogin()
    const back = await signInAtProvider(login.location, 'ada@example.test')
    const before = provider.tokenRequests()
    const forged = new URL(back)
    forged.searchParams.set('state', 'x'.repeat(43))
    const response = await callback(service, forged, login.flowCookie)
    expect(response.status).toBe(302)
    expect(response.headers.get('location')).toBe('/api/auth/login')
    expect(setCookies(response).has('admin-session')).toBe(false)
    expect(provider.tokenRequests()).toBe(before)
  })

  for (const [label, change] of [
    ['lacks iss', (url: URL) => url.searchParams.delete('iss')],
    ['names another issuer', (url: URL) => url.searchParams.set('iss', 'https://attacker.example')],
    ['carries iss twice', (url: URL) => url.searchParams.append('iss', url.searchParams.get('iss')!)],
  ] as const) {
    test(`a callback that ${label} (the provider announces RFC 9207) → 401 login_failed, no token request`, async () => {
      const login = await startLogin()
      const back = await signInAtProvider(login.location, 'ada@example.test')
      expect(back.searchParams.get('iss')).toBe(provider.url)
      const before = provider.tokenRequests()
      change(back)
      const response = await callback(service, back, login.flowCookie)
      expect(response.status).toBe(401)
      expect((await response.json()).error).toBe('login_failed')
      expect(setCookies(response).get('admin-session')).toBeUndefined()
      expect(provider.tokenRequests()).toBe(before)
    })
  }

  test('a missing state cookie (another browser): redirect, no token request', async () => {
    const login = await startLogin()
    const back = await signInAtProvider(login.location, 'ada@example.test')
    const before = provider.tokenRequests()
    const response = await callback(service, back, `oauth_verifier=${login.verifier}`)
    expect(response.headers.get('location')).toBe('/api/auth/login')
    expect(provider.tokenRequests()).toBe(before)
  })

  test("flow cookies planted by another host of the site (Domain=the site, a longer Path, sent first) with the attacker's own sign-in: the victim's browser sent to the attacker's callback URL is not signed in as the attacker; nothing is sent to the provider", async () => {
    // The attacker begins a sign-in, signs in at the provider as themselves and stops before the callback.
    const attacker = await startLogin()
    const back = await signInAtProvider(attacker.location, 'ada@example.test')
    const before = provider.tokenRequests()
    const planted = `oauth_state=${attacker.state}; oauth_verifier=${attacker.verifier}`
    // A victim with no sign-in of their own under way, and one with their own.
    const victim = await startLogin()
    for (const cookie of [planted, `${planted}; ${victim.flowCookie}`]) {
      const response = await callback(service, back, cookie)
      expect([response.status, response.headers.get('location'), setCookies(response).has('admin-session')]).toEqual([302, '/api/auth/login', false])
    }
    expect(provider.tokenRequests()).toBe(before)
  })

  test('a planted flow cookie named __Host-oauth_flow with U+00A0 before it (a name of its own, which another host may set) finishes no sign-in', async () => {
    const attacker = await startLogin()
    const back = await signInAtProvider(attacker.location, 'ada@example.test')
    const before = provider.tokenRequests()
    const planted = `oauth_state=${attacker.state}; oauth_verifier=${attacker.verifier}; \xa0__Host-oauth_flow=${attacker.state}.${attacker.verifier}`
    const response = await rawRequest(service.url, `GET /api/auth/callback${back.search} HTTP/1.1`, { Cookie: planted }, '', 'latin1')
    expect([response.status, response.headers.location]).toEqual([302, '/api/auth/login'])
    expect(provider.tokenRequests()).toBe(before)
  })

  test('stale flow cookies planted by another host do not trap the victim in a loop: their own sign-in, begun after, completes', async () => {
    const stale = await startLogin()
    const mine = await startLogin()
    const back = await signInAtProvider(mine.location, 'ada@example.test')
    // The planted pair is sent first (a longer Path), the browser's own after it.
    const response = await callback(service, back, `oauth_state=${stale.state}; oauth_verifier=${stale.verifier}; ${mine.flowCookie}`)
    expect([response.status, response.headers.get('location'), setCookies(response).has('admin-session')]).toEqual([302, '/dashboard', true])
  })

  test('a bad state is redirected even when an error parameter is present', async () => {
    const response = await fetch(`${service.url}/api/auth/callback?error=access_denied&state=nope`, { headers: { cookie: 'oauth_state=other' }, redirect: 'manual' })
    expect(response.status).toBe(302)
    expect(response.headers.get('location')).toBe('/api/auth/login')
  })

  test('a provider error with hostile text → 401 login_failed, nothing reflected', async () => {
    const login = await startLogin()
    const hostile = encodeURIComponent('<script>alert(1)</script> ada@example.test')
    const response = await fetch(`${service.url}/api/auth/callback?error=access_denied&error_description=${hostile}&state=${login.state}`, {
      headers: { cookie: login.flowCookie },
      redirect: 'manual',
    })
    expect(response.status).toBe(401)
    const text = await response.text()
    expect(JSON.parse(text).error).toBe('login_failed')
    expect(text).not.toContain('script')
    expect(text).not.toContain('access_denied')
    expect(setCookies(response).get('oauth_state')).toContain('Max-Age=0')
  })

  test('a code or iss given twice → 401 login_failed (the request is at fault, not the provider), nothing sent to it', async () => {
    for (const extra of ['&code=another', '&iss=https%3A%2F%2Fissuer.example']) {
      const login = await startLogin()
      const back = await signInAtProvider(login.location, 'ada@example.test')
      const before = provider.tokenRequests()
      const response = await callback(service, new URL(`${back.href}${extra}`), login.flowCookie)
      expect([extra, response.status, (await response.json()).error]).toEqual([extra, 401, 'login_failed'])
      expect(provider.tokenRequests()).toBe(before)
    }
  })

  test('a replayed code → 401 login_failed', async () => {
    const login = await startLogin()
    const back = await signInAtProvider(login.location, 'ada@example.test')
    expect((await callback(service, back, login.flowCookie)).status).toBe(302)
    const replay = await callback(service, back, login.flowCookie)
    expect(replay.status).toBe(401)
    expect((await replay.json()).error).toBe('login_failed')
  })

  test('the right state with another browser’s verifier → 401 login_failed (PKCE binds the code)', async () => {
    const mine = await startLogin()
    const theirs = await startLogin()
    const back = await signInAtProvider(mine.location, 'ada@example.test')
    const response = await callback(service, back, flowCookies(mine.state, theirs.verifier))
    expect(response.status).toBe(401)
    expect((await response.json()).error).toBe('login_failed')
  })

  test('an identity without a role, or with an unknown one → 403 forbidden and no session', async () => {
    for (const email of ['nora@example.test', 'root@example.test']) {
      const { response } = await loginAs(email)
      expect(response.status).toBe(403)
      const body = await response.json()
      expect(body.error).toBe('forbidden')
      expect(body.hint).toContain('administrator')
      expect(setCookies(response).has('admin-session')).toBe(false)
    }
    // Each refusal is in the trail, by the identity the provider signed in (an operator wants to see who tried).
    const events = await service.services.audit.list({ limit: 2, action: 'login' })
    expect(events.map((e) => ({ actor: e.actor, target: e.target, detail: e.detail }))).toEqual([
      { actor: people.badrole!.id, target: null, detail: { outcome: 'refused', reason: 'no_role' } },
      { actor: people.norole!.id, target: null, detail: { outcome: 'refused', reason: 'no_role' } },
    ])
  })

  test('an identity Kratos has deactivated, signed in by a provider that does not ask Kratos → 403 forbidden, said so, no session', async () => {
    const locked = kratos.addIdentity({ email: 'locked@example.test', role: 'admin' }, { state: 'inactive' })
    markSensitive(locked.id, 'locked@example.test')
    const { response } = await loginAs('locked@example.test')
    expect(response.status).toBe(403)
    const body = await response.json()
    expect([body.error, body.message, body.hint]).toEqual(['forbidden', 'This account is deactivated.', 'Ask an administrator to activate it again.'])
    expect(setCookies(response).has('admin-session')).toBe(false)
    const [event] = await service.services.audit.list({ limit: 1, action: 'login' })
    expect({ actor: event!.actor, detail: event!.detail }).toEqual({ actor: locked.id, detail: { outcome: 'refused', reason: 'inactive' } })
  })

  test("the identity store refusing this service's API key → 502, said so (not \"cannot be reached\"), with the command that stores the key in the log only, no session", async () => {
    kratos.apiKey = 'a-key-this-service-does-not-have'
    markSecret(kratos.apiKey)
    try {
      const { response } = await loginAs('ada@example.test')
      const id = response.headers.get('x-request-id')
      const body = await response.json()
      expect([response.status, body.error, body.message, body.hint]).toEqual([
        502,
        'bad_gateway',
        "The identity store refused this service's access, so the sign-in cannot be checked.",
        "An administrator finds what to do in the service's log (login_store_failed).",
      ])
      // How to mend it is in the log, not in what the person who signed in is shown.
      expect(JSON.stringify(body)).not.toContain('settings set')
      expect(setCookies(response).has('admin-session')).toBe(false)
      const entries = service.logLines.map((line) => JSON.parse(line) as Record<string, unknown>)
      expect(entries.find((entry) => entry.event === 'login_store_failed' && entry.request_id === id)).toMatchObject({
        upstream: 'idp-admin',
        failure: 'rejected',
        status: 401,
        remedy: "store this service's key for it: admin-dashboard settings set proxy.idp-admin.api_key --encrypted (the key on standard input)",
      })
      await Bun.sleep(50)
      const line = service.logLines.map((entry) => JSON.parse(entry) as Record<string, unknown>).find((entry) => entry.event === 'request' && entry.request_id === id)
      expect(line).toMatchObject({ path: '/api/auth/callback', status: 502, error: 'bad_gateway' })
    } finally {
      kratos.apiKey = undefined
    }
  })

  test('a subject with no identity in the store → 403 forbidden, said so (not "no role"), and no session', async () => {
    const { response } = await loginAs('ghost@example.test')
    expect(response.status).toBe(403)
    const body = await response.json()
    expect([body.error, body.message, body.hint]).toEqual([
      'forbidden',
      'This account is not an identity in the identity store.',
      'Ask an administrator: the sign-in provider must name the account by its identity ID.',
    ])
    // The log says why, with the request (the audit trail may skip a repeat; the log does not).
    const id = response.headers.get('x-request-id')
    const said = service.logLines.map((line) => JSON.parse(line) as Record<string, unknown>).find((entry) => entry.event === 'login_refused' && entry.request_id === id)
    expect(said).toMatchObject({ reason: 'unknown_identity' })
    expect(setCookies(response).has('admin-session')).toBe(false)
    const [event] = await service.services.audit.list({ limit: 1, action: 'login' })
    expect({ actor: event!.actor, detail: event!.detail }).toEqual({ actor: '3f9c0a5e-0000-4000-8000-00000000dead', detail: { outcome: 'refused', reason: 'unknown_identity' } })
  })

  test('the same person refused again and again is put in the audit trail once (within ten minutes), each refusal still a 403; another person is recorded', async () => {
    const again = kratos.addIdentity({ email: 'again.and.again@example.test' })
    const other = kratos.addIdentity({ email: 'someone.else@example.test' })
    markSensitive(again.id, other.id, 'again.and.again@example.test', 'someone.else@example.test')
    const recorded = async (id: string) => (await service.services.audit.list({ limit: 200, action: 'login' })).filter((event) => event.actor === id).length
    for (let i = 0; i < 3; i++) expect((await loginAs('again.and.again@example.test')).response.status).toBe(403)
    expect(await recorded(again.id)).toBe(1)
    expect((await loginAs('someone.else@example.test')).response.status).toBe(403)
    expect(await recorded(other.id)).toBe(1)
  })

  test('the same person refused again after ten minutes is recorded again, and refused for another reason at once', async () => {
    const clock = new TestClock()
    const own = await startService({ env: loginEnv(), clock })
    try {
      const person = kratos.addIdentity({ email: 'ten.minutes@example.test' })
      markSensitive(person.id, 'ten.minutes@example.test')
      const events = async () => (await own.services.audit.list({ limit: 50, action: 'login' })).filter((event) => event.actor === person.id).map((event) => event.detail?.reason)
      expect((await loginAs('ten.minutes@example.test', own)).response.status).toBe(403)
      clock.advance(REFUSAL_RECORDED_EVERY_MS / 1000 - 1)
      expect((await loginAs('ten.minutes@example.test', own)).response.status).toBe(403)
      expect(await events()).toEqual(['no_role'])
      clock.advance(1)
      expect((await loginAs('ten.minutes@example.test', own)).response.status).toBe(403)
      expect(await events()).toEqual(['no_role', 'no_role'])
      // Deactivated meanwhile: another reason, recorded at once.
      kratos.identities.get(person.id)!.state = 'inactive'
      expect((await loginAs('ten.minutes@example.test', own)).response.status).toBe(403)
      expect(await events()).toEqual(['inactive', 'no_role', 'no_role'])
    } finally {
      await own.stop()
    }
  })

  test('a 404 page of something in front of the store (not Kratos\'s own error) → 502, not a refusal of the account: no session, nothing audited as refused', async () => {
    const before = (await service.services.audit.list({ limit: 1, action: 'login' }))[0]?.id ?? 0
    kratos.frontPages.set(`GET /admin/identities/${people.admin!.id}`, 404)
    try {
      const { response } = await loginAs('ada@example.test')
      expect(response.status).toBe(502)
      expect(((await response.json()) as { error: string }).error).toBe('bad_gateway')
      expect(setCookies(response).has('admin-session')).toBe(false)
    } finally {
      kratos.frontPages.clear()
    }
    expect((await service.services.audit.list({ limit: 1, action: 'login' }))[0]?.id ?? 0).toBe(before)
  })
})

/** What a browser sends when it opens an address (a redirect back from the provider, a click). */
const NAVIGATION = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' }

/** The page's parts a person reads, and the link they would follow. */
async function failurePage(response: Response) {
  const html = await response.text()
  const text = (pattern: RegExp) => pattern.exec(html)?.[1] ?? null
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    csp: response.headers.get('content-security-policy'),
    cache: response.headers.get('cache-control'),
    title: text(/<title>([^<]*)<\/title>/),
    h1: text(/<h1>([^<]*)<\/h1>/),
    paragraphs: [...html.matchAll(/<p>([^<]*)<\/p>/g)].map((m) => m[1]),
    signIn: text(/<a href="([^"]*)">(?:Sign in again|Try again)<\/a>/),
    again: text(/<a href="[^"]*">([^<]*)<\/a>/),
    html,
  }
}

describe('in a browser, a sign-in that fails ends on a page that says so, not on JSON', () => {
  const SHELL_CSP =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

  test('the provider refused (hostile text in its error): 401, a page with the envelope’s words and a way to sign in again, nothing reflected, the flow cookies cleared', async () => {
    const login = await startLogin()
    const hostile = encodeURIComponent('<script>alert(1)</script> ada@example.test')
    const response = await fetch(`${service.url}/api/auth/callback?error=access_denied&error_description=${hostile}&state=${login.state}`, {
      headers: { cookie: login.flowCookie, ...NAVIGATION },
      redirect: 'manual',
    })
    const cookies = setCookies(response)
    const page = await failurePage(response)
    expect({ ...page, html: undefined }).toEqual({
      status: 401,
      type: 'text/html; charset=utf-8',
      csp: SHELL_CSP,
      cache: 'no-store',
      title: 'Sign-in failed · admin-dashboard',
      h1: 'Sign-in failed',
      paragraphs: ['Sign-in did not complete.'],
      signIn: '/api/auth/login',
      again: 'Sign in again',
      html: undefined,
    })
    expect(page.html).not.toContain('script>')
    expect(page.html).not.toContain('access_denied')
    expect(page.html).not.toContain('ada@')
    expect(page.html).toContain('<link rel="stylesheet" href="/dashboard/assets/')
    for (const name of ['oauth_state', 'oauth_verifier', 'oauth_return_to']) expect(cookies.get(name)).toContain('Max-Age=0')
    expect(cookies.has('admin-session')).toBe(false)
  })

  test('an account without a role: 403, the page says so and whom to ask; the way back keeps the page the person was going to', async () => {
    const start = await fetch(`${service.url}/api/auth/login?return_to=${encodeURIComponent('/dashboard/identities?q=ab')}`, { redirect: 'manual' })
    const flow = setCookies(start)
    const flowCookie = [...flow.values()].map((line) => line.split(';')[0]).join('; ')
    markSecret(cookieValue(flow.get('oauth_state')), cookieValue(flow.get('oauth_verifier')))
    const back = await signInAtProvider(start.headers.get('location')!, 'nora@example.test')
    const response = await fetch(`${service.url}/api/auth/callback${back.search}`, { headers: { cookie: flowCookie, ...NAVIGATION }, redirect: 'manual' })
    markSecret(back.searchParams.get('code'))
    const page = await failurePage(response)
    expect([page.status, page.h1, page.paragraphs, page.signIn]).toEqual([
      403,
      'Sign-in failed',
      ['This account has no role in the admin dashboard.', 'Ask an administrator to give your account a role.'],
      `/api/auth/login?return_to=${encodeURIComponent('/dashboard/identities?q=ab')}&amp;prompt=login`,
    ])
    expect(setCookies(response).has('admin-session')).toBe(false)
    // The link, followed, starts a sign-in that lands there, and the provider asks who is signing in
    // (it would otherwise sign the same account in again, to be refused again).
    const again = await fetch(new URL(page.signIn!.replace('&amp;', '&'), service.url), { redirect: 'manual' })
    expect(again.status).toBe(302)
    expect(decodeURIComponent(cookieValue(setCookies(again).get('oauth_return_to')))).toBe('/dashboard/identities?q=ab')
    expect(new URL(again.headers.get('location')!).searchParams.get('prompt')).toBe('login')
  })

  test('the same failures asked for by a script (no navigation) still answer the envelope', async () => {
    const asked: Record<string, string>[] = [{}, { accept: 'application/json' }, { accept: 'text/html', 'sec-fetch-mode': 'cors' }]
    for (const headers of asked) {
      const login = await startLogin()
      const response = await fetch(`${service.url}/api/auth/callback?error=access_denied&state=${login.state}`, { headers: { cookie: login.flowCookie, ...headers }, redirect: 'manual' })
      expect([response.status, response.headers.get('content-type'), ((await response.json()) as { error: string }).error]).toEqual([
        401,
        'application/json; charset=utf-8',
        'login_failed',
      ])
    }
  })

  test('sign-in not configured: opening /api/auth/login gives a 503 page saying so', async () => {
    const bare = await startService({ env: { BASE_URL: '', OAUTH_ISSUER_URL: '', OAUTH_CLIENT_ID: '' } })
    try {
      const page = await failurePage(await fetch(`${bare.url}/api/auth/login?return_to=/dashboard/sessions`, { headers: NAVIGATION, redirect: 'manual' }))
      expect([page.status, page.title, page.h1, page.paragraphs, page.signIn, page.again]).toEqual([
        503,
        'Sign-in unavailable · admin-dashboard',
        'Sign-in unavailable',
        ['Sign-in is not configured on this service.'],
        `/api/auth/login?return_to=${encodeURIComponent('/dashboard/sessions')}`,
        'Try again',
      ])
    } finally {
      await bare.stop()
    }
  })
})

describe('the flow cookies are cleared whatever the outcome', () => {
  test('the login cannot be recorded (the database refuses the write): an error, no session, and the state and verifier cookies cleared', async () => {
    const other = await startService({ env: loginEnv() })
    try {
      other.db!.run("CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_events BEGIN SELECT RAISE(ABORT, 'refused'); END")
      const flow = await startLogin(other)
      const back = await signInAtProvider(flow.location, 'ada@example.test')
      const response = await callback(other, back, flow.flowCookie)
      expect(response.status).toBe(500)
      expect(await response.json()).toEqual({ error: 'internal_error', message: 'Something unexpected happened.' })
      const cookies = setCookies(response)
      expect(cookies.has('admin-session')).toBe(false)
      for (const name of ['oauth_state', 'oauth_verifier']) {
        expect(cookies.get(name)).toContain('Max-Age=0')
        expect(cookieValue(cookies.get(name))).toBe('')
      }
    } finally {
      await other.stop()
    }
  })
})

describe('provider trouble', () => {
  test('a provider that is down → 502 bad_gateway; too slow → 504 gateway_timeout', async () => {
    // A listener that accepts and never answers, and a port where nothing listens.
    const silent = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
    const closedPort = freePort()
    markSensitive(String(silent.port), String(closedPort))
    for (const [tokenUrl, status, code] of [
      [`http://127.0.0.1:${closedPort}/oauth2/token`, 502, 'bad_gateway'],
      [`http://127.0.0.1:${silent.port}/oauth2/token`, 504, 'gateway_timeout'],
    ] as const) {
      const broken = await startService({ env: loginEnv({ OAUTH_TOKEN_URL: tokenUrl, PROXY_TIMEOUT_MS: '300' }) })
      try {
        const login = await startLogin(broken)
        const back = await signInAtProvider(login.location, 'ada@example.test')
        const response = await callback(broken, back, login.flowCookie)
        expect(response.status).toBe(status)
        expect((await response.json()).error).toBe(code)
      } finally {
        await broken.stop()
      }
    }
    silent.stop(true)
  })

  test('a provider down when the sign-in began (the service started before it) and up by the callback: the sign-in completes (the paths guessed meanwhile are not used for it)', async () => {
    const port = freePort()
    const issuer = `http://127.0.0.1:${port}`
    markSensitive(String(port))
    const early = await startService({ env: loginEnv({ OAUTH_ISSUER_URL: issuer }) })
    let late: RunningProvider | undefined
    try {
      // Discovery fails: the browser is sent to Hydra's path under the issuer.
      const login = await startLogin(early)
      expect(new URL(login.location).pathname).toBe('/oauth2/auth')
      // Stock Hydra's userinfo is /userinfo, its issuer written without a trailing slash.
      late = await startOAuthProvider({
        port,
        clientId: CLIENT_ID,
        redirectUris: [`${BASE_URL}/api/auth/callback`],
        findSubject: () => ({ sub: people.admin!.id, email: 'ada@example.test' }),
      })
      const back = await signInAtProvider(login.location, 'ada@example.test')
      const response = await callback(early, back, login.flowCookie)
      expect([response.status, response.headers.get('location')]).toEqual([302, '/dashboard'])
      expect(setCookies(response).has('admin-session')).toBe(true)
    } finally {
      await early.stop()
      await late?.stop()
    }
  })

  test('OAUTH_ISSUER_URL written another way than the provider writes its issuer: the log says so, in words', async () => {
    const elsewhere = await startService({ env: loginEnv({ OAUTH_ISSUER_URL: provider.url.replace('127.0.0.1', 'localhost') }) })
    try {
      await startLogin(elsewhere)
      const failed = elsewhere.logLines.map((line) => JSON.parse(line) as Record<string, unknown>).find((entry) => entry.event === 'oauth_discovery_failed')
      expect(failed).toMatchObject({ error_code: 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED' })
      expect(failed!.detail).toContain('names another issuer than OAUTH_ISSUER_URL')
    } finally {
      await elsewhere.stop()
    }
  })

  test('a token response with a huge expires_in still gives at most 8 hours', async () => {
    const longLived = await startOAuthProvider({
      clientId: CLIENT_ID,
      redirectUris: [`${BASE_URL}/api/auth/callback`],
      accessTokenTtl: 10 * 86_400,
      findSubject: () => ({ sub: people.admin!.id, email: 'ada@example.test' }),
    })
    const target = await startService({ env: loginEnv({ OAUTH_ISSUER_URL: longLived.url, NODE_ENV: 'development' }) })
    try {
      const { response } = await loginAs('ada@example.test', target)
      const line = setCookies(response).get('admin-session')!
      expect(line).toContain('Max-Age=28800')
      // Local development: plain HTTP works, so no Secure.
      expect(line).not.toContain('Secure')
    } finally {
      await target.stop()
      await longLived.stop()
    }
  })

  test('login is not offered when it is not configured', async () => {
    const bare = await startService({ env: { BASE_URL: '', OAUTH_ISSUER_URL: '', OAUTH_CLIENT_ID: '' } })
    try {
      const response = await fetch(`${bare.url}/api/auth/login`, { redirect: 'manual' })
      expect(response.status).toBe(503)
      expect((await response.json()).error).toBe('not_configured')
    } finally {
      await bare.stop()
    }
  })
})

describe('sessions end when they should', () => {
  test('logout: 204, the cookie is cleared, and a replayed copy is 401', async () => {
    const { cookie } = await loginAs('ada@example.test')
    const logout = await fetch(`${service.url}/api/auth/logout`, { method: 'POST', headers: { cookie } })
    expect(logout.status).toBe(204)
    expect(logout.headers.get('set-cookie')).toContain('Max-Age=0')
    expect((await fetch(`${service.url}/api/auth/session`, { headers: { cookie } })).status).toBe(401)
    expect((await fetch(`${service.url}/api/settings`, { headers: { cookie } })).status).toBe(401)
  })

  test('a logout sent again with the same cookie, or with it many times in one header, ends the session once: one logout in the trail, not one per try', async () => {
    const { cookie } = await loginAs('ada@example.test')
    const logouts = async () => (await service.services.audit.list({ limit: 1000, action: 'logout' })).length
    const before = await logouts()
    const repeated = [cookie, cookie, cookie, cookie, cookie].join('; ')
    for (const header of [cookie, cookie, repeated]) {
      expect((await fetch(`${service.url}/api/auth/logout`, { method: 'POST', headers: { cookie: header } })).status).toBe(204)
    }
    expect(await logouts()).toBe(before + 1)
  })

  test('logout without a session still clears and answers 204', async () => {
    const response = await fetch(`${service.url}/api/auth/logout`, { method: 'POST' })
    expect(response.status).toBe(204)
    expect(response.headers.get('set-cookie')).toContain('admin-session=;')
  })

  test('/api/auth/session without a valid session → 401 not_authenticated', async () => {
    const none = await fetch(`${service.url}/api/auth/session`)
    expect(none.status).toBe(401)
    expect((await none.json()).error).toBe('not_authenticated')
    const forged = await fetch(`${service.url}/api/auth/session`, { headers: { cookie: 'admin-session=a.b' } })
    expect(forged.status).toBe(401)
  })

  test('an administrator revokes every session of an identity; it survives a restart', async () => {
    const dir = temporaryDir('revoke-')
    const first = await startService({ env: loginEnv(), dir })
    const viewerA = await loginAs('vic@example.test', first)
    const viewerB = await loginAs('vic@example.test', first)
    const admin = await loginAs('ada@example.test', first)
    const revoke = await fetch(`${first.url}/api/security/sessions/revoke`, {
      method: 'POST',
      headers: { cookie: admin.cookie, 'content-type': 'application/json', origin: BASE_URL },
      body: JSON.stringify({ identity_id: people.viewer!.id }),
    })
    expect(revoke.status).toBe(204)
    for (const { cookie } of [viewerA, viewerB]) {
      expect((await fetch(`${first.url}/api/auth/session`, { headers: { cookie } })).status).toBe(401)
    }
    expect((await first.services.audit.list({ limit: 5, action: 'sessions_revoke' }))[0]!.target).toBe(people.viewer!.id)
    await first.stop({ keepDir: true })

    const later = new TestClock(first.clock.now() + 1000)
    const second = await startService({ env: { ...first.env }, dir, clock: later })
    try {
      expect((await fetch(`${second.url}/api/auth/session`, { headers: { cookie: viewerA.cookie } })).status).toBe(401)
      expect((await fetch(`${second.url}/api/auth/session`, { headers: { cookie: admin.cookie } })).status).toBe(200)
      // A new login after the revocation works.
      const again = await loginAs('vic@example.test', second)
      expect((await fetch(`${second.url}/api/auth/session`, { headers: { cookie: again.cookie } })).status).toBe(200)
    } finally {
      await second.stop()
    }
  })

  test('a sign-in in the same second as a revocation survives it, and a restart', async () => {
    const dir = temporaryDir('revoke-same-second-')
    const clock = new TestClock(Math.floor(Date.now() / 1000) * 1000 + 100)
    const first = await startService({ env: loginEnv(), dir, clock })
    const before = await loginAs('vic@example.test', first)
    const admin = await loginAs('ada@example.test', first)
    clock.advance(0.2)
    const revoke = await fetch(`${first.url}/api/security/sessions/revoke`, {
      method: 'POST',
      headers: { cookie: admin.cookie, 'content-type': 'application/json', origin: BASE_URL },
      body: JSON.stringify({ identity_id: people.viewer!.id }),
    })
    expect(revoke.status).toBe(204)
    clock.advance(0.3) // still the same wall-clock second
    const after = await loginAs('vic@example.test', first)
    expect((await fetch(`${first.url}/api/auth/session`, { headers: { cookie: before.cookie } })).status).toBe(401)
    expect((await fetch(`${first.url}/api/auth/session`, { headers: { cookie: after.cookie } })).status).toBe(200)
    // A cookie without a millisecond issue time from that second is judged conservatively.
    const legacy = `admin-session=${first.sign({ sub: people.viewer!.id, role: 'viewer', email: 'vic@example.test' })}`
    expect((await fetch(`${first.url}/api/auth/session`, { headers: { cookie: legacy } })).status).toBe(401)
    await first.stop({ keepDir: true })

    const second = await startService({ env: { ...first.env }, dir, clock })
    try {
      expect((await fetch(`${second.url}/api/auth/session`, { headers: { cookie: before.cookie } })).status).toBe(401)
      expect((await fetch(`${second.url}/api/auth/session`, { headers: { cookie: after.cookie } })).status).toBe(200)
    } finally {
      await second.stop()
    }
  })

  test('the identity id in upper case: its sessions end all the same, and the trail names it in Kratos’s form', async () => {
    const other = await startService({ env: loginEnv() })
    try {
      const victim = await loginAs('vic@example.test', other)
      const admin = await loginAs('ada@example.test', other)
      const revoke = await fetch(`${other.url}/api/security/sessions/revoke`, {
        method: 'POST',
        headers: { cookie: admin.cookie, 'content-type': 'application/json', origin: BASE_URL },
        body: JSON.stringify({ identity_id: people.viewer!.id.toUpperCase() }),
      })
      expect(revoke.status).toBe(204)
      expect((await fetch(`${other.url}/api/auth/session`, { headers: { cookie: victim.cookie } })).status).toBe(401)
      const [event] = await other.services.audit.list({ limit: 1, action: 'sessions_revoke' })
      expect(event!.target).toBe(people.viewer!.id)
    } finally {
      await other.stop()
    }
  })

  test('a viewer cannot revoke sessions', async () => {
    const viewer = await loginAs('vic@example.test')
    const response = await fetch(`${service.url}/api/security/sessions/revoke`, {
      method: 'POST',
      headers: { cookie: viewer.cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ identity_id: people.admin!.id }),
    })
    expect(response.status).toBe(403)
  })

  test('a session whose identity is erased is 401 via /api/auth/session too', async () => {
    const temp = kratos.addIdentity({ email: 'temp@example.test', role: 'viewer' })
    markSensitive(temp.id, 'temp@example.test')
    const { cookie } = await loginAs('temp@example.test')
    kratos.identities.delete(temp.id)
    service.services.verifier.forgetIdentity(temp.id) // as after the recheck window
    const response = await fetch(`${service.url}/api/auth/session`, { headers: { cookie } })
    expect(response.status).toBe(401)
    expect(readCookieValues(response.headers.get('set-cookie'), 'admin-session')).toEqual([''])
  })
})
