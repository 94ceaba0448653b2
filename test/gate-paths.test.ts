// Path tricks from shared/reference/threats.md, sent on a raw socket so no client normalizes them.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { rawRequest } from './support/raw-http.ts'
import { startStack, type Stack } from './support/stack.ts'
import { classifyPath, classifyUnusualPath, normalizePath } from '../src/http/access.ts'
import { seededRandom } from './support/random.ts'

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
})
afterAll(async () => {
  await stack.stop()
})

/** Spellings that a gate or a router could read as an admin-only route. */
const ADMIN_TRICKS = [
  '/api/../api/settings',
  '/api/%2e%2e/api/settings',
  '/api/health/../settings',
  '/api/health/%2e%2e/settings',
  '/api/health/..%2fsettings',
  '/api/health/..%2Fsettings',
  '/api/health%2f..%2fsettings',
  '/api/health/%2e%2e%2fsettings',
  '/api/auth/..%2f..%2fapi%2fsettings',
  '/api/auth/%2e%2e%2fsettings',
  '/api/connections/social/..%2f..%2fsettings',
  '/api/settings/..%2f..%2fhealth',
  '/api/settings/%2e%2e%2fhealth',
  '/api/settings/..%5chealth',
  '//api/settings',
  '/api//settings',
  '///api/settings',
  '/api/settings/',
  '/api/settings//',
  '/API/settings',
  '/api/SETTINGS',
  '/Api/Settings',
  '/api/settings;x',
  '/api/settings;jsessionid=1',
  '/api/settings%3bx',
  '/api/health;/../settings',
  '/api/health%3b/../settings',
  '/api/settings%2f',
  '/api%2fsettings',
  '/api%5csettings',
  '/api\\settings',
  '/api/health\\..\\settings',
  '/api/%73ettings',
  '/api/%2573ettings',
  '/api/%25252573ettings',
  '/api/health%23/../settings',
  '/api/settings%23',
  '/api/settings%00',
  '/api/settings%00.json',
  '/api/health%00/../settings',
  '/api/settings%20',
  '/api/settings%09',
  '/api/settings%0a',
  '/api/%EF%BD%93ettings', // full-width "ｓ"
  '/api/settings%E3%80%80', // ideographic space
  '/api/%zzsettings',
  '/api/settings%',
  '/api/identities/',
  '/api/identities;.css',
  '/api/config%2e',
  '/api/encrypt/.',
  '/api/security/%2e%2e/settings',
  '/api/idp-admin/admin/identities',
  '/api/IDP-ADMIN/admin/identities',
  '/api/idp-admin;/admin/identities',
  '/api/health/..%2f..%2fidp-admin/admin/identities',
  '/dashboard/..%2fapi%2fsettings',
  '/dashboard%2f..%2fapi%2fsettings',
]

/** Spellings of session-only routes. */
const SESSION_TRICKS = ['/api/dashboard/layout/', '/API/dashboard/layout', '/api/health/..%2fdashboard/layout', '/api/geo;x', '/api/auth/..%2fgeo']

describe('path tricks never reach a protected handler without the right session', () => {
  for (const path of ADMIN_TRICKS) {
    test(`anonymous GET ${path} → 401`, async () => {
      const response = await rawRequest(stack.service.url, `GET ${path} HTTP/1.1`)
      expect(response.status).toBe(401)
      expect(JSON.parse(response.body).error).toBe('not_authenticated')
    })
    test(`viewer GET ${path} → 403, or the router's own 404`, async () => {
      const response = await rawRequest(stack.service.url, `GET ${path} HTTP/1.1`, { cookie: stack.cookie.viewer })
      const body = JSON.parse(response.body)
      if (response.status === 404) {
        // No route has this spelling: the router's 404, not a handler's.
        expect(body).toEqual({ error: 'not_found', message: 'Not found.' })
      } else {
        expect(response.status).toBe(403)
        expect(body.error).toBe('forbidden')
      }
    })
  }
  for (const path of SESSION_TRICKS) {
    test(`anonymous GET ${path} → 401`, async () => {
      const response = await rawRequest(stack.service.url, `GET ${path} HTTP/1.1`)
      expect(response.status).toBe(401)
    })
  }

  for (const path of ['/api/idp/..%2f..%2fsettings', '/api/idp/%2e%2e%2f%2e%2e%2fsettings', '/api/idp/..%2f..%2fidp-admin/admin/identities', '/api/oauth/..%5c..%5capi/settings']) {
    test(`GET ${path} is the public proxy's, which refuses it with 400 for anyone`, async () => {
      for (const cookie of [undefined, stack.cookie.viewer]) {
        const response = await rawRequest(stack.service.url, `GET ${path} HTTP/1.1`, cookie ? { cookie } : {})
        expect(response.status).toBe(400)
        expect(JSON.parse(response.body)).toEqual({ error: 'bad_request', message: 'The path cannot be forwarded.' })
      }
    })
  }
  test('traversal inside an admin prefix still needs an admin session first', async () => {
    expect((await rawRequest(stack.service.url, 'GET /api/idp-admin/..%2f..%2fidp/x HTTP/1.1')).status).toBe(401)
    expect((await rawRequest(stack.service.url, 'GET /api/idp-admin/..%2f..%2fidp/x HTTP/1.1', { cookie: stack.cookie.viewer })).status).toBe(403)
  })

  test('an absolute-form request target is judged by its path', async () => {
    const response = await rawRequest(stack.service.url, 'GET http://evil.example/api/settings HTTP/1.1')
    expect([400, 401]).toContain(response.status)
  })

  test('the query string takes no part in the decision', async () => {
    const health = await rawRequest(stack.service.url, 'GET /api/health?/api/settings HTTP/1.1')
    expect(health.status).toBe(200)
    expect(JSON.parse(health.body)).toEqual({ status: 'ok' })
    const settings = await rawRequest(stack.service.url, 'GET /api/settings?/api/health HTTP/1.1')
    expect(settings.status).toBe(401)
  })

  test('the public routes stay public when spelled plainly', async () => {
    expect((await rawRequest(stack.service.url, 'GET /api/health HTTP/1.1')).status).toBe(200)
    expect((await rawRequest(stack.service.url, 'GET /api/health/ HTTP/1.1')).status).toBe(200)
  })
})

