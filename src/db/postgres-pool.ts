// A pool of PostgreSQL connections that is replaced when one of them stops answering.
//
// Every operation reserves a connection of its own for its whole run (never queued behind another
// operation's query on a shared one) and gives it back at the end. A connection that has not
// answered when its operation's deadline passes is closed instead of given back: it may be
// half-open (a network partition, a firewall that dropped the flow, a failover without a reset),
// and TCP would keep it for many minutes, each operation handed to it failing after its deadline.
//
// Its pool's idle connections have most likely gone the same way, and Bun's pool cannot test a
// connection before handing it out, so the whole pool is replaced: later operations reserve from
// a new one at once. The old one is closed only when the last operation that reserved from it has
// ended. Closing it earlier would cut those operations (a transaction between two statements on a
// healthy connection); each of them is bounded by its own deadline anyway, and one that meets a
// frozen connection closes that connection when it gives up.

import type { ReservedSQL, SQL } from 'bun'

type Sql = InstanceType<typeof SQL>

interface Generation {
  readonly sql: Sql
  /** Operations that reserved (or wait to reserve) a connection of it. */
  users: number
}

export class ReplaceablePool {
  private current: Generation
  private readonly open = new Set<Generation>()
  /** Operations past their deadline whose connection is given until its silence is certain: closed at once by `close`. */
  private readonly overdue = new Set<() => void>()
  private closed = false

  constructor(
    private readonly connect: () => Sql,
    /** Told once per replacement (the pool whose connection stopped answering is the current one). */
    private readonly onReplaced: () => void,
    /**
     * How long a connection may work on an operation without answering before it counts as silent:
     * the server's own bound on a statement and a margin. Counted from when the work began, not
     * from the deadline's start: an operation that waited for a free connection (a full pool, a
     * lock elsewhere) may pass its deadline while the server still works on it within that bound,
     * and its connection is then given back when the server answers, not closed. 0: silent at the
     * deadline.
     */
    private readonly silentAfterMs = 0,
  ) {
    this.current = this.start()
  }

  /** The pool's size (Bun's default is 10). */
  get max(): number {
    return this.current.sql.options.max ?? 10
  }

  /**
   * Runs `work` on a connection reserved for it. When `deadline` is aborted first, the reservation
   * is given up; or, if `work` still waits on its connection, that connection is closed and the pool
   * replaced once it has been silent for `silentAfterMs` since the work began (at once on `close`),
   * and `work` then rejects (the connection closed), and this with it. The caller's own deadline
   * answers it meanwhile.
   */
  async run<T>(deadline: AbortSignal, work: (sql: Sql) => Promise<T>): Promise<T> {
    if (deadline.aborted) throw deadline.reason
    const generation = this.current
    generation.users++
    let reserved: ReservedSQL | null = null
    let workStarted = 0
    let silence: ReturnType<typeof setTimeout> | undefined
    let ended = false
    const closeNow = () => end(true)
    const end = (hung: boolean) => {
      if (ended) return
      ended = true
      clearTimeout(silence)
      this.overdue.delete(closeNow)
      deadline.removeEventListener('abort', onDeadline)
      if (reserved) void (hung ? reserved.close({ timeout: 0 }) : reserved.release()).catch(() => {})
      if (hung) this.replace(generation)
      if (--generation.users === 0 && generation !== this.current) this.shut(generation)
    }
    const onDeadline = () => {
      if (!reserved) return
      const left = workStarted + this.silentAfterMs - performance.now()
      // Closing: nothing waits for its answer any more.
      if (left <= 0 || this.closed) return end(true)
      silence = setTimeout(closeNow, left)
      this.overdue.add(closeNow)
    }
    deadline.addEventListener('abort', onDeadline)
    try {
      reserved = await generation.sql.reserve({ signal: deadline })
      workStarted = performance.now()
      // Given just as the deadline passed: unused, so it is given back as it is.
      if (deadline.aborted) throw deadline.reason
      return await work(reserved)
    } finally {
      end(false)
    }
  }

  /** Closes every connection, waiting at most `timeoutSeconds` for the queries under way. */
  async close(timeoutSeconds: number): Promise<void> {
    this.closed = true
    // Whoever waited for these has had their answer (503): nothing is left to wait for.
    for (const closeNow of [...this.overdue]) closeNow()
    await Promise.all([...this.open].map((generation) => generation.sql.close({ timeout: timeoutSeconds }).catch(() => {})))
  }

  private start(): Generation {
    const generation: Generation = { sql: this.connect(), users: 0 }
    this.open.add(generation)
    return generation
  }

  private replace(generation: Generation): void {
    // Other operations on the same pool may give up too: it is replaced once.
    if (generation !== this.current || this.closed) return
    this.current = this.start()
    this.onReplaced()
  }

  private shut(generation: Generation): void {
    this.open.delete(generation)
    void generation.sql.close({ timeout: 0 }).catch(() => {})
  }
}
