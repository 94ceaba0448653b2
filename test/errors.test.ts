// Every 4xx/5xx is the envelope: unknown routes, wrong methods, bad bodies, oversized bodies,
// uncaught errors. Probe routes are added to the real app to reach each failure.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { t } from 'elysia'
import { createApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { openDatabase } from '../src/db/database.ts'
import { SqliteStorage } from '../src/db/sqlite-storage.ts'
import { createLogger } from '../src/log.ts'
import { serve, type RunningServer } from '../src/server.ts'
import { ERROR_CODES, codeToStatus, envelope } from '../src/http/errors.ts'
import { JSON_BODY_LIMIT } from '../src/http/body.ts'
import { signSessionCookie } from '../src/session/cookie.ts'
import { inspectResponse, leakProblems } from './support/leaks.ts'
import { isPassthrough } from '../src/proxy/passthrough.ts'
import { baseEnvironment } from './support/service.ts'
import { KratosFixture } from './support/kratos.ts'
import { rawRequest } from './support/raw-http.ts'

let running: RunningServer
let kratos: KratosFixture
let cookie: string
let url: string
const logLines: string[] = []

beforeAll(() => {
  kratos = new KratosFixture().start()
  const admin = kratos.addIdentity({ email: 'probe@example.test', role: 'admin' })
  const loaded = loadConfig(baseEnvironment({ DATABASE_PATH: ':memory:', IDP_ADMIN_URL: kratos.url }))
  if (!loaded.ok) throw new Error(loaded.errors.join())
  const opened = openDatabase(':memory:')
  if (!opened.ok) throw new Error(opened.error)
  const log = createLogger('debug', (line) => void logLines.push(line))
  const { app, handle } = createApp({ config: loaded.config, storage: new SqliteStorage(opened.db), log })
  app
    .post('/api/probe/body', ({ body }) => body, { body: t.Object({ key: t.String(), value: t.String() }) })
    .get('/api/probe/throw', () => {
      throw new Error('connect ECONNREFUSED db.internal.example:5432')
    })
    .get('/api/probe/throw-value', () => {
      throw { status: 418, message: 'teapot at host.internal' }
    })
  running = serve({ handle, hostname: '127.0.0.1', port: 0, log, observe: (req, res) => inspectResponse(req, res, isPassthrough) })
  url = running.url.origin
  const now = Math.floor(Date.now() / 1000)
  cookie = `admin-session=${signSessionCookie(loaded.config.sessionSigningKey, { v: 1, sid: 's', sub: admin.id, email: 'probe@example.test', role: 'admin', iat: now, exp: now + 600 })}`
})
afterAll(async () => {
  await running.stop()
  await kratos.stop()
})

async function call(path: string, init: RequestInit = {}) {
  const response = await fetch(url + path, { ...init, headers: { cookie, ...(init.headers as Record<string, string>) } })
  const text = await response.text()
  return { response, text, body: text ? JSON.parse(text) : undefined }
}

describe('the envelope for every failure', () => {
  test('unknown non-API route → 404 not_found', async () => {
    const { response, body } = await call('/no/such/page')
    expect(response.status).toBe(404)
    expect(body).toEqual({ error: 'not_found', message: 'Not found.' })
  })
  test('unknown API route with a session → 404 not_found', async () => {
    const { response, body } = await call('/api/nothing-here')
    expect(response.status).toBe(404)
    expect(body.error).toBe('not_found')
  })
  test('a known path with a wrong method → 405 with Allow', async () => {
    const { response, body } = await call('/api/health', { method: 'DELETE' })
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toBe('GET, HEAD')
    expect(body.error).toBe('method_not_allowed')
  })
  test('an unparsable JSON body → 400 bad_request', async () => {
    const { response, body } = await call('/api/probe/body', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"key": "secret-value-123' })
    expect(response.status).toBe(400)
    expect(body.error).toBe('bad_request')
    expect(JSON.stringify(body)).not.toContain('secret-value-123')
  })
  test('a body that is not JSON → 400 bad_request', async () => {
    const { response, body } = await call('/api/probe/body', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'key=1' })
    expect(response.status).toBe(400)
    expect(body.error).toBe('bad_request')
  })
  test('a missing field → 400 bad_request naming the field, without echoing the submission', async () => {
    const { response, body } = await call('/api/probe/body', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ value: 'submitted-secret' }) })
    expect(response.status).toBe(400)
    expect(body).toEqual({ error: 'bad_request', message: 'Invalid or missing field: key.' })
  })
  test('an undeclared field name is never repeated', async () => {
    const { body } = await call('/api/probe/body', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: 1, value: 'v', '<script>': 1 }) })
    expect(body.error).toBe('bad_request')
    expect(JSON.stringify(body)).not.toContain('script')
  })
  test('a body over the limit → 413 payload_too_large (declared length)', async () => {
    const { response, body } = await call('/api/probe/body', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: 'k', value: 'x'.repeat(JSON_BODY_LIMIT) }) })
    expect(response.status).toBe(413)
    expect(body.error).toBe('payload_too_large')
  })
  test('a chunked body over the limit → 413 payload_too_large', async () => {
    const big = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 40; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(10_000)))
        controller.close()
      },
    })
    const { response, body } = await call('/api/probe/body', { method: 'POST', headers: { 'content-type': 'application/json' }, body: big })
    expect(response.status).toBe(413)
    expect(body.error).toBe('payload_too_large')
  })
  test('an uncaught error → 500 internal_error, with nothing of the exception', async () => {
    const { response, body, text } = await call('/api/probe/throw')
    expect(response.status).toBe(500)
    expect(body).toEqual({ error: 'internal_error', message: 'Something unexpected happened.' })
    expect(text).not.toContain('ECONNREFUSED')
    const logged = logLines.find((line) => line.includes('unhandled_error'))!
    expect(logged).toContain('/api/probe/throw')
    // The line that explains the 500 names the request the client was answered for.
    expect(JSON.parse(logged).request_id).toBe(response.headers.get('x-request-id'))
    expect(logged).not.toContain('db.internal')
  })
  test('a thrown status-like value → its client error envelope, and a log line saying so (an error of ours may be behind it), naming no text of it', async () => {
    const { response, text } = await call('/api/probe/throw-value')
    expect(response.status).toBe(400)
    expect(text).not.toContain('teapot')
    const logged = logLines.find((line) => line.includes('"error_with_status"') && line.includes(response.headers.get('x-request-id')!))
    expect(logged).toBeDefined()
    expect(JSON.parse(logged!)).toMatchObject({ level: 'warn', path: '/api/probe/throw-value', status: 418 })
    expect(logged).not.toContain('teapot')
  })
  test('a request Bun cannot parse is answered without a stack trace', async () => {
    const response = await rawRequest(url, 'GET /api/health HTTP/1.1', { 'Content-Length': 'abc' })
    expect(response.body).not.toContain(' at ')
  })
})

describe('the catalogue', () => {
  test('every code has a status, a message, and passes the leak check', () => {
    for (const code of ERROR_CODES) {
      const body = envelope(code)
      expect(leakProblems(codeToStatus(code), 'application/json', JSON.stringify(body))).toEqual([])
    }
  })
  test('the spec’s codes keep their status and text', () => {
    expect(codeToStatus('not_authenticated')).toBe(401)
    expect(codeToStatus('forbidden')).toBe(403)
    expect(envelope('proxy_error')).toEqual({ error: 'proxy_error', message: 'An unexpected error occurred.' })
    expect(envelope('bad_gateway')).toEqual({ error: 'bad_gateway', message: 'Unable to reach upstream service.' })
    expect(envelope('gateway_timeout')).toEqual({ error: 'gateway_timeout', message: 'Upstream service did not respond within the timeout window.' })
    expect(envelope('bad_request').hint).toBeUndefined()
  })
})
