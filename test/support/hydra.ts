// A stand-in for Ory Hydra's admin API (v2 / v26), as Ory's API reference and sources describe it:
// OAuth 2.0 clients with keyset paging (`page_size`, `page_token`, a `Link` header with
// rel="first" and rel="next"), `client_name` and `owner` filters, a generated secret returned only
// by the create call (a public client gets one too, never returned), client metadata checked as
// Hydra does (absolute redirect URIs without "#", post-logout redirect URIs on the scheme, host and
// port of a redirect URI), JSON Patch, lifespans, and revoking a client's tokens. Errors in Hydra's
// OAuth shape `{error, error_description}`. Used by the tests and by `bun run dev`.
//
// `PUT /admin/clients/{id}` replaces the whole client, as Hydra's `setOAuth2Client` does: it decodes
// the body into a fresh client, so every field the body leaves out is reset (metadata to `{}`,
// lists to empty, lifespans to null, `created_at` to now); only the secret is kept when the body
// has none. `PUT .../lifespans` likewise replaces all lifespans. A lifespan is read as Go's
// time.ParseDuration reads it and answered as Go prints it (x/sqlx.go NullDuration): `.5h` is
// answered `30m0s`.

import { randomBytes, randomUUID } from 'node:crypto'

export const CLIENT_LIFESPAN_FIELDS = [
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
  'device_authorization_grant_id_token_lifespan',
  'device_authorization_grant_access_token_lifespan',
  'device_authorization_grant_refresh_token_lifespan',
] as const

/** Hydra's client fields that are plain strings, answered as "" when unset. */
const STRING_FIELDS = [
  'client_uri',
  'logo_uri',
  'policy_uri',
  'tos_uri',
  'jwks_uri',
  'sector_identifier_uri',
  'token_endpoint_auth_signing_alg',
  'request_object_signing_alg',
  'userinfo_signed_response_alg',
  'frontchannel_logout_uri',
  'backchannel_logout_uri',
  'access_token_strategy',
] as const
type StringField = (typeof STRING_FIELDS)[number]
/** The URI fields Hydra checks to be http(s) URLs. */
const WEB_URI_FIELDS = ['client_uri', 'logo_uri', 'policy_uri', 'tos_uri'] as const

/** A client as stored; the string fields (client_uri, jwks_uri, the logout URIs…) are "" when unset. */
export interface FixtureClient extends Record<StringField, string> {
  client_id: string
  client_name: string
  /**
   * The secret as last set (at create, or sent in a PUT or PATCH); Hydra keeps only a hash and never
   * answers it again. A public client has one too: Hydra makes one at create and tells nobody.
   */
  secret: string
  redirect_uris: string[]
  post_logout_redirect_uris: string[]
  grant_types: string[]
  response_types: string[]
  scope: string
  audience: string[]
  token_endpoint_auth_method: string
  skip_consent: boolean
  owner: string
  metadata: Record<string, unknown>
  lifespans: Partial<Record<(typeof CLIENT_LIFESPAN_FIELDS)[number], string | null>>
  contacts: string[] | null
  allowed_cors_origins: string[]
  request_uris: string[]
  jwks: Record<string, unknown>
  subject_type: string
  frontchannel_logout_session_required: boolean
  backchannel_logout_session_required: boolean
  skip_logout_consent: boolean | null
  created_at: string
  updated_at: string
}

export interface HydraCall {
  method: string
  path: string
  query: URLSearchParams
  headers: Headers
}

const AUTH_METHODS = new Set(['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'])
/** Go's duration units in nanoseconds (time/format.go unitMap): µ as the micro sign (U+00B5) and as the Greek mu (U+03BC). */
const DURATION_UNITS: Record<string, bigint> = { ns: 1n, us: 1_000n, 'µs': 1_000n, 'μs': 1_000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n }
const TWO_TO_63 = 2n ** 63n

/**
 * A duration in nanoseconds as Go's time.ParseDuration reads it, which Hydra's NullDuration uses to
 * decode a lifespan (x/sqlx.go UnmarshalJSON); null where Go refuses it. A sign, then terms of a
 * decimal number (digits before or after the point, or both) and a unit; "0" alone needs no unit.
 * Anything past 1<<63-1 ns (about 292 years) is refused, a fraction is added through a float64.
 */
