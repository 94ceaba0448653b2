// Kratos's and Hydra's records as the pages read them (Ory's API reference), checked on arrival.
// A record that is not one (not an object, no id) is refused; a field in another shape than Ory's
// is left out and named in `unreadable`, so that a page shows the rest and says what it cannot
// show. A page never reads an upstream field it has not been given through here.

type Json = Record<string, unknown>

export const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)
const isString = (value: unknown): value is string => typeof value === 'string'
const isId = (value: unknown): value is string => typeof value === 'string' && value !== ''
const isBoolean = (value: unknown): value is boolean => typeof value === 'boolean'
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value)
const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every(isString)
const isAnything = (_value: unknown): _value is unknown => true

/** Reads the fields of one record, noting each one that is there in another shape. */
function fieldsOf(source: Json) {
  const unreadable: string[] = []
  const note = (name: string) => {
    if (!unreadable.includes(name)) unreadable.push(name)
  }
  /** The field when it has the expected shape; missing (or null) is no fault unless it is `required`. */
  function field<T>(name: string, check: (value: unknown) => value is T, required = false): T | undefined {
    const value = source[name]
    if (check(value)) return value
    if (required || (value !== undefined && value !== null)) note(name)
    return undefined
  }
  /** A list of sub-records: the ones that can be read; the field is noted when any cannot. */
  function list<T>(name: string, read: (value: unknown) => T | null): T[] {
    const value = source[name]
    if (value === undefined || value === null) return []
    if (!Array.isArray(value)) {
      note(name)
      return []
    }
    const items = value.map(read).filter((item): item is T => item !== null)
    if (items.length < value.length) note(name)
    return items
  }
  return { field, list, note, unreadable }
}

/** The record with its checked fields over the fields it came with (which no page reads). */
function checked<T>(source: Json, fields: T, unreadable: string[]): T & { unreadable?: string[] } {
  return { ...source, ...fields, ...(unreadable.length > 0 ? { unreadable } : {}) } as T & { unreadable?: string[] }
}

// Kratos (identities, sessions, courier messages).

interface VerifiableAddress {
  value: string
  via?: string
  verified: boolean
}
interface RecoveryAddress {
  value: string
  via?: string
}
interface Credential {
  type: string
  identifiers: string[]
}
export interface Identity {
  id: string
  schema_id?: string
  state?: 'active' | 'inactive'
  /** Left out when Kratos sent none or something else than an object: then it is in `unreadable`. */
  traits?: Record<string, unknown>
  metadata_public?: unknown
  metadata_admin?: unknown
  verifiable_addresses: VerifiableAddress[]
  recovery_addresses: RecoveryAddress[]
  credentials?: Record<string, Credential>
  created_at?: string
  updated_at?: string
  /** The fields that came in another shape and are left out above. */
  unreadable?: string[]
}

const isState = (value: unknown): value is 'active' | 'inactive' => value === 'active' || value === 'inactive'

function readVerifiableAddress(value: unknown): VerifiableAddress | null {
  if (!isRecord(value) || !isString(value.value)) return null
  return { value: value.value, via: isString(value.via) ? value.via : undefined, verified: value.verified === true }
}

function readRecoveryAddress(value: unknown): RecoveryAddress | null {
  if (!isRecord(value) || !isString(value.value)) return null
  return { value: value.value, via: isString(value.via) ? value.via : undefined }
}

export function readIdentity(value: unknown): Identity | null {
  if (!isRecord(value) || !isId(value.id)) return null
  const { field, list, note, unreadable } = fieldsOf(value)
  let credentials: Record<string, Credential> | undefined
  const rawCredentials = field('credentials', isRecord)
  if (rawCredentials) {
    credentials = {}
    for (const [type, credential] of Object.entries(rawCredentials)) {
      if (!isRecord(credential) || (credential.identifiers !== undefined && credential.identifiers !== null && !isStrings(credential.identifiers))) {
        note('credentials')
        continue
      }
      credentials[type] = { type: isId(credential.type) ? credential.type : type, identifiers: credential.identifiers ?? [] }
    }
  }
  return checked(
    value,
    {
      id: value.id,
      schema_id: field('schema_id', isString),
      state: field('state', isState),
      traits: field('traits', isRecord, true),
      metadata_public: field('metadata_public', isAnything),
      metadata_admin: field('metadata_admin', isAnything),
      verifiable_addresses: list('verifiable_addresses', readVerifiableAddress),
      recovery_addresses: list('recovery_addresses', readRecoveryAddress),
      credentials,
      created_at: field('created_at', isString),
      updated_at: field('updated_at', isString),
    },
    unreadable,
  )
}

