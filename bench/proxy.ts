// Requests/s and p99 through the proxy, as a ratio to calling the same upstream directly in the
// same run (alternating A/B/B/A), for a small JSON GET and a 1 MiB download; and the service's
// peak resident memory. Loopback only; `bun bench/proxy.ts` (BENCH_SECONDS to change the length).

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runWrk, type WrkResult } from './wrk.ts'
import { startProcess } from '../test/support/process.ts'
import { listeningPort, memoryMiB } from './processes.ts'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8)
const CONNECTIONS = 32
const ROOT = join(import.meta.dir, '..')

const upstream = Bun.spawn(['bun', join(import.meta.dir, 'fixtures/upstream-server.ts')], { stdout: 'pipe', stderr: 'inherit' })
const upstreamUrl = `http://127.0.0.1:${await listeningPort(upstream.stdout)}`
const dir = mkdtempSync(join(tmpdir(), 'bench-proxy-'))
const service = await startProcess(['bun', join(ROOT, 'src/main.ts'), 'serve'], {
  SESSION_SIGNING_KEY: Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64'),
  DATABASE_PATH: join(dir, 'bench.db'),
  IDP_PUBLIC_URL: upstreamUrl,
  // As in production: one log line per request is part of the cost.
  LOG_LEVEL: 'info',
})
const startMemory = memoryMiB(service.child.pid, 'VmHWM')

const rows: string[] = []
for (const [label, path] of [
  ['small JSON GET', '/small'],
  ['1 MiB download', '/1mb'],
] as const) {
  const direct: WrkResult[] = []
  const proxied: WrkResult[] = []
  // A/B/B/A: drift on a shared two-core machine hits both sides alike.
  direct.push(await runWrk(`${upstreamUrl}${path}`, { connections: CONNECTIONS, seconds: SECONDS }))
  proxied.push(await runWrk(`${service.url}/api/idp${path}`, { connections: CONNECTIONS, seconds: SECONDS }))
  proxied.push(await runWrk(`${service.url}/api/idp${path}`, { connections: CONNECTIONS, seconds: SECONDS }))
  direct.push(await runWrk(`${upstreamUrl}${path}`, { connections: CONNECTIONS, seconds: SECONDS }))
  const mean = (results: WrkResult[], key: keyof WrkResult) => results.reduce((sum, r) => sum + r[key], 0) / results.length
  const d = { rps: mean(direct, 'requestsPerSecond'), p99: mean(direct, 'p99ms') }
  const p = { rps: mean(proxied, 'requestsPerSecond'), p99: mean(proxied, 'p99ms') }
  const errors = [...direct, ...proxied].reduce((sum, r) => sum + r.errors, 0)
  rows.push(
    `| ${label} | ${d.rps.toFixed(0)} | ${p.rps.toFixed(0)} | ${(p.rps / d.rps).toFixed(2)} | ${d.p99.toFixed(2)} | ${p.p99.toFixed(2)} | ${(p.p99 / d.p99).toFixed(2)} | ${errors} |`,
  )
}
const peak = memoryMiB(service.child.pid, 'VmHWM')

console.log(`\nproxy vs direct, wrk -t1 -c${CONNECTIONS} -d${SECONDS}s, A/B/B/A means\n`)
console.log('| request | direct req/s | proxy req/s | ratio | direct p99 ms | proxy p99 ms | p99 ratio | errors |')
console.log('|---|---|---|---|---|---|---|---|')
for (const row of rows) console.log(row)
console.log(`\nservice resident memory: ${startMemory.toFixed(0)} MiB after start, peak ${peak.toFixed(0)} MiB during the run`)

service.child.kill('SIGTERM')
await service.exited
upstream.kill()
rmSync(dir, { recursive: true, force: true })
