// The requests answered without Elysia (src/http/direct.ts), the public GET routes and every
// request under a proxy prefix, answer exactly what Elysia answers for the same request: status,
// headers and body, whatever the Host, the cookie, the method, the path, the configuration or the
// database.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createApp } from '../src/app.ts'
import { loadConfig, type Environment } from '../src/config.ts'
import { openDatabase } from '../src/db/database.ts'
import { SqliteStorage } from '../src/db/sqlite-storage.ts'
import { createDirectLane } from '../src/http/direct.ts'
import { createGate } from '../src/http/gate.ts'
import { PROXY_PREFIXES } from '../src/proxy/upstreams.ts'
import { createLogger } from '../src/log.ts'
import { signSessionCookie, type SessionPayload } from '../src/session/cookie.ts'
import { SessionVerifier } from '../src/session/verifier.ts'
import { KratosFixture } from './support/kratos.ts'
import { baseEnvironment } from './support/service.ts'

let kratos: KratosFixture
beforeAll(() => {
  kratos = new KratosFixture().start()
})
afterAll(async () => {
  await kratos.stop()
})

function appWith(env: Environment = {}) {
  const loaded = loadConfig(baseEnvironment({ DATABASE_PATH: ':memory:', IDP_ADMIN_URL: kratos.url, ...env }))
  if (!loaded.ok) throw new Error(loaded.errors.join())
  const opened = openDatabase(':memory:')
  if (!opened.ok) throw new Error(opened.error)
  const storage = new SqliteStorage(opened.db)
  const { app, direct } = createApp({ config: loaded.config, storage, log: createLogger('error', () => {}) })
  const cookie = (overrides: Partial<SessionPayload> = {}) => {
    const iat = Math.floor(Date.now() / 1000)
    const payload: SessionPayload = { v: 1, sid: crypto.randomUUID(), sub: crypto.randomUUID(), email: 'a@example.test', role: 'admin', iat, exp: iat + 3600, ...overrides }
    return `admin-session=${signSessionCookie(loaded.config.sessionSigningKey, payload)}`
  }
  return { app, direct, storage, cookie }
}

/** What a client sees of an answer; the request id differs per request, so only its shape is compared (and an upstream's Date, which may tick between the two). */
async function seen(response: Response) {
  const headers = [...response.headers].map(([name, value]) => [name, name === 'x-request-id' ? (/^[0-9a-f-]{36}$/.test(value) ? 'an id' : value) : name === 'date' ? 'a date' : value])
  headers.sort(([a], [b]) => a!.localeCompare(b!))
  return { status: response.status, headers, body: await response.text() }
}

type Lane = ReturnType<typeof appWith>

/** The lane's answer and Elysia's to the same request, made twice (a session checked once is answered from memory the second time). */
async function compare(lane: Lane, path: string, headers: Record<string, string>, init: { method?: string; body?: string } = {}) {
  const make = () => new Request(`http://admin.test${path}`, { headers, ...init })
  const outcomes = []
  for (const laneFirst of [true, false]) {
    const direct = async () => {
      const answer = lane.direct(make())
      if (answer === undefined) throw new Error(`the lane did not answer ${path}`)
      return seen(await answer)
    }
    const elysia = async () => seen(await lane.app.fetch(make()))
    const [a, b] = laneFirst ? [await direct(), await elysia()] : [await elysia(), await direct()]
    outcomes.push(laneFirst ? { lane: a, elysia: b } : { lane: b, elysia: a })
  }
  return outcomes
}

/** The lane answers with `status`, and exactly as Elysia does, both times (`label` says which case failed). */
async function expectSameAnswers(label: unknown, status: number, ...request: Parameters<typeof compare>) {
  for (const { lane: direct, elysia } of await compare(...request)) {
    expect([label, direct.status]).toEqual([label, status])
    expect(direct).toEqual(elysia)
  }
}

const HOSTS: [string, Record<string, string>, number][] = [
  ['a valid Host', { host: 'admin.test' }, 200],
  ['a Host with a port', { host: 'admin.test:8080' }, 200],
  ['an invalid Host', { host: 'admin test' }, 400],
  ['two Hosts', { host: 'admin.test, evil.test' }, 400],
  ['no Host', {}, 400],
]

