// GET/PUT /api/dashboard/layout: per identity, bounded, re-verified by the handler, durable.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { Elysia } from 'elysia'
import { startStack, type Stack } from './support/stack.ts'
import { startService, type TestService } from './support/service.ts'
import { layoutRoutes } from '../src/support/layout-routes.ts'
import { attachSession } from '../src/http/request-context.ts'
import { createErrorHandler } from '../src/http/error-handler.ts'
import { MAX_LAYOUT_BYTES } from '../src/support/layout.ts'

let stack: Stack
let restarted: TestService | null = null
beforeAll(async () => {
  stack = await startStack()
})
afterAll(async () => {
  if (restarted) {
    await restarted.stop()
    rmSync(restarted.dir, { recursive: true, force: true })
  } else {
    await stack.service.stop()
  }
  await stack.kratos.stop()
})

const url = () => `${stack.service.url}/api/dashboard/layout`

async function getLayout(cookie: string | null, base = url()) {
  const response = await fetch(base, { headers: cookie ? { cookie } : {} })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

async function putLayout(cookie: string | null, body: unknown, raw?: string) {
  const headers: Record<string, string> = { 'content-type': 'application/json', origin: 'http://admin.test' }
  if (cookie) headers.cookie = cookie
  const response = await fetch(url(), { method: 'PUT', headers, body: raw ?? JSON.stringify(body) })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

describe('happy path', () => {
  test('a viewer starts with no layout, saves one and reads it back', async () => {
    expect(await getLayout(stack.cookie.viewer)).toEqual({ status: 200, body: { layout: null } })
    const layout = { widgets: [{ id: 'map', x: 0, y: 0, w: 6, h: 4 }], theme: 'dark' }
    expect(await putLayout(stack.cookie.viewer, { layout })).toEqual({ status: 200, body: { layout } })
    expect(await getLayout(stack.cookie.viewer)).toEqual({ status: 200, body: { layout } })
  })

  test('layouts are per identity: the admin has its own, and a new session of the viewer sees the viewer’s', async () => {
    await putLayout(stack.cookie.viewer, { layout: { owner: 'viewer' } })
    expect((await getLayout(stack.cookie.admin)).body).toEqual({ layout: null })
    expect((await putLayout(stack.cookie.admin, { layout: { owner: 'admin' } })).status).toBe(200)
    expect((await getLayout(stack.freshCookie('viewer'))).body).toEqual({ layout: { owner: 'viewer' } })
    expect((await getLayout(stack.freshCookie('admin'))).body).toEqual({ layout: { owner: 'admin' } })
  })

  test('a PUT replaces the whole layout', async () => {
    await putLayout(stack.cookie.admin, { layout: { a: 1, b: 2 } })
    await putLayout(stack.cookie.admin, { layout: { c: 3 } })
    expect((await getLayout(stack.cookie.admin)).body).toEqual({ layout: { c: 3 } })
  })

  test('exactly 64 KiB serialized is accepted', async () => {
    const layout = { x: 'a'.repeat(MAX_LAYOUT_BYTES - '{"x":""}'.length) }
    expect(JSON.stringify(layout).length).toBe(MAX_LAYOUT_BYTES)
    expect((await putLayout(stack.cookie.viewer, { layout })).status).toBe(200)
    expect((await getLayout(stack.cookie.viewer)).body).toEqual({ layout })
  })
})

describe('errors', () => {
  test('anonymous GET and PUT → 401', async () => {
    expect((await getLayout(null)).body.error).toBe('not_authenticated')
    const put = await putLayout(null, { layout: {} })
    expect(put.status).toBe(401)
    expect(put.body.error).toBe('not_authenticated')
  })

  test('one byte over 64 KiB → 413 payload_too_large, and nothing is stored', async () => {
    await putLayout(stack.cookie.viewer, { layout: { kept: true } })
    const layout = { x: 'a'.repeat(MAX_LAYOUT_BYTES - '{"x":""}'.length + 1) }
    expect(await putLayout(stack.cookie.viewer, { layout })).toEqual({
      status: 413,
      body: { error: 'payload_too_large', message: expect.any(String) },
    })
    expect((await getLayout(stack.cookie.viewer)).body).toEqual({ layout: { kept: true } })
  })

  test('100 KiB (under the body limit) and 1 MB (over it) → 413', async () => {
    for (const size of [100 * 1024, 1024 * 1024]) {
      const { status, body } = await putLayout(stack.cookie.viewer, { layout: { x: 'b'.repeat(size) } })
      expect(status).toBe(413)
      expect(body.error).toBe('payload_too_large')
    }
  })

  test('multi-byte characters count as their UTF-8 bytes', async () => {
    const layout = { x: '€'.repeat(30_000) } // 30,000 characters, 90,000 bytes
    expect((await putLayout(stack.cookie.viewer, { layout })).status).toBe(413)
  })

  for (const [name, body] of [
    ['an array', { layout: [1, 2] }],
    ['a string', { layout: 'grid' }],
    ['null', { layout: null }],
    ['a number', { layout: 3 }],
    ['missing', { other: {} }],
    ['a bare array body', [{ layout: {} }]],
  ] as const) {
    test(`layout ${name} → 400 bad_request`, async () => {
      const response = await putLayout(stack.cookie.viewer, body)
      expect(response.status).toBe(400)
      expect(response.body.error).toBe('bad_request')
    })
  }

  test('a field beside layout → 400 naming the one field, and nothing stored', async () => {
    const before = await getLayout(stack.cookie.viewer)
    const refused = await putLayout(stack.cookie.viewer, { layout: { replaced: true }, x: 1 })
    expect(refused.status).toBe(400)
    expect(refused.body.message).toBe('The request body has a field this route does not take. The fields are: layout.')
    expect(await getLayout(stack.cookie.viewer)).toEqual(before)
  })

  test('malformed JSON → 400', async () => {
    const response = await putLayout(stack.cookie.viewer, undefined, '{"layout": {')
    expect(response.status).toBe(400)
    expect(response.body.error).toBe('bad_request')
  })

  test('DELETE is not served', async () => {
    const response = await fetch(url(), { method: 'DELETE', headers: { cookie: stack.cookie.viewer, origin: 'http://admin.test' } })
    expect([404, 405]).toContain(response.status)
  })
})

describe('the handler verifies the session itself', () => {
  // The plugin alone, as if a gate had passed the request through: the handler's own check decides.
  const handlerOnly = () =>
    new Elysia()
      .onError({ as: 'global' }, createErrorHandler({ debug() {}, info() {}, warn() {}, error() {}, audit() {}, request() {}, flush: async () => {} }, () => []))
      .use(layoutRoutes(stack.service.services))

  test('a request the gate marked as signed in but without a valid cookie → 401', async () => {
    const app = handlerOnly()
    for (const cookie of [null, 'admin-session=forged.value']) {
      const request = new Request('http://admin.test/api/dashboard/layout', { headers: cookie ? { cookie } : {} })
      attachSession(request, { v: 1, sid: 'x', sub: stack.viewer.id, email: 'x@example.test', role: 'viewer', iat: 0, exp: 2 ** 31 })
      const response = await app.handle(request)
      expect(response.status).toBe(401)
      expect(((await response.json()) as { error: string }).error).toBe('not_authenticated')
    }
  })

  test('a dead cookie the handler finds (revoked since the gate looked, forged) is cleared as the gate clears it; no cookie, nothing to clear', async () => {
    const app = handlerOnly()
    const revoked = stack.freshCookie('viewer')
    await fetch(`${stack.service.url}/api/auth/logout`, { method: 'POST', headers: { cookie: revoked, origin: 'http://admin.test' } })
    for (const cookie of [revoked, 'admin-session=forged.value', null]) {
      const request = new Request('http://admin.test/api/dashboard/layout', { headers: cookie ? { cookie } : {} })
      attachSession(request, { v: 1, sid: 'x', sub: stack.viewer.id, email: 'x@example.test', role: 'viewer', iat: 0, exp: 2 ** 31 })
      const response = await app.handle(request)
      expect(response.status).toBe(401)
      const cleared = response.headers.get('set-cookie')
      if (cookie === null) expect(cleared).toBeNull()
      else expect(cleared).toMatch(/^admin-session=; .*Max-Age=0/)
    }
  })

  test('a cookie of another identity than the one the gate recorded → 401', async () => {
    const app = handlerOnly()
    const request = new Request('http://admin.test/api/dashboard/layout', { headers: { cookie: stack.cookie.admin } })
    attachSession(request, { v: 1, sid: 'x', sub: stack.viewer.id, email: 'x@example.test', role: 'viewer', iat: 0, exp: 2 ** 31 })
    expect((await app.handle(request)).status).toBe(401)
  })

  test('a revoked session cannot read or write', async () => {
    const cookie = stack.freshCookie('viewer')
    expect((await getLayout(cookie)).status).toBe(200)
    await fetch(`${stack.service.url}/api/auth/logout`, { method: 'POST', headers: { cookie, origin: 'http://admin.test' } })
    expect((await getLayout(cookie)).status).toBe(401)
    expect((await putLayout(cookie, { layout: { stolen: true } })).status).toBe(401)
  })
})

test('layouts survive a restart', async () => {
  const layout = { survives: ['restart'] }
  await putLayout(stack.cookie.admin, { layout })
  await stack.service.stop({ keepDir: true })
  restarted = await startService({ dir: stack.service.dir, env: stack.service.env })
  expect((await getLayout(stack.cookie.admin, `${restarted.url}/api/dashboard/layout`)).body).toEqual({ layout })
})
