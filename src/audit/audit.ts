// The audit trail (decisions §9 `GET /api/security/audit`): who did what to which target, kept in
// the storage (SQLite or PostgreSQL). Targets are names (a setting key, an identity id); values
// never go in here.

import type { Clock } from '../clock.ts'
import type { AuditRecord, Storage } from '../db/storage.ts'
import { describeError, type Logger, type LogFields } from '../log.ts'

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
  | 'audit_prune'

export interface AuditEvent {
  id: number
  /** ISO 8601 UTC with milliseconds. */
  at: string
  action: AuditAction
  /** The identity id of whoever acted; null for the command line or the service itself. */
  actor: string | null
  target: string | null
  detail: Record<string, string | number | boolean | null> | null
  /** The request it came in (its `X-Request-Id`, and its log line's `request_id`); null for the command line and for events from before it was kept. */
  request_id: string | null
}

/** An event to record: who (null for the command line) did what to which target, and how it went. */
export interface NewAuditEvent {
  action: AuditAction
  actor: string | null
  target: string | null
  detail?: AuditEvent['detail']
  /** The request it came in, so that an id a person reports leads to its event; absent for the command line. */
  requestId?: string
}

export interface AuditQuery {
  /** 1–1000. */
  limit: number
  /** Only events with an id lower than this (the previous page's last id). */
  before?: number
  action?: AuditAction
  /** Only events by this identity. */
  actor?: string
  /** Only the events of this request (its `X-Request-Id`). */
  requestId?: string
  /** Only the events about this identity, client or setting (the `about` column, schema version 6). */
  about?: string
}

const MAX_LIMIT = 1000

/**
 * U+0000 as U+FFFD. Inputs that reach the trail are checked before (setting keys, identity ids),
 * but an event must never fail its request: PostgreSQL's text cannot hold U+0000, and both engines
 * then keep the same text. (`detail` is JSON, where U+0000 is written escaped.)
 */
function storable(text: string | null): string | null {
  return text === null ? null : text.replaceAll('\0', '\uFFFD')
}

export class AuditLog {
  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
  ) {}

  /** The row for an event now; for units of work that commit it together with their change. */
  entry(event: NewAuditEvent): AuditRecord {
    return {
      at: new Date(this.clock.now()).toISOString(),
      action: event.action,
      actor: storable(event.actor),
      target: storable(event.target),
      detail: event.detail ? JSON.stringify(event.detail) : null,
      request_id: event.requestId ?? null,
    }
  }

  /** Appends one event; its own statement, so it commits with or after the change it describes. */
  record(event: NewAuditEvent): Promise<void> {
    return this.storage.audit.append(this.entry(event))
  }

  /**
   * An event written before what it describes is done (a write sent to an upstream), so that
   * nothing is done that the trail does not hold: when it cannot be written, the caller does not go
   * on. `complete` then gives it its outcome; until that is written it reads as not known.
   */
  begin(event: NewAuditEvent): Promise<number> {
    return this.storage.audit.begin(this.entry(event))
  }

  /** The outcome of an event `begin` wrote; a failure to write it is logged (the event stays as it began). */
  async complete(log: Logger, id: number, event: Pick<NewAuditEvent, 'action' | 'requestId' | 'detail'>): Promise<void> {
    try {
      await this.storage.audit.complete(id, event.detail ? JSON.stringify(event.detail) : null)
    } catch (error) {
      log.error('audit_write_failed', { request_id: event.requestId, action: event.action, event_id: id, ...describeError(error) })
    }
  }

  /**
   * `record` for an event that must not fail what it describes (the change is made, or a refusal
   * stands): a failure to write it is logged loudly, as `audit_write_failed`, and goes no further.
   */
  async recordOrLog(log: Logger, event: NewAuditEvent, fields: LogFields = {}): Promise<void> {
    try {
      await this.record(event)
    } catch (error) {
      log.error('audit_write_failed', { request_id: event.requestId, action: event.action, ...fields, ...describeError(error) })
    }
  }

  /** Newest first. */
  async list(query: AuditQuery): Promise<AuditEvent[]> {
    const limit = Math.max(1, Math.min(MAX_LIMIT, Math.floor(query.limit)))
    const rows = await this.storage.audit.list({ limit, before: query.before, action: query.action, actor: query.actor, requestId: query.requestId, about: query.about })
    return rows.map((row) => ({
      id: row.id,
      at: row.at,
      action: row.action as AuditAction,
      actor: row.actor,
      target: row.target,
      detail: row.detail === null ? null : (JSON.parse(row.detail) as AuditEvent['detail']),
      request_id: row.request_id,
    }))
  }
}