interface Device {
  ip_address?: string
  user_agent?: string
  location?: string
}
export interface KratosSession {
  id: string
  active?: boolean
  authenticated_at?: string
  issued_at?: string
  expires_at?: string
  devices: Device[]
  identity?: Identity
  unreadable?: string[]
}

function readDevice(value: unknown): Device | null {
  if (!isRecord(value)) return null
  const text = (name: string) => (isString(value[name]) ? (value[name] as string) : undefined)
  return { ip_address: text('ip_address'), user_agent: text('user_agent'), location: text('location') }
}

export function readSession(value: unknown): KratosSession | null {
  if (!isRecord(value) || !isId(value.id)) return null
  const { field, list, note, unreadable } = fieldsOf(value)
  const identity = value.identity === undefined || value.identity === null ? undefined : (readIdentity(value.identity) ?? undefined)
  if (value.identity !== undefined && value.identity !== null && !identity) note('identity')
  return checked(
    value,
    {
      id: value.id,
      active: field('active', isBoolean),
      authenticated_at: field('authenticated_at', isString),
      issued_at: field('issued_at', isString),
      expires_at: field('expires_at', isString),
      devices: list('devices', readDevice),
      identity,
    },
    unreadable,
  )
}

interface MessageDispatch {
  id?: string
  status: string
  error?: unknown
  created_at?: string
}
export interface CourierMessage {
  id: string
  status: string
  type?: string
  channel?: string
  recipient: string
  /** Left out when Kratos withheld it (see `hidden`). */
  subject?: string
  /** Left out when Kratos withheld it (see `hidden`), or sent none or not a text: then it is in `unreadable`. */
  body?: string
  /** Kratos withheld the subject and body, as it does unless it runs in dev mode. */
  hidden: boolean
  template_type?: string
  send_count?: number
  created_at?: string
  updated_at?: string
  dispatches: MessageDispatch[]
  unreadable?: string[]
}

function readDispatch(value: unknown): MessageDispatch | null {
  if (!isRecord(value) || !isString(value.status)) return null
  return { id: isString(value.id) ? value.id : undefined, status: value.status, error: value.error, created_at: isString(value.created_at) ? value.created_at : undefined }
}

/**
 * What Kratos sends instead of a message's subject and body unless it runs in dev mode (its
 * courier handler, in the list and on a message's own page): a placeholder, not the message's text.
 */
const KRATOS_WITHHELD = '<redacted-unless-dev-mode>'

export function readMessage(value: unknown): CourierMessage | null {
  if (!isRecord(value) || !isId(value.id)) return null
  const { field, list, unreadable } = fieldsOf(value)
  const subject = field('subject', isString)
  const hidden = subject === KRATOS_WITHHELD || value.body === KRATOS_WITHHELD
  return checked(
    value,
    {
      id: value.id,
      status: field('status', isString, true) ?? '',
      type: field('type', isString),
      channel: field('channel', isString),
      recipient: field('recipient', isString, true) ?? '',
      subject: subject === KRATOS_WITHHELD ? undefined : subject,
      body: value.body === KRATOS_WITHHELD ? undefined : field('body', isString, true),
      hidden,
      template_type: field('template_type', isString),
      send_count: field('send_count', isNumber),
      created_at: field('created_at', isString),
      updated_at: field('updated_at', isString),
      dispatches: list('dispatches', readDispatch),
    },
    unreadable,
  )
}

/** The kinds of field the traits form can show. */
export type FieldType = 'string' | 'number' | 'integer' | 'boolean' | 'object'

