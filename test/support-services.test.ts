// GET /api/services/health: every upstream prefix, configured or not, asked concurrently within
// the timeout; names only, never where an upstream lives.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { KratosFixture, type FixtureIdentity } from './support/kratos.ts'
import { startService, type TestService } from './support/service.ts'
import { markSensitive } from './support/leaks.ts'

// Long enough that the healthy fixtures answer well within it on a loaded machine; the slow
// upstream answers after three of it.
const TIMEOUT_MS = 1000
let store: KratosFixture
let publicUpstream: KratosFixture
let slow: KratosFixture
let odd: ReturnType<typeof Bun.serve>
let service: TestService
let admin: FixtureIdentity
let viewer: FixtureIdentity
const cookie = { admin: '', viewer: '' }

beforeAll(async () => {
  store = new KratosFixture().start()
  publicUpstream = new KratosFixture().start()
  slow = new KratosFixture().start()
  slow.delayMs = TIMEOUT_MS * 3
  // An upstream that is up but unwell, with a version string that is not one.
  odd = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: (request) =>
      new URL(request.url).pathname === '/version'
        ? Response.json({ version: '<img src=x onerror=alert(1)>' })
        : Response.json({ status: 'starting' }, { status: 503 }),
  })
  admin = store.addIdentity({ email: 'svc.admin@example.test', role: 'admin' })
  viewer = store.addIdentity({ email: 'svc.viewer@example.test', role: 'viewer' })
  const urls = [store.url, publicUpstream.url, slow.url, `http://127.0.0.1:${odd.port}`]
  markSensitive(admin.id, viewer.id, ...urls, ...urls.map((u) => String(new URL(u).port)))
  service = await startService({
    env: {
      IDP_PUBLIC_URL: publicUpstream.url,
      IDP_ADMIN_URL: store.url,
      IAM_IDP_PUBLIC_URL: 'http://127.0.0.1:9', // nothing listens there
      IAM_IDP_ADMIN_URL: store.url,
      OAUTH_PUBLIC_URL: `http://127.0.0.1:${odd.port}/`,
      OAUTH_ADMIN_URL: slow.url,
      PROXY_TIMEOUT_MS: String(TIMEOUT_MS),
    },
  })
  cookie.admin = `admin-session=${service.sign({ sub: admin.id, role: 'admin' })}`
  cookie.viewer = `admin-session=${service.sign({ sub: viewer.id, role: 'viewer' })}`
})
afterAll(async () => {
  await service.stop()
  await Promise.all([store.stop(), publicUpstream.stop(), slow.stop(), odd.stop(true)])
})

async function health(who: string | null, base = service.url) {
  const response = await fetch(`${base}/api/services/health`, { headers: who ? { cookie: who } : {} })
  const text = await response.text()
  return { status: response.status, text, body: JSON.parse(text) as Record<string, any> }
}

describe('happy path', () => {
  test('each prefix by name: configured, healthy, version', async () => {
    const started = performance.now()
    const { status, body, text } = await health(cookie.viewer)
    const elapsed = performance.now() - started
    expect(status).toBe(200)
    // Every answering upstream reports how long its /health/alive took.
    for (const service of body.services) if (service.healthy) expect(service.response_ms).toBeGreaterThanOrEqual(0)
    for (const service of body.services) delete service.response_ms
    expect(body).toEqual({
      services: [
        { name: 'idp', configured: true, healthy: true, version: 'v26.2.0' },
        { name: 'idp-admin', configured: true, healthy: true, version: 'v26.2.0' },
        { name: 'iam-idp', configured: true, healthy: false, version: null },
        { name: 'iam-idp-admin', configured: true, healthy: true, version: 'v26.2.0' },
        { name: 'oauth', configured: true, healthy: false, version: null },
        { name: 'oauth-admin', configured: true, healthy: false, version: null },
      ],
    })
    // All at once: the slow upstream costs one timeout, not one per call (its two calls one after
    // the other would take two).
    expect(elapsed).toBeLessThan(TIMEOUT_MS * 2)
    // No upstream's address: no host, no scheme, no host:port (a field's `"response_ms":12` is not one).
    expect(text).not.toMatch(/127\.0\.0\.1|localhost|https?:|[\w.\]]:\d{1,5}\b/)
  })

  test('an admin may ask too; an unset upstream is reported as not configured', async () => {
    const bare = await startService({ env: { IDP_ADMIN_URL: store.url } })
    try {
      const { status, body } = await health(`admin-session=${bare.sign({ sub: admin.id, role: 'admin' })}`, bare.url)
      expect(status).toBe(200)
      expect(body.services.filter((s: { configured: boolean }) => s.configured).map((s: { name: string }) => s.name)).toEqual(['idp-admin'])
      expect(body.services.find((s: { name: string }) => s.name === 'oauth')).toEqual({ name: 'oauth', configured: false, healthy: false, version: null, response_ms: null })
    } finally {
      await bare.stop()
    }
  })

  test('admin prefixes send their API key, public prefixes none', async () => {
    const key = 'svc-admin-key-0123456789'
    markSensitive(key)
    await service.services.settings.write({ key: 'proxy.idp-admin.api_key', value: key, encrypted: true }, null)
    await service.services.settings.write({ key: 'proxy.idp.api_key', value: 'public-key-must-not-go', encrypted: true }, null)
    store.calls.length = 0
    publicUpstream.calls.length = 0
    await health(cookie.admin)
    const adminCalls = store.calls.filter((call) => call.path === '/health/alive' || call.path === '/version')
    expect(adminCalls.map((call) => call.headers.get('authorization'))).toContain(`Bearer ${key}`)
    const publicCalls = publicUpstream.calls.filter((call) => call.path === '/health/alive' || call.path === '/version')
    expect(publicCalls.length).toBe(2)
    for (const call of publicCalls) expect(call.headers.get('authorization')).toBeNull()
  })

  test('an admin key that cannot be decrypted: reported unhealthy, no call made without it', async () => {
    const other = await startService({ env: { IDP_ADMIN_URL: store.url, OAUTH_ADMIN_URL: slow.url, ENCRYPTION_KEY: '' } })
    try {
      // Ciphertext the service cannot open (it has no encryption key).
      other.db!
        .query("INSERT INTO settings (key, value, encrypted, category, updated_at) VALUES ('proxy.oauth-admin.api_key', 'v1.AAAA.BBBB', 1, NULL, '2026-01-01T00:00:00.000Z')")
        .run()
      slow.calls.length = 0
      const { body } = await health(`admin-session=${other.sign({ sub: admin.id, role: 'admin' })}`, other.url)
      expect(body.services.find((s: { name: string }) => s.name === 'oauth-admin')).toEqual({ name: 'oauth-admin', configured: true, healthy: false, version: null, response_ms: null })
      expect(slow.calls.length).toBe(0)
    } finally {
      await other.stop()
    }
  })
})