describe('GET /api/health and GET /api/auth/session answer as Elysia would', () => {
  for (const [name, host, status] of HOSTS) {
    test(`/api/health with ${name}`, async () => {
      const lane = appWith()
      await expectSameAnswers('/api/health?probe=1', status, lane, '/api/health?probe=1', host)
    })
  }

  test('/api/health when sign-in is not configured, and when the database cannot answer', async () => {
    const unconfigured = appWith({ OAUTH_CLIENT_ID: '' })
    await expectSameAnswers('/api/health', 503, unconfigured, '/api/health', { host: 'admin.test' })
    const closed = appWith()
    closed.storage.db.close()
    await expectSameAnswers('/api/health', 503, closed, '/api/health', { host: 'admin.test' })
  })

  test('/api/auth/session with every kind of cookie', async () => {
    const lane = appWith()
    const identity = kratos.addIdentity({ email: 'ada@example.test', role: 'admin' })
    const valid = lane.cookie({ sub: identity.id, email: 'ada@example.test' })
    const cases: [string, string | undefined, number][] = [
      ['none', undefined, 401],
      ['valid', valid, 200],
      ['valid among others', `theme=dark; ${valid}; lang=en`, 200],
      ['forged', `admin-session=${valid.split('=')[1]!.slice(0, -2)}xx`, 401],
      ['expired', lane.cookie({ sub: identity.id, iat: 1_000, exp: 2_000 }), 401],
      ['of an identity the store does not have', lane.cookie(), 401],
    ]
    for (const [name, cookie, status] of cases) {
      await expectSameAnswers(name, status, lane, '/api/auth/session', { host: 'admin.test', ...(cookie ? { cookie } : {}) })
    }
    // With the identity store out of reach, a session that must be confirmed again cannot be.
    const down = appWith({ IDP_ADMIN_URL: 'http://127.0.0.1:9' })
    await expectSameAnswers('/api/auth/session', 503, down, '/api/auth/session', { host: 'admin.test', cookie: down.cookie() })
  })

  test('/api/auth/session answers each session with its own identity, one after another, again and again', async () => {
    const lane = appWith()
    const sessions = [
      { email: 'ada@example.test', role: 'admin' as const },
      { email: 'grace@example.test', role: 'viewer' as const },
    ].map(({ email, role }) => {
      const identity = kratos.addIdentity({ email, role })
      return { cookie: lane.cookie({ sub: identity.id, email, role }), body: { user: { identityId: identity.id, email, role } } }
    })
    for (let round = 0; round < 3; round++) {
      for (const { cookie, body } of sessions) {
        for (const { lane: direct, elysia } of await compare(lane, '/api/auth/session', { host: 'admin.test', cookie })) {
          expect(JSON.parse(direct.body)).toEqual(body)
          expect(JSON.parse(elysia.body)).toEqual(body)
        }
      }
    }
  })

  test('other methods, a trailing slash and other paths are left to Elysia', () => {
    const lane = appWith()
    expect(lane.direct(new Request('http://admin.test/api/health', { method: 'HEAD', headers: { host: 'admin.test' } }))).toBeUndefined()
    expect(lane.direct(new Request('http://admin.test/api/health/', { headers: { host: 'admin.test' } }))).toBeUndefined()
    expect(lane.direct(new Request('http://admin.test/api/settings', { headers: { host: 'admin.test' } }))).toBeUndefined()
    // A prefix without the slash that follows it, or in other letters, is no proxy path.
    for (const path of ['/api/idp', '/api/idpx/y', '/API/idp/x', '/api/Idp/x', '/api/idp-admin', '/api/oauth-adminx/y']) {
      expect([path, lane.direct(new Request(`http://admin.test${path}`, { method: 'POST', headers: { host: 'admin.test' } }))]).toEqual([path, undefined])
    }
  })
})

