// The ciphertext format (decisions §7), its failure modes, and key rotation through the CLI.
// OWASP ASVS 11.3.3 (authenticated encryption) and 11.3.4 (no nonce reuse).

import { afterAll, describe, expect, test } from 'bun:test'
import { createCipheriv, hkdfSync } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SettingsCipher, UNBOUND_AAD } from '../src/settings/cipher.ts'
import { ApiError } from '../src/http/errors.ts'
import { runSettingsCommand, type CliIo } from '../src/cli/settings.ts'
import { decodeBase64Key, type Environment } from '../src/config.ts'
import { markSecret } from './support/leaks.ts'
import { randomKey } from './support/service.ts'

const KEY_A = new Uint8Array(32).map((_, i) => i)
const KEY_B = new Uint8Array(32).map((_, i) => 255 - i)
const FIXED_IV = Buffer.from('000102030405060708090a0b', 'hex')

describe('known answer', () => {
  // Computed here from the documented recipe alone, with node:crypto, not with the module under test.
  function independent(ikm: Uint8Array, iv: Buffer, aad: string, plaintext: string): string {
    const key = Buffer.from(hkdfSync('sha256', ikm, 'admin-dashboard/settings-encryption', 'admin-dashboard settings v1', 32))
    const cipher = createCipheriv('aes-256-gcm', key, iv)
    cipher.setAAD(Buffer.from(aad, 'utf8'))
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()])
    return `v1.${iv.toString('base64url')}.${body.toString('base64url')}`
  }

  const cipher = new SettingsCipher(KEY_A, null, { randomIv: () => FIXED_IV })

  test('a setting value matches the recipe: HKDF-SHA256 key, AES-256-GCM, AAD "setting:" + key', () => {
    const expected = independent(KEY_A, FIXED_IV, 'setting:smtp.password', 'correct horse battery staple')
    expect(cipher.encryptSetting('smtp.password', 'correct horse battery staple')).toBe(expected)
    // Pinned (also reproduced with Python's `cryptography` package), so a change of the format
    // or the derivation cannot pass unnoticed.
    expect(expected).toBe('v1.AAECAwQFBgcICQoL.anDqK4ezTzAD2-eVaGOe8T6lVSOaCvTjNYQRMVnClVMhYYykvnMUgwcS8tw')
    expect(cipher.decryptSetting('smtp.password', expected)).toBe('correct horse battery staple')
  })

  test('POST /api/encrypt output matches the recipe with the fixed AAD', () => {
    expect(cipher.encryptUnbound('hello')).toBe(independent(KEY_A, FIXED_IV, UNBOUND_AAD, 'hello'))
  })

  test('empty and non-ASCII values round-trip', () => {
    const random = new SettingsCipher(KEY_A, null)
    for (const value of ['', 'é', '🔑 ключ', 'x'.repeat(65536)]) {
      expect(random.decryptSetting('k', random.encryptSetting('k', value))).toBe(value)
    }
  })
})

describe('what must not decrypt', () => {
  const cipher = new SettingsCipher(KEY_A, null)
  const good = cipher.encryptSetting('captcha.secret', 'the captcha secret')
  const [version, iv, body] = good.split('.') as [string, string, string]
  const flip = (text: string, at: number) => text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1)

  const cases: [string, string][] = [
    ['a changed IV', `${version}.${flip(iv, 3)}.${body}`],
    ['a changed first ciphertext character', `${version}.${iv}.${flip(body, 0)}`],
    ['a changed tag', `${version}.${iv}.${flip(body, body.length - 2)}`],
    ['a truncated tag', `${version}.${iv}.${body.slice(0, -4)}`],
    ['only the tag', `${version}.${iv}.${body.slice(-22)}`],
    ['a body shorter than a tag', `${version}.${iv}.${body.slice(0, 10)}`],
    ['an empty body', `${version}.${iv}.`],
    ['a truncated IV', `${version}.${iv.slice(0, 12)}.${body}`],
    ['another version', `v2.${iv}.${body}`],
    ['no version', `${iv}.${body}`],
    ['an extra part', `${good}.x`],
    ['standard base64 signs', `${version}.${iv}.${body.replace(/[-_]/g, '+')}+/`],
    ['padding', `${version}.${iv}.${body}==`],
    ['a non-canonical last character', `${version}.${iv.slice(0, 15)}${iv[15] === 'L' ? 'M' : 'L'}.${body}`],
    ['an empty string', ''],
    ['plain text', 'the captcha secret'],
  ]
  for (const [name, text] of cases) {
    test(`${name} → failed`, () => {
      expect(cipher.tryDecrypt(text, 'setting:captcha.secret')).toEqual({ ok: false, reason: 'failed' })
    })
  }

  test('the untouched ciphertext still decrypts (the cases above are real changes)', () => {
    expect(cipher.decryptSetting('captcha.secret', good)).toBe('the captcha secret')
  })

  test('moved to another setting key → failed', () => {
    expect(cipher.tryDecrypt(good, 'setting:captcha.site_key')).toEqual({ ok: false, reason: 'failed' })
    expect(cipher.tryDecrypt(good, UNBOUND_AAD)).toEqual({ ok: false, reason: 'failed' })
  })

  test('a wrong key → decryption_failed', () => {
    const other = new SettingsCipher(KEY_B, null)
    expect(() => other.decryptSetting('captcha.secret', good)).toThrow(ApiError)
    try {
      other.decryptSetting('captcha.secret', good)
    } catch (error) {
      expect((error as ApiError).code).toBe('decryption_failed')
    }
  })

  test('no key at all → encryption_unavailable, for encrypting and decrypting', () => {
    const none = new SettingsCipher(null, null)
    expect(none.canEncrypt).toBe(false)
    expect(none.tryDecrypt(good, 'setting:captcha.secret')).toEqual({ ok: false, reason: 'unavailable' })
    let code: string | undefined
    try {
      none.encryptSetting('k', 'v')
    } catch (error) {
      code = (error as ApiError).code
    }
    expect(code).toBe('encryption_unavailable')
  })
})

