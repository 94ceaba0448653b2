import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createApp } from '../src/app.ts'
import { ACCESS_TABLE, classifyPath, findRule, samplePathOf } from '../src/http/access.ts'
import { loadConfig } from '../src/config.ts'
import { openDatabase } from '../src/db/database.ts'
import { SqliteStorage } from '../src/db/sqlite-storage.ts'
import { createLogger } from '../src/log.ts'
import { baseEnvironment } from './support/service.ts'
import { startStack, type Stack } from './support/stack.ts'
import { SPEC_ROUTES } from './support/routes.ts'

function productionApp() {
  const loaded = loadConfig(baseEnvironment({ DATABASE_PATH: ':memory:', IDP_ADMIN_URL: 'http://127.0.0.1:9' }))
  if (!loaded.ok) throw new Error(loaded.errors.join())
  const opened = openDatabase(':memory:')
  if (!opened.ok) throw new Error(opened.error)
  return createApp({ config: loaded.config, storage: new SqliteStorage(opened.db), log: createLogger('error', () => {}) }).app
}

describe('the access table covers every registered route', () => {
  const app = productionApp()
  const routes = app.routes.flatMap((route) =>
    route.method === 'GET' ? [route, { ...route, method: 'HEAD' }] : [route],
  )

  test('there are routes to walk', () => {
    expect(routes.length).toBeGreaterThan(0)
    expect(routes.some((route) => route.method === 'HEAD')).toBe(true)
  })

  for (const route of routes) {
    test(`${route.method} ${route.path} has an explicit rule`, () => {
      const path = samplePathOf(route.path)
      const rule = findRule(path)
      expect(rule).not.toBeNull()
      // The gate's verdict for the route is the rule's (no spelling of it is judged differently).
      expect(classifyPath(path)).toBe(rule!.access)
    })
  }

  test('every rule of the spec route table is in the access table', () => {
    for (const route of SPEC_ROUTES) {
      const rule = findRule(new URL(route.path, 'http://x').pathname)
      if (route.path.startsWith('/api/healthcheck') || route.path.startsWith('/api/no-such')) {
        expect(rule).toBeNull()
        expect(classifyPath(route.path)).toBe('session')
        continue
      }
      expect(rule).not.toBeNull()
      const expected = { public: ['public', 'proxy-public'], session: ['session'], admin: ['admin', 'proxy-admin'] }[route.expected]
      expect(expected).toContain(rule!.access)
    }
  })

  test('only the routes the spec makes public are public', () => {
    const publicPatterns = ACCESS_TABLE.filter((rule) => rule.access === 'public' || rule.access === 'proxy-public').map((r) => r.pattern)
    expect(publicPatterns.sort()).toEqual(
      ['/', '/api/auth/**', '/api/connections/social', '/api/health', '/api/iam-idp/**', '/api/idp/**', '/api/oauth/**', '/dashboard/**'].sort(),
    )
  })
})

describe('every spec route × {no cookie, viewer, admin}', () => {
  let stack: Stack
  beforeAll(async () => {
    stack = await startStack()
  })
  afterAll(async () => {
    await stack.stop()
  })

  const callers = ['anonymous', 'viewer', 'admin'] as const
  for (const route of SPEC_ROUTES) {
    for (const method of route.method === 'GET' ? ['GET', 'HEAD'] : [route.method]) {
      for (const caller of callers) {
        const want =
          route.expected === 'public' || (route.expected === 'session' && caller !== 'anonymous') || caller === 'admin'
            ? 'passes the gate'
            : caller === 'anonymous'
              ? '401'
              : '403'
        test(`${caller} ${method} ${route.path} → ${want}`, async () => {
          const headers: Record<string, string> = { origin: 'http://admin.test' }
          // A session of its own: the logout row really ends the session it is given.
          if (caller !== 'anonymous') headers.cookie = stack.freshCookie(caller)
          if (route.body !== undefined) headers['content-type'] = 'application/json'
          const response = await fetch(stack.service.url + route.path, {
            method,
            headers,
            body: route.body === undefined ? undefined : JSON.stringify(route.body),
            redirect: 'manual',
          })
          const text = await response.text()
          if (want === 'passes the gate') {
            // Whatever the handler says (200, 302, 404, 503 …), it is not a refusal of this caller;
            // HEAD included, where there is no body to read the code from.
            expect([401, 403]).not.toContain(response.status)
            return
          }
          expect(response.status).toBe(want === '401' ? 401 : 403)
          expect(response.headers.get('content-type')).toStartWith('application/json')
          if (method === 'HEAD') return
          const body = JSON.parse(text)
          if (want === '401') {
            expect(body).toEqual({ error: 'not_authenticated', message: 'Authentication required.', hint: expect.stringContaining('/api/auth/login') })
          } else {
            expect(body).toEqual({ error: 'forbidden', message: 'Admin access required.', hint: expect.stringContaining('administrator') })
          }
        })
      }
    }
  }
})
