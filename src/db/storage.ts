// The one storage interface: everything that is state (settings, the audit trail, layouts, revoked
// sessions and identity revocations) goes through it. Two implementations: SQLite (bun:sqlite, one
// file, the default) and PostgreSQL (Bun.SQL, for several replicas behind a balancer). The same
// behaviour tests run against both (test/storage.test.ts).
//
// Every method is one atomic unit of work. Where a change and its audit event belong together,
// they are committed in one transaction; callbacks that run inside a transaction are synchronous
// (no await while a write lock is held) and only compute: on SQLite an attempt that another
// connection's lock kept out is made again, calling them again; what the committed one returned is kept.

import { ApiError } from '../http/errors.ts'

export type Engine = 'sqlite' | 'postgres'

export interface Setting {
  key: string
  /** Ciphertext when `encrypted` is true. */
  value: string
  encrypted: boolean
  category: string | null
  /** ISO 8601 UTC with milliseconds. */
  updated_at: string
}

export type UpsertOutcome = 'created' | 'updated'
/**
 * What a write of a setting needs to find: `absent` creates only (a key that exists is left as it
 * is), `present` replaces only (a key that does not exist is not created), `any` does either.
 */
export type SettingCondition = 'any' | 'absent' | 'present'

/** One audit row as written: `detail` is already serialized JSON. */
export interface AuditRecord {
  /** ISO 8601 UTC with milliseconds. */
  at: string
  action: string
  actor: string | null
  target: string | null
  detail: string | null
  /** The request it came in (its X-Request-Id); null for the command line, and for events from before it was kept. */
  request_id: string | null
}

export interface StoredAuditEvent extends AuditRecord {
  id: number
}

export interface AuditFilter {
  limit: number
  before?: number
  action?: string
  actor?: string
  requestId?: string
  /** The identity, client or setting an event is about (its `about` column). */
  about?: string
}

export interface IdentityRevocation {
  seconds: number
  /** null for rows written before millisecond times were kept. */
  ms: number | null
}

/** How long revocations are kept after the last cookie they refuse could have expired (seconds). */
export interface RevocationMargins {
  /** After a revoked session's own expiry. */
  sessionsSeconds: number
  /** After an identity revocation's time. */
  identitiesSeconds: number
}

/** What was forgotten (epoch seconds, inclusive). */
export interface RevocationCutoff {
  /** Revoked sessions whose cookies expired by then. */
  sessionsExpiredBy: number
  /** Identity revocations made by then (their time in seconds). */
  identitiesRevokedBy: number
}

export interface RevocationSnapshot {
  /** sid → the session's expiry (epoch seconds). */
  sessions: Map<string, number>
  identities: Map<string, IdentityRevocation>
}

interface SettingsTable {
  get(key: string): Promise<Setting | null>
  /** Every setting, sorted by key in byte order. */
  list(): Promise<Setting[]>
  /**
   * Creates or replaces a setting and appends its audit event, in one transaction. Under a
   * condition the key does not meet nothing is written, no event either: `refused`.
   */
  upsert(setting: Setting, audit: (outcome: UpsertOutcome) => AuditRecord, condition?: SettingCondition): Promise<UpsertOutcome | 'refused'>
  /** Removes a setting and appends the audit event when it existed, in one transaction. */
  delete(key: string, audit: AuditRecord): Promise<boolean>
  /**
   * Replaces every encrypted value by `rewrite(setting)` in one transaction that keeps other
   * writers out; when `rewrite` returns null for any of them nothing changes. `updated_at` stays.
   */
  rewriteEncrypted(
    rewrite: (setting: Setting) => string | null,
    audit: (count: number) => AuditRecord,
  ): Promise<{ ok: true; count: number } | { ok: false; keys: string[] }>
}

