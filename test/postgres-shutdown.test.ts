// SIGTERM to the service on PostgreSQL when the database's connections have stopped answering
// without breaking (half-open: a partition, a firewall that dropped the flows): the process stops
// within seconds, its last lines written, instead of waiting on a connection that will never
// answer until systemd kills it (TimeoutStopSec).

import { afterAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { usePostgres } from './support/use-postgres.ts'
import { startFreezableProxy, type FreezableProxy } from './support/freezable-proxy.ts'
import { inspectOutput, startProcess, type ServiceProcess } from './support/process.ts'
import { randomKey } from './support/service.ts'
import { markSecret, throwFindings } from './support/leaks.ts'
import { within } from './support/eventually.ts'

const MAIN = join(import.meta.dir, '..', 'src', 'main.ts')
const processes: ServiceProcess[] = []
const proxies: FreezableProxy[] = []

// Registered before usePostgres(): afterAll hooks run in that order, and nothing is left
// connected to the cluster when it is destroyed.
afterAll(async () => {
  for (const service of processes) {
    if (service.child.exitCode === null) service.child.kill('SIGKILL')
    await service.exited
  }
  for (const proxy of proxies) proxy.stop()
  // The lines the processes wrote as they stopped, after the last test's check.
  await throwFindings()
})

const pg = usePostgres()

/** The service as a process, on a new database reached through a freezable proxy. */
async function startBehindProxy(arm?: (proxy: FreezableProxy) => void): Promise<{ service: ServiceProcess; proxy: FreezableProxy }> {
  const url = new URL(await pg.createDatabase())
  const proxy = startFreezableProxy({ hostname: url.hostname, port: Number(url.port) })
  proxies.push(proxy)
  arm?.(proxy)
  url.port = String(proxy.port)
  markSecret(pg.password)
  const service = await startProcess(['bun', MAIN, 'serve'], {
    SESSION_SIGNING_KEY: randomKey(),
    ENCRYPTION_KEY: randomKey(),
    DATABASE_URL: url.href,
    BASE_URL: 'http://admin.test',
    OAUTH_ISSUER_URL: 'http://issuer.test',
    OAUTH_CLIENT_ID: 'admin-dashboard',
    LOG_LEVEL: 'info',
    HOME: process.env.HOME,
  })
  processes.push(service)
  return { service, proxy }
}

/** The exit code, or 'still running' when it has not exited within `ms`. */
const exitWithin = (service: ServiceProcess, ms: number) => Promise.race([service.exited, Bun.sleep(ms).then(() => 'still running' as const)])

const lines = (service: ServiceProcess) =>
  service
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { event: string; path?: string; status?: number })
const events = (service: ServiceProcess) => lines(service).map((line) => line.event)

test('every connection frozen, the LISTEN among them before it was acknowledged, a poll waiting on another: SIGTERM stops the process within 3 s, exit 0, "stopped" written', async () => {
  // The LISTEN goes out and its answer never comes back: the flow was dropped as it subscribed.
  const { service, proxy } = await startBehindProxy((proxy) => proxy.freezeOnSend('LISTEN "admin_dashboard_changes"', 1))
  expect((await service.fetch('/api/health')).status).toBe(200)
  // The LISTEN goes out on a connection of its own, which may not have sent it yet.
  expect(await within(5000, () => proxy.frozen() === 1)).not.toBeNull()
  // Then every connection, and every new one: a partition.
  expect(proxy.partition()).toBeGreaterThan(1)
  await Bun.sleep(300) // a poll is under way on the frozen connection
  const started = performance.now()
  service.child.kill('SIGTERM')
  expect(await exitWithin(service, 3000)).toBe(0)
  expect(performance.now() - started).toBeLessThan(3000)
  const seen = events(service)
  expect(seen.slice(seen.indexOf('stopping'))).toEqual(['stopping', 'stopped'])
}, 30_000)

