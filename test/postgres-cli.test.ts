// The command line on PostgreSQL: `settings …` and `reencrypt` work against DATABASE_URL as they
// do on the SQLite file, `check-config` checks the database, and `import-sqlite` moves a SQLite
// database into an empty PostgreSQL one (refusing one with data) with every row intact and every
// encrypted value still readable.

import { afterAll, describe, expect, test } from 'bun:test'
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { usePostgres } from './support/use-postgres.ts'
import { randomKey } from './support/service.ts'
import { wholeDump } from './support/dump.ts'
import { runToEnd } from './support/process.ts'
import { openSqliteStorage } from '../src/db/sqlite-storage.ts'
import { MIGRATIONS } from '../src/db/migrations.ts'
import { Database } from 'bun:sqlite'
import { SQL } from 'bun'
import { PostgresStorage } from '../src/db/postgres-storage.ts'
import { AuditLog } from '../src/audit/audit.ts'
import { createSettingsService } from '../src/settings/service.ts'
import { loadConfig } from '../src/config.ts'
import { systemClock } from '../src/clock.ts'
import { createLogger } from '../src/log.ts'

const MAIN = join(import.meta.dir, '..', 'src', 'main.ts')
const dir = mkdtempSync(join(tmpdir(), 'admin-dashboard-pg-cli-'))
const pg = usePostgres()
const signingKey = randomKey()
const encryptionKey = randomKey()

afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

const cli = (args: string[], env: Record<string, string | undefined>, stdin?: string) =>
  runToEnd(['bun', MAIN, ...args], { SESSION_SIGNING_KEY: signingKey, ENCRYPTION_KEY: encryptionKey, HOME: process.env.HOME, ...env }, { stdin })

describe('settings commands against DATABASE_URL', () => {
  test('set, list, get, get --decrypt, reencrypt and delete, with nothing secret printed where it should not be', async () => {
    const url = await pg.createDatabase()
    const env = { DATABASE_URL: url }
    const secret = `cli-secret-${randomKey(9)}`
    expect((await cli(['check-config'], env)).code).toBe(0)
    const set = await cli(['settings', 'set', 'smtp.password', '--encrypted', '--category', 'mail'], env, `${secret}\n`)
    expect(set.code).toBe(0)
    expect(set.stdout).toBe('created smtp.password (encrypted)\n')
    const list = await cli(['settings', 'list'], env)
    expect(list.stdout).toContain('smtp.password')
    expect(list.stdout).toContain('encrypted')
    expect(list.stdout).not.toContain(secret)
    const stored = await cli(['settings', 'get', 'smtp.password'], env)
    expect(stored.stdout.startsWith('v1.')).toBe(true)
    expect((await cli(['settings', 'get', 'smtp.password', '--decrypt'], env)).stdout).toBe(`${secret}\n`)

    // Rotation: the old key becomes the previous one, reencrypt moves the value under the new key.
    const rotated = { ...env, ENCRYPTION_KEY: randomKey(), ENCRYPTION_KEY_PREVIOUS: encryptionKey }
    const reencrypt = await runToEnd(['bun', MAIN, 'settings', 'reencrypt'], { SESSION_SIGNING_KEY: signingKey, HOME: process.env.HOME, ...rotated })
    expect(reencrypt.code).toBe(0)
    expect(reencrypt.stdout).toContain('re-encrypted 1 value')
    const afterRotation = await runToEnd(['bun', MAIN, 'settings', 'get', 'smtp.password', '--decrypt'], {
      SESSION_SIGNING_KEY: signingKey,
      HOME: process.env.HOME,
      DATABASE_URL: url,
      ENCRYPTION_KEY: rotated.ENCRYPTION_KEY,
    })
    expect(afterRotation.stdout).toBe(`${secret}\n`)
    expect((await cli(['settings', 'delete', 'smtp.password'], env)).code).toBe(0)
    expect((await cli(['settings', 'get', 'smtp.password'], env)).code).toBe(1)
  })

  test('set of a value with U+0000 (PostgreSQL cannot store it): exit 1 saying so, never the value; nothing stored', async () => {
    const env = { DATABASE_URL: await pg.createDatabase() }
    for (const flags of [[], ['--encrypted']]) {
      const set = await cli(['settings', 'set', 'smtp.template', ...flags], env, 'Hello\u0000SECRET-AFTER\n')
      expect({ code: set.code, stdout: set.stdout, stderr: set.stderr }).toEqual({ code: 1, stdout: '', stderr: 'admin-dashboard: Invalid field: value (U+0000 is not allowed).\n' })
    }
    expect((await cli(['settings', 'get', 'smtp.template'], env)).code).toBe(1)
  })

  test('an unreachable database or a wrong password: a clear message naming DATABASE_URL, never the password', async () => {
    const wrong = await cli(['settings', 'list'], { DATABASE_URL: `postgres://${pg.user}:wrong-password-xyz@127.0.0.1:${pg.port}/postgres` })
    expect(wrong.code).toBe(1)
    expect(wrong.stderr).toContain('DATABASE_URL')
    expect(wrong.stderr + wrong.stdout).not.toContain('wrong-password-xyz')
    const notPostgres = await cli(['check-config'], { DATABASE_URL: 'mysql://user:pw-not-shown@127.0.0.1/db' })
    expect(notPostgres.code).toBe(1)
    expect(notPostgres.stderr).toContain('DATABASE_URL must be a postgres:// or postgresql:// URL')
    expect(notPostgres.stderr).not.toContain('pw-not-shown')
  })
})

