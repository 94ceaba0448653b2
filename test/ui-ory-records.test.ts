// Kratos's and Hydra's records as the pages read them: a record that is none is refused, a field
// in another shape is left out and named, everything else is kept as it came.
import { describe, expect, test } from 'bun:test'
import { AS_JSON, readClient, readIdentity, readMessage, readRecoveryCode, readSchemas, readSession, readTraits, readTraitsSchema, traitsFitForm } from '../ui/ory-records.ts'
import { DEFAULT_SCHEMA } from './support/kratos.ts'

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

  test("a message from Kratos outside dev mode: the placeholder it sends for subject and body is read as withheld, not as the message's text", () => {
    const message = { id: 'm1', status: 'sent', recipient: 'ann@example.test', subject: '<redacted-unless-dev-mode>', body: '<redacted-unless-dev-mode>', dispatches: [] }
    const read = readMessage(message)!
    expect(read.hidden).toBe(true)
    expect(read.subject).toBeUndefined()
    expect(read.body).toBeUndefined()
    expect(read.unreadable).toBeUndefined()
    expect(read.recipient).toBe('ann@example.test')
    expect(readMessage({ ...message, subject: 'Hi', body: 'Hello' })!.hidden).toBe(false)
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
    // The JWKS URI is a text; inline keys are passed through as Hydra sent them.
    const keyed = readClient({ client_id: 'c3', jwks_uri: 5, jwks: { keys: [{ kty: 'RSA' }] } })!
    expect(keyed.unreadable).toEqual(['jwks_uri'])
    expect(keyed.jwks).toEqual({ keys: [{ kty: 'RSA' }] })
  })
})

describe('the smaller answers', () => {
  test('identity schemas: entries without an id are left out, one that cannot be a form is kept without traits; an answer that is no list is refused', () => {
    const listed = { ...DEFAULT_SCHEMA, properties: { traits: { type: 'object', properties: { emails: { type: 'array', items: { type: 'string' } } } } } }
    expect(readSchemas([{ id: 'default', schema: DEFAULT_SCHEMA }, { id: 'broken', schema: 'x' }, { schema: DEFAULT_SCHEMA }, null, { id: 'listed', schema: listed }])).toEqual([
      { id: 'default', title: 'Person', traits: readTraitsSchema(DEFAULT_SCHEMA), asJson: false, identifiers: [['email']] },
      { id: 'broken', traits: null, asJson: false, identifiers: [] },
      { id: 'listed', title: 'Person', traits: null, asJson: true, identifiers: [] },
    ])
    expect(readSchemas([{ id: 'odd', schema: { ...DEFAULT_SCHEMA, title: { en: 'Person' } } }])).toEqual([{ id: 'odd', traits: readTraitsSchema(DEFAULT_SCHEMA), asJson: false, identifiers: [['email']] }])
    expect(readSchemas({ id: 'default' })).toBeNull()
  })

  test('a recovery code needs its code and its link', () => {
    expect(readRecoveryCode({ recovery_link: 'https://kratos.example/recovery', recovery_code: '123456' })).toEqual({ recovery_link: 'https://kratos.example/recovery', recovery_code: '123456', expires_at: undefined })
    expect(readRecoveryCode({ recovery_link: 'https://kratos.example/recovery' })).toBeNull()
  })
})

