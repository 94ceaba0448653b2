// The geo database travels inside the compiled executable: run it alone in an empty directory
// (no node_modules, no database file beside it) and ask /api/geo.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KratosFixture } from './support/kratos.ts'
import { randomKey } from './support/service.ts'
import { runToEnd, startProcess } from './support/process.ts'
import { signSessionCookie } from '../src/session/cookie.ts'
import { decodeBase64Key } from '../src/config.ts'
import { markSecret, markSensitive } from './support/leaks.ts'

const dir = mkdtempSync(join(tmpdir(), 'admin-dashboard-geo-binary-'))
const bin = join(dir, 'bin')
const binary = join(bin, 'admin-dashboard')
const workdir = join(dir, 'work')

beforeAll(async () => {
  const build = await runToEnd(['bun', 'build.ts'], { OUTFILE: binary, HOME: process.env.HOME }, { cwd: join(import.meta.dir, '..') })
  if (build.code !== 0) throw new Error(`build failed: ${build.stderr}`)
  mkdirSync(workdir)
}, 120_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test('the compiled binary answers /api/geo from its embedded database, IPv4 and IPv6', async () => {
  expect(readdirSync(bin)).toEqual(['admin-dashboard'])
  const kratos = new KratosFixture().start()
  const viewer = kratos.addIdentity({ email: 'geo.bin@example.test', role: 'viewer' })
  const key = randomKey()
  markSecret(key)
  markSensitive(viewer.id, kratos.url)
  const service = await startProcess(
    [binary],
    {
      SESSION_SIGNING_KEY: key,
      DATABASE_PATH: join(dir, 'data', 'a.db'),
      IDP_ADMIN_URL: kratos.url,
      BASE_URL: 'https://admin.example.test',
      OAUTH_ISSUER_URL: 'https://issuer.example.test',
      OAUTH_CLIENT_ID: 'admin-dashboard',
    },
    workdir,
  )
  try {
    const now = Math.floor(Date.now() / 1000)
    const value = signSessionCookie(decodeBase64Key(key)!, { v: 1, sid: 'geo', sub: viewer.id, email: 'geo.bin@example.test', role: 'viewer', iat: now, exp: now + 600 })
    markSecret(value)
    const cookie = `admin-session=${value}`
    for (const [ip, country] of [['193.0.6.139', 'NL'], ['2001:200::1', 'JP']] as const) {
      const response = await service.fetch(`/api/geo?ip=${encodeURIComponent(ip)}`, { headers: { cookie } })
      expect(response.status).toBe(200)
      expect(await response.json()).toMatchObject({ ip, country })
    }
    const privateAddress = await service.fetch('/api/geo?ip=10.1.2.3', { headers: { cookie } })
    expect(privateAddress.status).toBe(404)
  } finally {
    service.child.kill('SIGKILL')
    await service.exited
    await kratos.stop()
  }
})
