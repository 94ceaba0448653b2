// Trust markers from the client change nothing; cross-site writes are refused; headers on every answer.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { rawRequest } from './support/raw-http.ts'
import { startStack, type Stack } from './support/stack.ts'

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
})
afterAll(async () => {
  await stack.stop()
})

const TRUST_MARKERS: Record<string, string>[] = [
  { 'x-user-role': 'admin' },
  { 'X-User-Role': 'admin', 'x-role': 'admin', 'x-admin': 'true' },
  { 'x-middleware-subrequest': 'middleware:middleware:middleware:middleware:middleware' },
  { 'x-middleware-subrequest': 'src/middleware' },
  { 'X-Original-URL': '/api/health' },
  { 'X-Rewrite-URL': '/api/health' },
  { 'X-Forwarded-Uri': '/api/health', 'X-Forwarded-Prefix': '/api/health' },
  { 'X-Forwarded-For': '127.0.0.1', 'X-Real-IP': '127.0.0.1', Forwarded: 'for=127.0.0.1;proto=https' },
  { 'X-Forwarded-Host': 'admin.test', 'X-Forwarded-Proto': 'https' },
  { 'User-Agent': 'kube-probe/1.29 healthcheck' },
  { 'X-HTTP-Method-Override': 'GET', 'X-Method-Override': 'GET' },
  { x_user_role: 'admin', X_Original_URL: '/api/health' },
  { authorization: 'Bearer anything' },
]

describe('client headers never change a decision', () => {
  for (const headers of TRUST_MARKERS) {
    const label = Object.keys(headers).join(', ')
    test(`anonymous with ${label} → 401`, async () => {
      const response = await rawRequest(stack.service.url, 'GET /api/settings HTTP/1.1', headers)
      expect(response.status).toBe(401)
    })
    test(`viewer with ${label} → 403`, async () => {
      const response = await rawRequest(stack.service.url, 'DELETE /api/settings/some.key HTTP/1.1', { ...headers, cookie: stack.cookie.viewer })
      expect(response.status).toBe(403)
    })
  }
})

describe('every method meets the same gate', () => {
  for (const method of ['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE', 'TRACE', 'PROPFIND']) {
    test(`anonymous ${method} /api/settings → 401`, async () => {
      const response = await rawRequest(stack.service.url, `${method} /api/settings HTTP/1.1`)
      expect(response.status).toBe(401)
    })
    test(`viewer ${method} /api/security/anything → 403`, async () => {
      const response = await rawRequest(stack.service.url, `${method} /api/security/anything HTTP/1.1`, { cookie: stack.cookie.viewer })
      expect(response.status).toBe(403)
    })
  }
})

test('a method Bun does not know is dropped before any handler', async () => {
  const response = await rawRequest(stack.service.url, 'FOO /api/settings HTTP/1.1', { cookie: stack.cookie.viewer })
  // Bun's parser closes the connection without an answer (status NaN) or answers 400 itself.
  expect(Number.isNaN(response.status) || response.status === 400).toBe(true)
})

describe('cross-site state-changing requests are refused (decisions §11)', () => {
  const post = (path: string, headers: Record<string, string>) =>
    fetch(stack.service.url + path, {
      method: 'POST',
      headers: { cookie: stack.cookie.admin, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ identity_id: 'x' }),
    })

  test('a foreign Origin → 403', async () => {
    const response = await post('/api/security/sessions/revoke', { origin: 'https://evil.example' })
    expect(response.status).toBe(403)
    // Not the role refusal's "contact an administrator": access is not what is missing.
    expect(await response.json()).toEqual({ error: 'forbidden', message: 'Cross-site requests are not allowed.', hint: 'Make the change from the dashboard itself, at its own address.' })
  })
  test('Sec-Fetch-Site: cross-site → 403, even without Origin', async () => {
    const response = await post('/api/security/sessions/revoke', { 'sec-fetch-site': 'cross-site' })
    expect(response.status).toBe(403)
  })
  test('Sec-Fetch-Site: same-site (a sibling host of the site) → 403, even without Origin', async () => {
    expect((await post('/api/security/sessions/revoke', { 'sec-fetch-site': 'same-site' })).status).toBe(403)
    const logout = await fetch(stack.service.url + '/api/auth/logout', { method: 'POST', headers: { cookie: stack.freshCookie('viewer'), 'sec-fetch-site': 'same-site' } })
    expect(logout.status).toBe(403)
  })
  test('the null origin of a sandboxed frame → 403', async () => {
    expect((await post('/api/security/sessions/revoke', { origin: 'null' })).status).toBe(403)
  })
  test('an admin-proxy write from another site → 403', async () => {
    const response = await fetch(stack.service.url + '/api/idp-admin/admin/identities', {
      method: 'POST',
      headers: { cookie: stack.cookie.admin, origin: 'https://evil.example' },
      body: '{}',
    })
    expect(response.status).toBe(403)
  })
  test('the same origin passes the gate', async () => {
    const response = await post('/api/security/sessions/revoke', { origin: 'http://admin.test', 'sec-fetch-site': 'same-origin' })
    expect(response.status).not.toBe(403)
  })
  test('reads are not affected', async () => {
    const response = await fetch(stack.service.url + '/api/security/audit', { headers: { cookie: stack.cookie.admin, origin: 'https://evil.example' } })
    expect(response.status).not.toBe(403)
  })
  test('logout (a public path) from another origin, a sibling of the same site included, → 403, and the session lives on', async () => {
    const cookie = stack.freshCookie('viewer')
    const attempts: Record<string, string>[] = [{ origin: 'https://evil.example' }, { origin: 'http://sibling.admin.test', 'sec-fetch-site': 'same-site' }, { 'sec-fetch-site': 'cross-site' }]
    for (const headers of attempts) {
      const response = await fetch(stack.service.url + '/api/auth/logout', { method: 'POST', headers: { cookie, ...headers } })
      expect(response.status).toBe(403)
      expect(await response.json()).toEqual({ error: 'forbidden', message: 'Cross-site requests are not allowed.', hint: 'Make the change from the dashboard itself, at its own address.' })
      expect(response.headers.get('set-cookie')).toBeNull()
    }
    expect((await fetch(stack.service.url + '/api/auth/session', { headers: { cookie } })).status).toBe(200)
    const own = await fetch(stack.service.url + '/api/auth/logout', { method: 'POST', headers: { cookie, origin: 'http://admin.test', 'sec-fetch-site': 'same-origin' } })
    expect(own.status).toBe(204)
    expect((await fetch(stack.service.url + '/api/auth/session', { headers: { cookie } })).status).toBe(401)
  })
})

describe('security headers', () => {
  const expected = {
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
  }
  for (const [label, path, cookie] of [
    ['a public answer', '/api/health', undefined],
    // Plain JSON values answered through the prepared header set (answerPlainValue in gate.ts).
    ['a signed-in JSON answer', '/api/auth/session', 'viewer'],
    ['an admin JSON answer', '/api/settings', 'admin'],
    ['a 401', '/api/settings', undefined],
    ['a 403', '/api/settings', 'viewer'],
    ['a 404', '/api/no-such-route', 'admin'],
    ['a non-API 404', '/favicon.ico', undefined],
  ] as const) {
    test(`on ${label}`, async () => {
      const response = await fetch(stack.service.url + path, { headers: cookie ? { cookie: stack.cookie[cookie] } : {} })
      for (const [name, value] of Object.entries(expected)) expect(response.headers.get(name)).toBe(value)
      expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
      if (path.startsWith('/api/')) expect(response.headers.get('content-type')).toStartWith('application/json')
    })
  }
})
