// `bun run dev`: the service on its embedded defaults (SQLite under ./data), together with a local
// OAuth 2.0 provider (oidc-provider with Hydra's paths) and a local identity store that behaves like
// Kratos's admin API, seeded with an admin and a viewer. Development tooling only: it is not part of
// the production executable. Point the service at a real Ory stack with the environment instead.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createApp } from '../src/app.ts'
import type { Services } from '../src/services.ts'
import { loadConfig, type Environment } from '../src/config.ts'
import { openDatabase } from '../src/db/database.ts'
import { createLogger } from '../src/log.ts'
import { serve } from '../src/server.ts'
import { KratosFixture } from '../test/support/kratos.ts'
import { startOAuthProvider } from '../test/support/oauth-provider.ts'

export const SANDBOX_USERS = {
  admin: 'admin@example.test',
  viewer: 'viewer@example.test',
} as const

export interface SandboxOptions {
  /** Port of the service (0 picks a free one). */
  port: number
  dataDir: string
  quiet?: boolean
}

export interface Sandbox {
  url: string
  providerUrl: string
  /** The identity store behind the service, for tests that check what a page did. */
  kratos: KratosFixture
  /** The service's own layers (settings, audit), for tests that check what a page stored. */
  services: Services
  /** The service's environment (its keys too: tests prove pages never show them). */
  env: Environment
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

function freePort(): number {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = probe.port
  probe.stop(true)
  return port
}

export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  mkdirSync(options.dataDir, { recursive: true })
  const port = options.port === 0 ? freePort() : options.port
  const baseUrl = `http://127.0.0.1:${port}`

  const kratos = new KratosFixture().start()
  kratos.addIdentity({ email: SANDBOX_USERS.admin, role: 'admin', name: 'Ada Admin' })
  kratos.addIdentity({ email: SANDBOX_USERS.viewer, role: 'viewer', name: 'Victor Viewer' })
  const cities = [
    ['81.2.69.160', 'London'],
    ['2.16.7.0', 'Berlin'],
    ['1.0.16.1', 'Tokyo'],
    ['8.8.8.8', 'Mountain View'],
  ] as const
  for (let i = 1; i <= 40; i++) {
    const person = kratos.addIdentity({ email: `user${String(i).padStart(2, '0')}@example.test`, name: `Sample User ${i}` })
    const [ip] = cities[i % cities.length]!
    kratos.addSession(person.id, { ip_address: ip }, i % 20)
  }

  const provider = await startOAuthProvider({
    clientId: 'admin-dashboard',
    redirectUris: [`${baseUrl}/api/auth/callback`],
    findSubject: (login) => {
      const identity = [...kratos.identities.values()].find((candidate) => candidate.traits.email === login.trim().toLowerCase())
      return identity ? { sub: identity.id, email: identity.traits.email as string } : null
    },
  })

  const env: Environment = {
    ...sandboxKeys(options.dataDir),
    BASE_URL: baseUrl,
    OAUTH_ISSUER_URL: provider.url,
    OAUTH_CLIENT_ID: 'admin-dashboard',
    IDP_ADMIN_URL: kratos.url,
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_PATH: join(options.dataDir, 'sandbox.db'),
    NODE_ENV: 'development',
    LOG_LEVEL: options.quiet ? 'error' : 'info',
  }
  const loaded = loadConfig(env)
  if (!loaded.ok) throw new Error(loaded.errors.join('; '))
  const opened = openDatabase(loaded.config.databasePath)
  if (!opened.ok) throw new Error(opened.error)
  const log = createLogger(loaded.config.logLevel)
  const { app, services } = createApp({ config: loaded.config, db: opened.db, log })
  const running = serve({ app, hostname: '127.0.0.1', port, log })

  return {
    url: baseUrl,
    providerUrl: provider.url,
    kratos,
    services,
    env,
    async stop() {
      await running.stop()
      opened.db.close()
      await provider.stop()
      await kratos.stop()
    },
  }
}

if (import.meta.main) {
  const port = Number(process.env.PORT ?? 3000)
  const sandbox = await startSandbox({ port, dataDir: process.env.SANDBOX_DATA_DIR ?? './data' })
  process.stdout.write(`
  admin-dashboard sandbox is running.

    Open      ${sandbox.url}/dashboard
    Sign in   as ${SANDBOX_USERS.admin} (admin) or ${SANDBOX_USERS.viewer} (viewer), any password
    Provider  ${sandbox.providerUrl} (local OAuth 2.0 provider with Ory Hydra's paths)
    Data      ./data/sandbox.db

  Ctrl-C stops everything.

`)
  const stop = async () => {
    await sandbox.stop()
    process.exit(0)
  }
  process.on('SIGINT', () => void stop())
  process.on('SIGTERM', () => void stop())
}
