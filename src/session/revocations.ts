// Revoked sessions survive restarts and are shared by every process on the same storage: they live
// in the database and, for the hot path, in memory. Revocations made elsewhere (another replica,
// another process on the same SQLite file) reach memory through the storage's change feed, which
// reloads them. What memory says "not revoked" counts only while the feed has had news from the
// database within FRESHNESS_WINDOW_MS; past that the answer is "unknown" and the gate fails closed.
// A revocation is kept until PRUNE_MARGIN_SECONDS after the last cookie it refuses has expired: a
// revoked session until its cookie's own expiry, an identity revocation until MAX_SESSION_SECONDS
// after it (every session it refuses was issued before it). Then it is forgotten, at start and
// every PRUNE_EVERY_MS after, so a long-running service does not accumulate them. "After" by the
// database's clock on PostgreSQL (replicas' clocks differ), by this process's on SQLite (one host).

import type { Clock } from '../clock.ts'
import { FRESHNESS_WINDOW_MS, type AuditRecord, type IdentityRevocation, type RevocationCutoff, type RevocationMargins, type RevocationSnapshot, type Storage } from '../db/storage.ts'
import { describeError, type Logger } from '../log.ts'
import { MAX_SESSION_SECONDS } from './cookie.ts'

export type Revocation = 'revoked' | 'not_revoked' | 'unknown'

type LocalChange = { kind: 'session'; sid: string; expiresAt: number } | { kind: 'identity'; id: string; revocation: IdentityRevocation }

/** How soon a first load that failed is tried again. */
const LOAD_RETRY_MS = 1000

/** How often revocations that no longer refuse any live cookie are forgotten. */
export const PRUNE_EVERY_MS = 60 * 60 * 1000

/**
 * How long a revocation is kept after the last cookie it refuses has expired. Replicas' clocks
 * differ: on one whose clock is behind the pruning replica's, that cookie has not expired yet, and
 * once the row is gone (and its memory reloaded) it would accept it. An hour is far beyond the
 * skew of any host whose clock is kept in time, and costs only an hour's worth of rows.
 */
export const PRUNE_MARGIN_SECONDS = 60 * 60

/**
 * A session an identity revocation refuses was issued at or before it, and no cookie verifies
 * longer than MAX_SESSION_SECONDS after its issue (verifySessionCookie): all of them have expired
 * MAX_SESSION_SECONDS after the revocation. An older revocation written after it is forgotten (a
 * late replica) refuses only sessions that have expired too.
 */
const REVOCATION_MARGINS: RevocationMargins = { sessionsSeconds: PRUNE_MARGIN_SECONDS, identitiesSeconds: MAX_SESSION_SECONDS + PRUNE_MARGIN_SECONDS }

export interface RevocationStoreOptions {
  clock: Clock
  log?: Logger
  /** PRUNE_EVERY_MS unless a test shortens it. */
  pruneEveryMs?: number
}

export class RevocationStore {
  private revokedSessions = new Map<string, number>()
  private revokedIdentities = new Map<string, IdentityRevocation>()
  private loaded = false
  private current: Promise<void> | null = null
  private next: Promise<void> | null = null
  /** This process's own revocations made while a load is under way: replayed over its result. */
  private sinceLoad: LocalChange[] | null = null
  /** Settles (never rejects) once the first load is done or has failed. */
  readonly ready: Promise<void>
  private readonly clock: Clock
  private readonly log: Logger | undefined
  private readonly pruneTimer: ReturnType<typeof setInterval>
  private pruning = false
  /** The next try of a first load that failed. */
  private retryTimer: ReturnType<typeof setTimeout> | null = null
  /** The first load failed (and said so once): the load that succeeds says so too. */
  private firstLoadFailed = false
  private closed = false

  constructor(
    private readonly storage: Storage,
    options: RevocationStoreOptions,
  ) {
    this.clock = options.clock
    this.log = options.log
    storage.changes.subscribe((change) => (change.topic === 'revocations' ? this.reload() : undefined))
    // The load does not wait on the prune: a prune refused (a lock held elsewhere, on SQLite) must
    // not leave the gate without revocations, failing closed, until another process writes.
    this.ready = storage.revocations
      .forgetExpired(REVOCATION_MARGINS, this.nowSeconds())
      .catch((error: unknown) => this.log?.warn('revocations_prune_failed', describeError(error)))
      .then(() => this.loadAtStart())
    // Unref'd: it never keeps the process alive.
    this.pruneTimer = setInterval(() => void this.prune(), options.pruneEveryMs ?? PRUNE_EVERY_MS)
    this.pruneTimer.unref?.()
  }

  private nowSeconds(): number {
    return Math.floor(this.clock.now() / 1000)
  }

  /**
   * Forgets the revocations that refuse no cookie still alive on any replica, in the database and
   * then in memory, up to the cutoff the storage applied (by the database's clock on PostgreSQL).
   * Other replicas may do the same at the same moment (the storage allows it); a failure waits for
   * the next turn and forgets nothing.
   */
  private async prune(): Promise<void> {
    if (this.pruning) return
    this.pruning = true
    let cutoff: RevocationCutoff
    try {
      cutoff = await this.storage.revocations.forgetExpired(REVOCATION_MARGINS, this.nowSeconds())
    } catch (error) {
      this.log?.warn('revocations_prune_failed', describeError(error))
      return
    } finally {
      this.pruning = false
    }
    for (const [sid, expiresAt] of this.revokedSessions) if (expiresAt <= cutoff.sessionsExpiredBy) this.revokedSessions.delete(sid)
    for (const [id, revocation] of this.revokedIdentities) if (revocation.seconds <= cutoff.identitiesRevokedBy) this.revokedIdentities.delete(id)
  }

