// A stand-in for the Ory Kratos admin API that behaves as shared/reference/ory-upstreams.md
// describes: keyset paging by identity id with a `Link` header, bare JSON arrays, Kratos error
// bodies, exact (lower-cased) identifier matching. Used by the tests and by `bun run dev`.

import { randomUUID } from 'node:crypto'

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
  /** Login identifiers (not part of the JSON unless requested, as in Kratos). */
  identifiers: string[]
}

export interface FixtureSession {
  id: string
  identityId: string
  active: boolean
  authenticated_at: string
  issued_at: string
  expires_at: string
  devices: { id: string; ip_address: string; user_agent: string; location: string }[]
}

export interface RecordedCall {
  method: string
  path: string
  query: URLSearchParams
  headers: Headers
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const FIRST_TOKEN = '00000000-0000-0000-0000-000000000000'

function kratosError(code: number, status: string, message: string, reason?: string): Response {
  const error: Record<string, unknown> = { code, status, message }
  if (reason) error.reason = reason
  return Response.json({ error }, { status: code })
}

const badRequest = (reason: string) =>
  kratosError(400, 'Bad Request', 'The request was malformed or contained invalid parameters', reason)
const notFound = () => kratosError(404, 'Not Found', 'Unable to locate the resource')

export interface KratosFixtureOptions {
  /** When set, every /admin request must carry `Authorization: Bearer <apiKey>` (as Ory Network). */
  apiKey?: string
  port?: number
}

export class KratosFixture {
  readonly identities = new Map<string, FixtureIdentity>()
  readonly sessions: FixtureSession[] = []
  readonly calls: RecordedCall[] = []
  /** Milliseconds to wait before answering (to exercise timeouts). */
  delayMs = 0
  /** When set, every /admin request answers this status with a Kratos error body. */
  failWith: number | null = null
  apiKey: string | undefined
  private server: ReturnType<typeof Bun.serve> | null = null
  private port: number

  constructor(options: KratosFixtureOptions = {}) {
    this.apiKey = options.apiKey
    this.port = options.port ?? 0
  }

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

  addIdentity(traits: Record<string, unknown>, options: { id?: string; identifiers?: string[]; state?: 'active' | 'inactive' } = {}): FixtureIdentity {
    const now = new Date().toISOString()
    const id = options.id ?? randomUUID()
    const identifiers = options.identifiers ?? (typeof traits.email === 'string' ? [traits.email] : [])
    const identity: FixtureIdentity = {
      id,
      schema_id: 'default',
      schema_url: `${this.server ? this.url : 'http://kratos.invalid'}/schemas/ZGVmYXVsdA`,
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
      authenticated_at: issued.toISOString(),
      issued_at: issued.toISOString(),
      expires_at: new Date(issued.getTime() + 30 * 86_400_000).toISOString(),
      devices: [{ id: randomUUID(), ip_address: device.ip_address, user_agent: device.user_agent ?? 'test', location: device.location ?? '' }],
    }
    this.sessions.push(session)
    return session
  }

  callsTo(path: string): RecordedCall[] {
    return this.calls.filter((call) => call.path === path)
  }

  private async handle(request: Request): Promise<Response> {
    const url = new URL(request.url)
    this.calls.push({ method: request.method, path: url.pathname, query: url.searchParams, headers: request.headers })
    if (this.delayMs > 0) await Bun.sleep(this.delayMs)
    if (url.pathname === '/health/alive' || url.pathname === '/health/ready') return Response.json({ status: 'ok' })
    if (url.pathname === '/version') return Response.json({ version: 'v26.2.0' })
    if (!url.pathname.startsWith('/admin/')) return notFound()
    if (this.apiKey !== undefined && request.headers.get('authorization') !== `Bearer ${this.apiKey}`) {
      return kratosError(401, 'Unauthorized', 'The request could not be authorized', 'The API key is missing or invalid')
    }
    if (this.failWith !== null) return kratosError(this.failWith, 'Internal Server Error', 'An internal server error occurred, please contact the system administrator')

    const parts = url.pathname.split('/').filter(Boolean) // ['admin', 'identities', id?, 'sessions'?]
    if (parts[1] === 'identities' && parts.length === 2 && request.method === 'GET') return this.listIdentities(url)
    if (parts[1] === 'identities' && parts.length === 3) {
      const identity = this.identities.get(decodeURIComponent(parts[2]!))
      if (request.method === 'GET') return identity ? Response.json(this.render(identity, false)) : notFound()
      if (request.method === 'DELETE') {
        if (!identity) return notFound()
        this.identities.delete(identity.id)
        return new Response(null, { status: 204 })
      }
    }
    if (parts[1] === 'identities' && parts.length === 4 && parts[3] === 'sessions' && request.method === 'GET') {
      const id = decodeURIComponent(parts[2]!)
      if (!UUID.test(id)) return badRequest('The identity id is not a valid UUID')
      return Response.json(this.sessions.filter((s) => s.identityId === id).map((s) => this.renderSession(s, false)))
    }
    if (parts[1] === 'sessions' && parts.length === 2 && request.method === 'GET') return this.listSessions(url)
    return notFound()
  }

