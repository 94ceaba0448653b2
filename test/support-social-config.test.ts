// GET /api/connections/social (public: ids and display names only) and GET /api/config (admin:
// the effective configuration, no URL, host, port or key).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startStack, type Stack } from './support/stack.ts'
import { startService, TestClock } from './support/service.ts'
import { markSensitive } from './support/leaks.ts'
import { within } from './support/eventually.ts'
import { openSqliteStorage } from '../src/db/sqlite-storage.ts'

let stack: Stack
const clock = new TestClock()
const SECRETS = ['gh-client-id-1234', 'gh-client-secret-5678', 'gl-client-secret-9012', 'Azure Secret Name']

beforeAll(async () => {
  stack = await startStack({ clock })
  markSensitive(...SECRETS)
  const write = (key: string, value: string, encrypted = false) => stack.service.services.settings.write({ key, value, encrypted }, null)
  await write('social.github.enabled', 'true')
  await write('social.github.display_name', 'GitHub')
  await write('social.github.client_id', 'gh-client-id-1234')
  await write('social.github.client_secret', 'gh-client-secret-5678', true)
  await write('social.google.enabled', 'true')
  await write('social.bitbucket.enabled', 'true')
  await write('social.azure.enabled', 'true')
  await write('social.azure.display_name', 'Azure Secret Name', true) // encrypted: never decrypted, the id stands in
  await write('social.gitlab.enabled', 'true', true) // an encrypted flag counts as not set
  await write('social.gitlab.client_secret', 'gl-client-secret-9012', true)
  await write('social.apple.enabled', 'false')
  await write('social.zoom.enabled', 'TRUE') // only the exact text "true" enables
  await write('social.connections_order', 'google, github,unknown,google')
  await write('socialx.other.enabled', 'true')
})
afterAll(async () => {
  await stack.stop()
})

async function social(cookie?: string, base = stack.service.url) {
  const response = await fetch(`${base}/api/connections/social`, { headers: cookie ? { cookie } : {} })
  const text = await response.text()
  return { status: response.status, text, body: JSON.parse(text) as { providers: { id: string; display_name: string }[] } }
}

describe('GET /api/connections/social', () => {
  test('anyone gets the enabled providers, in the configured order and then by id', async () => {
    const { status, body } = await social()
    expect(status).toBe(200)
    expect(body).toEqual({
      providers: [
        { id: 'google', display_name: 'google' },
        { id: 'github', display_name: 'GitHub' },
        { id: 'azure', display_name: 'azure' },
        { id: 'bitbucket', display_name: 'bitbucket' },
      ],
    })
  })

  test('a viewer and an admin see the same list', async () => {
    const anonymous = await social()
    expect(await social(stack.cookie.viewer)).toEqual(anonymous)
    expect(await social(stack.cookie.admin)).toEqual(anonymous)
  })

  test('never a client id, secret, ciphertext or any other value; nothing is decrypted', async () => {
    const decryptsBefore = (await stack.service.services.audit.list({ limit: 1000, action: 'settings_decrypt_read' })).length
    const { text } = await social()
    for (const secret of SECRETS) expect(text).not.toContain(secret)
    for (const setting of await stack.service.services.settings.list()) {
      if (setting.encrypted || setting.key.endsWith('.client_id')) expect(text).not.toContain(setting.value)
    }
    expect(text).not.toMatch(/client|secret|true|false/i)
    expect((await stack.service.services.audit.list({ limit: 1000, action: 'settings_decrypt_read' })).length).toBe(decryptsBefore)
  })

  test('disabling and enabling are seen at once, a provider new to the list included', async () => {
    const settings = stack.service.services.settings
    await settings.write({ key: 'social.bitbucket.enabled', value: 'false' }, null)
    expect((await social()).body.providers.map((p) => p.id)).toEqual(['google', 'github', 'azure'])
    await settings.write({ key: 'social.amazon.enabled', value: 'true' }, null)
    expect((await social()).body.providers.map((p) => p.id)).toEqual(['google', 'github', 'amazon', 'azure'])
    await settings.remove('social.amazon.enabled', null)
    expect((await social()).body.providers.map((p) => p.id)).toEqual(['google', 'github', 'azure'])
  })

  test('a provider enabled by another process (the command line, a replica) is listed within 1 s, not after the cache time-to-live', async () => {
    const opened = openSqliteStorage(stack.service.env.DATABASE_PATH!)
    if (!opened.ok) throw new Error(opened.error)
    const ids = async () => (await social()).body.providers.map((p) => p.id)
    try {
      expect(await ids()).not.toContain('yandex')
      const at = new Date().toISOString()
      await opened.storage.settings.upsert({ key: 'social.yandex.enabled', value: 'true', encrypted: false, category: null, updated_at: at }, () => ({
        at,
        action: 'setting_created',
        actor: 'cli',
        target: 'social.yandex.enabled',
        detail: null,
        request_id: null,
      }))
      expect(await within(1500, async () => (await ids()).includes('yandex'))).not.toBeNull()
    } finally {
      await opened.storage.close()
    }
  })

  test('HEAD works without a session; other methods are not served', async () => {
    expect((await fetch(`${stack.service.url}/api/connections/social`, { method: 'HEAD' })).status).toBe(200)
    const post = await fetch(`${stack.service.url}/api/connections/social`, { method: 'POST' })
    expect([404, 405]).toContain(post.status)
  })
})

