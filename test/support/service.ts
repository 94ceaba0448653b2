// Runs the real service in-process on a loopback port with a real SQLite file (or the PostgreSQL
// database of DATABASE_URL when the env sets it), and hands every response to the shared leak check.

import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { createApp } from '../../src/app.ts'
import type { Services } from '../../src/services.ts'
import { loadConfig, type Environment } from '../../src/config.ts'
import type { Database } from 'bun:sqlite'
import { openStorage } from '../../src/db/open.ts'
import { SqliteStorage } from '../../src/db/sqlite-storage.ts'
import type { Storage } from '../../src/db/storage.ts'
import { createLogger } from '../../src/log.ts'
import { serve, type RunningServer } from '../../src/server.ts'
import { newSessionId, signSessionCookie, type Role, type SessionPayload } from '../../src/session/cookie.ts'
import type { Clock } from '../../src/clock.ts'
import { inspectLogLine, inspectResponse, markSecret, markSensitive, recordFinding } from './leaks.ts'
import { temporaryDir } from './temp.ts'
import { isPassthrough } from '../../src/proxy/passthrough.ts'

export const randomKey = (bytes = 32) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString('base64')

/** A clock tests can move. */
export class TestClock implements Clock {
  constructor(private ms = Date.now()) {}
  now(): number {
    return this.ms
  }
  advance(seconds: number): void {
    this.ms += seconds * 1000
  }
}

export interface StartOptions {
  env?: Environment
  clock?: Clock
  /** Reuse the directory (and database) of an earlier service: a restart. */
  dir?: string
  /** The service's outbound fetch (Bun's own by default), e.g. one that trusts a test certificate. */
  fetch?: typeof fetch
  /** How long `stop()` waits for in-flight requests before it cuts them (the server's 10 s by default). */
  drainTimeoutMs?: number
  /** How often the service forgets expired revoked sessions (an hour by default). */
  revocationPruneEveryMs?: number
}

export interface TestService {
  url: string
  dir: string
  env: Environment
  services: Services
  storage: Storage
  /** The SQLite handle, for tests that look at the file's rows; null on PostgreSQL. */
  db: Database | null
  logLines: string[]
  clock: Clock
  /** A cookie value signed with this service's key. */
  sign(session: Partial<SessionPayload> & { sub: string; role: Role }): string
  stop(options?: { keepDir?: boolean }): Promise<void>
}

export function baseEnvironment(overrides: Environment = {}): Environment {
  return {
    SESSION_SIGNING_KEY: randomKey(),
    ENCRYPTION_KEY: randomKey(),
    BASE_URL: 'http://admin.test',
    OAUTH_ISSUER_URL: 'http://issuer.test',
    OAUTH_CLIENT_ID: 'admin-dashboard',
    NODE_ENV: 'production',
    LOG_LEVEL: 'debug',
    ...overrides,
  }
}

export async function startService(options: StartOptions = {}): Promise<TestService> {
  const dir = options.dir ?? temporaryDir('admin-dashboard-test-')
  const env = baseEnvironment({ DATABASE_PATH: join(dir, 'admin-dashboard.db'), ...options.env })
  markSecret(env.SESSION_SIGNING_KEY, env.ENCRYPTION_KEY, env.ENCRYPTION_KEY_PREVIOUS)
  const loaded = loadConfig(env)
  if (!loaded.ok) throw new Error(`test configuration invalid: ${loaded.errors.join('; ')}`)
  const logLines: string[] = []
  const log = createLogger('debug', (line) => {
    logLines.push(line)
    inspectLogLine(line)
    // Only a routing bug makes a handler run without the session its route needs.
    if (line.includes('"event":"handler_without_session"')) recordFinding(`a handler ran without its session: ${line.trim()}`)
  })
  const opened = await openStorage(loaded.config, log)
  if (!opened.ok) throw new Error(opened.error)
  const { storage } = opened
  const clock = options.clock ?? new TestClock()
  const { handle, services } = createApp({ config: loaded.config, storage, log, clock, fetch: options.fetch, revocationPruneEveryMs: options.revocationPruneEveryMs })
  await services.ready()
  const running: RunningServer = serve({
    handle,
    hostname: '127.0.0.1',
    port: 0,
    log,
    observe: (request, response) => inspectResponse(request, response, isPassthrough),
    drainTimeoutMs: options.drainTimeoutMs,
    upstreamTimeoutMs: loaded.config.proxyTimeoutMs,
  })
  const nowSeconds = () => Math.floor(clock.now() / 1000)
  return {
    url: running.url.origin,
    dir,
    env,
    services,
    storage,
    db: storage instanceof SqliteStorage ? storage.db : null,
    logLines,
    clock,
    sign(session) {
      const iat = session.iat ?? nowSeconds()
      const payload: SessionPayload = {
        v: 1,
        sid: session.sid ?? newSessionId(),
        email: session.email ?? 'someone@example.test',
        iat,
        exp: session.exp ?? iat + 3600,
        ...session,
      }
      const value = signSessionCookie(loaded.config.sessionSigningKey, payload)
      markSecret(value)
      markSensitive(payload.email, payload.sub)
      return value
    },
    async stop({ keepDir = false } = {}) {
      await running.stop()
      services.close()
      await storage.close()
      if (!keepDir && !options.dir) rmSync(dir, { recursive: true, force: true })
    },
  }
}
