// The Kratos stand-in's exact identifier search (GET /admin/identities?credentials_identifier=)
// against Kratos's ListIdentities (persistence/sql/identity/persister_identity.go): identifiers
// taken from the traits (password, code, webauthn) are matched as Kratos normalizes them, in any
// case, e-mail address or not; a social sign-in link exactly.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { KratosFixture, type FixtureIdentity } from './support/kratos.ts'

const CUSTOMER_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    traits: {
      type: 'object',
      properties: {
        customer_number: { type: 'string', 'ory.sh/kratos': { credentials: { password: { identifier: true } } } },
        email: { type: 'string', format: 'email' },
      },
    },
  },
}

let kratos: KratosFixture
let customer: FixtureIdentity
let social: FixtureIdentity
beforeAll(() => {
  kratos = new KratosFixture().start()
  kratos.extraSchemas.set('customer', CUSTOMER_SCHEMA)
  customer = kratos.addIdentity({ customer_number: 'CN-104233', email: 'orders@acme.example' }, { schemaId: 'customer' })
  social = kratos.addIdentity({ email: 'social@example.test' })
  social.credentials = {
    password: { type: 'password', identifiers: social.identifiers, version: 0 },
    oidc: { type: 'oidc', identifiers: ['google:108345627293847561234'], version: 0 },
  }
})
afterAll(async () => {
  await kratos.stop()
})

async function found(search: string): Promise<string[]> {
  const response = await fetch(`${kratos.url}/admin/identities?credentials_identifier=${encodeURIComponent(search)}`)
  expect(response.status).toBe(200)
  return ((await response.json()) as { id: string }[]).map((identity) => identity.id)
}

test('a password identifier that is no e-mail address is stored lower-cased and found in any case', async () => {
  expect(customer.identifiers).toEqual(['cn-104233'])
  for (const search of ['CN-104233', 'cn-104233', ' Cn-104233 ']) expect(await found(search)).toEqual([customer.id])
  // A contact field the schema does not mark is no identifier.
  expect(await found('orders@acme.example')).toEqual([])
})

test('a social sign-in link is found by its exact identifier only', async () => {
  expect(await found('google:108345627293847561234')).toEqual([social.id])
  expect(await found('Google:108345627293847561234')).toEqual([])
  expect(await found('SOCIAL@example.test')).toEqual([social.id])
})
