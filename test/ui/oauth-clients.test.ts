// An OAuth client's page as an administrator uses it, checked in the Hydra-like admin API: an edit
// keeps every field the form does not show and every change made elsewhere to a field it did not
// change (it sends Hydra a JSON Patch of its own changes), and a delete or a token revocation
// pressed twice reaches Hydra once.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { HydraFixture } from '../support/hydra.ts'
import type { Locator } from 'playwright-core'
import { answerQuestions, answerTooLate, backThroughSignIn, DESKTOP, holdRequests, PHONE, SCREENSHOT_DIR, signedInPage, sweep, tabTo, useSignedInBrowser, endSession } from './harness.ts'
import { within } from '../support/eventually.ts'

/** A client with the fields an operator sets through the API or the Hydra CLI but the form does not show. */
const FULL_CLIENT = {
  client_name: 'Partner portal',
  client_secret: 'partner-portal-secret-0123',
  token_endpoint_auth_method: 'client_secret_post',
  redirect_uris: ['https://partner.example.com/callback'],
  post_logout_redirect_uris: ['https://partner.example.com/signed-out'],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  scope: 'openid offline_access partner.read',
  audience: ['https://api.example.com'],
  owner: 'team-partners',
  metadata: { tier: 'gold', limits: { rpm: 600 }, regions: ['eu', 'us'] },
  contacts: ['ops@partner.example.com', 'security@partner.example.com'],
  client_uri: 'https://partner.example.com',
  logo_uri: 'https://partner.example.com/logo.png',
  policy_uri: 'https://partner.example.com/privacy',
  tos_uri: 'https://partner.example.com/terms',
  allowed_cors_origins: ['https://partner.example.com', 'https://app.partner.example.com'],
  request_uris: ['https://partner.example.com/request.jwt'],
  userinfo_signed_response_alg: 'RS256',
  access_token_strategy: 'jwt',
  frontchannel_logout_uri: 'https://partner.example.com/front-logout',
  frontchannel_logout_session_required: true,
  backchannel_logout_uri: 'https://partner.example.com/back-logout',
  backchannel_logout_session_required: true,
  skip_logout_consent: true,
  authorization_code_grant_access_token_lifespan: '1h0m0s',
  jwt_bearer_grant_access_token_lifespan: '2h0m0s',
  device_authorization_grant_access_token_lifespan: '15m0s',
}
/** A client's public signing key (an RSA key made for these tests), as a client puts it in its `jwks`. */
const SIGNER_KEY = {
  kty: 'RSA',
  kid: 'signer-2024',
  use: 'sig',
  alg: 'RS256',
  e: 'AQAB',
  n: 'xOiLDFNIc4dsBYfwJrbijR78A6a8FPoq9IBQUkHzdg_HKReKqJwp5dUNPx-mpKjqkZK3wBKwR9Fur9m8qX688TBgMHeJLA3UZVXXAER1pVc9M52KPmDnadOElTX5Nt8CCdIXkLdSSRjHa3wJHpQJrsQAk3lwmWO6uwVTGrZFxlAjWF7_ouCos5mbhAOCWEqzUemfuZizoX_wM5MwUU8lGbr2ph4xTK6AGR-s-UIeYXoGeKfx-y_Sm94BVJNqJqIrZdgtYaW_5Y9AVgk0yUtuZNO8FCJVcj1bn4ZBCm9VMXsW5f6Jwy9sJcGQoYrCkXJFzVhUQvo7cmdXoAMw7_4SzQ',
}
/** The same as Hydra answers it: every field but the secret. */
const { client_secret: _secret, ...ANSWERED } = FULL_CLIENT

describe('the Hydra stand-in', () => {
  let hydra: HydraFixture
  beforeAll(() => {
    hydra = new HydraFixture().start()
  })
  afterAll(() => hydra?.stop())
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${hydra.url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })

  test('PUT /admin/clients/{id} replaces the whole client, as Hydra does: what the body leaves out is reset, the secret alone is kept', async () => {
    const created = (await (await call('POST', '/admin/clients', FULL_CLIENT)).json()) as Record<string, unknown>
    const id = created.client_id as string
    const loaded = (await (await call('GET', `/admin/clients/${id}`)).json()) as Record<string, unknown>
    expect(loaded).toMatchObject(ANSWERED)
    expect(loaded.client_secret).toBeUndefined()
    hydra.clients.get(id)!.created_at = '2024-01-02T03:04:05.000Z'

    const replaced = await call('PUT', `/admin/clients/${id}`, { client_name: 'Renamed', redirect_uris: FULL_CLIENT.redirect_uris })
    expect(replaced.status).toBe(200)
    const stored = hydra.clients.get(id)!
    expect(stored).toMatchObject({ client_name: 'Renamed', metadata: {}, contacts: null, allowed_cors_origins: [], client_uri: '', owner: '', audience: [], skip_logout_consent: null, lifespans: {} })
    expect(stored.created_at).not.toBe('2024-01-02T03:04:05.000Z')
    expect(stored.secret).toBe(FULL_CLIENT.client_secret)

    // Sent back whole (as loaded, no secret), nothing changes but what was edited.
    const again = await call('PUT', `/admin/clients/${id}`, { ...loaded, client_name: 'Partner portal 2' })
    expect(again.status).toBe(200)
    expect(await again.json()).toMatchObject({ ...ANSWERED, client_name: 'Partner portal 2', created_at: loaded.created_at })
    expect(hydra.clients.get(id)!.secret).toBe(FULL_CLIENT.client_secret)

    // A secret in the body replaces the stored one and is echoed once.
    const rotated = (await (await call('PUT', `/admin/clients/${id}`, { ...loaded, client_secret: 'a-brand-new-secret' })).json()) as Record<string, unknown>
    expect(rotated.client_secret).toBe('a-brand-new-secret')
    expect(hydra.clients.get(id)!.secret).toBe('a-brand-new-secret')
  })

  test('a public client gets a secret nobody is told, as Hydra gives it; PATCH keeps the stored secret unless it sets one, which it answers once', async () => {
    const created = (await (await call('POST', '/admin/clients', { client_name: 'Kiosk', token_endpoint_auth_method: 'none', redirect_uris: ['com.example.kiosk:/cb'] })).json()) as Record<string, unknown>
    const id = created.client_id as string
    expect(created.client_secret).toBeUndefined()
    const hidden = hydra.clients.get(id)!.secret
    expect(hidden.length).toBeGreaterThanOrEqual(26)

    // Made confidential without a secret: the one nobody knows stays.
    const confidential = await call('PATCH', `/admin/clients/${id}`, [{ op: 'replace', path: '/token_endpoint_auth_method', value: 'client_secret_basic' }])
    expect(confidential.status).toBe(200)
    expect(((await confidential.json()) as Record<string, unknown>).client_secret).toBeUndefined()
    expect(hydra.clients.get(id)!.secret).toBe(hidden)
    // Removing it is "unchanged" too.
    expect((await call('PATCH', `/admin/clients/${id}`, [{ op: 'remove', path: '/client_secret' }])).status).toBe(200)
    expect(hydra.clients.get(id)!.secret).toBe(hidden)

    // Shorter than Hydra's six characters: refused, nothing changes.
    expect((await call('PATCH', `/admin/clients/${id}`, [{ op: 'add', path: '/client_secret', value: 'short' }])).status).toBe(400)
    expect(hydra.clients.get(id)!.secret).toBe(hidden)
    const set = await call('PATCH', `/admin/clients/${id}`, [{ op: 'add', path: '/client_secret', value: 'a-secret-set-by-patch' }])
    expect(set.status).toBe(200)
    expect(((await set.json()) as Record<string, unknown>).client_secret).toBe('a-secret-set-by-patch')
    expect(hydra.clients.get(id)!.secret).toBe('a-secret-set-by-patch')
    expect(((await (await call('GET', `/admin/clients/${id}`)).json()) as Record<string, unknown>).client_secret).toBeUndefined()
  })

  test('redirect URIs as Hydra checks them: no "#" at all, and each post-logout URI on the scheme, host and port of a redirect URI', async () => {
    const base = { client_name: 'Checked', redirect_uris: ['https://app.example.com/callback'] }
    for (const [fields, status] of [
      [{ redirect_uris: ['https://app.example.com/callback#'] }, 400],
      [{ redirect_uris: ['https://app.example.com/callback#done'] }, 400],
      [{ post_logout_redirect_uris: ['https://elsewhere.example.org/signed-out'] }, 400],
      [{ post_logout_redirect_uris: ['http://app.example.com/signed-out'] }, 400],
      [{ post_logout_redirect_uris: ['https://app.example.com:8443/signed-out'] }, 400],
      [{ post_logout_redirect_uris: ['https://app.example.com/signed-out'] }, 201],
      [{ redirect_uris: ['com.example.app:/callback'], post_logout_redirect_uris: ['com.example.app:/signed-out'] }, 201],
    ] as const) {
      const response = await call('POST', '/admin/clients', { ...base, ...fields })
      expect({ fields, status: response.status }).toEqual({ fields, status })
    }
  })

  test('client fields are checked as Hydra checks them', async () => {
    for (const [field, value] of [
      ['allowed_cors_origins', ['https://partner.example.com/path']],
      ['allowed_cors_origins', ['ftp://partner.example.com']],
      ['client_uri', 'javascript:alert(1)'],
      ['userinfo_signed_response_alg', 'HS256'],
      ['contacts', 'ops@partner.example.com'],
      // Neither jwks nor jwks_uri.
      ['token_endpoint_auth_method', 'private_key_jwt'],
    ] as const) {
      const response = await call('POST', '/admin/clients', { ...ANSWERED, [field]: value })
      expect({ field, value, status: response.status }).toEqual({ field, value, status: 400 })
    }
  })

  test('lifespans are read as Go reads a duration and answered as Go prints one, at create, PATCH and PUT .../lifespans; what Go refuses is refused', async () => {
    const base = { client_name: 'Durations', redirect_uris: ['https://durations.example.com/callback'] }
    for (const [sent, answered] of [
      ['.5h', '30m0s'],
      ['1.5h', '1h30m0s'],
      ['10μs', '10µs'],
      ['10µs', '10µs'],
      ['+90s', '1m30s'],
      ['1500ns', '1.5µs'],
      ['0', '0s'],
      ['720h', '720h0m0s'],
    ] as const) {
      const response = await call('POST', '/admin/clients', { ...base, jwt_bearer_grant_access_token_lifespan: sent })
      expect({ sent, status: response.status }).toEqual({ sent, status: 201 })
      expect({ sent, answered: ((await response.json()) as Record<string, unknown>).jwt_bearer_grant_access_token_lifespan }).toEqual({ sent, answered })
    }
    for (const sent of ['', '1d', '1 h', '.h', '1', '9999999999h', 'one hour']) {
      const response = await call('POST', '/admin/clients', { ...base, device_authorization_grant_access_token_lifespan: sent })
      expect({ sent, status: response.status }).toEqual({ sent, status: 400 })
    }
    const id = ((await (await call('POST', '/admin/clients', base)).json()) as Record<string, unknown>).client_id as string
    const patched = await call('PATCH', `/admin/clients/${id}`, [{ op: 'add', path: '/device_authorization_grant_refresh_token_lifespan', value: '.25h' }])
    expect(((await patched.json()) as Record<string, unknown>).device_authorization_grant_refresh_token_lifespan).toBe('15m0s')
    expect((await call('PATCH', `/admin/clients/${id}`, [{ op: 'add', path: '/device_authorization_grant_refresh_token_lifespan', value: '15 minutes' }])).status).toBe(400)
    const set = await call('PUT', `/admin/clients/${id}/lifespans`, { device_authorization_grant_id_token_lifespan: '90m' })
    expect(await set.json()).toMatchObject({ device_authorization_grant_id_token_lifespan: '1h30m0s', device_authorization_grant_refresh_token_lifespan: null })
  })

  test('a private_key_jwt client has its keys inline (jwks) or at a jwks_uri, never both, as Hydra checks them; Hydra checks no scheme of the URI', async () => {
    const base = { client_name: 'Signer', token_endpoint_auth_method: 'private_key_jwt', redirect_uris: ['https://signer.example.com/callback'] }
    for (const [fields, status] of [
      [{}, 400],
      [{ jwks: {} }, 400],
      [{ jwks_uri: '' }, 400],
      [{ jwks_uri: 'https://signer.example.com/jwks.json' }, 201],
      [{ jwks_uri: 'http://signer.example.com/jwks.json' }, 201],
      [{ jwks: { keys: [SIGNER_KEY] } }, 201],
      // A `keys` member, even null, is a key set to Hydra.
      [{ jwks: { keys: null } }, 201],
      [{ jwks: { keys: 'not a list' } }, 400],
      [{ jwks: { keys: [SIGNER_KEY] }, jwks_uri: 'https://signer.example.com/jwks.json' }, 400],
    ] as const) {
      const response = await call('POST', '/admin/clients', { ...base, ...fields })
      expect({ fields, status: response.status }).toEqual({ fields, status })
    }
    // Any method: keys in both places are refused.
    const both = await call('POST', '/admin/clients', { ...base, token_endpoint_auth_method: 'client_secret_basic', jwks: { keys: [SIGNER_KEY] }, jwks_uri: 'https://signer.example.com/jwks.json' })
    expect(both.status).toBe(400)
    expect(((await both.json()) as Record<string, unknown>).error_description).toContain('Fields jwks and jwks_uri can not both be set')
  })
})

