// Settings throughput over HTTP with 10,000 settings stored: single-key reads and writes per
// second, and p50/p99 of GET /api/settings (the whole list), on loopback only.
//
//   bun bench/settings.ts              (BENCH_SECONDS=5 per run by default)
//
// The service runs as its own process (`bun src/main.ts serve`), so the load generator does not
// share its event loop. Load comes from wrk when it is installed, else from a bounded fetch loop.
// Writes are committed with synchronous=FULL, so their rate is mostly the disk's fsync rate.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AuditLog } from '../src/audit/audit.ts'
import { systemClock } from '../src/clock.ts'
import { decodeBase64Key, loadConfig } from '../src/config.ts'
import { openSqliteStorage } from '../src/db/sqlite-storage.ts'
import { createLogger } from '../src/log.ts'
import { createSettingsService } from '../src/settings/service.ts'
import { newSessionId, signSessionCookie } from '../src/session/cookie.ts'
import { KratosFixture } from '../test/support/kratos.ts'
import { baseEnvironment } from '../test/support/service.ts'
import { runWrk as wrkRun } from './wrk.ts'

const SETTINGS = 10_000
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const LOOP_LIMIT = 5_000
const ROOT = join(import.meta.dir, '..')

interface Result {
  name: string
  concurrency: number
  requestsPerSecond: number
  p50Ms: number
  p99Ms: number
}

const wrk = Bun.which('wrk')

async function seed(env: Record<string, string>): Promise<void> {
  const loaded = loadConfig(env)
  if (!loaded.ok) throw new Error(loaded.errors.join('; '))
  const opened = openSqliteStorage(loaded.config.databasePath)
  if (!opened.ok) throw new Error(opened.error)
  const settings = createSettingsService({
    config: loaded.config,
    storage: opened.storage,
    audit: new AuditLog(opened.storage, systemClock),
    clock: systemClock,
    log: createLogger('error'),
  })
  for (let n = 0; n < SETTINGS; n++) {
    await settings.write({ key: `bench.key.${n}`, value: `value number ${n} `.repeat(4), encrypted: n % 10 === 0, category: `group-${n % 20}` }, null)
  }
  await opened.storage.close()
}

async function startService(env: Record<string, string>) {
  const child = Bun.spawn([process.execPath, 'src/main.ts', 'serve'], { cwd: ROOT, env, stdout: 'pipe', stderr: 'inherit' })
  const reader = child.stdout.getReader()
  let text = ''
  for (;;) {
    const { value, done } = await reader.read()
    if (done) throw new Error('the service exited early')
    text += new TextDecoder().decode(value)
    const line = text.split('\n').find((l) => l.includes('"listening"'))
    if (line) break
  }
  const address = (JSON.parse(text.split('\n').find((l) => l.includes('"listening"'))!) as { address: string }).address
  void (async () => {
    while (!(await reader.read()).done) {}
  })().catch(() => {})
  return { url: address, child }
}

async function runWrk(name: string, url: string, concurrency: number, cookie: string, script: string | null): Promise<Result> {
  const result = await wrkRun(url, { connections: concurrency, seconds: SECONDS, headers: { Cookie: cookie }, script: script ?? undefined })
  if (result.errors > 0) throw new Error(`${name}: ${result.errors} failed responses`)
  return { name, concurrency, requestsPerSecond: result.requestsPerSecond, p50Ms: result.p50ms, p99Ms: result.p99ms }
}

async function runLoop(name: string, concurrency: number, request: (n: number) => Promise<Response>): Promise<Result> {
  const latencies: number[] = []
  const deadline = performance.now() + SECONDS * 1000
  let sent = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline && sent < LOOP_LIMIT) {
        const n = sent++
        const t0 = performance.now()
        const response = await request(n)
        await response.arrayBuffer()
        if (!response.ok) throw new Error(`${name}: status ${response.status}`)
        latencies.push(performance.now() - t0)
      }
    }),
  )
  const elapsed = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN
  return { name, concurrency, requestsPerSecond: latencies.length / elapsed, p50Ms: at(0.5), p99Ms: at(0.99) }
}

