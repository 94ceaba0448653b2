// A small time-to-live cache for settings reads on hot paths (decisions §7). Misses are cached
// too, so an unset proxy key costs no query per request. Bounded: the oldest entry goes first.

import type { Clock } from '../clock.ts'

const MAX_ENTRIES = 10_000

export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>()

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
  ) {}

  /** The cached value, or undefined when absent or expired. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key)
    if (entry === undefined) return undefined
    if (this.clock.now() >= entry.expiresAt) {
      this.entries.delete(key)
      return undefined
    }
    return entry.value
  }

  set(key: string, value: V): void {
    if (this.ttlMs <= 0) return
    this.entries.delete(key)
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!)
    this.entries.set(key, { value, expiresAt: this.clock.now() + this.ttlMs })
  }

  delete(key: string): void {
    this.entries.delete(key)
  }

  clear(): void {
    this.entries.clear()
  }
}