/**
 * An identity schema's traits as the form reads them: only the JSON Schema keywords it uses, each
 * checked (see `readTraitsSchema`), local `$ref`s already followed.
 */
export interface FormSchema {
  type: FieldType
  title?: string
  format?: string
  enum?: (string | number | boolean)[]
  properties?: Record<string, FormSchema>
  required?: string[]
  minLength?: number
  maxLength?: number
  minimum?: number
  maximum?: number
  /** Only a pattern this browser can compile; Kratos checks every pattern on save anyway. */
  pattern?: string
  /** A login identifier (Kratos's `ory.sh/kratos` extension). */
  identifier?: boolean
}
export interface IdentitySchema {
  id: string
  /** The schema's own title, when it has one in text. */
  title?: string
  /** The traits as a form; null when the schema cannot be shown as one. */
  traits: FormSchema | null
  /**
   * The schema is well formed, but uses what a form cannot show faithfully (a list, a field of
   * several types, a free-form object, a `$ref` to another document): its traits are edited as
   * JSON, which shows all of them, and Kratos checks them against the schema on save.
   */
  asJson: boolean
  /** Where the traits it marks as login identifiers are, in the schema's order (see `readIdentifierTraits`). */
  identifiers: TraitPath[]
}

/** Each item of a list, as a step of a `TraitPath`. */
export const EACH_ITEM = Symbol('each item')
/** Where a trait is within the traits: the keys of the objects on the way, and `EACH_ITEM` through a list. */
export type TraitPath = readonly (string | typeof EACH_ITEM)[]

/**
 * The identity schemas with an id (an entry without one cannot be chosen); null when the answer is
 * no list. A schema whose traits cannot be read as a form is kept, with `traits` null, so a page
 * can say which schema that is.
 */
export function readSchemas(value: unknown): IdentitySchema[] | null {
  if (!Array.isArray(value)) return null
  return value
    .filter((entry): entry is Json & { id: string } => isRecord(entry) && isId(entry.id))
    .map((entry) => {
      const title = isRecord(entry.schema) && isString(entry.schema.title) && entry.schema.title.trim() !== '' ? entry.schema.title : undefined
      const read = readTraits(entry.schema)
      return { id: entry.id, ...(title !== undefined ? { title } : {}), traits: read === AS_JSON ? null : read, asJson: read === AS_JSON, identifiers: readIdentifierTraits(entry.schema) }
    })
}

const FIELD_TYPES: readonly FieldType[] = ['string', 'number', 'integer', 'boolean', 'object']
/** Keywords that make a field without a `type` something other than text. */
const UNTYPED_NOT_TEXT = ['anyOf', 'oneOf', 'allOf', 'not', 'if', 'items', 'prefixItems', 'contains', 'additionalProperties', 'patternProperties', 'const']
/** JSON Schema's type names. */
const JSON_TYPES: ReadonlySet<string> = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'])
/** Objects nested deeper, or more fields than this, are not a form anyone fills in (and bound the reading: refs can repeat a part). */
const MAX_DEPTH = 16
const MAX_FIELDS = 500
const NUMERIC_KEYWORDS = ['minLength', 'maxLength', 'minimum', 'maximum'] as const
const isOption = (value: unknown): value is string | number | boolean | null => value === null || isString(value) || isNumber(value) || isBoolean(value)

/** What `readTraits` answers for a well-formed schema that a form cannot show: edit its traits as JSON. */
export const AS_JSON = Symbol('traits as JSON')

/** `properties.traits` of an identity schema as a form, or null when it cannot be one (see `readTraits`). */
export function readTraitsSchema(document: unknown): FormSchema | null {
  const read = readTraits(document)
  return read === AS_JSON ? null : read
}

/**
 * `properties.traits` of an identity schema as a form. A form that showed only part of the traits,
 * or guessed, would send traits that overwrite what it did not understand, so:
 * - `AS_JSON` when the schema is well formed but uses what the form cannot edit faithfully (a list,
 *   a field of several types, an object without properties, a `$ref` to another document);
 * - null when any part the form would use is in another shape than JSON Schema gives it (a type
 *   that is no type name, a title that is no text, a `$ref` cycle or to nothing): an answer that
 *   is not what Kratos serves, which no edit is offered for.
 * `$ref`s within the document are followed (a cycle is refused); `$ref`s to other documents are not.
 */
