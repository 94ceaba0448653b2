// Two processes of the service on one database file: a logout or a revocation on one is honoured
// by the other within 1 s, without a restart; so is a setting (an API key) written by the other
// process or by the command line.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KratosFixture, type FixtureIdentity } from './support/kratos.ts'
import { randomKey } from './support/service.ts'
import { runToEnd, startProcess, type ServiceProcess } from './support/process.ts'
import { RecordingUpstream } from './support/upstream.ts'
import { markSecret, markSensitive, throwFindings } from './support/leaks.ts'
import { signSessionCookie, type Role } from '../src/session/cookie.ts'
import { decodeBase64Key } from '../src/config.ts'
import { within } from './support/eventually.ts'

const BASE_URL = 'https://admin.example.test'
const dir = mkdtempSync(join(tmpdir(), 'admin-dashboard-shared-db-'))
const key = randomKey()
let kratos: KratosFixture
let admin: FixtureIdentity
let viewer: FixtureIdentity
let a: ServiceProcess
let b: ServiceProcess
let upstream: RecordingUpstream
let env: Record<string, string | undefined>
const encryptionKey = randomKey()

function cookieFor(identity: FixtureIdentity, role: Role, sid: string): string {
  const now = Date.now()
  const iat = Math.floor(now / 1000) - 5
  const value = signSessionCookie(decodeBase64Key(key)!, { v: 1, sid, sub: identity.id, email: `${sid}@example.test`, role, iat, iatMs: iat * 1000, exp: iat + 600 })
  markSecret(value)
  markSensitive(`${sid}@example.test`)
  return `admin-session=${value}`
}

const status = async (service: ServiceProcess, cookie: string) =>
  (await service.fetch('/api/auth/session', { headers: { cookie } })).status

beforeAll(async () => {
  kratos = new KratosFixture().start()
  admin = kratos.addIdentity({ email: 'shared.admin@example.test', role: 'admin' })
  viewer = kratos.addIdentity({ email: 'shared.viewer@example.test', role: 'viewer' })
  upstream = new RecordingUpstream()
  markSecret(key, encryptionKey)
  markSensitive(admin.id, viewer.id, kratos.url)
  env = {
    SESSION_SIGNING_KEY: key,
    ENCRYPTION_KEY: encryptionKey,
    OAUTH_ADMIN_URL: upstream.url,
    DATABASE_PATH: join(dir, 'shared.db'),
    IDP_ADMIN_URL: kratos.url,
    BASE_URL,
    OAUTH_ISSUER_URL: 'https://issuer.example.test',
    OAUTH_CLIENT_ID: 'admin-dashboard',
    HOME: process.env.HOME,
  }
  const main = ['bun', join(import.meta.dir, '..', 'src', 'main.ts')]
  a = await startProcess(main, env, dir)
  b = await startProcess(main, env, dir)
}, 30_000)

afterAll(async () => {
  for (const service of [a, b]) {
    if (!service) continue
    service.child.kill('SIGKILL')
    await service.exited
  }
  await kratos.stop()
  upstream.stop()
  rmSync(dir, { recursive: true, force: true })
  // The lines the processes wrote as they stopped, after the last test's check.
  await throwFindings()
})

test('a logout on one process is honoured by the other within 1 s', async () => {
  const cookie = cookieFor(viewer, 'viewer', 'logout-shared')
  expect(await status(a, cookie)).toBe(200)
  expect(await status(b, cookie)).toBe(200)
  const logout = await a.fetch('/api/auth/logout', { method: 'POST', headers: { cookie, origin: BASE_URL } })
  expect(logout.status).toBe(204)
  expect(await status(a, cookie)).toBe(401)
  expect(await within(1000, async () => (await status(b, cookie)) === 401, 25)).not.toBeNull()
})

test('an administrator’s revocation on one process is honoured by the other within 1 s', async () => {
  const cookie = cookieFor(viewer, 'viewer', 'revoke-shared')
  const adminCookie = cookieFor(admin, 'admin', 'admin-shared')
  expect(await status(a, cookie)).toBe(200)
  expect(await status(b, cookie)).toBe(200)
  const revoke = await b.fetch('/api/security/sessions/revoke', {
    method: 'POST',
    headers: { cookie: adminCookie, origin: BASE_URL, 'content-type': 'application/json' },
    body: JSON.stringify({ identity_id: viewer.id }),
  })
  expect(revoke.status).toBe(204)
  expect(await status(b, cookie)).toBe(401)
  expect(await within(1000, async () => (await status(a, cookie)) === 401, 25)).not.toBeNull()
  // The administrator's own session is untouched on both.
  expect(await status(a, adminCookie)).toBe(200)
  expect(await status(b, adminCookie)).toBe(200)
})

test('an API key written by one process, then by the command line, is carried by the other’s next call within 1 s', async () => {
  const adminCookie = cookieFor(admin, 'admin', 'admin-settings')
  const callThroughB = async () => {
    const response = await b.fetch('/api/oauth-admin/admin/clients', { headers: { cookie: adminCookie } })
    expect(response.status).toBe(200)
    await response.body?.cancel()
    return upstream.last().headers.authorization ?? null
  }
  // B has looked the key up, and cached that there is none, before A writes it.
  expect(await callThroughB()).toBeNull()
  const viaHttp = `shared-file-key-${randomKey(9)}`
  const viaCli = `shared-cli-key-${randomKey(9)}`
  markSecret(viaHttp, viaCli)
  const write = await a.fetch('/api/settings', {
    method: 'POST',
    headers: { cookie: adminCookie, origin: BASE_URL, 'content-type': 'application/json' },
    body: JSON.stringify({ key: 'proxy.oauth-admin.api_key', value: viaHttp, encrypted: true }),
  })
  expect(write.status).toBe(201)
  expect(await within(1000, async () => (await callThroughB()) === `Bearer ${viaHttp}`, 25)).not.toBeNull()
  const cli = await runToEnd(['bun', join(import.meta.dir, '..', 'src', 'main.ts'), 'settings', 'set', 'proxy.oauth-admin.api_key', '--encrypted'], env, { stdin: viaCli })
  expect(cli.code).toBe(0)
  expect(await within(1000, async () => (await callThroughB()) === `Bearer ${viaCli}`, 25)).not.toBeNull()
})
