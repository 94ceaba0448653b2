// Dashboard layouts (decisions §9): one JSON object per identity in `dashboard_layouts`
// (migration 1), in the storage. What a layout contains is the front end's business; here it is
// only bounded.

import type { Clock } from '../clock.ts'
import type { Storage } from '../db/storage.ts'

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
    private readonly storage: Storage,
    private readonly clock: Clock,
  ) {}

  /** The identity's layout, or null when it has none. */
  async get(identityId: string): Promise<Layout | null> {
    const layout = await this.storage.layouts.get(identityId)
    return layout === null ? null : (JSON.parse(layout) as Layout)
  }

  /** Replaces the identity's layout; committed before it returns. */
  put(identityId: string, serialized: string): Promise<void> {
    return this.storage.layouts.put(identityId, serialized, new Date(this.clock.now()).toISOString())
  }
}