describe('IVs', () => {
  test('10,000 encryptions of the same value under the same key never repeat an IV or a ciphertext', () => {
    const cipher = new SettingsCipher(KEY_A, null)
    const ivs = new Set<string>()
    const texts = new Set<string>()
    for (let i = 0; i < 10_000; i++) {
      const text = cipher.encryptSetting('same.key', 'same value')
      ivs.add(text.split('.')[1]!)
      texts.add(text)
    }
    expect(ivs.size).toBe(10_000)
    expect(texts.size).toBe(10_000)
  })
})

describe('key rotation', () => {
  test('the previous key is tried after the current one, and only for decrypting', () => {
    const old = new SettingsCipher(KEY_A, null).encryptSetting('k', 'rotating')
    const rotated = new SettingsCipher(KEY_B, KEY_A)
    expect(rotated.tryDecrypt(old, 'setting:k')).toEqual({ ok: true, plaintext: 'rotating', previousKey: true })
    const fresh = rotated.encryptSetting('k', 'rotating')
    expect(rotated.tryDecrypt(fresh, 'setting:k')).toEqual({ ok: true, plaintext: 'rotating', previousKey: false })
    expect(new SettingsCipher(KEY_A, null).tryDecrypt(fresh, 'setting:k').ok).toBe(false)
  })

  const dirs: string[] = []
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })

  function cli(env: Environment) {
    return async (args: string[], stdin = '') => {
      let out = ''
      let err = ''
      const io: CliIo = { env, readStdin: async () => stdin, out: (t) => void (out += t), err: (t) => void (err += t) }
      const status = await runSettingsCommand(args, io)
      return { status, out, err }
    }
  }

  test('ENCRYPTION_KEY_PREVIOUS, then `settings reencrypt`, then the previous key removed: everything still reads', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'admin-dashboard-rotation-'))
    dirs.push(dir)
    const signing = randomKey()
    const oldKey = randomKey()
    const newKey = randomKey()
    markSecret(signing, oldKey, newKey, 'rotated-secret-1', 'rotated-secret-2')
    const base = { SESSION_SIGNING_KEY: signing, DATABASE_PATH: join(dir, 'db.sqlite') }

    const before = cli({ ...base, ENCRYPTION_KEY: oldKey })
    expect((await before(['set', 'smtp.password', '--encrypted', '--category', 'mail'], 'rotated-secret-1\n')).status).toBe(0)
    expect((await before(['set', 'captcha.secret', '--encrypted'], 'rotated-secret-2')).status).toBe(0)
    expect((await before(['set', 'site.title'], 'Console\n')).status).toBe(0)
    const oldCiphertext = (await before(['get', 'smtp.password'])).out

    // Only the new key: the old values do not read, and reencrypt refuses and changes nothing.
    const newOnly = cli({ ...base, ENCRYPTION_KEY: newKey })
    const unreadable = await newOnly(['get', 'smtp.password', '--decrypt'])
    expect(unreadable.status).toBe(1)
    expect(unreadable.out).toBe('')
    const refused = await newOnly(['reencrypt'])
    expect(refused.status).toBe(1)
    expect(refused.err).toContain('smtp.password')
    expect(refused.err).toContain('captcha.secret')
    expect((await before(['get', 'smtp.password'])).out).toBe(oldCiphertext)

    // During rotation both keys are set: values read through the previous one.
    const during = cli({ ...base, ENCRYPTION_KEY: newKey, ENCRYPTION_KEY_PREVIOUS: oldKey })
    expect((await during(['get', 'smtp.password', '--decrypt'])).out).toBe('rotated-secret-1\n')
    const done = await during(['reencrypt'])
    expect(done).toEqual({ status: 0, out: 're-encrypted 2 values under ENCRYPTION_KEY\n', err: '' })

    // Previous key removed: everything reads with the new key alone; the old key opens nothing.
    expect((await newOnly(['get', 'smtp.password', '--decrypt'])).out).toBe('rotated-secret-1\n')
    expect((await newOnly(['get', 'captcha.secret', '--decrypt'])).out).toBe('rotated-secret-2\n')
    expect((await newOnly(['get', 'site.title'])).out).toBe('Console\n')
    expect((await before(['get', 'captcha.secret', '--decrypt'])).status).toBe(1)
    const listing = await newOnly(['list'])
    expect(listing.out).toContain('smtp.password')
    expect(listing.out).toContain('mail')
    expect(listing.out).not.toContain('rotated-secret')
    expect(listing.out).not.toContain('Console')
  })

  test('reencrypt without ENCRYPTION_KEY refuses', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'admin-dashboard-rotation-'))
    dirs.push(dir)
    const run = cli({ SESSION_SIGNING_KEY: randomKey(), DATABASE_PATH: join(dir, 'db.sqlite') })
    // A database that exists: on none, reencrypt would say there is no database.
    expect((await run(['set', 'site.title'], 'Console')).status).toBe(0)
    const result = await run(['reencrypt'])
    expect(result.status).toBe(1)
    expect(result.err).toContain('ENCRYPTION_KEY is not set')
  })

  test('the real binary entry point: set reads stdin and strips one trailing newline; usage errors exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'admin-dashboard-cli-'))
    dirs.push(dir)
    const env = { PATH: process.env.PATH ?? '', SESSION_SIGNING_KEY: randomKey(), ENCRYPTION_KEY: randomKey(), DATABASE_PATH: join(dir, 'db.sqlite') }
    markSecret(env.SESSION_SIGNING_KEY, env.ENCRYPTION_KEY)
    const run = (args: string[], stdin?: string) => {
      const child = Bun.spawnSync(['bun', 'src/main.ts', 'settings', ...args], { env, stdin: stdin === undefined ? 'ignore' : Buffer.from(stdin), cwd: join(import.meta.dir, '..') })
      return { status: child.exitCode, out: child.stdout.toString(), err: child.stderr.toString() }
    }
    // One newline is stripped, the next one kept: an API key cannot hold it (it goes in a header).
    const refused = run(['set', 'proxy.iam-idp-admin.api_key', '--encrypted'], 'bootstrap-key\n\n')
    expect(refused).toMatchObject({ status: 1, out: '' })
    expect(refused.err).toContain('An API key is sent in an HTTP header: it may hold only visible ASCII characters, without spaces or line breaks.')
    expect(run(['set', 'proxy.iam-idp-admin.api_key', '--encrypted'], 'bootstrap-key\n')).toMatchObject({ status: 0, out: 'created proxy.iam-idp-admin.api_key (encrypted)\n' })
    expect(run(['get', 'proxy.iam-idp-admin.api_key', '--decrypt']).out).toBe('bootstrap-key\n')
    expect(run(['set', 'mail.footer', '--encrypted'], 'two lines\n\n')).toMatchObject({ status: 0, out: 'created mail.footer (encrypted)\n' })
    expect(run(['get', 'mail.footer', '--decrypt']).out).toBe('two lines\n\n')
    expect(run(['get']).status).toBe(2)
    expect(run(['set', 'a', '--bogus'], '').status).toBe(2)
    expect(run(['delete', 'proxy.iam-idp-admin.api_key'])).toMatchObject({ status: 0, out: 'deleted proxy.iam-idp-admin.api_key\n' })
    expect(run(['delete', 'proxy.iam-idp-admin.api_key']).status).toBe(1)
    expect(decodeBase64Key(env.ENCRYPTION_KEY)).not.toBeNull()
  })
})