interface AuditTable {
  append(record: AuditRecord): Promise<void>
  /** Appends an event that is completed later (`complete`): its id. */
  begin(record: AuditRecord): Promise<number>
  /** Replaces the detail of an event `begin` wrote. */
  complete(id: number, detail: string | null): Promise<void>
  /** Newest first. */
  list(filter: AuditFilter): Promise<StoredAuditEvent[]>
  /** How many events were recorded before `at` (ISO 8601). */
  countBefore(at: string): Promise<number>
  /** Deletes the oldest events recorded before `at`, at most `limit` of them, in one transaction: how many it deleted. */
  deleteBefore(at: string, limit: number): Promise<number>
}

/**
 * The fingerprint (never the key) of the session signing key the last start used. Every replica
 * must sign with the same key; one that does not takes none of the others' cookies.
 */
interface SigningKeyTable {
  get(): Promise<string | null>
  /** Records `fingerprint` as the last start's, and returns the one recorded before (null for none). */
  exchange(fingerprint: string, at: string): Promise<string | null>
}

interface LayoutsTable {
  get(identityId: string): Promise<string | null>
  put(identityId: string, layout: string, at: string): Promise<void>
}

interface RevocationsTable {
  load(): Promise<RevocationSnapshot>
  /** Records the revocation and, when given, its audit event, in one transaction: both or neither. */
  revokeSession(sid: string, expiresAt: number, audit?: AuditRecord): Promise<void>
  /** Records the revocation and, when given, its audit event, in one transaction: both or neither. */
  revokeIdentity(identityId: string, revocation: { seconds: number; ms: number }, audit?: AuditRecord): Promise<void>
  /**
   * Forgets the revoked sessions and identity revocations older than their margins, in one
   * transaction, and returns the cutoff it applied; several processes may do it at once. "Now" is
   * the database's clock where replicas on several hosts share it (PostgreSQL), so a replica whose
   * clock runs ahead cannot delete rows the others still need; `nowSeconds` (the process's clock)
   * where every process is on one host (SQLite).
   */
  forgetExpired(margins: RevocationMargins, nowSeconds: number): Promise<RevocationCutoff>
}

/** What changed, as far as the storage can tell: `key: null` means any setting. */
export type Change = { topic: 'settings'; key: string | null } | { topic: 'revocations' }

export type ChangeListener = (change: Change) => void | Promise<void>

/**
 * Changes committed by other processes (and this one), delivered to listeners. `freshAt()` is the
 * `performance.now()` time up to which every committed change has been handed to the listeners
 * (and their returned promises settled); Infinity when the storage cannot fall behind (SQLite).
 */
interface ChangeFeed {
  subscribe(listener: ChangeListener): () => void
  freshAt(): number
  /** Resolves once `freshAt()` has a value (the first poll reached the database). */
  ready(): Promise<void>
  /**
   * Settles (never rejects) once the next check of the database to start from now has ended,
   * whether it reached it or not; at once where `freshAt()` cannot fall behind or the storage is
   * closed. What `freshAt()` says then is the news.
   */
  nextPoll(): Promise<void>
}

/**
 * Every row of every table: what `import-sqlite` copies and a backup would hold. The audit trail,
 * which can grow far beyond what memory should hold, comes a page at a time (newest first), read
 * as it is consumed: a dump is taken of a database nothing else writes to.
 */
export interface StorageDump {
  settings: Setting[]
  audit: AsyncIterable<StoredAuditEvent[]>
  layouts: { identity_id: string; layout: string; updated_at: string }[]
  revocations: RevocationSnapshot
}

/** Audit events per page of a dump; PostgreSQL's restore inserts each page with one statement. */
export const DUMP_PAGE_SIZE = 1000

/** The whole audit trail through its own listing, newest first, one page in memory at a time. */
export async function* auditPages(audit: Pick<AuditTable, 'list'>, pageSize = DUMP_PAGE_SIZE): AsyncGenerator<StoredAuditEvent[]> {
  let before: number | undefined
  for (;;) {
    const page = await audit.list({ limit: pageSize, before })
    if (page.length === 0) return
    yield page
    before = page[page.length - 1]!.id
  }
}