describe('audit prune against DATABASE_URL', () => {
  test('deletes the events older than the days given, keeps the others, records the prune; a dry run only counts', async () => {
    const url = await pg.createDatabase()
    const opened = await PostgresStorage.open(url)
    if (!opened.ok) throw new Error(opened.error)
    const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString()
    try {
      for (const [days, target] of [[400, 'old-1'], [366, 'old-2'], [364, 'kept-1'], [0, 'kept-2']] as const) {
        await opened.storage.audit.append({ at: daysAgo(days), action: 'identity_search', actor: 'admin-id', target, detail: null, request_id: null })
      }
    } finally {
      await opened.storage.close()
    }
    const env = { DATABASE_URL: url }
    const counted = await cli(['audit', 'prune', '--older-than', '365d', '--dry-run'], env)
    expect(counted.stdout).toMatch(/^2 audit events recorded before \S+Z would be deleted \(--dry-run: nothing was deleted\)\n$/)
    const pruned = await cli(['audit', 'prune', '--older-than', '365d'], env)
    expect(pruned.code).toBe(0)
    const before = /^deleted 2 audit events recorded before (\S+)\n$/.exec(pruned.stdout)![1]!

    const reopened = await PostgresStorage.open(url)
    if (!reopened.ok) throw new Error(reopened.error)
    try {
      const left = await reopened.storage.audit.list({ limit: 10 })
      expect(left.filter((event) => event.action === 'identity_search').map((event) => event.target)).toEqual(['kept-2', 'kept-1'])
      const prune = left.filter((event) => event.action === 'audit_prune')
      expect(prune.map((event) => [event.actor, event.target, JSON.parse(event.detail!)])).toEqual([[null, null, { before, deleted: 2, outcome: 'ok' }]])
    } finally {
      await reopened.storage.close()
    }
  })
})