test('every connection frozen while a request waits on one of them: it is answered 503 by its deadline, and the process exits 0 soon after, "stopped" written', async () => {
  const { service, proxy } = await startBehindProxy()
  expect((await service.fetch('/api/health')).status).toBe(200)
  expect(proxy.partition()).toBeGreaterThan(1)
  // Past the second in which the health check trusts the database's last answer, it asks again,
  // on a pooled connection, frozen now.
  await Bun.sleep(1100)
  const pending = service.fetch('/api/health').then((response) => response.status)
  await Bun.sleep(300)
  const started = performance.now()
  service.child.kill('SIGTERM')
  expect(await exitWithin(service, 8000)).toBe(0)
  expect(await pending).toBe(503)
  // The request's deadline (2 s for the health check's ping), then at most a moment.
  expect(performance.now() - started).toBeLessThan(4000)
  // Between them, what the frozen connections made it say (reopened, unreachable).
  const seen = lines(service)
  const stopping = seen.findIndex((line) => line.event === 'stopping')
  expect(stopping).toBeGreaterThan(-1)
  expect(seen.slice(stopping).filter((line) => line.event === 'request').map((line) => [line.path, line.status])).toEqual([['/api/health', 503]])
  expect(seen.at(-1)?.event).toBe('stopped')
}, 30_000)

test('SIGTERM while the start waits on a database that does not answer: the start ends, exit 0, "stopping" and "stopped" written', async () => {
  const url = new URL(await pg.createDatabase())
  const proxy = startFreezableProxy({ hostname: url.hostname, port: Number(url.port) })
  proxies.push(proxy)
  // Every connection frozen from the first: the start waits on its first query.
  proxy.partition()
  url.port = String(proxy.port)
  const key = randomKey()
  markSecret(pg.password, key)
  const child = Bun.spawn(['bun', MAIN, 'serve'], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: '0',
      SESSION_SIGNING_KEY: key,
      DATABASE_URL: url.href,
      BASE_URL: 'http://admin.test',
      OAUTH_ISSUER_URL: 'http://issuer.test',
      OAUTH_CLIENT_ID: 'admin-dashboard',
      LOG_LEVEL: 'info',
    } as Record<string, string>,
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const output = new Response(child.stdout).text()
  const errors = new Response(child.stderr).text()
  try {
    // Its first connection is held at the partition: the start is waiting on the database, with
    // the stop signals already handled (they are before the database is opened).
    expect(await within(10_000, () => proxy.frozen() > 0)).not.toBeNull()
    await Bun.sleep(200)
    expect(child.exitCode).toBeNull()
    const started = performance.now()
    child.kill('SIGTERM')
    const exited = await Promise.race([child.exited, Bun.sleep(5000).then(() => 'still running' as const)])
    expect(exited).toBe(0)
    expect(performance.now() - started).toBeLessThan(4000)
    const events = (await output)
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { event: string; during?: string })
    expect(events.filter((line) => line.event === 'stopping' || line.event === 'stopped' || line.event === 'listening')).toEqual([
      expect.objectContaining({ event: 'stopping', during: 'start' }),
      expect.objectContaining({ event: 'stopped' }),
    ])
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL')
    await child.exited
    inspectOutput(await output, 'service process stdout')
    inspectOutput(await errors, 'service process stderr')
  }
}, 30_000)

test('PostgreSQL stopped under the service and started again: the outage is told by our JSON lines only, with nothing of the database client on stderr', async () => {
  const url = await pg.createDatabase()
  markSecret(pg.password)
  const service = await startProcess(['bun', MAIN, 'serve'], { SESSION_SIGNING_KEY: randomKey(), DATABASE_URL: url, HOST: '127.0.0.1' })
  processes.push(service)
  await pg.stop()
  try {
    // Long enough for the client to try its LISTEN again several times (about every second).
    expect(await within(10_000, () => service.stdout().includes('"event":"database_unreachable"'), 50)).not.toBeNull()
    await Bun.sleep(4000)
  } finally {
    await pg.start()
  }
  expect(await within(10_000, () => service.stdout().includes('"event":"database_reachable"'), 50)).not.toBeNull()
  service.child.kill('SIGTERM')
  expect(await service.exited).toBe(0)
  expect(service.stderr()).toBe('')
  for (const line of service.stdout().trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow()
}, 40_000)
