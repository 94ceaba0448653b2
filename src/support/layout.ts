// Dashboard layouts (decisions §9): one JSON object per identity in `dashboard_layouts`
// (migration 1). What a layout contains is the front end's business; here it is only bounded.

import type { Database } from 'bun:sqlite'
import type { Clock } from '../clock.ts'

export const MAX_LAYOUT_BYTES = 64 * 1024

export type Layout = Record<string, unknown>

type LayoutCheck = { ok: true; layout: Layout; serialized: string } | { ok: false; reason: 'not_an_object' | 'too_large' }

/** A layout must be a JSON object (not an array or null) whose serialized form is ≤ 64 KiB of UTF-8. */
export function checkLayout(value: unknown): LayoutCheck {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, reason: 'not_an_object' }
  const serialized = JSON.stringify(value)
  if (Buffer.byteLength(serialized, 'utf8') > MAX_LAYOUT_BYTES) return { ok: false, reason: 'too_large' }
  return { ok: true, layout: value as Layout, serialized }
}

export class LayoutStore {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /** The identity's layout, or null when it has none. */
  get(identityId: string): Layout | null {
    const row = this.db.query<{ layout: string }, [string]>('SELECT layout FROM dashboard_layouts WHERE identity_id = ?').get(identityId)
    return row ? (JSON.parse(row.layout) as Layout) : null
  }

  /** Replaces the identity's layout; committed before it returns. */
  put(identityId: string, serialized: string): void {
    this.db
      .query(
        `INSERT INTO dashboard_layouts (identity_id, layout, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (identity_id) DO UPDATE SET layout = excluded.layout, updated_at = excluded.updated_at`,
      )
      .run(identityId, serialized, new Date(this.clock.now()).toISOString())
  }
}