export function readTraits(document: unknown): FormSchema | typeof AS_JSON | null {
  if (!isRecord(document) || !isRecord(document.properties)) return null
  /** Set when a well-formed part cannot be shown; the reading goes on, as a malformed part elsewhere still makes it null. */
  let unshowable = false

  /** The node a `$ref` chain ends at, with the refs followed on the way down to it; AS_JSON at a `$ref` to another document. */
  const resolve = (node: unknown, followed: string[]): { node: Json; followed: string[] } | typeof AS_JSON | null => {
    let current = node
    let chain = followed
    while (isRecord(current) && current.$ref !== undefined) {
      const ref = current.$ref
      if (!isString(ref) || chain.includes(ref)) return null
      if (ref.trim() !== '' && !ref.startsWith('#')) return AS_JSON
      chain = [...chain, ref]
      current = pointTo(document, ref)
    }
    return isRecord(current) ? { node: current, followed: chain } : null
  }

  /** An object's fields; AS_JSON for an object without properties (a free-form object). */
  const readObject = (raw: Json, depth: number, followed: string[]): FormSchema | typeof AS_JSON | null => {
    if (depth > MAX_DEPTH) return null
    if (raw.properties === undefined) return AS_JSON
    if (!isRecord(raw.properties)) return null
    if (raw.required !== undefined && !isStrings(raw.required)) return null
    const properties: [string, FormSchema][] = []
    for (const [key, value] of Object.entries(raw.properties)) {
      // A field needs a name to be labelled by; `__proto__` would not survive as a trait's key.
      if (key.trim() === '' || key === '__proto__') return null
      const field = readField(value, depth, followed)
      if (field === null) return null
      if (field === AS_JSON) unshowable = true
      else properties.push([key, field])
    }
    return { type: 'object', properties: Object.fromEntries(properties), ...(raw.required ? { required: [...raw.required] } : {}) }
  }

  let fields = 0
  const readField = (value: unknown, depth: number, followed: string[]): FormSchema | typeof AS_JSON | null => {
    if (++fields > MAX_FIELDS) return null
    const resolved = resolve(value, followed)
    if (resolved === null || resolved === AS_JSON) return resolved
    const raw = resolved.node
    const type = typeOf(raw)
    if (type === null) return null
    if (raw.title !== undefined && !isString(raw.title)) return null
    if (type === AS_JSON) return AS_JSON
    // Without a type, these let the value be a list, an object or one of several kinds, which a
    // text field would turn into text.
    if (raw.type === undefined && UNTYPED_NOT_TEXT.some((keyword) => raw[keyword] !== undefined)) return AS_JSON
    const title = isString(raw.title) && raw.title.trim() !== '' ? { title: raw.title } : {}
    if (type === 'object') {
      const object = readObject(raw, depth + 1, resolved.followed)
      return object && object !== AS_JSON ? { ...object, ...title } : object
    }
    const field: FormSchema = { type, ...title }
    if (raw.format !== undefined) {
      if (!isString(raw.format)) return null
      field.format = raw.format
    }
    for (const keyword of NUMERIC_KEYWORDS) {
      const bound = raw[keyword]
      if (bound === undefined) continue
      if (!isNumber(bound)) return null
      field[keyword] = bound
    }
    if (raw.enum !== undefined) {
      if (!Array.isArray(raw.enum) || !raw.enum.every(isOption)) return null
      // null among the options is "no value", which the form's empty choice already is.
      field.enum = raw.enum.filter((option): option is string | number | boolean => option !== null)
    }
    if (raw.pattern !== undefined) {
      if (!isString(raw.pattern)) return null
      if (compiles(raw.pattern)) field.pattern = raw.pattern
    }
    if (isLoginIdentifier(raw['ory.sh/kratos'])) field.identifier = true
    return field
  }

  const traits = resolve(document.properties.traits, [])
  if (traits === null || traits === AS_JSON) return traits
  const type = traits.node.type === undefined ? 'object' : typeOf(traits.node)
  if (type === AS_JSON) return AS_JSON
  if (type !== 'object') return null
  const form = readObject(traits.node, 0, traits.followed)
  return form === null || form === AS_JSON ? form : unshowable ? AS_JSON : form
}

