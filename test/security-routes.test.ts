// GET /api/security/audit (who did what, when; never a value) and GET /api/security/posture.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { KratosFixture, type FixtureIdentity } from './support/kratos.ts'
import { signIn, startOAuthProvider, type RunningProvider } from './support/oauth-provider.ts'
import { randomKey, startService, type TestService } from './support/service.ts'
import { markSecret, markSensitive } from './support/leaks.ts'

const BASE_URL = 'http://admin.test'
const SECRET_VALUE = 'smtp-password-never-shown-4711'
let kratos: KratosFixture
let provider: RunningProvider
let service: TestService
let admin: FixtureIdentity
let viewer: FixtureIdentity
let adminCookie = ''
let viewerCookie = ''

/** The X-Request-Id each recorded action was answered with, in the order they were done. */
const answeredIds: string[] = []

/** The real login: our /api/auth/login, the provider's form, our callback. */
async function login(email: string): Promise<string> {
  const { response, cookie } = await signIn(service.url, email)
  expect(response.status).toBe(302)
  answeredIds.push(response.headers.get('x-request-id')!)
  return cookie
}

/** A request whose audit event the trail must show, with the id it was answered with. */
async function recorded(method: string, path: string, cookie: string, body?: unknown): Promise<number> {
  const response = await send(method, path, cookie, body)
  answeredIds.push(response.headers.get('x-request-id')!)
  return response.status
}

