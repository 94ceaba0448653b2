// The Host header decides nothing: the gate and the router see one path whatever Host says, and a
// missing, empty, duplicated or malformed Host is refused before routing. Raw sockets throughout.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { createApp } from '../src/app.ts'
import { accessOfRoute, requirementOf } from '../src/http/access.ts'
import { loadConfig } from '../src/config.ts'
import { openDatabase } from '../src/db/database.ts'
import { SqliteStorage } from '../src/db/sqlite-storage.ts'
import { createLogger } from '../src/log.ts'
import { createSessionAssertion } from '../src/http/session-assertion.ts'
import { attachSession } from '../src/http/request-context.ts'
import { createErrorHandler } from '../src/http/error-handler.ts'
import { rawRequest, rawSend, type RawResponse } from './support/raw-http.ts'
import { baseEnvironment } from './support/service.ts'
import { startStack, type Stack } from './support/stack.ts'
import { corpusCases, HOST_VARIANTS, inPool, requestText, runCase } from './support/host-corpus.ts'
import { samplePathOf } from '../src/http/access.ts'

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
  await rawRequest(stack.service.url, 'POST /api/settings HTTP/1.1', { cookie: stack.cookie.admin, 'content-type': 'application/json' }, JSON.stringify({ key: 'smtp.password', value: 'secret-in-plain' }))
})
afterAll(async () => {
  await stack.stop()
})

