// How the UI names an identity (the list's Identifier column, the identity's heading, the
// questions about it): by the trait its schema marks as a login identifier under `ory.sh/kratos`;
// without a schema that marks one, by its credentials' identifiers when the record carries them;
// then by a trait named like an identifier; last by its id.
import { describe, expect, test } from 'bun:test'
import { EACH_ITEM, readIdentifierTraits, readIdentity, readSchemas, type Identity } from '../ui/ory-records.ts'
import { identifierLabels, identityWriteFailure, primaryIdentifier } from '../ui/pages/identities/describe.ts'
import { DEFAULT_SCHEMA } from './support/kratos.ts'

const marked = (method: string, marking: Record<string, unknown> = { identifier: true }) => ({ 'ory.sh/kratos': { credentials: { [method]: marking } } })
const schemaWith = (traits: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  ...extra,
  properties: { traits: { type: 'object', properties: traits } },
})

/** The reviewer's schema: the e-mail address is a contact field, the customer number the password identifier. */
const CUSTOMER = schemaWith({
  email: { type: 'string', format: 'email', title: 'Contact e-mail' },
  customer_number: { type: 'string', title: 'Customer number', ...marked('password') },
  name: { type: 'object', properties: { first: { type: 'string' }, last: { type: 'string' } } },
})
const SCHEMAS = readSchemas([
  { id: 'default', schema: DEFAULT_SCHEMA },
  { id: 'customer', schema: CUSTOMER },
])!

function identity(fields: Record<string, unknown>): Identity {
  return readIdentity({ id: '7f0c2a4e-0000-4000-8000-000000000001', schema_id: 'customer', verifiable_addresses: [], recovery_addresses: [], ...fields })!
}

describe('the traits a schema marks as login identifiers', () => {
  test('password, webauthn and code identifiers, in the schema’s order; a passkey’s display name, a TOTP account name or identifier: false mark none', () => {
    const schema = schemaWith({
      nickname: { type: 'string', ...marked('passkey', { display_name: true }) },
      label: { type: 'string', ...marked('totp', { account_name: true }) },
      old: { type: 'string', ...marked('password', { identifier: false }) },
      phone: { type: 'string', ...marked('code', { identifier: true, via: 'sms' }) },
      handle: { type: 'string', ...marked('webauthn') },
      login: { type: 'string', ...marked('password') },
    })
    expect(readIdentifierTraits(schema)).toEqual([['phone'], ['handle'], ['login']])
    expect(readIdentifierTraits(DEFAULT_SCHEMA)).toEqual([['email']])
  })

  test('in a nested object, through a list’s items, and through local $refs; a cycle, a $ref elsewhere and what is no schema mark nothing', () => {
    const schema = schemaWith(
      {
        contact: { type: 'object', properties: { phone: { type: 'string', ...marked('code', { identifier: true, via: 'sms' }) } } },
        emails: { type: 'array', items: { type: 'string', format: 'email', ...marked('password') } },
        member: { $ref: '#/definitions/member' },
        loop: { $ref: '#/definitions/loop' },
        remote: { $ref: 'https://schemas.example.test/other.json#/id' },
      },
      { definitions: { member: { type: 'object', properties: { number: { $ref: '#/definitions/number' } } }, number: { type: 'string', ...marked('password') }, loop: { $ref: '#/definitions/loop' } } },
    )
    expect(readIdentifierTraits(schema)).toEqual([['contact', 'phone'], ['emails', EACH_ITEM], ['member', 'number']])
    for (const nothing of [null, 'schema', {}, { properties: { traits: 'x' } }, schemaWith({ email: 'x' })]) expect(readIdentifierTraits(nothing)).toEqual([])
  })

  test('a schema that cannot be a form still says which traits are identifiers', () => {
    const team = schemaWith({ emails: { type: 'array', minItems: 1, items: { type: 'string', format: 'email', ...marked('password') } } })
    const [read] = readSchemas([{ id: 'team', schema: team }])!
    expect(read).toMatchObject({ asJson: true, traits: null, identifiers: [['emails', EACH_ITEM]] })
  })
})

