// Opening the SQLite file: directory created if missing, pragmas for durability under
// concurrent writers (the service and the CLI share the file), migrations run at start. What is
// done here runs before the process does anything else (the service listens only after it), so
// it waits for another connection's lock in SQLite's own busy handler, blocking, up to LOCK_WAIT_MS;
// the storage's methods then wait without blocking (sqlite-storage.ts).

import { Database } from 'bun:sqlite'
import { accessSync, chmodSync, closeSync, constants, existsSync, mkdirSync, openSync, statfsSync, statSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { MIGRATIONS } from './migrations.ts'
import { systemCodeOf, errorLabel } from '../log.ts'

type OpenResult = { ok: true; db: Database } | { ok: false; error: string }

/** How long one unit of work waits, in all, for a lock another connection holds; then it fails as busy. */
export const LOCK_WAIT_MS = 5000

// Settings (encrypted or not), the audit trail and revocations live here: owner only, whatever the umask.
const DIRECTORY_MODE = 0o700
const FILE_MODE = 0o600
const SQLITE_SIDE_FILES = ['-wal', '-shm', '-journal']

/**
 * A directory we create is 0700, and so is a database file we create. An existing file is only
 * tightened once SQLite has read it as a database (`tightenModes`): a path that names something
 * else (a typo, /dev/null, a file of the operator's) is refused untouched. Without `create`, a
 * missing file is left missing (the caller has said so already) and nothing is made.
 */
function prepareFiles(path: string, create: boolean): void {
  if (!create && !existsSync(path)) return
  const directory = dirname(path)
  if (!existsSync(directory)) {
    const first = mkdirSync(directory, { recursive: true, mode: DIRECTORY_MODE })
    // Every directory mkdir created, from the first one down, is ours to tighten (the umask may have loosened none, but be exact).
    if (first) {
      for (let current = directory; current.length >= first.length; current = dirname(current)) {
        chmodSync(current, DIRECTORY_MODE)
        if (current === first) break
      }
    }
  }
  if (!existsSync(path)) {
    closeSync(openSync(path, 'a', FILE_MODE))
    return
  }
  const stat = statSync(path)
  if (stat.isDirectory()) throw Object.assign(new Error('a directory'), { code: 'EISDIR' })
  if (!stat.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'ENOTREG' })
  restoreSideFiles(path)
}

/**
 * SQLite makes its -wal and -shm files with the database's mode: a start while the database could
 * only be read (0400, say) leaves them read-only, and they would keep it so after the database is
 * writable again. Ours (same owner) and without the owner's write bit: made 0600 before opening.
 */
function restoreSideFiles(path: string): void {
  const uid = process.getuid?.()
  for (const file of SQLITE_SIDE_FILES.map((suffix) => path + suffix)) {
    if (!existsSync(file)) continue
    const stat = statSync(file)
    if (stat.isFile() && stat.uid === uid && (stat.mode & 0o200) === 0) chmodSync(file, FILE_MODE)
  }
}

/**
 * SQLite opens a file it may only read without a word, and every write fails later: what it needs
 * to write is checked first. The file and its -wal and -shm files where they exist, and the
 * directory where one of them is still to be made. (Not by a write: that would wait for a lock
 * another process may hold for a while, and the service starts while one is held.)
 */
function checkWritable(path: string): void {
  const sideFiles = ['-wal', '-shm'].map((suffix) => path + suffix)
  const needed = [path, ...sideFiles.filter((file) => existsSync(file))]
  if (sideFiles.some((file) => !existsSync(file))) needed.push(dirname(path))
  for (const file of needed) {
    try {
      accessSync(file, constants.W_OK)
    } catch (error) {
      const code = (error as { code?: string }).code
      throw Object.assign(new Error('not writable'), { code: code === 'EROFS' ? 'EROFS' : 'NOT_WRITABLE' })
    }
  }
}

/** The path said in full (the working directory decides a relative one); a path is no secret. */
const cannotOpen = (path: string) =>
  `DATABASE_PATH: the database file ${resolve(path)} cannot be opened for reading and writing by this user (uid ${process.getuid?.() ?? 'unknown'})${existsSync(dirname(resolve(path))) ? '' : ', nor its directory made'}`
const CANNOT_WRITE = 'DATABASE_PATH: the database cannot be written (the file, its directory, or its -wal or -shm file is read-only for this user)'
const CORRUPT = 'DATABASE_PATH: the file is not a usable SQLite database (corrupt or not a database)'
/** `code`: SQLite's, or the system's (ENOSPC). */
export const diskFull = (code: string) => `DATABASE_PATH: the disk holding the database is full (${code})`