const READ_SCRIPT = `request = function()
  return wrk.format("GET", "/api/settings/bench.key." .. math.random(0, ${SETTINGS - 1}))
end
`
const WRITE_SCRIPT = `counter = 0
request = function()
  counter = counter + 1
  local body = '{"key":"bench.write.' .. counter .. '","value":"written value ' .. counter .. '"}'
  -- A headers table given to wrk.format replaces the -H headers, so copy them (the cookie).
  local headers = { ["Content-Type"] = "application/json" }
  for name, value in pairs(wrk.headers) do headers[name] = value end
  return wrk.format("POST", "/api/settings", headers, body)
end
`

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'admin-dashboard-bench-'))
  const kratos = new KratosFixture().start()
  const admin = kratos.addIdentity({ email: 'bench.admin@example.test', role: 'admin' })
  const env = {
    PATH: process.env.PATH ?? '',
    ...baseEnvironment({
      DATABASE_PATH: join(dir, 'admin-dashboard.db'),
      IDP_ADMIN_URL: kratos.url,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      // The gate asks the identity store once; the bench measures settings, not that call.
      IDENTITY_RECHECK_SECONDS: '86400',
    }),
  } as Record<string, string>
  const seeded = performance.now()
  await seed(env)
  const seedSeconds = (performance.now() - seeded) / 1000
  const now = Math.floor(Date.now() / 1000)
  const cookie = `admin-session=${signSessionCookie(decodeBase64Key(env.SESSION_SIGNING_KEY!)!, {
    v: 1,
    sid: newSessionId(),
    sub: admin.id,
    email: 'bench.admin@example.test',
    role: 'admin',
    iat: now,
    exp: now + 3600,
  })}`
  const service = await startService(env)
  const results: Result[] = []
  try {
    const list = await fetch(`${service.url}/api/settings`, { headers: { cookie } })
    const listBytes = (await list.arrayBuffer()).byteLength
    if (list.status !== 200) throw new Error(`GET /api/settings answered ${list.status}`)
    const headers = { cookie }
    for (const concurrency of [1, 8]) {
      results.push(
        wrk
          ? await runWrk('GET /api/settings (10,000 settings)', `${service.url}/api/settings`, concurrency, cookie, null)
          : await runLoop('GET /api/settings (10,000 settings)', concurrency, () => fetch(`${service.url}/api/settings`, { headers })),
      )
    }
    for (const concurrency of [1, 32]) {
      results.push(
        wrk
          ? await runWrk('GET /api/settings/:key', service.url, concurrency, cookie, READ_SCRIPT)
          : await runLoop('GET /api/settings/:key', concurrency, (n) => fetch(`${service.url}/api/settings/bench.key.${n % SETTINGS}`, { headers })),
      )
    }
    for (const concurrency of [1, 32]) {
      results.push(
        wrk
          ? await runWrk('POST /api/settings', service.url, concurrency, cookie, WRITE_SCRIPT)
          : await runLoop('POST /api/settings', concurrency, (n) =>
              fetch(`${service.url}/api/settings`, {
                method: 'POST',
                headers: { ...headers, 'content-type': 'application/json' },
                body: JSON.stringify({ key: `bench.loop.${concurrency}.${n}`, value: `written value ${n}` }),
              }),
            ),
      )
    }
    process.stdout.write(
      `settings bench: ${SETTINGS} settings (list body ${(listBytes / 1024).toFixed(0)} KiB), ${wrk ? 'wrk' : 'fetch loop'}, ` +
        `${SECONDS}s per run, seeded in ${seedSeconds.toFixed(2)}s\n\n`,
    )
    const rows = [
      ['route', 'clients', 'req/s', 'p50 ms', 'p99 ms'],
      ...results.map((r) => [r.name, String(r.concurrency), r.requestsPerSecond.toFixed(0), r.p50Ms.toFixed(2), r.p99Ms.toFixed(2)]),
    ]
    const widths = rows[0]!.map((_, c) => Math.max(...rows.map((row) => row[c]!.length)))
    for (const row of rows) process.stdout.write(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ') + '\n')
  } finally {
    service.child.kill('SIGTERM')
    await service.child.exited
    await kratos.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
