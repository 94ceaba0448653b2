// A CPU profile of one hot path under load: the service from source with Bun's --cpu-prof, wrk
// against it, then the functions that took the most samples (self time), grouped by file.
//
//   bun bench/profile.ts /api/health [--cookie] [--seconds 5]

import { mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { runWrk } from './wrk.ts'
import { adminCookie, freePort, listeningPort, serviceEnvironment, waitFor200 } from './processes.ts'

const args = process.argv.slice(2)
const path = args.find((arg) => arg.startsWith('/')) ?? '/api/health'
const withCookie = args.includes('--cookie')
const seconds = args.includes('--seconds') ? Number(args[args.indexOf('--seconds') + 1]) : 5
const ROOT = join(import.meta.dir, '..')
const dir = mkdtempSync(join(tmpdir(), 'bench-profile-'))

const upstream = Bun.spawn(['bun', join(import.meta.dir, 'fixtures/upstream-server.ts')], { stdout: 'pipe', stderr: 'inherit' })
const upstreamPort = await listeningPort(upstream.stdout)
const signingKey = crypto.getRandomValues(new Uint8Array(32))
const port = freePort()
const service = Bun.spawn(['bun', '--cpu-prof', `--cpu-prof-dir=${dir}`, ...(process.env.PROFILE_INTERVAL_US ? ['--cpu-prof-interval', process.env.PROFILE_INTERVAL_US] : []), join(ROOT, 'src/main.ts'), 'serve'], {
  cwd: dir,
  // From source, so NODE_ENV is set here (the executable has it built in).
  env: { ...serviceEnvironment({ dir, port, upstreamPort, signingKey }), NODE_ENV: 'production' },
  stdout: openSync(join(dir, 'service.log'), 'a'),
  stderr: 'inherit',
})
const url = `http://127.0.0.1:${port}`
await waitFor200(`${url}/api/health`)
const cookie = adminCookie(signingKey)
const result = await runWrk(`${url}${path}`, { connections: 32, seconds, headers: withCookie ? { cookie } : undefined })
service.kill('SIGTERM')
await service.exited
upstream.kill()

interface Node {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}
const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'))
if (!file) throw new Error('no profile written')
const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { nodes: Node[]; samples: number[] }
const byNode = new Map(profile.nodes.map((node) => [node.id, node]))
const counts = new Map<string, number>()
for (const sample of profile.samples) {
  const frame = byNode.get(sample)!.callFrame
  const where = frame.url ? relative(ROOT, frame.url.replace(/^file:\/\//, '')) : '(native)'
  const key = `${frame.functionName || '(anonymous)'}  ${where}:${frame.lineNumber + 1}`
  counts.set(key, (counts.get(key) ?? 0) + 1)
}
const total = profile.samples.length
// Inclusive time: a sample counts for every distinct function on its stack.
const parent = new Map<number, number>()
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
const keyOf = (node: Node) => {
  const frame = node.callFrame
  const where = frame.url ? relative(ROOT, frame.url.replace(/^file:\/\//, '')) : '(native)'
  return `${frame.functionName || '(anonymous)'}  ${where}:${frame.lineNumber + 1}`
}
const inclusive = new Map<string, number>()
for (const sample of profile.samples) {
  const seen = new Set<string>()
  for (let id: number | undefined = sample; id !== undefined; id = parent.get(id)) seen.add(keyOf(byNode.get(id)!))
  for (const key of seen) inclusive.set(key, (inclusive.get(key) ?? 0) + 1)
}
console.log(`${path}: ${result.requestsPerSecond.toFixed(0)} req/s, ${result.errors} errors; ${total} samples`)
for (const [key, count] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 40))) {
  console.log(`${((100 * count) / total).toFixed(1).padStart(5)} %  ${key}`)
}
console.log('\ninclusive:')
for (const [key, count] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 40))) {
  console.log(`${((100 * count) / total).toFixed(1).padStart(5)} %  ${key}`)
}
rmSync(dir, { recursive: true, force: true })
