// Two replicas (`bun src/main.ts serve`) on one PostgreSQL database: a replica started with another
// ENCRYPTION_KEY is refused instead of joining, and the README's rotation for several replicas
// works phase by phase, with rolling restarts in between: every value written at any step reads
// on both replicas at every step.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KratosFixture, type FixtureIdentity } from './support/kratos.ts'
import { usePostgres } from './support/use-postgres.ts'
import { randomKey } from './support/service.ts'
import { inspectOutput, runToEnd, startProcess, type ServiceProcess } from './support/process.ts'
import { markSecret, markSensitive, throwFindings } from './support/leaks.ts'
import { signSessionCookie } from '../src/session/cookie.ts'
import { decodeBase64Key } from '../src/config.ts'

const MAIN = join(import.meta.dir, '..', 'src', 'main.ts')
const BASE_URL = 'https://admin.example.test'
const dir = mkdtempSync(join(tmpdir(), 'admin-dashboard-key-rotation-'))
const signingKey = randomKey()
const oldKey = randomKey()
const newKey = randomKey()
const secrets: string[] = [signingKey, oldKey, newKey]
let kratos: KratosFixture
let admin: FixtureIdentity
let adminCookie: string
/** Every process started here, for the log check at the end. */
const processes: ServiceProcess[] = []

type Keys = { ENCRYPTION_KEY: string; ENCRYPTION_KEY_PREVIOUS?: string }

// Registered before usePostgres(): afterAll hooks run in that order, and the processes are
// stopped while their database is still there.
afterAll(async () => {
  for (const service of processes) {
    if (service.child.exitCode === null) service.child.kill('SIGKILL')
    await service.exited
  }
  await kratos?.stop()
  rmSync(dir, { recursive: true, force: true })
  // The lines the processes wrote as they stopped, after the last test's check.
  await throwFindings()
})

const pg = usePostgres()

beforeAll(async () => {
  secrets.push(pg.password)
  kratos = new KratosFixture().start()
  admin = kratos.addIdentity({ email: 'rotation.admin@example.test', role: 'admin' })
  const iat = Math.floor(Date.now() / 1000) - 5
  const cookie = signSessionCookie(decodeBase64Key(signingKey)!, { v: 1, sid: 'rotation-admin', sub: admin.id, email: 'rotation.admin@example.test', role: 'admin', iat, iatMs: iat * 1000, exp: iat + 3600 })
  adminCookie = `admin-session=${cookie}`
  secrets.push(cookie)
  markSecret(signingKey, oldKey, newKey, pg.password, cookie)
  markSensitive(admin.id, kratos.url)
})

function environment(databaseUrl: string, keys: Keys): Record<string, string | undefined> {
  return {
    SESSION_SIGNING_KEY: signingKey,
    DATABASE_URL: databaseUrl,
    IDP_ADMIN_URL: kratos.url,
    BASE_URL,
    OAUTH_ISSUER_URL: 'https://issuer.example.test',
    OAUTH_CLIENT_ID: 'admin-dashboard',
    HOME: process.env.HOME,
    ...keys,
  }
}

async function start(databaseUrl: string, keys: Keys): Promise<ServiceProcess> {
  const service = await startProcess(['bun', MAIN, 'serve'], environment(databaseUrl, keys), dir)
  processes.push(service)
  return service
}

async function stop(service: ServiceProcess): Promise<void> {
  service.child.kill('SIGTERM')
  expect(await service.exited).toBe(0)
}

