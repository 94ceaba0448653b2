// The Kratos stand-in's DELETE /admin/identities/{id}/credentials/{type} against what Kratos v26.2
// does there (identity/handler.go deleteIdentityCredentials, identity/identity.go
// deleteCredentialPassword, deleteCredentialWebAuthFromIdentity, deleteCredentialOIDCSAMLFromIdentity,
// and each strategy's CountActiveFirstFactorCredentials): what goes, what stays, and the refusals
// with their status and Kratos's error body.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { KratosFixture, type FixtureCredential, type FixtureIdentity } from './support/kratos.ts'

let kratos: KratosFixture
beforeAll(() => {
  kratos = new KratosFixture().start()
})
afterAll(async () => {
  await kratos.stop()
})

let count = 0
function person(credentials: Record<string, Omit<FixtureCredential, 'version'>>): FixtureIdentity {
  const identity = kratos.addIdentity({ email: `credentials${++count}@example.test` })
  identity.credentials = Object.fromEntries(Object.entries(credentials).map(([type, credential]) => [type, { ...credential, version: 0 }]))
  return identity
}
const password = (identity: FixtureIdentity): Omit<FixtureCredential, 'version'> => ({ type: 'password', identifiers: identity.identifiers })

async function remove(identity: FixtureIdentity, type: string, identifier?: string): Promise<{ status: number; body: unknown }> {
  const query = identifier === undefined ? '' : `?identifier=${encodeURIComponent(identifier)}`
  const response = await fetch(`${kratos.url}/admin/identities/${identity.id}/credentials/${type}${query}`, { method: 'DELETE' })
  return { status: response.status, body: response.status === 204 ? null : await response.json() }
}
/** The credentials as GET /admin/identities/{id} serves them (type, identifiers, no config). */
async function served(identity: FixtureIdentity, include = ''): Promise<Record<string, { identifiers: string[]; config: unknown }>> {
  const response = await fetch(`${kratos.url}/admin/identities/${identity.id}${include}`)
  return ((await response.json()) as { credentials: Record<string, { identifiers: string[]; config: unknown }> }).credentials
}
const badRequest = (reason: string) => ({ error: { code: 400, status: 'Bad Request', message: 'The request was malformed or contained invalid parameters', reason } })
const notFound = (reason: string) => ({ error: { code: 404, status: 'Not Found', message: 'The requested resource could not be found', reason } })
const LAST_FIRST_FACTOR = badRequest('You cannot remove the last first factor credential.')

describe('second factors', () => {
  test('totp and lookup_secret go whole, whatever else the identity has', async () => {
    const identity = kratos.addIdentity({ email: 'second.factors@example.test' })
    identity.credentials = { totp: { type: 'totp', identifiers: [identity.id], version: 0 }, lookup_secret: { type: 'lookup_secret', identifiers: [identity.id], version: 0 } }
    expect(await remove(identity, 'totp')).toEqual({ status: 204, body: null })
    expect(await remove(identity, 'lookup_secret')).toEqual({ status: 204, body: null })
    expect(await served(identity)).toEqual({})
  })

  test('webauthn loses its second-factor keys and keeps the passwordless ones', async () => {
    const identity = person({})
    identity.credentials!.webauthn = {
      type: 'webauthn',
      identifiers: identity.identifiers,
      version: 0,
      config: { keys: [{ id: 'laptop', passwordless: false }, { id: 'phone', passwordless: true }] },
    }
    expect(await remove(identity, 'webauthn')).toEqual({ status: 204, body: null })
    expect(identity.credentials!.webauthn!.config!.keys).toEqual([{ id: 'phone', passwordless: true }])
    expect(Object.keys(await served(identity))).toEqual(['webauthn'])
    // Nothing left to remove: Kratos answers 204 all the same and keeps the credential.
    expect(await remove(identity, 'webauthn')).toEqual({ status: 204, body: null })
    expect(Object.keys(await served(identity))).toEqual(['webauthn'])
  })

  test('webauthn with only second-factor keys goes whole', async () => {
    const identity = person({ webauthn: { type: 'webauthn', identifiers: [] } })
    expect(await remove(identity, 'webauthn')).toEqual({ status: 204, body: null })
    expect(await served(identity)).toEqual({})
  })
})