describe('the identifier that names an identity', () => {
  test('the trait its schema marks, not the e-mail address the schema leaves a plain contact field', () => {
    const customer = identity({ traits: { email: 'orders@acme.example', customer_number: 'CN-104233' } })
    expect(primaryIdentifier(customer, SCHEMAS)).toBe('CN-104233')
    // The default schema marks the e-mail address.
    expect(primaryIdentifier(identity({ schema_id: 'default', traits: { email: 'ann@example.test', name: 'Ann' } }), SCHEMAS)).toBe('ann@example.test')
  })

  test('a marked trait the identity does not have (or has empty) passes to the next marked one, then to what follows', () => {
    const schemas = readSchemas([{ id: 'customer', schema: schemaWith({ customer_number: { type: 'string', ...marked('password') }, username: { type: 'string', ...marked('webauthn') } }) }])!
    expect(primaryIdentifier(identity({ traits: { customer_number: '', username: 'acme-orders', email: 'orders@acme.example' } }), schemas)).toBe('acme-orders')
    expect(primaryIdentifier(identity({ traits: { email: 'orders@acme.example' } }), schemas)).toBe('orders@acme.example')
  })

  test('a nested marked trait, and the first address of a marked list', () => {
    const schemas = readSchemas([
      {
        id: 'customer',
        schema: schemaWith({
          email: { type: 'string', format: 'email' },
          account: { type: 'object', properties: { number: { type: 'string', ...marked('password') } } },
          phones: { type: 'array', items: { type: 'string', ...marked('code', { identifier: true, via: 'sms' }) } },
        }),
      },
    ])!
    expect(primaryIdentifier(identity({ traits: { email: 'orders@acme.example', account: { number: 'A-17' }, phones: ['+4930123456'] } }), schemas)).toBe('A-17')
    expect(primaryIdentifier(identity({ traits: { email: 'orders@acme.example', account: {}, phones: ['', '+4930123456'] } }), schemas)).toBe('+4930123456')
  })

  test('no schema known, or none that marks a trait: the credentials’ identifiers when the record carries them (a password’s first), then a trait named like an identifier', () => {
    const traits = { email: 'orders@acme.example', customer_number: 'CN-104233' }
    const credentials = {
      oidc: { type: 'oidc', identifiers: ['google:108345'] },
      totp: { type: 'totp', identifiers: ['7f0c2a4e-0000-4000-8000-000000000001'] },
      password: { type: 'password', identifiers: ['cn-104233'] },
    }
    // The schemas could not be read, or this identity's is not among them.
    expect(primaryIdentifier(identity({ traits, credentials }), null)).toBe('cn-104233')
    expect(primaryIdentifier(identity({ traits, credentials, schema_id: 'gone' }), SCHEMAS)).toBe('cn-104233')
    // Listed without credentials (as Kratos lists identities): the e-mail address, as before.
    expect(primaryIdentifier(identity({ traits }), null)).toBe('orders@acme.example')
    // A schema that marks nothing.
    const plain = readSchemas([{ id: 'customer', schema: schemaWith({ email: { type: 'string' }, customer_number: { type: 'string' } }) }])!
    expect(primaryIdentifier(identity({ traits, credentials }), plain)).toBe('cn-104233')
    // A provider's subject, a TOTP's identity id are no names: without a password, the trait.
    expect(primaryIdentifier(identity({ traits: { username: 'acme' }, credentials: { oidc: credentials.oidc, totp: credentials.totp } }), null)).toBe('acme')
    expect(primaryIdentifier(identity({ traits: {} }), null)).toBe('7f0c2a4e-0000-4000-8000-000000000001')
  })

  test('characters that hide or turn text around are shown in a marked trait too', () => {
    expect(primaryIdentifier(identity({ traits: { email: 'orders@acme.example', customer_number: 'CN-10\u200B4233' } }), SCHEMAS)).toBe('CN-10⟨U+200B⟩4233')
  })
})

describe('a refusal because another identity has the identifier (Kratos’s 409) names the identifier by its label', () => {
  const taken = { error: 'conflict', message: 'Conflict', status: 409 }
  test('one identifier: by its label; several: all of them; an unknown schema: in general words', () => {
    const customer = SCHEMAS.find((schema) => schema.id === 'customer')
    expect(identifierLabels(customer)).toEqual(['Customer number'])
    expect(identityWriteFailure(taken, identifierLabels(customer)).message).toBe('Another identity already uses this customer number: it is a sign-in identifier, which no two identities can share.')
    const [both] = readSchemas([{ id: 'both', schema: schemaWith({ email: { type: 'string', title: 'E-mail', ...marked('code') }, contact: { type: 'object', properties: { phone: { type: 'string', ...marked('code') } } } }) }])!
    expect(identifierLabels(both)).toEqual(['E-mail', 'Phone'])
    expect(identityWriteFailure(taken, identifierLabels(both)).message).toBe('Another identity already uses one of these sign-in identifiers, which no two identities can share: E-mail, Phone.')
    expect(identityWriteFailure(taken, identifierLabels(undefined)).message).toBe('Another identity already uses this e-mail address or identifier.')
    const [iban] = readSchemas([{ id: 'iban', schema: schemaWith({ iban: { type: 'string', title: 'IBAN', ...marked('password') } }) }])!
    expect(identityWriteFailure(taken, identifierLabels(iban)).message).toStartWith('Another identity already uses this IBAN:')
  })
})
