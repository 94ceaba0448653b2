// The storage interface over bun:sqlite: one file, the tables of migrations.ts. Calls are
// synchronous underneath: each attempt at a unit of work runs to completion at once.
// Locks held by other connections (the CLI, a backup, an operator's `sqlite3` shell): SQLite is
// not let wait for them (busy_timeout 0), as a synchronous wait would stop the whole process. An
// attempt kept out by one fails at once having done nothing, and is made again on a timer until
// LOCK_WAIT_MS have passed since the call; meanwhile the process serves everything else. Writes
// keep this process's order: one waiting for a lock keeps the later ones behind it.
// Other processes on the same file: `PRAGMA data_version` changes when another connection
// commits; it is polled every POLL_MS and any change is handed to the listeners (settings: all
// keys, and the revocations), so their changes count here within 1 s. A change a listener could
// not apply (its reload kept out by a lock), or a version that cannot be read, is tried again at
// the next poll, and until then memory vouches only for the moment before (`freshAt`): the gate
// fails closed after FRESHNESS_WINDOW_MS instead of trusting revocations it could not read.
// A full disk: the unit of work that found no room did nothing (SQLite rolled it back), and fails
// with DiskFullError, which the API answers as the database being unavailable (503).
// The file replaced while the process runs (a backup restored, or the file moved away, without
// stopping the service): the connection still writes to the file it opened, which no other process
// sees and the next start does not open, so every write acknowledged from then on would be lost.
// Each write first checks that the path still names that file, and the poll does too; once it does
// not, the storage refuses everything as unavailable (503), the gate fails closed, and the log says
// `database_replaced` once: a restart opens the file now there.

import type { Database } from 'bun:sqlite'
import { statSync } from 'node:fs'
import { describeError, type Logger } from '../log.ts'
import { diskFullCode, DiskFullError, isDatabaseBusy, LOCK_WAIT_MS, openDatabase } from './database.ts'
import { MIGRATIONS } from './migrations.ts'
import {
  auditListQuery,
  encryptedRewrites,
  SchemaTooNewError,
  type AuditFilter,
  type AuditRecord,
  type ChangeListener,
  type IdentityRevocation,
  type RevocationCutoff,
  type RevocationMargins,
  type RevocationSnapshot,
  type Setting,
  type Storage,
  type StorageDump,
  type StoredAuditEvent,
  type SettingCondition,
  type UpsertOutcome,
  auditPages,
  StorageUnavailableError,
} from './storage.ts'

const POLL_MS = 250

/** Pauses between attempts while another connection holds a lock: short at first (most locks last one commit), then every 50 ms. */
const RETRY_DELAYS_MS = [1, 2, 5, 10, 20, 50]


interface SettingRow {
  key: string
  value: string
  encrypted: number
  category: string | null
  updated_at: string
}

const SETTING_COLUMNS = 'key, value, encrypted, category, updated_at'

/** The reason of the 503s once the file at the path is not the one opened. */
const REPLACED = 'database_replaced'

interface FileIdentity {
  dev: number
  ino: number
}

/** The file just opened at `path`; null (nothing to compare with later) in the unlikely case it cannot be looked at. */
function fileIdentityOrNull(path: string): FileIdentity | null {
  try {
    return fileAt(path)
  } catch {
    return null
  }
}

/** The file at `path` now, or null when there is none (removed, or its directory is gone). */
function fileAt(path: string): FileIdentity | null {
  try {
    const { dev, ino } = statSync(path)
    return { dev, ino }
  } catch (error) {
    const code = (error as { code?: string }).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return null
    // Not known to be another file (a directory this user may no longer search, say): taken as the same.
    throw error
  }
}

function toSetting(row: SettingRow): Setting {
  return { key: row.key, value: row.value, encrypted: row.encrypted === 1, category: row.category, updated_at: row.updated_at }
}

type SqliteOpenResult = { ok: true; storage: SqliteStorage } | { ok: false; error: string }

/** Opens (creating, unless `create: false`, and migrating) the file at `path`; refuses a schema newer than this executable. */
export function openSqliteStorage(path: string, options: { create?: boolean; log?: Logger } = {}): SqliteOpenResult {
  const opened = openDatabase(path, options)
  if (!opened.ok) return opened
  const newest = newestAppliedVersion(opened.db)
  const known = MIGRATIONS[MIGRATIONS.length - 1]!.version
  if (newest > known) {
    opened.db.close()
    return { ok: false, error: `DATABASE_PATH: ${new SchemaTooNewError(newest, known).message}` }
  }
  return { ok: true, storage: new SqliteStorage(opened.db, options.log) }
}