describe('redirects', () => {
  test('a self-hosted Kratos (admin and public ports): its admin health and version, behind the 307 to /admin, reported healthy; the key goes with them', async () => {
    const selfHosted = new KratosFixture({ selfHosted: true }).start()
    markSensitive(selfHosted.url, selfHosted.publicUrl, String(new URL(selfHosted.url).port), String(new URL(selfHosted.publicUrl).port))
    const other = await startService({ env: { IDP_ADMIN_URL: selfHosted.url, IDP_PUBLIC_URL: selfHosted.publicUrl, IAM_IDP_ADMIN_URL: store.url } })
    try {
      const key = 'self-hosted-admin-key-0123'
      markSensitive(key)
      await other.services.settings.write({ key: 'proxy.idp-admin.api_key', value: key, encrypted: true }, null)
      const { body } = await health(`admin-session=${other.sign({ sub: admin.id, role: 'admin' })}`, other.url)
      const byName = (name: string) => body.services.find((s: { name: string }) => s.name === name)
      expect(byName('idp-admin')).toMatchObject({ configured: true, healthy: true, version: 'v26.2.0' })
      expect(byName('idp')).toMatchObject({ configured: true, healthy: true, version: 'v26.2.0' })
      // The first call met the redirect; the second, under /admin, was answered, and both carried the key.
      const paths = selfHosted.calls.map((call) => call.path)
      expect(paths).toEqual(expect.arrayContaining(['/health/alive', '/admin/health/alive', '/version', '/admin/version']))
      for (const call of selfHosted.calls) expect(call.headers.get('authorization')).toBe(`Bearer ${key}`)
    } finally {
      await other.stop()
      await selfHosted.stop()
    }
  })

  test('a redirect off the upstream’s origin or out of its base path is not followed; a loop ends after a few hops', async () => {
    const elsewhere = new KratosFixture().start()
    let loops = 0
    const redirecting = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch(request) {
        const path = new URL(request.url).pathname
        if (path === '/base/health/alive') return new Response(null, { status: 307, headers: { location: `${elsewhere.url}/base/health/alive` } })
        if (path === '/base/version') return new Response(null, { status: 302, headers: { location: '/version' } })
        loops++
        return new Response(null, { status: 308, headers: { location: path } })
      },
    })
    const looping = `http://127.0.0.1:${redirecting.port}/loop`
    markSensitive(elsewhere.url, String(new URL(elsewhere.url).port), String(redirecting.port))
    const other = await startService({ env: { IDP_ADMIN_URL: `http://127.0.0.1:${redirecting.port}/base`, OAUTH_ADMIN_URL: looping, IAM_IDP_ADMIN_URL: store.url } })
    try {
      const { body } = await health(`admin-session=${other.sign({ sub: admin.id, role: 'admin' })}`, other.url)
      const byName = (name: string) => body.services.find((s: { name: string }) => s.name === name)
      expect(byName('idp-admin')).toMatchObject({ configured: true, healthy: false, version: null })
      expect(elsewhere.calls).toEqual([])
      expect(byName('oauth-admin')).toMatchObject({ configured: true, healthy: false, version: null })
      // Two paths (health and version), each asked once and then at most three more times.
      expect(loops).toBe(8)
    } finally {
      await other.stop()
      await elsewhere.stop()
      await redirecting.stop(true)
    }
  })
})

describe('errors', () => {
  test('anonymous → 401', async () => {
    const { status, body } = await health(null)
    expect(status).toBe(401)
    expect(body.error).toBe('not_authenticated')
  })

  test('other paths under /api/services/ are 404 for a signed-in caller', async () => {
    for (const [method, path] of [
      ['GET', '/api/services/other'],
      ['POST', '/api/services/anything'],
      ['GET', '/api/services'],
    ] as const) {
      const response = await fetch(service.url + path, { method, headers: { cookie: cookie.viewer, origin: 'http://admin.test' } })
      expect([404, 405]).toContain(response.status)
    }
  })
})