describe('an identity schema as the traits form reads it', () => {
  const person = (traits: unknown) => ({ ...DEFAULT_SCHEMA, properties: { traits } })
  const field = (definition: unknown) => person({ type: 'object', properties: { name: definition } })

  test("Kratos's preset: every keyword the form uses, the login identifier marked, nothing else", () => {
    expect(readTraitsSchema(DEFAULT_SCHEMA)).toEqual({
      type: 'object',
      properties: {
        email: { type: 'string', format: 'email', title: 'E-mail', minLength: 3, maxLength: 320, identifier: true },
        name: { type: 'string', title: 'Name', maxLength: 256 },
        role: { type: 'string', title: 'Role', enum: ['admin', 'viewer'] },
      },
      required: ['email'],
    })
  })

  test('nested objects, nullable types, numbers, booleans and enums of numbers', () => {
    const read = readTraitsSchema(
      person({
        properties: {
          name: { type: ['object', 'null'], title: 'Full name', properties: { first: { type: 'string' }, last: { type: ['null', 'string'] } }, required: ['first'] },
          age: { type: 'integer', minimum: 0, maximum: 150 },
          score: { type: 'number', enum: [1, 2.5, null] },
          newsletter: { type: 'boolean' },
          code: { pattern: '^[A-Z]+$' },
        },
      }),
    )
    expect(read).toEqual({
      type: 'object',
      properties: {
        name: { type: 'object', title: 'Full name', properties: { first: { type: 'string' }, last: { type: 'string' } }, required: ['first'] },
        age: { type: 'integer', minimum: 0, maximum: 150 },
        score: { type: 'number', enum: [1, 2.5] },
        newsletter: { type: 'boolean' },
        code: { type: 'string', pattern: '^[A-Z]+$' },
      },
    })
  })

  test('local $refs are followed, into definitions and through a chain', () => {
    const schema = {
      definitions: { name: { $ref: '#/definitions/text' }, text: { type: 'string', title: 'Text' }, 'a/b': { type: 'boolean' } },
      properties: { traits: { $ref: '#/definitions/traits' } },
    }
    const withTraits = { ...schema, definitions: { ...schema.definitions, traits: { type: 'object', properties: { name: { $ref: '#/definitions/name' }, flag: { $ref: '#/definitions/a~1b' } } } } }
    expect(readTraitsSchema(withTraits)).toEqual({ type: 'object', properties: { name: { type: 'string', title: 'Text' }, flag: { type: 'boolean' } } })
  })

  test('a pattern this browser cannot compile is left to Kratos; the rest of the field stays', () => {
    expect(readTraitsSchema(field({ type: 'string', pattern: '(?i)^[a-z]+$', maxLength: 5 }))).toEqual({ type: 'object', properties: { name: { type: 'string', maxLength: 5 } } })
  })

  const unreadable: [string, unknown][] = [
    ['no schema at all', null],
    ['a schema that is a text', 'schema'],
    ['no properties', { ...DEFAULT_SCHEMA, properties: undefined }],
    ['properties that are a list', { ...DEFAULT_SCHEMA, properties: [] }],
    ['no traits', { ...DEFAULT_SCHEMA, properties: {} }],
    ['traits that are a text', person('traits')],
    ['traits that are no object', person({ type: 'string' })],
    ['traits whose properties are a text', person({ type: 'object', properties: 'email' })],
    ['required that is no list', person({ type: 'object', properties: {}, required: 'email' })],
    ['required that is no list of names', person({ type: 'object', properties: {}, required: [1] })],
    ['a field that is no object', field('string')],
    ['a field that is null', field(null)],
    ['a type that is no text', field({ type: 5 })],
    ['a type that is an object', field({ type: { name: 'string' } })],
    ['a type no one knows', field({ type: 'text' })],
    ['a title that is no text', field({ type: 'string', title: { en: 'Name' } })],
    ['a format that is no text', field({ type: 'string', format: ['email'] })],
    ['an enum that is no list', field({ type: 'string', enum: 'admin,viewer' })],
    ['an enum of objects', field({ type: 'string', enum: [{ value: 'admin' }] })],
    ['a bound that is a text', field({ type: 'string', maxLength: '10' })],
    ['a bound that is not finite', field({ type: 'number', minimum: null })],
    ['a pattern that is no text', field({ type: 'string', pattern: 7 })],
    ['nested garbage', field({ type: 'object', properties: { first: { type: 'object', properties: { x: [] } } } })],
    ['a field without a name', person({ type: 'object', properties: { ' ': { type: 'string' } } })],
    ['a field named __proto__', JSON.parse('{"properties":{"traits":{"type":"object","properties":{"__proto__":{"type":"string"}}}}}')],
    ['a $ref that is no text', field({ $ref: 7 })],
    ['a $ref to nothing', field({ $ref: '#/definitions/missing' })],
    ['a $ref with a broken escape', field({ $ref: '#/definitions/%E0%A4%A' })],
    ['a $ref that points at itself', { definitions: { loop: { $ref: '#/definitions/loop' } }, properties: { traits: { type: 'object', properties: { name: { $ref: '#/definitions/loop' } } } } }],
    ['a $ref cycle through two definitions', { definitions: { a: { $ref: '#/definitions/b' }, b: { $ref: '#/definitions/a' } }, properties: { traits: { $ref: '#/definitions/a' } } }],
    ['a $ref cycle through properties', { definitions: { node: { type: 'object', properties: { child: { $ref: '#/definitions/node' } } } }, properties: { traits: { $ref: '#/definitions/node' } } }],
    ['a $ref to the whole document', field({ $ref: '#' })],
  ]
  for (const [name, schema] of unreadable) {
    test(`cannot be a form, nor edited as JSON: ${name}`, () => {
      expect(readTraitsSchema(schema)).toBeNull()
      expect(readTraits(schema)).toBeNull()
    })
  }

  // Well-formed JSON Schema that a form would show only in part: its traits are edited as JSON.
  const asJson: [string, unknown][] = [
    ['a list', field({ type: 'array', items: { type: 'string', format: 'email' } })],
    ['a nullable list', field({ type: ['array', 'null'], items: { type: 'string' } })],
    ['two types at once', field({ type: ['string', 'number'] })],
    ['traits without properties', person({ type: 'object' })],
    ['traits with neither type nor properties', person({})],
    ['a nested object without properties', field({ type: 'object', additionalProperties: { type: 'string' } })],
    ['a list deep in a nested object', field({ type: 'object', properties: { first: { type: 'string' }, aliases: { type: 'array' } } })],
    ['a list reached through a $ref', { definitions: { list: { type: 'array' } }, properties: { traits: { type: 'object', properties: { tags: { $ref: '#/definitions/list' } } } } }],
    ['a $ref to another document', field({ $ref: 'https://example.test/name.schema.json' })],
    ['only null', field({ type: ['null'] })],
    ['null by name', field({ type: 'null' })],
    ['a text or a list, without a type', field({ anyOf: [{ type: 'string' }, { type: 'array' }] })],
    ['one of two objects, without a type', field({ oneOf: [{ properties: { a: { type: 'string' } } }, { properties: { b: { type: 'string' } } }] })],
    ['items without a type', field({ items: { type: 'string' } })],
    ['a constant without a type', field({ const: 3 })],
  ]
  for (const [name, schema] of asJson) {
    test(`edited as JSON: ${name}`, () => {
      expect(readTraits(schema)).toBe(AS_JSON)
      expect(readTraitsSchema(schema)).toBeNull()
    })
  }

  test('a text field with a one-of of formats stays a text field: the form sends text, which the schema wants', () => {
    expect(readTraits(field({ type: 'string', oneOf: [{ format: 'email' }, { format: 'uri' }] }))).toEqual({ type: 'object', properties: { name: { type: 'string' } } })
  })

  test('traits that do not fit the form (a value of another kind than its field) are told apart from those that do', () => {
    const form = readTraitsSchema(person({ type: 'object', properties: { name: { type: 'object', properties: { first: { type: 'string' } } }, age: { type: 'integer' }, vip: { type: 'boolean' } } }))!
    expect(traitsFitForm(form, {})).toBe(true)
    expect(traitsFitForm(form, { name: { first: 'Ann' }, age: 3, vip: false, other: ['kept'] })).toBe(true)
    expect(traitsFitForm(form, { name: null, age: null })).toBe(true)
    for (const misfit of [{ name: 'Ann' }, { name: { first: ['Ann'] } }, { age: '3' }, { vip: 'yes' }, { name: ['Ann'] }]) expect(traitsFitForm(form, misfit)).toBe(false)
  })

  test('a part that is malformed wins over one that only cannot be shown: nothing is offered', () => {
    const schema = person({ type: 'object', properties: { tags: { type: 'array' }, name: { type: 5 } } })
    expect(readTraits(schema)).toBeNull()
    expect(readTraits(person({ type: 'object', properties: { name: { type: 5 }, tags: { type: 'array' } } }))).toBeNull()
  })

  test('objects nested too deep, and refs that multiply into too many fields, are refused without reading them all', () => {
    let deep: Record<string, unknown> = { type: 'string' }
    for (let i = 0; i < 40; i++) deep = { type: 'object', properties: { inner: deep } }
    expect(readTraitsSchema(person(deep))).toBeNull()
    // Ten fields, each of the next definition, ten levels down: 10^10 fields if read out.
    const definitions: Record<string, unknown> = { d10: { type: 'string' } }
    for (let i = 9; i >= 0; i--) definitions[`d${i}`] = { type: 'object', properties: Object.fromEntries(Array.from({ length: 10 }, (_, n) => [`f${n}`, { $ref: `#/definitions/d${i + 1}` }])) }
    const started = performance.now()
    expect(readTraitsSchema({ definitions, properties: { traits: { $ref: '#/definitions/d0' } } })).toBeNull()
    expect(performance.now() - started).toBeLessThan(1000)
  })
})
