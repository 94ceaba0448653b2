// The hot paths beside their references, in one run on this machine: the compiled executable with
// the request log on (stdout to a file), bare Elysia, and nginx from Debian, alternating A/B/B/A.
// Prints the ratios, resident memory after a soak and while streaming, and start-up time.
//
//   bun bench/hotpaths.ts        (BENCH_SECONDS per side and row, default 8, run as two A/B/B/A blocks; BENCH_SOAK_SECONDS, default 60)

import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runWrk, type WrkResult } from './wrk.ts'
import { startNginx } from './nginx.ts'
import { adminCookie, freePort, listeningPort, memoryMiB, serviceEnvironment, waitFor200 } from './processes.ts'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8)
const SOAK_SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 60)
const WARM_UP_SECONDS = 2
const ROOT = join(import.meta.dir, '..')
const dir = mkdtempSync(join(tmpdir(), 'bench-hotpaths-'))

// The executable, built as an operator builds it.
const binary = join(dir, 'admin-dashboard')
const build = Bun.spawnSync(['bun', 'build.ts'], { cwd: ROOT, env: { ...process.env, OUTFILE: binary }, stdout: 'ignore', stderr: 'pipe' })
if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr}`)

const upstream = Bun.spawn(['bun', join(import.meta.dir, 'fixtures/upstream-server.ts')], { stdout: 'pipe', stderr: 'inherit' })
const upstreamPort = await listeningPort(upstream.stdout)
const bare = Bun.spawn(['bun', join(import.meta.dir, 'fixtures/bare-elysia.ts')], { stdout: 'pipe', stderr: 'inherit', env: { ...process.env, NODE_ENV: 'production' } })
const bareUrl = `http://127.0.0.1:${await listeningPort(bare.stdout)}`
const nginx = await startNginx(join(dir, 'nginx'), freePort(), upstreamPort)

const signingKey = crypto.getRandomValues(new Uint8Array(32))
const servicePort = freePort()
const serviceEnv = serviceEnvironment({ dir, port: servicePort, upstreamPort, signingKey })
const logFile = join(dir, 'service.log')

// Start-up: exec to the first 200, five times, median.
const startups: number[] = []
for (let i = 0; i < 5; i++) {
  const started = performance.now()
  const child = Bun.spawn([binary, 'serve'], { env: serviceEnv, stdout: openSync(logFile, 'a'), stderr: 'inherit' })
  await waitFor200(`http://127.0.0.1:${servicePort}/api/health`)
  startups.push(performance.now() - started)
  child.kill('SIGTERM')
  await child.exited
}
startups.sort((a, b) => a - b)

const service = Bun.spawn([binary, 'serve'], { env: serviceEnv, stdout: openSync(logFile, 'a'), stderr: 'inherit' })
const serviceUrl = `http://127.0.0.1:${servicePort}`
await waitFor200(`${serviceUrl}/api/health`)
const afterStart = memoryMiB(service.pid, 'VmRSS')
const cookie = adminCookie(signingKey)

interface Row {
  label: string
  ours: string
  reference: string
  referenceName: string
  headers?: Record<string, string>
  connections?: number
}
const rows: Row[] = [
  { label: 'GET /api/health (public)', ours: `${serviceUrl}/api/health`, reference: `${bareUrl}/api/health`, referenceName: 'bare Elysia' },
  { label: 'GET /api/auth/session, valid cookie', ours: `${serviceUrl}/api/auth/session`, reference: `${bareUrl}/api/auth/session`, referenceName: 'bare Elysia', headers: { cookie } },
  { label: 'GET /api/idp/small (proxy, small JSON)', ours: `${serviceUrl}/api/idp/small`, reference: `${nginx.url}/api/idp/small`, referenceName: 'nginx' },
  { label: 'GET /api/idp-admin/small, admin cookie', ours: `${serviceUrl}/api/idp-admin/small`, reference: `${nginx.url}/api/idp/small`, referenceName: 'nginx', headers: { cookie } },
  { label: '1 MiB download through the proxy', ours: `${serviceUrl}/api/idp/1mb`, reference: `${nginx.url}/api/idp/1mb`, referenceName: 'nginx' },
]

// Every row answers 200 on both sides before anything is measured: a row of errors (a refused
// session, a misrouted path) would measure how fast a refusal is made, not the path.
for (const row of rows) {
  for (const url of [row.ours, row.reference]) {
    const answer = await fetch(url, { headers: row.headers })
    await answer.arrayBuffer()
    if (answer.status !== 200) throw new Error(`${row.label}: ${url} answered ${answer.status}, not 200`)
  }
}

