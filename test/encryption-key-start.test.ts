// A process started with an ENCRYPTION_KEY that is not the database's: `serve` and `check-config`
// try the keys on every stored encrypted setting. None opens → refused (exit 1, the variables
// named, nothing of a key or a value); some do not open → served, with one warning that counts
// and names them (setting keys are not secret; values never appear).

import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runSettingsCommand, type CliIo } from '../src/cli/settings.ts'
import type { Environment } from '../src/config.ts'
import { markSecret } from './support/leaks.ts'
import { randomKey } from './support/service.ts'
import { runToEnd, startProcess } from './support/process.ts'

const MAIN = join(import.meta.dir, '..', 'src', 'main.ts')
const dir = mkdtempSync(join(tmpdir(), 'admin-dashboard-key-start-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const signingKey = randomKey()
const rightKey = randomKey()
const otherKey = randomKey()
const thirdKey = randomKey()
const VALUES = ['smtp-password-value-1', 'captcha-secret-value-2', 'api-key-value-3']
markSecret(signingKey, rightKey, otherKey, thirdKey, ...VALUES)
const secrets = [signingKey, rightKey, otherKey, thirdKey, ...VALUES]

let databases = 0
/**
 * A new database file, its settings written with the given keys: [setting key, value, encryption
 * key or null for plain]. A value under another key than the first is written as during a rotation,
 * with the first key as ENCRYPTION_KEY_PREVIOUS (`set --encrypted` with a key that opens none of
 * the stored values is refused).
 */
async function databaseWith(settings: [string, string, string | null][]): Promise<string> {
  const path = join(dir, `db-${++databases}.sqlite`)
  const first = settings.find(([, , encryptionKey]) => encryptionKey !== null)?.[2]
  for (const [key, value, encryptionKey] of settings) {
    const keys = encryptionKey ? { ENCRYPTION_KEY: encryptionKey, ...(first && first !== encryptionKey ? { ENCRYPTION_KEY_PREVIOUS: first } : {}) } : {}
    const env: Environment = { SESSION_SIGNING_KEY: signingKey, DATABASE_PATH: path, ...keys }
    let err = ''
    const io: CliIo = { env, readStdin: async () => value, out: () => {}, err: (text) => void (err += text) }
    const status = await runSettingsCommand(['set', key, ...(encryptionKey ? ['--encrypted'] : [])], io)
    if (status !== 0) throw new Error(`seeding ${key} failed: ${err}`)
  }
  return path
}

function environment(path: string, keys: { ENCRYPTION_KEY?: string; ENCRYPTION_KEY_PREVIOUS?: string }) {
  return { SESSION_SIGNING_KEY: signingKey, DATABASE_PATH: path, HOME: process.env.HOME, ...keys }
}

const noSecret = (output: string) => {
  for (const secret of secrets) expect(output).not.toContain(secret)
}
const noStackTrace = (output: string) => expect(output).not.toMatch(/^\s+at |\bthrow\b|Error:|Bun v\d/m)

describe('the keys open none of the stored encrypted values', () => {
  const cases: [string, { ENCRYPTION_KEY?: string; ENCRYPTION_KEY_PREVIOUS?: string }][] = [
    ['another ENCRYPTION_KEY', { ENCRYPTION_KEY: otherKey }],
    ['another ENCRYPTION_KEY and another ENCRYPTION_KEY_PREVIOUS', { ENCRYPTION_KEY: otherKey, ENCRYPTION_KEY_PREVIOUS: thirdKey }],
    ['only an ENCRYPTION_KEY_PREVIOUS, another one', { ENCRYPTION_KEY_PREVIOUS: otherKey }],
  ]
  for (const [name, keys] of cases) {
    test(`${name}: check-config and serve exit 1 naming ENCRYPTION_KEY and ENCRYPTION_KEY_PREVIOUS, never a key or a value; serve never listens`, async () => {
      const path = await databaseWith([
        ['smtp.password', VALUES[0]!, rightKey],
        ['captcha.secret', VALUES[1]!, rightKey],
        ['site.title', 'Console', null],
      ])
      for (const command of ['check-config', 'serve']) {
        const result = await runToEnd(['bun', MAIN, command], { ...environment(path, keys), PORT: '0' })
        expect({ command, code: result.code }).toEqual({ command, code: 1 })
        expect(result.stderr).toStartWith('admin-dashboard: ')
        expect(result.stderr).toContain('ENCRYPTION_KEY')
        expect(result.stderr).toContain('ENCRYPTION_KEY_PREVIOUS')
        expect(result.stderr).toContain('2 encrypted settings')
        expect(result.stdout).not.toContain('"event":"listening"')
        noSecret(result.stdout + result.stderr)
        noStackTrace(result.stdout + result.stderr)
      }
      // Nothing was written by the refused start: the values still open with the right key.
      const started = await startProcess(['bun', MAIN, 'serve'], environment(path, { ENCRYPTION_KEY: rightKey }))
      started.child.kill('SIGTERM')
      expect(await started.exited).toBe(0)
      expect(started.stdout()).not.toContain('encrypted_settings_unreadable')
    }, 30_000)
  }
})

describe('the keys open the stored values', () => {
  test('the right key as ENCRYPTION_KEY, or as ENCRYPTION_KEY_PREVIOUS beside a new one (a rotation): served, no warning', async () => {
    const path = await databaseWith([['smtp.password', VALUES[0]!, rightKey]])
    for (const keys of [{ ENCRYPTION_KEY: rightKey }, { ENCRYPTION_KEY: otherKey, ENCRYPTION_KEY_PREVIOUS: rightKey }, { ENCRYPTION_KEY: rightKey, ENCRYPTION_KEY_PREVIOUS: otherKey }]) {
      expect((await runToEnd(['bun', MAIN, 'check-config'], environment(path, keys))).code).toBe(0)
      const service = await startProcess(['bun', MAIN, 'serve'], environment(path, keys))
      service.child.kill('SIGTERM')
      expect(await service.exited).toBe(0)
      expect(service.stdout()).not.toContain('encrypted_settings_')
    }
  }, 30_000)

  test('no encrypted value stored yet: any key starts (there is nothing to check it against)', async () => {
    const path = await databaseWith([['site.title', 'Console', null]])
    const service = await startProcess(['bun', MAIN, 'serve'], environment(path, { ENCRYPTION_KEY: otherKey }))
    service.child.kill('SIGTERM')
    expect(await service.exited).toBe(0)
  }, 30_000)
})

describe('some stored values do not open', () => {
  test('serve starts and logs one warning with the count and the setting keys, never a value; check-config says the same and exits 0', async () => {
    const path = await databaseWith([
      ['smtp.password', VALUES[0]!, rightKey],
      ['captcha.secret', VALUES[1]!, otherKey],
      ['proxy.idp-admin.api_key', VALUES[2]!, rightKey],
    ])
    const service = await startProcess(['bun', MAIN, 'serve'], environment(path, { ENCRYPTION_KEY: rightKey }))
    service.child.kill('SIGTERM')
    expect(await service.exited).toBe(0)
    const warnings = service
      .stdout()
      .split('\n')
      .filter((line) => line.includes('"event":"encrypted_settings_unreadable"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatchObject({ level: 'warn', count: 1, encrypted: 3, keys: 'captcha.secret' })
    noSecret(service.stdout() + service.stderr())

    const checked = await runToEnd(['bun', MAIN, 'check-config'], environment(path, { ENCRYPTION_KEY: rightKey }))
    expect(checked.code).toBe(0)
    expect(checked.stdout).toContain('note: 1 of 3 encrypted settings open with neither ENCRYPTION_KEY nor ENCRYPTION_KEY_PREVIOUS: captcha.secret\n')
    noSecret(checked.stdout + checked.stderr)
  }, 30_000)

  test('without any key the service starts as decided (encryption unavailable), with one warning that counts the encrypted values', async () => {
    const path = await databaseWith([
      ['smtp.password', VALUES[0]!, rightKey],
      ['captcha.secret', VALUES[1]!, rightKey],
    ])
    const service = await startProcess(['bun', MAIN, 'serve'], environment(path, {}))
    service.child.kill('SIGTERM')
    expect(await service.exited).toBe(0)
    const warning = service.stdout().split('\n').find((line) => line.includes('"event":"encrypted_settings_unavailable"'))
    expect(JSON.parse(warning!)).toMatchObject({ level: 'warn', encrypted: 2, missing: 'ENCRYPTION_KEY' })
    noSecret(service.stdout() + service.stderr())
  }, 30_000)
})
