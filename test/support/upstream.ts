// Upstreams for the proxy tests: one that records what it receives and answers as told, and raw
// listeners that misbehave (never answer, reset mid-body) or just count connections.

import { createHash } from 'node:crypto'
import { createServer, type Server, type Socket } from 'node:net'

export interface Received {
  method: string
  path: string
  search: string
  headers: Record<string, string>
  bodyLength: number
  bodySha256: string
}

export type Answer = (request: Request, received: Received) => Response | Promise<Response>

/** A body of `chunk` repeated `times` times, made as it is read (a large body without holding it whole). */
export function repeatedStream(chunk: Uint8Array, times: number): ReadableStream<Uint8Array> {
  let sent = 0
  return new ReadableStream({
    pull(controller) {
      if (sent++ < times) controller.enqueue(chunk)
      else controller.close()
    },
  })
}

export class RecordingUpstream {
  readonly received: Received[] = []
  answer: Answer = () => Response.json({ ok: true })
  /**
   * Identities it answers `GET /admin/identities/<id>` for as Kratos would (active, with this
   * role), before `answer`: for a test that makes it the login identity store, whose sessions'
   * roles are checked against it.
   */
  readonly roles = new Map<string, string>()
  private server: ReturnType<typeof Bun.serve>

  constructor() {
    this.server = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      maxRequestBodySize: 64 * 1024 * 1024,
      fetch: async (request) => {
        const url = new URL(request.url)
        const hash = createHash('sha256')
        let length = 0
        if (request.body) {
          for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
            hash.update(chunk)
            length += chunk.byteLength
          }
        }
        const received: Received = {
          method: request.method,
          path: url.pathname,
          search: url.search,
          headers: Object.fromEntries(request.headers),
          bodyLength: length,
          bodySha256: hash.digest('hex'),
        }
        this.received.push(received)
        const role = request.method === 'GET' ? this.roles.get(url.pathname.slice('/admin/identities/'.length)) : undefined
        if (role !== undefined && url.pathname.startsWith('/admin/identities/')) {
          return Response.json({ id: url.pathname.slice('/admin/identities/'.length), schema_id: 'default', state: 'active', traits: { role } })
        }
        return this.answer(request, received)
      },
    })
  }

  get url(): string {
    return `http://127.0.0.1:${this.server.port}`
  }

  last(): Received {
    const last = this.received.at(-1)
    if (!last) throw new Error('the upstream received nothing')
    return last
  }

  stop(): Promise<void> {
    return this.server.stop(true)
  }
}

/** A raw TCP listener: counts connections and runs `onConnection` for each. */
export class RawListener {
  connections = 0
  private server: Server

  private constructor(server: Server) {
    this.server = server
  }

  static async start(host: string, onConnection: (socket: Socket) => void = () => {}): Promise<RawListener> {
    let listener: RawListener | undefined
    const server = createServer((socket) => {
      listener!.connections++
      socket.on('error', () => {})
      onConnection(socket)
    })
    listener = new RawListener(server)
    await new Promise<void>((resolve) => server.listen(0, host, resolve))
    return listener
  }

  get port(): number {
    return (this.server.address() as { port: number }).port
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()))
  }
}