const mean = (results: WrkResult[], key: keyof WrkResult) => results.reduce((sum, r) => sum + r[key], 0) / results.length
const lines: string[] = []
for (const row of rows) {
  const options = { connections: row.connections ?? 32, seconds: SECONDS, headers: row.headers }
  // Warm-up: the first seconds of a Bun process on a path run cold code (interpreter and baseline
  // JIT tiers); both sides get the same before anything is counted.
  await runWrk(row.reference, { ...options, seconds: WARM_UP_SECONDS })
  await runWrk(row.ours, { ...options, seconds: WARM_UP_SECONDS })
  // A/B/B/A twice, each run half as long: the machine's drift during a row falls on both sides.
  const half = { ...options, seconds: SECONDS / 2 }
  const referenceRuns: WrkResult[] = []
  const ourRuns: WrkResult[] = []
  for (let block = 0; block < 2; block++) {
    referenceRuns.push(await runWrk(row.reference, half))
    ourRuns.push(await runWrk(row.ours, half))
    ourRuns.push(await runWrk(row.ours, half))
    referenceRuns.push(await runWrk(row.reference, half))
  }
  const reference = mean(referenceRuns, 'requestsPerSecond')
  const ours = mean(ourRuns, 'requestsPerSecond')
  const errors = [...referenceRuns, ...ourRuns].reduce((sum, r) => sum + r.errors, 0)
  // Each run of ours beside the reference's run next to it: how far the ratio moved within the row.
  const pairRatios = ourRuns.map((run, i) => run.requestsPerSecond / referenceRuns[i]!.requestsPerSecond)
  lines.push(
    `| ${row.label} | ${ours.toFixed(0)} | ${row.referenceName}: ${reference.toFixed(0)} | **${(ours / reference).toFixed(2)}** | ${Math.min(...pairRatios).toFixed(2)}–${Math.max(...pairRatios).toFixed(2)} | ${mean(ourRuns, 'p99ms').toFixed(2)} / ${mean(referenceRuns, 'p99ms').toFixed(2)} | ${errors} |`,
  )
}
const afterRuns = memoryMiB(service.pid, 'VmRSS')

// Memory: small JSON through the proxy at c256 for the soak, then 1 MiB bodies at c64.
const soak = await runWrk(`${serviceUrl}/api/idp/small`, { connections: 256, seconds: SOAK_SECONDS })
const afterSoak = memoryMiB(service.pid, 'VmRSS')
const peakBeforeLarge = memoryMiB(service.pid, 'VmHWM')
const large = await runWrk(`${serviceUrl}/api/idp/1mb`, { connections: 64, seconds: SECONDS })
const peak = memoryMiB(service.pid, 'VmHWM')

console.log(`\nhot paths: compiled executable (request log on, stdout to a file) vs references, wrk -t1 -c32, each row warmed for ${WARM_UP_SECONDS} s, then A/B/B/A twice at ${SECONDS / 2} s a run, means\n`)
console.log('| path | ours req/s | reference req/s | ratio | ratio of each pair | p99 ms ours / ref | errors |')
console.log('|---|---|---|---|---|---|---|')
for (const line of lines) console.log(line)
console.log(`\nresident memory: ${afterStart.toFixed(0)} MiB after start, ${afterRuns.toFixed(0)} MiB after the runs`)
console.log(`  after ${SOAK_SECONDS} s at c256 small JSON through the proxy: ${afterSoak.toFixed(0)} MiB (peak so far ${peakBeforeLarge.toFixed(0)} MiB; ${soak.requestsPerSecond.toFixed(0)} req/s, ${soak.errors} errors)`)
console.log(`  peak with 1 MiB bodies at c64: ${peak.toFixed(0)} MiB (${large.requestsPerSecond.toFixed(0)} req/s, ${large.errors} errors)`)
console.log(`start-up, exec to first 200: median ${startups[2]!.toFixed(0)} ms (min ${startups[0]!.toFixed(0)}, max ${startups[4]!.toFixed(0)})`)

service.kill('SIGTERM')
await service.exited
const logged = readFileSync(logFile, 'utf8').split('\n').filter((line) => line.includes('"event":"request"')).length
console.log(`request log: ${logged} lines written`)
await nginx.stop()
upstream.kill()
bare.kill()
rmSync(dir, { recursive: true, force: true })