export function parseGoDuration(text: string): bigint | null {
  let rest = text
  const negative = rest.startsWith('-')
  if (negative || rest.startsWith('+')) rest = rest.slice(1)
  if (rest === '0') return 0n
  if (rest === '') return null
  let total = 0n
  while (rest !== '') {
    const [term, whole = '', fraction, unitName = ''] = /^([0-9]*)(?:\.([0-9]*))?([^0-9.]*)/.exec(rest)!
    if (whole === '' && !fraction) return null
    const unit = Object.hasOwn(DURATION_UNITS, unitName) ? DURATION_UNITS[unitName]! : null
    if (unit === null) return null
    let value = BigInt(whole || '0')
    if (value > TWO_TO_63 / unit) return null
    value *= unit
    if (fraction) {
      // Go's leadingFraction stops taking digits once they would overflow; the scale is a float64.
      let digits = 0n
      let scale = 1
      for (const digit of fraction) {
        const next = digits * 10n + BigInt(digit)
        if (next > TWO_TO_63) break
        digits = next
        scale *= 10
      }
      value += BigInt(Math.trunc(Number(digits) * (Number(unit) / scale)))
      if (value > TWO_TO_63) return null
    }
    total += value
    if (total > TWO_TO_63) return null
    rest = rest.slice(term.length)
  }
  if (!negative && total > TWO_TO_63 - 1n) return null
  return negative ? -total : total
}

/** A duration as Go's Duration.String prints it (time/time.go): 1h30m0s, 1m30.5s, 1.5ms, 10µs, 0s. */
export function goDurationString(nanoseconds: bigint): string {
  const negative = nanoseconds < 0n
  const size = negative ? -nanoseconds : nanoseconds
  /** The fraction of `value / 10^precision` without its trailing zeros (no point when it is 0), and the whole part. */
  const split = (value: bigint, precision: number): [string, bigint] => {
    const scale = 10n ** BigInt(precision)
    const digits = precision === 0 ? '' : (value % scale).toString().padStart(precision, '0').replace(/0+$/, '')
    return [digits ? `.${digits}` : '', value / scale]
  }
  let text: string
  if (size === 0n) return '0s'
  if (size < 1_000_000_000n) {
    const [precision, unit] = size < 1_000n ? [0, 'ns'] : size < 1_000_000n ? [3, 'µs'] : [6, 'ms']
    const [fraction, whole] = split(size, precision)
    text = `${whole}${fraction}${unit}`
  } else {
    const [fraction, seconds] = split(size, 9)
    text = `${seconds % 60n}${fraction}s`
    const minutes = seconds / 60n
    if (minutes > 0n) {
      text = `${minutes % 60n}m${text}`
      if (minutes / 60n > 0n) text = `${minutes / 60n}h${text}`
    }
  }
  return negative ? `-${text}` : text
}
const FIRST_TOKEN = ''

function hydraError(status: number, error: string, description: string): Response {
  return Response.json({ error, error_description: description }, { status })
}
const invalidMetadata = (description: string) => hydraError(400, 'invalid_client_metadata', `The value of one of the Client Metadata fields is invalid and the server has rejected this request. ${description}`)
const notFound = () => hydraError(404, 'Not Found', 'Unable to locate the resource')
const badRequest = (description: string) => hydraError(400, 'invalid_request', description)
/**
 * A page token Hydra cannot decrypt: keysetpagination's herodot error, written through Hydra's
 * error enhancer (the OAuth shape, `error` from herodot's error text, the reason as description).
 */
const pageTokenRefused = () => hydraError(400, 'The request was malformed or contained invalid parameters', 'Unable to parse pagination parameters: invalid pagination token')

/** Turns a client or a list as stored into the JSON a test wants served instead (any shape at all). */
export type Reshape = (json: Record<string, unknown>) => unknown
export type ReshapeList = (rows: unknown[]) => unknown