describe('normalization', () => {
  test('folds encodings, case, slashes, matrix parameters and dot segments', () => {
    expect(normalizePath('/API//Settings;x/./').path).toBe('/api/settings')
    expect(normalizePath('/api/%2573ettings').path).toBe('/api/settings')
    expect(normalizePath('/api/health/..%2fsettings').path).toBe('/api/settings')
    expect(normalizePath('/api/%EF%BD%93ettings').path).toBe('/api/settings')
    expect(normalizePath('/api/%zz').suspicious).toBe(true)
    expect(normalizePath('/api/idp/..%2fx').suspicious).toBe(true)
    expect(normalizePath('/api/idp/self-service/login').suspicious).toBe(false)
  })
  test('a malformed encoding is never public', () => {
    expect(classifyPath('/api/health%zz')).toBe('session')
    expect(classifyPath('/api/auth/login%')).toBe('session')
  })
})

describe('the fast path and the cache agree with the full classification', () => {
  test('20,000 random paths over a hostile alphabet', () => {
    const alphabet = ['/', '/', '/', 'a', 'p', 'i', 's', 'e', 't', 'n', 'g', '-', '_', '.', '.', '%2e', '%2f', '%5c', '\\', ';', 'A', 'S', '%', '~', ' ', '%00', 'ｓ']
    const words = ['api', 'settings', 'health', 'auth', 'idp', 'idp-admin', 'oauth', 'dashboard', 'config', 'security', '..', '.', 'x', '.well-known']
    const random = seededRandom(42)
    let plainSeen = 0
    for (let i = 0; i < 20_000; i++) {
      let path = ''
      const parts = 1 + random(5)
      for (let j = 0; j < parts; j++) path += '/' + (random(3) === 0 ? alphabet[random(alphabet.length)]! + alphabet[random(alphabet.length)]! : words[random(words.length)]!)
      if (random(4) === 0) path += alphabet[random(alphabet.length)]!
      if (/^(?:\/[a-z0-9_.-]*[a-z0-9_-])*\/?$/.test(path)) plainSeen++
      expect(`${path} → ${classifyPath(path)}`).toBe(`${path} → ${classifyUnusualPath(path)}`)
      expect(classifyPath(path)).toBe(classifyUnusualPath(path))
    }
    expect(plainSeen).toBeGreaterThan(2_000)
  })
  test('a trailing dot is not plain: /api/config. is admin', () => {
    expect(classifyPath('/api/config.')).toBe('admin')
    expect(classifyPath('/api/config...')).toBe('admin')
    expect(classifyPath('/api/oauth/.well-known/jwks.json')).toBe('proxy-public')
  })
})

describe('the cost of judging a path', () => {
  // About as long as Bun takes a request target (its 16 KiB for the whole head): anyone may send it.
  const LONGEST = 16_000
  const runs = {
    'a run of dots inside a segment': `/api/%41/${'.'.repeat(LONGEST)}x`,
    'a run of slashes inside the path': `/api${'/'.repeat(LONGEST)}x`,
    'a run of slashes after an encoding': `/dashboard/%41${'/'.repeat(LONGEST)}x`,
  }
  for (const [shape, path] of Object.entries(runs)) {
    test(`${shape} is judged in linear time, not quadratic`, () => {
      // Quadratic (a `/x+$/` that backtracks), each took 140 ms or more; linear, about 1 ms.
      const started = performance.now()
      for (let i = 0; i < 5; i++) classifyUnusualPath(`${path}${i}`)
      expect((performance.now() - started) / 5).toBeLessThan(25)
    })
  }
  test('and judged as before: trailing dots and slashes still go', () => {
    expect(normalizePath(`/api/config${'.'.repeat(LONGEST)}`).path).toBe('/api/config')
    expect(classifyPath(`/api/settings${'/'.repeat(LONGEST)}`)).toBe('admin')
    expect(classifyPath(`/api/%73ettings${'.'.repeat(LONGEST)}`)).toBe('admin')
  })
})

describe('what judging paths keeps', () => {
  test('long distinct paths are not kept: 4,000 of 16 KB leave the heap as it was', () => {
    const long = 'a'.repeat(16_000)
    Bun.gc(true)
    const before = process.memoryUsage().heapUsed
    for (let i = 0; i < 4000; i++) expect(classifyPath(`/dashboard/${i}/${long}`)).toBe('public')
    Bun.gc(true)
    // Kept, they were 64 MB.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(16 * 1024 * 1024)
  })
})