export interface Storage {
  readonly engine: Engine
  readonly settings: SettingsTable
  readonly audit: AuditTable
  readonly layouts: LayoutsTable
  readonly revocations: RevocationsTable
  readonly signingKey: SigningKeyTable
  readonly changes: ChangeFeed
  /** True when the database answers now and takes writes. */
  ping(): Promise<boolean>
  dump(): Promise<StorageDump>
  /** Loads a dump into empty tables, in one transaction; refuses when any table has rows. */
  restore(dump: StorageDump): Promise<{ ok: true } | { ok: false; reason: 'not_empty' }>
  close(): Promise<void>
}

/**
 * The audit listing's SQL and parameters for either engine; `placeholder(n)` writes the n-th
 * parameter (`?` for SQLite, `$n` for PostgreSQL).
 */
export function auditListQuery(filter: AuditFilter, placeholder: (n: number) => string): { sql: string; params: (string | number)[] } {
  const where: string[] = []
  const params: (string | number)[] = []
  const condition = (column: string, value: string | number | undefined) => {
    if (value === undefined) return
    params.push(value)
    where.push(`${column} ${placeholder(params.length)}`)
  }
  // A request id finds its one or two events by its own index, and what an event is about its few
  // by its own; beside them, the other equalities are written so that no index is taken for them
  // (SQLite without statistics would take the actor's, and walk all of that actor's events).
  const leading = filter.requestId ?? filter.about
  const residual = (column: string) => (leading === undefined ? `${column} =` : `(${column} || '') =`)
  condition('id <', filter.before)
  condition(residual('action'), filter.action)
  condition(residual('actor'), filter.actor)
  condition('request_id =', filter.requestId)
  if (filter.about !== undefined) {
    // A proxied write's path is recorded as the upstream reads it (decoded: proxy/url.ts
    // auditedPath), but events recorded before kept it as sent, and the UI sends ids through
    // encodeURIComponent (a client "app:web" was PATCHed at /admin/clients/app%3Aweb): that form is
    // asked for beside the id, or its page's Audit link would miss those writes.
    const forms = [...new Set([filter.about, encodeURIComponent(filter.about)])]
    const column = filter.requestId === undefined ? 'about' : "(about || '')"
    where.push(`${column} IN (${forms.map((form) => (params.push(form), placeholder(params.length))).join(', ')})`)
  }
  params.push(filter.limit)
  const sql =
    'SELECT id, at, action, actor, target, detail, request_id FROM audit_events' +
    (where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '') +
    ` ORDER BY id DESC LIMIT ${placeholder(params.length)}`
  return { sql, params }
}

/** `rewriteEncrypted`'s decision over the stored settings: the new values, or the keys that failed. */
export function encryptedRewrites(
  settings: readonly Setting[],
  rewrite: (setting: Setting) => string | null,
): { ok: true; replaced: [string, string][] } | { ok: false; keys: string[] } {
  const failed: string[] = []
  const replaced: [string, string][] = []
  for (const setting of settings) {
    if (!setting.encrypted) continue
    const value = rewrite(setting)
    if (value === null) failed.push(setting.key)
    else replaced.push([setting.key, value])
  }
  return failed.length > 0 ? { ok: false, keys: failed } : { ok: true, replaced }
}

/** How long a process may act on what it knows of revocations and settings without news from the database. */
export const FRESHNESS_WINDOW_MS = 1000

/** The database did not answer (down, unreachable, too slow): 503 `database_unavailable`, retry later. */
export class StorageUnavailableError extends ApiError {
  constructor(readonly reason: string) {
    super('database_unavailable')
    this.name = 'StorageUnavailableError'
  }
}

/** The database holds a schema written by a newer executable. */
export class SchemaTooNewError extends Error {
  constructor(
    readonly found: number,
    readonly known: number,
  ) {
    super(`the database schema is version ${found}, newer than this executable's ${known}; upgrade the executable, or, to go back to this one, restore the backup taken before the upgrade`)
    this.name = 'SchemaTooNewError'
  }
}