function newestAppliedVersion(db: Database): number {
  return db.query<{ v: number | null }, []>('SELECT MAX(version) AS v FROM schema_migrations').get()?.v ?? 0
}

export class SqliteStorage implements Storage {
  readonly engine = 'sqlite' as const
  private readonly listeners = new Set<ChangeListener>()
  private timer: ReturnType<typeof setInterval> | null = null
  private dataVersion = -1
  private closed = false
  private polling = false
  /**
   * What memory vouches for while a change waits to be applied, or the version cannot be read: the
   * start of the last poll that found everything applied (`performance.now()`); null when none waits.
   */
  private unappliedSince: number | null = null
  /** The start of the last poll that found nothing left to apply. */
  private cleanAt = performance.now()
  /** database_changes_unread was logged, and database_changes_read is due once they are read. */
  private unreadSaid = false
  /** Those waiting for the next poll (changes.nextPoll while a change waits): settled as it ends. */
  private pollWaiters: (() => void)[] = []
  /** Settles when every write this process has asked for so far has ended; null when none is under way. */
  private writesEnd: Promise<void> | null = null
  /** The file the connection opened; null for an in-memory database. */
  private readonly file: FileIdentity | null
  /** The path names another file, or none, since this was found: everything is refused. */
  private replaced = false

  /** `db` is the storage's from now on: it waits for other connections' locks as described above. */
  constructor(
    readonly db: Database,
    private readonly log?: Logger,
  ) {
    db.run('PRAGMA busy_timeout = 0')
    this.file = db.filename === '' || db.filename === ':memory:' ? null : fileIdentityOrNull(db.filename)
  }

  /**
   * Throws StorageUnavailableError once the path does not name the file the connection has open
   * (checked now when `look`, else as last found): what would be written there is lost.
   */
  private ensureSameFile(look: boolean): void {
    if (!this.replaced && look && this.file !== null) {
      let now: FileIdentity | null
      try {
        now = fileAt(this.db.filename)
      } catch {
        return
      }
      if (now === null || now.dev !== this.file.dev || now.ino !== this.file.ino) {
        this.replaced = true
        // The gate stops vouching for what it knows: others write to the file at the path.
        this.unappliedSince ??= this.cleanAt
        this.log?.error('database_replaced', {
          path: this.db.filename,
          detail: `the file at DATABASE_PATH is ${now === null ? 'gone' : 'another file'} since this process opened it (restored or moved while the service ran): nothing more is written or read until the service is restarted, which opens the file there now`,
        })
      }
    }
    if (this.replaced) throw new StorageUnavailableError(REPLACED)
  }