describe('requests under a proxy prefix answer as Elysia would', () => {
  // An upstream that says what it received, with the headers the proxy must filter on the way back.
  let echo: ReturnType<typeof Bun.serve>
  beforeAll(() => {
    echo = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      async fetch(request) {
        const url = new URL(request.url)
        const received = { method: request.method, path: url.pathname + url.search, authorization: request.headers.get('authorization'), cookie: request.headers.get('cookie'), body: await request.text() }
        const status = url.pathname.endsWith('/missing') ? 404 : url.pathname.endsWith('/moved') ? 302 : 200
        const headers = new Headers({ 'content-type': 'application/json', 'x-upstream': 'yes', 'cache-control': 'public, max-age=60', 'x-request-id': 'upstream-id' })
        headers.append('set-cookie', 'admin-session=planted; Path=/')
        headers.append('set-cookie', 'upstream_pref=1; Path=/')
        if (status === 302) headers.set('location', `${url.origin}/elsewhere?x=1`)
        return new Response(JSON.stringify(received), { status, headers })
      },
    })
  })
  afterAll(() => echo.stop(true))

  const proxied = (env: Environment = {}) => {
    const origin = `http://127.0.0.1:${echo.port}`
    return appWith({ IDP_PUBLIC_URL: `${origin}/public`, OAUTH_ADMIN_URL: `${origin}/hydra-admin`, ...env })
  }

  test('every prefix, configured or not, and paths the proxy refuses', async () => {
    const lane = proxied()
    const identity = kratos.addIdentity({ email: 'ada@example.test', role: 'admin' })
    const admin = lane.cookie({ sub: identity.id, email: 'ada@example.test' })
    const cases: [string, string | undefined, number][] = [
      ['/api/idp/self-service/login/browser?flow=1&return_to=%2Fx', undefined, 200],
      ['/api/idp/', undefined, 200],
      ['/api/idp/a/missing', undefined, 404],
      ['/api/idp/a/moved', undefined, 302],
      ['/api/idp/%252e%252e/etc', undefined, 400],
      ['/api/idp/a%2fb', undefined, 400],
      ['/api/idp//evil.test/x', undefined, 400],
      ['/api/iam-idp/x', undefined, 503],
      ['/api/oauth/x', undefined, 503],
      ['/api/oauth-admin/admin/clients', admin, 200],
      ['/api/oauth-admin/admin/clients', undefined, 401],
      [`/api/idp-admin/admin/identities/${identity.id}`, admin, 200],
      ['/api/idp-admin/admin/identities/nobody', admin, 404],
      ['/api/iam-idp-admin/admin/identities', admin, 503],
    ]
    for (const [path, cookie, status] of cases) {
      await expectSameAnswers(path, status, lane, path, { host: 'admin.test', authorization: 'Bearer client-token', ...(cookie ? { cookie: `theme=dark; ${cookie}` } : {}) })
    }
  })

  test('every method, with and without a body, and writes from another site', async () => {
    const lane = proxied()
    const identity = kratos.addIdentity({ email: 'ada@example.test', role: 'admin' })
    const admin = lane.cookie({ sub: identity.id, email: 'ada@example.test' })
    for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      const body = method === 'GET' || method === 'HEAD' ? undefined : '{"a":1}'
      for (const [path, headers, status] of [
        ['/api/idp/x', { host: 'admin.test' }, 200],
        ['/api/oauth-admin/admin/clients/c1', { host: 'admin.test', cookie: admin }, 200],
        ['/api/oauth-admin/admin/clients/c1', { host: 'admin.test', cookie: admin, origin: 'https://evil.test' }, method === 'GET' || method === 'HEAD' || method === 'OPTIONS' ? 200 : 403],
      ] as [string, Record<string, string>, number][]) {
        await expectSameAnswers([method, path], status, lane, path, { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) }, { method, body })
      }
    }
  })

  for (const [name, host, status] of HOSTS) {
    test(`a public and an admin prefix with ${name}`, async () => {
      const lane = proxied()
      for (const path of ['/api/idp/x', '/api/oauth-admin/admin/clients']) {
        await expectSameAnswers(path, path.startsWith('/api/idp/') || status === 400 ? status : 401, lane, path, host)
      }
    })
  }

  test('every kind of session on an admin prefix', async () => {
    const lane = proxied()
    const identity = kratos.addIdentity({ email: 'ada@example.test', role: 'admin' })
    const viewer = kratos.addIdentity({ email: 'vic@example.test', role: 'viewer' })
    const valid = lane.cookie({ sub: identity.id, email: 'ada@example.test' })
    const cases: [string, string | undefined, number][] = [
      ['none', undefined, 401],
      ['valid', valid, 200],
      ['a viewer', lane.cookie({ sub: viewer.id, email: 'vic@example.test', role: 'viewer' }), 403],
      ['of a role the store no longer gives the identity', lane.cookie({ sub: identity.id, email: 'ada@example.test', role: 'viewer' }), 401],
      ['forged', `admin-session=${valid.split('=')[1]!.slice(0, -2)}xx`, 401],
      ['two session cookies', `${valid}; ${valid}`, 401],
      ['expired', lane.cookie({ sub: identity.id, iat: 1_000, exp: 2_000 }), 401],
      ['of an identity the store does not have', lane.cookie(), 401],
    ]
    for (const [name, cookie, status] of cases) {
      await expectSameAnswers(name, status, lane, '/api/oauth-admin/admin/clients', { host: 'admin.test', ...(cookie ? { cookie } : {}) })
    }
  })

  test('an upstream that cannot be reached, and an API key that cannot be read', async () => {
    const down = proxied({ IDP_PUBLIC_URL: 'http://127.0.0.1:9' })
    await expectSameAnswers('/api/idp/x', 502, down, '/api/idp/x', { host: 'admin.test' })
    const keyed = proxied()
    const at = new Date().toISOString()
    await keyed.storage.settings.upsert({ key: 'proxy.idp.api_key', value: 'not-a-ciphertext', encrypted: true, category: null, updated_at: at }, () => ({ at, action: 'setting_written', actor: null, target: 'proxy.idp.api_key', detail: null, request_id: null }))
    // A path of the public API, which its key goes with.
    await expectSameAnswers('/api/idp/sessions/whoami', 500, keyed, '/api/idp/sessions/whoami', { host: 'admin.test' })
  })
})

