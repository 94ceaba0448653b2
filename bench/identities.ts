// What GET /api/identities adds per page over calling the identity store directly: p50 and p99
// at 1 and 32 concurrent clients, on loopback only.
//
//   bun bench/identities.ts            (BENCH_SECONDS=5 per run by default)
//
// The Kratos-like fixture runs in a child process so it does not share the service's event loop.
// Load comes from wrk when it is installed, else from a bounded fetch loop in this process (which
// then shares the service's event loop and overstates both numbers).

import { KratosFixture } from '../test/support/kratos.ts'
import { startService } from '../test/support/service.ts'
import { runWrk } from './wrk.ts'

const STORE_SIZE = 300
const PAGE_SIZE = 25
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const CONCURRENCY = [1, 32]
const LOOP_REQUESTS_PER_CLIENT = 2000

interface Latency {
  p50: number
  p99: number
  requests: number
}

if (process.argv[2] === 'fixture') {
  const kratos = new KratosFixture().start()
  const admin = kratos.addIdentity({ email: 'bench.admin@example.test', role: 'admin' })
  for (let n = 1; n < STORE_SIZE; n++) kratos.addIdentity({ email: `person.${n}@example.test`, role: 'viewer' })
  process.stdout.write(JSON.stringify({ url: kratos.url, adminId: admin.id }) + '\n')
  // Lives until the parent closes our stdin.
  for await (const _ of Bun.stdin.stream()) void _
  await kratos.stop()
  process.exit(0)
}

async function startFixture() {
  const child = Bun.spawn([process.execPath, import.meta.path, 'fixture'], { stdin: 'pipe', stdout: 'pipe', stderr: 'inherit' })
  const reader = child.stdout.getReader()
  let text = ''
  while (!text.includes('\n')) {
    const { value, done } = await reader.read()
    if (done) throw new Error('fixture exited early')
    text += new TextDecoder().decode(value)
  }
  const { url, adminId } = JSON.parse(text.slice(0, text.indexOf('\n'))) as { url: string; adminId: string }
  return {
    url,
    adminId,
    async stop() {
      child.stdin.end()
      await child.exited
    },
  }
}

function wrkAvailable(): boolean {
  return Bun.which('wrk') !== null
}

async function measureWithWrk(url: string, headers: Record<string, string>, clients: number): Promise<Latency> {
  const result = await runWrk(url, { connections: clients, threads: Math.min(clients, 4), seconds: SECONDS, headers })
  if (result.errors > 0) throw new Error(`${result.errors} failed answers during the run`)
  return { p50: result.p50ms * 1000, p99: result.p99ms * 1000, requests: result.requests }
}

async function measureWithLoop(url: string, headers: Record<string, string>, clients: number): Promise<Latency> {
  const samples: number[] = []
  const deadline = performance.now() + SECONDS * 1000
  const client = async () => {
    for (let n = 0; n < LOOP_REQUESTS_PER_CLIENT && performance.now() < deadline; n++) {
      const started = performance.now()
      const response = await fetch(url, { headers })
      await response.arrayBuffer()
      if (response.status !== 200) throw new Error(`status ${response.status}`)
      samples.push((performance.now() - started) * 1000)
    }
  }
  await Promise.all(Array.from({ length: clients }, client))
  samples.sort((a, b) => a - b)
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!
  return { p50: at(0.5), p99: at(0.99), requests: samples.length }
}

const fixture = await startFixture()
const service = await startService({ env: { IDP_ADMIN_URL: fixture.url, LOG_LEVEL: 'error' } })
try {
  const cookie = `admin-session=${service.sign({ sub: fixture.adminId, role: 'admin', email: 'bench.admin@example.test' })}`
  const direct = `${fixture.url}/admin/identities?page_size=${PAGE_SIZE}`
  const viaService = `${service.url}/api/identities?page_size=${PAGE_SIZE}`
  const warm = await fetch(viaService, { headers: { cookie } })
  if (warm.status !== 200) throw new Error(`service answered ${warm.status}`)
  const body = (await warm.json()) as { identities: unknown[] }
  if (body.identities.length !== PAGE_SIZE) throw new Error('unexpected page')

  const measure = wrkAvailable() ? measureWithWrk : measureWithLoop
  const fmt = (micros: number) => `${(micros / 1000).toFixed(3)} ms`
  console.log(`GET /api/identities?page_size=${PAGE_SIZE} over a store of ${STORE_SIZE}; ${SECONDS}s per run; load from ${wrkAvailable() ? 'wrk' : 'an in-process fetch loop'}`)
  for (const clients of CONCURRENCY) {
    const store = await measure(direct, {}, clients)
    service.logLines.length = 0
    const proxied = await measure(viaService, { cookie }, clients)
    service.logLines.length = 0
    console.log(
      [
        `clients=${String(clients).padStart(2)}`,
        `store p50 ${fmt(store.p50)} p99 ${fmt(store.p99)} (${store.requests} req)`,
        `service p50 ${fmt(proxied.p50)} p99 ${fmt(proxied.p99)} (${proxied.requests} req)`,
        `added p50 ${fmt(proxied.p50 - store.p50)} p99 ${fmt(proxied.p99 - store.p99)}`,
      ].join(' | '),
    )
  }
} finally {
  await service.stop()
  await fixture.stop()
}
