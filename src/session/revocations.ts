// Revoked sessions survive restarts: they live in SQLite and in memory for the hot path.
// Only this process revokes, so the in-memory copy is complete once loaded.

import type { Database } from 'bun:sqlite'

export class RevocationStore {
  private readonly revokedSessions = new Map<string, number>()
  private readonly revokedIdentities = new Map<string, number>()

  constructor(private readonly db: Database, nowSeconds: number) {
    this.db.query('DELETE FROM revoked_sessions WHERE expires_at <= ?').run(nowSeconds)
    for (const row of this.db.query<{ sid: string; expires_at: number }, []>('SELECT sid, expires_at FROM revoked_sessions').all()) {
      this.revokedSessions.set(row.sid, row.expires_at)
    }
    for (const row of this.db
      .query<{ identity_id: string; revoked_at: number }, []>('SELECT identity_id, revoked_at FROM identity_revocations')
      .all()) {
      this.revokedIdentities.set(row.identity_id, row.revoked_at)
    }
  }

  /** Ends one session; `expiresAt` lets the row be forgotten once the cookie could no longer verify. */
  revokeSession(sid: string, expiresAt: number): void {
    this.db.query('INSERT OR REPLACE INTO revoked_sessions (sid, expires_at) VALUES (?, ?)').run(sid, expiresAt)
    this.revokedSessions.set(sid, expiresAt)
  }

  /** Ends every session of an identity issued up to now. */
  revokeIdentity(identityId: string, nowSeconds: number): void {
    this.db
      .query('INSERT OR REPLACE INTO identity_revocations (identity_id, revoked_at) VALUES (?, ?)')
      .run(identityId, nowSeconds)
    this.revokedIdentities.set(identityId, nowSeconds)
  }

  isRevoked(session: { sid: string; sub: string; iat: number }): boolean {
    if (this.revokedSessions.has(session.sid)) return true
    const revokedAt = this.revokedIdentities.get(session.sub)
    return revokedAt !== undefined && session.iat <= revokedAt
  }
}
