// Opening the SQLite file: directory created if missing, pragmas for durability under
// concurrent writers (the service and the CLI share the file), migrations run at start.

import { Database } from 'bun:sqlite'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { MIGRATIONS } from './migrations.ts'

export type OpenResult = { ok: true; db: Database } | { ok: false; error: string }

const BUSY_TIMEOUT_MS = 5000

export function openDatabase(path: string): OpenResult {
  let db: Database | undefined
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  } catch {
    return { ok: false, error: 'DATABASE_PATH: the directory cannot be created' }
  }
  try {
    db = new Database(path, { create: true, strict: true })
    db.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
    db.run('PRAGMA journal_mode = WAL')
    // FULL: an acknowledged write survives a power cut too, not only a killed process.
    db.run('PRAGMA synchronous = FULL')
    db.run('PRAGMA foreign_keys = ON')
    const check = db.query<{ quick_check: string }, []>('PRAGMA quick_check').get()
    if (check?.quick_check !== 'ok') throw new Error('quick_check failed')
    migrate(db)
    return { ok: true, db }
  } catch (error) {
    db?.close()
    const code = (error as { code?: string }).code ?? ''
    if (code === 'SQLITE_CANTOPEN' || code === 'SQLITE_PERM' || code === 'SQLITE_READONLY' || code === 'EACCES') {
      return { ok: false, error: 'DATABASE_PATH: the database file cannot be opened for reading and writing' }
    }
    return { ok: false, error: 'DATABASE_PATH: the file is not a usable SQLite database (corrupt or not a database)' }
  }
}

function migrate(db: Database): void {
  db.run('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL) STRICT')
  const applied = new Set(db.query<{ version: number }, []>('SELECT version FROM schema_migrations').all().map((r) => r.version))
  for (const migration of MIGRATIONS) {
    if (applied.has(migration.version)) continue
    db.transaction(() => {
      // Another process may have applied it between our read and this immediate transaction.
      const done = db.query('SELECT 1 FROM schema_migrations WHERE version = ?').get(migration.version)
      if (done) return
      db.run(migration.sql)
      db.query('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(migration.version, new Date().toISOString())
    }).immediate()
  }
}

export function databaseUsable(db: Database): boolean {
  try {
    return db.query<{ one: number }, []>('SELECT 1 AS one').get()?.one === 1
  } catch {
    return false
  }
}
