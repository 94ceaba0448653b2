// `admin-dashboard audit prune` run as a process against a real SQLite file: the events older than
// the days given are deleted a batch at a time and the rest kept, the prune is itself recorded, a
// dry run deletes nothing, and a command line that does not parse deletes nothing either.
// (The same against PostgreSQL: test/postgres-cli.test.ts.)

import { afterAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PRUNE_BATCH } from '../src/cli/audit.ts'
import { openSqliteStorage } from '../src/db/sqlite-storage.ts'
import { randomKey } from './support/service.ts'
import { runToEnd } from './support/process.ts'

const MAIN = join(import.meta.dir, '..', 'src', 'main.ts')
const dir = mkdtempSync(join(tmpdir(), 'admin-dashboard-audit-prune-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const DAY_MS = 86_400_000
const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS).toISOString()

const cliFor = (databasePath: string) => (args: string[]) =>
  runToEnd(['bun', MAIN, 'audit', ...args], { SESSION_SIGNING_KEY: randomKey(), DATABASE_PATH: databasePath, HOME: process.env.HOME })

/** A database with `old` identity searches from 400 days ago and five from the last 300 days. */
async function databaseWith(name: string, old: number): Promise<string> {
  const path = join(dir, `${name}.db`)
  const opened = openSqliteStorage(path)
  if (!opened.ok) throw new Error(opened.error)
  await opened.storage.close()
  const db = new Database(path)
  const insert = db.query('INSERT INTO audit_events (at, action, actor, target, detail, request_id) VALUES (?, ?, ?, ?, ?, NULL)')
  db.transaction(() => {
    for (let i = 0; i < old; i++) insert.run(daysAgo(400), 'identity_search', 'admin-id', `old${i}@example.test`, '{"outcome":"ok"}')
    for (const days of [300, 100, 10, 1, 0]) insert.run(daysAgo(days), 'identity_search', 'admin-id', `kept-${days}@example.test`, '{"outcome":"ok"}')
  })()
  db.close()
  return path
}

type Row = { id: number; at: string; action: string; actor: string | null; target: string | null; detail: string | null }
function rows(path: string): Row[] {
  const db = new Database(path, { readonly: true })
  try {
    return db.query<Row, []>('SELECT id, at, action, actor, target, detail FROM audit_events ORDER BY id').all()
  } finally {
    db.close()
  }
}

describe('audit prune on a SQLite file', () => {
  test('deletes every event older than the days given, more than one batch of them, keeps the others, and records the prune', async () => {
    const old = PRUNE_BATCH * 2 + 3
    const path = await databaseWith('prune', old)
    const cli = cliFor(path)

    const counted = await cli(['prune', '--older-than', '365d', '--dry-run'])
    expect(counted.code).toBe(0)
    expect(counted.stdout).toMatch(new RegExp(`^${old.toLocaleString('en-US')} audit events recorded before \\S+Z would be deleted \\(--dry-run: nothing was deleted\\)\\n$`))
    expect(rows(path)).toHaveLength(old + 5)

    const started = Date.now()
    const pruned = await cli(['prune', '--older-than=365d'])
    expect(pruned.stderr).toBe('')
    expect(pruned.code).toBe(0)
    const before = /recorded before (\S+)\n$/.exec(pruned.stdout)![1]!
    expect(pruned.stdout).toBe(`deleted ${old.toLocaleString('en-US')} audit events recorded before ${before}\n`)
    // The cut-off is 365 days before the command ran.
    expect(Math.abs(Date.parse(before) - (started - 365 * DAY_MS))).toBeLessThan(60_000)

    const left = rows(path)
    expect(left.filter((row) => row.action === 'identity_search').map((row) => row.target)).toEqual([300, 100, 10, 1, 0].map((days) => `kept-${days}@example.test`))
    const prune = left.filter((row) => row.action === 'audit_prune')
    expect(prune).toHaveLength(1)
    expect(prune[0]).toMatchObject({ actor: null, target: null })
    expect(JSON.parse(prune[0]!.detail!)).toEqual({ before, deleted: old, outcome: 'ok' })

    // Nothing older is left: a second prune deletes none, and is recorded too.
    const again = await cli(['prune', '--older-than', '365d'])
    expect(again.stdout).toBe(`deleted 0 audit events recorded before ${/recorded before (\S+)\n$/.exec(again.stdout)![1]}\n`)
    expect(rows(path).filter((row) => row.action === 'audit_prune')).toHaveLength(2)
  })

  test("the search for what to delete is a read: its last batch, which walks the whole trail to find there is nothing more, does not take the write lock from the service", async () => {
    const path = await databaseWith('lock', 3)
    const opened = openSqliteStorage(path)
    if (!opened.ok) throw new Error(opened.error)
    expect(await opened.storage.audit.deleteBefore(daysAgo(365), PRUNE_BATCH)).toBe(3)
    // Nothing left to delete: answered while the running service is in the middle of a write.
    const service = new Database(path)
    service.run('BEGIN IMMEDIATE')
    try {
      expect(await opened.storage.audit.deleteBefore(daysAgo(365), PRUNE_BATCH)).toBe(0)
    } finally {
      service.run('COMMIT')
      service.close()
      await opened.storage.close()
    }
    expect(rows(path)).toHaveLength(5)
  }, 20_000)

  test('a command line that does not parse is refused (exit 2), saying why, and deletes nothing', async () => {
    const path = await databaseWith('refused', 3)
    const cli = cliFor(path)
    const refusals: [string[], string][] = [
      [['prune'], 'audit prune needs --older-than <days>d'],
      [['prune', '--older-than', '90'], '--older-than takes a number of days from 1 to 36500, written like 365d'],
      [['prune', '--older-than', '0d'], '--older-than takes a number of days from 1 to 36500, written like 365d'],
      [['prune', '--older-than', '36501d'], '--older-than takes a number of days from 1 to 36500, written like 365d'],
      [['prune', '--older-than', '1y'], '--older-than takes a number of days from 1 to 36500, written like 365d'],
      [['prune', '--older-than'], '--older-than takes a number of days from 1 to 36500, written like 365d'],
      [['prune', '--older-than', '30d', '--force'], 'unknown argument "--force"'],
      [['purge', '--older-than', '30d'], 'unknown audit command "purge"'],
      [[], 'audit needs a command'],
    ]
    for (const [args, why] of refusals) {
      const result = await cli(args)
      expect(result.code).toBe(2)
      expect(result.stderr.split('\n')[0]).toBe(`admin-dashboard: ${why}; nothing was deleted`)
      expect(result.stderr).toContain('admin-dashboard audit prune --older-than <days>d [--dry-run]')
    }
    expect(rows(path)).toHaveLength(3 + 5)
  })

  test('a DATABASE_PATH with no database is said so, and no database is made there', async () => {
    const path = join(dir, 'none', 'missing.db')
    const result = await cliFor(path)(['prune', '--older-than', '30d'])
    expect(result.code).toBe(1)
    expect(result.stderr).toStartWith(`admin-dashboard: DATABASE_PATH: there is no database at ${path}; nothing was done.`)
    expect(existsSync(path)).toBe(false)
  })
})
