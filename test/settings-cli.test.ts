// `admin-dashboard settings …` run as a process against a real SQLite file: failures are one plain
// line on stderr and exit 1, never a stack trace.

import { afterAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomKey } from './support/service.ts'
import { runToEnd } from './support/process.ts'

const MAIN = join(import.meta.dir, '..', 'src', 'main.ts')
const dir = mkdtempSync(join(tmpdir(), 'admin-dashboard-settings-cli-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const signingKey = randomKey()
const rightKey = randomKey()
const otherKey = randomKey()
const thirdKey = randomKey()
const SECRETS = ['smtp-secret-value-1', 'captcha-secret-value-2', 'new-secret-value-3']
const noSecret = (text: string) => {
  for (const secret of [signingKey, rightKey, otherKey, thirdKey, ...SECRETS]) expect(text).not.toContain(secret)
}

function cliFor(databasePath: string) {
  const env = { SESSION_SIGNING_KEY: randomKey(), ENCRYPTION_KEY: randomKey(), DATABASE_PATH: databasePath, HOME: process.env.HOME }
  return (args: string[], stdin?: string) => runToEnd(['bun', MAIN, 'settings', ...args], env, { stdin })
}

const noStackTrace = (text: string) => expect(text).not.toMatch(/^\s+at |SQLiteError|\bthrow\b|Bun v\d/m)

type Keys = { ENCRYPTION_KEY?: string; ENCRYPTION_KEY_PREVIOUS?: string }
function keyedCli(databasePath: string, keys: Keys) {
  const env = { SESSION_SIGNING_KEY: signingKey, DATABASE_PATH: databasePath, HOME: process.env.HOME, ...keys }
  return (args: string[], stdin?: string) => runToEnd(['bun', MAIN, 'settings', ...args], env, { stdin })
}

/** Every row of the settings and the audit trail, read straight from the file. */
function contents(databasePath: string): unknown {
  const db = new Database(databasePath)
  try {
    return { settings: db.query('SELECT * FROM settings ORDER BY key').all(), audit: db.query('SELECT * FROM audit_events ORDER BY id').all() }
  } finally {
    db.close()
  }
}

describe('a database locked by another process', () => {
  test('every writing subcommand waits 5 s for the lock, then says the database is busy and exits 1', async () => {
    const path = join(dir, 'locked.db')
    const cli = cliFor(path)
    expect((await cli(['set', 'held.key', '--encrypted'], 'value\n')).code).toBe(0)

    // Another connection holds the write lock for longer than the CLI waits for it (5 s).
    const holder = new Database(path)
    holder.run('BEGIN EXCLUSIVE')
    try {
      const started = performance.now()
      const results = await Promise.all([
        cli(['set', 'new.key'], 'a value\n'),
        cli(['set', 'held.key', '--category', 'x'], 'replaced\n'),
        cli(['delete', 'held.key']),
        cli(['get', 'held.key', '--decrypt']),
        cli(['reencrypt']),
      ])
      expect(performance.now() - started).toBeGreaterThan(4000)
      for (const result of results) {
        expect(result.code).toBe(1)
        expect(result.stderr).toBe('admin-dashboard: the database is busy (locked by another process); try again\n')
        expect(result.stdout).toBe('')
        noStackTrace(result.stderr)
      }
    } finally {
      holder.run('ROLLBACK')
      holder.close()
    }
    // Nothing was changed, and the lock gone, the commands work again.
    expect((await cli(['list'])).stdout).not.toContain('new.key')
    expect((await cli(['get', 'held.key', '--decrypt'])).stdout).toBe('value\n')
  }, 30_000)

  test('a lock that keeps readers out too (exclusive locking mode): even list says busy, not "corrupt", and exits 1', async () => {
    const path = join(dir, 'locked-readers.db')
    const cli = cliFor(path)
    expect((await cli(['set', 'held.key'], 'value\n')).code).toBe(0)
    const holder = new Database(path)
    holder.run('PRAGMA locking_mode = EXCLUSIVE')
    holder.run('BEGIN EXCLUSIVE')
    holder.run('UPDATE settings SET value = value')
    try {
      for (const result of await Promise.all([cli(['list']), cli(['get', 'held.key'])])) {
        expect(result.code).toBe(1)
        expect(result.stderr).toBe('admin-dashboard: DATABASE_PATH: the database is busy (locked by another process); try again\n')
        noStackTrace(result.stderr)
      }
    } finally {
      holder.run('ROLLBACK')
      holder.close()
    }
    expect((await cli(['list'])).stdout).toContain('held.key')
  }, 30_000)
})

describe('a DATABASE_PATH that names no file', () => {
  const READ_OR_DELETE = [['list'], ['get', 'a.key'], ['get', 'a.key', '--decrypt'], ['delete', 'a.key'], ['reencrypt']]
  const noDatabase = (path: string) =>
    `admin-dashboard: DATABASE_PATH: there is no database at ${path}; nothing was done. Check DATABASE_PATH (\`serve\` and \`settings set\` create the database, this command does not)\n`

  test('list, get, delete and reencrypt exit 1 naming DATABASE_PATH and the path, and make no directory and no file; set creates the database', async () => {
    const missingDirectory = join(dir, 'never-made')
    const path = join(missingDirectory, 'admin-dashboard.db')
    const emptyDirectory = join(dir, 'no-file-yet')
    mkdirSync(emptyDirectory)
    for (const target of [path, join(emptyDirectory, 'admin-dashboard.db')]) {
      const cli = cliFor(target)
      for (const args of READ_OR_DELETE) {
        const result = await cli(args)
        expect({ args, code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({ args, code: 1, stdout: '', stderr: noDatabase(target) })
      }
    }
    expect(existsSync(missingDirectory)).toBe(false)
    expect(readdirSync(emptyDirectory)).toEqual([])
    // `set` is how the first key is stored before the first start: it creates the database.
    const cli = cliFor(path)
    expect(await cli(['set', 'a.key'], 'value\n')).toMatchObject({ code: 0, stdout: 'created a.key\n', stderr: '' })
    expect(await cli(['get', 'a.key'])).toMatchObject({ code: 0, stdout: 'value\n' })
    expect(await cli(['delete', 'a.key'])).toMatchObject({ code: 0, stdout: 'deleted a.key\n' })
  }, 30_000)

  test('DATABASE_PATH left out of the environment: the default ./data/admin-dashboard.db is named in full, from the working directory', async () => {
    const workdir = join(dir, 'default-path')
    mkdirSync(workdir)
    const result = await runToEnd(['bun', MAIN, 'settings', 'list'], { SESSION_SIGNING_KEY: signingKey, HOME: process.env.HOME }, { cwd: workdir })
    expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({ code: 1, stdout: '', stderr: noDatabase(join(workdir, 'data', 'admin-dashboard.db')) })
    expect(readdirSync(workdir)).toEqual([])
  }, 30_000)
})

describe('settings set of an API key', () => {
  const EMPTY = 'admin-dashboard: An API key cannot be empty. To remove one, use Remove under Upstream API keys on the Settings page, or `admin-dashboard settings delete <key>`.\n'

  test("nothing piped in (the bootstrap command with $ORY_API_KEY unset), or only a newline: exit 1 saying how a key is removed; the key stored before is kept", async () => {
    const path = join(dir, 'empty-api-key.db')
    const cli = cliFor(path)
    for (const stdin of ['', '\n']) {
      for (const args of [['set', 'proxy.idp-admin.api_key', '--encrypted'], ['set', 'proxy.oauth-admin.api_key']]) {
        const result = await cli(args, stdin)
        expect({ args, stdin, code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({ args, stdin, code: 1, stdout: '', stderr: EMPTY })
      }
    }
    expect((contents(path) as { settings: unknown[] }).settings).toEqual([])
    expect((await cli(['set', 'proxy.idp-admin.api_key', '--encrypted'], `${SECRETS[0]}\n`)).code).toBe(0)
    expect((await cli(['set', 'proxy.idp-admin.api_key', '--encrypted'], '')).stderr).toBe(EMPTY)
    expect((await cli(['get', 'proxy.idp-admin.api_key', '--decrypt'])).stdout).toBe(`${SECRETS[0]}\n`)
    // Any other setting may be empty.
    expect(await cli(['set', 'site.banner'], '')).toMatchObject({ code: 0, stdout: 'created site.banner\n' })
  }, 30_000)

  test('a misspelt API key name (api-key, a prefix that does not exist) is written as an ordinary setting, with a note naming the real ones; the real ones have none', async () => {
    const cli = cliFor(join(dir, 'misspelt-api-key.db'))
    const note = (key: string) =>
      `note: ${key} is no prefix's API key, and no proxy reads it; those are proxy.idp.api_key, proxy.idp-admin.api_key, proxy.iam-idp.api_key, proxy.iam-idp-admin.api_key, proxy.oauth.api_key, proxy.oauth-admin.api_key\n`
    for (const key of ['proxy.iam-idp-admin.api-key', 'proxy.iam_idp_admin.api_key', 'proxy.nosuchprefix.api_key']) {
      const result = await cli(['set', key, '--encrypted'], `${SECRETS[1]}\n`)
      expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({ code: 0, stdout: `created ${key} (encrypted)\n`, stderr: note(key) })
      noSecret(result.stderr)
    }
    expect(await cli(['set', 'proxy.iam-idp-admin.api_key', '--encrypted'], `${SECRETS[1]}\n`)).toMatchObject({ code: 0, stderr: '' })
  }, 30_000)
})

describe('settings set outside the rules', () => {
  test('a key with a space or letters outside ASCII, or a value over 64 KiB: exit 1 saying the rule, never what was sent; nothing stored', async () => {
    const path = join(dir, 'rules.db')
    const cli = cliFor(path)
    const KEY = 'admin-dashboard: Invalid or missing field: key. A setting key is 1 to 255 characters: ASCII letters, digits, dots, underscores, colons and hyphens, beginning with a letter or a digit.\n'
    const VALUE = 'admin-dashboard: Invalid or missing field: value. A value is a string of at most 64 KiB (65536 bytes of UTF-8).\n'
    const large = 'v'.repeat(300 * 1024)
    for (const [args, stdin, stderr] of [
      [['set', 'has space'], 'value\n', KEY],
      [['set', 'clé.ü', '--encrypted'], 'value\n', KEY],
      [['set', 'large.value'], large, VALUE],
      [['set', 'large.value', '--encrypted'], `${'é'.repeat(32 * 1024)}x`, VALUE],
    ] as const) {
      const result = await cli([...args], stdin)
      expect({ args, code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({ args, code: 1, stdout: '', stderr })
    }
    expect((contents(path) as { settings: unknown[] }).settings).toEqual([])
  }, 30_000)
})

/** util-linux's `script`, which runs a command on a terminal of its own. Missing, the test fails: it is never skipped. */
function scriptProgram(): string {
  const path = Bun.which('script')
  if (!path) throw new Error("script is not installed (util-linux's, in Debian's bsdutils package): scripts/setup --test installs it")
  return path
}

describe('settings commands written wrong', () => {
  test('a value on the command line, or a near miss of an option: exit 2 saying which, never echoing the value; nothing stored', async () => {
    const path = join(dir, 'written-wrong.db')
    const cli = cliFor(path)
    const inline = await cli(['set', 'ui.banner', SECRETS[2]!], '')
    expect(inline.code).toBe(2)
    expect(inline.stderr).toStartWith('admin-dashboard: settings set reads the value from standard input, not from the command line (where `ps` and the shell history would keep it); nothing was stored\n')
    noSecret(inline.stderr + inline.stdout)
    const near = await cli(['set', 'ui.banner', '--encrypt'], 'x')
    expect([near.code, near.stderr.split('\n')[0]]).toEqual([2, 'admin-dashboard: unknown option "--encrypt" (did you mean --encrypted?); nothing was done'])
    const other = await cli(['get', 'ui.banner', '--reveal'])
    expect([other.code, other.stderr.split('\n')[0]]).toEqual([2, 'admin-dashboard: unknown option "--reveal"; nothing was done'])
    expect(existsSync(path)).toBe(false)
  }, 30_000)
})

describe('settings set on a terminal', () => {
  // A terminal (`script` gives the command one): what is typed there would be shown.
  test('exits 2 at once saying the value is read from standard input and how to pipe it; nothing is read, nothing written', async () => {
    const path = join(dir, 'terminal.db')
    const env = { SESSION_SIGNING_KEY: signingKey, ENCRYPTION_KEY: rightKey, DATABASE_PATH: path, HOME: process.env.HOME }
    // `script` hands its own standard input (none here: end of file at once) to the terminal.
    const result = await runToEnd(['timeout', '20', scriptProgram(), '-qec', `bun ${MAIN} settings set proxy.idp-admin.api_key --encrypted`, '/dev/null'], env)
    expect(result.code).toBe(2)
    const shown = result.stdout.replace(/\r\n/g, '\n')
    expect(shown).toStartWith(
      'admin-dashboard: settings set reads the value from standard input, and standard input is a terminal (what is typed there would be shown). ' +
        `Pipe the value in: printf '%s' "$VALUE" | admin-dashboard settings set <key> [--encrypted]\n\nUsage:\n`,
    )
    expect(existsSync(path)).toBe(false)
    // Piped, the same command works.
    expect(await keyedCli(path, { ENCRYPTION_KEY: rightKey })(['set', 'proxy.idp-admin.api_key', '--encrypted'], `${SECRETS[0]}\n`)).toMatchObject({ code: 0 })
  }, 30_000)
})

describe('settings list', () => {
  test('a category with control characters (the API takes any string) is shown escaped: one row per setting, columns aligned', async () => {
    const cli = cliFor(join(dir, 'list.db'))
    expect((await cli(['set', 'a.key', '--category', 'x\ny\tz\u0007'], 'one\n')).code).toBe(0)
    expect((await cli(['set', 'b.key', '--category', 'plain'], 'two\n')).code).toBe(0)
    const list = await cli(['list'])
    expect(list.code).toBe(0)
    const lines = list.stdout.trimEnd().split('\n')
    expect(lines).toHaveLength(3)
    expect(lines[1]).toMatch(/^a\.key\s+plain\s+x\\ny\\tz\\u0007\s+\S+$/)
    expect(lines[2]).toMatch(/^b\.key\s+plain\s+plain\s+\S+$/)
    expect(lines[1]!.indexOf('x\\n')).toBe(lines[2]!.indexOf('plain', 'b.key'.length + 2 + 'plain'.length))
  }, 30_000)
})

describe('settings commands that encrypt, with keys that open none of the stored encrypted values', () => {
  // What another replica, or the next start, could not read: the rule `serve` applies at start.
  const REFUSALS: [string, Keys, string][] = [
    ['another ENCRYPTION_KEY', { ENCRYPTION_KEY: otherKey }, 'ENCRYPTION_KEY opens none of the 2 encrypted settings in the database (ENCRYPTION_KEY_PREVIOUS is not set)'],
    [
      'another ENCRYPTION_KEY and another ENCRYPTION_KEY_PREVIOUS',
      { ENCRYPTION_KEY: otherKey, ENCRYPTION_KEY_PREVIOUS: thirdKey },
      'neither ENCRYPTION_KEY nor ENCRYPTION_KEY_PREVIOUS opens any of the 2 encrypted settings in the database',
    ],
  ]
  const ADVICE =
    ': they were written with another key. Set ENCRYPTION_KEY to the key the database (and every other replica) uses; during a rotation, put the other key in ENCRYPTION_KEY_PREVIOUS'

  let databases = 0
  /** smtp.password and captcha.secret encrypted with rightKey, site.title plain. */
  async function seeded(): Promise<string> {
    const path = join(dir, `keys-${++databases}.db`)
    const right = keyedCli(path, { ENCRYPTION_KEY: rightKey })
    expect((await right(['set', 'smtp.password', '--encrypted', '--category', 'mail'], `${SECRETS[0]}\n`)).code).toBe(0)
    expect((await right(['set', 'captcha.secret', '--encrypted'], `${SECRETS[1]}\n`)).code).toBe(0)
    expect((await right(['set', 'site.title'], 'Console\n')).code).toBe(0)
    return path
  }

  for (const [name, keys, opening] of REFUSALS) {
    test(`${name}: set --encrypted exits 1 naming the variables, never a key or a value, and writes nothing`, async () => {
      const path = await seeded()
      const before = contents(path)
      const cli = keyedCli(path, keys)
      for (const args of [['set', 'new.secret', '--encrypted'], ['set', 'smtp.password', '--encrypted', '--category', 'mail']]) {
        const result = await cli(args, `${SECRETS[2]}\n`)
        expect({ args, code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
          args,
          code: 1,
          stdout: '',
          stderr: `admin-dashboard: ${opening}${ADVICE}. Nothing was written.\n`,
        })
        noSecret(result.stderr)
        noStackTrace(result.stderr)
      }
      // Not a row, not an audit event; the right key still reads every value.
      expect(contents(path)).toEqual(before)
      expect((await keyedCli(path, { ENCRYPTION_KEY: rightKey })(['get', 'smtp.password', '--decrypt'])).stdout).toBe(`${SECRETS[0]}\n`)
    }, 30_000)

    test(`${name}: reencrypt exits 1 naming the variables and, as before, every value that opens with neither key; nothing changed`, async () => {
      const path = await seeded()
      const before = contents(path)
      const result = await keyedCli(path, keys)(['reencrypt'])
      expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 1, stdout: '' })
      expect(result.stderr).toBe(
        `admin-dashboard: ${opening}${ADVICE}\n` +
          'admin-dashboard: these settings decrypt with neither ENCRYPTION_KEY nor ENCRYPTION_KEY_PREVIOUS; nothing was changed:\n' +
          '  captcha.secret\n  smtp.password\n',
      )
      noSecret(result.stderr)
      expect(contents(path)).toEqual(before)
    }, 30_000)
  }

  test('what the rule lets through: the right key as ENCRYPTION_KEY_PREVIOUS beside a new one (a rotation), a plain value, a database with no encrypted value yet', async () => {
    const path = await seeded()
    const rotating = keyedCli(path, { ENCRYPTION_KEY: otherKey, ENCRYPTION_KEY_PREVIOUS: rightKey })
    expect(await rotating(['set', 'new.secret', '--encrypted'], `${SECRETS[2]}\n`)).toMatchObject({ code: 0, stdout: 'created new.secret (encrypted)\n' })
    expect(await rotating(['reencrypt'])).toMatchObject({ code: 0, stdout: 're-encrypted 3 values under ENCRYPTION_KEY\n' })
    // A plain value encrypts nothing, whatever the key.
    expect((await keyedCli(path, { ENCRYPTION_KEY: thirdKey })(['set', 'site.title'], 'Renamed\n')).code).toBe(0)
    // Nothing encrypted yet: nothing to check the key against.
    const empty = keyedCli(join(dir, `keys-${++databases}.db`), { ENCRYPTION_KEY: thirdKey })
    expect(await empty(['set', 'first.secret', '--encrypted'], `${SECRETS[2]}\n`)).toMatchObject({ code: 0, stdout: 'created first.secret (encrypted)\n' })
  }, 30_000)

  test('some values open and some do not: set --encrypted writes; reencrypt names only those that do not open and changes nothing', async () => {
    const path = await seeded()
    // captcha.secret rewritten under otherKey, as a replica past a rotation's swap would.
    expect((await keyedCli(path, { ENCRYPTION_KEY: otherKey, ENCRYPTION_KEY_PREVIOUS: rightKey })(['set', 'captcha.secret', '--encrypted'], `${SECRETS[1]}\n`)).code).toBe(0)
    const cli = keyedCli(path, { ENCRYPTION_KEY: rightKey })
    expect((await cli(['set', 'new.secret', '--encrypted'], `${SECRETS[2]}\n`)).code).toBe(0)
    const before = contents(path)
    const refused = await cli(['reencrypt'])
    expect({ code: refused.code, stdout: refused.stdout, stderr: refused.stderr }).toEqual({
      code: 1,
      stdout: '',
      stderr: 'admin-dashboard: these settings decrypt with neither ENCRYPTION_KEY nor ENCRYPTION_KEY_PREVIOUS; nothing was changed:\n  captcha.secret\n',
    })
    expect(contents(path)).toEqual(before)
  }, 30_000)
})
