// Long proxied bodies through the whole service: a slow client holds the upstream back, through
// our own client (plain HTTP) and through Bun's fetch (https, trusting a test certificate); and
// an https upstream forwards and logs bodies like a plain-HTTP one.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { connect, createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net'
import { createServer as createTlsServer } from 'node:tls'
import { within } from './support/eventually.ts'
import { markSensitive } from './support/leaks.ts'
import { rawRequest } from './support/raw-http.ts'
import { startService, type TestService } from './support/service.ts'
import { testCertificate } from './support/tls.ts'
import { RawListener, repeatedStream } from './support/upstream.ts'

function lineFor(service: TestService, id: string): Record<string, unknown> | undefined {
  return service.logLines.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.event === 'request' && line.request_id === id)
}

/** The request's log line, once it has been written (a streamed body is logged when it ends). */
async function loggedLine(service: TestService, id: string): Promise<Record<string, unknown> | undefined> {
  await within(10_000, () => lineFor(service, id) !== undefined)
  return lineFor(service, id)
}

const certificate = testCertificate

for (const scheme of ['http', 'https'] as const) {
  describe(`a slow client on an ${scheme} upstream (${scheme === 'http' ? 'our client' : 'Bun’s fetch'})`, () => {
    const size = 128 * 1024 * 1024
    let written = 0
    let upstream: NetServer
    const sockets = new Set<Socket>()
    /** The test's own client connections: closed at the end even when a test failed while one was paused. */
    const clients = new Set<Socket>()
    let service: TestService

    beforeAll(async () => {
      const piece = Buffer.alloc(256 * 1024, 3)
      // Writes the whole body as fast as its socket takes it, counting what it could write.
      const serve = (socket: Socket) => {
        sockets.add(socket)
        socket.on('error', () => {})
        socket.once('data', async () => {
          socket.write(`HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: ${size}\r\n\r\n`)
          while (written < size) {
            written += piece.byteLength
            if (!socket.write(piece)) await new Promise((resolve) => socket.once('drain', resolve))
          }
        })
      }
      upstream = scheme === 'http' ? createNetServer(serve) : createTlsServer({ cert: certificate().cert, key: certificate().key }, serve)
      await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
      const port = (upstream.address() as { port: number }).port
      markSensitive(String(port))
      service = await startService({ env: { IDP_PUBLIC_URL: `${scheme}://127.0.0.1:${port}` }, fetch: scheme === 'https' ? certificate().trusting : undefined })
    })
    afterAll(async () => {
      for (const client of clients) client.destroy()
      await service.stop()
      // fetch keeps its connection open: it is closed here, or the server would wait for it.
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => upstream.close(resolve))
    })

    test('is not outrun by the upstream: the service holds back what the client has not read, and all of it arrives once read', async () => {
      const port = new URL(service.url).port
      const client: Socket = connect(Number(port), '127.0.0.1')
      let received = 0
      let head = ''
      clients.add(client)
      client.on('data', (data: Buffer) => {
        // The client stops reading at its first chunk, not at the next poll: on loopback, one poll
        // interval is enough for tens of MiB to arrive.
        if (head === '') {
          head = data.toString('latin1').split('\r\n\r\n')[0]!
          client.pause()
        }
        received += data.byteLength
      })
      client.write(`GET /api/idp/large HTTP/1.1\r\nHost: admin.test\r\nConnection: close\r\n\r\n`)
      await within(5_000, () => received > 0)
      await Bun.sleep(1000)
      // Nothing is read far ahead for the client: only what the sockets on both sides buffer, and a
      // little of the proxy's own (a few MiB for fetch), has left the upstream of the 128 MiB.
      expect(written).toBeLessThan(48 * 1024 * 1024)
      const id = /x-request-id: ([0-9a-f-]+)/i.exec(head)![1]!
      expect(lineFor(service, id)).toBeUndefined()
      client.resume()
      await new Promise((resolve) => client.once('close', resolve))
      expect(head).toStartWith('HTTP/1.1 200')
      expect(received).toBeGreaterThan(size)
      expect(await loggedLine(service, id)).toMatchObject({ status: 200, body: 'complete', body_bytes: size })
    }, 60_000)
  })
}