  private pageSize(url: URL): number | Response {
    const raw = url.searchParams.get('page_size')
    if (raw === null || raw === '') return 250
    if (!/^-?[0-9]+$/.test(raw)) return badRequest('page_size must be an integer')
    const size = Number(raw)
    if (size <= 0) return 250
    return Math.min(size, 500)
  }

  /** Keyset paging: rows ordered by id, the token is the last id of the previous page. */
  private page<T extends { id: string }>(url: URL, path: string, rows: T[]): { rows: T[]; link: string } | Response {
    const size = this.pageSize(url)
    if (size instanceof Response) return size
    const token = url.searchParams.get('page_token')
    if (token !== null && token !== '' && !UUID.test(token)) {
      return badRequest('The page token is invalid, do not craft your own page tokens')
    }
    const after = token && token !== '' ? token.toLowerCase() : FIRST_TOKEN
    const sorted = rows.filter((row) => row.id.toLowerCase() > after).sort((a, b) => (a.id < b.id ? -1 : 1))
    const pageRows = sorted.slice(0, size + 1)
    const links = [`<${path}?page_size=${size}&page_token=${FIRST_TOKEN}>; rel="first"`]
    if (pageRows.length > size) {
      pageRows.pop()
      links.push(`<${path}?page_size=${size}&page_token=${pageRows[pageRows.length - 1]!.id}>; rel="next"`)
    }
    return { rows: pageRows, link: links.join(',') }
  }

  private listIdentities(url: URL): Response {
    const filters = ['credentials_identifier', 'preview_credentials_identifier_similar', 'ids', 'organization_id'].filter((f) =>
      url.searchParams.has(f),
    )
    if (filters.length > 1) return badRequest('at most one filter can be used at a time')
    let rows = [...this.identities.values()]
    let withCredentials = url.searchParams.get('include_credential') !== null
    const exact = url.searchParams.get('credentials_identifier')
    if (exact !== null) {
      const wanted = exact.includes('@') ? exact.toLowerCase() : exact
      rows = rows.filter((identity) => identity.identifiers.some((id) => (id.includes('@') ? id.toLowerCase() : id) === wanted))
      withCredentials = true
    }
    const similar = url.searchParams.get('preview_credentials_identifier_similar')
    if (similar !== null) rows = rows.filter((identity) => identity.identifiers.some((id) => id.startsWith(similar)))
    const ids = url.searchParams.getAll('ids')
    if (ids.length > 0) rows = rows.filter((identity) => ids.includes(identity.id))
    const page = this.page(url, '/admin/identities', rows)
    if (page instanceof Response) return page
    return Response.json(
      page.rows.map((identity) => this.render(identity, withCredentials)),
      { headers: { link: page.link } },
    )
  }

  private listSessions(url: URL): Response {
    const activeOnly = url.searchParams.get('active') === 'true'
    const rows = this.sessions.filter((session) => !activeOnly || session.active)
    const page = this.page(url, '/admin/sessions', rows)
    if (page instanceof Response) return page
    const expandIdentity = url.searchParams.getAll('expand').includes('identity')
    return Response.json(
      page.rows.map((session) => this.renderSession(session, expandIdentity)),
      { headers: { link: page.link } },
    )
  }

  private render(identity: FixtureIdentity, withCredentials: boolean): Record<string, unknown> {
    const { identifiers, ...json } = identity
    if (!withCredentials) return json
    return {
      ...json,
      credentials: { password: { type: 'password', identifiers, config: { hashed_password: '$argon2id$v=19$secret-hash' }, version: 0 } },
    }
  }

  private renderSession(session: FixtureSession, withIdentity: boolean): Record<string, unknown> {
    const identity = this.identities.get(session.identityId)
    return {
      id: session.id,
      active: session.active,
      expires_at: session.expires_at,
      authenticated_at: session.authenticated_at,
      issued_at: session.issued_at,
      devices: session.devices,
      ...(withIdentity && identity ? { identity: this.render(identity, false) } : {}),
    }
  }
}
