// Resident memory while large bodies stream through the proxy.
//
// Each read from an upstream socket arrives as a new buffer of up to 512 KiB, which lives until the
// collector finds it dead. Under many concurrent downloads it is this garbage, not the bodies in
// flight (each stream holds one read at a time), that makes the process grow: 64 downloads of 1 MiB
// at once took it from 52 to about 140 MiB, and to 160 after a soak had grown the heap. Asynchronous
// or young-generation collections did not bound it (bench/README.md). So while bodies stream, the
// resident size is looked at every few MiB relayed, and when it is over the budget a full
// collection runs, at most once per interval: a few per cent of the throughput of such downloads
// for a peak 10–20 MiB over the budget instead of 40–50. It is the allocator's part of Bun.gc(true),
// handing freed pages back, that bounds it: a JavaScript collection alone peaked at 135–149 MiB.

/** Above this resident size, streaming bodies start a full collection. */
export const RELAY_BUDGET_BYTES = 110 * 1024 * 1024
/** The resident size is looked at once per this many bytes relayed (reading it costs a few µs). */
const CHECK_EVERY_BYTES = 4 * 1024 * 1024
/** At most one collection per this many milliseconds, whatever the resident size says. */
const MIN_INTERVAL_MS = 120

interface BudgetOptions {
  budgetBytes?: number
  /** The process's resident size in bytes. */
  residentBytes?: () => number
  /** A synchronous full collection (Bun.gc(true) also has the allocator hand back freed pages). */
  collect?: () => void
  now?: () => number
}

export class RelayMemoryBudget {
  private sinceCheck = 0
  private lastCollection = Number.NEGATIVE_INFINITY
  private readonly budgetBytes: number
  private readonly residentBytes: () => number
  private readonly collect: () => void
  private readonly now: () => number
  /** How many collections it started, and how many bytes it was told of (for the tests). */
  collections = 0
  total = 0

  constructor(options: BudgetOptions = {}) {
    this.budgetBytes = options.budgetBytes ?? RELAY_BUDGET_BYTES
    this.residentBytes = options.residentBytes ?? (() => process.memoryUsage.rss())
    this.collect = options.collect ?? (() => Bun.gc(true))
    this.now = options.now ?? (() => performance.now())
  }

  /** A streamed body passed on `bytes` more bytes. */
  relayed(bytes: number): void {
    this.total += bytes
    this.sinceCheck += bytes
    if (this.sinceCheck < CHECK_EVERY_BYTES) return
    this.sinceCheck = 0
    const now = this.now()
    if (now - this.lastCollection < MIN_INTERVAL_MS || this.residentBytes() <= this.budgetBytes) return
    this.lastCollection = now
    this.collections++
    this.collect()
  }
}

/** The process's one budget: every streamed body of either client counts against it. */
export const relayMemory = new RelayMemoryBudget()