describe('GET /api/config', () => {
  async function config(cookie: string | null, base = stack.service.url) {
    const response = await fetch(`${base}/api/config`, { headers: cookie ? { cookie } : {} })
    const text = await response.text()
    return { status: response.status, text, body: JSON.parse(text) as Record<string, unknown> }
  }

  test('an admin gets the effective configuration without any URL, host, port or key', async () => {
    const { status, body, text } = await config(stack.cookie.admin)
    expect(status).toBe(200)
    expect(body).toEqual({
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      environment: 'production',
      login_configured: true,
      encryption_available: true,
      previous_encryption_key_set: false,
      upstreams: { idp: false, 'idp-admin': true, 'iam-idp': false, 'iam-idp-admin': false, oauth: false, 'oauth-admin': false },
      geo_database: 'embedded',
      session_max_age_seconds: 28_800,
      settings_cache_ttl_seconds: 60,
      identity_recheck_seconds: 60,
      proxy_timeout_ms: 10_000,
      log_level: 'debug',
    })
    expect(text).not.toMatch(/https?:|127\.0\.0\.1|localhost|issuer\.test|admin\.test/)
    for (const name of ['SESSION_SIGNING_KEY', 'ENCRYPTION_KEY'] as const) expect(text).not.toContain(stack.service.env[name]!)
  })

  test('another deployment: development, no encryption key, a rotation under way, a custom geo database that cannot be read (the embedded one answers)', async () => {
    const other = await startService({
      env: {
        IDP_ADMIN_URL: stack.kratos.url,
        OAUTH_ADMIN_URL: 'http://hydra-admin.internal.example:4445',
        NODE_ENV: 'development',
        ENCRYPTION_KEY: '',
        ENCRYPTION_KEY_PREVIOUS: Buffer.alloc(32, 7).toString('base64'),
        GEOIP_DATABASE_PATH: '/var/lib/geo/city.mmdb',
        OAUTH_CLIENT_ID: '',
        PROXY_TIMEOUT_MS: '2500',
      },
    })
    try {
      const { body, text } = await config(`admin-session=${other.sign({ sub: stack.admin.id, role: 'admin' })}`, other.url)
      expect(body).toMatchObject({
        environment: 'development',
        login_configured: false,
        encryption_available: false,
        previous_encryption_key_set: true,
        geo_database: 'embedded',
        proxy_timeout_ms: 2500,
      })
      expect((body.upstreams as Record<string, boolean>)['oauth-admin']).toBe(true)
      expect(text).not.toMatch(/hydra|internal|4445|geo\/city|mmdb/)
    } finally {
      await other.stop()
    }
  })

  test('a viewer → 403, anonymous → 401', async () => {
    const viewer = await config(stack.cookie.viewer)
    expect(viewer.status).toBe(403)
    expect(viewer.body.error).toBe('forbidden')
    const anonymous = await config(null)
    expect(anonymous.status).toBe(401)
    expect(anonymous.body.error).toBe('not_authenticated')
  })
})
