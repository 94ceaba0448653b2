// The operator UI is served by the service itself: the shell on every /dashboard path, the
// bundled assets under /dashboard/assets/ with immutable caching, all through the gate.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startStack, type Stack } from './support/stack.ts'
import { rawRequest } from './support/raw-http.ts'
import { ENTRY } from '../src/dashboard/assets.generated.ts'

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
})
afterAll(() => stack.stop())

test('every /dashboard path answers the shell, no-store, with exactly the CSP, to anyone', async () => {
  for (const path of ['/dashboard', '/dashboard/', '/dashboard/identities', '/dashboard/identities/8f4e2a6c-1234', '/dashboard/no/such/page']) {
    const response = await fetch(`${stack.service.url}${path}`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(response.headers.get('content-security-policy')).toBe(CSP)
    expect(response.headers.get('cross-origin-opener-policy')).toBe('same-origin')
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    const html = await response.text()
    expect(html).toContain(`<script type="module" src="/dashboard/assets/${ENTRY.script}"></script>`)
    expect(html).toContain(`<link rel="stylesheet" href="/dashboard/assets/${ENTRY.style}">`)
    expect(html).not.toMatch(/<script>|<style>|style=|https?:\/\//)
  }
})

test('the shell holds no data: the same bytes with and without a session', async () => {
  const anonymous = await (await fetch(`${stack.service.url}/dashboard/identities`)).text()
  const admin = await (await fetch(`${stack.service.url}/dashboard/identities`, { headers: { cookie: stack.cookie.admin } })).text()
  expect(admin).toBe(anonymous)
})

test('assets are cached for a year as immutable, with their type', async () => {
  for (const [name, type] of [
    [ENTRY.script, 'text/javascript; charset=utf-8'],
    [ENTRY.style, 'text/css; charset=utf-8'],
  ] as const) {
    expect(name).toMatch(/^main\.[a-z0-9]+\.(js|css)$/)
    const response = await fetch(`${stack.service.url}/dashboard/assets/${name}`)
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(response.headers.get('content-type')).toBe(type)
    expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(100)
  }
})

test('an unknown asset is a 404 with the error envelope, never the shell', async () => {
  for (const path of ['/dashboard/assets/main.00000000.js', '/dashboard/assets/', '/dashboard/assets/main.js']) {
    const response = await rawRequest(stack.service.url, `GET ${path} HTTP/1.1`)
    expect(response.status).toBe(404)
    expect(response.headers['content-type']).toContain('application/json')
    expect(JSON.parse(response.body)).toMatchObject({ error: 'not_found' })
    expect(response.headers['cache-control']).toBe('no-store')
  }
})

test('/ redirects to /dashboard', async () => {
  const response = await fetch(`${stack.service.url}/`, { redirect: 'manual' })
  expect(response.status).toBe(302)
  expect(response.headers.get('location')).toBe('/dashboard')
})
