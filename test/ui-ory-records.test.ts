// Kratos's and Hydra's records as the pages read them: a record that is none is refused, a field
// in another shape is left out and named, everything else is kept as it came.
import { describe, expect, test } from 'bun:test'
import { readClient, readIdentity, readMessage, readRecoveryCode, readSchemas, readSession } from '../ui/ory-records.ts'

const IDENTITY = {
  id: '7f0c2a4e-0000-4000-8000-000000000001',
  schema_id: 'default',
  schema_url: 'https://kratos.example/schemas/ZGVmYXVsdA',
  state: 'active',
  traits: { email: 'ann@example.test' },
  verifiable_addresses: [{ id: 'v1', value: 'ann@example.test', via: 'email', verified: true, status: 'completed' }],
  recovery_addresses: [{ id: 'r1', value: 'ann@example.test', via: 'email' }],
  metadata_public: null,
  metadata_admin: { note: 'vip' },
  credentials: { password: { type: 'password', identifiers: ['ann@example.test'], version: 0 } },
  created_at: '2026-01-02T03:04:05Z',
  updated_at: '2026-01-02T03:04:05Z',
}

describe('readIdentity', () => {
  test('an identity as Kratos answers it is read whole, with nothing unreadable', () => {
    const read = readIdentity(IDENTITY)!
    expect(read).toMatchObject({ id: IDENTITY.id, state: 'active', traits: IDENTITY.traits, metadata_admin: { note: 'vip' }, schema_url: IDENTITY.schema_url })
    expect(read.credentials).toEqual({ password: { type: 'password', identifiers: ['ann@example.test'] } })
    expect(read.unreadable).toBeUndefined()
  })

  test('what is no identity is refused: not an object, no id, an id that is no text', () => {
    for (const value of [null, 'identity', [IDENTITY], 42, { ...IDENTITY, id: '' }, { ...IDENTITY, id: 7 }, (({ id: _id, ...rest }) => rest)(IDENTITY)]) {
      expect(readIdentity(value)).toBeNull()
    }
  })

  test('traits missing or no object are unreadable; so are credentials and addresses of another shape, keeping what can be read', () => {
    const { traits: _traits, ...withoutTraits } = IDENTITY
    expect(readIdentity(withoutTraits)!.unreadable).toEqual(['traits'])
    expect(readIdentity({ ...IDENTITY, traits: 'ann@example.test' })!.traits).toBeUndefined()
    const odd = readIdentity({
      ...IDENTITY,
      credentials: { password: null, oidc: { type: 'oidc', identifiers: ['google:1'] }, totp: { identifiers: 'x' } },
      verifiable_addresses: 'ann@example.test',
      recovery_addresses: [null, { value: 'ann@example.test' }],
      state: 'frozen',
      created_at: 17,
    })!
    expect(odd.credentials).toEqual({ oidc: { type: 'oidc', identifiers: ['google:1'] } })
    expect(odd.verifiable_addresses).toEqual([])
    expect(odd.recovery_addresses).toEqual([{ value: 'ann@example.test', via: undefined }])
    expect(odd.state).toBeUndefined()
    expect(odd.created_at).toBeUndefined()
    expect(odd.unreadable?.sort()).toEqual(['created_at', 'credentials', 'recovery_addresses', 'state', 'verifiable_addresses'])
    expect(readIdentity({ ...IDENTITY, credentials: 'password' })!.credentials).toBeUndefined()
  })

  test('fields Kratos leaves out are no fault (credentials unless asked for, empty addresses)', () => {
    const { credentials: _c, verifiable_addresses: _v, recovery_addresses: _r, ...lean } = IDENTITY
    const read = readIdentity({ ...lean, metadata_public: null })!
    expect(read.unreadable).toBeUndefined()
    expect(read.verifiable_addresses).toEqual([])
  })
})

describe('readSession, readMessage, readClient', () => {
  test('a session: an id is required; devices and its identity of another shape are left out', () => {
    expect(readSession({ active: true })).toBeNull()
    const read = readSession({ id: 's1', active: 'yes', devices: [null, { ip_address: '192.0.2.1', user_agent: 7 }], identity: 'ann', expires_at: '2026-01-01T00:00:00Z' })!
    expect(read.devices).toEqual([{ ip_address: '192.0.2.1', user_agent: undefined, location: undefined }])
    expect(read.identity).toBeUndefined()
    expect(read.active).toBeUndefined()
    expect(read.unreadable?.sort()).toEqual(['active', 'devices', 'identity'])
    expect(readSession({ id: 's2', identity: IDENTITY })!.identity?.id).toBe(IDENTITY.id)
  })

  test('a message: a body that is missing or no text is unreadable, dispatches of another shape too', () => {
    const message = { id: 'm1', status: 'sent', recipient: 'ann@example.test', subject: 'Hi', body: 'Hello', template_type: 'stub', dispatches: [{ id: 'd1', status: 'failed', error: { message: 'boom' } }] }
    expect(readMessage(message)!.unreadable).toBeUndefined()
    const { body: _body, ...withoutBody } = message
    const odd = readMessage({ ...withoutBody, dispatches: { failed: 1 }, template_type: 7 })!
    expect(odd.body).toBeUndefined()
    expect(odd.template_type).toBeUndefined()
    expect(odd.dispatches).toEqual([])
    expect(odd.unreadable?.sort()).toEqual(['body', 'dispatches', 'template_type'])
    expect(readMessage({ ...message, id: null })).toBeNull()
  })

  test('a client: client_id is required; a list field that is no list of texts, or a flag that is no boolean, is unreadable', () => {
    expect(readClient({ client_name: 'Portal' })).toBeNull()
    const read = readClient({ client_id: 'c1', client_name: 'Portal', redirect_uris: 'https://a.example/cb', grant_types: ['authorization_code', 5], skip_consent: 'no', metadata: { tier: 'gold' } })!
    expect(read.redirect_uris).toBeUndefined()
    expect(read.grant_types).toBeUndefined()
    expect(read.skip_consent).toBeUndefined()
    expect((read as unknown as Record<string, unknown>).metadata).toEqual({ tier: 'gold' })
    expect(read.unreadable?.sort()).toEqual(['grant_types', 'redirect_uris', 'skip_consent'])
    // Hydra's nulls (an unset lifespan, no contacts) are no fault.
    expect(readClient({ client_id: 'c2', audience: null, authorization_code_grant_access_token_lifespan: null })!.unreadable).toBeUndefined()
  })
})

describe('the smaller answers', () => {
  test('identity schemas: entries without an id or a schema object are left out; an answer that is no list is refused', () => {
    expect(readSchemas([{ id: 'default', schema: { type: 'object' } }, { id: 'broken', schema: 'x' }, null])).toEqual([{ id: 'default', schema: { type: 'object' } }])
    expect(readSchemas({ id: 'default' })).toBeNull()
  })

  test('a recovery code needs its code and its link', () => {
    expect(readRecoveryCode({ recovery_link: 'https://kratos.example/recovery', recovery_code: '123456' })).toEqual({ recovery_link: 'https://kratos.example/recovery', recovery_code: '123456', expires_at: undefined })
    expect(readRecoveryCode({ recovery_link: 'https://kratos.example/recovery' })).toBeNull()
  })
})