describe('in the browser', () => {
  const admin = useSignedInBrowser('admin', '/dashboard/oauth-clients')

  /** A call through the service's Hydra admin prefix from the signed-in page, as the app itself makes it. */
  const throughProxy = (method: string, path: string, body?: unknown) =>
    admin.page.evaluate(
      async ({ method, path, body }) => {
        const response = await fetch(`/api/oauth-admin${path}`, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
        return { status: response.status, body: (await response.json().catch(() => null)) as Record<string, unknown> | null }
      },
      { method, path, body },
    )
  /** A client added to Hydra, its page open. */
  async function openNewClient(fields: Record<string, unknown> & { client_name: string }) {
    const client = admin.harness.sandbox.hydra.addClient(fields)
    await admin.page.goto(admin.url(`/dashboard/oauth-clients/${encodeURIComponent(client.client_id)}`))
    await admin.page.getByRole('heading', { level: 1, name: fields.client_name }).waitFor()
    return client
  }
  /** The browser reports a refused request in the console: that one is expected, and only that one. */
  async function expectRefusalReported(status = 500) {
    for (let waited = 0; admin.problems.length === 0 && waited < 2000; waited += 50) await Bun.sleep(50)
    expect(admin.problems.splice(0)).toEqual([expect.stringContaining(`status of ${status}`)])
  }
  const proxyWrites = async (clientId: string, method: string) =>
    (await admin.harness.sandbox.services.audit.list({ limit: 1000, action: 'proxy_write' })).filter(
      (event) => event.target === `/admin/clients/${clientId}` && (event.detail as { method?: string } | null)?.method === method,
    )

  test('Escape in Create client with something typed asks before it drops it; Cancel, chosen on purpose, does not ask', async () => {
    const page = admin.page
    await page.goto(admin.url('/dashboard/oauth-clients'))
    await page.getByRole('heading', { level: 1, name: 'OAuth clients' }).waitFor()
    const asked: string[] = []
    const answer = (accept: boolean) => page.once('dialog', (question) => (asked.push(question.message()), void (accept ? question.accept() : question.dismiss())))
    await tabTo(page, 'Create client')
    await page.keyboard.press('Enter')
    const dialog = page.getByRole('dialog', { name: 'Create client' })
    const name = dialog.getByRole('textbox', { name: 'Client name' })
    await name.fill('Half-typed client')
    await name.focus()
    answer(false)
    await page.keyboard.press('Escape')
    await page.waitForFunction(() => document.activeElement?.closest('dialog') !== null)
    expect(asked).toEqual(['Your changes to the new client are not saved. Close anyway?'])
    expect([await dialog.isVisible(), await name.inputValue()]).toEqual([true, 'Half-typed client'])
    answer(true)
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })
    expect(asked).toHaveLength(2)
    expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Create client')
    // Typed again, then Cancel: closed without a question.
    await page.keyboard.press('Enter')
    await name.fill('Another half-typed client')
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await dialog.waitFor({ state: 'hidden' })
    expect(asked).toHaveLength(2)
    expect([...admin.harness.sandbox.hydra.clients.values()].some((client) => String(client.client_name).includes('half-typed'))).toBe(false)
    expect(admin.problems).toEqual([])
  })

  test('an admin renames a client created through the API: metadata, contacts, CORS origins, URIs, lifespans, owner, created time and the secret stay as they were', async () => {
    const { hydra } = admin.harness.sandbox
    const created = await throughProxy('POST', '/admin/clients', FULL_CLIENT)
    expect(created.status).toBe(201)
    const clientId = created.body!.client_id as string
    // An older creation time, so that a reset to "now" would show.
    hydra.clients.get(clientId)!.created_at = '2024-01-02T03:04:05.000Z'
    const before = structuredClone(hydra.clients.get(clientId)!)

    await admin.page.goto(admin.url(`/dashboard/oauth-clients/${encodeURIComponent(clientId)}`))
    await admin.page.getByRole('heading', { level: 1, name: 'Partner portal' }).waitFor()
    await admin.page.getByRole('button', { name: 'Edit client' }).click()
    await admin.page.getByRole('textbox', { name: 'Client name' }).fill('Partner portal (EU)')
    await admin.page.getByRole('button', { name: 'Save' }).click()
    await admin.page.getByRole('status').getByText('Client Partner portal (EU) saved.').waitFor()
    await admin.page.getByRole('heading', { level: 1, name: 'Partner portal (EU)' }).waitFor()
    await admin.page.screenshot({ path: join(SCREENSHOT_DIR, 'oauth-client-renamed.png'), fullPage: true })

    const after = hydra.clients.get(clientId)!
    expect(after.client_name).toBe('Partner portal (EU)')
    expect(after.metadata).toEqual(FULL_CLIENT.metadata)
    expect(after.contacts).toEqual(FULL_CLIENT.contacts)
    expect(after.allowed_cors_origins).toEqual(FULL_CLIENT.allowed_cors_origins)
    expect(after.client_uri).toBe(FULL_CLIENT.client_uri)
    expect(after.owner).toBe(FULL_CLIENT.owner)
    expect(after.secret).toBe(FULL_CLIENT.client_secret)
    expect(after.created_at).toBe('2024-01-02T03:04:05.000Z')
    // Everything else too: only the name and the update time moved.
    expect({ ...after, client_name: before.client_name, updated_at: before.updated_at }).toEqual(before)

    // Read back through the service, as an operator would.
    const readBack = await throughProxy('GET', `/admin/clients/${encodeURIComponent(clientId)}`)
    expect(readBack.body).toMatchObject({ ...ANSWERED, client_name: 'Partner portal (EU)' })
    expect(admin.problems).toEqual([])
  })

  test('a client whose name is thousands of characters long, as Hydra takes it, can be edited: its redirect URIs are saved and its name stays', async () => {
    const { hydra } = admin.harness.sandbox
    const name = `${'Huge '.repeat(1000)}client`
    const client = await openNewClient({ client_name: name, redirect_uris: ['https://huge.example.com/callback'] })
    await admin.page.getByRole('button', { name: 'Edit client' }).click()
    expect(await admin.page.getByRole('textbox', { name: 'Client name' }).inputValue()).toBe(name)
    await admin.page.getByRole('textbox', { name: 'Redirect URIs', exact: true }).fill('https://huge.example.com/callback\nhttps://huge.example.com/v2/callback')
    await admin.page.getByRole('button', { name: 'Save' }).click()
    await admin.page.getByRole('button', { name: 'Edit client' }).waitFor()
    expect(hydra.clients.get(client.client_id)!.redirect_uris).toEqual(['https://huge.example.com/callback', 'https://huge.example.com/v2/callback'])
    expect(hydra.clients.get(client.client_id)!.client_name).toBe(name)
    expect(await admin.page.getByText('At most 255 characters.').count()).toBe(0)
    hydra.clients.delete(client.client_id)
    expect(admin.problems).toEqual([])
  })

  test('an edit keeps what someone else changed meanwhile: only the fields this form changed are written', async () => {
    const { hydra } = admin.harness.sandbox
    const client = await openNewClient({ client_name: 'Shared app', redirect_uris: ['https://shared.example.com/callback'], metadata: { tier: 'bronze' } })
    await admin.page.getByRole('button', { name: 'Edit client' }).click()
    await admin.page.getByRole('textbox', { name: 'Client name' }).fill('Shared app (v2)')

    // Another operator, through the same service, adds a redirect URI and changes the metadata.
    const elsewhere = await throughProxy('PATCH', `/admin/clients/${encodeURIComponent(client.client_id)}`, [
      { op: 'add', path: '/redirect_uris', value: ['https://shared.example.com/callback', 'https://shared.example.com/v2/callback'] },
      { op: 'add', path: '/metadata', value: { tier: 'gold' } },
    ])
    expect(elsewhere.status).toBe(200)

    await admin.page.getByRole('button', { name: 'Save' }).click()
    await admin.page.getByRole('status').getByText('Client Shared app (v2) saved.').waitFor()
    const after = hydra.clients.get(client.client_id)!
    expect(after.client_name).toBe('Shared app (v2)')
    expect(after.redirect_uris).toEqual(['https://shared.example.com/callback', 'https://shared.example.com/v2/callback'])
    expect(after.metadata).toEqual({ tier: 'gold' })
    const patches = hydra.calls.filter((call) => call.method === 'PATCH' && call.path === `/admin/clients/${client.client_id}`)
    expect(patches.length).toBe(2)

    // Saved again without a change: nothing is sent.
    await admin.page.getByRole('button', { name: 'Edit client' }).click()
    await admin.page.getByRole('button', { name: 'Save' }).click()
    await admin.page.getByRole('status').getByText('Nothing was changed.').waitFor()
    expect(hydra.calls.filter((call) => call.method === 'PATCH' && call.path === `/admin/clients/${client.client_id}`).length).toBe(2)
    expect(admin.problems).toEqual([])
  })

  const clientCalls = (clientId: string, method: string) => admin.harness.sandbox.hydra.calls.filter((call) => call.method === method && call.path === `/admin/clients/${clientId}`).length

  test('a save that would set the redirect URIs whole after someone else changed them is refused; Reload keeps the other edits, and Save then keeps both URIs', async () => {
    const { hydra } = admin.harness.sandbox
    const client = await openNewClient({ client_name: 'Conflict app', redirect_uris: ['https://conflict.example.com/callback'] })
    const page = admin.page
    await page.getByRole('button', { name: 'Edit client' }).click()
    await page.getByRole('textbox', { name: 'Client name' }).fill('Conflict app (v2)')
    const uris = page.getByRole('textbox', { name: 'Redirect URIs', exact: true })
    await uris.fill('https://conflict.example.com/callback\nhttps://conflict.example.com/mine')

    // Meanwhile a deploy script adds its own redirect URI.
    const elsewhere = await throughProxy('PATCH', `/admin/clients/${encodeURIComponent(client.client_id)}`, [
      { op: 'add', path: '/redirect_uris', value: ['https://conflict.example.com/callback', 'https://conflict.example.com/theirs'] },
    ])
    expect(elsewhere.status).toBe(200)
    const patchesBefore = clientCalls(client.client_id, 'PATCH')

    await page.getByRole('button', { name: 'Save' }).click()
    const refused = page.getByRole('alert').filter({ hasText: 'Not saved: this client changed since the page loaded.' })
    await refused.waitFor()
    await refused.getByText('The redirect URIs were changed meanwhile, by another operator or a tool using Hydra’s API.').waitFor()
    await page.getByRole('region', { name: 'Edit client' }).getByText('https://conflict.example.com/theirs').waitFor()
    const reload = page.getByRole('button', { name: 'Reload' })
    await page.waitForFunction(() => document.activeElement?.textContent === 'Reload')
    // Nothing was sent: the other URI and the old name are as stored.
    expect(clientCalls(client.client_id, 'PATCH')).toBe(patchesBefore)
    expect(hydra.clients.get(client.client_id)!.redirect_uris).toEqual(['https://conflict.example.com/callback', 'https://conflict.example.com/theirs'])
    expect(hydra.clients.get(client.client_id)!.client_name).toBe('Conflict app')
    expect(await sweep(page, 'client-changed-meanwhile', () => refused.waitFor())).toEqual([])

    // Keyboard only from here: Reload has focus.
    await page.keyboard.press('Enter')
    const yours = page.getByText('Your redirect URIs, not saved:')
    await yours.waitFor()
    await page.getByRole('status').getByText('Reloaded the stored redirect URIs; your version is kept below to copy from.').waitFor()
    expect(await uris.inputValue()).toBe('https://conflict.example.com/callback\nhttps://conflict.example.com/theirs')
    expect(await page.getByRole('textbox', { name: 'Client name' }).inputValue()).toBe('Conflict app (v2)')
    expect(await uris.evaluate((element) => element === document.activeElement)).toBe(true)
    expect(await sweep(page, 'client-changed-meanwhile-reloaded', () => yours.waitFor())).toEqual([])
    await uris.focus()
    await page.keyboard.press('Control+End')
    await page.keyboard.type('\nhttps://conflict.example.com/mine')
    await uris.press('Tab')
    await reload.waitFor({ state: 'detached' })
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('status').getByText('Client Conflict app (v2) saved.').waitFor()
    const after = hydra.clients.get(client.client_id)!
    expect(after.redirect_uris).toEqual(['https://conflict.example.com/callback', 'https://conflict.example.com/theirs', 'https://conflict.example.com/mine'])
    expect(after.client_name).toBe('Conflict app (v2)')
    expect(admin.problems).toEqual([])
  })

  test('a name-only edit is sent without reading the client again; a list edit reads it once, and when the client was deleted meanwhile sends nothing and says so', async () => {
    const client = await openNewClient({ client_name: 'Reads app', redirect_uris: ['https://reads.example.com/callback'], grant_types: ['authorization_code'] })
    const page = admin.page
    const gets = () => clientCalls(client.client_id, 'GET')
    await page.getByRole('button', { name: 'Edit client' }).click()
    await page.getByRole('textbox', { name: 'Client name' }).fill('Reads app 2')
    let read = gets()
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('status').getByText('Client Reads app 2 saved.').waitFor()
    expect(gets()).toBe(read)

    await page.getByRole('button', { name: 'Edit client' }).click()
    await page.getByRole('checkbox', { name: 'refresh token' }).check()
    // A new name too, so that the announcement waited for is this save's.
    await page.getByRole('textbox', { name: 'Client name' }).fill('Reads app 3')
    read = gets()
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('status').getByText('Client Reads app 3 saved.').waitFor()
    expect(gets()).toBe(read + 1)
    expect(admin.harness.sandbox.hydra.clients.get(client.client_id)!.grant_types).toEqual(['authorization_code', 'refresh_token'])

    await page.getByRole('button', { name: 'Edit client' }).click()
    await page.getByRole('checkbox', { name: 'refresh token' }).uncheck()
    const patches = clientCalls(client.client_id, 'PATCH')
    expect((await throughProxy('DELETE', `/admin/clients/${encodeURIComponent(client.client_id)}`)).status).toBe(204)
    await page.getByRole('button', { name: 'Save' }).click()
    await page
      .getByRole('alert')
      .getByText('Nothing was saved: the client could not be read again to check that it has not changed since the page loaded. Hydra has no client with this ID any more: it has been deleted, perhaps elsewhere.')
      .waitFor()
    expect(clientCalls(client.client_id, 'PATCH')).toBe(patches)
    expect(admin.harness.sandbox.hydra.clients.has(client.client_id)).toBe(false)
    expect(admin.problems.splice(0)).toEqual([expect.stringContaining('status of 404')])
  })

  test('a redirect URI edit refused because the session ended, at the read before the save, says after signing in again that it was not saved', async () => {
    const client = admin.harness.sandbox.hydra.addClient({ client_name: 'Expired edit app', redirect_uris: ['https://expired.example.com/callback'] })
    const other = await signedInPage(admin.harness, 'admin', `/dashboard/oauth-clients/${encodeURIComponent(client.client_id)}`)
    try {
      const { page: tab } = other
      await tab.getByRole('heading', { level: 1, name: 'Expired edit app' }).waitFor()
      await tab.getByRole('button', { name: 'Edit client' }).click()
      // A list is set whole: Save reads the client again first (a GET), and that is what meets the 401.
      await tab.getByRole('textbox', { name: 'Redirect URIs', exact: true }).fill('https://expired.example.com/callback\nhttps://expired.example.com/more')
      await endSession(tab)
      await tab.getByRole('button', { name: 'Save' }).click()
      // Through the sign-in (the provider may still know this browser and send it straight back).
      const notice = tab.getByRole('alert').filter({ hasText: 'it was not saved' })
      await backThroughSignIn(tab, admin.harness.sandbox, notice)
      await tab.getByRole('heading', { level: 1, name: 'Expired edit app' }).waitFor()
      expect(admin.harness.sandbox.hydra.clients.get(client.client_id)!.redirect_uris).toEqual(['https://expired.example.com/callback'])
      expect(other.problems.filter((problem) => !problem.includes('401'))).toEqual([])
    } finally {
      await other.context.close()
    }
  })

  test('Create client refused because the session ended opens again with its draft after the sign-in', async () => {
    const other = await signedInPage(admin.harness, 'admin', '/dashboard/oauth-clients')
    try {
      const { page: tab } = other
      await tab.getByRole('button', { name: 'Create client' }).click()
      const dialog = tab.getByRole('dialog', { name: 'Create client' })
      await dialog.getByRole('textbox', { name: 'Client name' }).fill('Drafted app')
      await dialog.getByRole('textbox', { name: 'Redirect URIs', exact: true }).fill('https://drafted.example.com/cb')
      await endSession(tab)
      await dialog.getByRole('button', { name: 'Create client' }).click()
      await backThroughSignIn(tab, admin.harness.sandbox, tab.getByRole('alert').filter({ hasText: 'Your draft was kept; check it and save again.' }))
      await dialog.waitFor()
      expect(await dialog.getByRole('textbox', { name: 'Client name' }).inputValue()).toBe('Drafted app')
      expect(await dialog.getByRole('textbox', { name: 'Redirect URIs', exact: true }).inputValue()).toBe('https://drafted.example.com/cb')
      await dialog.getByRole('button', { name: 'Create client' }).click()
      await tab.getByRole('heading', { level: 1, name: 'Drafted app' }).waitFor()
      expect([...admin.harness.sandbox.hydra.clients.values()].filter((client) => client.client_name === 'Drafted app')).toHaveLength(1)
      expect(other.problems.filter((problem) => !problem.includes('401'))).toEqual([])
    } finally {
      await other.context.close()
    }
  })

  test('a client edit refused because the session ended opens again with its draft after the sign-in; a list changed meanwhile is still found before saving', async () => {
    const { hydra } = admin.harness.sandbox
    const client = hydra.addClient({ client_name: 'Draft edit app', redirect_uris: ['https://draft.example.com/callback'] })
    const other = await signedInPage(admin.harness, 'admin', `/dashboard/oauth-clients/${encodeURIComponent(client.client_id)}`)
    try {
      const { page: tab } = other
      await tab.getByRole('heading', { level: 1, name: 'Draft edit app' }).waitFor()
      await tab.getByRole('button', { name: 'Edit client' }).click()
      const form = tab.getByRole('region', { name: 'Edit client' })
      await form.getByRole('textbox', { name: 'Client name' }).fill('Draft edit app (renamed)')
      await form.getByRole('textbox', { name: 'Redirect URIs', exact: true }).fill('https://draft.example.com/callback\nhttps://draft.example.com/mine')
      await endSession(tab)
      await form.getByRole('button', { name: 'Save' }).click()
      const notice = tab.getByRole('alert').filter({ hasText: 'it was not saved. Your draft was kept; check it and save again.' })
      await backThroughSignIn(tab, admin.harness.sandbox, notice)
      // The edit form is open again with what was typed.
      expect(await form.getByRole('textbox', { name: 'Client name' }).inputValue()).toBe('Draft edit app (renamed)')
      expect(await form.getByRole('textbox', { name: 'Redirect URIs', exact: true }).inputValue()).toBe('https://draft.example.com/callback\nhttps://draft.example.com/mine')
      expect(hydra.clients.get(client.client_id)!.client_name).toBe('Draft edit app')
      // Measured against the client as it was when the form was filled: a URI added meanwhile is not overwritten.
      hydra.clients.get(client.client_id)!.redirect_uris = ['https://draft.example.com/callback', 'https://draft.example.com/theirs']
      await form.getByRole('button', { name: 'Save' }).click()
      await tab.getByRole('alert').filter({ hasText: 'Not saved: this client changed since the page loaded.' }).waitFor()
      expect(hydra.clients.get(client.client_id)!.redirect_uris).toEqual(['https://draft.example.com/callback', 'https://draft.example.com/theirs'])
      expect(other.problems.filter((problem) => !problem.includes('401'))).toEqual([])
    } finally {
      await other.context.close()
    }
  })

  test('a client edit kept through the sign-in by a build whose form had no JWKS URI nor the JWT bearer and device lifespans opens with what the client holds, and saves without touching it', async () => {
    const { hydra } = admin.harness.sandbox
    const client = hydra.addClient({
      client_name: 'Older draft app',
      token_endpoint_auth_method: 'private_key_jwt',
      jwks_uri: 'https://older.example.com/jwks.json',
      redirect_uris: ['https://older.example.com/callback'],
      jwt_bearer_grant_access_token_lifespan: '2h',
      device_authorization_grant_refresh_token_lifespan: '720h',
    })
    const other = await signedInPage(admin.harness, 'admin', `/dashboard/oauth-clients/${encodeURIComponent(client.client_id)}`)
    try {
      const { page: tab, context } = other
      await tab.getByRole('heading', { level: 1, name: 'Older draft app' }).waitFor()
      await tab.getByRole('button', { name: 'Edit client' }).click()
      const form = tab.getByRole('region', { name: 'Edit client' })
      await form.getByRole('textbox', { name: 'Client name' }).fill('Older draft app (renamed)')
      // The draft as that build kept it: the same, without the JWKS URI, the inline keys' mark and the later lifespans.
      await context.addInitScript(() => {
        for (const key of Object.keys(sessionStorage)) {
          if (!key.startsWith('admin-dashboard.draft:')) continue
          const stored = JSON.parse(sessionStorage.getItem(key)!)
          const kept = stored.forms?.['client-edit']?.draft
          if (!kept) continue
          delete kept.jwks_uri
          delete kept.inline_jwks
          for (const name of Object.keys(kept.lifespans)) if (/^(jwt_bearer|device_authorization)_grant_/.test(name)) delete kept.lifespans[name]
          sessionStorage.setItem(key, JSON.stringify(stored))
        }
      })
      await endSession(tab)
      await form.getByRole('button', { name: 'Save' }).click()
      await backThroughSignIn(tab, admin.harness.sandbox, tab.getByRole('alert').filter({ hasText: 'Your draft was kept; check it and save again.' }))
      expect(await form.getByRole('textbox', { name: 'Client name' }).inputValue()).toBe('Older draft app (renamed)')
      expect(await form.getByRole('textbox', { name: 'JWKS URI' }).inputValue()).toBe('https://older.example.com/jwks.json')
      expect(await form.getByRole('textbox', { name: 'JWT bearer grant: access token' }).inputValue()).toBe('2h0m0s')
      expect(await form.getByRole('textbox', { name: 'Device authorization grant: refresh token' }).inputValue()).toBe('720h0m0s')
      await form.getByRole('button', { name: 'Save' }).click()
      await tab.getByRole('status').getByText('Client Older draft app (renamed) saved.').waitFor()
      expect(hydra.clients.get(client.client_id)).toMatchObject({
        client_name: 'Older draft app (renamed)',
        jwks_uri: 'https://older.example.com/jwks.json',
        token_endpoint_auth_method: 'private_key_jwt',
        lifespans: { jwt_bearer_grant_access_token_lifespan: '2h0m0s', device_authorization_grant_refresh_token_lifespan: '720h0m0s' },
      })
      expect(other.problems.filter((problem) => !problem.includes('401'))).toEqual([])
    } finally {
      await other.context.close()
    }
  })

  test('Delete pressed twice (a double click) sends one DELETE; Revoke pressed twice (Enter, Enter) revokes once', async () => {
    const { hydra } = admin.harness.sandbox
    const client = await openNewClient({ client_name: 'Legacy kiosk', redirect_uris: ['https://kiosk.example.com/callback'] })
    // Hydra answers slowly, so the second press arrives while the first request runs.
    hydra.delayMs = 400
    try {
      await admin.page.getByRole('button', { name: 'Revoke tokens' }).click()
      const revokeDialog = admin.page.getByRole('dialog', { name: 'Revoke tokens?' })
      await revokeDialog.getByRole('button', { name: 'Revoke' }).focus()
      await admin.page.keyboard.press('Enter')
      await admin.page.keyboard.press('Enter')
      await admin.page.getByRole('status').getByText('The access tokens of Legacy kiosk were revoked.').waitFor()
      expect(hydra.revokedTokens.filter((id) => id === client.client_id)).toEqual([client.client_id])

      await admin.page.getByRole('button', { name: 'Delete client' }).click()
      const deleteDialog = admin.page.getByRole('dialog', { name: 'Delete client?' })
      const confirm = deleteDialog.getByRole('button', { name: 'Delete' })
      await confirm.dblclick()
      expect(await confirm.isDisabled()).toBe(true)
      await admin.page.screenshot({ path: join(SCREENSHOT_DIR, 'oauth-client-deleting.png') })
      await admin.page.getByRole('heading', { level: 1, name: 'OAuth clients' }).waitFor()
    } finally {
      hydra.delayMs = 0
    }
    const deletes = hydra.calls.filter((call) => call.method === 'DELETE' && call.path === `/admin/clients/${client.client_id}`)
    expect(deletes.length).toBe(1)
    expect(hydra.clients.has(client.client_id)).toBe(false)
    expect((await proxyWrites(client.client_id, 'DELETE')).length).toBe(1)
    expect(admin.problems).toEqual([])
  })

  test("Hydra refusing the service's API key (401) is said on the list, which stays: the dashboard session is not taken for ended (no sign-in loop)", async () => {
    const { hydra } = admin.harness.sandbox
    const page = admin.page
    const navigations: string[] = []
    const onNavigation = (frame: { url(): string }) => frame === page.mainFrame() && navigations.push(frame.url())
    try {
      // Hydra refuses from here on: not before, where the list the last test left this page on may
      // still be reading (its 401 would be reported too).
      await page.goto(admin.url('/dashboard/settings'))
      await page.waitForLoadState('networkidle')
      hydra.failWith = 401
      page.on('framenavigated', onNavigation)
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'OAuth clients' }).click()
      await page.getByRole('alert').getByText("Hydra did not accept this service's credentials (HTTP 401). Check its API key under Settings.").waitFor()
      await Bun.sleep(1500)
    } finally {
      hydra.failWith = null
      page.off('framenavigated', onNavigation)
    }
    // The in-app link changes the address without loading a page; a sign-in would load several.
    expect(navigations.filter((url) => !url.endsWith('/dashboard/oauth-clients'))).toEqual([])
    expect((await page.request.get(admin.url('/api/auth/session'))).status()).toBe(200)
    await page.getByRole('button', { name: 'Retry' }).click()
    await page.getByRole('table', { name: /OAuth clients/ }).waitFor()
    await expectRefusalReported(401)
  })

  test('Revoke tokens refused by an unavailable Hydra (503) names Hydra and says to wait and try again', async () => {
    const { hydra } = admin.harness.sandbox
    await openNewClient({ client_name: 'Busy Hydra app', redirect_uris: ['https://busy.example.com/callback'] })
    hydra.failWith = 503
    try {
      await admin.page.getByRole('button', { name: 'Revoke tokens' }).click()
      const dialog = admin.page.getByRole('dialog', { name: 'Revoke tokens?' })
      await dialog.getByRole('button', { name: 'Revoke' }).click()
      await dialog.getByRole('alert').getByText('Hydra is unavailable for the moment (HTTP 503). Wait a moment and try again.').waitFor()
      await expectRefusalReported(503)
      await dialog.getByRole('button', { name: 'Cancel' }).click()
    } finally {
      hydra.failWith = null
    }
  })

  test('a refused Delete or Revoke says so inside its dialog, which stays open for another try; Cancel dismisses it', async () => {
    const { hydra } = admin.harness.sandbox
    const client = await openNewClient({ client_name: 'Flaky partner', redirect_uris: ['https://flaky.example.com/callback'] })

    hydra.failWith = 500
    try {
      await admin.page.getByRole('button', { name: 'Revoke tokens' }).click()
      const revokeDialog = admin.page.getByRole('dialog', { name: 'Revoke tokens?' })
      await revokeDialog.getByRole('button', { name: 'Revoke' }).click()
      await revokeDialog.getByRole('alert').waitFor()
      await expectRefusalReported()
      // Nothing outside the open dialog says it, where the modal would hide it.
      expect(await admin.page.getByRole('alert').count()).toBe(1)
      await revokeDialog.getByRole('button', { name: 'Cancel' }).click()
      await revokeDialog.waitFor({ state: 'hidden' })
      expect(await admin.page.getByRole('alert').count()).toBe(0)

      await admin.page.getByRole('button', { name: 'Delete client' }).click()
      const deleteDialog = admin.page.getByRole('dialog', { name: 'Delete client?' })
      expect(await deleteDialog.getByRole('alert').count()).toBe(0)
      await deleteDialog.getByRole('button', { name: 'Delete' }).press('Enter')
      await deleteDialog.getByRole('alert').waitFor()
      await expectRefusalReported()
      await admin.page.screenshot({ path: join(SCREENSHOT_DIR, 'oauth-client-delete-refused.png') })
      expect(hydra.clients.has(client.client_id)).toBe(true)
    } finally {
      hydra.failWith = null
    }
    // Hydra is back: the same dialog, the same button, and the client is gone.
    await admin.page.getByRole('dialog', { name: 'Delete client?' }).getByRole('button', { name: 'Delete' }).press('Enter')
    await admin.page.getByRole('heading', { level: 1, name: 'OAuth clients' }).waitFor()
    expect(hydra.clients.has(client.client_id)).toBe(false)
    expect(admin.problems).toEqual([])
  })

  test('a question whose change is under way stays until it is answered: Cancel is unavailable with the change’s button and Escape does nothing, so nothing is done behind a Cancel', async () => {
    const { hydra } = admin.harness.sandbox
    const page = admin.page
    const secret = page.getByRole('textbox', { name: 'Client secret', exact: true })
    const form = page.getByRole('region', { name: 'Edit client' })
    const question = page.getByRole('dialog', { name: 'Save with a new secret?' })
    const clientUrl = (id: string) => (url: URL) => url.pathname === `/api/oauth-admin/admin/clients/${encodeURIComponent(id)}`
    const focused = () => page.evaluate(() => `${document.activeElement?.closest('dialog') ? 'in the dialog: ' : ''}${document.activeElement?.textContent}`)
    /**
     * While its request is held: both buttons unavailable (marked so, not disabled: focus stays on the
     * pressed one, inside the question), the question busy and saying it waits, and Escape, pressed
     * twice, leaves it open.
     */
    const staysWhileHeld = async (dialog: Locator, action: string) => {
      await dialog.locator('button[aria-disabled="true"]', { hasText: 'Cancel' }).waitFor()
      expect(await dialog.getByRole('button', { name: action }).getAttribute('aria-disabled')).toBe('true')
      expect(await page.evaluate(() => (document.activeElement?.closest('dialog') ? document.activeElement.textContent : 'outside the question'))).toBe(action)
      expect(await dialog.getAttribute('aria-busy')).toBe('true')
      await dialog.getByText('Waiting for the answer: this question closes when it comes.').waitFor()
      // Twice: Chromium lets a page refuse a dialog's cancel event only once per click or key other than Escape.
      await page.keyboard.press('Escape')
      await page.keyboard.press('Escape')
      expect(await dialog.isVisible()).toBe(true)
    }

    // Save with a new secret: Cancel would seem to keep the client as it was while its secret changes.
    const switched = await openNewClient({ client_name: 'Held switch', token_endpoint_auth_method: 'none', redirect_uris: ['com.example.held:/callback'] })
    await page.getByRole('button', { name: 'Edit client' }).click()
    await form.getByRole('combobox', { name: 'Token endpoint authentication' }).selectOption('client_secret_basic')
    let hold = await holdRequests(page, clientUrl(switched.client_id), 'PATCH')
    try {
      await form.getByRole('button', { name: 'Save' }).click()
      await question.getByRole('button', { name: 'Save' }).click()
      await staysWhileHeld(question, 'Save')
      await question.getByRole('button', { name: 'Cancel' }).click({ force: true })
      expect(await question.isVisible()).toBe(true)
      expect(hydra.clients.get(switched.client_id)!.token_endpoint_auth_method).toBe('none')
      hold.release()
      await page.getByRole('status').getByText('Client Held switch saved with a new secret, shown once: copy it now.').waitFor()
    } finally {
      await hold.stop()
    }
    await question.waitFor({ state: 'hidden' })
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('secret-h')
    expect(hydra.clients.get(switched.client_id)).toMatchObject({ token_endpoint_auth_method: 'client_secret_basic', secret: (await secret.inputValue())! })
    expect(clientCalls(switched.client_id, 'PATCH')).toBe(1)
    await page.getByRole('button', { name: 'Dismiss the client secret' }).click()

    // Delete, from the keyboard, refused once its answer comes: the question is free again, with the
    // refusal in it and focus back on Delete; Escape then closes it and the client stays.
    const kept = await openNewClient({ client_name: 'Held delete', redirect_uris: ['https://held.example.com/callback'] })
    const deleting = page.getByRole('dialog', { name: 'Delete client?' })
    hold = await holdRequests(page, clientUrl(kept.client_id), 'DELETE')
    try {
      await page.getByRole('button', { name: 'Delete client' }).click()
      await deleting.getByRole('button', { name: 'Delete' }).press('Enter')
      await staysWhileHeld(deleting, 'Delete')
      hydra.failWith = 500
      hold.release()
      await deleting.getByRole('alert').waitFor()
    } finally {
      hydra.failWith = null
      await hold.stop()
    }
    await expectRefusalReported()
    await page.waitForFunction(() => document.activeElement?.textContent === 'Delete' && document.activeElement.closest('dialog') !== null)
    expect(await deleting.getByRole('button', { name: 'Cancel' }).isEnabled()).toBe(true)
    await page.keyboard.press('Escape')
    await deleting.waitFor({ state: 'hidden' })
    expect(await focused()).toBe('Delete client')
    expect(hydra.clients.has(kept.client_id)).toBe(true)

    // A question opened while another change runs (a Save of the form) is not that change: Cancel and
    // Escape close it, and the Save ends as it would have.
    await page.getByRole('button', { name: 'Edit client' }).click()
    await form.getByRole('textbox', { name: 'Client name' }).fill('Held delete (kept)')
    hold = await holdRequests(page, clientUrl(kept.client_id), 'PATCH')
    try {
      await form.getByRole('button', { name: 'Save' }).click()
      await form.locator('button[aria-disabled="true"]', { hasText: 'Save' }).waitFor()
      await page.getByRole('button', { name: 'Delete client' }).click()
      expect(await deleting.getByRole('button', { name: 'Delete' }).getAttribute('aria-disabled')).toBe('true')
      await deleting.getByRole('button', { name: 'Cancel' }).click()
      await deleting.waitFor({ state: 'hidden' })
      await page.getByRole('button', { name: 'Delete client' }).click()
      await page.keyboard.press('Escape')
      await deleting.waitFor({ state: 'hidden' })
      expect(await focused()).toBe('Delete client')
      hold.release()
      await page.getByRole('status').getByText('Client Held delete (kept) saved.').waitFor()
    } finally {
      await hold.stop()
    }
    expect(hydra.clients.get(kept.client_id)!.client_name).toBe('Held delete (kept)')
    expect(admin.problems).toEqual([])
  })

  test('Create client and an edit’s Save under way keep focus on their button: it is unavailable and the form busy until Hydra answers, and Enter meanwhile sends nothing more', async () => {
    const { hydra } = admin.harness.sandbox
    const page = admin.page
    const focused = () => page.evaluate(() => `${document.activeElement?.closest('dialog') ? 'in the dialog: ' : ''}${document.activeElement?.textContent}`)
    const creates = () => hydra.calls.filter((call) => call.method === 'POST' && call.path === '/admin/clients').length
    await page.goto(admin.url('/dashboard/oauth-clients'))
    await page.getByRole('table', { name: 'OAuth clients' }).waitFor()
    await page.getByRole('button', { name: 'Create client' }).click()
    const dialog = page.getByRole('dialog', { name: 'Create client' })
    await dialog.getByRole('textbox', { name: 'Client name' }).fill('Held create')
    await dialog.getByRole('textbox', { name: 'Redirect URIs', exact: true }).fill('https://held-create.example.com/cb')
    const before = creates()
    let hold = await holdRequests(page, (url) => url.pathname === '/api/oauth-admin/admin/clients', 'POST')
    try {
      await dialog.getByRole('button', { name: 'Create client' }).focus()
      const asked = page.waitForRequest((request) => request.method() === 'POST')
      await page.keyboard.press('Enter')
      await asked
      expect(await focused()).toBe('in the dialog: Create client')
      expect(await dialog.getByRole('button', { name: 'Create client' }).getAttribute('aria-disabled')).toBe('true')
      expect(await dialog.locator('form').getAttribute('aria-busy')).toBe('true')
      await page.keyboard.press('Enter')
      hold.release()
      await page.getByRole('status').getByText('Client Held create created; its secret is shown once, below.').waitFor()
    } finally {
      await hold.stop()
    }
    await page.getByRole('heading', { level: 1, name: 'Held create' }).waitFor()
    expect(creates() - before).toBe(1)
    await page.getByRole('button', { name: 'Dismiss the client secret' }).click()

    // The edit's Save, reached by Enter in a field and pressed again meanwhile: one PATCH, focus kept.
    const created = [...hydra.clients.values()].find((client) => client.client_name === 'Held create')!
    const form = page.getByRole('region', { name: 'Edit client' })
    await page.getByRole('button', { name: 'Edit client' }).click()
    const name = form.getByRole('textbox', { name: 'Client name' })
    await name.fill('Held create (renamed)')
    hold = await holdRequests(page, (url) => url.pathname === `/api/oauth-admin/admin/clients/${encodeURIComponent(created.client_id)}`, 'PATCH')
    try {
      await form.getByRole('button', { name: 'Save' }).focus()
      const asked = page.waitForRequest((request) => request.method() === 'PATCH')
      await page.keyboard.press('Enter')
      await asked
      expect(await focused()).toBe('Save')
      expect(await form.getByRole('button', { name: 'Save' }).getAttribute('aria-disabled')).toBe('true')
      expect(await form.locator('form').getAttribute('aria-busy')).toBe('true')
      await page.keyboard.press('Enter')
      await name.press('Enter')
      hold.release()
      await page.getByRole('status').getByText('Client Held create (renamed) saved.').waitFor()
    } finally {
      await hold.stop()
    }
    expect(clientCalls(created.client_id, 'PATCH')).toBe(1)
    expect(hydra.clients.get(created.client_id)!.client_name).toBe('Held create (renamed)')
    expect(admin.problems).toEqual([])
  })

  test('a Create Hydra did not answer in time is said to be of unknown outcome: the dialog closes rather than invite a second client, and the list is read again', async () => {
    const { hydra } = admin.harness.sandbox
    const page = admin.page
    await page.goto(admin.url('/dashboard/oauth-clients'))
    await page.getByRole('table', { name: 'OAuth clients' }).waitFor()
    await page.getByRole('button', { name: 'Create client' }).click()
    const dialog = page.getByRole('dialog', { name: 'Create client' })
    await dialog.getByRole('textbox', { name: 'Client name' }).fill('Late tool')
    await dialog.getByRole('textbox', { name: 'Redirect URIs', exact: true }).fill('https://late.example.com/cb')
    const listReads = () => hydra.calls.filter((call) => call.method === 'GET' && call.path === '/admin/clients').length
    const readsBefore = listReads()
    const stop = await answerTooLate(page, 'POST', (url) => url.pathname === '/api/oauth-admin/admin/clients')
    try {
      await dialog.getByRole('button', { name: 'Create client' }).click()
      const unknown = page.getByRole('alert').filter({ hasText: 'Hydra did not answer in time. The client may have been created: check the list before creating it again.' })
      await unknown.waitFor()
      await unknown.getByText('If it is, its secret cannot be shown any more: Replace secret on its page gives it a new one.', { exact: false }).waitFor()
    } finally {
      await stop()
    }
    await dialog.waitFor({ state: 'hidden' })
    for (let waited = 0; listReads() === readsBefore && waited < 5000; waited += 50) await Bun.sleep(50)
    expect(listReads()).toBeGreaterThan(readsBefore)
    expect([...hydra.clients.values()].filter((client) => client.client_name === 'Late tool').length).toBe(1)
    // Create client opens again with what was typed, for the case it was not made after all.
    await page.getByRole('button', { name: 'Create client' }).click()
    expect(await dialog.getByRole('textbox', { name: 'Client name' }).inputValue()).toBe('Late tool')
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    expect(admin.problems.splice(0).every((problem) => /status of 504\b/.test(problem))).toBe(true)
  })

  test('the notice of a Create Hydra did not answer in time, and the draft kept for the next Create client, belong to the list as it was: a search or another page lets go of both, and Back does not bring them back', async () => {
    const page = admin.page
    await page.goto(admin.url('/dashboard/oauth-clients'))
    const table = page.getByRole('table', { name: 'OAuth clients' })
    await table.waitFor()
    const dialog = page.getByRole('dialog', { name: 'Create client' })
    const clientName = dialog.getByRole('textbox', { name: 'Client name' })
    const notice = page.getByRole('alert').filter({ hasText: 'Hydra did not answer in time. The client may have been created' })
    /** A Create client whose answer is lost: the notice is shown and the dialog closes with its draft kept. */
    const lateCreate = async (name: string) => {
      await page.getByRole('button', { name: 'Create client' }).click()
      await clientName.fill(name)
      await dialog.getByRole('textbox', { name: 'Redirect URIs', exact: true }).fill('https://late.example.com/cb')
      const stop = await answerTooLate(page, 'POST', (url) => url.pathname === '/api/oauth-admin/admin/clients')
      try {
        await dialog.getByRole('button', { name: 'Create client' }).click()
        await notice.waitFor()
      } finally {
        await stop()
      }
      await dialog.waitFor({ state: 'hidden' })
    }
    /** Create client opens empty, and is cancelled. */
    const opensEmpty = async () => {
      await page.getByRole('button', { name: 'Create client' }).click()
      expect(await clientName.inputValue()).toBe('')
      await dialog.getByRole('button', { name: 'Cancel' }).click()
      await dialog.waitFor({ state: 'hidden' })
    }

    // A search.
    await lateCreate('Late search tool')
    await page.getByRole('searchbox', { name: 'Search clients by name' }).fill('Customer portal')
    await page.getByRole('searchbox', { name: 'Search clients by name' }).press('Enter')
    await table.getByRole('link', { name: 'Customer portal' }).waitFor()
    await notice.waitFor({ state: 'detached' })
    await opensEmpty()

    // Another page of the list, then Back.
    await page.getByRole('button', { name: 'Show all' }).click()
    await page.waitForURL((url) => !url.search.includes('name='))
    await table.waitFor()
    await lateCreate('Late paging tool')
    await page.getByRole('button', { name: 'Next page' }).click()
    await page.getByText('Page 2', { exact: true }).waitFor()
    await notice.waitFor({ state: 'detached' })
    await page.goBack()
    await page.getByText('Page 1', { exact: true }).waitFor()
    await table.waitFor()
    expect(await notice.count()).toBe(0)
    await opensEmpty()
    expect(admin.problems.splice(0).every((problem) => /status of 504\b/.test(problem))).toBe(true)
  })

  test('a client secret shown once is not lost without a question: a menu link asks first, a reload gets the browser\'s question, Dismiss lets go', async () => {
    const page = admin.page
    const asked: string[] = []
    let answer = false
    const onDialog = (dialog: import('playwright-core').Dialog) => {
      asked.push(dialog.type() === 'beforeunload' ? 'beforeunload' : `${dialog.type()}: ${dialog.message()}`)
      void (answer ? dialog.accept() : dialog.dismiss())
    }
    page.on('dialog', onDialog)
    try {
      const create = async (name: string) => {
        await page.goto(admin.url('/dashboard/oauth-clients'))
        await page.getByRole('button', { name: 'Create client' }).click()
        const dialog = page.getByRole('dialog', { name: 'Create client' })
        await dialog.getByRole('textbox', { name: 'Client name' }).fill(name)
        await dialog.getByRole('textbox', { name: 'Redirect URIs', exact: true }).fill('https://once.example.com/cb')
        await dialog.getByRole('button', { name: 'Create client' }).click()
        await page.getByRole('heading', { level: 1, name }).waitFor()
      }
      await create('Once app')
      const secret = page.getByRole('textbox', { name: 'Client secret', exact: true })
      await secret.waitFor()
      expect(await sweep(page, 'client-secret-shown', () => secret.waitFor())).toEqual([])
      const menuLink = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'OAuth clients' })
      await menuLink.click()
      expect(asked.splice(0)).toEqual(['confirm: The client secret is shown only once: leaving this page loses it for good. Leave anyway?'])
      await secret.waitFor()
      // Reload: the browser asks (answered OK here, so the reload happens and the secret is gone).
      answer = true
      await page.reload()
      await page.getByRole('heading', { level: 1, name: 'Once app' }).waitFor()
      expect(asked.splice(0)).toEqual(['beforeunload'])
      expect(await secret.count()).toBe(0)

      answer = false
      await create('Once app 2')
      await page.getByRole('button', { name: 'Dismiss the client secret' }).click()
      await secret.waitFor({ state: 'detached' })
      await menuLink.click()
      await page.getByRole('heading', { level: 1, name: 'OAuth clients' }).waitFor()
      expect(asked).toEqual([])
    } finally {
      page.off('dialog', onDialog)
    }
    expect(admin.problems).toEqual([])
  })

  test('an admin makes a public client confidential (client_secret_basic), answering Save to the question first: the new secret is shown once, Hydra holds that very secret, and leaving the page while it is shown asks first', async () => {
    const { hydra } = admin.harness.sandbox
    const page = admin.page
    await admin.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: admin.harness.sandbox.url })
    const client = await openNewClient({ client_name: 'Kiosk backend', token_endpoint_auth_method: 'none', redirect_uris: ['com.example.kiosk:/callback'] })
    // Hydra gave it a secret at create and told nobody.
    const hidden = hydra.clients.get(client.client_id)!.secret
    const secret = page.getByRole('textbox', { name: 'Client secret', exact: true })
    const form = page.getByRole('region', { name: 'Edit client' })

    // An edit that keeps it public sends no secret.
    await page.getByRole('button', { name: 'Edit client' }).click()
    await form.getByRole('textbox', { name: 'Client name' }).fill('Kiosk server')
    await form.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('status').getByText('Client Kiosk server saved.').waitFor()
    expect(hydra.clients.get(client.client_id)!.secret).toBe(hidden)
    expect(await secret.count()).toBe(0)

    await page.getByRole('button', { name: 'Edit client' }).click()
    await form.getByRole('combobox', { name: 'Token endpoint authentication' }).selectOption('client_secret_basic')
    const patches = clientCalls(client.client_id, 'PATCH')
    // Its applications get no token without the new secret: asked first, as every switch to a secret
    // is (whether anyone knew a secret before cannot be told from Hydra). The question opens on
    // Cancel (the secret it sets cannot be taken back); Enter on its Save, one Shift+Tab away.
    await form.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('dialog', { name: 'Save with a new secret?' }).waitFor()
    expect(await page.evaluate(() => document.activeElement?.closest('dialog') !== null && document.activeElement?.textContent)).toBe('Cancel')
    await page.keyboard.press('Shift+Tab')
    expect(await page.evaluate(() => document.activeElement?.closest('dialog') !== null && document.activeElement?.textContent)).toBe('Save')
    await page.keyboard.press('Enter')
    await page.getByRole('status').getByText('Client Kiosk server saved with a new secret, shown once: copy it now.').waitFor()
    // Focus is on the secret, for the person to copy it.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('secret-h')
    const stored = hydra.clients.get(client.client_id)!
    expect(stored.token_endpoint_auth_method).toBe('client_secret_basic')
    expect(stored.secret).not.toBe(hidden)
    expect(await secret.inputValue()).toBe(stored.secret)
    expect(stored.secret).toMatch(/^[A-Za-z0-9_-]{43}$/)
    // One request set the method and the secret.
    expect(clientCalls(client.client_id, 'PATCH')).toBe(patches + 1)
    await page.getByRole('region', { name: 'Client', exact: true }).getByText('Confidential').waitFor()
    await page.getByRole('button', { name: 'Copy' }).click()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(stored.secret)
    expect(await sweep(page, 'client-secret-after-edit', () => secret.waitFor())).toEqual([])

    // Leaving asks first; answered Cancel, the secret stays.
    const questions = answerQuestions(page)
    try {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'OAuth clients' }).click()
      expect(questions.asked.splice(0)).toEqual(['confirm: The client secret is shown only once: leaving this page loses it for good. Leave anyway?'])
      expect(await secret.inputValue()).toBe(stored.secret)
      await page.getByRole('button', { name: 'Dismiss the client secret' }).click()
      await secret.waitFor({ state: 'detached' })
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'OAuth clients' }).click()
      await page.getByRole('heading', { level: 1, name: 'OAuth clients' }).waitFor()
      expect(questions.asked).toEqual([])
    } finally {
      questions.stop()
    }
    expect(admin.problems).toEqual([])
  })

  test('a new secret whose change Hydra did not answer in time stays on screen, said to be uncertain; one made meanwhile by someone else is not replaced', async () => {
    const { hydra } = admin.harness.sandbox
    const page = admin.page
    const secret = page.getByRole('textbox', { name: 'Client secret', exact: true })
    const form = page.getByRole('region', { name: 'Edit client' })
    const uncertain = "Hydra's answer did not come through, so whether this is now the client's secret is not known. Keep it: if the client cannot authenticate with it, use Replace secret."
    const patches = (url: URL) => url.pathname.startsWith('/api/oauth-admin/admin/clients/')

    // The switch to a secret: Hydra makes it, the answer is lost.
    const late = await openNewClient({ client_name: 'Late switch', token_endpoint_auth_method: 'none', redirect_uris: ['com.example.late:/callback'] })
    await page.getByRole('button', { name: 'Edit client' }).click()
    await form.getByRole('combobox', { name: 'Token endpoint authentication' }).selectOption('client_secret_basic')
    const question = page.getByRole('dialog', { name: 'Save with a new secret?' })
    let stop = await answerTooLate(page, 'PATCH', patches)
    try {
      await form.getByRole('button', { name: 'Save' }).click()
      await question.getByRole('button', { name: 'Save' }).click()
      await page.getByText(uncertain).waitFor()
    } finally {
      await stop()
    }
    expect(hydra.clients.get(late.client_id)!.secret).toBe((await secret.inputValue())!)
    expect(await page.getByRole('alert').filter({ hasText: 'Hydra did not answer in time. The change may have been made' }).count()).toBe(1)
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('secret-h')
    // Save again, not asked again (it was answered): the client read again uses a secret now; whose
    // cannot be told (Hydra keeps only a hash), so nothing is sent again and the secret on screen
    // stays marked uncertain.
    const patchesBefore = clientCalls(late.client_id, 'PATCH')
    await form.getByRole('button', { name: 'Save' }).click()
    await page
      .getByRole('status')
      .getByText('Late switch uses a secret now. Whether it is the one shown cannot be told: Hydra keeps only a hash of it. If the client cannot authenticate with it, use Replace secret.')
      .waitFor()
    expect(await question.count()).toBe(0)
    expect(clientCalls(late.client_id, 'PATCH')).toBe(patchesBefore)
    await page.getByText(uncertain).waitFor()
    await page.getByRole('button', { name: 'Replace secret' }).waitFor()
    expect(hydra.clients.get(late.client_id)!.secret).toBe((await secret.inputValue())!)
    await page.getByRole('button', { name: 'Dismiss the client secret' }).click()

    // Replace secret: the same.
    const replaced = await openNewClient({ client_name: 'Late replace', client_secret: 'late-replace-0123', redirect_uris: ['https://late.example.com/callback'] })
    await page.getByRole('button', { name: 'Replace secret' }).click()
    stop = await answerTooLate(page, 'PATCH', patches)
    try {
      await page.getByRole('dialog', { name: 'Replace the client secret?' }).getByRole('button', { name: 'Replace' }).click()
      await page.getByText(uncertain).waitFor()
    } finally {
      await stop()
    }
    expect(hydra.clients.get(replaced.client_id)!.secret).toBe((await secret.inputValue())!)
    await page.getByRole('button', { name: 'Dismiss the client secret' }).click()

    // An answer cut short after Hydra made the change (502): the same.
    const cut = async (route: import('playwright-core').Route) => {
      if (route.request().method() !== 'PATCH') return route.continue()
      await route.fetch()
      await route.fulfill({ status: 502, contentType: 'application/json', body: JSON.stringify({ error: 'bad_gateway', message: 'The upstream service failed.' }) })
    }
    await page.route(patches, cut)
    try {
      await page.getByRole('button', { name: 'Replace secret' }).click()
      await page.getByRole('dialog', { name: 'Replace the client secret?' }).getByRole('button', { name: 'Replace' }).click()
      await page.getByText(uncertain).waitFor()
    } finally {
      await page.unroute(patches, cut)
    }
    expect(hydra.clients.get(replaced.client_id)!.secret).toBe((await secret.inputValue())!)
    await page.getByRole('button', { name: 'Dismiss the client secret' }).click()

    // Someone else made the same switch meanwhile and handed out their secret: it stays.
    const shared = await openNewClient({ client_name: 'Shared switch', token_endpoint_auth_method: 'none', redirect_uris: ['com.example.shared:/callback'] })
    await page.getByRole('button', { name: 'Edit client' }).click()
    await form.getByRole('combobox', { name: 'Token endpoint authentication' }).selectOption('client_secret_post')
    hydra.clients.get(shared.client_id)!.token_endpoint_auth_method = 'client_secret_basic'
    hydra.clients.get(shared.client_id)!.secret = 'someone-elses-secret-0123'
    await form.getByRole('button', { name: 'Save' }).click()
    await question.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('alert').getByText(/^Nothing was saved: the client's token endpoint authentication was changed meanwhile/).waitFor()
    expect(hydra.clients.get(shared.client_id)!.secret).toBe('someone-elses-secret-0123')
    expect(hydra.clients.get(shared.client_id)!.token_endpoint_auth_method).toBe('client_secret_basic')
    expect(await secret.count()).toBe(0)
    expect(admin.problems.splice(0).every((problem) => /status of 50[24]\b/.test(problem))).toBe(true)
  })

  test('only a Save again of the edit whose own new secret went unanswered is not asked again: a secret left uncertain by Replace secret or by an edit left since does not stand for the question', async () => {
    const { hydra } = admin.harness.sandbox
    const page = admin.page
    const secret = page.getByRole('textbox', { name: 'Client secret', exact: true })
    const form = page.getByRole('region', { name: 'Edit client' })
    const method = form.getByRole('combobox', { name: 'Token endpoint authentication' })
    const question = page.getByRole('dialog', { name: 'Save with a new secret?' })
    const uncertain = page.getByText(/whether this is now the client's secret is not known/)
    const patches = (url: URL) => url.pathname.startsWith('/api/oauth-admin/admin/clients/')

    // Replace secret, made by Hydra but answered too late: its secret stays on screen, uncertain.
    const client = await openNewClient({ client_name: 'Relay', client_secret: 'relay-secret-0123', redirect_uris: ['https://relay.example.com/callback'] })
    const id = client.client_id
    await page.getByRole('button', { name: 'Replace secret' }).click()
    let stop = await answerTooLate(page, 'PATCH', patches)
    try {
      await page.getByRole('dialog', { name: 'Replace the client secret?' }).getByRole('button', { name: 'Replace' }).click()
      await uncertain.waitFor()
    } finally {
      await stop()
    }
    const replaced = (await secret.inputValue())!
    expect(hydra.clients.get(id)!.secret).toBe(replaced)

    // Made public (no secret to ask about), then made to use a secret again: the new one would end
    // the secret its applications may have just been given, so the question comes; Cancel sends nothing.
    await page.getByRole('button', { name: 'Edit client' }).click()
    await method.selectOption('none')
    await form.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('status').getByText('Client Relay saved.').waitFor()
    expect(hydra.clients.get(id)).toMatchObject({ token_endpoint_auth_method: 'none', secret: replaced })
    await page.getByRole('button', { name: 'Edit client' }).click()
    await method.selectOption('client_secret_basic')
    const sent = clientCalls(id, 'PATCH')
    await form.getByRole('button', { name: 'Save' }).click()
    await question.waitFor()
    await question.getByRole('button', { name: 'Cancel' }).click()
    await question.waitFor({ state: 'hidden' })
    expect(clientCalls(id, 'PATCH')).toBe(sent)
    expect(hydra.clients.get(id)).toMatchObject({ token_endpoint_auth_method: 'none', secret: replaced })

    // Answered Save, answered too late in turn: the Save again of this edit reads the client and
    // sends nothing more (that exception stays). Left and edited again, the question comes back.
    stop = await answerTooLate(page, 'PATCH', patches)
    try {
      await form.getByRole('button', { name: 'Save' }).click()
      await question.getByRole('button', { name: 'Save' }).click()
      await page.getByRole('alert').filter({ hasText: 'Hydra did not answer in time.' }).waitFor()
    } finally {
      await stop()
    }
    const switched = hydra.clients.get(id)!
    expect(switched.token_endpoint_auth_method).toBe('client_secret_basic')
    expect(await secret.inputValue()).toBe(switched.secret)
    await form.getByRole('button', { name: 'Cancel' }).click()
    await page.getByRole('button', { name: 'Edit client' }).click()
    await method.selectOption('client_secret_basic')
    await form.getByRole('button', { name: 'Save' }).click()
    await question.waitFor()
    await question.getByRole('button', { name: 'Cancel' }).click()
    await question.waitFor({ state: 'hidden' })
    expect(clientCalls(id, 'PATCH')).toBe(sent + 1)
    expect(hydra.clients.get(id)!.secret).toBe(switched.secret)
    await page.getByRole('button', { name: 'Dismiss the client secret' }).click()
    expect(admin.problems.splice(0).every((problem) => /status of 504\b/.test(problem))).toBe(true)
  })

  test('a switch back to a secret, or from private_key_jwt, asks before Save: Cancel and Escape send nothing and keep the edit; Save sets a new secret, reading the client once, and a list changed meanwhile still stops it', async () => {
    const { hydra } = admin.harness.sandbox
    const page = admin.page
    const secret = page.getByRole('textbox', { name: 'Client secret', exact: true })
    const form = page.getByRole('region', { name: 'Edit client' })
    const question = page.getByRole('dialog', { name: 'Save with a new secret?' })
    const method = form.getByRole('combobox', { name: 'Token endpoint authentication' })
    const uris = form.getByRole('textbox', { name: 'Redirect URIs', exact: true })
    const focused = () => page.evaluate(() => `${document.activeElement?.closest('dialog') ? 'in the dialog: ' : ''}${document.activeElement?.textContent}`)
    const formSaveFocused = () => page.waitForFunction(() => document.activeElement?.textContent === 'Save' && document.activeElement.closest('dialog') === null)

    // A confidential client made public by mistake through Hydra's API: Hydra keeps its secret's hash
    // (a PATCH without a secret keeps the stored one), so the applications' secret is still there.
    const client = hydra.addClient({ client_name: 'Billing', client_secret: 'billing-secret-0123', token_endpoint_auth_method: 'client_secret_post', redirect_uris: ['https://billing.example.com/callback'] })
    const id = client.client_id
    expect((await throughProxy('PATCH', `/admin/clients/${encodeURIComponent(id)}`, [{ op: 'replace', path: '/token_endpoint_auth_method', value: 'none' }])).status).toBe(200)
    await page.goto(admin.url(`/dashboard/oauth-clients/${encodeURIComponent(id)}`))
    await page.getByRole('region', { name: 'Client', exact: true }).getByText('Public (no secret)').waitFor()
    await page.getByRole('button', { name: 'Edit client' }).click()
    await method.selectOption('client_secret_post')
    await form.getByRole('textbox', { name: 'Client name' }).fill('Billing (EU)')
    const patches = clientCalls(id, 'PATCH')
    const gets = clientCalls(id, 'GET')
    const untouched = async () => {
      // Nothing was sent, not even the read before a save; the edit is still in the form.
      expect(clientCalls(id, 'PATCH')).toBe(patches)
      expect(clientCalls(id, 'GET')).toBe(gets)
      expect(hydra.clients.get(id)).toMatchObject({ client_name: 'Billing', token_endpoint_auth_method: 'none', secret: 'billing-secret-0123' })
      expect(await method.inputValue()).toBe('client_secret_post')
      expect(await form.getByRole('textbox', { name: 'Client name' }).inputValue()).toBe('Billing (EU)')
      expect(await secret.count()).toBe(0)
    }

    await form.getByRole('button', { name: 'Save' }).click()
    await question
      .getByText(
        'Billing gets a new secret, shown once, and authenticates with it from now on. Any secret it had before stops working at once: applications using the client cannot get tokens until they are given the new one.',
      )
      .waitFor()
    expect(await focused()).toBe('in the dialog: Cancel')
    expect(await sweep(page, 'client-save-new-secret', () => question.waitFor())).toEqual([])
    await question.getByRole('button', { name: 'Cancel' }).click()
    await question.waitFor({ state: 'hidden' })
    await formSaveFocused()
    await untouched()

    // Keyboard: Enter on Save asks, with focus on Cancel; Escape answers Cancel.
    await page.keyboard.press('Enter')
    await question.waitFor()
    expect(await focused()).toBe('in the dialog: Cancel')
    await page.keyboard.press('Escape')
    await question.waitFor({ state: 'hidden' })
    await formSaveFocused()
    await untouched()

    // A redirect URI too, then Save in the question: one read serves the changed-meanwhile check and
    // the check of the method, and one PATCH sets everything with the new secret.
    await uris.fill('https://billing.example.com/callback\nhttps://billing.example.com/eu/callback')
    await form.getByRole('button', { name: 'Save' }).click()
    await question.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('status').getByText('Client Billing (EU) saved with a new secret, shown once: copy it now.').waitFor()
    await question.waitFor({ state: 'hidden' })
    const stored = hydra.clients.get(id)!
    expect(stored).toMatchObject({ token_endpoint_auth_method: 'client_secret_post', redirect_uris: ['https://billing.example.com/callback', 'https://billing.example.com/eu/callback'] })
    expect(stored.secret).not.toBe('billing-secret-0123')
    expect(await secret.inputValue()).toBe(stored.secret)
    expect(clientCalls(id, 'PATCH')).toBe(patches + 1)
    expect(clientCalls(id, 'GET')).toBe(gets + 1)
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('secret-h')
    await page.getByRole('button', { name: 'Dismiss the client secret' }).click()

    // A private_key_jwt client (Hydra wants its keys, here a jwks_uri) asks too. A redirect URI added
    // elsewhere meanwhile still stops the save once it is answered: nothing is sent, Reload has focus.
    const jwt = await openNewClient({
      client_name: 'Signing service',
      token_endpoint_auth_method: 'private_key_jwt',
      jwks_uri: 'https://signing.example.com/jwks.json',
      redirect_uris: ['https://signing.example.com/callback'],
    })
    const jwtSecret = hydra.clients.get(jwt.client_id)!.secret
    await page.getByRole('button', { name: 'Edit client' }).click()
    await method.selectOption('client_secret_basic')
    await uris.fill('https://signing.example.com/callback\nhttps://signing.example.com/mine')
    const elsewhere = await throughProxy('PATCH', `/admin/clients/${encodeURIComponent(jwt.client_id)}`, [
      { op: 'add', path: '/redirect_uris', value: ['https://signing.example.com/callback', 'https://signing.example.com/theirs'] },
    ])
    expect(elsewhere.status).toBe(200)
    const jwtPatches = clientCalls(jwt.client_id, 'PATCH')
    await form.getByRole('button', { name: 'Save' }).click()
    await question.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('alert').filter({ hasText: 'Not saved: this client changed since the page loaded.' }).waitFor()
    await page.waitForFunction(() => document.activeElement?.textContent === 'Reload')
    expect(await question.count()).toBe(0)
    expect(clientCalls(jwt.client_id, 'PATCH')).toBe(jwtPatches)
    expect(hydra.clients.get(jwt.client_id)).toMatchObject({ token_endpoint_auth_method: 'private_key_jwt', secret: jwtSecret })
    expect(await secret.count()).toBe(0)

    // Reload keeps the method chosen; Save asks again and saves both.
    await page.keyboard.press('Enter')
    await page.getByText('Your redirect URIs, not saved:').waitFor()
    expect(await method.inputValue()).toBe('client_secret_basic')
    await form.getByRole('button', { name: 'Save' }).click()
    await question.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('status').getByText('Client Signing service saved with a new secret, shown once: copy it now.').waitFor()
    const switched = hydra.clients.get(jwt.client_id)!
    expect(switched).toMatchObject({ token_endpoint_auth_method: 'client_secret_basic', redirect_uris: ['https://signing.example.com/callback', 'https://signing.example.com/theirs'] })
    expect(switched.secret).not.toBe(jwtSecret)
    expect(await secret.inputValue()).toBe(switched.secret)
    expect(clientCalls(jwt.client_id, 'PATCH')).toBe(jwtPatches + 1)
    await page.getByRole('button', { name: 'Dismiss the client secret' }).click()
    expect(admin.problems).toEqual([])
  })

  test('an admin replaces a confidential client’s secret: Cancel keeps it, Replace sets a new one in Hydra and shows it once', async () => {
    const { hydra } = admin.harness.sandbox
    const page = admin.page
    const client = await openNewClient({ client_name: 'Leaked secret app', client_secret: 'leaked-secret-0123', redirect_uris: ['https://leaked.example.com/callback'] })
    const secret = page.getByRole('textbox', { name: 'Client secret', exact: true })
    const dialog = page.getByRole('dialog', { name: 'Replace the client secret?' })
    await page.getByRole('button', { name: 'Replace secret' }).click()
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await dialog.waitFor({ state: 'hidden' })
    expect(hydra.clients.get(client.client_id)!.secret).toBe('leaked-secret-0123')

    // Keyboard: the button, then Enter on Replace.
    await page.getByRole('button', { name: 'Replace secret' }).press('Enter')
    await dialog.getByRole('button', { name: 'Replace' }).focus()
    await page.keyboard.press('Enter')
    await page.getByRole('status').getByText('Leaked secret app has a new secret, shown once: copy it now.').waitFor()
    const stored = hydra.clients.get(client.client_id)!.secret
    expect(stored).not.toBe('leaked-secret-0123')
    expect(await secret.inputValue()).toBe(stored)
    expect(clientCalls(client.client_id, 'PATCH')).toBe(1)
    await page.getByRole('button', { name: 'Dismiss the client secret' }).click()

    // A public client has no secret to replace.
    await openNewClient({ client_name: 'Public app', token_endpoint_auth_method: 'none', redirect_uris: ['com.example.public:/callback'] })
    await page.getByRole('button', { name: 'Edit client' }).waitFor()
    expect(await page.getByRole('button', { name: 'Replace secret' }).count()).toBe(0)
    expect(admin.problems).toEqual([])
  })

  test('a half-filled Create client and an unsaved client edit ask before the page is left; Cancel lets go, a successful Create opens the client without asking', async () => {
    const page = admin.page
    const menu = page.getByRole('navigation', { name: 'Main' })
    await page.goto(admin.url('/dashboard'))
    await menu.getByRole('link', { name: 'OAuth clients' }).click()
    const questions = answerQuestions(page)
    try {
      await page.getByRole('button', { name: 'Create client' }).click()
      const dialog = page.getByRole('dialog', { name: 'Create client' })
      await dialog.getByRole('textbox', { name: 'Client name' }).fill('Guarded app')
      // Back (the menu is behind the modal dialog), answered Cancel: the dialog and its draft stay.
      await page.goBack()
      await within(5000, () => questions.asked.length > 0)
      expect(questions.asked.splice(0)).toEqual(['confirm: Your changes to the new client are not saved. Leave anyway?'])
      await page.waitForURL(admin.url('/dashboard/oauth-clients'))
      expect(await dialog.getByRole('textbox', { name: 'Client name' }).inputValue()).toBe('Guarded app')
      // Created: the client's page opens without a question (its secret, shown once, guards it now).
      await dialog.getByRole('textbox', { name: 'Redirect URIs', exact: true }).fill('https://guarded.example.com/cb')
      await dialog.getByRole('button', { name: 'Create client' }).click()
      await page.getByRole('heading', { level: 1, name: 'Guarded app' }).waitFor()
      expect(questions.asked).toEqual([])
      await page.getByRole('button', { name: 'Dismiss the client secret' }).click()

      // The edit form: a menu link asks; Cancel lets go.
      await page.getByRole('button', { name: 'Edit client' }).click()
      const form = page.getByRole('region', { name: 'Edit client' })
      await form.getByRole('textbox', { name: 'Scope' }).fill('openid email')
      await menu.getByRole('link', { name: 'Sessions' }).click()
      expect(questions.asked.splice(0)).toEqual(['confirm: Your changes to the client are not saved. Leave anyway?'])
      expect(await form.getByRole('textbox', { name: 'Scope' }).inputValue()).toBe('openid email')
      await form.getByRole('button', { name: 'Cancel' }).click()
      await menu.getByRole('link', { name: 'Sessions' }).click()
      await page.getByRole('heading', { level: 1, name: 'Sessions' }).waitFor()
      expect(questions.asked).toEqual([])
    } finally {
      questions.stop()
    }
    expect(admin.problems).toEqual([])
  })

  test('a lifespan refused in the Token lifespans section, closed since, opens it and takes focus on Create, with its error and hint', async () => {
    const page = admin.page
    await page.goto(admin.url('/dashboard/oauth-clients'))
    await page.getByRole('heading', { level: 1, name: 'OAuth clients' }).waitFor()
    await page.getByRole('button', { name: 'Create client' }).click()
    const dialog = page.getByRole('dialog', { name: 'Create client' })
    await dialog.getByRole('textbox', { name: 'Client name' }).fill('Short-lived tool')
    await dialog.getByRole('textbox', { name: 'Redirect URIs', exact: true }).fill('https://short.example.com/cb')
    const section = dialog.locator('details', { has: page.getByText('Token lifespans', { exact: true }) })
    await section.getByText('Token lifespans', { exact: true }).click()
    const lifespan = dialog.getByRole('textbox', { name: 'Authorization code grant: access token' })
    await lifespan.fill('0s')
    await section.getByText('Token lifespans', { exact: true }).click()
    expect(await section.evaluate((details) => (details as HTMLDetailsElement).open)).toBe(false)
    const created = [...admin.harness.sandbox.hydra.clients.values()].length
    await dialog.getByRole('button', { name: 'Create client' }).press('Enter')
    await page.waitForFunction(() => document.activeElement?.id === 'client-authorization_code_grant_access_token_lifespan')
    expect(await lifespan.getAttribute('aria-invalid')).toBe('true')
    expect(await lifespan.getAttribute('aria-describedby')).toBe('client-lifespans-hint client-authorization_code_grant_access_token_lifespan-error')
    expect([...admin.harness.sandbox.hydra.clients.values()].length).toBe(created)
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    expect(admin.problems).toEqual([])
  })

  test('a refused Create is shown where the person is looking: the dialog scrolls up to its error', async () => {
    const { hydra } = admin.harness.sandbox
    await admin.page.goto(admin.url('/dashboard/oauth-clients'))
    await admin.page.getByRole('heading', { level: 1, name: 'OAuth clients' }).waitFor()
    await admin.page.getByRole('button', { name: 'Create client' }).click()
    const dialog = admin.page.getByRole('dialog', { name: 'Create client' })
    await dialog.getByRole('textbox', { name: 'Client name' }).fill('Refused tool')
    await dialog.getByRole('textbox', { name: 'Redirect URIs', exact: true }).fill('https://refused.example.com/cb')
    hydra.failWith = 500
    try {
      // The submit button sits at the foot of the form: pressing it scrolls the dialog down.
      await dialog.getByRole('button', { name: 'Create client' }).click()
      const alert = dialog.getByRole('alert')
      await alert.waitFor()
      await expectRefusalReported()
      await admin.page.waitForFunction(() => {
        const shown = document.querySelector('dialog[open] [role="alert"]')!.getBoundingClientRect()
        const frame = document.querySelector('dialog[open]')!.getBoundingClientRect()
        return shown.top >= frame.top && shown.bottom <= frame.bottom
      }, undefined, { timeout: 3000 })
    } finally {
      hydra.failWith = null
    }
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    expect([...hydra.clients.values()].some((client) => client.client_name === 'Refused tool')).toBe(false)
    expect(admin.problems).toEqual([])
  })

  test('Create refuses, beside the field and before anything is sent, what Hydra would store wrong or refuse: two redirect URIs on one line, a "#", a post-logout URI on another host', async () => {
    const { hydra } = admin.harness.sandbox
    await admin.page.goto(admin.url('/dashboard/oauth-clients'))
    await admin.page.getByRole('heading', { level: 1, name: 'OAuth clients' }).waitFor()
    await admin.page.getByRole('button', { name: 'Create client' }).click()
    const dialog = admin.page.getByRole('dialog', { name: 'Create client' })
    await dialog.getByRole('textbox', { name: 'Client name' }).fill('Careless paste')
    const redirects = dialog.getByRole('textbox', { name: 'Redirect URIs', exact: true })
    const logout = dialog.getByRole('textbox', { name: 'Post-logout redirect URIs' })
    const posts = () => hydra.calls.filter((call) => call.method === 'POST' && call.path === '/admin/clients').length
    const before = posts()
    const refused = async (field: typeof redirects, message: RegExp) => {
      await dialog.getByRole('button', { name: 'Create client' }).click()
      const error = dialog.getByText(message)
      await error.waitFor()
      expect(await field.getAttribute('aria-invalid')).toBe('true')
      expect((await field.getAttribute('aria-describedby'))?.split(' ')).toContain((await error.getAttribute('id'))!)
      expect(await field.evaluate((element) => element === document.activeElement)).toBe(true)
    }

    // Separated by a space, as the scope is: a browser's URL parser takes it for one URL with a space in its path.
    await redirects.fill('https://careless.example.com/callback https://careless.example.com/v2/callback')
    await refused(redirects, /has a space in it.*one per line/)
    await redirects.fill('https://careless.example.com/callback#')
    await refused(redirects, /fragment/)
    await redirects.fill('https://careless.example.com/callback')
    await logout.fill('https://elsewhere.example.org/signed-out')
    await refused(logout, /scheme, host and port of one of the redirect URIs/)
    await admin.page.screenshot({ path: join(SCREENSHOT_DIR, 'oauth-client-post-logout-refused.png') })
    expect(posts()).toBe(before)

    // A refusal the form cannot foresee still names every field Hydra judges.
    await logout.fill('https://careless.example.com/signed-out')
    hydra.failWith = 400
    try {
      await dialog.getByRole('button', { name: 'Create client' }).click()
      await dialog.getByRole('alert').getByText(/post-logout redirect URIs/).waitFor()
      await expectRefusalReported(400)
    } finally {
      hydra.failWith = null
    }
    await dialog.getByRole('button', { name: 'Create client' }).click()
    await admin.page.getByRole('heading', { level: 1, name: 'Careless paste' }).waitFor()
    const created = [...hydra.clients.values()].find((client) => client.client_name === 'Careless paste')!
    expect(created.redirect_uris).toEqual(['https://careless.example.com/callback'])
    expect(created.post_logout_redirect_uris).toEqual(['https://careless.example.com/signed-out'])
    expect(admin.problems).toEqual([])
  })

  test('an admin creates a private_key_jwt client: the JWKS URI, explained beside its field, is refused empty and over http before anything is sent, then kept and shown on the client’s page', async () => {
    const { hydra } = admin.harness.sandbox
    const page = admin.page
    await page.goto(admin.url('/dashboard/oauth-clients'))
    await page.getByRole('heading', { level: 1, name: 'OAuth clients' }).waitFor()
    await page.getByRole('button', { name: 'Create client' }).click()
    const dialog = page.getByRole('dialog', { name: 'Create client' })
    await dialog.getByRole('textbox', { name: 'Client name' }).fill('Payments signer')
    await dialog.getByRole('textbox', { name: 'Redirect URIs', exact: true }).fill('https://payments.example.com/callback')
    const jwksUri = dialog.getByRole('textbox', { name: 'JWKS URI' })
    expect(await jwksUri.count()).toBe(0)

    // Keyboard: the method chosen with the arrow keys, then Tab to the field it brings.
    const method = dialog.getByRole('combobox', { name: 'Token endpoint authentication' })
    await method.focus()
    while ((await method.inputValue()) !== 'private_key_jwt') await page.keyboard.press('ArrowDown')
    await jwksUri.waitFor()
    await page.keyboard.press('Tab')
    expect(await jwksUri.evaluate((element) => element === document.activeElement)).toBe(true)
    const hint = dialog.getByText('Where Hydra fetches the client’s public keys (a JSON Web Key Set) to check the assertions it signs. An https URL.')
    expect((await jwksUri.getAttribute('aria-describedby'))?.split(' ')).toContain((await hint.getAttribute('id'))!)

    const posts = () => hydra.calls.filter((call) => call.method === 'POST' && call.path === '/admin/clients').length
    const before = posts()
    const refused = async (message: string) => {
      await page.keyboard.press('Enter')
      const error = dialog.getByText(message)
      await error.waitFor()
      expect(await jwksUri.getAttribute('aria-invalid')).toBe('true')
      expect((await jwksUri.getAttribute('aria-describedby'))?.split(' ')).toContain((await error.getAttribute('id'))!)
      expect(await jwksUri.evaluate((element) => element === document.activeElement)).toBe(true)
    }
    await refused('A private_key_jwt client needs the https URL of its public keys.')
    await page.keyboard.type('http://payments.example.com/.well-known/jwks.json')
    await refused('“http://payments.example.com/.well-known/jwks.json” does not use https: keys fetched without it could be swapped on the way, and whoever did so could sign as this client.')
    expect(await sweep(page, 'oauth-client-jwks-uri-refused', () => dialog.getByText(/does not use https/).waitFor())).toEqual([])
    expect(posts()).toBe(before)

    await jwksUri.focus()
    await page.keyboard.press('ControlOrMeta+a')
    await page.keyboard.type('https://payments.example.com/.well-known/jwks.json')
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { level: 1, name: 'Payments signer' }).waitFor()
    const facts = page.getByRole('region', { name: 'Client', exact: true })
    await facts.getByText('https://payments.example.com/.well-known/jwks.json').waitFor()
    expect(await facts.locator('dt', { hasText: 'JWKS URI' }).count()).toBe(1)
    const created = [...hydra.clients.values()].find((client) => client.client_name === 'Payments signer')!
    expect(created).toMatchObject({ token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'https://payments.example.com/.well-known/jwks.json', jwks: {} })
    expect(posts()).toBe(before + 1)
    // Hydra made it a secret too, which it never uses (it signs with its key): not handed out.
    expect(created.secret).toBeTruthy()
    await page.getByRole('status').getByText('Client Payments signer created.', { exact: true }).waitFor()
    expect(await page.getByRole('region', { name: 'Client secret' }).count()).toBe(0)
    expect(admin.problems).toEqual([])
  })

  test('an admin edits a private_key_jwt client whose keys were put inline through Hydra’s API: the form says they are kept, asks for no JWKS URI, and Hydra still has them after Save', async () => {
    const { hydra } = admin.harness.sandbox
    const page = admin.page
    const jwks = { keys: [SIGNER_KEY] }
    const created = await throughProxy('POST', '/admin/clients', {
      client_name: 'Ledger exporter',
      token_endpoint_auth_method: 'private_key_jwt',
      jwks,
      grant_types: ['client_credentials'],
      response_types: ['token'],
      scope: 'ledger.read',
    })
    expect(created.status).toBe(201)
    const id = created.body!.client_id as string
    await page.goto(admin.url(`/dashboard/oauth-clients/${encodeURIComponent(id)}`))
    await page.getByRole('heading', { level: 1, name: 'Ledger exporter' }).waitFor()
    // No JWKS URI to show: the keys are inline.
    expect(await page.getByRole('region', { name: 'Client', exact: true }).locator('dt', { hasText: 'JWKS URI' }).count()).toBe(0)

    await page.getByRole('button', { name: 'Edit client' }).click()
    const form = page.getByRole('region', { name: 'Edit client' })
    await form.getByText('This client’s public keys are set inline (through Hydra’s API) and are kept as they are: Hydra takes inline keys or a JWKS URI, not both.').waitFor()
    expect(await form.getByRole('textbox', { name: 'JWKS URI' }).count()).toBe(0)
    await form.getByRole('textbox', { name: 'Client name' }).fill('Ledger exporter (nightly)')
    await form.getByRole('textbox', { name: 'Scope' }).fill('ledger.read ledger.export')
    await form.getByRole('textbox', { name: 'Scope' }).press('Enter')
    await page.getByRole('status').getByText('Client Ledger exporter (nightly) saved.').waitFor()
    const after = hydra.clients.get(id)!
    expect(after).toMatchObject({ client_name: 'Ledger exporter (nightly)', scope: 'ledger.read ledger.export', token_endpoint_auth_method: 'private_key_jwt', jwks, jwks_uri: '' })
    expect(admin.problems).toEqual([])
  })

  test('an admin switches a client to private_key_jwt with a JWKS URI; keys put inline meanwhile make Hydra refuse it, said as Hydra’s other refusals are', async () => {
    const { hydra } = admin.harness.sandbox
    const page = admin.page
    const form = page.getByRole('region', { name: 'Edit client' })
    const switchToJwt = async (uri: string) => {
      await page.getByRole('button', { name: 'Edit client' }).click()
      await form.getByRole('combobox', { name: 'Token endpoint authentication' }).selectOption('private_key_jwt')
      await form.getByRole('textbox', { name: 'JWKS URI' }).fill(uri)
      await form.getByRole('button', { name: 'Save' }).click()
    }

    const client = await openNewClient({ client_name: 'Reports batch', client_secret: 'reports-secret-0123', redirect_uris: ['https://reports.example.com/callback'] })
    await switchToJwt('https://reports.example.com/jwks.json')
    await page.getByRole('status').getByText('Client Reports batch saved.').waitFor()
    const facts = page.getByRole('region', { name: 'Client', exact: true })
    await facts.getByText('https://reports.example.com/jwks.json').waitFor()
    await facts.getByText('private_key_jwt').waitFor()
    expect(hydra.clients.get(client.client_id)).toMatchObject({ token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'https://reports.example.com/jwks.json', secret: 'reports-secret-0123' })
    // Not a switch to a secret: no question, and no secret shown.
    expect(await page.getByRole('textbox', { name: 'Client secret', exact: true }).count()).toBe(0)

    const other = await openNewClient({ client_name: 'Audit feed', redirect_uris: ['https://audit.example.com/callback'] })
    const added = await throughProxy('PATCH', `/admin/clients/${encodeURIComponent(other.client_id)}`, [{ op: 'add', path: '/jwks', value: { keys: [SIGNER_KEY] } }])
    expect(added.status).toBe(200)
    await switchToJwt('https://audit.example.com/jwks.json')
    await page
      .getByRole('alert')
      .getByText(
        'Hydra refused these client settings. Check the redirect URIs, the post-logout redirect URIs (each on the scheme, host and port of a redirect URI), the grant and response types, and the authentication method (a private_key_jwt client’s JWKS URI included).',
      )
      .waitFor()
    await expectRefusalReported(400)
    expect(hydra.clients.get(other.client_id)).toMatchObject({ token_endpoint_auth_method: 'client_secret_basic', jwks_uri: '', jwks: { keys: [SIGNER_KEY] } })
    // The edit stays, to be changed.
    expect(await form.getByRole('textbox', { name: 'JWKS URI' }).inputValue()).toBe('https://audit.example.com/jwks.json')
    await form.getByRole('button', { name: 'Cancel' }).click()
    expect(admin.problems).toEqual([])
  })

  test('a client switched to private_key_jwt has the JWKS URI it would start with judged, even one Hydra already holds over http; one already private_key_jwt is not stopped for it in an edit of something else', async () => {
    const { hydra } = admin.harness.sandbox
    const page = admin.page
    const form = page.getByRole('region', { name: 'Edit client' })
    const jwksUri = form.getByRole('textbox', { name: 'JWKS URI' })
    const refusal = '“http://keys.feed.internal/jwks.json” does not use https: keys fetched without it could be swapped on the way, and whoever did so could sign as this client.'

    // A client_secret_basic client given an http jwks_uri through Hydra's API, which checks no scheme.
    const created = await throughProxy('POST', '/admin/clients', {
      client_name: 'Feed reader',
      client_secret: 'feed-reader-0123',
      jwks_uri: 'http://keys.feed.internal/jwks.json',
      redirect_uris: ['https://feed.example.com/callback'],
    })
    expect(created.status).toBe(201)
    const id = created.body!.client_id as string
    await page.goto(admin.url(`/dashboard/oauth-clients/${encodeURIComponent(id)}`))
    await page.getByRole('heading', { level: 1, name: 'Feed reader' }).waitFor()
    await page.getByRole('button', { name: 'Edit client' }).click()
    await form.getByRole('combobox', { name: 'Token endpoint authentication' }).selectOption('private_key_jwt')
    expect(await jwksUri.inputValue()).toBe('http://keys.feed.internal/jwks.json')
    const patches = clientCalls(id, 'PATCH')
    await form.getByRole('button', { name: 'Save' }).click()
    await form.getByText(refusal).waitFor()
    expect(await jwksUri.getAttribute('aria-invalid')).toBe('true')
    expect(await jwksUri.evaluate((element) => element === document.activeElement)).toBe(true)
    expect(clientCalls(id, 'PATCH')).toBe(patches)
    expect(hydra.clients.get(id)).toMatchObject({ token_endpoint_auth_method: 'client_secret_basic', jwks_uri: 'http://keys.feed.internal/jwks.json' })

    await page.keyboard.press('ControlOrMeta+a')
    await page.keyboard.type('https://keys.feed.example.com/jwks.json')
    await page.keyboard.press('Enter')
    await page.getByRole('status').getByText('Client Feed reader saved.').waitFor()
    expect(hydra.clients.get(id)).toMatchObject({ token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'https://keys.feed.example.com/jwks.json' })

    // Already private_key_jwt with an http URI Hydra took: a rename is not stopped for it, and the URI is left alone.
    const signer = await openNewClient({
      client_name: 'Legacy signer',
      token_endpoint_auth_method: 'private_key_jwt',
      jwks_uri: 'http://keys.legacy.internal/jwks.json',
      redirect_uris: ['https://legacy.example.com/callback'],
    })
    await page.getByRole('button', { name: 'Edit client' }).click()
    await form.getByRole('textbox', { name: 'Client name' }).fill('Legacy signer (v1)')
    await form.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('status').getByText('Client Legacy signer (v1) saved.').waitFor()
    expect(hydra.clients.get(signer.client_id)).toMatchObject({ client_name: 'Legacy signer (v1)', token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'http://keys.legacy.internal/jwks.json' })
    expect(admin.problems).toEqual([])
  })

  test('an admin gives a client JWT bearer and device authorization lifespans with the keyboard: .5h is taken, 0 is refused beside its field before anything is sent, Hydra holds them, and one emptied goes back to Hydra’s default', async () => {
    const { hydra } = admin.harness.sandbox
    const page = admin.page
    const client = await openNewClient({
      client_name: 'Set-top box',
      redirect_uris: ['https://tv.example.com/callback'],
      grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code', 'urn:ietf:params:oauth:grant-type:jwt-bearer'],
      authorization_code_grant_access_token_lifespan: '1h',
    })
    await page.getByRole('button', { name: 'Edit client' }).click()
    const form = page.getByRole('region', { name: 'Edit client' })
    const jwt = form.getByRole('textbox', { name: 'JWT bearer grant: access token' })
    const deviceAccess = form.getByRole('textbox', { name: 'Device authorization grant: access token' })
    const deviceRefresh = form.getByRole('textbox', { name: 'Device authorization grant: refresh token' })
    expect(await form.getByRole('textbox', { name: 'Authorization code grant: access token' }).inputValue()).toBe('1h0m0s')
    const patches = () => clientCalls(client.client_id, 'PATCH')
    const before = patches()

    // Keyboard only: from the client name, Tab to each lifespan and type it; Enter saves.
    await form.getByRole('textbox', { name: 'Client name' }).focus()
    await tabTo(page, 'JWT bearer grant: access token')
    await page.keyboard.type('.5h')
    await tabTo(page, 'Device authorization grant: access token')
    await page.keyboard.type('0')
    await tabTo(page, 'Device authorization grant: refresh token')
    await page.keyboard.type('720h')
    await page.keyboard.press('Enter')
    const refused = form.getByText('A lifespan must be at least 1s: tokens would expire as they are issued. Leave it empty for Hydra’s default.')
    await refused.waitFor()
    expect(await deviceAccess.getAttribute('aria-invalid')).toBe('true')
    // Its hint (what empty means, the format, -1s for a refresh token) and its error.
    expect(await deviceAccess.getAttribute('aria-describedby')).toBe(`client-lifespans-hint ${await refused.getAttribute('id')}`)
    expect(await deviceAccess.evaluate((element) => element === document.activeElement)).toBe(true)
    expect(await jwt.getAttribute('aria-invalid')).toBeNull()
    expect(patches()).toBe(before)

    await page.keyboard.press('ControlOrMeta+a')
    await page.keyboard.type('.25h')
    await page.keyboard.press('Enter')
    await page.getByRole('status').getByText('Client Set-top box saved.').waitFor()
    expect(hydra.clients.get(client.client_id)!.lifespans).toEqual({
      authorization_code_grant_access_token_lifespan: '1h0m0s',
      jwt_bearer_grant_access_token_lifespan: '30m0s',
      device_authorization_grant_access_token_lifespan: '15m0s',
      device_authorization_grant_refresh_token_lifespan: '720h0m0s',
    })
    expect(patches()).toBe(before + 1)

    // Opened again, the form shows them as Hydra answers them; one emptied goes back to Hydra's default.
    await page.getByRole('button', { name: 'Edit client' }).click()
    expect(await jwt.inputValue()).toBe('30m0s')
    expect(await deviceRefresh.inputValue()).toBe('720h0m0s')
    await jwt.focus()
    await page.keyboard.press('ControlOrMeta+a')
    await page.keyboard.press('Backspace')
    await page.keyboard.press('Enter')
    await page.getByRole('status').getByText('Client Set-top box saved.').waitFor()
    await form.waitFor({ state: 'detached' })
    expect(hydra.clients.get(client.client_id)!.lifespans).toEqual({
      authorization_code_grant_access_token_lifespan: '1h0m0s',
      device_authorization_grant_access_token_lifespan: '15m0s',
      device_authorization_grant_refresh_token_lifespan: '720h0m0s',
    })
    expect(admin.problems).toEqual([])
  })

  test('a client’s page lists the token lifespans set, one line per grant, and says Hydra’s defaults when none is; an edit’s new lifespan is listed at once; nothing overflows on a phone', async () => {
    const page = admin.page
    await openNewClient({ client_name: 'Default lifespans', redirect_uris: ['https://defaults.example.com/callback'] })
    const facts = page.getByRole('region', { name: 'Client', exact: true })
    const lifespans = facts.getByRole('definition').filter({ has: page.getByRole('listitem') })
    await facts.getByRole('definition').filter({ hasText: 'Hydra’s defaults' }).waitFor()
    expect(await lifespans.count()).toBe(0)

    await openNewClient({
      client_name: 'Living-room TV',
      redirect_uris: ['https://tv.example.com/callback'],
      grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code', 'urn:ietf:params:oauth:grant-type:jwt-bearer'],
      authorization_code_grant_access_token_lifespan: '1h',
      authorization_code_grant_refresh_token_lifespan: '720h',
      jwt_bearer_grant_access_token_lifespan: '.5h',
      device_authorization_grant_access_token_lifespan: '15m',
      device_authorization_grant_refresh_token_lifespan: '2160h',
    })
    const lines = lifespans.getByRole('listitem')
    await lines.first().waitFor()
    expect(await facts.getByRole('term').filter({ hasText: 'Token lifespans' }).count()).toBe(1)
    expect(await lines.allTextContents()).toEqual([
      'Authorization code grant: access token 1h0m0s, refresh token 720h0m0s',
      'JWT bearer grant: access token 30m0s',
      'Device authorization grant: access token 15m0s, refresh token 2160h0m0s',
    ])
    expect(await facts.getByText('Hydra’s defaults').count()).toBe(0)
    expect(await sweep(page, 'oauth-client-lifespans', () => lines.first().waitFor())).toEqual([])
    await page.setViewportSize(PHONE)
    try {
      await page.screenshot({ path: join(SCREENSHOT_DIR, 'oauth-client-lifespans-phone-full.png'), fullPage: true })
      const inside = await lines.evaluateAll((items) =>
        items.every((item) => {
          const card = item.closest('.card')!.getBoundingClientRect()
          return [...item.getClientRects()].every((line) => line.left >= card.left && line.right <= card.right + 0.5)
        }),
      )
      expect(inside).toBe(true)
    } finally {
      await page.setViewportSize(DESKTOP)
    }

    await page.getByRole('button', { name: 'Edit client' }).click()
    const form = page.getByRole('region', { name: 'Edit client' })
    await form.getByRole('textbox', { name: 'Device authorization grant: access token' }).fill('10m')
    await form.getByRole('textbox', { name: 'JWT bearer grant: access token' }).fill('')
    await form.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('status').getByText('Client Living-room TV saved.').waitFor()
    await lines.filter({ hasText: 'Device authorization grant' }).getByText('10m0s').waitFor()
    expect(await lines.allTextContents()).toEqual([
      'Authorization code grant: access token 1h0m0s, refresh token 720h0m0s',
      'Device authorization grant: access token 10m0s, refresh token 2160h0m0s',
    ])

    // A refresh token lifespan below 0: Hydra's tokens then never expire (fosite sets no expiry).
    await page.getByRole('button', { name: 'Edit client' }).click()
    const refresh = form.getByRole('textbox', { name: 'Authorization code grant: refresh token' })
    await refresh.fill('0')
    await form.getByRole('button', { name: 'Save' }).click()
    await form.getByText('A lifespan must be at least 1s: tokens would expire as they are issued. Leave it empty for Hydra’s default, or use -1s for a refresh token that never expires.').waitFor()
    await refresh.fill('-1s')
    await form.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('status').getByText('Client Living-room TV saved.').waitFor()
    await lines.filter({ hasText: 'never expires' }).waitFor()
    expect(await lines.allTextContents()).toEqual([
      'Authorization code grant: access token 1h0m0s, refresh token never expires',
      'Device authorization grant: access token 10m0s, refresh token 2160h0m0s',
    ])
    const client = [...admin.harness.sandbox.hydra.clients.values()].find((each) => each.client_name === 'Living-room TV')!
    expect(client.lifespans.authorization_code_grant_refresh_token_lifespan).toBe('-1s')
    expect(admin.problems).toEqual([])
  })

  test('a client deleted elsewhere (another tab, the Hydra CLI): Save says it is gone, Delete takes the person to the list saying it already was', async () => {
    const { hydra } = admin.harness.sandbox
    const client = await openNewClient({ client_name: 'Deleted twice', redirect_uris: ['https://twice.example.com/callback'] })
    await admin.page.getByRole('button', { name: 'Edit client' }).click()
    await admin.page.getByRole('textbox', { name: 'Client name' }).fill('Deleted twice (renamed)')
    // The other tab, through the same service.
    expect((await throughProxy('DELETE', `/admin/clients/${encodeURIComponent(client.client_id)}`)).status).toBe(204)

    await admin.page.getByRole('button', { name: 'Save' }).click()
    const alert = admin.page.getByRole('alert')
    await alert.getByText('Hydra has no client with this ID any more: it has been deleted, perhaps elsewhere.').waitFor()
    await expectRefusalReported(404)
    await admin.page.getByRole('button', { name: 'Cancel' }).click()

    await admin.page.getByRole('button', { name: 'Delete client' }).click()
    await admin.page.getByRole('dialog', { name: 'Delete client?' }).getByRole('button', { name: 'Delete' }).click()
    await admin.page.getByRole('heading', { level: 1, name: 'OAuth clients' }).waitFor()
    await admin.page.getByRole('status').getByText('Client Deleted twice had already been deleted.').waitFor()
    await expectRefusalReported(404)
    expect(hydra.clients.has(client.client_id)).toBe(false)
    expect(admin.problems).toEqual([])
  })

  test('a very long client name on a 390 px phone: the list shows all of it inside its card, nothing scrolls sideways', async () => {
    const name = `Imported-from-the-legacy-identity-provider-${'x'.repeat(90)}`
    admin.harness.sandbox.hydra.addClient({ client_name: name, redirect_uris: ['https://legacy.example.com/callback'] })
    await admin.page.setViewportSize(PHONE)
    try {
      await admin.page.goto(admin.url(`/dashboard/oauth-clients?name=${encodeURIComponent(name)}`))
      const link = admin.page.getByRole('table', { name: 'OAuth clients' }).getByRole('link', { name })
      await link.waitFor()
      await admin.page.screenshot({ path: join(SCREENSHOT_DIR, 'oauth-clients-long-name-phone.png') })
      const fits = await link.evaluate((element) => {
        const card = element.closest('tr')!.getBoundingClientRect()
        const box = element.closest('.table-wrap')!
        return { overflow: box.scrollWidth - box.clientWidth, inside: [...element.getClientRects()].every((line) => line.right <= card.right + 0.5) }
      })
      expect(fits).toEqual({ overflow: 0, inside: true })
      expect(await admin.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(0)
    } finally {
      await admin.page.setViewportSize(DESKTOP)
    }
    expect(admin.problems).toEqual([])
  })

  test('a Delete answered after the person went elsewhere does not pull them back to the list', async () => {
    const { hydra } = admin.harness.sandbox
    const client = await openNewClient({ client_name: 'Slow to go', redirect_uris: ['https://slow.example.com/callback'] })
    // The question stays while its Delete runs; Forward (to the Audit log, visited and left with Back) goes elsewhere.
    await admin.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click()
    await admin.page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor()
    await admin.page.goBack()
    await admin.page.getByRole('heading', { level: 1, name: 'Slow to go' }).waitFor()
    hydra.delayMs = 1500
    try {
      await admin.page.getByRole('button', { name: 'Delete client' }).click()
      await admin.page.getByRole('dialog', { name: 'Delete client?' }).getByRole('button', { name: 'Delete' }).click()
      await admin.page.goForward()
      await admin.page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor()
      await admin.page.getByRole('status').getByText('Client Slow to go deleted.').waitFor()
    } finally {
      hydra.delayMs = 0
    }
    expect(hydra.clients.has(client.client_id)).toBe(false)
    expect(new URL(admin.page.url()).pathname).toBe('/dashboard/audit')
    await admin.page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor()
    expect(admin.problems).toEqual([])
  })
})