describe('first factors', () => {
  test('an oidc link goes only by its identifier, one per call; the others stay', async () => {
    const identity = person({ oidc: { type: 'oidc', identifiers: ['google:1234', 'github:99'] } })
    identity.credentials!.password = { ...password(identity), version: 0 }
    expect(await remove(identity, 'oidc')).toEqual({ status: 400, body: badRequest('You must provide an identifier to delete this credential.') })
    expect(await remove(identity, 'oidc', 'google:4711')).toEqual({ status: 404, body: notFound('The identifier `google:4711` was not found among OIDC credentials.') })
    expect(await remove(identity, 'oidc', 'google:1234')).toEqual({ status: 204, body: null })
    expect((await served(identity)).oidc!.identifiers).toEqual(['github:99'])
    // The last link goes too while the password is there; the credential stays, with no identifier.
    expect(await remove(identity, 'oidc', 'github:99')).toEqual({ status: 204, body: null })
    expect((await served(identity)).oidc!.identifiers).toEqual([])
  })

  test('the last first factor is refused, before the identifier is looked at', async () => {
    const identity = person({ oidc: { type: 'oidc', identifiers: ['google:1234'] }, totp: { type: 'totp', identifiers: [] } })
    expect(await remove(identity, 'oidc', 'google:1234')).toEqual({ status: 400, body: LAST_FIRST_FACTOR })
    expect(await remove(identity, 'oidc')).toEqual({ status: 400, body: LAST_FIRST_FACTOR })
    expect((await served(identity)).oidc!.identifiers).toEqual(['google:1234'])
  })

  test('the password goes while another first factor is left: its config is emptied, the credential stays', async () => {
    const identity = person({ oidc: { type: 'oidc', identifiers: ['google:1234'] } })
    identity.credentials!.password = { ...password(identity), version: 0 }
    expect(await remove(identity, 'password')).toEqual({ status: 204, body: null })
    const after = await served(identity, '?include_credential=password')
    expect(after.password).toMatchObject({ identifiers: identity.identifiers, config: {} })
    // A password without a hash counts no more: the oidc link is now the last first factor.
    expect(await remove(identity, 'oidc', 'google:1234')).toEqual({ status: 400, body: LAST_FIRST_FACTOR })
  })

  test('an identity stored without credentials has its password, and it is its last first factor', async () => {
    const identity = kratos.addIdentity({ email: 'password.only@example.test' })
    expect(await remove(identity, 'password')).toEqual({ status: 400, body: LAST_FIRST_FACTOR })
  })

  test('passwordless webauthn keys and passkeys count as first factors; second-factor keys do not', async () => {
    const identity = person({
      oidc: { type: 'oidc', identifiers: ['google:1234'] },
      webauthn: { type: 'webauthn', identifiers: ['x@example.test'], config: { keys: [{ id: 'laptop', passwordless: false }] } },
    })
    expect(await remove(identity, 'oidc', 'google:1234')).toEqual({ status: 400, body: LAST_FIRST_FACTOR })
    identity.credentials!.passkey = { type: 'passkey', identifiers: ['x@example.test'], version: 0 }
    expect(await remove(identity, 'oidc', 'google:1234')).toEqual({ status: 204, body: null })
  })

  test('with passwordless login by code on, every identity has one first factor more', async () => {
    const identity = kratos.addIdentity({ email: 'code.login@example.test' })
    kratos.passwordlessCode = true
    try {
      expect(await remove(identity, 'password')).toEqual({ status: 204, body: null })
    } finally {
      kratos.passwordlessCode = false
    }
  })
})

describe('refusals', () => {
  test('passkey and code cannot be deleted through this API', async () => {
    const identity = person({ passkey: { type: 'passkey', identifiers: ['p@example.test'] }, code: { type: 'code', identifiers: ['p@example.test'] } })
    expect(await remove(identity, 'passkey')).toEqual({ status: 400, body: badRequest('Credentials type passkey cannot be deleted.') })
    expect(await remove(identity, 'code')).toEqual({ status: 400, body: badRequest('Credentials type code cannot be deleted.') })
    expect(Object.keys(await served(identity)).sort()).toEqual(['code', 'passkey'])
  })

  test('a type the identity does not have is 404; so is an identity that does not exist', async () => {
    const identity = person({})
    expect(await remove(identity, 'totp')).toEqual({ status: 404, body: notFound('You tried to remove a totp but this user have no totp set up.') })
    const response = await fetch(`${kratos.url}/admin/identities/${crypto.randomUUID()}/credentials/totp`, { method: 'DELETE' })
    expect(response.status).toBe(404)
  })
})
