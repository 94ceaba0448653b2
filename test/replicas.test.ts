// Two replicas of the compiled executable on one PostgreSQL database, as behind a balancer:
// revocations and settings written on one are honoured by the other within 1 s, the audit trail
// is one, a replica killed mid-write loses no acknowledged write, and a database outage gives
// enveloped 503s, no hang, no crash, and recovery without a restart, with no secret in any log.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KratosFixture, type FixtureIdentity } from './support/kratos.ts'
import { startPostgres, type PostgresCluster } from './support/postgres.ts'
import { randomKey } from './support/service.ts'
import { runToEnd, startProcess, type ServiceProcess } from './support/process.ts'
import { RecordingUpstream } from './support/upstream.ts'
import { leakProblems, markSecret, markSensitive, throwFindings } from './support/leaks.ts'
import { signSessionCookie, type Role } from '../src/session/cookie.ts'
import { decodeBase64Key } from '../src/config.ts'
import { within } from './support/eventually.ts'

const BASE_URL = 'https://admin.example.test'
const dir = mkdtempSync(join(tmpdir(), 'admin-dashboard-replicas-'))
const binary = join(dir, 'admin-dashboard')
const signingKey = randomKey()
const encryptionKey = randomKey()
const API_KEY = `replica-api-key-${randomKey(12)}`
const secrets: string[] = [signingKey, encryptionKey, API_KEY]
let pg: PostgresCluster
let kratos: KratosFixture
let upstream: RecordingUpstream
let admin: FixtureIdentity
let viewer: FixtureIdentity
let env: Record<string, string | undefined>
let a: ServiceProcess
let b: ServiceProcess
/** Every process started here, for the log check at the end. */
const processes: ServiceProcess[] = []

function cookieFor(identity: FixtureIdentity, role: Role, sid: string): string {
  const iat = Math.floor(Date.now() / 1000) - 5
  const value = signSessionCookie(decodeBase64Key(signingKey)!, { v: 1, sid, sub: identity.id, email: `${sid}@example.test`, role, iat, iatMs: iat * 1000, exp: iat + 3600 })
  markSecret(value)
  secrets.push(value)
  return `admin-session=${value}`
}

async function start(): Promise<ServiceProcess> {
  const service = await startProcess([binary], env, dir)
  processes.push(service)
  return service
}

const status = async (service: ServiceProcess, cookie: string) => (await service.fetch('/api/auth/session', { headers: { cookie } })).status