/** What went wrong opening the database, in words; corruption only when SQLite says so. */
function openFailure(error: unknown, path: string): string {
  const full = diskFullCode(error, path)
  if (full !== null) return diskFull(full)
  const code = systemCodeOf(error) ?? ''
  if (code.startsWith('SQLITE_READONLY') || code === 'NOT_WRITABLE' || code === 'EROFS') return CANNOT_WRITE
  if (code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_PERM') || code === 'EACCES' || code === 'EPERM') return cannotOpen(path)
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB' || code === 'QUICK_CHECK') return CORRUPT
  if (code.startsWith('SQLITE_IOERR')) return `DATABASE_PATH: the database file cannot be read or written (${code})`
  return `DATABASE_PATH: the database cannot be opened (${errorLabel(error, 'unknown error')})`
}

/** The database file and the files SQLite keeps beside it: owner only, whatever they were. */
function tightenModes(path: string): void {
  for (const file of [path, ...SQLITE_SIDE_FILES.map((suffix) => path + suffix)]) {
    if (existsSync(file) && (statSync(file).mode & 0o077) !== 0) chmodSync(file, FILE_MODE)
  }
}

/**
 * Said by the commands that only read or delete (`settings list`, `get`, `delete`, `reencrypt`)
 * when DATABASE_PATH names no file: creating one would answer from an empty database, as if the
 * settings were gone, when the path is wrong (a DATABASE_PATH left out of the environment falls
 * back to ./data/admin-dashboard.db). The path is said in full: the working directory decides a
 * relative one.
 */
export function noDatabaseAt(path: string): string {
  return `DATABASE_PATH: there is no database at ${resolve(path)}; nothing was done. Check DATABASE_PATH (\`serve\` and \`settings set\` create the database, this command does not)`
}

/** check-config's note on a first install, run before the first start (the unit's ExecStartPre). */
export function noDatabaseYet(path: string): string {
  return `DATABASE_PATH: there is no database at ${resolve(path)} yet; \`serve\` (or \`settings set\`) creates it`
}

/** check-config's verdict when `serve` could not create the database either. */
export function cannotCreateDatabase(path: string): string {
  return `DATABASE_PATH: there is no database at ${resolve(path)}, and this user cannot create one there (its directory cannot be made or written)`
}

/**
 * Where DATABASE_PATH stands before anything opens it: a file there, none that `serve` could
 * create (the nearest directory that exists can be written and searched by this user: the one
 * mkdir works in), or none that it could not. For check-config, which creates nothing.
 */
export function databaseFileState(path: string): 'exists' | 'creatable' | 'not_creatable' | 'disk_full' {
  if (path === ':memory:' || existsSync(path)) return 'exists'
  let directory = dirname(resolve(path))
  while (!existsSync(directory)) directory = dirname(directory)
  try {
    if (!statSync(directory).isDirectory()) return 'not_creatable'
    accessSync(directory, constants.W_OK | constants.X_OK)
  } catch {
    return 'not_creatable'
  }
  return noBlockLeft(directory) ? 'disk_full' : 'creatable'
}

/** The filesystem holding `directory` has no block left to give this process (root may use the reserve). */
function noBlockLeft(directory: string): boolean {
  try {
    const space = statfsSync(directory)
    return (process.getuid?.() === 0 ? space.bfree : space.bavail) === 0
  } catch {
    return false
  }
}

export const DATABASE_BUSY = 'the database is busy (locked by another process); try again'

/**
 * SQLite's code when `error` means the disk holding the database at `path` has no room left, else
 * null. SQLite says so as SQLITE_FULL when one of its writes to the file, the -wal or a journal
 * finds no room (ENOSPC: os_unix.c unixWrite), but only as an I/O error from others: extending
 * the -shm file, the first thing a start on a full disk does (SQLITE_IOERR_SHMSIZE, unixShmMap),
 * preallocating or syncing (SQLITE_IOERR_WRITE, _FSYNC). Those codes stand for other failures too
 * (EIO), so they count only while the filesystem has no block left to give this process.
 */
export function diskFullCode(error: unknown, path: string): string | null {
  const code = systemCodeOf(error)
  if (code === 'SQLITE_FULL') return code
  if (code === null || !code.startsWith('SQLITE_IOERR') || path === ':memory:') return null
  return noBlockLeft(dirname(path)) ? code : null
}

/** Nothing could be written for want of room on the disk holding the database: nothing was done, and the same write works once room is made. */
export class DiskFullError extends Error {
  /** `code`: SQLite's (SQLITE_FULL, or the I/O error it reported, SQLITE_IOERR_SHMSIZE…). */
  constructor(readonly code: string) {
    super('the disk holding the database is full')
    this.name = 'DiskFullError'
  }
}

/** A lock another connection holds kept SQLite out: nothing was done, and trying again later can succeed. */
export function isDatabaseBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && /^SQLITE_(BUSY|LOCKED)/.test(code)
}

/** `create: false`: a file that does not exist is refused (noDatabaseAt), and nothing is made. */
export function openDatabase(path: string, { create = true }: { create?: boolean } = {}): OpenResult {
  let db: Database | undefined
  if (!create && path !== ':memory:' && !existsSync(path)) return { ok: false, error: noDatabaseAt(path) }
  try {
    if (path !== ':memory:') prepareFiles(path, create)
  } catch (error) {
    const code = (error as { code?: string }).code ?? ''
    if (code === 'ENOSPC') return { ok: false, error: diskFull(code) }
    if (code === 'ENOTREG') return { ok: false, error: 'DATABASE_PATH: not a regular file' }
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || code === 'EISDIR') return { ok: false, error: cannotOpen(path) }
    return { ok: false, error: 'DATABASE_PATH: the directory cannot be created' }
  }
  try {
    // Without create, SQLite too refuses a file removed since the check above (SQLITE_CANTOPEN).
    db = new Database(path, { create, strict: true })
    db.run(`PRAGMA busy_timeout = ${LOCK_WAIT_MS}`)
    if (path !== ':memory:') checkWritable(path)
    db.run('PRAGMA journal_mode = WAL')
    // FULL: an acknowledged write survives a power cut too, not only a killed process.
    db.run('PRAGMA synchronous = FULL')
    db.run('PRAGMA foreign_keys = ON')
    const check = db.query<{ quick_check: string }, []>('PRAGMA quick_check').get()
    if (check?.quick_check !== 'ok') throw Object.assign(new Error('quick_check failed'), { code: 'QUICK_CHECK' })
    if (path !== ':memory:') tightenModes(path)
    migrate(db)
    return { ok: true, db }
  } catch (error) {
    db?.close()
    if (isDatabaseBusy(error)) return { ok: false, error: `DATABASE_PATH: ${DATABASE_BUSY}` }
    return { ok: false, error: openFailure(error, path) }
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
