// The storage interface over PostgreSQL through Bun's built-in client (Bun.SQL): several replicas
// share one database. The URL is passed to Bun.SQL as it is, so its TLS parameters (`sslmode`,
// `sslrootcert`, `sslcert`, `sslkey`) apply.
//
// Freshness across replicas: every change to settings or revocations raises its topic's row in
// `storage_versions` and sends a NOTIFY, in its own transaction. Each replica LISTENs (changes
// arrive at once) and polls the versions every POLL_MS: a poll that started at t and whose
// changes the listeners have applied proves that everything committed before t is known here
// (`freshAt`). Notifications lost while the listening connection was down are caught by the poll.
// The poll and the revocation reloads it starts run on a connection of their own (`watch`), not
// on the pool: requests that fill the pool (writes waiting for a lock held elsewhere) cannot keep
// the gate from staying fresh. Bun's client opens it again after it breaks. The LISTEN has a
// connection of its own too, proved alive by a notification the poll sends it every few seconds,
// and replaced when it stops delivering (see postgres-listen.ts).
//
// Failures: a query that cannot reach the database, or takes longer than OPERATION_TIMEOUT_MS,
// throws StorageUnavailableError (503). Error texts are never logged: only codes. PostgreSQL keeps
// the deadline too (statement_timeout, and writes commit only in time, see `transaction`), so what
// was answered 503 is not done later: no write committed after the answer, no query left holding
// a connection of the pool. Connections the server ended (a failover, pg_terminate_backend) fail
// the next query sent on them: a read is tried again on another connection, and so is a
// transaction whose BEGIN failed that way; a transaction under way is never repeated. A connection
// that stops answering without breaking (half-open: a partition, a firewall that dropped the flow,
// a failover without a reset) would fail every later operation handed to it until TCP gives up,
// minutes later: an operation that gets no answer by its deadline closes its connection and the
// pool (the poll's, or the requests') is replaced (see postgres-pool.ts), so the next operations
// run on fresh connections. The one that gave up answers 503 and is not tried again.
//
// Closing (at shutdown) waits on none of the change feed's connections, which may be among those
// that stopped answering: only queries under way on the pool are given up to their deadline.

import { SQL, type TransactionSQL } from 'bun'
import { accessSync, constants as fsConstants } from 'node:fs'
import { systemCodeOf, sqlstateOf, type Logger } from '../log.ts'
import { ReplaceablePool } from './postgres-pool.ts'
import { ReplaceableListener, type ListenLoss } from './postgres-listen.ts'
import { MIGRATION_LOCK_KEY, POSTGRES_MIGRATIONS } from './postgres-migrations.ts'
import {
  auditListQuery,
  encryptedRewrites,
  SchemaTooNewError,
  StorageUnavailableError,
  type AuditFilter,
  type AuditRecord,
  type Change,
  type ChangeListener,
  type IdentityRevocation,
  type RevocationCutoff,
  type RevocationMargins,
  type RevocationSnapshot,
  type Setting,
  type Storage,
  type StorageDump,
  auditPages,
  type StoredAuditEvent,
  type SettingCondition,
  type UpsertOutcome,
} from './storage.ts'

const CHANGE_CHANNEL = 'admin_dashboard_changes'
const POLL_MS = 200
const POLL_TIMEOUT_MS = 2000
const OPERATION_TIMEOUT_MS = 5000
/** The part of a deadline kept for the COMMIT's round trip and the answer: the database's own deadline is this much earlier. */
const COMMIT_MARGIN_MS = 1000
/** The least idle_in_transaction_session_timeout a transaction sets (see `transaction`). */
const IDLE_FLOOR_MS = 500
const CONNECT_TIMEOUT_SECONDS = 5

type Sql = InstanceType<typeof SQL>

export interface PostgresOptions {
  log?: Logger
  /** Pool size; the URL's `max` parameter, else Bun's default (10). */
  max?: number
}

type PostgresOpenResult = { ok: true; storage: PostgresStorage } | { ok: false; error: string }

/** How long the migrations' transaction runs before the log says the start is waiting on it. */
const MIGRATIONS_SAID_AFTER_MS = 2000

const TRY_AGAIN_LATER = new Set(['3D000', '25P03', '25P04', '25006', '40P01', '55P03'])

/** Whether a failure means "the database cannot be reached now" (503) rather than a bug (500). */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof StorageUnavailableError) return true
  const { code, errno } = (error ?? {}) as { code?: unknown; errno?: unknown }
  if (typeof code !== 'string') return false
  if (code === 'ERR_POSTGRES_SERVER_ERROR') {
    // Connection exception, insufficient resources, operator intervention (shutdown, starting
    // up), system error, invalid authorization, no such database.
    // And a session ended for idling in a transaction past its deadline (25P03), or for a
    // transaction that outlived transaction_timeout (25P04); a database that takes no writes (a
    // standby after a failover, default_transaction_read_only: 25006); a transaction given up for
    // a deadlock, or a lock not available (40P01, 55P03): each left nothing done, and may be tried
    // again. (No transaction here is serializable: a 40001 would be a bug.)
    return typeof errno === 'string' && (/^(08|53|57|58|28)/.test(errno) || TRY_AGAIN_LATER.has(errno))
  }
  return (
    /^ERR_POSTGRES_(CONNECTION|IDLE_TIMEOUT|LIFETIME_TIMEOUT|TLS|AUTHENTICATION|SASL|CHANNEL_BINDING|QUERY_CANCELLED|UNSUPPORTED_AUTHENTICATION|UNKNOWN_AUTHENTICATION)/.test(code) ||
    // System errors (ECONNRESET…) and certificate verification (DEPTH_ZERO_SELF_SIGNED_CERT, ERR_TLS_CERT_ALTNAME_INVALID…).
    /^E[A-Z]+$/.test(code) ||
    /CERT|TLS|SSL/.test(code)
  )
}

