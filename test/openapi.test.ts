// GET /api/openapi.json: a valid OpenAPI 3.1 document, admin only, covering every registered route.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Validator } from '@seriousme/openapi-schema-validator'
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
    const revoke = document.paths['/api/security/sessions/revoke'].post
    expect(revoke.requestBody.content['application/json'].schema.properties.identity_id).toBeDefined()
    expect(revoke.security).toEqual([{ adminSession: [] }])
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
