// Values the service cannot use are refused at start, by `check-config` and `serve` alike: exit 1,
// a message naming the variable, nothing of the value (passwords above all) and no stack trace.

import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomKey } from './support/service.ts'
import { runToEnd } from './support/process.ts'

const MAIN = join(import.meta.dir, '..', 'src', 'main.ts')
const dir = mkdtempSync(join(tmpdir(), 'admin-dashboard-refusals-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const PASSWORD = 'Pw7x9qSecretPart'

async function expectRefused(env: Record<string, string>, variable: string, secrets: string[]) {
  for (const command of ['check-config', 'serve']) {
    const result = await runToEnd(['bun', MAIN, command], {
      SESSION_SIGNING_KEY: randomKey(),
      DATABASE_PATH: join(dir, 'unused.db'),
      PORT: '0',
      HOME: process.env.HOME,
      ...env,
    })
    const output = result.stdout + result.stderr
    expect({ command, code: result.code }).toEqual({ command, code: 1 })
    expect(result.stderr).toContain(variable)
    expect(result.stderr).toStartWith('admin-dashboard: ')
    for (const secret of secrets) expect(output).not.toContain(secret)
    // No stack trace: no source excerpt, no "at …" frames, no runtime banner.
    expect(output).not.toMatch(/^\s+at |\bthrow\b|Error:|Bun v\d/m)
  }
}

describe('DATABASE_URL values the driver cannot use', () => {
  const cases: [string, string][] = [
    ['an unknown sslmode', `postgres://admin:${PASSWORD}@127.0.0.1:5432/db?sslmode=bogus`],
    ['a non-numeric connect_timeout', `postgres://admin:${PASSWORD}@127.0.0.1:5432/db?connect_timeout=abc`],
    ['a non-numeric max', `postgres://admin:${PASSWORD}@127.0.0.1:5432/db?max=abc`],
    ['a negative idle_timeout', `postgres://admin:${PASSWORD}@127.0.0.1:5432/db?idle_timeout=-1`],
    ['a non-numeric max_lifetime', `postgres://admin:${PASSWORD}@127.0.0.1:5432/db?max_lifetime=abc`],
    ['port 0', `postgres://admin:${PASSWORD}@127.0.0.1:0/db`],
    ['a port parameter out of range', `postgres://admin:${PASSWORD}@127.0.0.1/db?port=70000`],
    ['an unknown channel_binding', `postgres://admin:${PASSWORD}@127.0.0.1/db?channel_binding=always`],
    ['an unencoded % in the password', `postgres://admin:${PASSWORD}%ss@127.0.0.1/db`],
  ]
  for (const [name, url] of cases) {
    test(`${name} is refused by check-config and serve, naming DATABASE_URL, without the password or a stack trace`, async () => {
      await expectRefused({ DATABASE_URL: url }, 'DATABASE_URL', [PASSWORD, 'bogus', 'abc', 'always'])
    }, 30_000)
  }

  test('an option the driver refuses from its PG* environment (PGSSLMODE) is a clean refusal too, not a crash', async () => {
    await expectRefused({ DATABASE_URL: `postgres://admin:${PASSWORD}@127.0.0.1:1/db`, PGSSLMODE: 'bogus' }, 'DATABASE_URL', [PASSWORD, 'bogus'])
  }, 30_000)
})

describe('HTTP_PROXY', () => {
  for (const [name, value] of [
    ['not a URL', `garbage ${PASSWORD}`],
    ['a SOCKS proxy', `socks5://proxyuser:${PASSWORD}@proxy.internal:1080`],
    ['an http proxy with a query', `http://proxyuser:${PASSWORD}@proxy.internal:3128/?x=1`],
  ]) {
    test(`${name} is refused by check-config and serve, naming HTTP_PROXY, never echoing the value`, async () => {
      await expectRefused({ HTTP_PROXY: value! }, 'HTTP_PROXY', [PASSWORD, 'proxyuser', 'proxy.internal', 'garbage'])
    }, 30_000)
  }
})

describe('check-config notes what would keep anyone from signing in', () => {
  const login = { OAUTH_ISSUER_URL: 'https://hydra.example.com', OAUTH_CLIENT_ID: 'admin-dashboard', IDP_ADMIN_URL: 'http://127.0.0.1:4434' }
  const check = (baseUrl: string, extra: Record<string, string> = {}) =>
    runToEnd(['bun', MAIN, 'check-config'], { SESSION_SIGNING_KEY: randomKey(), DATABASE_PATH: join(dir, 'absent.db'), HOME: process.env.HOME, BASE_URL: baseUrl, ...login, ...extra })
  const NOTE = /note: BASE_URL is a plain-HTTP address: the sign-in's cookies are Secure, and a browser keeps none from such an address \(but localhost\)/

  test('a plain-HTTP BASE_URL other than localhost, outside development: valid, with a note saying why sign-in would fail and what to do', async () => {
    const plain = await check('http://admin.example.com')
    expect(plain.code).toBe(0)
    expect(plain.stdout).toMatch(NOTE)
    expect(plain.stdout).toContain('serve it over https')
    for (const fine of [await check('https://admin.example.com'), await check('http://127.0.0.1:3000'), await check('http://localhost:3000'), await check('http://admin.example.com', { NODE_ENV: 'development' })]) {
      expect(fine.code).toBe(0)
      expect(fine.stdout).not.toMatch(NOTE)
    }
  }, 60_000)
})