function unavailableReason(error: unknown): string {
  return sqlstateOf(error) ?? systemCodeOf(error) ?? 'unknown'
}

/** SQLSTATEs of a session the server ended: pg_terminate_backend or a shutdown, a crash of another backend, idle_session_timeout. */
const SESSION_ENDED = new Set(['57P01', '57P02', '57P05'])

/**
 * Whether a query failed because its connection had been ended (by the server, or its socket
 * closed). Bun's pool finds a dead idle connection out only by sending a query on it: after a
 * failover or pg_terminate_backend, every dead connection of the pool fails the next query it gets.
 */
function onEndedConnection(error: unknown): boolean {
  const { code, errno } = (error ?? {}) as { code?: unknown; errno?: unknown }
  if (code === 'ERR_POSTGRES_CONNECTION_CLOSED') return true
  return code === 'ERR_POSTGRES_SERVER_ERROR' && typeof errno === 'string' && SESSION_ENDED.has(errno)
}

/**
 * `work` on a connection of `pool`, again while it fails on an ended connection and `repeatable()`
 * still holds: at most once per connection of the pool and once more, as each such failure retires
 * a dead connection at once (no wait) and the pool may hold several. Never after the deadline: a
 * connection closed because it did not answer in time is not an ended one to try past.
 */
async function onLiveConnection<T>(pool: ReplaceablePool, deadline: AbortSignal, work: (sql: Sql) => Promise<T>, repeatable: () => boolean): Promise<T> {
  const attempts = pool.max + 1
  for (let n = 1; ; n++) {
    try {
      return await pool.run(deadline, work)
    } catch (error) {
      if (n >= attempts || deadline.aborted || !onEndedConnection(error) || !repeatable()) throw error
    }
  }
}

/** A read (safe to repeat) under a deadline, tried again when its connection turns out to have been ended. */
function read<T>(pool: ReplaceablePool, query: (sql: Sql) => Promise<T>, timeoutMs = OPERATION_TIMEOUT_MS): Promise<T> {
  return guarded(pool, query, timeoutMs)
}

/**
 * Runs `work` on a connection of `pool` with a deadline (the connection closed if it has not
 * answered by then); connection failures become StorageUnavailableError.
 */
async function guarded<T>(pool: ReplaceablePool, work: (sql: Sql) => Promise<T>, timeoutMs: number, repeatable: () => boolean = () => true): Promise<T> {
  const deadline = new AbortController()
  const timer = setTimeout(() => deadline.abort(new StorageUnavailableError('timeout')), timeoutMs)
  const expired = new Promise<never>((_, reject) => {
    deadline.signal.addEventListener('abort', () => reject(deadline.signal.reason), { once: true })
  })
  try {
    return await Promise.race([onLiveConnection(pool, deadline.signal, work, repeatable), expired])
  } catch (error) {
    if (error instanceof StorageUnavailableError) throw error
    if (isUnavailable(error)) throw new StorageUnavailableError(unavailableReason(error))
    throw error
  } finally {
    clearTimeout(timer)
  }
}

/**
 * A transaction under a deadline that PostgreSQL keeps as well: each statement may take at most the
 * time left (statement_timeout, for this transaction only), and the work commits only if it ended
 * COMMIT_MARGIN_MS before the deadline, else it is rolled back. So a write answered 503 by `guarded`
 * (a lock held elsewhere, a pool full of waiting queries) is never committed afterwards.
 *
 * A transaction whose client is gone without the server knowing (the network lost mid-way, the
 * connection closed by `guarded` on a frozen link) would keep its locks until the server's TCP
 * gives up, minutes or hours later, and every write to the same rows would wait for it: the server
 * ends the session once it has waited for the client longer than the time that was left
 * (idle_in_transaction_session_timeout). A transaction that waits that long between two
 * statements could not have committed in time anyway.
 */
