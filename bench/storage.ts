// Storage on PostgreSQL beside SQLite, in one run on this machine: settings reads (from the
// database, and the cached API-key lookup of the hot path), settings writes (encrypted, each with
// its audit event, 8 in flight), and the gate's throughput (GET /api/auth/session with a valid
// cookie, the service from source, wrk -c32, A/B/B/A).
//
//   bun bench/storage.ts        (BENCH_STORAGE_SECONDS per measurement, default 3; BENCH_SECONDS for wrk, default 8)

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runWrk } from './wrk.ts'
import { startPostgres } from '../test/support/postgres.ts'
import { openStorage } from '../src/db/open.ts'
import { AuditLog } from '../src/audit/audit.ts'
import { createSettingsService } from '../src/settings/service.ts'
import { loadConfig } from '../src/config.ts'
import { systemClock } from '../src/clock.ts'
import { createLogger } from '../src/log.ts'
import { signSessionCookie } from '../src/session/cookie.ts'
import { freePort, waitFor200 } from './processes.ts'

const SECONDS = Number(process.env.BENCH_STORAGE_SECONDS ?? 3)
const WRK_SECONDS = Number(process.env.BENCH_SECONDS ?? 8)
const SETTINGS = 200
const IN_FLIGHT = 8
const ROOT = join(import.meta.dir, '..')
const dir = mkdtempSync(join(tmpdir(), 'bench-storage-'))
const signingKey = crypto.getRandomValues(new Uint8Array(32))
const encryptionKey = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64')

/** Runs `op` with `inFlight` callers for `seconds`; operations per second. */
async function rate(seconds: number, inFlight: number, op: (n: number) => Promise<unknown>): Promise<number> {
  let done = 0
  const until = performance.now() + seconds * 1000
  const started = performance.now()
  await Promise.all(
    Array.from({ length: inFlight }, async (_, worker) => {
      for (let n = worker; performance.now() < until; n += inFlight) {
        await op(n)
        done++
      }
    }),
  )
  return done / ((performance.now() - started) / 1000)
}

const pg = await startPostgres()
// The identity store the gate asks whether the session's identity still exists: always yes.
const identityStore = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => Response.json({ id: 'x', traits: { role: 'admin' } }) })

interface Measured {
  engine: string
  reads: number
  cachedReads: number
  writes: number
  serviceUrl: string
  service: ReturnType<typeof Bun.spawn>
}

async function measure(engine: 'sqlite' | 'postgres'): Promise<Measured> {
  const databaseUrl = engine === 'postgres' ? await pg.createDatabase() : undefined
  const env = {
    SESSION_SIGNING_KEY: Buffer.from(signingKey).toString('base64'),
    ENCRYPTION_KEY: encryptionKey,
    DATABASE_PATH: join(dir, engine, 'bench.db'),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  }
  const loaded = loadConfig(env)
  if (!loaded.ok) throw new Error(loaded.errors.join('; '))
  const opened = await openStorage(loaded.config)
  if (!opened.ok) throw new Error(opened.error)
  const { storage } = opened
  const settings = createSettingsService({ config: loaded.config, storage, audit: new AuditLog(storage, systemClock), clock: systemClock, log: createLogger('error') })
  for (let n = 0; n < SETTINGS; n++) await settings.write({ key: `bench.key.${n}`, value: `value number ${n} `.repeat(4), encrypted: n % 10 === 0 }, null)
  await settings.write({ key: 'proxy.idp-admin.api_key', value: 'bench-api-key', encrypted: true }, null)

  const reads = await rate(SECONDS, IN_FLIGHT, (n) => storage.settings.get(`bench.key.${n % SETTINGS}`))
  const cachedReads = await rate(SECONDS, 1, () => settings.apiKeyFor('idp-admin'))
  const writes = await rate(SECONDS, IN_FLIGHT, (n) => settings.write({ key: `bench.write.${n % 500}`, value: `written ${n}`, encrypted: true }, null))
  await storage.close()

  const port = freePort()
  const service = Bun.spawn(['bun', 'src/main.ts', 'serve'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      ...env,
      PORT: String(port),
      BASE_URL: `http://127.0.0.1:${port}`,
      OAUTH_ISSUER_URL: 'http://127.0.0.1:9',
      OAUTH_CLIENT_ID: 'bench',
      IDP_ADMIN_URL: `http://127.0.0.1:${identityStore.port}`,
      LOG_LEVEL: 'warn',
    },
    stdout: 'ignore',
    stderr: 'inherit',
  })
  const serviceUrl = `http://127.0.0.1:${port}`
  await waitFor200(`${serviceUrl}/api/health`)
  return { engine, reads, cachedReads, writes, serviceUrl, service }
}

try {
  const sqlite = await measure('sqlite')
  const postgres = await measure('postgres')
  const now = Math.floor(Date.now() / 1000)
  const cookie = `admin-session=${signSessionCookie(signingKey, { v: 1, sid: 'bench', sub: '7f0c2a3e-1b4d-4c5e-9f6a-0b1c2d3e4f50', email: 'a@example.test', role: 'admin', iat: now, exp: now + 3600 })}`
  const options = { connections: 32, seconds: WRK_SECONDS, headers: { cookie } }
  const gate = `/api/auth/session`
  const s1 = await runWrk(sqlite.serviceUrl + gate, options)
  const p1 = await runWrk(postgres.serviceUrl + gate, options)
  const p2 = await runWrk(postgres.serviceUrl + gate, options)
  const s2 = await runWrk(sqlite.serviceUrl + gate, options)
  const gateSqlite = (s1.requestsPerSecond + s2.requestsPerSecond) / 2
  const gatePostgres = (p1.requestsPerSecond + p2.requestsPerSecond) / 2
  const errors = [s1, s2, p1, p2].reduce((sum, r) => sum + r.errors, 0)
  for (const m of [sqlite, postgres]) {
    m.service.kill('SIGTERM')
    await m.service.exited
  }

  const row = (label: string, a: number, b: number) => `| ${label} | ${a.toFixed(0)} | ${b.toFixed(0)} | ${(b / a).toFixed(2)} |`
  console.log(`\nstorage: PostgreSQL (local cluster, loopback TCP) beside SQLite (WAL, synchronous=FULL), ${SECONDS} s per measurement, ${IN_FLIGHT} in flight\n`)
  console.log('| per second | SQLite | PostgreSQL | PostgreSQL / SQLite |')
  console.log('|---|---|---|---|')
  console.log(row('settings reads from the database', sqlite.reads, postgres.reads))
  console.log(row('settings reads through the cache (apiKeyFor hit)', sqlite.cachedReads, postgres.cachedReads))
  console.log(row('settings writes (encrypted, with the audit event)', sqlite.writes, postgres.writes))
  console.log(row(`gate: GET ${gate}, valid cookie (wrk -c32 -d${WRK_SECONDS}s, A/B/B/A)`, gateSqlite, gatePostgres))
  console.log(`\nwrk errors (non-2xx or timeouts): ${errors}`)
} finally {
  identityStore.stop(true)
  await pg.destroy()
  rmSync(dir, { recursive: true, force: true })
}