  /**
   * `operation` tried until it gets past the locks other connections hold or `deadline`
   * (`performance.now()` time) has passed, pausing on timers in between; then its busy error is
   * thrown (and at once when the storage is closed meanwhile). Tried at least once, the first time
   * at once. An attempt that failed as busy did nothing (a transaction's statements are rolled back
   * with it, a failed COMMIT included), so trying again cannot do anything twice. One that found
   * the disk full is not tried again: it fails as DiskFullError.
   */
  private async untilUnlocked<T>(operation: () => T, deadline: number): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return operation()
      } catch (error) {
        const left = deadline - performance.now()
        if (!isDatabaseBusy(error) || left <= 0) throw this.asDiskFull(error)
        await Bun.sleep(Math.min(RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length - 1)]!, left))
        if (this.closed) throw error
      }
    }
  }

  /** A failure for want of room on the disk holding the file as DiskFullError; any other as it came. */
  private asDiskFull(error: unknown): unknown {
    const code = diskFullCode(error, this.db.filename)
    return code === null ? error : new DiskFullError(code)
  }

  /** A read, tried again while another connection's lock keeps it out (a checkpoint, a lock on the whole file). */
  private read<T>(operation: () => T): Promise<T> {
    return this.untilUnlocked(() => {
      this.ensureSameFile(false)
      return operation()
    }, performance.now() + LOCK_WAIT_MS)
  }

  /** A write (one statement or one transaction), tried again while another connection holds the lock, in this process's order of writes. */
  private write<T>(operation: () => T): Promise<T> {
    return this.inWriteOrder((deadline) =>
      this.untilUnlocked(() => {
        this.ensureSameFile(true)
        return operation()
      }, deadline),
    )
  }

  /**
   * `work` once every write asked for before it has ended (at once when none is under way), with
   * the deadline of LOCK_WAIT_MS after this call: a write waiting for a lock keeps the later ones
   * behind it, so they commit in the order they were asked, as when each stopped the process.
   */
  private inWriteOrder<T>(work: (deadline: number) => Promise<T>): Promise<T> {
    const deadline = performance.now() + LOCK_WAIT_MS
    const before = this.writesEnd
    const result = before === null ? work(deadline) : before.then(() => work(deadline))
    const end = result.then(
      () => {},
      () => {},
    )
    this.writesEnd = end
    void end.then(() => {
      if (this.writesEnd === end) this.writesEnd = null
    })
    return result
  }

  // Settings ---------------------------------------------------------------------------------

  readonly settings = {
    get: (key: string): Promise<Setting | null> =>
      this.read(() => {
        const row = this.db.query<SettingRow, [string]>(`SELECT ${SETTING_COLUMNS} FROM settings WHERE key = ?`).get(key)
        return row ? toSetting(row) : null
      }),

    list: (): Promise<Setting[]> => this.read(() => this.listSettings()),

    // The callbacks (audit, rewrite) run in every attempt; only what the committing one returned is kept.
    upsert: (setting: Setting, audit: (outcome: UpsertOutcome) => AuditRecord, condition: SettingCondition = 'any'): Promise<UpsertOutcome | 'refused'> =>
      this.write(() =>
        this.db
          .transaction(() => {
            const exists = this.db.query('SELECT 1 FROM settings WHERE key = ?').get(setting.key) !== null
            if (condition === (exists ? 'absent' : 'present')) return 'refused'
            if (exists) {
              this.db
                .query('UPDATE settings SET value = ?, encrypted = ?, category = ?, updated_at = ? WHERE key = ?')
                .run(setting.value, setting.encrypted ? 1 : 0, setting.category, setting.updated_at, setting.key)
            } else {
              this.db
                .query(`INSERT INTO settings (${SETTING_COLUMNS}) VALUES (?, ?, ?, ?, ?)`)
                .run(setting.key, setting.value, setting.encrypted ? 1 : 0, setting.category, setting.updated_at)
            }
            const outcome: UpsertOutcome = exists ? 'updated' : 'created'
            this.appendAudit(audit(outcome))
            return outcome
          })
          .immediate(),
      ),

    delete: (key: string, audit: AuditRecord): Promise<boolean> =>
      this.write(() =>
        this.db
          .transaction(() => {
            const existed = this.db.query('DELETE FROM settings WHERE key = ?').run(key).changes > 0
            if (existed) this.appendAudit(audit)
            return existed
          })
          .immediate(),
      ),

    rewriteEncrypted: (
      rewrite: (setting: Setting) => string | null,
      audit: (count: number) => AuditRecord,
    ): Promise<{ ok: true; count: number } | { ok: false; keys: string[] }> =>
      this.write(() =>
        this.db
          .transaction(() => {
            const decided = encryptedRewrites(this.listSettings(), rewrite)
            if (!decided.ok) return decided
            const update = this.db.query('UPDATE settings SET value = ? WHERE key = ?')
            for (const [key, value] of decided.replaced) update.run(value, key)
            this.appendAudit(audit(decided.replaced.length))
            return { ok: true as const, count: decided.replaced.length }
          })
          .immediate(),
      ),
  }

  private listSettings(): Setting[] {
    return this.db.query<SettingRow, []>(`SELECT ${SETTING_COLUMNS} FROM settings ORDER BY key`).all().map(toSetting)
  }

  // Audit ------------------------------------------------------------------------------------

  private appendAudit(record: AuditRecord): void {
    this.db
      .query('INSERT INTO audit_events (at, action, actor, target, detail, request_id) VALUES (?, ?, ?, ?, ?, ?)')
      .run(record.at, record.action, record.actor, record.target, record.detail, record.request_id)
  }

  readonly audit = {
    append: (record: AuditRecord): Promise<void> => this.write(() => this.appendAudit(record)),

    begin: (record: AuditRecord): Promise<number> =>
      this.write(
        () =>
          this.db
            .query<{ id: number }, (string | null)[]>('INSERT INTO audit_events (at, action, actor, target, detail, request_id) VALUES (?, ?, ?, ?, ?, ?) RETURNING id')
            .get(record.at, record.action, record.actor, record.target, record.detail, record.request_id)!.id,
      ),

    complete: (id: number, detail: string | null): Promise<void> =>
      this.write(() => {
        this.db.query('UPDATE audit_events SET detail = ? WHERE id = ?').run(detail, id)
      }),

    list: (filter: AuditFilter): Promise<StoredAuditEvent[]> => {
      const { sql, params } = auditListQuery(filter, () => '?')
      return this.read(() => this.db.query<StoredAuditEvent, (string | number)[]>(sql).all(...params))
    },

    // Times are stored as ISO 8601 in UTC with milliseconds, which sort as text.
    countBefore: (at: string): Promise<number> =>
      this.read(() => this.db.query<{ events: number }, [string]>('SELECT count(*) AS events FROM audit_events WHERE at < ?').get(at)!.events),

    // What to delete is found by a read, outside the write lock: `at` has no index, and the last
    // batch walks the whole trail to find fewer than `limit` (0.2 s per 2 million events), which
    // under the lock would hold the running service's writes up as long. The write then deletes by
    // id, over the range just read: ids only grow, so it holds those events and no others.
    deleteBefore: async (at: string, limit: number): Promise<number> => {
      const last = await this.read(
        () => this.db.query<{ id: number | null }, [string, number]>('SELECT max(id) AS id FROM (SELECT id FROM audit_events WHERE at < ? ORDER BY id LIMIT ?)').get(at, limit)!.id,
      )
      if (last === null) return 0
      return this.write(() => this.db.query('DELETE FROM audit_events WHERE id <= ? AND at < ?').run(last, at).changes)
    },
  }

  // Layouts ----------------------------------------------------------------------------------

  readonly layouts = {
    get: (identityId: string): Promise<string | null> =>
      this.read(
        () => this.db.query<{ layout: string }, [string]>('SELECT layout FROM dashboard_layouts WHERE identity_id = ?').get(identityId)?.layout ?? null,
      ),

    put: (identityId: string, layout: string, at: string): Promise<void> =>
      this.write(() => {
        this.db
          .query(
            `INSERT INTO dashboard_layouts (identity_id, layout, updated_at) VALUES (?, ?, ?)
             ON CONFLICT (identity_id) DO UPDATE SET layout = excluded.layout, updated_at = excluded.updated_at`,
          )
          .run(identityId, layout, at)
      }),
  }

  // The signing key's fingerprint -----------------------------------------------------------

  readonly signingKey = {
    get: (): Promise<string | null> =>
      this.read(() => this.db.query<{ fingerprint: string }, []>('SELECT fingerprint FROM signing_key WHERE id = 1').get()?.fingerprint ?? null),

    exchange: (fingerprint: string, at: string): Promise<string | null> =>
      this.write(() =>
        this.db
          .transaction(() => {
            const before = this.db.query<{ fingerprint: string }, []>('SELECT fingerprint FROM signing_key WHERE id = 1').get()?.fingerprint ?? null
            this.db
              .query('INSERT INTO signing_key (id, fingerprint, updated_at) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET fingerprint = excluded.fingerprint, updated_at = excluded.updated_at')
              .run(fingerprint, at)
            return before
          })
          .immediate(),
      ),
  }

  // Revocations ------------------------------------------------------------------------------

  readonly revocations = {
    load: (): Promise<RevocationSnapshot> => this.read(() => this.loadRevocations()),

    revokeSession: (sid: string, expiresAt: number, audit?: AuditRecord): Promise<void> =>
      this.write(() =>
        this.db
          .transaction(() => {
            // A second revocation of the sid never shortens how long the first is kept.
            this.db
              .query(
                `INSERT INTO revoked_sessions (sid, expires_at) VALUES (?, ?)
                 ON CONFLICT (sid) DO UPDATE SET expires_at = MAX(revoked_sessions.expires_at, excluded.expires_at)`,
              )
              .run(sid, expiresAt)
            if (audit) this.appendAudit(audit)
          })
          .immediate(),
      ),

    revokeIdentity: (identityId: string, revocation: { seconds: number; ms: number }, audit?: AuditRecord): Promise<void> =>
      this.write(() =>
        this.db
          .transaction(() => {
            // An older revocation written late (another process, a clock behind) never moves the time
            // back. A row from before millisecond times were kept (ms NULL: its whole second is refused)
            // stays so unless the new time is a later second. SQLite's MAX is NULL when an argument is.
            this.db
              .query(
                `INSERT INTO identity_revocations (identity_id, revoked_at, revoked_at_ms) VALUES (?, ?, ?)
                 ON CONFLICT (identity_id) DO UPDATE SET
                   revoked_at = MAX(identity_revocations.revoked_at, excluded.revoked_at),
                   revoked_at_ms = CASE
                     WHEN identity_revocations.revoked_at_ms IS NULL AND identity_revocations.revoked_at >= excluded.revoked_at THEN NULL
                     ELSE MAX(COALESCE(identity_revocations.revoked_at_ms, excluded.revoked_at_ms), excluded.revoked_at_ms) END`,
              )
              .run(identityId, revocation.seconds, revocation.ms)
            if (audit) this.appendAudit(audit)
          })
          .immediate(),
      ),

    // Every process on the file runs on one host, with one clock: the caller's (read at the call,
    // so an attempt made after a wait forgets no more than the first would have).
    forgetExpired: (margins: RevocationMargins, nowSeconds: number): Promise<RevocationCutoff> =>
      this.write(() =>
        this.db
          .transaction(() => {
            const cutoff = { sessionsExpiredBy: nowSeconds - margins.sessionsSeconds, identitiesRevokedBy: nowSeconds - margins.identitiesSeconds }
            this.db.query('DELETE FROM revoked_sessions WHERE expires_at <= ?').run(cutoff.sessionsExpiredBy)
            this.db.query('DELETE FROM identity_revocations WHERE revoked_at <= ?').run(cutoff.identitiesRevokedBy)
            return cutoff
          })
          .immediate(),
      ),
  }

  private loadRevocations(): RevocationSnapshot {
    const sessions = new Map<string, number>()
    for (const row of this.db.query<{ sid: string; expires_at: number }, []>('SELECT sid, expires_at FROM revoked_sessions').all()) {
      sessions.set(row.sid, row.expires_at)
    }
    const identities = new Map<string, IdentityRevocation>()
    for (const row of this.db
      .query<{ identity_id: string; revoked_at: number; revoked_at_ms: number | null }, []>(
        'SELECT identity_id, revoked_at, revoked_at_ms FROM identity_revocations',
      )
      .all()) {
      identities.set(row.identity_id, { seconds: row.revoked_at, ms: row.revoked_at_ms })
    }
    return { sessions, identities }
  }

  // Changes by other processes ---------------------------------------------------------------

  readonly changes = {
    subscribe: (listener: ChangeListener): (() => void) => {
      this.listeners.add(listener)
      this.startPolling()
      return () => void this.listeners.delete(listener)
    },
    // A local file: what another process committed is read at the next poll, never later, unless
    // a listener could not apply it.
    freshAt: (): number => this.unappliedSince ?? Infinity,
    ready: (): Promise<void> => Promise.resolve(),
    nextPoll: (): Promise<void> => (this.unappliedSince === null || this.closed ? Promise.resolve() : new Promise<void>((resolve) => this.pollWaiters.push(resolve))),
  }

  private startPolling(): void {
    if (this.timer !== null || this.closed) return
    try {
      this.dataVersion = this.readDataVersion()
    } catch {
      // Kept out by another connection's lock: the first poll that gets through hands a change on.
    }
    this.timer = setInterval(() => void this.poll(), POLL_MS)
    this.timer.unref?.()
  }

  private readDataVersion(): number {
    return this.db.query<{ data_version: number }, []>('PRAGMA data_version').get()!.data_version
  }

  /**
   * One at a time. A change is marked as read only once every listener has applied it; until then,
   * and while the version cannot be read, memory vouches only for the moment before.
   */
  private async poll(): Promise<void> {
    if (this.closed || this.polling) return
    this.polling = true
    const seen = performance.now()
    try {
      this.ensureSameFile(true)
      const version = this.readDataVersion()
      if (version !== this.dataVersion) {
        // Memory vouches for what the last clean poll saw, until the change is applied.
        this.unappliedSince ??= this.cleanAt
        await Promise.all(
          [...this.listeners].flatMap((listener) => [
            Promise.resolve().then(() => listener({ topic: 'settings', key: null })),
            Promise.resolve().then(() => listener({ topic: 'revocations' })),
          ]),
        )
        this.dataVersion = version
      }
      this.unappliedSince = null
      this.cleanAt = seen
      if (this.unreadSaid) this.log?.info('database_changes_read')
      this.unreadSaid = false
    } catch (error) {
      // The version or a listener's read failed (kept out by a lock for LOCK_WAIT_MS, or worse): tried again at the next poll.
      this.unappliedSince ??= this.cleanAt
      if (this.replaced) return
      if (!this.unreadSaid) this.log?.warn('database_changes_unread', describeError(error))
      this.unreadSaid = true
    } finally {
      this.polling = false
      for (const settle of this.pollWaiters.splice(0)) settle()
    }
  }

  // Whole database ---------------------------------------------------------------------------

  // Answers now or not at all: `SELECT 1` reads no table, so no lock makes it wait.
  async ping(): Promise<boolean> {
    if (this.replaced) return false
    try {
      return this.db.query<{ one: number }, []>('SELECT 1 AS one').get()?.one === 1
    } catch {
      return false
    }
  }

  async dump(): Promise<StorageDump> {
    const tables = await this.read(() =>
      this.db
        .transaction(() => ({
          settings: this.listSettings(),
          layouts: this.db
            .query<{ identity_id: string; layout: string; updated_at: string }, []>(
              'SELECT identity_id, layout, updated_at FROM dashboard_layouts ORDER BY identity_id',
            )
            .all(),
          revocations: this.loadRevocations(),
        }))
        .deferred(),
    )
    return { ...tables, audit: auditPages(this.audit) }
  }

  restore(dump: StorageDump): Promise<{ ok: true } | { ok: false; reason: 'not_empty' }> {
    // The audit pages arrive asynchronously: the transaction is opened and ended by hand around them,
    // as one write in this process's order (its other writes wait for its end rather than land in
    // it). Only BEGIN waits for another connection's lock: once it holds the write lock nothing else
    // takes it, and the rest cannot be tried again (the pages are read once); a failure rolls back.
    // The target is a new, empty database that nothing else uses meanwhile.
    return this.inWriteOrder((deadline) => this.restoreUnder(dump, deadline))
  }

  private async restoreUnder(dump: StorageDump, deadline: number): Promise<{ ok: true } | { ok: false; reason: 'not_empty' }> {
    await this.untilUnlocked(() => {
      this.ensureSameFile(true)
      this.db.run('BEGIN IMMEDIATE')
    }, deadline)
    try {
      for (const table of ['settings', 'audit_events', 'dashboard_layouts', 'revoked_sessions', 'identity_revocations']) {
        if (this.db.query(`SELECT 1 FROM ${table} LIMIT 1`).get() !== null) {
          this.db.run('ROLLBACK')
          return { ok: false, reason: 'not_empty' }
        }
      }
      const setting = this.db.query(`INSERT INTO settings (${SETTING_COLUMNS}) VALUES (?, ?, ?, ?, ?)`)
      for (const s of dump.settings) setting.run(s.key, s.value, s.encrypted ? 1 : 0, s.category, s.updated_at)
      const event = this.db.query('INSERT INTO audit_events (id, at, action, actor, target, detail, request_id) VALUES (?, ?, ?, ?, ?, ?, ?)')
      for await (const page of dump.audit) for (const e of page) event.run(e.id, e.at, e.action, e.actor, e.target, e.detail, e.request_id)
      const layout = this.db.query('INSERT INTO dashboard_layouts (identity_id, layout, updated_at) VALUES (?, ?, ?)')
      for (const l of dump.layouts) layout.run(l.identity_id, l.layout, l.updated_at)
      const session = this.db.query('INSERT INTO revoked_sessions (sid, expires_at) VALUES (?, ?)')
      for (const [sid, expiresAt] of dump.revocations.sessions) session.run(sid, expiresAt)
      const identity = this.db.query('INSERT INTO identity_revocations (identity_id, revoked_at, revoked_at_ms) VALUES (?, ?, ?)')
      for (const [id, r] of dump.revocations.identities) identity.run(id, r.seconds, r.ms)
      this.db.run('COMMIT')
      return { ok: true }
    } catch (error) {
      if (this.db.inTransaction) this.db.run('ROLLBACK')
      throw error
    }
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    if (this.timer !== null) clearInterval(this.timer)
    this.listeners.clear()
    for (const settle of this.pollWaiters.splice(0)) settle()
    this.db.close()
  }
}