function transaction<T>(pool: ReplaceablePool, work: (tx: TransactionSQL) => Promise<T>, timeoutMs = OPERATION_TIMEOUT_MS, mode?: string): Promise<T> {
  const endBy = performance.now() + timeoutMs - COMMIT_MARGIN_MS
  const left = () => Math.floor(endBy - performance.now())
  let began = false
  const body = async (tx: TransactionSQL): Promise<T> => {
    began = true
    // Waiting for a connection of the pool counts too.
    if (left() <= 0) throw new StorageUnavailableError('timeout')
    const ms = left()
    // The idle bound has a floor: a few milliseconds would end the session at the first pause of
    // this process between two statements, though the statements still had time.
    await tx`SELECT set_config('statement_timeout', ${String(ms)}, true), set_config('idle_in_transaction_session_timeout', ${String(Math.max(ms, IDLE_FLOOR_MS))}, true)`
    const result = await work(tx)
    if (left() <= 0) throw new StorageUnavailableError('timeout')
    return result
  }
  // Until `body` has begun, nothing but BEGIN was sent (no statement of `work`, no COMMIT): a
  // BEGIN that failed on an ended connection may be sent again. Once begun, never repeated.
  const attempt = (sql: Sql) => (mode === undefined ? sql.begin(body) : sql.begin(mode, body))
  return guarded(pool, attempt, timeoutMs, () => !began)
}

const iso = (value: unknown): string => (value instanceof Date ? value : new Date(String(value))).toISOString()

interface SettingRow {
  key: string
  value: string
  encrypted: boolean
  category: string | null
  updated_at: Date
}

function toSetting(row: SettingRow): Setting {
  return { key: row.key, value: row.value, encrypted: row.encrypted, category: row.category, updated_at: iso(row.updated_at) }
}

interface AuditRow {
  id: string | number
  at: Date
  action: string
  actor: string | null
  target: string | null
  detail: string | null
  request_id: string | null
}

function toAuditEvent(row: AuditRow): StoredAuditEvent {
  return { id: Number(row.id), at: iso(row.at), action: row.action, actor: row.actor, target: row.target, detail: row.detail, request_id: row.request_id }
}

/**
 * The files a URL's TLS parameters name must be readable by the user the service runs as (a
 * systemd dynamic user cannot enter a root-only directory): said by name, before the driver fails
 * with an error that does not.
 */
function unreadableTlsFile(url: URL): string | null {
  for (const name of ['sslrootcert', 'sslcert', 'sslkey']) {
    const path = url.searchParams.get(name)
    if (path === null || path === '' || (name === 'sslrootcert' && path === 'system')) continue
    try {
      accessSync(path, fsConstants.R_OK)
    } catch (error) {
      const code = (error as { code?: string }).code ?? 'unreadable'
      return `DATABASE_URL: ${name} names a file this user cannot read (${code}); put it where the service's user can read it`
    }
  }
  return null
}

/**
 * How long applying the migrations may take, waiting for another replica's included: an index built
 * over a long audit trail (version 5) takes seconds per million events, and must not be cut off at
 * every start until someone notices.
 */
const MIGRATION_TIMEOUT_MS = 10 * 60_000

/** PostgreSQL behind the storage interface; opened (and migrated) with `PostgresStorage.open`. */
/** Why the database could not be opened, in words where the server's code says it (never its text, which may name the user). */
function notOpened(reason: string): string {
  const words: Record<string, string> = {
    '28P01': 'the server refused the password of the user in the URL',
    '28000': 'the server refused the user in the URL (pg_hba.conf, or no such role)',
    '3D000': 'the database the URL names does not exist on the server',
  }
  return `${words[reason] ?? 'the database cannot be reached or refused the login'} (${reason})`
}

export class PostgresStorage implements Storage {
  readonly engine = 'postgres' as const
  private readonly listeners = new Set<ChangeListener>()
  private readonly known = new Map<string, string>()
  /**
   * The settings versions whose change was heard of through the LISTEN and applied (a write's
   * notification carries the version it raised to): a raise the poll finds made only of those is
   * not taken for changes unknown, which would forget every key. Versions up to the last polled are
   * let go at each poll.
   */
  private readonly settingsHeard = new Set<number>()
  private pollTimer: ReturnType<typeof setInterval> | null = null
  private polling = false
  private fresh = -Infinity
  private reachable = true
  private firstPoll: { promise: Promise<void>; resolve: () => void }
  /** Those waiting for the next poll to start (changes.nextPoll): each poll takes them as it starts and settles them as it ends. */
  private pollWaiters: (() => void)[] = []
  private closed = false
  /** The LISTENing connection's client, replaced when it stops delivering; nothing else runs on it. */
  private readonly listening: ReplaceableListener

  private constructor(
    /** The pool for requests and the command line. */
    private readonly sql: ReplaceablePool,
    /**
     * One connection for the change feed and the revocations the gate reads: requests never wait
     * for it, nor it for them.
     */
    private readonly watch: ReplaceablePool,
    connectListener: () => Sql,
    private readonly log: Logger | undefined,
  ) {
    const { promise, resolve } = Promise.withResolvers<void>()
    this.firstPoll = { promise, resolve }
    this.listening = new ReplaceableListener(connectListener, CHANGE_CHANNEL, {
      notify: (payload) => void this.onNotification(payload),
      // Notifications sent before it (while reconnecting, or on the client given up on) are lost: poll now rather than later.
      listening: () => void this.poll(),
      lost: (loss) => this.onListenLost(loss),
    })
  }