/**
 * Whether traits as stored fit the form: every value the form shows is of its field's kind (an
 * object for a nested one). A value of another kind (a list where the schema says text, say,
 * stored before the schema changed) would be sent back as text by the form, so such an identity's
 * traits are edited as JSON instead.
 */
export function traitsFitForm(form: FormSchema, traits: Record<string, unknown>): boolean {
  return Object.entries(form.properties ?? {}).every(([key, field]) => {
    const value = traits[key]
    if (value === undefined || value === null) return true
    switch (field.type) {
      case 'object':
        return isRecord(value) && traitsFitForm(field, value)
      case 'string':
        return isString(value)
      case 'number':
      case 'integer':
        return isNumber(value)
      case 'boolean':
        return isBoolean(value)
    }
  })
}

/**
 * One kind of field: a JSON Schema `type` (or a list of one type and "null"); none means text, or an
 * object when it has properties. AS_JSON for a type the form cannot show (a list, several types);
 * null for what is no type.
 */
function typeOf(raw: Json): FieldType | typeof AS_JSON | null {
  const type = raw.type
  if (type === undefined) return raw.properties !== undefined ? 'object' : 'string'
  const named = isString(type) ? [type] : isStrings(type) ? type.filter((name) => name !== 'null') : null
  if (named === null || !named.every((name) => JSON_TYPES.has(name))) return null
  // Only "null" (a field that holds nothing), or several types: not a field the form can show.
  if (named.length !== 1) return AS_JSON
  return FIELD_TYPES.find((kind) => kind === named[0]) ?? AS_JSON
}

/** The value a `#/…` JSON Pointer names within `document`; undefined when there is none. */
function pointTo(document: Json, ref: string): unknown {
  if (ref === '#') return document
  if (!ref.startsWith('#/')) return undefined
  let node: unknown = document
  for (const part of ref.slice(2).split('/')) {
    let name: string
    try {
      name = decodeURIComponent(part).replaceAll('~1', '/').replaceAll('~0', '~')
    } catch {
      return undefined
    }
    if (!(isRecord(node) || Array.isArray(node)) || !Object.hasOwn(node, name)) return undefined
    node = (node as Record<string, unknown>)[name]
  }
  return node
}

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern, 'u')
    return true
  } catch {
    return false
  }
}

/**
 * Kratos's extension marks a login identifier with `identifier: true` under `credentials.password`,
 * `credentials.webauthn` or `credentials.code` (identity/extension_credentials.go); a passkey's
 * `display_name` and TOTP's `account_name` name no identifier.
 */
function isLoginIdentifier(extension: unknown): boolean {
  if (!isRecord(extension) || !isRecord(extension.credentials)) return false
  const { password, webauthn, code } = extension.credentials
  return [password, webauthn, code].some((method) => isRecord(method) && method.identifier === true)
}

/**
 * The traits an identity schema marks as login identifiers (`ory.sh/kratos`, see
 * `isLoginIdentifier`), in the schema's order: at any depth of nested objects, and a list whose
 * items are marked (each address of a list of them is one). Read from the document itself, so a
 * schema that cannot be a form still names its identities. Local `$ref`s are followed (a cycle, or
 * one to another document, is not); what is no JSON Schema there is passed over.
 */
