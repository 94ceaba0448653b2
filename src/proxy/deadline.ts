// The proxy's time limit per request. When it passes, the step then waiting for the upstream (a
// free socket, the connection, the answer) fails with the clock's reason.
//
// A timer and an AbortController per request cost 2–4.6 µs of server CPU per small proxied answer
// under load (bench/README.md), so requests that start within the same few milliseconds share one
// timer: a deadline passes between `ms` and `ms + SHARED_TIMER_MS` after its request began, never
// before.

/** Requests that start within this window share one timer. */
export const SHARED_TIMER_MS = 10

export class DeadlineClock {
  private batch: Set<Deadline> | null = null
  private batchEnds = 0

  constructor(
    private readonly ms: number,
    private readonly reason: () => unknown,
  ) {}

  /** A deadline `ms` from now (up to SHARED_TIMER_MS later); `stop()` it once the answer is in. */
  start(): Deadline {
    const now = performance.now()
    let batch = this.batch
    if (batch === null || now >= this.batchEnds) {
      const shared = new Set<Deadline>()
      batch = this.batch = shared
      this.batchEnds = now + SHARED_TIMER_MS
      // Unreferenced: a request in flight keeps the process alive by its sockets, not by its deadline.
      setTimeout(() => {
        if (this.batch === shared) this.batch = null
        for (const deadline of shared) deadline.abort(this.reason())
      }, this.ms + SHARED_TIMER_MS).unref()
    }
    const deadline = new Deadline(batch)
    batch.add(deadline)
    return deadline
  }
}

/**
 * What our HTTP/1.1 client (http1.ts) needs of an AbortSignal, and nothing more: an AbortSignal
 * serves, and so does a Deadline.
 */
export interface AbortLike {
  readonly aborted: boolean
  readonly reason: unknown
  throwIfAborted(): void
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void
  removeEventListener(type: 'abort', listener: () => void): void
}

export class Deadline implements AbortLike {
  aborted = false
  reason: unknown = undefined
  /** Who waits for the deadline: one step at a time in our client, so rarely more than one. */
  private listeners: (() => void)[] = []
  private controller: AbortController | null = null

  constructor(private batch: Set<Deadline> | null) {}

  abort(reason: unknown): void {
    if (this.aborted) return
    this.aborted = true
    this.reason = reason
    this.stop()
    for (const listener of this.listeners.splice(0)) listener()
    this.controller?.abort(reason)
  }

  /** Listeners run once, when the deadline passes. */
  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.aborted) this.listeners.push(listener)
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const at = this.listeners.indexOf(listener)
    if (at >= 0) this.listeners.splice(at, 1)
  }

  throwIfAborted(): void {
    if (this.aborted) throw this.reason
  }

  /** The same limit as an AbortSignal, for Bun's fetch. */
  get signal(): AbortSignal {
    if (this.controller === null) {
      this.controller = new AbortController()
      if (this.aborted) this.controller.abort(this.reason)
    }
    return this.controller.signal
  }

  /** The answer is in: the deadline no longer applies. */
  stop(): void {
    this.batch?.delete(this)
    this.batch = null
  }
}