/**
 * What Hydra compares between a post-logout redirect URI and the redirect URIs: scheme, host name and
 * port as Go's url package reads them (the scheme lower-cased, the host as written, the port only
 * when written).
 */
function schemeHostPort(uri: string): string {
  const [, scheme = '', host = '', port = ''] = /^([A-Za-z][A-Za-z0-9+.-]*):(?:\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]*)(?::([0-9]*))?)?/.exec(uri) ?? []
  return `${scheme.toLowerCase()} ${host} ${port}`
}

function listOfStrings(value: unknown, field: string): string[] | string {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) return `${field} must be an array of strings.`
  return value as string[]
}

export class HydraFixture {
  readonly clients = new Map<string, FixtureClient>()
  readonly calls: HydraCall[] = []
  /** Client ids whose tokens were revoked, in order. */
  readonly revokedTokens: string[] = []
  delayMs = 0
  failWith: number | null = null
  /** Clients served in another shape than Hydra's, by client id: on their own page and in the list. */
  readonly malformedRecords = new Map<string, Reshape>()
  /** Lists served in another shape, by path (`/admin/clients`). */
  readonly malformedLists = new Map<string, ReshapeList>()
  /** What `/version` answers. */
  version = 'v26.2.0'
  /**
   * `METHOD /path`s whose answer is lost on its way after Hydra has carried the request out: cut
   * short, without a Content-Length (Bun sends a stream chunked; a cut under a Content-Length is
   * made by a raw upstream in test/proxy.test.ts).
   */
  readonly cutAnswers = new Set<string>()
  /** `METHOD /path` → a body served, with the status Hydra answered, after Hydra carried the request out (a proxy on the way rewrote it). */
  readonly answerBodies = new Map<string, unknown>()
  private server: ReturnType<typeof Bun.serve> | null = null
  private port = 0
  private sequence = 0

  get url(): string {
    if (!this.server) throw new Error('fixture not started')
    return `http://127.0.0.1:${this.server.port}`
  }

  start(): this {
    this.server = Bun.serve({ hostname: '127.0.0.1', port: this.port, fetch: (request) => this.handle(request) })
    this.port = this.server.port ?? 0 // a restart after stop() comes back on the same port
    return this
  }

  async stop(): Promise<void> {
    await this.server?.stop(true)
    this.server = null
  }

  /** Seeds a client as if it had been created through the API; returns it with its one-time secret. */
  addClient(fields: Record<string, unknown>): FixtureClient {
    const result = this.build(fields, null)
    if (typeof result === 'string') throw new Error(result)
    this.clients.set(result.client_id, result)
    return result
  }

