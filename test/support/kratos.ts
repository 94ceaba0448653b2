// A stand-in for the Ory Kratos admin API that behaves as shared/reference/ory-upstreams.md and
// Ory's sources describe: keyset paging with a `Link` header, each list in its own order and with
// its own tokens, and an identity's sessions by offset as Kratos still pages them, with its
// `X-Total-Count` (kratos-paging.ts); bare JSON arrays, Kratos error bodies, exact (lower-cased)
// identifier matching; identity schemas, identity create / update / JSON Patch / delete,
// credentials and sessions per identity, the session list with `expand`, extend and disable,
// recovery links and codes, courier messages with their dispatches.
// Used by the tests and by `bun run dev`.

import { randomUUID } from 'node:crypto'
import Ajv, { type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import {
  FIRST_POSITION,
  NIL_UUID,
  SEALED_TOKEN_LIFETIME_MS,
  SealedTokens,
  firstNonEmpty,
  firstSessionToken,
  goAtoi,
  goParseBool,
  goParseQuery,
  keysetLink,
  microsOf,
  offsetPagingHeaders,
  pageSizeOf,
  parseOffsetPaging,
  popPage,
  readSessionToken,
  rowsAfter,
  sessionPosition,
  sessionToken,
} from './kratos-paging.ts'

export interface FixtureIdentity {
  id: string
  schema_id: string
  schema_url: string
  state: 'active' | 'inactive'
  traits: Record<string, unknown>
  verifiable_addresses: unknown[]
  recovery_addresses: unknown[]
  metadata_public: unknown
  metadata_admin: unknown
  created_at: string
  updated_at: string
  /** The organization the identity belongs to, when it belongs to one. */
  organization_id?: string
  /** Login identifiers (not part of the JSON unless requested, as in Kratos). */
  identifiers: string[]
  /** Credentials by type (the password's hash never leaves). */
  credentials?: Record<string, FixtureCredential>
}

/**
 * A credential as Kratos stores it, with only as much of its config as the stand-in acts on
 * (never served: `render` puts Kratos's declassified config in its place).
 */
export interface FixtureCredential {
  type: string
  identifiers: string[]
  version: number
  /**
   * `password`: whether a hash is set (absent: it is; Kratos's delete empties the config, see
   * `deleteCredential`). `webauthn` and `passkey`: the keys, each passwordless or a second factor
   * (absent: one key, passwordless for a passkey, a second factor for webauthn).
   */
  config?: { hashed?: boolean; keys?: { id: string; passwordless: boolean }[] }
}

export interface FixtureSession {
  id: string
  identityId: string
  active: boolean
  /** When Kratos stored the session: its list's order, never part of the JSON (`json:"-"`). */
  created_at: string
  authenticated_at: string
  issued_at: string
  expires_at: string
  devices: { id: string; ip_address: string; user_agent: string; location: string }[]
}

export interface FixtureDispatch {
  id: string
  message_id: string
  status: 'failed' | 'success'
  error: Record<string, unknown> | null
  created_at: string
  updated_at: string
}

export interface FixtureMessage {
  id: string
  status: 'queued' | 'sent' | 'processing' | 'abandoned'
  type: 'email' | 'sms'
  channel: string
  recipient: string
  subject: string
  body: string
  template_type: string
  send_count: number
  created_at: string
  updated_at: string
  dispatches: FixtureDispatch[]
}

/** The identity schema every fixture identity uses: e-mail (login identifier, verified and recovered by mail), a name, a role. */
export const DEFAULT_SCHEMA = {
  $id: 'https://schemas.ory.sh/presets/kratos/identity.email.schema.json',
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Person',
  type: 'object',
  properties: {
    traits: {
      type: 'object',
      properties: {
        email: {
          type: 'string',
          format: 'email',
          title: 'E-mail',
          minLength: 3,
          maxLength: 320,
          'ory.sh/kratos': { credentials: { password: { identifier: true }, code: { identifier: true, via: 'email' } }, verification: { via: 'email' }, recovery: { via: 'email' } },
        },
        name: { type: 'string', title: 'Name', maxLength: 256 },
        role: { type: 'string', title: 'Role', enum: ['admin', 'viewer'] },
      },
      required: ['email'],
      additionalProperties: false,
    },
  },
} as const

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/
/** A validator per schema document, each its own Ajv (two schemas may share an `$id`). */
const validators = new WeakMap<object, ValidateFunction>()
function validatorFor(schema: Record<string, unknown>): ValidateFunction {
  let check = validators.get(schema)
  if (!check) validators.set(schema, (check = addFormats(new Ajv({ strict: false })).compile(schema)))
  return check
}
/** A webauthn credential's keys; one second-factor key when the fixture says nothing of them. */
const webauthnKeys = (credential: FixtureCredential) => credential.config?.keys ?? [{ id: 'key-1', passwordless: false }]

/** The credentials types `include_credential` takes (`identity.ParseCredentialsType`). */
const CREDENTIAL_TYPES = ['password', 'oidc', 'saml', 'totp', 'lookup_secret', 'webauthn', 'code', 'link_recovery', 'code_recovery', 'passkey']

export interface RecordedCall {
  method: string
  path: string
  query: URLSearchParams
  headers: Headers
  /** The `Link` header answered (null for none, undefined until answered): where a list said its next page is. */
  link?: string | null
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * An id in a path as Kratos reads it (`x.ParseUUID`, gofrs/uuid's `FromStringOrNil`): canonical,
 * 32 hex digits, either of those in braces or after `urn:uuid:`, hex digits in either case. The
 * canonical lower-case form, or null where Kratos gets the nil UUID (and answers 404).
 */
export function kratosId(text: string): string | null {
  let body = text
  if ((body.length === 38 || body.length === 34) && body.startsWith('{') && body.endsWith('}')) body = body.slice(1, -1)
  else if ((body.length === 45 || body.length === 41) && body.startsWith('urn:uuid:')) body = body.slice(9)
  const hex = body.length === 36 && UUID.test(body) ? body.replaceAll('-', '') : body.length === 32 && /^[0-9a-f]{32}$/i.test(body) ? body : null
  if (hex === null) return null
  const lower = hex.toLowerCase()
  return `${lower.slice(0, 8)}-${lower.slice(8, 12)}-${lower.slice(12, 16)}-${lower.slice(16, 20)}-${lower.slice(20)}`
}

/** A path segment percent-decoded, or as it came where it is no valid escape. */
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/** Why gofrs/uuid's `FromString` (v4.4) refuses a text `kratosId` cannot read: its error's words. */
export function uuidRefusal(text: string): string {
  const quoted = JSON.stringify(text)
  const length = Buffer.byteLength(text)
  if (![32, 34, 36, 38, 41, 45].includes(length)) return `uuid: incorrect UUID length ${length} in string ${quoted}`
  let plain = text
  if (length === 34 || length === 38) {
    if (!text.startsWith('{') || !text.endsWith('}')) return `uuid: incorrect UUID format in string ${quoted}`
    plain = text.slice(1, -1)
  } else if (length === 41 || length === 45) {
    if (!text.startsWith('urn:uuid:')) return `uuid: incorrect UUID format in string ${quoted}`
    plain = text.slice(9)
  }
  if (plain.length === 36) {
    if ([8, 13, 18, 23].some((at) => plain[at] !== '-')) return `uuid: incorrect UUID format in string ${quoted}`
    plain = plain.replaceAll('-', '')
  }
  // encoding/hex's InvalidByteError, for the first byte that is no hex digit.
  const bad = [...plain].find((c) => !/[0-9a-fA-F]/.test(c)) ?? '?'
  return `encoding/hex: invalid byte: U+${bad.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} '${bad}'`
}

function kratosError(code: number, status: string, message: string, reason?: string): Response {
  const error: Record<string, unknown> = { code, status, message }
  if (reason) error.reason = reason
  return Response.json({ error }, { status: code })
}

const badRequest = (reason: string) =>
  kratosError(400, 'Bad Request', 'The request was malformed or contained invalid parameters', reason)
const notFound = () => kratosError(404, 'Not Found', 'Unable to locate the resource')
/** herodot's `ErrNotFound`, which Kratos's own 404s (not a missing row) start from. */
const NOT_FOUND = 'The requested resource could not be found'

/**
 * What the lists answer for a page token they cannot use. The identities and sessions lists check
 * the token's id to be a UUID (`x.PageTokenInvalid`). The session list reads its base64 map token
 * (and its page size) first, and words a token that is no base64 as its page_size check does
 * (`could not parse parameter page_size`). The courier's sealed tokens fail with keysetpagination's
 * "invalid pagination token" or "page token expired", in the message and without a reason (as
 * Kratos after v26.2 words them; v26.2.0 itself relays the decoder's error text there).
 */
const pageTokenInvalid = () => badRequest('The page token is invalid, do not craft your own page tokens')
const sessionPageSizeUnparsed = () => kratosError(400, 'Bad Request', 'could not parse parameter page_size')
const messageTokenRefused = () => kratosError(400, 'Bad Request', 'invalid pagination token')
const messageTokenExpired = () => kratosError(400, 'Bad Request', 'page token expired, do not persist page tokens')
const internalError = () => kratosError(500, 'Internal Server Error', 'An internal server error occurred, please contact the system administrator')

/** A session's `expand` values (`session.ParseExpandable`, any case); a Response for one Kratos does not know. */
function sessionExpand(url: URL): { identity: boolean; devices: boolean } | Response {
  const expand = { identity: false, devices: false }
  for (const value of url.searchParams.getAll('expand')) {
    const known = value.toLowerCase()
    if (known !== 'identity' && known !== 'devices') return badRequest(`Could not parse expand option: ${value}`)
    expand[known] = true
  }
  return expand
}

/** The `active` filter (`strconv.ParseBool`): null for none, a Response for a value Go cannot read. */
function activeFilter(url: URL): boolean | null | Response {
  const raw = url.searchParams.get('active') ?? ''
  if (raw === '') return null
  return goParseBool(raw) ?? kratosError(400, 'Bad Request', 'could not parse parameter active')
}

/** The database's `active = true AND expires_at >= now` (or its negation for active=false). */
function matchesActive(session: FixtureSession, active: boolean | null, now: number): boolean {
  if (active === null) return true
  const live = session.active && Date.parse(session.expires_at) >= now
  return active ? live : !live
}

/** Turns a record or a list as stored into the JSON a test wants served instead (any shape at all). */
/** What Kratos serves instead of a courier message's subject and body unless it runs in dev mode. */
export const REDACTED_UNLESS_DEV_MODE = '<redacted-unless-dev-mode>'

export type Reshape = (json: Record<string, unknown>) => unknown
export type ReshapeList = (rows: unknown[]) => unknown

export interface KratosFixtureOptions {
  /** When set, every /admin request must carry `Authorization: Bearer <apiKey>` (as Ory Network). */
  apiKey?: string
  port?: number
  /**
   * Two ports, as a self-hosted Kratos serves them, instead of Ory Network's one URL for both APIs.
   * The admin port sends every path outside `/admin` to `/admin` + path with a 307
   * (`RedirectAdminMiddleware`), and `/admin/schemas` to the public port's `/schemas`
   * (`RedirectToPublicRoute`); its health and version are `/admin/health/alive`, `/admin/version`.
   * The public port serves the schemas, health and version.
   */
  selfHosted?: boolean
}

/** Go's `http.Redirect` for a GET: the status, the Location as given, a small HTML body. */
function goRedirect(location: string): Response {
  const escaped = location.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&#34;').replaceAll("'", '&#39;')
  return new Response(`<a href="${escaped}">Temporary Redirect</a>.\n\n`, { status: 307, headers: { location, 'content-type': 'text/html; charset=utf-8' } })
}

export class KratosFixture {
  readonly identities = new Map<string, FixtureIdentity>()
  readonly sessions: FixtureSession[] = []
  readonly messages: FixtureMessage[] = []
  /** Passwords set at creation (by identity id), to prove a form sent one. */
  readonly passwords = new Map<string, string>()
  /** Recovery links and codes handed out, newest last: `value` is the link or the code, `link` the address answered with it. */
  readonly recoveries: { identityId: string; kind: 'link' | 'code'; value: string; link: string; expires_at: string }[] = []
  readonly calls: RecordedCall[] = []
  /** Milliseconds to wait before answering (to exercise timeouts). */
  delayMs = 0
  /** When set, every /admin request answers this status with a Kratos error body. */
  failWith: number | null = null
  /**
   * What a compromised Kratos (or one reached over a network someone tampers with) answers instead,
   * by `METHOD path`: a redirect to `location`, as given. 307 and 308 keep the method and the body.
   */
  readonly hostileRedirects = new Map<string, { status: 301 | 302 | 303 | 307 | 308; location: string }>()
  /**
   * `METHOD /path` → what something in front of Kratos answers there instead of Kratos (an ingress's
   * 404 page for a wrong base path, say): the status and an HTML body, or a gateway's own JSON
   * (`{"error":"Not Found",…}`, never Kratos's shape).
   */
  readonly frontPages = new Map<string, number | { status: number; json: Record<string, unknown> }>()
  /**
   * Records served in another shape than Kratos's, by id (identity, session or message): wherever
   * the record appears (its own page, a list, a session's identity) it is answered reshaped.
   */
  readonly malformedRecords = new Map<string, Reshape>()
  /** Lists served in another shape, by path (`/admin/sessions`, `/admin/identities/<id>/sessions`…). */
  readonly malformedLists = new Map<string, ReshapeList>()
  /** path → the `Link` header a test wants served on its answers instead of the stand-in's own. */
  readonly malformedLinks = new Map<string, string>()
  /** Identity schemas served in another shape, by schema id: in the list of schemas and at their own address. */
  readonly malformedSchemas = new Map<string, Reshape>()
  /**
   * Identity schemas beyond the preset (`default`), by id: listed after it, served at their own
   * address, and the traits of an identity that uses one are checked against it with JSON Schema,
   * its `ory.sh/kratos` identifiers (a text or a list of texts) taken as login identifiers.
   */
  readonly extraSchemas = new Map<string, Record<string, unknown>>()
  /**
   * Kratos's `selfservice.methods.code.passwordless_enabled` (off by default): on, the code
   * strategy counts one first factor for every identity, which a credential delete takes into account.
   */
  passwordlessCode = false
  /** Kratos's `feature_flags.faster_session_extend` (off by default): extending answers 204 without the session. */
  fasterSessionExtend = false
  /** Kratos's `session.earliest_possible_extend` in ms; null: unset, the session's lifespan (any session may be extended). */
  earliestPossibleExtendMs: number | null = null
  /**
   * The recovery methods turned on (`selfservice.methods.<method>.enabled`; the link method is off
   * in Kratos's own defaults, here both are on, as a deployment that uses them has them). A method
   * turned off answers its admin route 404 (selfservice/strategy/handler.go IsDisabled).
   */
  readonly recoveryMethods = { link: true, code: true }
  /**
   * Whether Kratos runs in dev mode. On by default: the sandbox stands in for `kratos serve --dev`.
   * Off, a courier message's subject and body are served as Kratos serves them outside dev mode,
   * replaced by `<redacted-unless-dev-mode>` in the list and on the message's own page.
   */
  devMode = true
  /** How long a courier page token is accepted (an hour, as Kratos's); a test may shorten it. */
  pageTokenLifetimeMs = SEALED_TOKEN_LIFETIME_MS
  private readonly sealedTokens = new SealedTokens(() => this.pageTokenLifetimeMs)
  apiKey: string | undefined
  /** Paths the public port was asked for (self-hosted only). */
  readonly publicCalls: string[] = []
  private server: ReturnType<typeof Bun.serve> | null = null
  private publicServer: ReturnType<typeof Bun.serve> | null = null
  private port: number
  private readonly selfHosted: boolean

  constructor(options: KratosFixtureOptions = {}) {
    this.apiKey = options.apiKey
    this.port = options.port ?? 0
    this.selfHosted = options.selfHosted ?? false
  }

  /** The admin API's URL (on Ory Network, the one URL of both APIs). */
  get url(): string {
    if (!this.server) throw new Error('fixture not started')
    return `http://127.0.0.1:${this.server.port}`
  }

  /** The public API's URL: its own port when self-hosted, else the same URL as the admin API. */
  get publicUrl(): string {
    if (!this.selfHosted) return this.url
    if (!this.publicServer) throw new Error('fixture not started')
    return `http://127.0.0.1:${this.publicServer.port}`
  }

  start(): this {
    this.server = Bun.serve({ hostname: '127.0.0.1', port: this.port, fetch: (request) => this.handle(request) })
    this.port = this.server.port ?? 0 // a restart after stop() comes back on the same port
    if (this.selfHosted) this.publicServer = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request) => this.handlePublic(request) })
    return this
  }

  async stop(): Promise<void> {
    await this.server?.stop(true)
    await this.publicServer?.stop(true)
    this.server = null
    this.publicServer = null
  }

  addIdentity(traits: Record<string, unknown>, options: { id?: string; identifiers?: string[]; state?: 'active' | 'inactive'; schemaId?: string } = {}): FixtureIdentity {
    const now = new Date().toISOString()
    const id = options.id ?? randomUUID()
    const schemaId = options.schemaId ?? 'default'
    const identifiers = options.identifiers ?? this.identifiersOf(schemaId, traits)
    const identity: FixtureIdentity = {
      id,
      schema_id: schemaId,
      schema_url: `${this.server ? this.url : 'http://kratos.invalid'}/schemas/${Buffer.from(schemaId).toString('base64url')}`,
      state: options.state ?? 'active',
      traits,
      verifiable_addresses: [],
      recovery_addresses: [],
      metadata_public: null,
      metadata_admin: { note: 'admin-only metadata' },
      created_at: now,
      updated_at: now,
      identifiers,
    }
    this.identities.set(id, identity)
    return identity
  }

  addSession(identityId: string, device: { ip_address: string; user_agent?: string; location?: string }, ageDays = 0): FixtureSession {
    const issued = new Date(Date.now() - ageDays * 86_400_000)
    const session: FixtureSession = {
      id: randomUUID(),
      identityId,
      active: true,
      created_at: issued.toISOString(),
      authenticated_at: issued.toISOString(),
      issued_at: issued.toISOString(),
      expires_at: new Date(issued.getTime() + 30 * 86_400_000).toISOString(),
      devices: [{ id: randomUUID(), ip_address: device.ip_address, user_agent: device.user_agent ?? 'test', location: device.location ?? '' }],
    }
    this.sessions.push(session)
    return session
  }

  addMessage(message: Partial<FixtureMessage> & { recipient: string; subject: string; body: string }, dispatches: { status: 'failed' | 'success'; error?: Record<string, unknown> }[] = []): FixtureMessage {
    const created = new Date(Date.now() - (this.messages.length + 1) * 60_000).toISOString()
    const id = randomUUID()
    const entry: FixtureMessage = {
      id,
      status: 'sent',
      type: 'email',
      channel: 'email',
      template_type: 'verification_code_valid',
      send_count: dispatches.length,
      created_at: created,
      updated_at: created,
      ...message,
      dispatches: dispatches.map((d) => ({ id: randomUUID(), message_id: id, status: d.status, error: d.error ?? null, created_at: created, updated_at: created })),
    }
    this.messages.push(entry)
    return entry
  }

  callsTo(path: string): RecordedCall[] {
    return this.calls.filter((call) => call.path === path)
  }

  private async handle(request: Request): Promise<Response> {
    const url = new URL(request.url)
    const call: RecordedCall = { method: request.method, path: url.pathname, query: url.searchParams, headers: request.headers }
    this.calls.push(call)
    const hostile = this.hostileRedirects.get(`${request.method} ${url.pathname}`)
    if (hostile) return new Response(null, { status: hostile.status, headers: { location: hostile.location } })
    const front = this.frontPages.get(`${request.method} ${url.pathname}`)
    if (typeof front === 'number') return new Response(`<html><body><h1>${front} Not Found</h1><hr>nginx</body></html>`, { status: front, headers: { 'content-type': 'text/html' } })
    if (front !== undefined) return Response.json(front.json, { status: front.status })
    const response = await this.answer(request, url)
    const link = this.malformedLinks.get(url.pathname)
    if (link !== undefined) response.headers.set('link', link)
    call.link = response.headers.get('link')
    return response
  }

  private async answer(request: Request, url: URL): Promise<Response> {
    if (this.delayMs > 0) await Bun.sleep(this.delayMs)
    if (this.selfHosted) {
      if (url.pathname !== '/admin' && !url.pathname.startsWith('/admin/')) return goRedirect(`/admin${url.pathname === '/' ? '' : url.pathname}${url.search}`)
      if (url.pathname === '/admin/health/alive' || url.pathname === '/admin/health/ready') return Response.json({ status: 'ok' })
      if (url.pathname === '/admin/version') return Response.json({ version: 'v26.2.0' })
      if (url.pathname === '/admin/schemas' || url.pathname.startsWith('/admin/schemas/')) return goRedirect(`${this.publicUrl}${url.pathname.slice('/admin'.length)}${url.search}`)
    } else {
      if (url.pathname === '/health/alive' || url.pathname === '/health/ready') return Response.json({ status: 'ok' })
      if (url.pathname === '/version') return Response.json({ version: 'v26.2.0' })
    }
    const schemas = url.pathname === '/schemas' || url.pathname.startsWith('/schemas/')
    if (!url.pathname.startsWith('/admin/') && !schemas) return notFound()
    if (this.apiKey !== undefined && request.headers.get('authorization') !== `Bearer ${this.apiKey}`) {
      return kratosError(401, 'Unauthorized', 'The request could not be authorized', 'The API key is missing or invalid')
    }
    if (this.failWith !== null) return kratosError(this.failWith, 'Internal Server Error', 'An internal server error occurred, please contact the system administrator')
    if (schemas) return this.schemas(url)
    const extra = await this.handleMore(request, url)
    if (extra) return extra

    const parts = url.pathname.split('/').filter(Boolean) // ['admin', 'identities', id?, 'sessions'?]
    if (parts[1] === 'identities' && parts.length === 2 && request.method === 'GET') return this.listIdentities(url)
    if (parts[1] === 'identities' && parts.length === 2 && request.method === 'POST') return this.createIdentity(request)
    if (parts[1] === 'identities' && parts.length === 3) {
      const identity = this.identities.get(kratosId(decodeURIComponent(parts[2]!)) ?? '')
      if (request.method === 'GET') return identity ? Response.json(this.served(identity.id, this.render(identity, url.searchParams.getAll('include_credential')))) : notFound()
      if (request.method === 'PUT') return identity ? this.updateIdentity(identity, request) : notFound()
      if (request.method === 'PATCH') return identity ? this.patchIdentity(identity, request) : notFound()
      if (request.method === 'DELETE') {
        if (!identity) return notFound()
        this.identities.delete(identity.id)
        // Its sessions go with it (`sessions.identity_id` references identities ON DELETE CASCADE).
        for (let i = this.sessions.length - 1; i >= 0; i--) if (this.sessions[i]!.identityId === identity.id) this.sessions.splice(i, 1)
        return new Response(null, { status: 204 })
      }
    }
    if (parts[1] === 'identities' && parts.length === 4 && parts[3] === 'sessions' && request.method === 'GET') return this.listIdentitySessions(parts[2]!, url)
    if (parts[1] === 'sessions' && parts.length === 2 && request.method === 'GET') return this.listSessions(url)
    return notFound()
  }

  /** The public port of a self-hosted Kratos: what the pages read from it (schemas), health and version. */
  private handlePublic(request: Request): Response {
    const url = new URL(request.url)
    this.publicCalls.push(url.pathname)
    if (url.pathname === '/health/alive' || url.pathname === '/health/ready') return Response.json({ status: 'ok' })
    if (url.pathname === '/version') return Response.json({ version: 'v26.2.0' })
    // The public router serves the schemas at both paths.
    const path = url.pathname.startsWith('/admin/schemas') ? url.pathname.slice('/admin'.length) : url.pathname
    if (request.method === 'GET' && (path === '/schemas' || path.startsWith('/schemas/'))) return this.schemas(new URL(path, url))
    return notFound()
  }

  private schemas(url: URL): Response {
    const served = (id: string): unknown => {
      const reshape = this.malformedSchemas.get(id)
      const schema = this.schemaOf(id)!
      return reshape ? reshape(structuredClone(schema) as Record<string, unknown>) : schema
    }
    const ids = ['default', ...this.extraSchemas.keys()]
    if (url.pathname === '/schemas') return Response.json(ids.map((id) => ({ id, schema: served(id) })))
    const id = decodeURIComponent(url.pathname.slice('/schemas/'.length))
    // Kratos addresses a schema by its id, base64url-encoded in schema_url.
    const named = ids.find((known) => id === known || id === Buffer.from(known).toString('base64url'))
    return named !== undefined ? Response.json(served(named)) : kratosError(404, 'Not Found', 'Unable to locate the resource', 'The requested identity schema does not exist')
  }

  private schemaOf(id: unknown): Record<string, unknown> | undefined {
    return id === 'default' ? (DEFAULT_SCHEMA as unknown as Record<string, unknown>) : typeof id === 'string' ? this.extraSchemas.get(id) : undefined
  }

  /**
   * The login identifiers in traits: the values (a text, or each text of a list) of every trait the
   * schema marks as one under `ory.sh/kratos`, lower-cased as Kratos stores e-mail identifiers.
   */
  private identifiersOf(schemaId: string, traits: Record<string, unknown>): string[] {
    if (schemaId === 'default') return typeof traits.email === 'string' ? [traits.email.toLowerCase()] : []
    const fields = ((this.schemaOf(schemaId)?.properties as { traits?: { properties?: Record<string, Record<string, unknown>> } } | undefined)?.traits?.properties ?? {})
    const found: string[] = []
    for (const [key, field] of Object.entries(fields)) {
      const marked = (node: Record<string, unknown> | undefined) => {
        const credentials = (node?.['ory.sh/kratos'] as { credentials?: Record<string, { identifier?: boolean }> } | undefined)?.credentials
        return credentials?.password?.identifier === true || credentials?.code?.identifier === true
      }
      const value = traits[key]
      if (marked(field) && typeof value === 'string') found.push(value.toLowerCase())
      if (marked(field.items as Record<string, unknown> | undefined) && Array.isArray(value)) found.push(...value.filter((item): item is string => typeof item === 'string').map((item) => item.toLowerCase()))
    }
    return found
  }

  /** The endpoints beyond listing and reading: writes, sessions, recovery, courier. */
  private async handleMore(request: Request, url: URL): Promise<Response | null> {
    const parts = url.pathname.split('/').filter(Boolean).map((part) => decodeURIComponent(part))
    const method = request.method
    if (parts[1] === 'identities' && parts.length === 5 && parts[3] === 'credentials' && method === 'DELETE') {
      const identity = this.identities.get(kratosId(parts[2]!) ?? '')
      return identity ? this.deleteCredential(identity, parts[4]!, url.searchParams.get('identifier') ?? '') : notFound()
    }
    if (parts[1] === 'identities' && parts.length === 4 && parts[3] === 'sessions' && method === 'DELETE') {
      const id = kratosId(parts[2]!)
      if (id === null) return badRequest('The identity id is not a valid UUID')
      // session/handler.go deleteIdentitySessions → DeleteSessionsByIdentity: the identity's session
      // rows are deleted (active or not), and none to delete is 404 (sqlcon.ErrNoRows), whether or
      // not the identity exists.
      const kept = this.sessions.filter((session) => session.identityId !== id)
      if (kept.length === this.sessions.length) return notFound()
      this.sessions.splice(0, this.sessions.length, ...kept)
      return new Response(null, { status: 204 })
    }
    if (parts[1] === 'sessions' && parts.length >= 3) {
      const session = this.sessions.find((s) => s.id === parts[2])
      if (parts.length === 3 && method === 'GET') {
        const expand = sessionExpand(url)
        if (expand instanceof Response) return expand
        return session ? Response.json(this.renderSession(session, expand)) : notFound()
      }
      if (parts.length === 3 && method === 'DELETE') {
        if (!session) return notFound()
        session.active = false
        return new Response(null, { status: 204 })
      }
      if (parts.length === 4 && parts[3] === 'extend' && method === 'PATCH') {
        // persister_session.go ExtendSession: any session it has (active or not); one not yet within
        // `earliest_possible_extend` of its expiry is left as it is, and the answer is the same.
        if (!session) return notFound()
        const early = this.earliestPossibleExtendMs !== null && Date.parse(session.expires_at) - this.earliestPossibleExtendMs > Date.now()
        // Kratos extends by the configured session lifespan from now (here 30 days).
        if (!early) session.expires_at = new Date(Date.now() + 30 * 86_400_000).toISOString()
        if (this.fasterSessionExtend) return new Response(null, { status: 204 })
        // Read again with `ExpandDefault`: the identity, and no devices.
        return Response.json(this.renderSession(session, { identity: true, devices: false }))
      }
    }
    if (parts[1] === 'recovery' && parts.length === 3 && method === 'POST' && (parts[2] === 'link' || parts[2] === 'code')) {
      const body = (await request.json().catch(() => null)) as { identity_id?: unknown; expires_in?: unknown } | null
      if (!body || typeof body.identity_id !== 'string') return badRequest('identity_id is required')
      const recoveryMethod = parts[2] === 'link' ? 'link' : 'code'
      if (!this.recoveryMethods[recoveryMethod]) {
        return kratosError(404, 'Not Found', 'Unable to locate the resource', 'This endpoint was disabled by system administrator. Please check your url or contact the system administrator to enable it.')
      }
      // link/strategy_recovery.go: 400 for an identity it cannot find; code/strategy_recovery_admin.go: 404.
      if (!this.identities.has(body.identity_id)) {
        return recoveryMethod === 'link' ? badRequest('The requested identity id does not exist.') : kratosError(404, 'Not Found', 'Unable to locate the resource', 'could not find identity')
      }
      const seconds = typeof body.expires_in === 'string' && /^\d+[hms]$/.test(body.expires_in) ? durationSeconds(body.expires_in) : 3600
      const expires_at = new Date(Date.now() + seconds * 1000).toISOString()
      const flow = randomUUID()
      const link = `${this.url}/self-service/recovery?flow=${flow}`
      if (parts[2] === 'link') {
        const withToken = `${link}&token=${randomUUID().replaceAll('-', '')}`
        this.recoveries.push({ identityId: body.identity_id, kind: 'link', value: withToken, link: withToken, expires_at })
        return Response.json({ recovery_link: withToken, expires_at })
      }
      const code = String(100000 + Math.floor(Math.random() * 900000))
      this.recoveries.push({ identityId: body.identity_id, kind: 'code', value: code, link, expires_at })
      return Response.json({ recovery_link: link, recovery_code: code, expires_at }, { status: 201 })
    }
    if (parts[1] === 'courier' && parts[2] === 'messages') {
      if (parts.length === 3 && method === 'GET') return this.listMessages(url)
      if (parts.length === 4 && method === 'GET') {
        const message = this.messages.find((m) => m.id === parts[3])
        return message ? Response.json(this.served(message.id, this.courierView(message))) : notFound()
      }
    }
    return null
  }

  /** A message as the courier's handler answers it: outside dev mode, without its subject and body (courier/handler.go). */
  private courierView(message: Partial<FixtureMessage>): Record<string, unknown> {
    return this.devMode ? { ...message } : { ...message, subject: REDACTED_UNLESS_DEV_MODE, body: REDACTED_UNLESS_DEV_MODE }
  }

  /** `listCourierMessages`: status and recipient filters, sealed page tokens, newest first, 10 a page by default. */
  private listMessages(url: URL): Response {
    const status = url.searchParams.get('status')
    if (url.searchParams.has('status') && !['queued', 'sent', 'processing', 'abandoned'].includes(status!)) return badRequest('Message status is not valid')
    const token = firstNonEmpty(url.searchParams, 'page_token')
    const read = token === null ? null : this.sealedTokens.read(token)
    if (read && !read.ok) return read.reason === 'expired' ? messageTokenExpired() : messageTokenRefused()
    const rawSize = firstNonEmpty(url.searchParams, 'page_size')
    const requested = rawSize === null ? null : goAtoi(rawSize)
    if (rawSize !== null && requested === null) return badRequest('page_size must be an integer')
    const size = pageSizeOf(requested, 10, 500)
    const recipient = url.searchParams.get('recipient') ?? ''
    const position = read ? read.position : FIRST_POSITION
    const rows = rowsAfter(
      this.messages.filter((m) => (status === null || m.status === status) && (recipient === '' || m.recipient === recipient)),
      position,
    ).slice(0, size + 1)
    const more = rows.length > size
    if (more) rows.pop()
    const link = keysetLink(url, size, this.sealedTokens.first(), more ? this.sealedTokens.seal(rows[rows.length - 1]!) : null)
    // The list carries no dispatches; a message's own page does.
    return Response.json(
      this.servedList('/admin/courier/messages', rows.map(({ dispatches: _dispatches, ...message }) => this.served(message.id, this.courierView(message)))),
      { headers: { link } },
    )
  }

  /** The identity schema's rules on traits; Kratos answers 400 with the first violation. */
  private traitsProblem(traits: unknown, schemaId: string): string | null {
    if (typeof traits !== 'object' || traits === null || Array.isArray(traits)) return 'traits must be an object'
    if (schemaId !== 'default') {
      // Kratos validates `{"traits": …}` against the whole schema document (JSON Schema, draft-07).
      const check = validatorFor(this.schemaOf(schemaId)!)
      if (check({ traits })) return null
      const first = check.errors![0]!
      return `I[#${first.instancePath}] ${first.message}`
    }
    const t = traits as Record<string, unknown>
    if (typeof t.email !== 'string' || t.email === '') return 'I[#/traits] missing properties: email'
    if (!EMAIL.test(t.email)) return `I[#/traits/email] "${t.email}" is not valid "email"`
    if (t.name !== undefined && typeof t.name !== 'string') return 'I[#/traits/name] expected string'
    if (t.role !== undefined && t.role !== 'admin' && t.role !== 'viewer') return 'I[#/traits/role] value must be one of "admin", "viewer"'
    const unknown = Object.keys(t).find((key) => !['email', 'name', 'role'].includes(key))
    if (unknown) return `I[#/traits] additionalProperties "${unknown}" not allowed`
    return null
  }

  /**
   * DELETE /admin/identities/{id}/credentials/{type} as Kratos's identity/handler.go
   * `deleteIdentityCredentials` does it: `lookup_secret` and `totp` go whole; `webauthn` loses its
   * second-factor keys and stays while it has passwordless ones (identity.go
   * `deleteCredentialWebAuthFromIdentity`); `password`, `oidc` and `saml` only while the identity has
   * at least 2 first factors, the one deleted among them (400 otherwise), the password by emptying
   * its config (the credential stays, identifiers and all: `deleteCredentialPassword`), an oidc or
   * saml link one per call, named by `?identifier=<provider>:<subject>` (400 without it, 404 for one
   * it does not have; the credential stays when its last link goes:
   * `deleteCredentialOIDCSAMLFromIdentity`). Any other type (passkey, code) is refused with 400.
   */
  private deleteCredential(identity: FixtureIdentity, type: string, identifier: string): Response {
    // An identity stored without credentials has the password `render` shows.
    const credentials = (identity.credentials ??= { password: { type: 'password', identifiers: identity.identifiers, version: 0 } })
    const credential = credentials[type]
    if (!credential) return kratosError(404, 'Not Found', NOT_FOUND, `You tried to remove a ${type} but this user have no ${type} set up.`)
    switch (type) {
      case 'lookup_secret':
      case 'totp':
        delete credentials[type]
        break
      case 'webauthn': {
        const kept = webauthnKeys(credential).filter((key) => key.passwordless)
        if (kept.length === 0) delete credentials[type]
        else credential.config = { ...credential.config, keys: kept }
        break
      }
      case 'password':
      case 'oidc':
      case 'saml': {
        if (this.firstFactors(credentials) < 2) return badRequest('You cannot remove the last first factor credential.')
        if (type === 'password') {
          credential.config = { hashed: false }
          break
        }
        if (identifier === '') return badRequest('You must provide an identifier to delete this credential.')
        // Each link's identifier is `OIDCUniqueID(provider, subject)`: `<provider>:<subject>`.
        if (!credential.identifiers.includes(identifier)) return kratosError(404, 'Not Found', NOT_FOUND, `The identifier \`${identifier}\` was not found among OIDC credentials.`)
        credential.identifiers = credential.identifiers.filter((link) => link !== identifier)
        break
      }
      default:
        return badRequest(`Credentials type ${type} cannot be deleted.`)
    }
    identity.updated_at = new Date().toISOString()
    return new Response(null, { status: 204 })
  }

  /**
   * Kratos's `CountActiveFirstFactorCredentials`, summed over its strategies (all enabled here): a
   * password with an identifier and a hash; each oidc link with a provider and a subject (the SAML
   * strategy, Ory Network's, is taken to count its links the same way); each passwordless webauthn
   * key, when the credential has an identifier; each passkey, likewise; and one for `code` when
   * `passwordlessCode` is on, whatever the identity has. TOTP and lookup secrets count none.
   */
  private firstFactors(credentials: Record<string, FixtureCredential>): number {
    const identified = (credential: FixtureCredential) => credential.identifiers.join('') !== ''
    let count = this.passwordlessCode ? 1 : 0
    for (const credential of Object.values(credentials)) {
      if (credential.type === 'password' && identified(credential) && credential.config?.hashed !== false) count++
      if (credential.type === 'oidc' || credential.type === 'saml') count += credential.identifiers.filter((link) => /^[^:]+:./.test(link)).length
      if (credential.type === 'webauthn' && identified(credential)) count += webauthnKeys(credential).filter((key) => key.passwordless).length
      if (credential.type === 'passkey' && identified(credential)) count += credential.config?.keys?.length ?? 1
    }
    return count
  }

  /**
   * The `credentials_identifier` filter of `ListIdentities` (persistence/sql/identity/
   * persister_identity.go): a password, code or webauthn identifier matches the search as Kratos
   * normalizes both (`GracefulNormalization`: trimmed, lower-cased, whether or not it is an e-mail
   * address: a customer number too); an oidc or saml one (`<provider>:<subject>`) matches exactly.
   */
  private hasIdentifier(identity: FixtureIdentity, search: string): boolean {
    const normalized = search.trim().toLowerCase()
    const credentials = Object.values(identity.credentials ?? {})
    const fromTraits = [...identity.identifiers, ...credentials.filter((credential) => ['password', 'code', 'webauthn'].includes(credential.type)).flatMap((credential) => credential.identifiers)]
    if (fromTraits.some((identifier) => identifier.trim().toLowerCase() === normalized)) return true
    return credentials.some((credential) => (credential.type === 'oidc' || credential.type === 'saml') && credential.identifiers.includes(search))
  }

  private identifierTaken(email: string, except?: string): boolean {
    const wanted = email.toLowerCase()
    return [...this.identities.values()].some((identity) => identity.id !== except && identity.identifiers.some((id) => id.toLowerCase() === wanted))
  }

  private async createIdentity(request: Request): Promise<Response> {
    const body = (await request.json().catch(() => null)) as Record<string, unknown> | null
    if (!body || typeof body !== 'object') return badRequest('The request body is not valid JSON')
    if (this.schemaOf(body.schema_id) === undefined) return badRequest('The requested identity schema does not exist')
    const schemaId = body.schema_id as string
    const problem = this.traitsProblem(body.traits, schemaId)
    if (problem) return kratosError(400, 'Bad Request', 'The request was malformed or contained invalid parameters', problem)
    const traits = body.traits as Record<string, unknown>
    const identifiers = this.identifiersOf(schemaId, traits)
    if (identifiers.some((identifier) => this.identifierTaken(identifier))) return kratosError(409, 'Conflict', 'Unable to insert or update resource because a resource with that value exists already', 'An identity with the same identifier already exists.')
    const identity = this.addIdentity(traits, { identifiers, schemaId, state: body.state === 'inactive' ? 'inactive' : 'active' })
    identity.metadata_public = body.metadata_public ?? null
    identity.metadata_admin = body.metadata_admin ?? null
    const password = (body.credentials as { password?: { config?: { password?: unknown } } } | undefined)?.password?.config?.password
    if (typeof password === 'string') {
      this.passwords.set(identity.id, password)
      identity.credentials = { password: { type: 'password', identifiers: identity.identifiers, version: 0 } }
    }
    return Response.json(this.render(identity, null), { status: 201 })
  }

  private applyChanges(identity: FixtureIdentity, next: Record<string, unknown>): Response | null {
    const problem = this.traitsProblem(next.traits, identity.schema_id)
    if (problem) return kratosError(400, 'Bad Request', 'The request was malformed or contained invalid parameters', problem)
    const identifiers = this.identifiersOf(identity.schema_id, next.traits as Record<string, unknown>)
    if (identifiers.some((identifier) => this.identifierTaken(identifier, identity.id))) return kratosError(409, 'Conflict', 'Unable to insert or update resource because a resource with that value exists already', 'An identity with the same identifier already exists.')
    if (next.state !== 'active' && next.state !== 'inactive') return badRequest('state must be active or inactive')
    identity.traits = next.traits as Record<string, unknown>
    identity.identifiers = identifiers
    if (identity.credentials?.password) identity.credentials.password.identifiers = identity.identifiers
    identity.state = next.state
    identity.metadata_public = next.metadata_public ?? null
    identity.metadata_admin = next.metadata_admin ?? null
    identity.updated_at = new Date().toISOString()
    return null
  }

  private async updateIdentity(identity: FixtureIdentity, request: Request): Promise<Response> {
    const body = (await request.json().catch(() => null)) as Record<string, unknown> | null
    if (!body || typeof body !== 'object') return badRequest('The request body is not valid JSON')
    const refused = this.applyChanges(identity, { ...body, state: body.state ?? identity.state })
    return refused ?? Response.json(this.render(identity, null))
  }

  /**
   * RFC 6902 on the identity's JSON, then the schema's rules. As Kratos (`jsonx.ApplyJSONPatch`),
   * only `add`, `replace` and `remove`: any other operation (`test`, `move`, `copy`) refuses the
   * whole patch before anything is applied, so a patch cannot be made conditional on a value.
   */
  private async patchIdentity(identity: FixtureIdentity, request: Request): Promise<Response> {
    const ops = (await request.json().catch(() => null)) as { op?: unknown; path?: unknown; value?: unknown }[] | null
    if (!Array.isArray(ops)) return badRequest('The JSON Patch document must be an array')
    const unsupported = ops.find((op) => op.op !== 'add' && op.op !== 'replace' && op.op !== 'remove')
    if (unsupported) return kratosError(400, 'Bad Request', `unsupported operation: ${String(unsupported.op)}`, 'failed to apply JSON patch')
    const doc = JSON.parse(JSON.stringify({ traits: identity.traits, state: identity.state, metadata_public: identity.metadata_public, metadata_admin: identity.metadata_admin })) as Record<string, unknown>
    for (const op of ops) {
      if (typeof op.path !== 'string' || !op.path.startsWith('/')) return badRequest('invalid JSON Patch path')
      const keys = op.path.slice(1).split('/').map((key) => key.replaceAll('~1', '/').replaceAll('~0', '~'))
      if (!['traits', 'state', 'metadata_public', 'metadata_admin'].includes(keys[0]!)) return badRequest(`patching ${op.path} is not allowed`)
      let parent: Record<string, unknown> = doc
      for (const key of keys.slice(0, -1)) {
        const child = parent[key]
        if (typeof child !== 'object' || child === null) return badRequest(`path ${op.path} does not exist`)
        parent = child as Record<string, unknown>
      }
      const last = keys[keys.length - 1]!
      if (op.op === 'replace' || op.op === 'add') parent[last] = op.value
      else {
        // As Kratos (evanphx/json-patch): removing a member that is not there fails the whole patch.
        if (!(last in parent)) return badRequest('An error occured when applying the JSON patch')
        delete parent[last]
      }
    }
    const refused = this.applyChanges(identity, doc)
    return refused ?? Response.json(this.render(identity, null))
  }

  private pageSize(url: URL): number | Response {
    const raw = url.searchParams.get('page_size')
    if (raw === null || raw === '') return 250
    if (!/^-?[0-9]+$/.test(raw)) return badRequest('page_size must be an integer')
    const size = Number(raw)
    if (size <= 0) return 250
    return Math.min(size, 500)
  }

  /** The identities' keyset paging: rows ordered by id, the token is the last id of the previous page. */
  private identityPage(url: URL, rows: FixtureIdentity[]): { rows: FixtureIdentity[]; link: string } | Response {
    const size = this.pageSize(url)
    if (size instanceof Response) return size
    const token = firstNonEmpty(url.searchParams, 'page_token')
    const after = token === null ? NIL_UUID : kratosId(token)
    if (after === null) return pageTokenInvalid()
    const pageRows = rows.filter((row) => row.id > after).sort((a, b) => (a.id < b.id ? -1 : 1)).slice(0, size + 1)
    const more = pageRows.length > size
    if (more) pageRows.pop()
    return { rows: pageRows, link: keysetLink(url, size, NIL_UUID, more ? pageRows[pageRows.length - 1]!.id : null) }
  }

  /**
   * `parseListIdentitiesParameters`: a filter counts when it has a value; `ids` and
   * `organization_id` must be UUIDs, `include_credential` a credentials type; at most one filter.
   * Every identifier filter, and `include_credential`, answers the credentials too.
   */
  private listIdentities(url: URL): Response {
    const query = url.searchParams
    const ids: string[] = []
    for (const value of query.getAll('ids')) {
      const id = kratosId(value)
      if (id === null) return badRequest(`Invalid UUID value \`${value}\` for parameter \`ids\`.`)
      ids.push(id)
    }
    if (ids.length > 500) return badRequest('The number of ids to filter must not exceed 500.')
    const organization = query.get('organization_id') ?? ''
    if (organization !== '' && kratosId(organization) === null) return badRequest(`Invalid UUID value \`${organization}\` for parameter \`organization_id\`.`)
    const exact = query.get('credentials_identifier') ?? ''
    const similar = query.get('preview_credentials_identifier_similar') ?? ''
    const unknownType = query.getAll('include_credential').find((type) => !CREDENTIAL_TYPES.includes(type))
    if (unknownType !== undefined) return badRequest(`Invalid value \`${unknownType}\` for parameter \`include_credential\`.`)
    if ([ids.length > 0, organization !== '', exact !== '', similar !== ''].filter(Boolean).length > 1) return badRequest('You cannot combine multiple filters in this API')

    let rows = [...this.identities.values()]
    const withCredentials = exact !== '' || similar !== '' || query.has('include_credential')
    if (exact !== '') rows = rows.filter((identity) => this.hasIdentifier(identity, exact))
    if (similar !== '') rows = rows.filter((identity) => identity.identifiers.some((id) => id.startsWith(similar)))
    if (ids.length > 0) rows = rows.filter((identity) => ids.includes(identity.id))
    else if (organization !== '') rows = rows.filter((identity) => identity.organization_id === kratosId(organization))
    const page = this.identityPage(url, rows)
    if (page instanceof Response) return page
    return Response.json(
      this.servedList('/admin/identities', page.rows.map((identity) => this.served(identity.id, this.render(identity, withCredentials ? 'all' : null)))),
      { headers: { link: page.link } },
    )
  }

  /**
   * `adminListSessions`: the `active` filter, then the page token and size (either unreadable is
   * "could not parse parameter page_size"), `expand`, then the token's id; newest first.
   */
  private listSessions(url: URL): Response {
    const active = activeFilter(url)
    if (active instanceof Response) return active
    const token = firstNonEmpty(url.searchParams, 'page_token')
    const parts = token === null ? new Map([['id', NIL_UUID]]) : readSessionToken(token)
    if (parts === null) return sessionPageSizeUnparsed()
    const rawSize = firstNonEmpty(url.searchParams, 'page_size')
    const requested = rawSize === null ? null : goAtoi(rawSize)
    if (rawSize !== null && requested === null) return sessionPageSizeUnparsed()
    const expand = sessionExpand(url)
    if (expand instanceof Response) return expand
    const id = kratosId(parts.get('id') ?? '')
    if (id === null) return pageTokenInvalid()
    // The first page has no token: it starts after the default token (the far future, the nil id).
    const position = token === null ? FIRST_POSITION : sessionPosition(id, parts)
    if (position.createdAt === null) return internalError() // a created_at the database cannot read
    const size = pageSizeOf(requested, 250, 1000)
    const now = Date.now()
    const rows = rowsAfter(
      this.sessions.filter((session) => matchesActive(session, active, now)),
      position,
    ).slice(0, size + 1)
    const more = rows.length > size
    if (more) rows.pop()
    const link = keysetLink(url, size, firstSessionToken(), more ? sessionToken(rows[rows.length - 1]!) : null)
    return Response.json(
      this.servedList('/admin/sessions', rows.map((session) => this.renderSession(session, expand, true))),
      { headers: { link } },
    )
  }

  /**
   * `listIdentitySessions` (session/handler.go) and `ListSessionsByIdentity`
   * (persistence/sql/persister_session.go): the id as gofrs/uuid reads it (400 with its error
   * otherwise; an identity that does not exist has no sessions), then the `active` filter, then
   * offset paging (`x.ParsePagination`, 250 a page by default, at most 1000, nothing refused).
   * Rows come newest first (`created_at DESC`; ties, which the database leaves in no set order, by
   * id here), with the identity and devices. The page goes to pop, which counts from 1, while the
   * `Link` header counts from 0: see `popPage` and `offsetPagingHeaders`.
   */
  private listIdentitySessions(rawId: string, url: URL): Response {
    const text = safeDecode(rawId)
    const id = kratosId(text)
    if (id === null) return kratosError(400, 'Bad Request', uuidRefusal(text))
    const active = activeFilter(url)
    if (active instanceof Response) return active
    const paging = parseOffsetPaging(goParseQuery(url.search.slice(1)))
    const now = Date.now()
    const matching = this.sessions
      .filter((session) => session.identityId === id && matchesActive(session, active, now))
      .sort((a, b) => microsOf(b.created_at) - microsOf(a.created_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    const rows = popPage(matching, paging).map((session) => this.renderSession(session, { identity: true, devices: true }))
    return Response.json(this.servedList(url.pathname, rows), { headers: offsetPagingHeaders(url, matching.length, paging) })
  }

  /**
   * An identity as Kratos emits it. `declassify`: null leaves the credentials out (a list without
   * a filter or `include_credential`); otherwise every credential is there with its type and
   * identifiers, and the config (a password's hash) only for the types named, or all of them
   * (`WithDeclassifiedCredentials` in Kratos's identity/identity.go).
   */
  private render(identity: FixtureIdentity, declassify: readonly string[] | 'all' | null): Record<string, unknown> {
    const { identifiers, credentials, ...json } = identity
    const verified = identifiers.filter((id) => id.includes('@'))
    const addresses = {
      verifiable_addresses: verified.map((value) => ({ id: `${identity.id}-v`, value, via: 'email', verified: true, status: 'completed' })),
      recovery_addresses: verified.map((value) => ({ id: `${identity.id}-r`, value, via: 'email' })),
    }
    if (declassify === null) return { ...json, ...addresses }
    const all = credentials ?? { password: { type: 'password', identifiers, version: 0 } }
    // A deleted password leaves `{}` (Kratos's deleteCredentialPassword).
    const config = (type: string, stored: FixtureCredential['config']) =>
      type === 'password' && stored?.hashed !== false && (declassify === 'all' || declassify.includes(type)) ? { hashed_password: '$argon2id$v=19$secret-hash' } : {}
    return {
      ...json,
      ...addresses,
      credentials: Object.fromEntries(Object.entries(all).map(([type, { config: stored, ...credential }]) => [type, { ...credential, config: config(type, stored) }])),
    }
  }

  /**
   * A session as Kratos marshals it: `active` is `IsActive()` (not revoked, not expired, and its
   * identity active when that was read); `identity` is null and `devices` empty unless expanded
   * (null in a list, which reads no devices at all).
   */
  private renderSession(session: FixtureSession, expand: { identity: boolean; devices: boolean }, listed = false): unknown {
    const identity = expand.identity ? this.identities.get(session.identityId) : undefined
    const active = session.active && Date.parse(session.expires_at) > Date.now() && (identity === undefined || identity.state === 'active')
    return this.served(session.id, {
      id: session.id,
      active,
      expires_at: session.expires_at,
      authenticated_at: session.authenticated_at,
      issued_at: session.issued_at,
      identity: identity ? this.served(identity.id, this.render(identity, null)) : null,
      devices: expand.devices ? session.devices : listed ? null : [],
    })
  }

  /** A record as a test wants it served (see `malformedRecords`); as rendered otherwise. */
  private served(id: string, json: Record<string, unknown>): unknown {
    const reshape = this.malformedRecords.get(id)
    return reshape ? reshape(structuredClone(json)) : json
  }

  private servedList(path: string, rows: unknown[]): unknown {
    const reshape = this.malformedLists.get(path)
    return reshape ? reshape(rows) : rows
  }
}

function durationSeconds(text: string): number {
  const value = Number(text.slice(0, -1))
  return text.endsWith('h') ? value * 3600 : text.endsWith('m') ? value * 60 : value
}
