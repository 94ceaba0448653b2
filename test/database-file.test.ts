// DATABASE_PATH is opened with care for what is already there: a file that is not a SQLite
// database (a typo, a device, a file of the operator's) is refused untouched; a database file is
// tightened to owner-only once SQLite has read it.

import { afterAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../src/db/database.ts'

const dir = mkdtempSync(join(tmpdir(), 'admin-dashboard-db-file-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8)

describe('openDatabase', () => {
  test('a text file is refused and left exactly as it was: same bytes, same mode, nothing beside it', () => {
    const path = join(dir, 'notes.txt')
    writeFileSync(path, 'meeting notes, not a database\n'.repeat(100))
    chmodSync(path, 0o644)
    const before = readFileSync(path)
    const opened = openDatabase(path)
    expect(opened).toEqual({ ok: false, error: 'DATABASE_PATH: the file is not a usable SQLite database (corrupt or not a database)' })
    expect(readFileSync(path).equals(before)).toBe(true)
    expect(modeOf(path)).toBe('644')
    for (const suffix of ['-wal', '-shm', '-journal']) expect(existsSync(path + suffix)).toBe(false)
  })

  test('a device or a named pipe is refused before anything opens it', async () => {
    const fifo = join(dir, 'pipe')
    expect(Bun.spawnSync(['mkfifo', fifo]).exitCode).toBe(0)
    expect(openDatabase(fifo)).toEqual({ ok: false, error: 'DATABASE_PATH: not a regular file' })
    expect(openDatabase('/dev/null')).toEqual({ ok: false, error: 'DATABASE_PATH: not a regular file' })
    expect(modeOf('/dev/null')).toBe('666')
    const directory = join(dir, 'a-directory')
    mkdirSync(directory)
    // Its directory is there: only the file is said (and whose user it is).
    expect(openDatabase(directory)).toEqual({ ok: false, error: `DATABASE_PATH: the database file ${directory} cannot be opened for reading and writing by this user (uid ${process.getuid!()})` })
  })

  test('an existing database readable by others is tightened to 0600 once it opens; a new one is created 0600', () => {
    const path = join(dir, 'existing.db')
    const db = new Database(path, { create: true })
    db.run('CREATE TABLE kept (x INTEGER)')
    db.close()
    chmodSync(path, 0o644)
    const opened = openDatabase(path)
    if (!opened.ok) throw new Error(opened.error)
    expect(modeOf(path)).toBe('600')
    expect(opened.db.query('SELECT count(*) AS n FROM kept').get()).toEqual({ n: 0 })
    opened.db.close()

    const fresh = join(dir, 'fresh', 'new.db')
    const created = openDatabase(fresh)
    if (!created.ok) throw new Error(created.error)
    created.db.close()
    expect(modeOf(fresh)).toBe('600')
    expect(modeOf(join(dir, 'fresh'))).toBe('700')
  })
})
