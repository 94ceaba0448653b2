// The public GET routes answered without Elysia (src/http/direct.ts) answer exactly what Elysia
// answers for the same request: status, headers and body, whatever the Host, the cookie, the
// configuration or the database.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createApp } from '../src/app.ts'
import { loadConfig, type Environment } from '../src/config.ts'
import { openDatabase } from '../src/db/database.ts'
import { SqliteStorage } from '../src/db/sqlite-storage.ts'
import { createDirectLane } from '../src/http/direct.ts'
import { createGate } from '../src/http/gate.ts'
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

/** What a client sees of an answer; the request id differs per request, so only its shape is compared. */
async function seen(response: Response) {
  const headers = [...response.headers].map(([name, value]) => [name, name === 'x-request-id' ? (/^[0-9a-f-]{36}$/.test(value) ? 'an id' : value) : value])
  headers.sort(([a], [b]) => a!.localeCompare(b!))
  return { status: response.status, headers, body: await response.text() }
}

type Lane = ReturnType<typeof appWith>

/** The lane's answer and Elysia's to the same request, made twice (a session checked once is answered from memory the second time). */
async function compare(lane: Lane, path: string, headers: Record<string, string>) {
  const make = () => new Request(`http://admin.test${path}`, { headers })
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
      for (const { lane: direct, elysia } of await compare(lane, '/api/health?probe=1', host)) {
        expect(direct.status).toBe(status)
        expect(direct).toEqual(elysia)
      }
    })
  }

  test('/api/health when sign-in is not configured, and when the database cannot answer', async () => {
    const unconfigured = appWith({ OAUTH_CLIENT_ID: '' })
    for (const { lane: direct, elysia } of await compare(unconfigured, '/api/health', { host: 'admin.test' })) {
      expect(direct.status).toBe(503)
      expect(direct).toEqual(elysia)
    }
    const closed = appWith()
    closed.storage.db.close()
    for (const { lane: direct, elysia } of await compare(closed, '/api/health', { host: 'admin.test' })) {
      expect(direct.status).toBe(503)
      expect(direct).toEqual(elysia)
    }
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
      for (const { lane: direct, elysia } of await compare(lane, '/api/auth/session', { host: 'admin.test', ...(cookie ? { cookie } : {}) })) {
        expect([name, direct.status]).toEqual([name, status])
        expect(direct).toEqual(elysia)
      }
    }
    // With the identity store out of reach, a session that must be confirmed again cannot be.
    const down = appWith({ IDP_ADMIN_URL: 'http://127.0.0.1:9' })
    for (const { lane: direct, elysia } of await compare(down, '/api/auth/session', { host: 'admin.test', cookie: down.cookie() })) {
      expect(direct.status).toBe(503)
      expect(direct).toEqual(elysia)
    }
  })

  test('other methods, a trailing slash and other paths are left to Elysia', () => {
    const lane = appWith()
    expect(lane.direct(new Request('http://admin.test/api/health', { method: 'HEAD', headers: { host: 'admin.test' } }))).toBeUndefined()
    expect(lane.direct(new Request('http://admin.test/api/health/', { headers: { host: 'admin.test' } }))).toBeUndefined()
    expect(lane.direct(new Request('http://admin.test/api/settings', { headers: { host: 'admin.test' } }))).toBeUndefined()
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
