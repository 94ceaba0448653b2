// Revoked sessions survive restarts: they live in SQLite and in memory for the hot path.
// Other processes on the same file may revoke too: `PRAGMA data_version` changes when another
// connection commits, and is read at most every RELOAD_CHECK_MS, so their revocations count within 1 s.

import type { Database } from 'bun:sqlite'

const RELOAD_CHECK_MS = 250

interface IdentityRevocation {
  seconds: number
  /** null for rows written before millisecond times were kept. */
  ms: number | null
}

export class RevocationStore {
  private revokedSessions = new Map<string, number>()
  private revokedIdentities = new Map<string, IdentityRevocation>()
  private dataVersion = -1
  private checkedAt = 0

  constructor(private readonly db: Database, nowSeconds: number) {
    this.db.query('DELETE FROM revoked_sessions WHERE expires_at <= ?').run(nowSeconds)
    this.reload()
  }

  private readDataVersion(): number {
    return this.db.query<{ data_version: number }, []>('PRAGMA data_version').get()!.data_version
  }

  private reload(): void {
    this.dataVersion = this.readDataVersion()
    this.checkedAt = performance.now()
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
    this.revokedSessions = sessions
    this.revokedIdentities = identities
  }

  /** Picks up what another process wrote; real time, since the other process acts in real time. */
  private refresh(): void {
    const now = performance.now()
    if (now - this.checkedAt < RELOAD_CHECK_MS) return
    this.checkedAt = now
    if (this.readDataVersion() !== this.dataVersion) this.reload()
  }

  /** Ends one session; `expiresAt` lets the row be forgotten once the cookie could no longer verify. */
  revokeSession(sid: string, expiresAt: number): void {
    this.db.query('INSERT OR REPLACE INTO revoked_sessions (sid, expires_at) VALUES (?, ?)').run(sid, expiresAt)
    this.revokedSessions.set(sid, expiresAt)
  }

  /** Ends every session of an identity issued up to `nowMs`. */
  revokeIdentity(identityId: string, nowMs: number): void {
    const ms = Math.floor(nowMs)
    const seconds = Math.floor(ms / 1000)
    this.db
      .query('INSERT OR REPLACE INTO identity_revocations (identity_id, revoked_at, revoked_at_ms) VALUES (?, ?, ?)')
      .run(identityId, seconds, ms)
    this.revokedIdentities.set(identityId, { seconds, ms })
  }

  isRevoked(session: { sid: string; sub: string; iat: number; iatMs?: number }): boolean {
    this.refresh()
    if (this.revokedSessions.has(session.sid)) return true
    const revoked = this.revokedIdentities.get(session.sub)
    if (revoked === undefined) return false
    // Without a millisecond time on either side, a session from the revocation's second is refused.
    if (session.iatMs !== undefined && revoked.ms !== null) return session.iatMs <= revoked.ms
    return session.iat <= revoked.seconds
  }
}