  private async handle(request: Request): Promise<Response> {
    const answer = await this.answer(request)
    const key = `${request.method} ${new URL(request.url).pathname}`
    if (this.answerBodies.has(key)) return Response.json(this.answerBodies.get(key), { status: answer.status })
    if (!this.cutAnswers.has(key)) return answer
    const whole = new Uint8Array(await answer.arrayBuffer())
    const half = whole.subarray(0, Math.floor(whole.byteLength / 2))
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        controller.enqueue(half)
        await Bun.sleep(20)
        controller.error(new Error('the connection was lost'))
      },
    })
    const headers = new Headers(answer.headers)
    headers.delete('content-length')
    return new Response(body, { status: answer.status, headers })
  }

  private async answer(request: Request): Promise<Response> {
    const url = new URL(request.url)
    this.calls.push({ method: request.method, path: url.pathname, query: url.searchParams, headers: request.headers })
    if (this.delayMs > 0) await Bun.sleep(this.delayMs)
    if (url.pathname === '/health/alive' || url.pathname === '/health/ready') return Response.json({ status: 'ok' })
    if (url.pathname === '/version') return Response.json({ version: this.version })
    if (this.failWith !== null) return hydraError(this.failWith, 'server_error', 'The authorization server encountered an unexpected condition.')
    const parts = url.pathname.split('/').filter(Boolean).map((part) => decodeURIComponent(part))
    const method = request.method
    if (parts[0] === 'admin' && parts[1] === 'clients') {
      if (parts.length === 2 && method === 'GET') return this.list(url)
      if (parts.length === 2 && method === 'POST') return this.create(request)
      const client = parts[2] === undefined ? undefined : this.clients.get(parts[2])
      if (parts.length === 3) {
        if (!client) return notFound()
        if (method === 'GET') return Response.json(this.served(client))
        if (method === 'PUT') return this.replace(client, request)
        if (method === 'PATCH') return this.patch(client, request)
        if (method === 'DELETE') {
          this.clients.delete(client.client_id)
          return new Response(null, { status: 204 })
        }
      }
      if (parts.length === 4 && parts[3] === 'lifespans' && method === 'PUT') return client ? this.setLifespans(client, request) : notFound()
    }
    if (parts[0] === 'admin' && parts[1] === 'oauth2' && parts[2] === 'tokens' && parts.length === 3 && method === 'DELETE') {
      const clientId = url.searchParams.get('client_id')
      if (!clientId) return badRequest('client_id is required')
      this.revokedTokens.push(clientId)
      return new Response(null, { status: 204 })
    }
    return notFound()
  }

  /** Keyset paging over client ids, as Hydra v2: the token is opaque to callers. */
  private list(url: URL): Response {
    const rawSize = url.searchParams.get('page_size')
    let size = 250
    if (rawSize !== null && rawSize !== '') {
      if (!/^[0-9]+$/.test(rawSize)) return badRequest('page_size must be an integer')
      size = Math.min(Math.max(Number(rawSize), 1), 500)
    }
    const token = url.searchParams.get('page_token') ?? FIRST_TOKEN
    let after = ''
    if (token !== FIRST_TOKEN) {
      try {
        after = Buffer.from(token, 'base64url').toString('utf8')
        if (!after.startsWith('c:')) throw new Error('not ours')
        after = after.slice(2)
      } catch {
        return pageTokenRefused()
      }
    }
    const name = url.searchParams.get('client_name')
    const owner = url.searchParams.get('owner')
    const rows = [...this.clients.values()]
      .filter((client) => (name === null || client.client_name === name) && (owner === null || client.owner === owner))
      .sort((a, b) => (a.client_id < b.client_id ? -1 : 1))
      .filter((client) => client.client_id > after)
    const page = rows.slice(0, size)
    const links = [`</admin/clients?page_size=${size}&page_token=>; rel="first"`]
    if (rows.length > size) links.push(`</admin/clients?page_size=${size}&page_token=${Buffer.from(`c:${page[page.length - 1]!.client_id}`).toString('base64url')}>; rel="next"`)
    const rendered = page.map((client) => this.served(client))
    const reshapeList = this.malformedLists.get('/admin/clients')
    return Response.json(reshapeList ? reshapeList(rendered) : rendered, { headers: { link: links.join(',') } })
  }

  private async create(request: Request): Promise<Response> {
    const body = (await request.json().catch(() => null)) as Record<string, unknown> | null
    if (!body || typeof body !== 'object' || Array.isArray(body)) return badRequest('The request body is not a JSON object')
    if (typeof body.client_id === 'string' && this.clients.has(body.client_id)) return hydraError(409, 'conflict', 'Unable to insert or update resource because a resource with that value exists already')
    const built = this.build(body, null)
    if (typeof built === 'string') return invalidMetadata(built)
    this.clients.set(built.client_id, built)
    // The secret is in this answer and never again; a public client's not even here (client/handler.go
    // CreateClient: `if !c.IsPublic() { c.Secret = secret }`).
    return Response.json({ ...this.render(built), ...(built.token_endpoint_auth_method === 'none' ? {} : { client_secret: built.secret }) }, { status: 201 })
  }

  private async replace(client: FixtureClient, request: Request): Promise<Response> {
    const body = (await request.json().catch(() => null)) as Record<string, unknown> | null
    if (!body || typeof body !== 'object' || Array.isArray(body)) return badRequest('The request body is not a JSON object')
    const built = this.build({ ...body, client_id: client.client_id }, client)
    if (typeof built === 'string') return invalidMetadata(built)
    this.clients.set(client.client_id, built)
    // A secret sent in the body is echoed once; without one the stored secret stays and is not answered.
    const sent = typeof body.client_secret === 'string' && body.client_secret !== '' ? { client_secret: body.client_secret } : {}
    return Response.json({ ...this.render(built), ...sent })
  }

  private async patch(client: FixtureClient, request: Request): Promise<Response> {
    const ops = (await request.json().catch(() => null)) as { op?: unknown; path?: unknown; value?: unknown }[] | null
    if (!Array.isArray(ops)) return badRequest('The JSON Patch document must be an array')
    // Hydra patches the client as stored, its secret's hash in `client_secret`; a secret the patch
    // leaves as it was is kept, one it sets is hashed, stored and answered, this once (client/handler.go
    // patchOAuth2Client and updateClient, persistence/sql/persister_client.go UpdateClient). A patch
    // that removes it keeps the stored one too: UpdateClient takes "" for "unchanged".
    const stored = `$hash$${client.secret}`
    const doc = { ...this.render(client), client_secret: stored } as Record<string, unknown>
    for (const op of ops) {
      if (typeof op.path !== 'string' || !/^\/[a-z_]+(\/\d+|\/-)?$/.test(op.path)) return badRequest('invalid JSON Patch path')
      const [, key, index] = /^\/([a-z_]+)(?:\/(\d+|-))?$/.exec(op.path)!
      if (key === 'client_id') return badRequest('client_id cannot be changed')
      if (index !== undefined) {
        const list = Array.isArray(doc[key!]) ? [...(doc[key!] as unknown[])] : []
        if (op.op === 'add') index === '-' ? list.push(op.value) : list.splice(Number(index), 0, op.value)
        else if (op.op === 'remove') list.splice(Number(index), 1)
        else if (op.op === 'replace') list[Number(index)] = op.value
        else return badRequest('unsupported JSON Patch operation')
        doc[key!] = list
      } else if (op.op === 'add' || op.op === 'replace') doc[key!] = op.value
      else if (op.op === 'remove') delete doc[key!]
      else return badRequest('unsupported JSON Patch operation')
    }
    const sent = typeof doc.client_secret === 'string' && doc.client_secret !== stored && doc.client_secret !== '' ? doc.client_secret : null
    const built = this.build({ ...doc, client_secret: sent ?? undefined }, client)
    if (typeof built === 'string') return invalidMetadata(built)
    this.clients.set(client.client_id, built)
    return Response.json({ ...this.render(built), ...(sent === null ? {} : { client_secret: sent }) })
  }

  private async setLifespans(client: FixtureClient, request: Request): Promise<Response> {
    const body = (await request.json().catch(() => null)) as Record<string, unknown> | null
    if (!body || typeof body !== 'object') return badRequest('The request body is not a JSON object')
    // Hydra sets the client's lifespans to the body: one left out is reset to null.
    const lifespans: FixtureClient['lifespans'] = {}
    for (const field of CLIENT_LIFESPAN_FIELDS) {
      const value = body[field]
      if (value === undefined || value === null) continue
      const duration = typeof value === 'string' ? parseGoDuration(value) : null
      if (duration === null) return invalidMetadata(`${field} must be a duration.`)
      lifespans[field] = goDurationString(duration)
    }
    const updated = { ...client, lifespans, updated_at: new Date().toISOString() }
    this.clients.set(client.client_id, updated)
    return Response.json(this.render(updated))
  }

  /** Hydra's client validation; a string is the reason for refusing. */
  private build(body: Record<string, unknown>, existing: FixtureClient | null): FixtureClient | string {
    const method = (body.token_endpoint_auth_method as string | undefined) ?? 'client_secret_basic'
    if (!AUTH_METHODS.has(method)) return `token_endpoint_auth_method "${method}" is not supported.`
    const redirects = listOfStrings(body.redirect_uris, 'redirect_uris')
    if (typeof redirects === 'string') return redirects
    for (const uri of redirects) {
      // Any "#" at all, even with nothing after it.
      if (uri.includes('#')) return 'Redirect URIs must not contain fragments (#).'
      if (!URL.canParse(uri)) return `Unable to parse redirect URL: ${uri}`
    }
    const logoutRedirects = listOfStrings(body.post_logout_redirect_uris, 'post_logout_redirect_uris')
    if (typeof logoutRedirects === 'string') return logoutRedirects
    const redirectOrigins = new Set(redirects.map(schemeHostPort))
    for (const uri of logoutRedirects) {
      if (!URL.canParse(uri)) return `Unable to parse post_logout_redirect_uri: ${uri}`
      if (!redirectOrigins.has(schemeHostPort(uri))) return `post_logout_redirect_uri "${uri}" must match the domain, port, scheme of at least one of the registered redirect URIs but did not`
    }
    const grants = listOfStrings(body.grant_types, 'grant_types')
    if (typeof grants === 'string') return grants
    const responses = listOfStrings(body.response_types, 'response_types')
    if (typeof responses === 'string') return responses
    const audience = listOfStrings(body.audience, 'audience')
    if (typeof audience === 'string') return audience
    const grantTypes = grants.length > 0 ? grants : ['authorization_code']
    if ((grantTypes.includes('authorization_code') || grantTypes.includes('implicit')) && redirects.length === 0) return 'A redirect URI is required for the authorization code and implicit grants.'
    if (method === 'none' && grantTypes.includes('client_credentials')) return 'A public client cannot use the client_credentials grant.'
    if (typeof body.client_secret === 'string' && body.client_secret !== '' && body.client_secret.length < 6) return 'The client secret must be at least 6 characters long.'
    // Every lifespan comes from the body: one left out is reset to Hydra's default (null). An empty
    // string is no duration to Go: Hydra refuses it.
    const lifespans: FixtureClient['lifespans'] = {}
    for (const field of CLIENT_LIFESPAN_FIELDS) {
      const value = body[field]
      if (value === undefined || value === null) continue
      const duration = typeof value === 'string' ? parseGoDuration(value) : null
      if (duration === null) return `${field} must be a duration.`
      lifespans[field] = goDurationString(duration)
    }
    const strings = {} as Record<StringField, string>
    for (const field of STRING_FIELDS) {
      const value = body[field]
      if (value !== undefined && value !== null && typeof value !== 'string') return `${field} must be a string.`
      strings[field] = (value as string | null | undefined) ?? ''
    }
    for (const field of WEB_URI_FIELDS) {
      if (strings[field] !== '' && !/^https?:$/.test(URL.parse(strings[field])?.protocol ?? '')) return `${field} must use https:// or http:// as HTTP scheme.`
    }
    if (strings.userinfo_signed_response_alg === '') strings.userinfo_signed_response_alg = 'none'
    if (strings.userinfo_signed_response_alg !== 'none' && strings.userinfo_signed_response_alg !== 'RS256') return "userinfo_signed_response_alg can either be 'none' or 'RS256'."
    const contacts = body.contacts === undefined || body.contacts === null ? null : listOfStrings(body.contacts, 'contacts')
    if (typeof contacts === 'string') return contacts
    const listedOrigins = listOfStrings(body.allowed_cors_origins, 'allowed_cors_origins')
    if (typeof listedOrigins === 'string') return listedOrigins
    // Hydra stores each origin without a trailing slash.
    const origins = listedOrigins.map((origin) => origin.replace(/\/+$/, ''))
    for (const origin of origins) {
      const parsed = URL.parse(origin)
      if (!parsed || !/^https?:$/.test(parsed.protocol)) return `Origin URL ${origin} must use https:// or http:// as HTTP scheme.`
      if (parsed.username || parsed.password) return `Origin URL ${origin} has HTTP user and/or password set which is not allowed.`
      if (parsed.pathname.replace(/\/+$/, '') !== '' || parsed.search || parsed.hash) return `Origin URL ${origin} must have an empty path, query, and fragment but one of the parts is not empty.`
    }
    const requestUris = listOfStrings(body.request_uris, 'request_uris')
    if (typeof requestUris === 'string') return requestUris
    if (body.jwks !== undefined && body.jwks !== null && (typeof body.jwks !== 'object' || Array.isArray(body.jwks))) return 'jwks must be a JSON Web Key Set.'
    const jwks = (body.jwks ?? {}) as Record<string, unknown>
    if (jwks.keys !== undefined && jwks.keys !== null && !Array.isArray(jwks.keys)) return 'jwks.keys must be a list of JSON Web Keys.'
    // Hydra has a key set as soon as `keys` is there, even null: decoding it allocates the go-jose set
    // embedded in x/sqlx.go JoseJSONWebKeySet; `{}` leaves it nil (client/client.go GetJSONWebKeys).
    const inlineKeys = Object.hasOwn(jwks, 'keys')
    if (strings.jwks_uri !== '' && inlineKeys) return 'Fields jwks and jwks_uri can not both be set, you must choose one.'
    // A client that signs its own assertions needs its keys (client/validator.go Validate). Hydra
    // checks no scheme of a jwks_uri: it only resolves its host when private IP ranges are barred.
    if (method === 'private_key_jwt' && strings.jwks_uri === '' && !inlineKeys) return "When token_endpoint_auth_method is 'private_key_jwt', either jwks or jwks_uri must be set."
    const subjectType = typeof body.subject_type === 'string' && body.subject_type !== '' ? body.subject_type : 'public'
    if (subjectType !== 'public') return `Subject type ${subjectType} is not supported by server, only [public] are allowed.`
    const now = new Date().toISOString()
    // Hydra writes every column on update; a created_at left out of the body becomes "now".
    const createdAt = existing && typeof body.created_at === 'string' && !Number.isNaN(Date.parse(body.created_at)) ? new Date(body.created_at).toISOString() : now
    // Whatever the method: Hydra makes a secret for any client created without one, a public client
    // included, and keeps the stored one on update (client/handler.go CreateClient, UpdateClient).
    const secret = typeof body.client_secret === 'string' && body.client_secret !== '' ? body.client_secret : (existing?.secret ?? randomBytes(24).toString('base64url'))
    return {
      client_id: typeof body.client_id === 'string' && body.client_id !== '' ? body.client_id : (existing?.client_id ?? this.newId()),
      client_name: typeof body.client_name === 'string' ? body.client_name : '',
      secret,
      redirect_uris: redirects,
      post_logout_redirect_uris: logoutRedirects,
      grant_types: grantTypes,
      response_types: responses.length > 0 ? responses : ['code'],
      scope: typeof body.scope === 'string' && body.scope !== '' ? body.scope : 'offline_access offline openid',
      audience,
      token_endpoint_auth_method: method,
      skip_consent: body.skip_consent === true,
      owner: typeof body.owner === 'string' ? body.owner : '',
      metadata: typeof body.metadata === 'object' && body.metadata !== null ? (body.metadata as Record<string, unknown>) : {},
      lifespans,
      ...strings,
      contacts,
      allowed_cors_origins: origins,
      request_uris: requestUris,
      jwks,
      subject_type: subjectType,
      frontchannel_logout_session_required: body.frontchannel_logout_session_required === true,
      backchannel_logout_session_required: body.backchannel_logout_session_required === true,
      skip_logout_consent: typeof body.skip_logout_consent === 'boolean' ? body.skip_logout_consent : null,
      created_at: createdAt,
      updated_at: now,
    }
  }

  private newId(): string {
    // Random ids (Hydra uses UUIDs); a sequence prefix keeps the seeded order stable for paging.
    return `${String(++this.sequence).padStart(4, '0')}${randomUUID().slice(4)}`
  }

  /** A client as a test wants it served (see `malformedRecords`); as Hydra answers it otherwise. */
  private served(client: FixtureClient): unknown {
    const reshape = this.malformedRecords.get(client.client_id)
    return reshape ? reshape(this.render(client)) : this.render(client)
  }

  /** A client as Hydra answers it: never the secret (create alone adds it). */
  private render(client: FixtureClient): Record<string, unknown> {
    const { secret: _secret, lifespans, ...json } = client
    const all: Record<string, string | null> = {}
    for (const field of CLIENT_LIFESPAN_FIELDS) all[field] = lifespans[field] ?? null
    return { ...json, ...all, client_secret_expires_at: 0 }
  }
}