/** `serve` expected to end by itself (refused); one that serves instead is ended after 15 s. */
async function serveExpectingRefusal(env: Record<string, string | undefined>) {
  const child = Bun.spawn(['bun', MAIN, 'serve'], { env: { PATH: process.env.PATH, PORT: '0', ...env } as Record<string, string>, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
  const deadline = setTimeout(() => child.kill('SIGTERM'), 15_000)
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  clearTimeout(deadline)
  inspectOutput(stdout, 'service process stdout')
  inspectOutput(stderr, 'service process stderr')
  return { stdout, stderr, code }
}

/** Every value written so far, by setting key. */
const written = new Map<string, string>()

async function write(service: ServiceProcess, key: string): Promise<void> {
  const value = `${key} value ${randomKey(9)}`
  secrets.push(value)
  markSecret(value)
  const response = await service.fetch('/api/settings', {
    method: 'POST',
    headers: { cookie: adminCookie, origin: BASE_URL, 'content-type': 'application/json' },
    body: JSON.stringify({ key, value, encrypted: true }),
  })
  expect(response.status).toBe(201)
  written.set(key, value)
}

/** The written settings this replica cannot read back (decrypted), by key. */
async function unreadable(service: ServiceProcess): Promise<string[]> {
  const failed: string[] = []
  for (const [key, value] of written) {
    const response = await service.fetch(`/api/settings/${key}?decrypt=true`, { headers: { cookie: adminCookie } })
    const body = (await response.json()) as { value?: string }
    if (response.status !== 200 || body.value !== value) failed.push(key)
  }
  return failed
}

async function bothReadEverything(a: ServiceProcess, b: ServiceProcess): Promise<void> {
  expect({ a: await unreadable(a), b: await unreadable(b) }).toEqual({ a: [], b: [] })
}

describe('a replica started with another ENCRYPTION_KEY', () => {
  test('is refused, naming the variables and neither key; the running replica is untouched and nothing was written', async () => {
    const url = await pg.createDatabase()
    const a = await start(url, { ENCRYPTION_KEY: oldKey })
    const value = `replica-secret-${randomKey(9)}`
    secrets.push(value)
    markSecret(value)
    const wrongKey = randomKey()
    secrets.push(wrongKey)
    markSecret(wrongKey)
    const created = await a.fetch('/api/settings', {
      method: 'POST',
      headers: { cookie: adminCookie, origin: BASE_URL, 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'smtp.password', value, encrypted: true }),
    })
    expect(created.status).toBe(201)
    const before = await (await a.fetch('/api/settings', { headers: { cookie: adminCookie } })).text()

    const refused = await serveExpectingRefusal(environment(url, { ENCRYPTION_KEY: wrongKey }))
    expect(refused.code).toBe(1)
    expect(refused.stderr).toStartWith('admin-dashboard: ENCRYPTION_KEY opens none of the 1 encrypted setting in the database (ENCRYPTION_KEY_PREVIOUS is not set)')
    expect(refused.stdout).not.toContain('"event":"listening"')
    for (const secret of secrets) expect(refused.stdout + refused.stderr).not.toContain(secret)

    expect(await (await a.fetch('/api/settings', { headers: { cookie: adminCookie } })).text()).toBe(before)
    const read = await a.fetch('/api/settings/smtp.password?decrypt=true', { headers: { cookie: adminCookie } })
    expect(((await read.json()) as { value: string }).value).toBe(value)
    await stop(a)
  }, 60_000)
})

describe('rotating the key with several replicas, as the README says', () => {
  test('new key as ENCRYPTION_KEY_PREVIOUS everywhere, then swapped everywhere, then reencrypt, then the previous key removed: both replicas read every value at every step', async () => {
    const url = await pg.createDatabase()
    // Before: both on the old key.
    let a = await start(url, { ENCRYPTION_KEY: oldKey })
    let b = await start(url, { ENCRYPTION_KEY: oldKey })
    await write(a, 'before.a')
    await write(b, 'before.b')
    await bothReadEverything(a, b)

    // 1. Every replica learns the new key as a decrypt key, one after the other; all still write under the old.
    await stop(a)
    a = await start(url, { ENCRYPTION_KEY: oldKey, ENCRYPTION_KEY_PREVIOUS: newKey })
    await write(a, 'phase1.a')
    await write(b, 'phase1.b')
    await bothReadEverything(a, b)
    await stop(b)
    b = await start(url, { ENCRYPTION_KEY: oldKey, ENCRYPTION_KEY_PREVIOUS: newKey })
    await bothReadEverything(a, b)

    // 2. Swapped, one after the other: A writes under the new key while B, not yet restarted,
    //    still writes under the old one; each reads the other's through ENCRYPTION_KEY_PREVIOUS.
    await stop(a)
    a = await start(url, { ENCRYPTION_KEY: newKey, ENCRYPTION_KEY_PREVIOUS: oldKey })
    await write(a, 'phase2.a')
    await write(b, 'phase2.b')
    await bothReadEverything(a, b)

    // Why phase 1 comes first: a replica that knows only the old key (the single-instance order,
    // restarted one at a time) cannot read what A now writes. It starts, and says so.
    const oldOnly = await start(url, { ENCRYPTION_KEY: oldKey })
    expect(await unreadable(oldOnly)).toEqual(['phase2.a'])
    const warning = oldOnly.stdout().split('\n').find((line) => line.includes('"event":"encrypted_settings_unreadable"'))
    expect(warning).toBeDefined()
    expect(JSON.parse(warning!)).toMatchObject({ level: 'warn', count: 1, encrypted: written.size, keys: 'phase2.a' })
    await stop(oldOnly)

    await stop(b)
    b = await start(url, { ENCRYPTION_KEY: newKey, ENCRYPTION_KEY_PREVIOUS: oldKey })
    await write(b, 'phase2.b2')
    await bothReadEverything(a, b)

    // 3. Everything re-encrypted under the new key, while both serve.
    const reencrypted = await runToEnd(['bun', MAIN, 'settings', 'reencrypt'], environment(url, { ENCRYPTION_KEY: newKey, ENCRYPTION_KEY_PREVIOUS: oldKey }))
    expect(reencrypted).toMatchObject({ code: 0, stdout: `re-encrypted ${written.size} values under ENCRYPTION_KEY\n` })
    await bothReadEverything(a, b)

    // 4. The previous key removed, one after the other.
    await stop(a)
    a = await start(url, { ENCRYPTION_KEY: newKey })
    await write(b, 'phase4.b')
    await bothReadEverything(a, b)
    await stop(b)
    b = await start(url, { ENCRYPTION_KEY: newKey })
    await write(a, 'after.a')
    await bothReadEverything(a, b)
    for (const service of [a, b]) expect(service.stdout()).not.toContain('encrypted_settings_unreadable')

    // Nothing is left under the old key: alone, it opens none of the values and is refused.
    const oldAlone = await runToEnd(['bun', MAIN, 'check-config'], environment(url, { ENCRYPTION_KEY: oldKey }))
    expect(oldAlone.code).toBe(1)
    expect(oldAlone.stderr).toContain(`ENCRYPTION_KEY opens none of the ${written.size} encrypted settings`)
    await stop(a)
    await stop(b)

    // No key, no value, no cookie in any replica's output.
    for (const service of processes) {
      const output = service.stdout() + service.stderr()
      for (const secret of secrets) expect(output.includes(secret)).toBe(false)
    }
  }, 120_000)
})