describe('the reported exploits', () => {
  test('Host: a + /xy/api/settings answers no settings', async () => {
    const response = await rawSend(stack.service.url, 'GET /xy/api/settings HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n')
    expect([400, 401, 403, 404]).toContain(response.status)
    expect(response.body).not.toContain('secret-in-plain')
    expect(JSON.parse(response.body).error).toBeString()
  })
  test('Host: abc + /x/api/security/audit answers no audit trail', async () => {
    const response = await rawSend(stack.service.url, 'GET /x/api/security/audit?limit=1 HTTP/1.1\r\nHost: abc\r\nConnection: close\r\n\r\n')
    expect([400, 401, 403, 404]).toContain(response.status)
    expect(response.body).not.toContain(stack.admin.id)
  })
  test('Host: abc + POST /x/api/encrypt encrypts nothing', async () => {
    const body = '{"value":"x"}'
    const response = await rawSend(
      stack.service.url,
      `POST /x/api/encrypt HTTP/1.1\r\nHost: abc\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    )
    expect([400, 401, 403, 404]).toContain(response.status)
    expect(response.body).not.toContain('ciphertext')
  })
  for (const path of ['/api/settings', '/api/config']) {
    test(`an empty Host on ${path} → 400 bad_request`, async () => {
      const response = await rawSend(stack.service.url, `GET ${path} HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n`)
      expect(response.status).toBe(400)
      expect(JSON.parse(response.body)).toEqual({ error: 'bad_request', message: 'The Host header is missing or invalid.' })
      expect(response.headers['cache-control']).toBe('no-store')
    })
  }
  test('a short Host reaches the admin proxy only with an admin session', async () => {
    const calls = stack.kratos.calls.length
    for (const prefix of ['/x', '/xy', '/xyz']) {
      const response = await rawSend(stack.service.url, `GET ${prefix}/api/idp-admin/admin/identities HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`)
      expect(response.status).not.toBeLessThan(400)
    }
    expect(stack.kratos.calls.length).toBe(calls)
  })
})

describe('a valid short Host changes nothing', () => {
  test('the public health route still answers under Host: a', async () => {
    const response = await rawSend(stack.service.url, 'GET /api/health HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n')
    expect(response.status).toBe(200)
  })
  test('an admin still reaches the settings under Host: a', async () => {
    const response = await rawSend(stack.service.url, `GET /api/settings HTTP/1.1\r\nHost: a\r\nCookie: ${stack.cookie.admin}\r\nConnection: close\r\n\r\n`)
    expect(response.status).toBe(200)
  })
})

describe('the corpus: every Host variant × every protected route × shifting prefixes, anonymous and viewer', () => {
  test('no case reaches a protected handler or lets Host change the answer', async () => {
    const baselines = new Map<string, Promise<RawResponse>>()
    const baseline = (method: string, path: string, caller: 'anonymous' | 'viewer', body: string) => {
      const key = `${method} ${path} ${caller}`
      let found = baselines.get(key)
      if (!found) {
        const headers: Record<string, string> = caller === 'viewer' ? { cookie: stack.cookie.viewer } : {}
        if (body) headers['content-type'] = 'application/json'
        found = rawRequest(stack.service.url, `${method} ${path} HTTP/1.1`, headers, body)
        baselines.set(key, found)
      }
      return found
    }
    const cases = corpusCases()
    expect(cases.length).toBeGreaterThan(3000)
    const outcomes = await inPool(cases, 16, (item) => runCase(stack.service.url, item, stack.cookie, baseline))
    const problems = outcomes.flatMap((outcome, index) => {
      if (!outcome.problem) return []
      const item = cases[index]!
      return [`${item.variant.name} ${item.route.method} ${item.prefix}${item.route.path} (${item.caller}): ${outcome.problem}`]
    })
    expect(problems.slice(0, 20)).toEqual([])
  }, 120_000)
})

describe('every registered protected route refuses an anonymous request under every Host variant', () => {
  function productionApp() {
    const loaded = loadConfig(baseEnvironment({ DATABASE_PATH: ':memory:', IDP_ADMIN_URL: 'http://127.0.0.1:9' }))
    if (!loaded.ok) throw new Error(loaded.errors.join())
    const opened = openDatabase(':memory:')
    if (!opened.ok) throw new Error(opened.error)
    return createApp({ config: loaded.config, storage: new SqliteStorage(opened.db), log: createLogger('error', () => {}) }).app
  }
  const protectedRoutes = productionApp().routes.filter((route) => requirementOf(accessOfRoute(route.path)) !== 'none')

  test('there are protected routes to walk', () => {
    expect(protectedRoutes.length).toBeGreaterThan(10)
  })
  for (const route of protectedRoutes) {
    test(`${route.method} ${route.path}`, async () => {
      const method = route.method === 'ALL' ? 'GET' : route.method
      const path = samplePathOf(route.path)
      const problems: string[] = []
      for (const variant of HOST_VARIANTS) {
        const response = await rawSend(stack.service.url, requestText(variant, method, path))
        const want = variant.valid ? 401 : 400
        if (response.status !== want) problems.push(`${variant.name}: ${response.status}`)
      }
      expect(problems).toEqual([])
    })
  }
})

describe('the route-level session assertion (defence in depth behind the gate)', () => {
  // An app whose "gate" is broken on purpose: it attaches whatever the test says, or nothing.
  function brokenGateApp(attach: 'none' | 'viewer') {
    const lines: string[] = []
    const log = createLogger('error', (line) => void lines.push(line))
    const app = new Elysia({ handler: { standardHostname: false } })
      .onRequest(({ request }) => {
        if (attach === 'viewer') attachSession(request, { v: 1, sid: 's', sub: 'x', email: 'e', role: 'viewer', iat: 0, exp: 1 })
      })
      .onTransform({ as: 'global' }, createSessionAssertion(log))
      .onError({ as: 'global' }, createErrorHandler(log, () => []))
      .get('/api/settings', () => ({ secret: 'data' }))
      .get('/api/geo', () => ({ geo: 'data' }))
      .get('/api/idp-admin/*', () => ({ proxied: 'data' }))
      .get('/api/health', () => ({ status: 'ok' }))
    return { app, lines }
  }

  test('an admin handler reached without a session answers 500 internal_error and logs the bug', async () => {
    const { app, lines } = brokenGateApp('none')
    for (const path of ['/api/settings', '/api/geo', '/api/idp-admin/admin/identities']) {
      const response = await app.handle(new Request(`http://admin.test${path}`))
      expect(response.status).toBe(500)
      expect(await response.json()).toEqual({ error: 'internal_error', message: 'Something unexpected happened.' })
    }
    expect(lines.filter((line) => line.includes('"event":"handler_without_session"'))).toHaveLength(3)
  })
  test('an admin handler reached with a viewer session answers 500; a session route serves it', async () => {
    const { app } = brokenGateApp('viewer')
    expect((await app.handle(new Request('http://admin.test/api/settings'))).status).toBe(500)
    expect((await app.handle(new Request('http://admin.test/api/geo'))).status).toBe(200)
  })
  test('public handlers run without a session', async () => {
    const { app } = brokenGateApp('none')
    expect((await app.handle(new Request('http://admin.test/api/health'))).status).toBe(200)
  })
})
