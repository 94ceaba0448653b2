// The audit trail (decisions §9 `GET /api/security/audit`): who did what to which target, kept in
// SQLite. Targets are names (a setting key, an identity id); values never go in here.

import type { Database } from 'bun:sqlite'
import type { Clock } from '../clock.ts'

export type AuditAction =
  | 'settings_write'
  | 'settings_delete'
  | 'settings_decrypt_read'
  | 'settings_reencrypt'
  | 'login'
  | 'logout'
  | 'identity_search'
  | 'sessions_revoke'
  | 'proxy_write'

export interface AuditEvent {
  id: number
  /** ISO 8601 UTC with milliseconds. */
  at: string
  action: AuditAction
  /** The identity id of whoever acted; null for the command line or the service itself. */
  actor: string | null
  target: string | null
  detail: Record<string, string | number | boolean | null> | null
}

export interface AuditQuery {
  /** 1–1000. */
  limit: number
  /** Only events with an id lower than this (the previous page's last id). */
  before?: number
  action?: AuditAction
  /** Only events by this identity. */
  actor?: string
}

interface AuditRow {
  id: number
  at: string
  action: string
  actor: string | null
  target: string | null
  detail: string | null
}

const MAX_LIMIT = 1000

export class AuditLog {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /** Appends one event; its own statement, so it commits with or after the change it describes. */
  record(action: AuditAction, actor: string | null, target: string | null, detail?: AuditEvent['detail']): void {
    this.db
      .query('INSERT INTO audit_events (at, action, actor, target, detail) VALUES (?, ?, ?, ?, ?)')
      .run(new Date(this.clock.now()).toISOString(), action, actor, target, detail ? JSON.stringify(detail) : null)
  }

  /** Newest first. */
  list(query: AuditQuery): AuditEvent[] {
    const limit = Math.max(1, Math.min(MAX_LIMIT, Math.floor(query.limit)))
    const where: string[] = []
    const params: (string | number)[] = []
    if (query.before !== undefined) {
      where.push('id < ?')
      params.push(query.before)
    }
    if (query.action !== undefined) {
      where.push('action = ?')
      params.push(query.action)
    }
    if (query.actor !== undefined) {
      where.push('actor = ?')
      params.push(query.actor)
    }
    params.push(limit)
    const sql =
      'SELECT id, at, action, actor, target, detail FROM audit_events' +
      (where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '') +
      ' ORDER BY id DESC LIMIT ?'
    return this.db
      .query<AuditRow, (string | number)[]>(sql)
      .all(...params)
      .map((row) => ({
        id: row.id,
        at: row.at,
        action: row.action as AuditAction,
        actor: row.actor,
        target: row.target,
        detail: row.detail === null ? null : (JSON.parse(row.detail) as AuditEvent['detail']),
      }))
  }
}