  /** Connects, applies missing migrations under the advisory lock, refuses a newer schema. */
  static async open(url: string, options: PostgresOptions = {}): Promise<PostgresOpenResult> {
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      return { ok: false, error: 'DATABASE_URL is not a valid URL' }
    }
    const unreadable = unreadableTlsFile(parsed)
    if (unreadable !== null) return { ok: false, error: unreadable }
    let sql: ReplaceablePool
    let watch: ReplaceablePool
    let connectListener: () => Sql
    const log = options.log
    try {
      const connect = {
        ...(parsed.searchParams.has('connect_timeout') ? {} : { connectionTimeout: CONNECT_TIMEOUT_SECONDS }),
        // A plain query is cancelled by the database before `guarded` gives up on it; transactions set their own.
        connection: { application_name: 'admin-dashboard', statement_timeout: String(OPERATION_TIMEOUT_MS - COMMIT_MARGIN_MS) },
      }
      // Each connects on its first query; a URL's `max` applies to the requests' pool only.
      sql = new ReplaceablePool(
        () => new SQL(url, { ...connect, ...(options.max !== undefined ? { max: options.max } : {}) }),
        () => log?.warn('database_pool_reopened', { reason: 'timeout' }),
        // A statement ends by statement_timeout (a transaction's by its own deadline): one that has
        // not answered a margin after that is on a connection that went silent.
        OPERATION_TIMEOUT_MS,
      )
      watch = new ReplaceablePool(
        () => new SQL(url, { ...connect, max: 1 }),
        () => log?.warn('database_watch_reopened', { reason: 'timeout' }),
      )
      connectListener = () => new SQL(url, { ...connect, max: 1 })
    } catch (error) {
      // The driver refuses an option it cannot read (config.ts checks the known ones); its message quotes the value.
      return { ok: false, error: `DATABASE_URL (with any PG* environment variables) is not a usable connection URL (${unavailableReason(error)})` }
    }
    // A migration waits for the lock of another replica's, or of a session holding a table it
    // changes: said after a while, or the start would look hung.
    const waiting = setTimeout(() => log?.warn('database_migrations_waiting', { waited_ms: MIGRATIONS_SAID_AFTER_MS, timeout_ms: MIGRATION_TIMEOUT_MS }), MIGRATIONS_SAID_AFTER_MS)
    try {
      await transaction(sql, migrate, MIGRATION_TIMEOUT_MS)
    } catch (error) {
      await Promise.all([sql.close(0), watch.close(0)])
      if (error instanceof SchemaTooNewError) return { ok: false, error: `DATABASE_URL: ${error.message}` }
      if (error instanceof StorageUnavailableError) return { ok: false, error: `DATABASE_URL: ${notOpened(error.reason)}` }
      return { ok: false, error: `DATABASE_URL: the database could not be prepared (${unavailableReason(error)})` }
    } finally {
      clearTimeout(waiting)
    }
    return { ok: true, storage: new PostgresStorage(sql, watch, connectListener, log) }
  }

  // Settings ---------------------------------------------------------------------------------

  readonly settings = {
    // PostgreSQL's text cannot hold U+0000: no stored key has it (and the query would be refused).
    get: (key: string): Promise<Setting | null> =>
      read(this.sql, async (sql) => {
        if (key.includes('\0')) return null
        const rows: SettingRow[] = await sql`SELECT key, value, encrypted, category, updated_at FROM settings WHERE key = ${key}`
        return rows.length > 0 ? toSetting(rows[0]!) : null
      }),

    list: (): Promise<Setting[]> => read(this.sql, (sql) => this.listSettings(sql)),

    upsert: (setting: Setting, audit: (outcome: UpsertOutcome) => AuditRecord, condition: SettingCondition = 'any'): Promise<UpsertOutcome | 'refused'> =>
      transaction(this.sql, async (tx) => {
        const rows =
          condition === 'absent'
            ? await tx`
                INSERT INTO settings (key, value, encrypted, category, updated_at)
                VALUES (${setting.key}, ${setting.value}, ${setting.encrypted}, ${setting.category}, ${setting.updated_at}::timestamptz)
                ON CONFLICT (key) DO NOTHING
                RETURNING true AS inserted`
            : condition === 'present'
              ? await tx`
                  UPDATE settings SET value = ${setting.value}, encrypted = ${setting.encrypted}, category = ${setting.category},
                    updated_at = ${setting.updated_at}::timestamptz
                  WHERE key = ${setting.key}
                  RETURNING false AS inserted`
              : await tx`
                  INSERT INTO settings (key, value, encrypted, category, updated_at)
                  VALUES (${setting.key}, ${setting.value}, ${setting.encrypted}, ${setting.category}, ${setting.updated_at}::timestamptz)
                  ON CONFLICT (key) DO UPDATE SET value = excluded.value, encrypted = excluded.encrypted,
                    category = excluded.category, updated_at = excluded.updated_at
                  RETURNING (xmax = 0) AS inserted`
        const [row] = rows
        if (row === undefined) return 'refused'
        const outcome: UpsertOutcome = row.inserted ? 'created' : 'updated'
        await appendAudit(tx, audit(outcome))
        await announce(tx, 'settings', setting.key)
        return outcome
      }),

    delete: (key: string, audit: AuditRecord): Promise<boolean> =>
      transaction(this.sql, async (tx) => {
        if (key.includes('\0')) return false
        const deleted = await tx`DELETE FROM settings WHERE key = ${key} RETURNING key`
        if (deleted.length === 0) return false
        await appendAudit(tx, audit)
        await announce(tx, 'settings', key)
        return true
      }),

    rewriteEncrypted: (rewrite: (setting: Setting) => string | null, audit: (count: number) => AuditRecord) =>
      transaction(
        this.sql,
        async (tx) => {
          // Other writers wait until this commits, so no value is written under the old key meanwhile.
          await tx`LOCK TABLE settings IN SHARE ROW EXCLUSIVE MODE`
          const decided = encryptedRewrites(await this.listSettings(tx), rewrite)
          if (!decided.ok) return decided
          for (const [key, value] of decided.replaced) await tx`UPDATE settings SET value = ${value} WHERE key = ${key}`
          await appendAudit(tx, audit(decided.replaced.length))
          await announce(tx, 'settings')
          return { ok: true as const, count: decided.replaced.length }
        },
        60_000,
      ),
  }

  private async listSettings(sql: Sql | TransactionSQL): Promise<Setting[]> {
    const rows: SettingRow[] = await sql`SELECT key, value, encrypted, category, updated_at FROM settings ORDER BY key`
    return rows.map(toSetting)
  }

  // Audit ------------------------------------------------------------------------------------

  readonly audit = {
    append: (record: AuditRecord): Promise<void> => transaction(this.sql, (tx) => appendAudit(tx, record)),

    begin: (record: AuditRecord): Promise<number> =>
      transaction(this.sql, async (tx) => {
        const rows: { id: string | number }[] = await tx`INSERT INTO audit_events (at, action, actor, target, detail, request_id)
            VALUES (${record.at}::timestamptz, ${record.action}, ${record.actor}, ${record.target}, ${record.detail}, ${record.request_id}) RETURNING id`
        return Number(rows[0]!.id)
      }),

    complete: (id: number, detail: string | null): Promise<void> =>
      transaction(this.sql, async (tx) => {
        await tx`UPDATE audit_events SET detail = ${detail} WHERE id = ${id}`
      }),

    list: (filter: AuditFilter): Promise<StoredAuditEvent[]> =>
      read(this.sql, async (sql) => {
        const query = auditListQuery(filter, (n) => `$${n}`)
        const rows: AuditRow[] = await sql.unsafe(query.sql, query.params)
        return rows.map(toAuditEvent)
      }),

    countBefore: (at: string): Promise<number> =>
      read(this.sql, async (sql) => {
        const rows: { events: string | number }[] = await sql`SELECT count(*) AS events FROM audit_events WHERE at < ${at}::timestamptz`
        return Number(rows[0]!.events)
      }),

    deleteBefore: (at: string, limit: number): Promise<number> =>
      transaction(this.sql, async (tx) => {
        const rows: { events: string | number }[] = await tx`WITH deleted AS (
            DELETE FROM audit_events WHERE id IN (SELECT id FROM audit_events WHERE at < ${at}::timestamptz ORDER BY id LIMIT ${limit}) RETURNING 1
          ) SELECT count(*) AS events FROM deleted`
        return Number(rows[0]!.events)
      }),
  }

  // Layouts ----------------------------------------------------------------------------------

  readonly layouts = {
    get: (identityId: string): Promise<string | null> =>
      read(this.sql, async (sql) => {
        const rows: { layout: string }[] = await sql`SELECT layout FROM dashboard_layouts WHERE identity_id = ${identityId}`
        return rows[0]?.layout ?? null
      }),

    put: (identityId: string, layout: string, at: string): Promise<void> =>
      transaction(this.sql, async (tx) => {
        await tx`
          INSERT INTO dashboard_layouts (identity_id, layout, updated_at) VALUES (${identityId}, ${layout}, ${at}::timestamptz)
          ON CONFLICT (identity_id) DO UPDATE SET layout = excluded.layout, updated_at = excluded.updated_at`
      }),
  }

  // The signing key's fingerprint -----------------------------------------------------------

  readonly signingKey = {
    get: (): Promise<string | null> =>
      read(this.sql, async (sql) => {
        const rows: { fingerprint: string }[] = await sql`SELECT fingerprint FROM signing_key WHERE id = 1`
        return rows[0]?.fingerprint ?? null
      }),

    exchange: (fingerprint: string, at: string): Promise<string | null> =>
      transaction(this.sql, async (tx) => {
        const rows: { fingerprint: string }[] = await tx`SELECT fingerprint FROM signing_key WHERE id = 1 FOR UPDATE`
        await tx`
          INSERT INTO signing_key (id, fingerprint, updated_at) VALUES (1, ${fingerprint}, ${at}::timestamptz)
          ON CONFLICT (id) DO UPDATE SET fingerprint = excluded.fingerprint, updated_at = excluded.updated_at`
        return rows[0]?.fingerprint ?? null
      }),
  }

  // Revocations ------------------------------------------------------------------------------

  readonly revocations = {
    // The change feed reloads through it: a reload stuck behind requests would stall the feed.
    load: (): Promise<RevocationSnapshot> => read(this.watch, loadRevocations),

    revokeSession: (sid: string, expiresAt: number, audit?: AuditRecord): Promise<void> =>
      transaction(this.sql, async (tx) => {
        // The row, the version and the notification together.
        // A second revocation of the sid never shortens how long the first is kept.
        await tx`
          WITH revoked AS (
            INSERT INTO revoked_sessions (sid, expires_at) VALUES (${sid}, ${expiresAt})
            ON CONFLICT (sid) DO UPDATE SET expires_at = GREATEST(revoked_sessions.expires_at, excluded.expires_at)
          ), bumped AS (
            UPDATE storage_versions SET version = version + 1 WHERE topic = 'revocations' RETURNING version
          )
          SELECT pg_notify(${CHANGE_CHANNEL}, 'revocations') FROM bumped`
        if (audit) await appendAudit(tx, audit)
      }),

    revokeIdentity: (identityId: string, revocation: { seconds: number; ms: number }, audit?: AuditRecord): Promise<void> =>
      transaction(this.sql, async (tx) => {
        // An older revocation committed late (a slow replica, a clock behind) never moves the time
        // back: sessions the newer one ended stay ended. A row from before millisecond times were
        // kept (ms NULL: its whole second is refused) stays so unless the new time is a later second.
        await tx`
          WITH revoked AS (
            INSERT INTO identity_revocations (identity_id, revoked_at, revoked_at_ms)
            VALUES (${identityId}, ${revocation.seconds}, ${revocation.ms})
            ON CONFLICT (identity_id) DO UPDATE SET
              revoked_at = GREATEST(identity_revocations.revoked_at, excluded.revoked_at),
              revoked_at_ms = CASE
                WHEN identity_revocations.revoked_at_ms IS NULL AND identity_revocations.revoked_at >= excluded.revoked_at THEN NULL
                ELSE GREATEST(identity_revocations.revoked_at_ms, excluded.revoked_at_ms) END
          ), bumped AS (
            UPDATE storage_versions SET version = version + 1 WHERE topic = 'revocations' RETURNING version
          )
          SELECT pg_notify(${CHANGE_CHANNEL}, 'revocations') FROM bumped`
        if (audit) await appendAudit(tx, audit)
      }),

    // The database's clock, not this replica's: one whose clock runs ahead must not delete what
    // the others still need.
    forgetExpired: (margins: RevocationMargins): Promise<RevocationCutoff> =>
      transaction(this.sql, async (tx) => {
        const [{ now }] = await tx`SELECT floor(extract(epoch FROM now()))::bigint::text AS now`
        const cutoff: RevocationCutoff = {
          sessionsExpiredBy: Number(now) - margins.sessionsSeconds,
          identitiesRevokedBy: Number(now) - margins.identitiesSeconds,
        }
        // Every replica prunes: each deletes the rows no other transaction holds (another replica
        // deleting them, a revocation extending or moving one forward), never waiting for them nor
        // deadlocking. A row moved forward since is judged by its new time (and kept).
        await tx`
          DELETE FROM revoked_sessions WHERE sid IN (
            SELECT sid FROM revoked_sessions WHERE expires_at <= ${cutoff.sessionsExpiredBy} FOR UPDATE SKIP LOCKED)`
        await tx`
          DELETE FROM identity_revocations WHERE identity_id IN (
            SELECT identity_id FROM identity_revocations WHERE revoked_at <= ${cutoff.identitiesRevokedBy} FOR UPDATE SKIP LOCKED)`
        return cutoff
      }),
  }

  // Changes ----------------------------------------------------------------------------------

  readonly changes = {
    subscribe: (listener: ChangeListener): (() => void) => {
      this.listeners.add(listener)
      this.startWatching()
      return () => void this.listeners.delete(listener)
    },
    freshAt: (): number => this.fresh,
    /** Resolves after the first poll that reached the database (or at once if it is closed). */
    ready: (): Promise<void> => this.firstPoll.promise,
    // No poll is started for it: the interval's next one (within POLL_MS) serves every waiter, so a
    // stream of requests during an outage does not become a stream of connection attempts.
    nextPoll: (): Promise<void> => {
      if (this.closed) return Promise.resolve()
      const { promise, resolve } = Promise.withResolvers<void>()
      this.pollWaiters.push(resolve)
      return promise
    },
  }

  private startWatching(): void {
    if (this.pollTimer !== null || this.closed) return
    this.pollTimer = setInterval(() => void this.poll(), POLL_MS)
    this.pollTimer.unref?.()
    void this.poll()
    this.listening.start()
  }

  /** The poll still proves freshness meanwhile; only the instant delivery is missing. */
  private onListenLost(loss: ListenLoss): void {
    if (this.closed) return
    if (loss.kind === 'timeout') this.log?.warn('database_listen_reopened', { reason: 'timeout' })
    else this.log?.warn('database_listen_failed', { reason: unavailableReason(loss.error) })
  }

  /** Resolves when every listener has applied the change; rejects when one could not. */
  private async dispatch(change: Change): Promise<void> {
    await Promise.all([...this.listeners].map(async (listener) => listener(change)))
  }

  private async onNotification(payload: string): Promise<void> {
    let change: Change
    let version: number | null = null
    const settings = SETTINGS_NOTIFICATION.exec(payload)
    if (payload === 'revocations') change = { topic: 'revocations' }
    else if (settings !== null) {
      version = Number(settings[1])
      change = { topic: 'settings', key: settings[2] ?? null }
    }
    // As a replica of an earlier build announces them: no version.
    else if (payload === 'settings') change = { topic: 'settings', key: null }
    else if (payload.startsWith('settings:')) change = { topic: 'settings', key: payload.slice('settings:'.length) }
    else return
    try {
      await this.dispatch(change)
    } catch {
      return
    }
    if (version !== null) this.settingsHeard.add(version)
  }

  /** Whether the change of every settings version after `from`, up to `to`, was heard of. */
  private heardEvery(from: number, to: number): boolean {
    if (to <= from || to - from > this.settingsHeard.size) return false
    for (let version = from + 1; version <= to; version++) if (!this.settingsHeard.has(version)) return false
    return true
  }

  private async poll(): Promise<void> {
    if (this.polling || this.closed) return
    this.polling = true
    const started = performance.now()
    const waiters = this.pollWaiters
    this.pollWaiters = []
    const probe = this.listening.dueProbe()
    try {
      const rows: { topic: string; version: string }[] = await read(
        this.watch,
        async (sql) => {
          const versions = await sql`SELECT topic, version::text AS version FROM storage_versions`
          if (probe !== null) await sql`SELECT pg_notify(${probe.channel}, ${probe.payload})`
          return versions
        },
        POLL_TIMEOUT_MS,
      )
      this.listening.polled(started, probe)
      for (const { topic, version } of rows) {
        const before = this.known.get(topic)
        if (before === version) continue
        if (topic === 'settings') {
          // Every raise since the last poll heard of (this replica's own writes included): nothing else to forget.
          if (before === undefined || !this.heardEvery(Number(before), Number(version))) await this.dispatch({ topic: 'settings', key: null })
          for (const heard of this.settingsHeard) if (heard <= Number(version)) this.settingsHeard.delete(heard)
        } else if (topic === 'revocations') await this.dispatch({ topic: 'revocations' })
        this.known.set(topic, version)
      }
      this.fresh = started
      if (!this.reachable) {
        this.reachable = true
        this.log?.info('database_reachable')
      }
      this.firstPoll.resolve()
    } catch (error) {
      this.listening.unanswered(probe)
      if (this.reachable && !this.closed) {
        this.reachable = false
        this.log?.warn('database_unreachable', { reason: error instanceof StorageUnavailableError ? error.reason : unavailableReason(error) })
      }
    } finally {
      this.polling = false
      for (const settle of waiters) settle()
    }
  }

  // Whole database ---------------------------------------------------------------------------

  async ping(): Promise<boolean> {
    try {
      // Usable means writable too: a standby (a failover whose address has not moved yet) or a
      // database set read-only answers reads while every sign-out and setting fails.
      const rows = await read(this.sql, (sql) => sql`SELECT current_setting('transaction_read_only') AS read_only`, POLL_TIMEOUT_MS)
      return rows[0]?.read_only === 'off'
    } catch {
      return false
    }
  }

  async dump(): Promise<StorageDump> {
    const tables = await transaction(
      this.sql,
      async (tx) => {
        const layouts: { identity_id: string; layout: string; updated_at: Date }[] =
          await tx`SELECT identity_id, layout, updated_at FROM dashboard_layouts ORDER BY identity_id`
        return {
          settings: await this.listSettings(tx),
          layouts: layouts.map((l) => ({ identity_id: l.identity_id, layout: l.layout, updated_at: iso(l.updated_at) })),
          revocations: await loadRevocations(tx),
        }
      },
      600_000,
      'ISOLATION LEVEL REPEATABLE READ READ ONLY',
    )
    return { ...tables, audit: auditPages(this.audit) }
  }

  restore(dump: StorageDump): Promise<{ ok: true } | { ok: false; reason: 'not_empty' }> {
    return transaction(
      this.sql,
      async (tx) => {
        await tx`LOCK TABLE settings, audit_events, dashboard_layouts, revoked_sessions, identity_revocations IN EXCLUSIVE MODE`
        const [{ any }] = await tx`
          SELECT EXISTS (SELECT 1 FROM settings) OR EXISTS (SELECT 1 FROM audit_events) OR EXISTS (SELECT 1 FROM dashboard_layouts)
            OR EXISTS (SELECT 1 FROM revoked_sessions) OR EXISTS (SELECT 1 FROM identity_revocations) AS any`
        if (any) return { ok: false as const, reason: 'not_empty' as const }
        for (const s of dump.settings) {
          await tx`INSERT INTO settings (key, value, encrypted, category, updated_at)
                   VALUES (${s.key}, ${s.value}, ${s.encrypted}, ${s.category}, ${s.updated_at}::timestamptz)`
        }
        // One statement per page, not one round trip per event: a long trail over a distant link.
        for await (const page of dump.audit) {
          await tx`INSERT INTO audit_events (id, at, action, actor, target, detail, request_id)
                   SELECT id, at::timestamptz, action, actor, target, detail, request_id
                   FROM jsonb_to_recordset(${JSON.stringify(page)}::text::jsonb)
                     AS e(id bigint, at text, action text, actor text, target text, detail text, request_id text)`
        }
        // New events continue after the copied ones.
        await tx`SELECT setval(pg_get_serial_sequence('audit_events', 'id'), GREATEST((SELECT MAX(id) FROM audit_events), 1), (SELECT COUNT(*) > 0 FROM audit_events))`
        for (const l of dump.layouts) {
          await tx`INSERT INTO dashboard_layouts (identity_id, layout, updated_at) VALUES (${l.identity_id}, ${l.layout}, ${l.updated_at}::timestamptz)`
        }
        for (const [sid, expiresAt] of dump.revocations.sessions) {
          await tx`INSERT INTO revoked_sessions (sid, expires_at) VALUES (${sid}, ${expiresAt})`
        }
        for (const [id, r] of dump.revocations.identities) {
          await tx`INSERT INTO identity_revocations (identity_id, revoked_at, revoked_at_ms) VALUES (${id}, ${r.seconds}, ${r.ms})`
        }
        await announce(tx, 'settings')
        await announce(tx, 'revocations')
        return { ok: true as const }
      },
      600_000,
    )
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    if (this.pollTimer !== null) clearInterval(this.pollTimer)
    this.listeners.clear()
    this.firstPoll.resolve()
    for (const settle of this.pollWaiters.splice(0)) settle()
    // Nothing is waited for on the change feed's connections, which may have stopped answering
    // without breaking: the LISTEN ends with its session (nothing is sent on it, not even an
    // UNLISTEN, nor is its acknowledgement awaited), and a poll under way changes nothing (a probe
    // it sends is for this process only). Queries under way on the pool get up to 5 s, their own
    // deadline.
    await Promise.all([this.sql.close(5), this.watch.close(0), this.listening.close()])
  }
}

