// GET /api/openapi.json: a valid OpenAPI 3.1 document, admin only, covering every registered route.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Validator } from '@seriousme/openapi-schema-validator'
import Ajv2020 from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { ENTRY } from '../src/dashboard/assets.generated.ts'
import { ROUTE_DOCUMENTATION } from '../src/http/openapi.ts'
import { ERROR_CODES } from '../src/http/errors.ts'
import { startStack, type Stack } from './support/stack.ts'
import { createApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { openDatabase } from '../src/db/database.ts'
import { SqliteStorage } from '../src/db/sqlite-storage.ts'
import { createLogger } from '../src/log.ts'
import { baseEnvironment } from './support/service.ts'

/** The same app the service runs, built here to walk its `routes`. */
function productionApp() {
  const loaded = loadConfig(baseEnvironment({ DATABASE_PATH: ':memory:', IDP_ADMIN_URL: 'http://127.0.0.1:9' }))
  if (!loaded.ok) throw new Error(loaded.errors.join())
  const opened = openDatabase(':memory:')
  if (!opened.ok) throw new Error(opened.error)
  return createApp({ config: loaded.config, storage: new SqliteStorage(opened.db), log: createLogger('error', () => {}) }).app
}

let stack: Stack
let document: Record<string, any>

beforeAll(async () => {
  stack = await startStack()
  const response = await fetch(`${stack.service.url}/api/openapi.json`, { headers: { cookie: stack.cookie.admin } })
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toContain('application/json')
  document = (await response.json()) as Record<string, any>
})
afterAll(() => stack.stop())

/** The document's spelling of a route path, written out here rather than imported. */
const documented = (path: string) => path.replace(/:([^/]+)/g, '{$1}').replace(/\*$/, '{path}')

describe('GET /api/openapi.json', () => {
  test('validates as OpenAPI 3.1', async () => {
    const validator = new Validator()
    const result = await validator.validate(structuredClone(document))
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect(validator.version).toBe('3.1')
  })

  test('describes the conditional headers of a settings write', () => {
    const parameters = document.paths['/api/settings'].post.parameters as { name: string; in: string; required: boolean; description?: string }[]
    expect(parameters.filter((p) => p.in === 'header').map((p) => [p.name, p.required, p.description?.startsWith('`*`')])).toEqual([
      ['if-none-match', false, true],
      ['if-match', false, true],
    ])
  })

  test('covers every route of app.routes, and nothing else', () => {
    const walked = productionApp().routes
    expect(walked.length).toBeGreaterThan(20)
    const expected = new Set<string>()
    for (const route of walked) {
      const methods = route.method === 'ALL' ? ['get', 'post', 'put', 'patch', 'delete'] : [route.method.toLowerCase()]
      for (const method of methods) {
        expect(document.paths[documented(route.path)]?.[method], `${route.method} ${route.path}`).toBeDefined()
        expected.add(documented(route.path))
      }
    }
    expect(document.paths['/api/openapi.json']?.get).toBeDefined()
    expect(Object.keys(document.paths).sort()).toEqual([...expected].sort())
  })

  test('describes the error envelope with every error code', () => {
    const envelope = document.components.schemas.ErrorEnvelope
    expect(envelope.required).toEqual(['error', 'message'])
    expect([...envelope.properties.error.enum].sort()).toEqual([...ERROR_CODES].sort())
    for (const item of Object.values(document.paths) as Record<string, any>[]) {
      for (const op of Object.values(item)) expect(op.responses.default.$ref).toBe('#/components/responses/Error')
    }
  })

  test('carries the route schemas: the settings write body and the revoke body', () => {
    const write = document.paths['/api/settings'].post
    expect(write.requestBody.content['application/json'].schema.properties.key).toBeDefined()
    // The service refuses a field it does not take (a misspelt `encrypt`), and the document says so.
    expect(write.requestBody.content['application/json'].schema.additionalProperties).toBe(false)
    expect(document.paths['/api/encrypt'].post.requestBody.content['application/json'].schema.additionalProperties).toBe(false)
    const revoke = document.paths['/api/security/sessions/revoke'].post
    expect(revoke.requestBody.content['application/json'].schema.properties.identity_id).toBeDefined()
    expect(revoke.security).toEqual([{ sessionCookie: [] }])
    expect(Object.keys(revoke.responses).sort()).toEqual(['204', 'default'])
    expect(document.paths['/api/health'].get.security).toEqual([])
  })

  test('is admin only: anonymous 401, viewer 403', async () => {
    const anonymous = await fetch(`${stack.service.url}/api/openapi.json`)
    expect(anonymous.status).toBe(401)
    expect((await anonymous.json()).error).toBe('not_authenticated')
    const viewer = await fetch(`${stack.service.url}/api/openapi.json`, { headers: { cookie: stack.cookie.viewer } })
    expect(viewer.status).toBe(403)
    expect((await viewer.json()).error).toBe('forbidden')
  })
})

// The document held to the behaviour: what the handlers read, refuse and answer.

type Operation = { parameters: Parameter[]; responses: Record<string, any>; requestBody?: any }
type Parameter = { name: string; in: string; required: boolean; description?: string; example?: string; schema: Record<string, any>; 'x-error-code'?: string }

const operationOf = (method: string, path: string): Operation => document.paths[documented(path)][method.toLowerCase()]
const queryOf = (method: string, path: string) => operationOf(method, path).parameters.filter((p) => p.in === 'query')

/** Validates a JSON answer against a documented schema, its `$ref`s resolved in the document's components. */
function schemaCheck(schema: Record<string, unknown>): (value: unknown) => string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats(ajv)
  const validate = ajv.compile({ ...schema, components: document.components })
  return (value) => (validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`))
}

const SRC = join(import.meta.dir, '..', 'src')
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  )
}

/** Where a handler's query is read by hand, and which routes' queries that file reads. */
const QUERY_READERS: Record<string, string[]> = {
  'identities/model.ts': ['GET /api/identities'],
  'security/audit-query.ts': ['GET /api/security/audit'],
  'support/geo-routes.ts': ['GET /api/geo'],
  'support/session-locations-routes.ts': ['GET /api/session-locations'],
  'auth/index.ts': ['GET /api/auth/login', 'GET /api/auth/callback'],
  'settings/index.ts': ['GET /api/settings', 'GET /api/settings/:key'],
}
/** Files that read query strings that are not a request's: the helpers themselves, upstream links, connection URLs. */
const NOT_REQUEST_QUERIES = new Set(['http/query.ts', 'upstream/client.ts', 'upstream/link.ts', 'config.ts', 'db/postgres-storage.ts'])
const QUERY_READ = /(?:searchParams\.(?:get|getAll|has)\(|\bsingle\(|singleParam\(\s*request\s*,\s*|integerParam\(\s*request\s*,\s*)'([^']+)'/g

describe('the document describes what the handlers read', () => {
  test('every route has an entry in the documentation table (proxied prefixes excepted), and the table nothing else', () => {
    const routes = productionApp().routes.filter((route) => route.method !== 'ALL').map((route) => `${route.method} ${route.path}`)
    expect(Object.keys(ROUTE_DOCUMENTATION).sort()).toEqual([...new Set(routes)].sort())
  })

  test('every query parameter read by hand in src/ is documented on the routes that read it', () => {
    let reads = 0
    for (const file of sourceFiles(SRC)) {
      const name = relative(SRC, file)
      const found = [...readFileSync(file, 'utf8').matchAll(QUERY_READ)].map((m) => m[1]!)
      if (found.length === 0 || NOT_REQUEST_QUERIES.has(name)) continue
      const routes = QUERY_READERS[name]
      expect(routes, `${name} reads query parameters ${found.join(', ')}: list its routes in QUERY_READERS`).toBeDefined()
      const documentedNames = new Set(routes!.flatMap((route) => queryOf(route.split(' ')[0]!, route.split(' ')[1]!).map((p) => p.name)))
      for (const parameter of found) {
        expect(documentedNames.has(parameter), `${parameter} (read in ${name})`).toBe(true)
        reads++
      }
    }
    expect(reads).toBeGreaterThanOrEqual(13)
  })

  test('the hand-checked parameters and bodies of the review are all there', () => {
    const names = (method: string, path: string) => queryOf(method, path).map((p) => p.name).sort()
    expect(names('GET', '/api/identities')).toEqual(['credentials_identifier', 'page_size', 'page_token'])
    expect(names('GET', '/api/geo')).toEqual(['ip'])
    expect(names('GET', '/api/session-locations')).toEqual(['days'])
    expect(names('GET', '/api/security/audit')).toEqual(['about', 'action', 'actor', 'before', 'limit', 'request_id'])
    expect(names('GET', '/api/auth/login')).toEqual(['prompt', 'return_to'])
    // `error_description` and `iss` are read by oauth4webapi's validateAuthResponse, not by a line of ours.
    expect(names('GET', '/api/auth/callback')).toEqual(['code', 'error', 'error_description', 'iss', 'state'])
    const identities = Object.fromEntries(queryOf('GET', '/api/identities').map((p) => [p.name, p.schema]))
    expect(identities.page_size).toEqual({ type: 'integer', minimum: 1, maximum: 250, default: 25 })
    expect(identities.page_token!.maxLength).toBe(2048)
    expect(identities.credentials_identifier!.maxLength).toBe(255)
    const layout = operationOf('PUT', '/api/dashboard/layout').requestBody.content['application/json'].schema
    expect(layout.required).toEqual(['layout'])
    expect(layout.properties.layout.type).toBe('object')
    expect(layout.properties.layout.description).toContain('65536 bytes')
  })

  test('every bounded query parameter: just inside is accepted, just outside is refused with 400 and its documented code', async () => {
    const cases: { path: string; query: string; inside: boolean; code?: string }[] = []
    for (const [path, item] of Object.entries(document.paths) as [string, Record<string, Operation>][]) {
      const parameters = item.get?.parameters.filter((p) => p.in === 'query' && p['x-error-code']) ?? []
      // Other required parameters take their example, so each case varies one parameter.
      const base = new URLSearchParams(parameters.filter((p) => p.required).map((p) => [p.name, p.example ?? 'a']))
      const withValue = (name: string, ...values: string[]) => {
        const query = new URLSearchParams(base)
        query.delete(name)
        for (const value of values) query.append(name, value)
        return query.toString()
      }
      for (const p of parameters) {
        const s = p.schema
        const add = (inside: boolean, ...values: string[]) => cases.push({ path, query: withValue(p.name, ...values), inside, code: p['x-error-code'] })
        const plain = p.example ?? 'a'
        if (!s.enum) add(true, s.type === 'integer' ? String(s.default ?? s.minimum) : plain)
        if (s.type === 'integer') {
          add(true, String(s.minimum))
          add(true, String(s.maximum))
          add(false, String(s.minimum - 1))
          add(false, String(s.maximum + 1))
          add(false, `${s.minimum}.5`)
        }
        if (s.maxLength !== undefined) {
          add(true, plain.repeat(s.maxLength))
          add(false, plain.repeat(s.maxLength + 1))
        }
        if (s.minLength !== undefined) add(false, plain.repeat(s.minLength - 1))
        if (s.enum) {
          for (const value of s.enum) add(true, value)
          add(false, `not_${s.enum[0]}`)
        }
        if (s.pattern) {
          const pattern = new RegExp(s.pattern, 'u')
          expect(pattern.test(plain)).toBe(true)
          add(true, plain)
          add(false, [' ', '\u0001', '\u0085'].find((text) => !pattern.test(text))!)
        }
        if (p.required) cases.push({ path, query: withValue(p.name), inside: false, code: p['x-error-code'] })
        if (p.description?.includes('at most once')) add(false, plain, plain)
      }
    }
    expect(cases.length).toBeGreaterThan(40)
    for (const { path, query, inside, code } of cases) {
      const asked = stack.kratos.calls.length
      const response = await fetch(`${stack.service.url}${path}?${query}`, { headers: { cookie: stack.cookie.admin } })
      const body = (await response.json()) as { error?: string }
      const upstreamAsked = stack.kratos.calls.length > asked
      if (inside) {
        // Accepted: answered, or passed on to the identity store (which may not know an invented page token).
        expect(response.ok || upstreamAsked, `${path}?${query} → ${response.status} ${body.error}`).toBe(true)
      } else {
        expect([response.status, body.error, upstreamAsked], `${path}?${query}`).toEqual([400, code, false])
      }
    }
  })
})

/** A request that succeeds, for the status (and JSON body) it answers. */
interface Probe {
  method: string
  /** The route as in app.routes. */
  route: string
  url?: string
  body?: unknown
  cookie?: 'admin' | 'fresh' | 'none'
}

const PROBES: Probe[] = [
  { method: 'GET', route: '/api/health', cookie: 'none' },
  { method: 'GET', route: '/api/auth/login', url: '/api/auth/login?return_to=%2Fdashboard%2Fidentities', cookie: 'none' },
  // A state that matches no flow cookie: back to the login. (A completed login is the same 302, test/login.test.ts.)
  { method: 'GET', route: '/api/auth/callback', url: '/api/auth/callback?state=s&code=c', cookie: 'none' },
  { method: 'GET', route: '/api/auth/session' },
  { method: 'POST', route: '/api/auth/logout', cookie: 'fresh' },
  { method: 'GET', route: '/dashboard/assets/*', url: `/dashboard/assets/${ENTRY.script}`, cookie: 'none' },
  { method: 'GET', route: '/dashboard', cookie: 'none' },
  { method: 'GET', route: '/dashboard/*', url: '/dashboard/identities', cookie: 'none' },
  { method: 'GET', route: '/', cookie: 'none' },
  { method: 'POST', route: '/api/security/sessions/revoke', body: { identity_id: 'nobody' } },
  { method: 'GET', route: '/api/security/posture' },
  { method: 'POST', route: '/api/settings', body: { key: 'openapi.probe', value: 'v', category: 'probes' } },
  { method: 'POST', route: '/api/settings', body: { key: 'openapi.probe', value: 'w', encrypted: true } },
  { method: 'GET', route: '/api/settings' },
  { method: 'GET', route: '/api/settings/:key', url: '/api/settings/openapi.probe' },
  { method: 'GET', route: '/api/settings/:key', url: '/api/settings/openapi.probe?decrypt=true' },
  { method: 'DELETE', route: '/api/settings/:key', url: '/api/settings/openapi.probe' },
  { method: 'POST', route: '/api/encrypt', body: { value: 'v' } },
  { method: 'GET', route: '/api/identities', url: '/api/identities?page_size=1' },
  { method: 'GET', route: '/api/dashboard/layout' },
  { method: 'PUT', route: '/api/dashboard/layout', body: { layout: { widgets: ['map'] } } },
  { method: 'GET', route: '/api/geo', url: '/api/geo?ip=8.8.8.8' },
  { method: 'GET', route: '/api/session-locations' },
  { method: 'GET', route: '/api/services/health' },
  { method: 'GET', route: '/api/connections/social', cookie: 'none' },
  { method: 'GET', route: '/api/config' },
  { method: 'GET', route: '/api/openapi.json' },
  // Last, so the page holds the events of the writes above.
  { method: 'GET', route: '/api/security/audit', url: '/api/security/audit?limit=200' },
]

describe('the document describes what the handlers answer', () => {
  test('every operation lists exactly the success statuses the app answers, and each JSON answer fits its schema', async () => {
    const observed = new Map<string, Set<string>>()
    for (const probe of PROBES) {
      const cookie = probe.cookie === 'none' ? undefined : probe.cookie === 'fresh' ? stack.freshCookie('admin') : stack.cookie.admin
      const headers: Record<string, string> = cookie ? { cookie } : {}
      if (probe.body !== undefined) headers['content-type'] = 'application/json'
      const response = await fetch(`${stack.service.url}${probe.url ?? probe.route}`, {
        method: probe.method,
        headers,
        body: probe.body === undefined ? undefined : JSON.stringify(probe.body),
        redirect: 'manual',
      })
      const where = `${probe.method} ${probe.url ?? probe.route}`
      expect(response.status, where).toBeLessThan(400)
      const status = String(response.status)
      const key = `${probe.method} ${probe.route}`
      observed.set(key, (observed.get(key) ?? new Set()).add(status))
      const answer = operationOf(probe.method, probe.route).responses[status]
      expect(answer, `${where} answered ${status}`).toBeDefined()
      if (answer.headers?.Location) expect(response.headers.get('location'), where).toBeTruthy()
      const schema = answer.content?.['application/json']?.schema
      if (schema) {
        expect(response.headers.get('content-type'), where).toContain('application/json')
        expect(schemaCheck(schema)(await response.json()), where).toEqual([])
      } else if (answer.content) {
        const type = response.headers.get('content-type')!.split(';')[0]!
        expect(Object.keys(answer.content), where).toContain(type)
      } else {
        expect(await response.text(), where).toBe('')
      }
    }
    for (const route of Object.keys(ROUTE_DOCUMENTATION)) {
      const [method, path] = route.split(' ') as [string, string]
      const successes = Object.keys(operationOf(method, path).responses).filter((status) => status !== 'default')
      expect([...(observed.get(route) ?? [])].sort(), route).toEqual(successes.sort())
    }
  })

  test('a proxied prefix documents the upstream\'s answer passed through', async () => {
    for (const method of ['get', 'post', 'delete']) {
      expect(Object.keys(document.paths['/api/idp-admin/{path}'][method].responses).sort()).toEqual(['2XX', '3XX', 'default'])
    }
    const response = await fetch(`${stack.service.url}/api/idp-admin/admin/identities`, { headers: { cookie: stack.cookie.admin } })
    expect(response.status).toBe(200)
    // Only the proxied prefixes say so: the dashboard's own wildcard routes are not proxied.
    expect(document.paths['/api/idp-admin/{path}'].get.description).toStartWith('Proxied to the upstream')
    expect(document.paths['/dashboard/{path}'].get.description).toBeUndefined()
    expect(document.paths['/dashboard/assets/{path}'].get.description).toBeUndefined()
  })

  test('the main answers have response schemas', () => {
    const schemaOf = (method: string, path: string, status = '200') => operationOf(method, path).responses[status].content['application/json'].schema
    expect(schemaOf('GET', '/api/settings')).toEqual({ type: 'array', items: { $ref: '#/components/schemas/Setting' } })
    expect(schemaOf('GET', '/api/settings/:key').$ref).toBe('#/components/schemas/Setting')
    expect(schemaOf('POST', '/api/settings', '201').$ref).toBe('#/components/schemas/Setting')
    expect(schemaOf('GET', '/api/identities').$ref).toBe('#/components/schemas/IdentityPage')
    expect(schemaOf('GET', '/api/auth/session').$ref).toBe('#/components/schemas/SessionInfo')
    expect(schemaOf('GET', '/api/security/audit').$ref).toBe('#/components/schemas/AuditPage')
    expect(schemaOf('GET', '/api/health').$ref).toBe('#/components/schemas/Health')
    expect(document.components.schemas.IdentityPage.required).toEqual(['identities', 'next_page_token', 'has_more'])
    expect(document.components.schemas.Setting.required).toEqual(['key', 'value', 'encrypted', 'category', 'updated_at'])
  })
})

describe('the setting limits are documented as the service counts them', () => {
  const post = (body: unknown, path = '/api/settings') =>
    fetch(`${stack.service.url}${path}`, { method: 'POST', headers: { cookie: stack.cookie.admin, 'content-type': 'application/json' }, body: JSON.stringify(body) })

  test('value: at most 65536 bytes of UTF-8, whatever maxLength says in characters', async () => {
    for (const path of ['/api/settings', '/api/encrypt']) {
      const value = operationOf('POST', path).requestBody.content['application/json'].schema.properties.value
      expect(value['x-max-utf8-bytes']).toBe(65536)
      expect(value.description).toContain('65536 bytes (64 KiB) of UTF-8')
      // 'é' is two bytes: 32768 of them are the limit, one more byte is over it at half of maxLength.
      const atLimit = 'é'.repeat(32768)
      expect(value.maxLength === undefined || atLimit.length + 1 <= value.maxLength).toBe(true)
      // Each route's own body: /api/encrypt takes only the value.
      const body = (value: string) => (path === '/api/encrypt' ? { value } : { key: 'openapi.bytes', value })
      const inside = await post(body(atLimit), path)
      expect(inside.status, path).toBeLessThan(300)
      const outside = await post(body(`${atLimit}a`), path)
      expect([outside.status, await outside.json()], path).toEqual([
        400,
        { error: 'bad_request', message: 'Invalid or missing field: value. A value is a string of at most 64 KiB (65536 bytes of UTF-8).' },
      ])
    }
  })

  test('category: maxLength 64, counted in code points as JSON Schema counts them', async () => {
    const category = operationOf('POST', '/api/settings').requestBody.content['application/json'].schema.properties.category
    const text = category.anyOf.find((branch: { type?: string }) => branch.type === 'string')
    expect(text.maxLength).toBe(64)
    // 64 characters outside the BMP: 128 UTF-16 units, still 64 for JSON Schema and for the service.
    expect(schemaCheck(category)('😀'.repeat(64))).toEqual([])
    expect((await post({ key: 'openapi.category', value: 'v', category: '😀'.repeat(64) })).status).toBeLessThan(300)
    expect(schemaCheck(category)('😀'.repeat(65))).not.toEqual([])
    expect((await post({ key: 'openapi.category', value: 'v', category: '😀'.repeat(65) })).status).toBe(400)
  })
})
