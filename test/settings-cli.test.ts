// `admin-dashboard settings …` run as a process against a real SQLite file: failures are one plain
// line on stderr and exit 1, never a stack trace.

import { afterAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomKey } from './support/service.ts'
import { runToEnd } from './support/process.ts'

const MAIN = join(import.meta.dir, '..', 'src', 'main.ts')
const dir = mkdtempSync(join(tmpdir(), 'admin-dashboard-settings-cli-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function cliFor(databasePath: string) {
  const env = { SESSION_SIGNING_KEY: randomKey(), ENCRYPTION_KEY: randomKey(), DATABASE_PATH: databasePath, HOME: process.env.HOME }
  return (args: string[], stdin?: string) => runToEnd(['bun', MAIN, 'settings', ...args], env, { stdin })
}

const noStackTrace = (text: string) => expect(text).not.toMatch(/^\s+at |SQLiteError|\bthrow\b|Bun v\d/m)

describe('a database locked by another process', () => {
  test('every writing subcommand waits out the busy timeout, then says the database is busy and exits 1', async () => {
    const path = join(dir, 'locked.db')
    const cli = cliFor(path)
    expect((await cli(['set', 'held.key', '--encrypted'], 'value\n')).code).toBe(0)

    // Another connection holds the write lock for longer than the CLI's busy timeout (5 s).
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
