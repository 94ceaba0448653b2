// OAuth clients as Hydra's admin API keeps them: the stand-in replaces the whole client on PUT, as
// Hydra does, so a page that sends back less than it loaded loses fields here as it would there.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { HydraFixture } from '../support/hydra.ts'

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

  test('client fields are checked as Hydra checks them', async () => {
    for (const [field, value] of [
      ['allowed_cors_origins', ['https://partner.example.com/path']],
      ['allowed_cors_origins', ['ftp://partner.example.com']],
      ['client_uri', 'javascript:alert(1)'],
      ['userinfo_signed_response_alg', 'HS256'],
      ['contacts', 'ops@partner.example.com'],
    ] as const) {
      const response = await call('POST', '/admin/clients', { ...ANSWERED, [field]: value })
      expect({ field, value, status: response.status }).toEqual({ field, value, status: 400 })
    }
  })
})
