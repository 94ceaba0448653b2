// Server CPU per request: what one request costs the process that answers it, read from
// /proc/<pid>/stat around each wrk run. On two shared cores the req/s ratios of hotpaths.ts move by
// about 0.1 between runs; CPU time per request moves far less, so small changes show here first.
// The service runs from source (NODE_ENV=production, request log on, stdout to a file) beside bare
// Elysia or nginx, alternating A/B/B/A…; the medians are printed.
//
//   bun bench/cpu.ts [path] [--cookie] [--rounds 6] [--seconds 3] [--against <checkout>]
//   (path defaults to /api/health; a /api/idp/ path is compared with nginx, any other with bare
//   Elysia; with --against, with the service from another checkout of the source, e.g. a
//   `git worktree` of main, to measure a change)

import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startNginx } from './nginx.ts'
import { runWrk } from './wrk.ts'
import { adminCookie, freePort, listeningPort, serviceEnvironment, waitFor200 } from './processes.ts'

const args = process.argv.slice(2)
const option = (name: string, fallback: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback)
const path = args.find((arg) => arg.startsWith('/')) ?? '/api/health'
const withCookie = args.includes('--cookie')
const rounds = option('--rounds', 6)
const seconds = option('--seconds', 3)
const ROOT = join(import.meta.dir, '..')
const against = args.includes('--against') ? args[args.indexOf('--against') + 1]! : null
const dir = mkdtempSync(join(tmpdir(), 'bench-cpu-'))

interface Target {
  name: string
  /** The process whose CPU time is read (nginx: its one worker). */
  pid: number
  url: string
  headers?: Record<string, string>
  stop(): void | Promise<void>
}

/** user + system time of a process in µs (the kernel counts in clock ticks of 10 ms). */
function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10_000
}

const upstream = Bun.spawn(['bun', join(import.meta.dir, 'fixtures/upstream-server.ts')], { stdout: 'pipe', stderr: 'inherit' })
const upstreamPort = await listeningPort(upstream.stdout)
const signingKey = crypto.getRandomValues(new Uint8Array(32))

async function startService(name: string, root: string, logName: string): Promise<Target> {
  const port = freePort()
  const service = Bun.spawn(['bun', join(root, 'src/main.ts'), 'serve'], {
    cwd: dir,
    env: { ...serviceEnvironment({ dir, port, upstreamPort, signingKey }), NODE_ENV: 'production' },
    stdout: openSync(join(dir, `${logName}.log`), 'a'),
    stderr: 'inherit',
  })
  await waitFor200(`http://127.0.0.1:${port}/api/health`)
  return {
    name,
    pid: service.pid,
    url: `http://127.0.0.1:${port}${path}`,
    headers: withCookie ? { cookie: adminCookie(signingKey) } : undefined,
    stop: () => service.kill(),
  }
}
const ours = await startService('ours', ROOT, 'service')

async function reference(): Promise<Target> {
  if (against) return startService(`ours from ${against}`, against, 'against')
  if (path.startsWith('/api/idp/')) {
    const nginx = await startNginx(join(dir, 'nginx'), freePort(), upstreamPort)
    const master = Number(readFileSync(join(dir, 'nginx', 'nginx.pid'), 'utf8'))
    const worker = Number(Bun.spawnSync(['pgrep', '-P', String(master)]).stdout.toString().trim().split('\n')[0])
    return { name: 'nginx', pid: worker, url: `${nginx.url}${path}`, stop: () => nginx.stop() }
  }
  const bare = Bun.spawn(['bun', join(import.meta.dir, 'fixtures/bare-elysia.ts')], { stdout: 'pipe', stderr: 'inherit', env: { ...process.env, NODE_ENV: 'production' } })
  const barePort = await listeningPort(bare.stdout)
  return { name: 'bare Elysia', pid: bare.pid, url: `http://127.0.0.1:${barePort}${path}`, stop: () => bare.kill() }
}
const targets = [ours, await reference()]

// Warm-up: the first seconds of a Bun process run cold code.
for (const target of targets) await runWrk(target.url, { connections: 32, seconds: 2, headers: target.headers })

const samples = new Map<string, { rps: number[]; micros: number[] }>(targets.map((target) => [target.name, { rps: [], micros: [] }]))
for (let round = 0; round < rounds; round++) {
  for (const target of round % 2 === 0 ? targets : [...targets].reverse()) {
    const before = cpuMicros(target.pid)
    const result = await runWrk(target.url, { connections: 32, seconds, headers: target.headers })
    if (result.errors > 0) throw new Error(`${target.name}: ${result.errors} errors on ${target.url}`)
    const entry = samples.get(target.name)!
    entry.rps.push(result.requestsPerSecond)
    entry.micros.push((cpuMicros(target.pid) - before) / result.requests)
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
console.log(`server CPU per request, ${path}${withCookie ? ' with an admin cookie' : ''}, wrk -t1 -c32, ${rounds} × ${seconds} s alternating\n`)
console.log('| process | req/s (median) | CPU µs per request (median) | runs |')
console.log('|---|---|---|---|')
for (const [name, entry] of samples) {
  console.log(`| ${name} | ${median(entry.rps).toFixed(0)} | ${median(entry.micros).toFixed(2)} | ${entry.micros.map((value) => value.toFixed(1)).join(' ')} |`)
}

for (const target of targets) await target.stop()
upstream.kill()
rmSync(dir, { recursive: true, force: true })
