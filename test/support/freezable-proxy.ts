// A TCP proxy on loopback in front of a real server, which can freeze the connections it carries:
// from then on nothing passes in either direction and nothing is closed, as when a peer vanishes
// without a reset (a failover, a dropped route). Connections opened after a freeze pass, unless
// the proxy is partitioned, or they send a text it was told to freeze on.

import type { Socket, TCPSocketListener } from 'bun'

interface Pair {
  client: Socket<Pair>
  upstream: Socket<Pair> | null
  /** Bytes from the client before the upstream connection is open. */
  early: Uint8Array[]
  /** Bytes not yet taken by each side's socket (a partial write), sent on drain. */
  toClient: Uint8Array[]
  toUpstream: Uint8Array[]
  /** What the client has sent so far, as latin1 text (up to SENT_KEPT characters). */
  sent: string
  frozen: boolean
}

/** Enough for the queries a test looks for: they are sent early on their connection. */
const SENT_KEPT = 1024 * 1024

export interface FreezableProxy {
  readonly port: number
  /**
   * Every connection open now stops forwarding, both ways, and stays open; with `carrying`, only
   * those whose client has sent that text (a query, e.g. `LISTEN`). How many were frozen.
   */
  freeze(carrying?: string): number
  /**
   * From now on, a connection stops forwarding as soon as its client sends `text` (that chunk is
   * held back too); only the next `times` connections that send it, when given.
   */
  freezeOnSend(text: string, times?: number): void
  /** Every connection open now, and every one opened later, stops forwarding: a partition. */
  partition(): number
  /** How many frozen connections neither end has closed yet. */
  frozen(): number
  stop(): void
}

function send(socket: Socket<Pair>, queue: Uint8Array[], chunk?: Uint8Array): void {
  if (chunk) queue.push(chunk)
  while (queue.length > 0) {
    const head = queue[0]!
    const written = socket.write(head)
    if (written < head.byteLength) {
      queue[0] = head.subarray(Math.max(written, 0))
      return
    }
    queue.shift()
  }
}

const latin1 = new TextDecoder('latin1')

export function startFreezableProxy(target: { hostname: string; port: number }): FreezableProxy {
  const pairs = new Set<Pair>()
  const freezeOn: { text: string; left: number }[] = []
  let partitioned = false
  const freezeAll = (which: (pair: Pair) => boolean) => {
    let n = 0
    for (const pair of pairs) {
      if (pair.frozen || !which(pair)) continue
      pair.frozen = true
      n++
    }
    return n
  }
  const listener: TCPSocketListener<Pair> = Bun.listen<Pair>({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      open(client) {
        const pair: Pair = { client, upstream: null, early: [], toClient: [], toUpstream: [], sent: '', frozen: partitioned }
        client.data = pair
        pairs.add(pair)
        // Across a partition nothing reaches the server, not even the connection.
        if (pair.frozen) return
        void Bun.connect<Pair>({
          hostname: target.hostname,
          port: target.port,
          data: pair,
          socket: {
            data(_, chunk) {
              if (!pair.frozen) send(pair.client, pair.toClient, new Uint8Array(chunk))
            },
            drain(upstream) {
              if (!pair.frozen) send(upstream, pair.toUpstream)
            },
            close() {
              if (!pair.frozen) pair.client.end()
              pairs.delete(pair)
            },
          },
        }).then(
          (upstream) => {
            pair.upstream = upstream
            for (const chunk of pair.early.splice(0)) send(upstream, pair.toUpstream, chunk)
          },
          () => client.end(),
        )
      },
      data(client, chunk) {
        const pair = client.data
        if (pair.frozen) return
        if (pair.sent.length < SENT_KEPT) pair.sent += latin1.decode(chunk)
        const trigger = freezeOn.find((on) => on.left > 0 && pair.sent.includes(on.text))
        if (trigger) {
          trigger.left--
          pair.frozen = true
          return
        }
        if (pair.upstream === null) pair.early.push(new Uint8Array(chunk))
        else send(pair.upstream, pair.toUpstream, new Uint8Array(chunk))
      },
      drain(client) {
        if (!client.data.frozen) send(client, client.data.toClient)
      },
      close(client) {
        const pair = client.data
        if (!pair.frozen) pair.upstream?.end()
        pairs.delete(pair)
      },
    },
  })
  return {
    port: listener.port,
    freeze(carrying) {
      return freezeAll((pair) => carrying === undefined || pair.sent.includes(carrying))
    },
    freezeOnSend(text, times = Infinity) {
      freezeOn.push({ text, left: times })
    },
    partition() {
      partitioned = true
      return freezeAll(() => true)
    },
    frozen() {
      let n = 0
      for (const pair of pairs) if (pair.frozen) n++
      return n
    },
    stop() {
      listener.stop(true)
      for (const pair of pairs) {
        pair.client.terminate()
        pair.upstream?.terminate()
      }
      pairs.clear()
    },
  }
}
