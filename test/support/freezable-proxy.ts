// A TCP proxy on loopback in front of a real server, which can freeze the connections it carries:
// from then on nothing passes in either direction and nothing is closed, as when a peer vanishes
// without a reset (a failover, a dropped route). Connections opened after the freeze pass.

import type { Socket, TCPSocketListener } from 'bun'

interface Pair {
  client: Socket<Pair>
  upstream: Socket<Pair> | null
  /** Bytes from the client before the upstream connection is open. */
  early: Uint8Array[]
  /** Bytes not yet taken by each side's socket (a partial write), sent on drain. */
  toClient: Uint8Array[]
  toUpstream: Uint8Array[]
  frozen: boolean
}

export interface FreezableProxy {
  readonly port: number
  /** Every connection open now stops forwarding, both ways, and stays open. */
  freeze(): number
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

export function startFreezableProxy(target: { hostname: string; port: number }): FreezableProxy {
  const pairs = new Set<Pair>()
  const listener: TCPSocketListener<Pair> = Bun.listen<Pair>({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      open(client) {
        const pair: Pair = { client, upstream: null, early: [], toClient: [], toUpstream: [], frozen: false }
        client.data = pair
        pairs.add(pair)
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
    freeze() {
      let n = 0
      for (const pair of pairs) {
        if (!pair.frozen) n++
        pair.frozen = true
      }
      return n
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
