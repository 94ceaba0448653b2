// The LISTENing connection of the change feed, replaced when it stops delivering.
//
// Bun's client opens its LISTEN connection again when it breaks, but keeps one that stops
// answering without breaking (half-open: a partition, a firewall that dropped the flow): the
// notifications just stop, and TCP may hold on to it for hours. Nothing but LISTEN is sent on it,
// so it is proved alive by a notification to itself: every PROBE_EVERY_MS the poll sends one on
// its own connection (see postgres-storage.ts), on the change channel, with a payload that names
// this process (the other replicas receive it too, and ignore it). When a poll that started
// ANSWER_TIMEOUT_MS after the probe was committed has been answered and the probe has not arrived,
// or the LISTEN has not been acknowledged by then, the client is closed at once (nothing is waited
// for on it) and a new one LISTENs. Only answered polls judge it: while the database cannot be
// reached at all, nothing is replaced.
//
// Every replica stays fresh meanwhile through the poll; only the instant delivery was missing.

import type { SQL } from 'bun'

type Sql = InstanceType<typeof SQL>

/** How often the LISTEN is proved alive: one NOTIFY, on the poll's connection, per interval. */
const PROBE_EVERY_MS = 2000
/** How long a probe may take to come back, and a LISTEN to be acknowledged. */
const ANSWER_TIMEOUT_MS = 2000
/** The longest wait before LISTENing again while no client is proved alive (e.g. a pooler that passes no notifications on). */
const RETRY_MAX_MS = 60_000

/** What every probe's payload begins with; the rest names the process and the probe. */
const PROBE_PREFIX = 'probe:'

/** A notification for the poll to send: `pg_notify(channel, payload)`. */
export interface Probe {
  readonly channel: string
  readonly payload: string
}

/** Why a client was given up on: it did not answer in time (half-open), or its LISTEN failed. */
export type ListenLoss = { kind: 'timeout' } | { kind: 'failed'; error: unknown }

export interface ListenEvents {
  notify(payload: string): void
  /** A LISTEN was acknowledged (at first, after Bun's client reconnected, or on a new client): what was sent before it is lost. */
  listening(): void
  /** Told for the first client given up on, and then not again until a LISTEN is proved alive. */
  lost(loss: ListenLoss): void
}

interface Client {
  readonly sql: Sql
  /** When its LISTEN was sent. */
  readonly since: number
  /** Its LISTEN acknowledged. */
  listening: boolean
}

export class ReplaceableListener {
  private client: Client | null = null
  /** The payloads of this process's probes begin with it. */
  private readonly probePrefix = `${PROBE_PREFIX}${Buffer.from(crypto.getRandomValues(new Uint8Array(8))).toString('hex')}:`
  private probes = 0
  /** The probe of the poll under way, or the last one sent (`sentAt`, once committed) until it arrives. */
  private probe: { payload: string; sentAt: number | null } | null = null
  private lastProbe = Number.NEGATIVE_INFINITY
  /** Clients given up on since a LISTEN was last proved alive. */
  private failures = 0
  private retryAt = Number.NEGATIVE_INFINITY
  private closed = false

  constructor(
    /** A new client; it connects when it LISTENs. */
    private readonly connect: () => Sql,
    private readonly channel: string,
    private readonly events: ListenEvents,
  ) {}

  /** LISTENs on a new client, unless one is there already. */
  start(): void {
    if (this.closed || this.client !== null) return
    let sql: Sql
    try {
      sql = this.connect()
    } catch (error) {
      this.giveUp(null, { kind: 'failed', error })
      return
    }
    const client: Client = { sql, since: performance.now(), listening: false }
    this.client = client
    const acknowledged = () => {
      if (this.client !== client) return
      client.listening = true
      // After a reconnect by Bun's client, a probe sent meanwhile is lost: the next one judges.
      this.probe = null
      this.lastProbe = performance.now()
      this.events.listening()
    }
    const delivered = (payload: string) => {
      if (payload.startsWith(PROBE_PREFIX)) this.arrived(payload)
      else this.events.notify(payload)
    }
    sql.listen(this.channel, delivered, acknowledged).catch((error: unknown) => {
      if (this.client === client) this.giveUp(client, { kind: 'failed', error })
    })
  }

  /** The probe for the poll that starts now to send, when one is due. */
  dueProbe(): Probe | null {
    const now = performance.now()
    if (this.closed || !this.client?.listening || this.probe !== null || now - this.lastProbe < PROBE_EVERY_MS) return null
    this.lastProbe = now
    const payload = `${this.probePrefix}${++this.probes}`
    this.probe = { payload, sentAt: null }
    return { channel: this.channel, payload }
  }

  /**
   * A poll that started at `started` was answered, and `sent` (its probe, if any) committed: gives
   * up on a client whose LISTEN or last probe was not answered in time; LISTENs again when due.
   */
  polled(started: number, sent: Probe | null): void {
    if (this.closed) return
    const now = performance.now()
    if (sent !== null && this.probe?.payload === sent.payload) this.probe.sentAt = now
    const client = this.client
    if (client === null) {
      if (now >= this.retryAt) this.start()
      return
    }
    const sentAt = this.probe?.sentAt ?? null
    const late = client.listening ? sentAt !== null && started - sentAt > ANSWER_TIMEOUT_MS : started - client.since > ANSWER_TIMEOUT_MS
    if (late) this.giveUp(client, { kind: 'timeout' })
  }

  /** A poll that failed: whether its probe was sent is unknown, so it judges nothing. */
  unanswered(sent: Probe | null): void {
    if (sent !== null && this.probe?.payload === sent.payload && this.probe.sentAt === null) this.probe = null
  }

  /** Closes the client at once: nothing is sent on it, nor waited for. */
  async close(): Promise<void> {
    this.closed = true
    const client = this.client
    this.client = null
    await client?.sql.close({ timeout: 0 }).catch(() => {})
  }

  private arrived(payload: string): void {
    if (this.probe?.payload !== payload) return
    this.probe = null
    this.failures = 0
  }

  private giveUp(client: Client | null, loss: ListenLoss): void {
    if (client !== null) void client.sql.close({ timeout: 0 }).catch(() => {})
    this.client = null
    this.probe = null
    if (this.closed) return
    if (this.failures === 0) this.events.lost(loss)
    // At once the first time; then less and less often while none is proved alive.
    const now = performance.now()
    this.retryAt = this.failures === 0 ? now : now + Math.min(PROBE_EVERY_MS * 2 ** (this.failures - 1), RETRY_MAX_MS)
    this.failures++
    if (now >= this.retryAt) this.start()
  }
}