describe('import-sqlite', () => {
  async function sqliteWithEverything(path: string): Promise<string> {
    const loaded = loadConfig({ SESSION_SIGNING_KEY: signingKey, ENCRYPTION_KEY: encryptionKey, DATABASE_PATH: path })
    if (!loaded.ok) throw new Error(loaded.errors.join('; '))
    const opened = openSqliteStorage(path)
    if (!opened.ok) throw new Error(opened.error)
    const storage = opened.storage
    const audit = new AuditLog(storage, systemClock)
    const settings = createSettingsService({ config: loaded.config, storage, audit, clock: systemClock, log: createLogger('error', () => {}) })
    const secret = `imported-secret-${randomKey(9)}`
    await settings.write({ key: 'proxy.idp-admin.api_key', value: secret, encrypted: true }, null)
    await settings.write({ key: 'site.title', value: 'Ops', category: 'site' }, 'admin-1')
    // Half with the request they came in (the column added by schema 3 moves too), half without.
    for (let i = 0; i < 30; i++) await audit.record({ action: 'identity_search', actor: 'admin-1', target: `user${i}@example.test`, detail: { outcome: 'ok' }, requestId: i % 2 ? `request-${i}` : undefined })
    await storage.layouts.put('admin-1', '{"overview":{"order":["audit"]}}', new Date().toISOString())
    await storage.revocations.revokeSession('sid-1', Math.floor(Date.now() / 1000) + 3600)
    await storage.revocations.revokeIdentity('identity-9', { seconds: Math.floor(Date.now() / 1000), ms: Date.now() })
    await storage.close()
    return secret
  }

  test('everything moves in one go; encrypted values still decrypt; a second import is refused', async () => {
    const path = join(dir, 'single.db')
    const secret = await sqliteWithEverything(path)
    const url = await pg.createDatabase()
    const imported = await cli(['import-sqlite', path], { DATABASE_URL: url })
    expect(imported.stderr).toBe('')
    expect(imported.code).toBe(0)
    expect(imported.stdout).toBe('imported 2 settings, 32 audit events, 1 layouts, 1 revoked sessions and 1 identity revocations\n')
    expect(imported.stdout + imported.stderr).not.toContain(secret)

    const source = openSqliteStorage(path)
    const target = await PostgresStorage.open(url)
    if (!source.ok || !target.ok) throw new Error('cannot open')
    try {
      expect(await wholeDump(target.storage)).toEqual(await wholeDump(source.storage))
    } finally {
      await source.storage.close()
      await target.storage.close()
    }
    expect((await cli(['settings', 'get', 'proxy.idp-admin.api_key', '--decrypt'], { DATABASE_URL: url })).stdout).toBe(`${secret}\n`)

    const again = await cli(['import-sqlite', path], { DATABASE_URL: url })
    expect(again.code).toBe(1)
    expect(again.stderr).toContain('already has data')
  })

  test('the SQLite file is left exactly as it was, imported or not, even one written by an older version (schema 1)', async () => {
    // Schema 1, the rollback journal, readable by the group: an older single instance's file.
    const path = join(dir, 'older.db')
    const db = new Database(path, { create: true, strict: true })
    db.run('PRAGMA journal_mode = DELETE')
    db.run('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL) STRICT')
    db.run(MIGRATIONS[0]!.sql)
    db.run("INSERT INTO schema_migrations VALUES (1, '2025-01-01T00:00:00.000Z')")
    db.run("INSERT INTO settings VALUES ('site.title', 'Ops', 0, 'site', '2025-01-01T00:00:00.000Z')")
    db.run("INSERT INTO identity_revocations VALUES ('identity-1', 1735689600)")
    db.run("INSERT INTO audit_events (at, action, actor, target, detail) VALUES ('2025-01-01T00:00:00.000Z', 'login', 'identity-1', NULL, NULL)")
    db.close()
    chmodSync(path, 0o640)
    const before = readFileSync(path)
    const unchanged = () => {
      expect(readFileSync(path).equals(before)).toBe(true)
      expect((statSync(path).mode & 0o777).toString(8)).toBe('640')
      for (const suffix of ['-wal', '-shm', '-journal']) expect(existsSync(path + suffix)).toBe(false)
    }

    const unreachable = await cli(['import-sqlite', path], { DATABASE_URL: 'postgres://nobody:pw@127.0.0.1:1/none' })
    expect(unreachable.code).toBe(1)
    expect(unreachable.stderr).toContain('DATABASE_URL')
    unchanged()

    const url = await pg.createDatabase()
    const scratch = mkdtempSync(join(dir, 'tmp-'))
    const imported = await cli(['import-sqlite', path], { DATABASE_URL: url, TMPDIR: scratch })
    expect(imported.stderr).toBe('')
    expect(imported.stdout).toBe('imported 1 settings, 1 audit events, 0 layouts, 0 revoked sessions and 1 identity revocations\n')
    unchanged()
    expect((await cli(['settings', 'get', 'site.title'], { DATABASE_URL: url })).stdout).toBe('Ops\n')
    // An event from before request ids were kept moves without one.
    const target = await PostgresStorage.open(url)
    if (!target.ok) throw new Error('cannot open')
    try {
      expect(await target.storage.audit.list({ limit: 10 })).toEqual([{ id: 1, at: '2025-01-01T00:00:00.000Z', action: 'login', actor: 'identity-1', target: null, detail: null, request_id: null }])
    } finally {
      await target.storage.close()
    }
    // Nothing of the copy it read is left behind.
    expect(readdirSync(scratch)).toEqual([])
  })

  test('a WAL file as a stopped service leaves it (or `sqlite3 .backup` makes it) is read without leaving a -wal or -shm beside it: its directory lists the same before and after, the file has the same bytes', async () => {
    const source = mkdtempSync(join(dir, 'stopped-'))
    const path = join(source, 'admin-dashboard.db')
    await sqliteWithEverything(path)
    const listing = readdirSync(source)
    expect(listing).toEqual(['admin-dashboard.db'])
    const before = readFileSync(path)

    const imported = await cli(['import-sqlite', path], { DATABASE_URL: await pg.createDatabase() })
    expect({ code: imported.code, stderr: imported.stderr }).toEqual({ code: 0, stderr: '' })
    expect(readdirSync(source)).toEqual(listing)
    expect(readFileSync(path).equals(before)).toBe(true)
  })

  test('a file a process still has open (a service not yet stopped): its -wal and -shm are left to it as they were, and what it committed only to its -wal is imported', async () => {
    const source = mkdtempSync(join(dir, 'running-'))
    const path = join(source, 'admin-dashboard.db')
    await sqliteWithEverything(path)
    const service = new Database(path, { strict: true })
    try {
      // A commit still in the -wal only, as the service's last writes are until a checkpoint.
      service.run('PRAGMA wal_autocheckpoint = 0')
      service.run("INSERT INTO settings VALUES ('site.latest', 'in the wal', 0, NULL, '2026-01-01T00:00:00.000Z')")
      const listing = readdirSync(source).sort()
      expect(listing).toEqual(['admin-dashboard.db', 'admin-dashboard.db-shm', 'admin-dashboard.db-wal'])
      const wal = readFileSync(path + '-wal')

      const url = await pg.createDatabase()
      const imported = await cli(['import-sqlite', path], { DATABASE_URL: url })
      expect({ code: imported.code, stderr: imported.stderr }).toEqual({ code: 0, stderr: '' })
      expect((await cli(['settings', 'get', 'site.latest'], { DATABASE_URL: url })).stdout).toBe('in the wal\n')
      expect(readdirSync(source).sort()).toEqual(listing)
      expect(readFileSync(path + '-wal').equals(wal)).toBe(true)
      // Still the service's: it goes on writing and reading through them.
      service.run("UPDATE settings SET value = 'after' WHERE key = 'site.latest'")
      expect(service.query("SELECT value FROM settings WHERE key = 'site.latest'").get()).toEqual({ value: 'after' })
    } finally {
      service.close()
    }
    expect(readdirSync(source)).toEqual(['admin-dashboard.db'])
  })

  test('a SQLite file holding U+0000 in a setting: exit 1 naming the setting, nothing imported; without it the rest moves, U+0000 in the audit trail as U+FFFD', async () => {
    const path = join(dir, 'nul.db')
    const opened = openSqliteStorage(path)
    if (!opened.ok) throw new Error(opened.error)
    const at = new Date().toISOString()
    // As an older version accepted them.
    opened.storage.db.run("INSERT INTO settings VALUES ('smtp.template', 'Hello' || char(0) || 'World', 0, NULL, ?)", [at])
    opened.storage.db.run("INSERT INTO settings VALUES ('site.title', 'Ops', 0, 'mail' || char(0), ?)", [at])
    opened.storage.db.run("INSERT INTO settings VALUES ('site.ok', 'fine', 0, NULL, ?)", [at])
    await opened.storage.audit.append({ at, action: 'sessions_revoke', actor: 'admin-1', target: 'a\u0000b', detail: null, request_id: null })
    await opened.storage.close()

    const url = await pg.createDatabase()
    const refused = await cli(['import-sqlite', path], { DATABASE_URL: url })
    expect({ code: refused.code, stdout: refused.stdout }).toEqual({ code: 1, stdout: '' })
    expect(refused.stderr).toBe(
      'admin-dashboard: PostgreSQL cannot store U+0000, which these hold; nothing was imported (change or delete them on the SQLite database first):\n' +
        '  setting "site.title" (category)\n  setting "smtp.template" (value)\n',
    )
    const target = await PostgresStorage.open(url)
    if (!target.ok) throw new Error(target.error)
    try {
      expect(await target.storage.settings.list()).toEqual([])
      expect(await target.storage.audit.list({ limit: 10 })).toEqual([])
    } finally {
      await target.storage.close()
    }

    const fixed = new Database(path, { strict: true })
    fixed.run("DELETE FROM settings WHERE key IN ('smtp.template', 'site.title')")
    fixed.close()
    const imported = await cli(['import-sqlite', path], { DATABASE_URL: url })
    expect({ code: imported.code, stderr: imported.stderr }).toEqual({ code: 0, stderr: '' })
    const after = await PostgresStorage.open(url)
    if (!after.ok) throw new Error(after.error)
    try {
      expect((await after.storage.settings.list()).map((s) => s.key)).toEqual(['site.ok'])
      expect((await after.storage.audit.list({ limit: 10 })).map((e) => e.target)).toEqual(['a\uFFFDb'])
    } finally {
      await after.storage.close()
    }
  })

  test('a file another process keeps locked (a shell in exclusive locking mode) is said to be busy, not unusable, and nothing is imported; once it is let go the import works', async () => {
    const path = join(dir, 'locked.db')
    await sqliteWithEverything(path)
    const url = await pg.createDatabase()
    const holder = new Database(path)
    holder.run('PRAGMA locking_mode = EXCLUSIVE')
    holder.run('BEGIN EXCLUSIVE')
    holder.run('UPDATE settings SET value = value')
    try {
      const refused = await cli(['import-sqlite', path], { DATABASE_URL: url })
      expect(refused.code).toBe(1)
      expect(refused.stderr).toBe('admin-dashboard: the SQLite file: the database is busy (locked by another process); try again\n')
      expect(refused.stdout).toBe('')
    } finally {
      holder.run('ROLLBACK')
      holder.close()
    }
    const target = await PostgresStorage.open(url)
    if (!target.ok) throw new Error(target.error)
    try {
      expect((await wholeDump(target.storage)).settings).toEqual([])
    } finally {
      await target.storage.close()
    }
    const imported = await cli(['import-sqlite', path], { DATABASE_URL: url })
    expect(imported.stderr).toBe('')
    expect(imported.code).toBe(0)
  }, 30_000)

  test('stopped by Ctrl-C (SIGINT) mid-way: the copy of the file is removed from TMPDIR, it says the database holds none of it or all of it, and nothing was imported', async () => {
    const path = join(dir, 'interrupted.db')
    await sqliteWithEverything(path)
    const url = await pg.createDatabase()
    const migrated = await PostgresStorage.open(url)
    if (!migrated.ok) throw new Error(migrated.error)
    await migrated.storage.close()
    // A lock held elsewhere keeps the import waiting in its transaction, after the copy was made.
    const holder = new SQL(url, { max: 1 })
    const watcher = new SQL(url, { max: 1 })
    const { promise: released, resolve: release } = Promise.withResolvers<void>()
    const { promise: locked, resolve: lockTaken } = Promise.withResolvers<void>()
    const holding = holder.begin(async (tx) => {
      await tx`LOCK TABLE settings IN SHARE MODE`
      lockTaken()
      await released
    })
    await locked
    const scratch = mkdtempSync(join(dir, 'tmp-'))
    const child = Bun.spawn(['bun', MAIN, 'import-sqlite', path], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, SESSION_SIGNING_KEY: signingKey, ENCRYPTION_KEY: encryptionKey, DATABASE_URL: url, TMPDIR: scratch },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    try {
      const waiting = async () =>
        ((await watcher`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'admin-dashboard' AND wait_event_type = 'Lock'`) as { n: number }[])[0]!.n
      for (let waited = 0; (await waiting()) === 0; waited += 50) {
        if (waited > 15_000) throw new Error('the import never waited for the lock')
        await Bun.sleep(50)
      }
      expect(readdirSync(scratch)).toHaveLength(1)
      child.kill('SIGINT')
      const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()])
      expect(code).toBe(130)
      expect(stdout).toBe('')
      expect(stderr).toBe(
        'admin-dashboard: import-sqlite stopped by SIGINT; the import is one transaction, so the PostgreSQL database holds all of it or nothing of it; the copy of the SQLite file was removed\n',
      )
      expect(readdirSync(scratch)).toEqual([])
    } finally {
      child.kill('SIGKILL')
      release()
      await holding
      await Promise.all([holder.close(), watcher.close()])
    }
    const target = await PostgresStorage.open(url)
    if (!target.ok) throw new Error(target.error)
    try {
      const dump = await wholeDump(target.storage)
      expect(dump.settings).toEqual([])
      expect(dump.audit).toEqual([])
    } finally {
      await target.storage.close()
    }
    const imported = await cli(['import-sqlite', path], { DATABASE_URL: url })
    expect(imported.stderr).toBe('')
    expect(imported.code).toBe(0)
  }, 40_000)

  test('a missing file or no DATABASE_URL is refused, and no file is created', async () => {
    const missing = join(dir, 'no-such.db')
    const result = await cli(['import-sqlite', missing], { DATABASE_URL: await pg.createDatabase() })
    expect(result.code).toBe(1)
    expect(result.stderr).toBe(`admin-dashboard: there is no SQLite file at ${missing}; nothing was imported\n`)
    expect(existsSync(missing)).toBe(false)
    const noUrl = await cli(['import-sqlite', join(dir, 'single.db')], {})
    expect(noUrl.code).toBe(1)
    expect(noUrl.stderr).toContain('DATABASE_URL')
    expect((await cli(['import-sqlite'], {})).code).toBe(2)
  })
})