describe('an https upstream', () => {
  let upstream: ReturnType<typeof Bun.serve>
  let service: TestService
  let cert: string
  let key: string
  let trusting: typeof fetch
  const chunk = new Uint8Array(1024 * 1024).map((_, i) => (i * 11) % 241)

  beforeAll(async () => {
    ;({ cert, key, trusting } = certificate())
    upstream = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      tls: { cert, key },
      maxRequestBodySize: 64 * 1024 * 1024,
      async fetch(request) {
        const path = new URL(request.url).pathname
        if (path.endsWith('/small')) return Response.json({ over: 'tls', host: request.headers.get('host'), encoding: request.headers.get('accept-encoding') })
        if (path.endsWith('/upload')) {
          const bytes = new Uint8Array(await request.arrayBuffer())
          return Response.json({ length: bytes.byteLength, sha256: createHash('sha256').update(bytes).digest('hex') })
        }
        return new Response(repeatedStream(chunk, 4), { headers: { 'content-type': 'application/octet-stream' } })
      },
    })
    markSensitive(String(upstream.port))
    service = await startService({ env: { IDP_PUBLIC_URL: `https://127.0.0.1:${upstream.port}` }, fetch: trusting })
  })
  afterAll(async () => {
    await service.stop()
    await upstream.stop(true)
  })

  test('a small answer comes through, with our headers', async () => {
    const response = await fetch(`${service.url}/api/idp/small`, { headers: { 'accept-encoding': 'br' } })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ over: 'tls', host: `127.0.0.1:${upstream.port}`, encoding: 'br' })
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(lineFor(service, response.headers.get('x-request-id')!)).toMatchObject({ status: 200, body: 'complete' })
  })

  test('a client that offers no content coding is offered none upstream', async () => {
    const raw = await rawRequest(service.url, 'GET /api/idp/small HTTP/1.1')
    expect(raw.status).toBe(200)
    expect(JSON.parse(raw.body)).toMatchObject({ encoding: 'identity' })
  })

  test('a 4 MiB download streams through intact and is logged complete', async () => {
    const response = await fetch(`${service.url}/api/idp/download`)
    const bytes = new Uint8Array(await response.arrayBuffer())
    const expected = createHash('sha256')
    for (let i = 0; i < 4; i++) expected.update(chunk)
    expect(bytes.byteLength).toBe(4 * chunk.byteLength)
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(expected.digest('hex'))
    expect(await loggedLine(service, response.headers.get('x-request-id')!)).toMatchObject({ status: 200, body: 'complete', body_bytes: 4 * chunk.byteLength })
  })

  test('an upload streams through intact', async () => {
    const payload = new Uint8Array(3 * 1024 * 1024).map((_, i) => (i * 5) % 256)
    const response = await fetch(`${service.url}/api/idp/upload`, { method: 'POST', body: payload, headers: { 'content-type': 'application/octet-stream' } })
    expect(await response.json()).toEqual({ length: payload.byteLength, sha256: createHash('sha256').update(payload).digest('hex') })
  })

  test('a body the upstream cuts is cut for the client and logged incomplete', async () => {
    // Announces 4 MiB, sends 1 MiB over TLS and drops the connection.
    const cutter = createTlsServer({ cert, key }, (socket) => {
      socket.once('data', () => {
        socket.write(`HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: ${4 * chunk.byteLength}\r\n\r\n`)
        socket.write(chunk, () => setTimeout(() => socket.destroy(), 20))
      })
      socket.on('error', () => {})
    })
    await new Promise<void>((resolve) => cutter.listen(0, '127.0.0.1', resolve))
    const cutterPort = (cutter.address() as { port: number }).port
    markSensitive(String(cutterPort))
    const cutService = await startService({ env: { IDP_PUBLIC_URL: `https://127.0.0.1:${cutterPort}` }, fetch: trusting })
    try {
      const response = await fetch(`${cutService.url}/api/idp/cut`)
      expect(response.status).toBe(200)
      const read = await response.arrayBuffer().then(
        (bytes) => bytes.byteLength,
        () => -1,
      )
      expect(read).not.toBe(4 * chunk.byteLength)
      expect(await loggedLine(cutService, response.headers.get('x-request-id')!)).toMatchObject({ status: 200, body: 'incomplete' })
    } finally {
      await cutService.stop()
      await new Promise((resolve) => cutter.close(resolve))
    }
  })
})

describe('HTTP_PROXY in the environment', () => {
  test('plain-HTTP upstreams are then reached through that proxy, as Bun’s fetch does', async () => {
    const requestLines: string[] = []
    const forwardProxy = await RawListener.start('127.0.0.1', (socket) => {
      socket.once('data', (data: Buffer) => {
        requestLines.push(data.toString('latin1').split('\r\n')[0]!)
        socket.end('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 15\r\nConnection: close\r\n\r\n{"via":"proxy"}')
      })
    })
    markSensitive(String(forwardProxy.port))
    const saved = process.env.HTTP_PROXY
    process.env.HTTP_PROXY = `http://127.0.0.1:${forwardProxy.port}`
    let service: TestService | undefined
    try {
      // The service reads its environment through its configuration; Bun's fetch reads the process's.
      service = await startService({ env: { IDP_PUBLIC_URL: 'http://kratos.internal:4433', HTTP_PROXY: process.env.HTTP_PROXY } })
      // A raw request: this process's own fetch would go through HTTP_PROXY too.
      const response = await rawRequest(service.url, 'GET /api/idp/sessions/whoami HTTP/1.1')
      expect(JSON.parse(response.body)).toEqual({ via: 'proxy' })
      expect(requestLines).toEqual(['GET http://kratos.internal:4433/sessions/whoami HTTP/1.1'])
    } finally {
      if (saved === undefined) delete process.env.HTTP_PROXY
      else process.env.HTTP_PROXY = saved
      await service?.stop()
      await forwardProxy.stop()
    }
  })
})