function post(service: ServiceProcess, path: string, cookie: string, body: unknown, signal?: AbortSignal) {
  return service.fetch(path, {
    method: 'POST',
    headers: { cookie, origin: BASE_URL, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  })
}

let adminCookie: string

beforeAll(async () => {
  const [cluster, build] = await Promise.all([
    startPostgres(),
    runToEnd(['bun', 'build.ts'], { OUTFILE: binary, HOME: process.env.HOME }, { cwd: join(import.meta.dir, '..') }),
  ])
  pg = cluster
  if (build.code !== 0) throw new Error(`build failed: ${build.stderr}`)
  secrets.push(pg.password)
  kratos = new KratosFixture().start()
  admin = kratos.addIdentity({ email: 'replica.admin@example.test', role: 'admin' })
  viewer = kratos.addIdentity({ email: 'replica.viewer@example.test', role: 'viewer' })
  upstream = new RecordingUpstream()
  markSecret(signingKey, encryptionKey, API_KEY, pg.password)
  markSensitive(admin.id, viewer.id, kratos.url)
  env = {
    SESSION_SIGNING_KEY: signingKey,
    ENCRYPTION_KEY: encryptionKey,
    DATABASE_URL: await pg.createDatabase(),
    IDP_ADMIN_URL: kratos.url,
    OAUTH_ADMIN_URL: upstream.url,
    BASE_URL,
    OAUTH_ISSUER_URL: 'https://issuer.example.test',
    OAUTH_CLIENT_ID: 'admin-dashboard',
    LOG_LEVEL: 'info',
    HOME: process.env.HOME,
  }
  // Both at once on an empty database: the migrations are applied once, under the lock.
  ;[a, b] = await Promise.all([start(), start()])
  adminCookie = cookieFor(admin, 'admin', 'replica-admin')
}, 180_000)

afterAll(async () => {
  for (const service of processes) {
    service.child.kill('SIGKILL')
    await service.exited
  }
  await kratos?.stop()
  upstream?.stop()
  await pg?.destroy()
  rmSync(dir, { recursive: true, force: true })
  // The lines the processes wrote as they stopped, after the last test's check.
  await throwFindings()
})

test('both replicas say they run on PostgreSQL', () => {
  for (const service of [a, b]) expect(service.stdout()).toContain('"database":"postgres"')
})

test('a logout on A: B refuses the cookie within 1 s', async () => {
  const cookie = cookieFor(viewer, 'viewer', 'replica-logout')
  expect(await status(a, cookie)).toBe(200)
  expect(await status(b, cookie)).toBe(200)
  const logout = await a.fetch('/api/auth/logout', { method: 'POST', headers: { cookie, origin: BASE_URL } })
  expect(logout.status).toBe(204)
  expect(await status(a, cookie)).toBe(401)
  const took = await within(1000, async () => (await status(b, cookie)) === 401)
  expect(took).not.toBeNull()
})

test('an administrator’s revocation on B: A refuses within 1 s, the administrator is untouched', async () => {
  const cookie = cookieFor(viewer, 'viewer', 'replica-revoke')
  expect(await status(a, cookie)).toBe(200)
  const revoke = await post(b, '/api/security/sessions/revoke', adminCookie, { identity_id: viewer.id })
  expect(revoke.status).toBe(204)
  expect(await status(b, cookie)).toBe(401)
  expect(await within(1000, async () => (await status(a, cookie)) === 401)).not.toBeNull()
  expect(await status(a, adminCookie)).toBe(200)
  expect(await status(b, adminCookie)).toBe(200)
})

test('an API key set on A: B’s next proxied call carries it within 1 s, and a changed key too', async () => {
  const callThroughB = async () => {
    const response = await b.fetch('/api/oauth-admin/admin/clients', { headers: { cookie: adminCookie } })
    expect(response.status).toBe(200)
    await response.body?.cancel()
    return upstream.last().headers.authorization ?? null
  }
  // B has looked the key up (and cached that there is none) before A sets it.
  expect(await callThroughB()).toBeNull()
  expect((await post(a, '/api/settings', adminCookie, { key: 'proxy.oauth-admin.api_key', value: API_KEY, encrypted: true })).status).toBe(201)
  expect(await within(1000, async () => (await callThroughB()) === `Bearer ${API_KEY}`)).not.toBeNull()
  const next = `${API_KEY}-rotated`
  secrets.push(next)
  markSecret(next)
  expect((await post(a, '/api/settings', adminCookie, { key: 'proxy.oauth-admin.api_key', value: next, encrypted: true })).status).toBe(200)
  expect(await within(1000, async () => (await callThroughB()) === `Bearer ${next}`)).not.toBeNull()
})

test('an audit event written on either replica is listed by both', async () => {
  for (const service of [a, b]) {
    const response = await service.fetch('/api/security/audit?limit=200', { headers: { cookie: adminCookie } })
    const { events } = (await response.json()) as { events: { action: string; actor: string | null; target: string | null }[] }
    expect(events.some((e) => e.action === 'logout')).toBe(true) // written by A
    expect(events.some((e) => e.action === 'sessions_revoke' && e.target === viewer.id)).toBe(true) // written by B
    expect(events.filter((e) => e.action === 'settings_write' && e.target === 'proxy.oauth-admin.api_key')).toHaveLength(2) // A
  }
})

test('kill -9 of one replica during concurrent settings writes on both: every acknowledged write is there and decrypts; the other keeps serving', async () => {
  const acknowledged = new Map<string, { value: string; encrypted: boolean }>()
  let stop = false
  const writer = async (service: ServiceProcess, name: string) => {
    for (let n = 0; !stop; n++) {
      const key = `replica.${name}.n${n}`
      const value = `value ${name}/${n} ${randomKey(6)}`
      markSecret(value)
      const encrypted = n % 2 === 0
      try {
        const response = await post(service, '/api/settings', adminCookie, { key, value, encrypted })
        if (response.status === 201) acknowledged.set(key, { value, encrypted })
        else await response.body?.cancel()
      } catch {
        return // that replica is gone
      }
    }
  }
  const writers = [0, 1, 2, 3].flatMap((i) => [writer(a, `a${i}`), writer(b, `b${i}`)])
  await Bun.sleep(300 + Math.random() * 400)
  a.child.kill('SIGKILL')
  await a.exited
  await Bun.sleep(300) // B's writers go on alone
  stop = true
  await Promise.all(writers)
  expect([...acknowledged.keys()].some((key) => key.startsWith('replica.a'))).toBe(true)
  expect([...acknowledged.keys()].some((key) => key.startsWith('replica.b'))).toBe(true)

  const listed = (await (await b.fetch('/api/settings', { headers: { cookie: adminCookie } })).json()) as { key: string; value: string; encrypted: boolean }[]
  const byKey = new Map(listed.map((s) => [s.key, s]))
  expect([...acknowledged.keys()].filter((key) => !byKey.has(key))).toEqual([])
  const wrong: string[] = []
  for (const [key, { value, encrypted }] of acknowledged) {
    expect(byKey.get(key)!.encrypted).toBe(encrypted)
    if (!encrypted) {
      if (byKey.get(key)!.value !== value) wrong.push(key)
      continue
    }
    const read = await b.fetch(`/api/settings/${key}?decrypt=true`, { headers: { cookie: adminCookie } })
    if (((await read.json()) as { value: string }).value !== value) wrong.push(key)
  }
  expect(wrong).toEqual([])
  expect((await post(b, '/api/settings', adminCookie, { key: 'replica.after-kill', value: 'still here' })).status).toBe(201)
  a = await start()
  expect(await status(a, adminCookie)).toBe(200)
}, 60_000)

test('PostgreSQL stopped for 5 s under load: enveloped 503s, no hang, no crash, recovery without a restart, no secret in any log line', async () => {
  const outcomes: { status: number; ms: number; body: string; contentType: string | null }[] = []
  const hung: string[] = []
  let stop = false
  const load = async (service: ServiceProcess, i: number) => {
    for (let n = 0; !stop; n++) {
      const started = performance.now()
      const signal = AbortSignal.timeout(8000)
      const kind = n % 3
      try {
        const response =
          kind === 0
            ? await service.fetch('/api/auth/session', { headers: { cookie: adminCookie }, signal })
            : kind === 1
              ? await service.fetch('/api/settings', { headers: { cookie: adminCookie }, signal })
              : await post(service, '/api/settings', adminCookie, { key: `outage.${i}.${n % 20}`, value: `v${n}`, encrypted: true }, signal)
        const body = await response.text()
        outcomes.push({ status: response.status, ms: performance.now() - started, body, contentType: response.headers.get('content-type') })
      } catch (error) {
        hung.push(`${(error as Error).name} after ${Math.round(performance.now() - started)} ms`)
      }
      await Bun.sleep(10)
    }
  }
  const workers = [0, 1, 2].flatMap((i) => [load(a, i), load(b, i + 10)])
  await Bun.sleep(500)
  await pg.stop()
  let failClosed: { a: number; b: number } | null = null
  try {
    await Bun.sleep(1500)
    // Past the 1 s window the gate cannot vouch for any session: it refuses rather than guesses.
    failClosed = { a: await status(a, adminCookie), b: await status(b, adminCookie) }
    await Bun.sleep(3500)
  } finally {
    await pg.start()
  }
  const recovered = await within(15_000, async () => {
    const answers = await Promise.all([status(a, adminCookie), status(b, adminCookie)])
    return answers.every((s) => s === 200)
  })
  stop = true
  await Promise.all(workers)

  expect(failClosed).toEqual({ a: 503, b: 503 })
  expect(recovered).not.toBeNull()
  expect(hung).toEqual([])
  expect(Math.max(...outcomes.map((o) => o.ms))).toBeLessThan(7000)
  const statuses = new Set(outcomes.map((o) => o.status))
  expect([...statuses].every((s) => s === 200 || s === 201 || s === 503)).toBe(true)
  const unavailable = outcomes.filter((o) => o.status === 503)
  expect(unavailable.length).toBeGreaterThan(0)
  for (const o of unavailable) {
    expect(leakProblems(o.status, o.contentType, o.body)).toEqual([])
    expect(JSON.parse(o.body).error).toBe('database_unavailable')
  }
  // No crash: the same processes serve on, reads and writes alike.
  for (const service of [a, b]) {
    expect(service.child.exitCode).toBeNull()
    expect((await post(service, '/api/settings', adminCookie, { key: 'outage.after', value: 'ok' })).status).toBeLessThan(300)
    expect((await service.fetch('/api/settings', { headers: { cookie: adminCookie } })).status).toBe(200)
    expect(service.stdout()).toContain('"event":"database_unreachable"')
    expect(service.stdout()).toContain('"event":"database_reachable"')
  }
  // No secret in any log line of any replica, whatever happened.
  for (const service of processes) {
    const logs = service.stdout() + service.stderr()
    for (const secret of secrets) expect(logs.includes(secret)).toBe(false)
  }
}, 90_000)