  /**
   * The first load, tried again every LOAD_RETRY_MS until it succeeds: until then the gate fails
   * closed, and on SQLite nothing else would load them unless another process wrote. Settles after
   * the first try.
   */
  private async loadAtStart(): Promise<void> {
    try {
      await this.reload()
    } catch (error) {
      if (this.loaded || this.closed) return
      if (!this.firstLoadFailed) this.log?.error('revocations_load_failed', describeError(error))
      this.firstLoadFailed = true
      this.retryTimer = setTimeout(() => {
        // The change feed may have loaded them meanwhile (PostgreSQL's first poll reloads).
        if (!this.loaded) void this.loadAtStart()
      }, LOAD_RETRY_MS)
      this.retryTimer.unref?.()
    }
  }

  /** Stops the periodic pruning and any retry of the first load (at shutdown, before the storage is closed). */
  close(): void {
    this.closed = true
    clearInterval(this.pruneTimer)
    if (this.retryTimer !== null) clearTimeout(this.retryTimer)
  }

  /** One load at a time; a change that arrives during a load gets one more load after it. */
  private reload(): Promise<void> {
    if (this.next) return this.next
    if (this.current) {
      this.next = this.current
        .catch(() => {})
        .then(() => {
          this.next = null
          return this.reload()
        })
      return this.next
    }
    this.current = this.load().finally(() => {
      this.current = null
    })
    return this.current
  }

  private async load(): Promise<void> {
    this.sinceLoad = []
    let snapshot: RevocationSnapshot
    try {
      snapshot = await this.storage.revocations.load()
    } catch (error) {
      this.sinceLoad = null
      throw error
    }
    for (const change of this.sinceLoad) {
      if (change.kind === 'session') snapshot.sessions.set(change.sid, Math.max(change.expiresAt, snapshot.sessions.get(change.sid) ?? -Infinity))
      else snapshot.identities.set(change.id, laterRevocation(snapshot.identities.get(change.id), change.revocation))
    }
    this.sinceLoad = null
    this.revokedSessions = snapshot.sessions
    this.revokedIdentities = snapshot.identities
    if (!this.loaded && this.firstLoadFailed) this.log?.info('revocations_loaded')
    this.loaded = true
  }

  /**
   * Ends one session; `expiresAt` lets the row be forgotten once the cookie could no longer verify.
   * `audit` is committed with it: a failure leaves neither.
   */
  async revokeSession(sid: string, expiresAt: number, audit?: AuditRecord): Promise<void> {
    await this.storage.revocations.revokeSession(sid, expiresAt, audit)
    this.revokedSessions.set(sid, Math.max(expiresAt, this.revokedSessions.get(sid) ?? -Infinity))
    this.sinceLoad?.push({ kind: 'session', sid, expiresAt })
  }

  /** Ends every session of an identity issued up to `nowMs`; `audit` is committed with it. */
  async revokeIdentity(identityId: string, nowMs: number, audit?: AuditRecord): Promise<void> {
    const ms = Math.floor(nowMs)
    const revocation = { seconds: Math.floor(ms / 1000), ms }
    await this.storage.revocations.revokeIdentity(identityId, revocation, audit)
    // A later revocation known here already (from another replica) is never replaced by this one.
    this.revokedIdentities.set(identityId, laterRevocation(this.revokedIdentities.get(identityId), revocation))
    this.sinceLoad?.push({ kind: 'identity', id: identityId, revocation })
  }

  /** A memory lookup. "unknown" when memory cannot vouch for the last FRESHNESS_WINDOW_MS. */
  revocationOf(session: { sid: string; sub: string; iat: number; iatMs?: number }): Revocation {
    if (this.loaded && this.isRevoked(session)) return 'revoked'
    return this.vouches() ? 'not_revoked' : 'unknown'
  }

  /** Whether memory holds every revocation made up to FRESHNESS_WINDOW_MS ago: without that, the gate refuses every session. */
  vouches(): boolean {
    return this.loaded && performance.now() - this.storage.changes.freshAt() <= FRESHNESS_WINDOW_MS
  }

  /**
   * Settles once the change feed's next check of the database has ended, or after `limitMs`,
   * whichever comes first; `revocationOf` then says what is known.
   */
  async nextNews(limitMs: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined
    const limit = new Promise<void>((resolve) => (timer = setTimeout(resolve, limitMs)))
    await Promise.race([this.storage.changes.nextPoll(), limit])
    clearTimeout(timer)
  }

  private isRevoked(session: { sid: string; sub: string; iat: number; iatMs?: number }): boolean {
    if (this.revokedSessions.has(session.sid)) return true
    const revoked = this.revokedIdentities.get(session.sub)
    if (revoked === undefined) return false
    // Without a millisecond time on either side, a session from the revocation's second is refused.
    if (session.iatMs !== undefined && revoked.ms !== null) return session.iatMs <= revoked.ms
    return session.iat <= revoked.seconds
  }
}

/** The revocation that refuses more sessions: the storage keeps the same (see revokeIdentity there). */
function laterRevocation(known: IdentityRevocation | undefined, next: IdentityRevocation): IdentityRevocation {
  if (known === undefined) return next
  if (known.ms === null && known.seconds >= next.seconds) return known
  if (next.ms === null && next.seconds >= known.seconds) return next
  return (known.ms ?? -Infinity) >= (next.ms ?? -Infinity) ? known : next
}