async function appendAudit(sql: Sql | TransactionSQL, record: AuditRecord): Promise<void> {
  await sql`INSERT INTO audit_events (at, action, actor, target, detail, request_id)
            VALUES (${record.at}::timestamptz, ${record.action}, ${record.actor}, ${record.target}, ${record.detail}, ${record.request_id})`
}

/**
 * Inside the writer's transaction: raise the topic's version and notify at commit. A settings
 * notification names the version it raised to (`settings@<version>`) and the key changed, when
 * one is (`settings@<version>:<key>`); `key` null: any.
 */
async function announce(tx: TransactionSQL, topic: 'settings' | 'revocations', key: string | null = null): Promise<void> {
  const [raised]: { version: string }[] = await tx`UPDATE storage_versions SET version = version + 1 WHERE topic = ${topic} RETURNING version::text AS version`
  const payload = topic === 'revocations' ? 'revocations' : `settings@${raised!.version}${key === null ? '' : `:${key}`}`
  await tx`SELECT pg_notify(${CHANGE_CHANNEL}, ${payload})`
}

/** A settings notification of this build: the version it raised to, and the key changed (none: any). */
const SETTINGS_NOTIFICATION = /^settings@(\d+)(?::(.*))?$/s

async function loadRevocations(sql: Sql | TransactionSQL): Promise<RevocationSnapshot> {
  // One statement, one snapshot.
  const rows: { kind: string; id: string; a: string; b: string | null }[] = await sql`
    SELECT 's' AS kind, sid AS id, expires_at::text AS a, NULL::text AS b FROM revoked_sessions
    UNION ALL
    SELECT 'i', identity_id, revoked_at::text, revoked_at_ms::text FROM identity_revocations`
  const sessions = new Map<string, number>()
  const identities = new Map<string, IdentityRevocation>()
  for (const row of rows) {
    if (row.kind === 's') sessions.set(row.id, Number(row.a))
    else identities.set(row.id, { seconds: Number(row.a), ms: row.b === null ? null : Number(row.b) })
  }
  return { sessions, identities }
}

async function migrate(tx: TransactionSQL): Promise<void> {
  const known = POSTGRES_MIGRATIONS[POSTGRES_MIGRATIONS.length - 1]!.version
  // Whichever replica gets here first applies the migrations; the others wait, then find them done.
  await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY.toString()}::bigint)`
  // Looked up first: CREATE TABLE IF NOT EXISTS needs CREATE on the schema even when the table is
  // there, and a replica may run as a user that can only read and write the tables.
  const [{ exists }] = await tx`SELECT to_regclass('schema_migrations') IS NOT NULL AS exists`
  if (!exists) await tx`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL)`
  const rows: { version: number }[] = await tx`SELECT version FROM schema_migrations`
  const applied = new Set(rows.map((row) => Number(row.version)))
  const newest = Math.max(0, ...applied)
  if (newest > known) throw new SchemaTooNewError(newest, known)
  for (const migration of POSTGRES_MIGRATIONS) {
    if (applied.has(migration.version)) continue
    await tx.unsafe(migration.sql)
    await tx`INSERT INTO schema_migrations (version, applied_at) VALUES (${migration.version}, now())`
  }
}