const send = (method: string, path: string, cookie: string | null, body?: unknown) =>
  fetch(service.url + path, {
    method,
    headers: {
      origin: BASE_URL,
      ...(cookie ? { cookie } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })

async function audit(query = '', cookie: string | null = adminCookie) {
  const response = await send('GET', `/api/security/audit${query}`, cookie)
  const text = await response.text()
  return { status: response.status, text, body: JSON.parse(text) as { events: any[]; next_before: number | null; error?: string } }
}

beforeAll(async () => {
  kratos = new KratosFixture().start()
  admin = kratos.addIdentity({ email: 'audit.admin@example.test', role: 'admin' })
  viewer = kratos.addIdentity({ email: 'audit.viewer@example.test', role: 'viewer' })
  const victim = kratos.addIdentity({ email: 'audit.victim@example.test', role: 'viewer' })
  markSensitive(admin.id, viewer.id, victim.id, SECRET_VALUE, kratos.url)
  provider = await startOAuthProvider({
    clientId: 'admin-dashboard',
    redirectUris: [`${BASE_URL}/api/auth/callback`],
    findSubject: (email) => {
      const identity = [...kratos.identities.values()].find((i) => i.traits.email === email)
      return identity ? { sub: identity.id, email } : null
    },
  })
  markSensitive(provider.url)
  service = await startService({ env: { BASE_URL, OAUTH_ISSUER_URL: provider.url, OAUTH_CLIENT_ID: 'admin-dashboard', IDP_ADMIN_URL: kratos.url } })

  // One of everything the trail records, done through the routes.
  adminCookie = await login('audit.admin@example.test')
  viewerCookie = `admin-session=${service.sign({ sub: viewer.id, role: 'viewer' })}`
  expect(await recorded('POST', '/api/settings', adminCookie, { key: 'smtp.password', value: SECRET_VALUE, encrypted: true })).toBe(201)
  expect(await recorded('GET', '/api/settings/smtp.password?decrypt=true', adminCookie)).toBe(200)
  expect(await recorded('GET', '/api/identities?credentials_identifier=audit.victim%40example.test', adminCookie)).toBe(200)
  expect(await recorded('POST', '/api/security/sessions/revoke', adminCookie, { identity_id: victim.id })).toBe(204)
  const throwaway = await login('audit.viewer@example.test')
  expect(await recorded('POST', '/api/auth/logout', throwaway)).toBe(204)
})
afterAll(async () => {
  await service.stop()
  await provider.stop()
  await kratos.stop()
})

describe('GET /api/security/audit', () => {
  test('shows the login, settings write, decrypted read, identity search, revocation and logout: actor and time, never a value', async () => {
    const { status, body, text } = await audit()
    expect(status).toBe(200)
    expect(body.next_before).toBeNull()
    const actions = body.events.map((event) => event.action)
    // Newest first.
    expect(actions).toEqual(['logout', 'login', 'sessions_revoke', 'identity_search', 'settings_decrypt_read', 'settings_write', 'login'])
    const ids = body.events.map((event) => event.id)
    expect([...ids].sort((a, b) => b - a)).toEqual(ids)
    for (const event of body.events) {
      expect(Object.keys(event).sort()).toEqual(['action', 'actor', 'at', 'detail', 'id', 'request_id', 'target'])
      expect(event.at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
      expect(Date.now() - Date.parse(event.at)).toBeLessThan(60_000)
    }
    const byAction = (action: string) => body.events.find((event) => event.action === action)
    expect(byAction('settings_write')).toMatchObject({ actor: admin.id, target: 'smtp.password' })
    expect(byAction('settings_decrypt_read')).toMatchObject({ actor: admin.id, target: 'smtp.password' })
    expect(byAction('identity_search')).toMatchObject({ actor: admin.id })
    expect(byAction('sessions_revoke')).toMatchObject({ actor: admin.id })
    expect(byAction('logout')).toMatchObject({ actor: viewer.id })
    expect(body.events.filter((event) => event.action === 'login').map((event) => event.actor)).toEqual([viewer.id, admin.id])
    // Each event names the request it came in, as its answer's X-Request-Id did.
    expect(body.events.map((event) => event.request_id)).toEqual([...answeredIds].reverse())
    expect(new Set(answeredIds).size).toBe(7)
    expect(text).not.toContain(SECRET_VALUE)
    // No ciphertext either: the stored value never reaches the trail.
    const stored = (await service.services.settings.list()).find((setting) => setting.key === 'smtp.password')!
    expect(text).not.toContain(stored.value)
  })

  test('pages newest first with next_before until the oldest', async () => {
    const all = (await audit()).body.events.map((event) => event.id)
    const seen: number[] = []
    let query = '?limit=2'
    for (let page = 0; page < 10; page++) {
      const { body } = await audit(query)
      expect(body.events.length).toBeLessThanOrEqual(2)
      seen.push(...body.events.map((event) => event.id))
      if (body.next_before === null) break
      expect(body.next_before).toBe(body.events.at(-1).id)
      query = `?limit=2&before=${body.next_before}`
    }
    expect(seen).toEqual(all)
  })

  test('filters by action', async () => {
    const { body } = await audit('?action=login')
    expect(body.events.map((event) => event.action)).toEqual(['login', 'login'])
    expect((await audit('?action=settings_delete')).body).toEqual({ events: [], next_before: null })
  })

  test('filters by actor, and by actor and action together', async () => {
    const mine = (await audit(`?actor=${viewer.id}`)).body.events
    expect(mine.map((event) => event.action)).toEqual(['logout', 'login'])
    expect(mine.every((event) => event.actor === viewer.id)).toBe(true)
    expect((await audit(`?actor=${admin.id}&action=login`)).body.events.map((event) => [event.actor, event.action])).toEqual([[admin.id, 'login']])
    expect((await audit('?actor=00000000-0000-4000-8000-000000000000')).body).toEqual({ events: [], next_before: null })
  })

  test('filters by request_id: an id a person reports (the X-Request-Id of their answer) finds its event, in either letter case', async () => {
    for (const [index, id] of answeredIds.entries()) {
      const found = (await audit(`?request_id=${index % 2 ? id.toUpperCase() : id}`)).body
      expect(found.events.map((event) => event.request_id)).toEqual([id])
    }
    expect((await audit('?request_id=00000000-0000-4000-8000-000000000000')).body).toEqual({ events: [], next_before: null })
  })

  test('limit defaults to 50 and stops at 200', async () => {
    for (let i = 0; i < 60; i++) await service.services.audit.record({ action: 'identity_search', actor: admin.id, target: null, detail: { outcome: 'ok' } })
    expect((await audit()).body.events.length).toBe(50)
    expect((await audit('?limit=200')).body.events.length).toBe(67)
  })

  for (const query of ['limit=0', 'limit=201', 'limit=abc', 'limit=-1', 'limit=1.5', 'limit=', 'limit=1&limit=2', 'before=0', 'before=abc', 'before=-5', 'before=', 'action=unknown', 'action=LOGIN', 'action=', 'action=login&action=logout', 'actor=', 'actor=a%20b', 'actor=%00', `actor=${'a'.repeat(129)}`, 'actor=a&actor=b', 'request_id=', 'request_id=abc', 'request_id=0f6b2a4e-6c1d-4e8f-9a3b-5d7c1e2f3a4', `request_id=0f6b2a4e-6c1d-4e8f-9a3b-5d7c1e2f3a4b&request_id=0f6b2a4e-6c1d-4e8f-9a3b-5d7c1e2f3a4b`]) {
    test(`?${query} → 400 bad_request`, async () => {
      const { status, body } = await audit(`?${query}`)
      expect(status).toBe(400)
      expect(body.error).toBe('bad_request')
    })
  }

  test('a viewer → 403, anonymous → 401', async () => {
    expect((await audit('', viewerCookie)).status).toBe(403)
    expect((await audit('', null)).status).toBe(401)
  })
})

describe('POST /api/security/sessions/revoke', () => {
  test('a field the route does not take (a misspelt identity_id) → 400 naming the route\'s field; nothing revoked, nothing audited', async () => {
    const someone = crypto.randomUUID()
    for (const body of [{ identity_id: someone, extra: 1 }, { identity_ID: someone }]) {
      const response = await send('POST', '/api/security/sessions/revoke', adminCookie, body)
      expect(response.status).toBe(400)
      const answer = (await response.json()) as { error: string; message: string }
      expect(answer.error).toBe('bad_request')
      expect(answer.message).toStartWith('The request body has a field this route does not take')
      expect(answer.message).toEndWith('The fields are: identity_id.')
    }
    expect((await audit('?action=sessions_revoke')).body.events.map((event) => event.target)).not.toContain(someone)
  })
})

describe('GET /api/security/posture', () => {
  type Check = { id: string; status: string; message: string; remedy?: string }
  async function posture(target: TestService, cookie: string) {
    const response = await fetch(`${target.url}/api/security/posture`, { headers: { cookie } })
    const text = await response.text()
    return { status: response.status, text, checks: (JSON.parse(text) as { checks: Check[] }).checks }
  }
  const statusOf = (checks: Check[]) => Object.fromEntries(checks.map((check) => [check.id, check.status]))

  test('a production deployment on loopback with both keys passes every check', async () => {
    const { status, checks } = await posture(service, adminCookie)
    expect(status).toBe(200)
    expect(statusOf(checks)).toEqual({
      bind_address: 'pass',
      secure_cookies: 'pass',
      signing_key_length: 'pass',
      encryption_key_present: 'pass',
      previous_key: 'pass',
    })
    for (const check of checks) expect(check.message.length).toBeGreaterThan(0)
    // Every warning or failure says what to do about it; a pass does not.
    for (const check of checks) expect(check.remedy).toBeUndefined()
  })

  test('public bind, development cookies, no encryption key, a leftover previous key → warnings without hosts, ports or keys', async () => {
    const previous = randomKey()
    const other = await startService({
      env: { HOST: '0.0.0.0', NODE_ENV: 'development', ENCRYPTION_KEY: '', ENCRYPTION_KEY_PREVIOUS: previous, IDP_ADMIN_URL: kratos.url, PORT: '4455' },
    })
    markSecret(previous)
    try {
      const { checks, text } = await posture(other, `admin-session=${other.sign({ sub: admin.id, role: 'admin' })}`)
      expect(statusOf(checks)).toEqual({
        bind_address: 'warn',
        secure_cookies: 'warn',
        signing_key_length: 'pass',
        encryption_key_present: 'warn',
        previous_key: 'warn',
      })
      // Every warning says what to do about it; a pass does not.
      for (const check of checks) expect(typeof check.remedy === 'string' && check.remedy.length > 0).toBe(check.status !== 'pass')
      // The previous key's advice holds in every phase of a rotation across replicas: with the new
      // key still in ENCRYPTION_KEY_PREVIOUS, "reencrypt, then remove it" would abandon the rotation.
      const previousKey = checks.find((check) => check.id === 'previous_key')!
      expect(previousKey.message).toBe('ENCRYPTION_KEY_PREVIOUS is set: a key rotation is under way or was not finished.')
      expect(previousKey.remedy).toBe(
        'Finish the key rotation (see "Rotating the encryption key" in the README). If ENCRYPTION_KEY_PREVIOUS holds the new key, wait until every replica has it, then swap the two keys on every replica and restart each. Once every replica runs with the new key as ENCRYPTION_KEY, run `admin-dashboard settings reencrypt`, then remove ENCRYPTION_KEY_PREVIOUS and restart every replica.',
      )
      expect(text).not.toMatch(/0\.0\.0\.0|4455|127\.0\.0\.1/)
      for (const key of [other.env.SESSION_SIGNING_KEY!, previous]) expect(text).not.toContain(key)
    } finally {
      await other.stop()
    }
  })

  test('a viewer → 403, anonymous → 401', async () => {
    expect((await send('GET', '/api/security/posture', viewerCookie)).status).toBe(403)
    expect((await send('GET', '/api/security/posture', null)).status).toBe(401)
  })
})
