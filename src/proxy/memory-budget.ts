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
// A process that lives above the budget (a large heap of its own, not garbage of reads) would
// otherwise run a fruitless full collection every interval while anything streams: a collection
// that frees little doubles the wait before the next (up to two seconds), and one that frees
// enough brings the wait back.

/** Above this resident size, streaming bodies start a full collection. */
export const RELAY_BUDGET_BYTES = 110 * 1024 * 1024
/** The resident size is looked at once per this many bytes relayed (reading it costs a few µs). */
const CHECK_EVERY_BYTES = 4 * 1024 * 1024
/** At most one collection per this many milliseconds, whatever the resident size says. */
const MIN_INTERVAL_MS = 120
/** The longest wait after collections that freed little. */
export const MAX_INTERVAL_MS = 2000
/** A collection that handed back at least this much was worth it. */
const WORTHWHILE_BYTES = 8 * 1024 * 1024

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
  /** The wait before the next collection: the minimum, or longer after collections that freed little. */
  private interval = MIN_INTERVAL_MS
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
    if (now - this.lastCollection < this.interval) return
    const resident = this.residentBytes()
    if (resident <= this.budgetBytes) return
    this.lastCollection = now
    this.collections++
    this.collect()
    const freed = resident - this.residentBytes()
    this.interval = freed >= WORTHWHILE_BYTES ? MIN_INTERVAL_MS : Math.min(MAX_INTERVAL_MS, this.interval * 2)
  }
}

/** The process's one budget: every streamed body of either client counts against it. */
export const relayMemory = new RelayMemoryBudget()