describe('the lane', () => {
  test('the routes it answers have no Elysia hook beyond those it stands in for', () => {
    // The gate (request), the route rule (transform: nothing on a public path), the error answer
    // (error) and the plain-value answer (mapResponse); a GET has no body to parse. A hook added in
    // app.ts must hold for the lane's routes too: do it in src/http/direct.ts or take them off its list.
    const { app } = appWith()
    const expected = { request: 1, parse: 1, transform: 1, error: 1, mapResponse: 1 }
    const counts = (hooks: object) => Object.fromEntries(Object.entries(hooks).filter(([, value]) => Array.isArray(value) && value.length > 0).map(([name, value]) => [name, value.length]))
    expect(counts(app.event)).toEqual(expected)
    for (const path of ['/api/health', '/api/auth/session']) {
      const route = app.routes.find((candidate) => candidate.path === path && candidate.method === 'GET')!
      expect([path, counts(route.hooks)]).toEqual([path, expected])
    }
    // Each proxy prefix's one route, for every method: its body is never parsed (the parse hook
    // leaves proxied paths alone), and the lane runs the route rule (transform) itself.
    const proxyRoutes = app.routes.filter((candidate) => /^\/api\/[a-z-]+\/\*$/.test(candidate.path))
    expect(proxyRoutes.map((route) => `${route.method} ${route.path}`).sort()).toEqual(PROXY_PREFIXES.map((prefix) => `ALL ${prefix.route}`).sort())
    for (const route of proxyRoutes) expect([route.path, counts(route.hooks)]).toEqual([route.path, expected])
  })

  const gate = createGate({ verifier: {} as SessionVerifier, baseOrigin: null, secureCookies: true })
  const onError = () => new Response('{"error":{"code":"internal_error"}}', { status: 500 })

  test('refuses to answer a path behind a session rule', () => {
    expect(() => createDirectLane({ gate, onError, routes: { '/api/settings': () => ({}) } })).toThrow('not public')
  })

  test('turns what a handler throws, at once or later, into the error answer with the gate headers', async () => {
    const lane = createDirectLane({
      gate,
      onError,
      routes: { '/api/health': () => { throw new Error('boom') }, '/api/auth/session': () => Promise.reject(new Error('later')) },
    })
    for (const path of ['/api/health', '/api/auth/session']) {
      const answer = await lane(new Request(`http://admin.test${path}`, { headers: { host: 'admin.test' } }))!
      expect(answer.status).toBe(500)
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff')
      expect(answer.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    }
  })
})
