// `admin-dashboard import-sqlite <file>`: moves a SQLite database (DATABASE_PATH of a single
// instance) into the empty PostgreSQL database of DATABASE_URL, in one transaction: settings as
// stored (encrypted values stay valid under the same ENCRYPTION_KEY), the audit trail with its
// ids, layouts and revocations. Refuses a target that already has rows.

import { Database } from 'bun:sqlite'
import { accessSync, constants, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { constants as osConstants, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { loadConfig } from '../config.ts'
import { PostgresStorage } from '../db/postgres-storage.ts'
import { DATABASE_BUSY, isDatabaseBusy, LOCK_WAIT_MS } from '../db/database.ts'
import { openSqliteStorage } from '../db/sqlite-storage.ts'
import { ApiError } from '../http/errors.ts'
import type { StorageDump, StoredAuditEvent } from '../db/storage.ts'
import type { CliIo } from './settings.ts'

const IMPORT_USAGE = `Usage:
  DATABASE_URL=postgres://… admin-dashboard import-sqlite <sqlite-file>
      copy everything in the SQLite file (settings, audit trail, layouts, revocations) into the
      empty PostgreSQL database of DATABASE_URL, in one transaction. Stop the instance that uses
      the file first; keep ENCRYPTION_KEY as it was.
`

/** Exit status: 0 done, 1 failed, 2 usage error. */
export async function runImportSqlite(args: string[], io: CliIo): Promise<number> {
  if (args[0] === '--help' || args[0] === '-h') {
    io.out(IMPORT_USAGE)
    return 0
  }
  if (args.length !== 1 || args[0]!.startsWith('-')) {
    io.err(`admin-dashboard: import-sqlite takes one SQLite file\n\n${IMPORT_USAGE}`)
    return 2
  }
  const path = args[0]!
  const loaded = loadConfig(io.env)
  if (!loaded.ok) {
    io.err(['admin-dashboard: invalid configuration:', ...loaded.errors.map((e) => `  ${e}`)].join('\n') + '\n')
    return 1
  }
  const url = loaded.config.databaseUrl
  if (url === null) {
    io.err('admin-dashboard: set DATABASE_URL to the PostgreSQL database to import into\n')
    return 1
  }
  // Opening would create a missing file: a mistyped path must not import an empty database.
  if (!existsSync(path)) {
    io.err(`admin-dashboard: there is no SQLite file at ${resolve(path)}; nothing was imported\n`)
    return 1
  }
  // The file is left as it was, whatever happens: it is read through a snapshot, which is
  // migrated to the current schema instead of the file itself. Its directory is private, and
  // removed at the end or when a signal stops the import, from before the copy is made.
  const removeSnapshot = removedWhenStopped(mkdtempSync(join(tmpdir(), 'admin-dashboard-import-')), io)
  const snapshot = snapshotOf(path, removeSnapshot.directory)
  if (!snapshot.ok) {
    removeSnapshot()
    io.err(`admin-dashboard: ${snapshot.error}\n`)
    return 1
  }
  const source = openSqliteStorage(snapshot.path)
  if (!source.ok) {
    removeSnapshot()
    io.err(`admin-dashboard: ${source.error.replace('DATABASE_PATH', 'the SQLite file')}\n`)
    return 1
  }
  const target = await PostgresStorage.open(url)
  if (!target.ok) {
    await source.storage.close()
    removeSnapshot()
    io.err(`admin-dashboard: ${target.error}\n`)
    return 1
  }
  try {
    const dump = await source.storage.dump()
    const refused = textPostgresCannotHold(dump)
    if (refused.length > 0) {
      io.err(`admin-dashboard: PostgreSQL cannot store U+0000, which these hold; nothing was imported (change or delete them on the SQLite database first):\n${refused.map((line) => `  ${line}\n`).join('')}`)
      return 1
    }
    // The audit trail passes a page at a time; its events are counted on the way.
    let events = 0
    const restored = await target.storage.restore({ ...dump, audit: counted(withoutNul(dump.audit), (page) => (events += page.length)) })
    if (!restored.ok) {
      io.err('admin-dashboard: the PostgreSQL database already has data; nothing was imported (import into an empty database)\n')
      return 1
    }
    io.out(
      `imported ${dump.settings.length} settings, ${events} audit events, ${dump.layouts.length} layouts, ` +
        `${dump.revocations.sessions.size} revoked sessions and ${dump.revocations.identities.size} identity revocations\n`,
    )
    return 0
  } catch (error) {
    if (error instanceof ApiError) {
      io.err('admin-dashboard: the database did not answer; nothing was imported\n')
      return 1
    }
    // Rolled back: a row PostgreSQL refused. Its SQLSTATE only; the error text may quote the data.
    const { errno } = (error ?? {}) as { errno?: unknown }
    if (typeof errno === 'string' && /^[0-9A-Z]{5}$/.test(errno)) {
      io.err(`admin-dashboard: PostgreSQL refused a row (SQLSTATE ${errno}); nothing was imported\n`)
      return 1
    }
    throw error
  } finally {
    await source.storage.close()
    await target.storage.close()
    removeSnapshot()
  }
}

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const

/**
 * `directory` (the snapshot's) removed when a signal stops the import too (Ctrl-C, the unit
 * stopped): the copy holds all that the file does, the audit trail and the settings, and is not
 * left in TMPDIR. The PostgreSQL transaction ends with the process, rolled back unless it had
 * committed. Returns what removes it at the end of the run.
 */
function removedWhenStopped(directory: string, io: CliIo): (() => void) & { directory: string } {
  const remove = () => rmSync(directory, { recursive: true, force: true })
  const stop = (signal: (typeof STOP_SIGNALS)[number]) => {
    remove()
    io.err(
      `admin-dashboard: import-sqlite stopped by ${signal}; the import is one transaction, so the PostgreSQL database holds all of it or nothing of it; the copy of the SQLite file was removed\n`,
    )
    process.exit(128 + osConstants.signals[signal])
  }
  for (const signal of STOP_SIGNALS) process.on(signal, stop)
  const done = () => {
    for (const signal of STOP_SIGNALS) process.off(signal, stop)
    remove()
  }
  return Object.assign(done, { directory })
}

type Snapshot = { ok: true; path: string } | { ok: false; error: string }

/**
 * A consistent copy of the SQLite file (`VACUUM INTO`, one read transaction) in `directory`, which
 * the caller removes. A lock another process holds on the file is
 * waited for as the other commands wait, up to LOCK_WAIT_MS (blocking: this process serves nothing
 * meanwhile), and then reported as such, not as a file that is not a database.
 */
function snapshotOf(path: string, directory: string): Snapshot {
  let db: Database
  try {
    db = new Database(path, { ...sourceMode(path), strict: true })
  } catch {
    return { ok: false, error: 'the SQLite file cannot be opened for reading' }
  }
  try {
    const copy = join(directory, 'snapshot.db')
    db.run(`PRAGMA busy_timeout = ${LOCK_WAIT_MS}`)
    db.run('VACUUM INTO ?', [copy])
    return { ok: true, path: copy }
  } catch (error) {
    if (isDatabaseBusy(error)) return { ok: false, error: `the SQLite file: ${DATABASE_BUSY}` }
    const code = (error as { code?: string }).code ?? ''
    // A database in WAL mode is read with its -shm file, which SQLite makes beside it when missing.
    if (code.startsWith('SQLITE_READONLY')) {
      return { ok: false, error: 'the SQLite file cannot be read where it is: SQLite must write its -shm file beside it (copy the file, with its -wal file, to a directory this user can write)' }
    }
    if (code === 'SQLITE_FULL' || code === 'SQLITE_IOERR' || code === 'SQLITE_CANTOPEN') return { ok: false, error: `the SQLite file cannot be copied to ${tmpdir()} (set TMPDIR to a directory with room for it)` }
    return { ok: false, error: 'the SQLite file is not a usable SQLite database (corrupt or not a database)' }
  } finally {
    db.close()
  }
}

/**
 * How the file is opened so that nothing is left beside it. A WAL database is read with a -wal and
 * a -shm file, which SQLite makes when they are missing (even for a read-only connection). The
 * connection that closes last on the file removes them, but only one that may write: it takes the
 * file's exclusive lock first, which it cannot while another process (a running service) has the
 * file open, and checkpoints the -wal into the file (wal.c sqlite3WalClose). So a file without
 * them (as a stopped service or `sqlite3 .backup` leaves it) is opened for writing, and only read:
 * what the import made beside it goes with it, and a service started meanwhile keeps its own. A
 * file with one of them (a service still running, or one that stopped without closing, whose -wal
 * may hold commits not yet in the file) is opened read-only: the file is not written and what is
 * beside it stays as it was. So is a file this user may not write (SQLite would open it read-only).
 */
function sourceMode(path: string): { readonly: true } | { readwrite: true } {
  const beside = ['-wal', '-shm', '-journal'].some((suffix) => existsSync(path + suffix))
  if (beside) return { readonly: true }
  try {
    accessSync(path, constants.W_OK)
    return { readwrite: true }
  } catch {
    return { readonly: true }
  }
}

const hasNul = (text: string | null): boolean => text !== null && text.includes('\0')

/** A name to print: U+0000 and other control characters escaped. */
const printable = (text: string): string => JSON.stringify(text)

/** What of the dump holds U+0000 (the audit trail aside), one line each; PostgreSQL's text cannot store it. */
function textPostgresCannotHold(dump: StorageDump): string[] {
  const found: string[] = []
  for (const s of dump.settings) {
    const fields = [hasNul(s.key) && 'key', hasNul(s.value) && 'value', hasNul(s.category) && 'category'].filter(Boolean)
    if (fields.length > 0) found.push(`setting ${printable(s.key)} (${fields.join(', ')})`)
  }
  for (const l of dump.layouts) if (hasNul(l.identity_id) || hasNul(l.layout)) found.push(`the dashboard layout of ${printable(l.identity_id)}`)
  for (const sid of dump.revocations.sessions.keys()) if (hasNul(sid)) found.push(`the revoked session ${printable(sid)}`)
  for (const id of dump.revocations.identities.keys()) if (hasNul(id)) found.push(`the identity revocation of ${printable(id)}`)
  return found
}

/** The audit trail as the service now writes it: U+0000 as U+FFFD (see AuditLog), so no event stops the import. */
async function* withoutNul(pages: AsyncIterable<StoredAuditEvent[]>): AsyncGenerator<StoredAuditEvent[]> {
  const clean = (text: string | null) => (text === null ? null : text.replaceAll('\0', '\uFFFD'))
  for await (const page of pages) {
    yield page.map((e) => ({ ...e, action: clean(e.action)!, actor: clean(e.actor), target: clean(e.target), detail: clean(e.detail) }))
  }
}

async function* counted<T>(pages: AsyncIterable<T[]>, seen: (page: T[]) => void): AsyncGenerator<T[]> {
  for await (const page of pages) {
    seen(page)
    yield page
  }
}