export function readIdentifierTraits(document: unknown): TraitPath[] {
  if (!isRecord(document) || !isRecord(document.properties)) return []
  const found: TraitPath[] = []
  let visited = 0
  const walk = (node: unknown, path: TraitPath, followed: readonly string[]) => {
    if (++visited > MAX_FIELDS || path.length > MAX_DEPTH) return
    let current = node
    let chain = followed
    while (isRecord(current) && current.$ref !== undefined) {
      const ref = current.$ref
      if (!isString(ref) || !ref.startsWith('#') || chain.includes(ref)) return
      chain = [...chain, ref]
      current = pointTo(document, ref)
    }
    if (!isRecord(current)) return
    if (path.length > 0 && isLoginIdentifier(current['ory.sh/kratos'])) {
      found.push(path)
      return
    }
    if (isRecord(current.properties)) {
      for (const [key, child] of Object.entries(current.properties)) walk(child, [...path, key], chain)
    }
    if (isRecord(current.items)) walk(current.items, [...path, EACH_ITEM], chain)
  }
  walk(document.properties.traits, [], [])
  return found
}

export interface RecoveryLink {
  recovery_link: string
  expires_at?: string
}
export interface RecoveryCode extends RecoveryLink {
  recovery_code: string
}

export function readRecoveryLink(value: unknown): RecoveryLink | null {
  if (!isRecord(value) || !isId(value.recovery_link)) return null
  return { recovery_link: value.recovery_link, expires_at: isString(value.expires_at) ? value.expires_at : undefined }
}

export function readRecoveryCode(value: unknown): RecoveryCode | null {
  const link = readRecoveryLink(value)
  if (!link || !isRecord(value) || !isId(value.recovery_code)) return null
  return { ...link, recovery_code: value.recovery_code }
}

// Hydra (OAuth 2.0 clients).

/** Every lifespan Hydra v26 answers for a client (client/client.go Lifespans), grouped by grant. */
export const CLIENT_LIFESPANS = [
  'authorization_code_grant_access_token_lifespan',
  'authorization_code_grant_id_token_lifespan',
  'authorization_code_grant_refresh_token_lifespan',
  'client_credentials_grant_access_token_lifespan',
  'implicit_grant_access_token_lifespan',
  'implicit_grant_id_token_lifespan',
  'jwt_bearer_grant_access_token_lifespan',
  'refresh_token_grant_access_token_lifespan',
  'refresh_token_grant_id_token_lifespan',
  'refresh_token_grant_refresh_token_lifespan',
  'device_authorization_grant_access_token_lifespan',
  'device_authorization_grant_id_token_lifespan',
  'device_authorization_grant_refresh_token_lifespan',
] as const
export type ClientLifespan = (typeof CLIENT_LIFESPANS)[number]
export interface OAuthClient extends Partial<Record<ClientLifespan, string | null>> {
  client_id: string
  client_name?: string
  client_secret?: string
  redirect_uris?: string[] | null
  post_logout_redirect_uris?: string[] | null
  grant_types?: string[] | null
  response_types?: string[] | null
  scope?: string
  audience?: string[] | null
  token_endpoint_auth_method?: string
  /** Where Hydra fetches the client's public keys (a `private_key_jwt` client's, say); "" or left out when unset. */
  jwks_uri?: string
  /** The client's public keys given inline, as Hydra sent them: only whether there are any is read (see `hasInlineJwks`). */
  jwks?: unknown
  skip_consent?: boolean
  owner?: string
  created_at?: string
  updated_at?: string
  unreadable?: string[]
}

const CLIENT_STRINGS = ['client_name', 'client_secret', 'scope', 'token_endpoint_auth_method', 'jwks_uri', 'owner', 'created_at', 'updated_at'] as const
const CLIENT_LISTS = ['redirect_uris', 'post_logout_redirect_uris', 'grant_types', 'response_types', 'audience'] as const

export function readClient(value: unknown): OAuthClient | null {
  if (!isRecord(value) || !isId(value.client_id)) return null
  const { field, unreadable } = fieldsOf(value)
  const fields: Record<string, unknown> = { client_id: value.client_id, skip_consent: field('skip_consent', isBoolean) }
  for (const name of CLIENT_STRINGS) fields[name] = field(name, isString)
  for (const name of CLIENT_LISTS) fields[name] = field(name, isStrings)
  for (const name of CLIENT_LIFESPANS) fields[name] = field(name, isString)
  return checked(value, fields as unknown as OAuthClient, unreadable)
}
