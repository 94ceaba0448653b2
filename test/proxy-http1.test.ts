// The proxy's HTTP/1.1 client against real servers on loopback: Bun's own server for well-formed
// exchanges, raw TCP listeners that write answers byte by byte, in odd framings or broken.
import { afterEach, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { connect, type Socket } from 'node:net'
import { headersOf, Http1Pool, UpstreamProtocolError, type UpstreamAnswer } from '../src/proxy/http1.ts'
import { within } from './support/eventually.ts'
import { RawListener } from './support/upstream.ts'

const pools: Http1Pool[] = []
const listeners: { stop(): unknown }[] = []
afterEach(async () => {
  for (const pool of pools.splice(0)) pool.closeIdle()
  for (const listener of listeners.splice(0)) await listener.stop()
})

function newPool(options?: ConstructorParameters<typeof Http1Pool>[0]): Http1Pool {
  const pool = new Http1Pool(options)
  pools.push(pool)
  return pool
}

function get(pool: Http1Pool, url: string, init: { method?: string; headers?: HeadersInit; signal?: AbortSignal } = {}): Promise<UpstreamAnswer> {
  return pool.request(new URL(url), { method: init.method ?? 'GET', headers: [...new Headers(init.headers)].flat(), signal: init.signal ?? new AbortController().signal })
}

async function text(answer: UpstreamAnswer): Promise<string> {
  return answer.body === null ? '' : new TextDecoder().decode(await answer.body.bytes())
}

/** A Bun server that says which client port each request came from (one port per connection). */
function portReportingServer(answer: (request: Request) => Response | Promise<Response> = () => new Response('ok')) {
  const ports: number[] = []
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request, server) {
      ports.push(server.requestIP(request)!.port)
      return answer(request)
    },
  })
  listeners.push({ stop: () => server.stop(true) })
  return { url: `http://127.0.0.1:${server.port}`, connections: () => new Set(ports).size }
}

/** A raw upstream: `answer` gets each request head as it arrives and writes whatever it likes. */
async function rawUpstream(answer: (socket: Socket, head: string, index: number) => void | Promise<void>) {
  let index = 0
  const listener = await RawListener.start('127.0.0.1', (socket) => {
    let pending = ''
    socket.setEncoding('latin1')
    socket.on('data', (data: string) => {
      pending += data
      for (let end = pending.indexOf('\r\n\r\n'); end >= 0; end = pending.indexOf('\r\n\r\n')) {
        const head = pending.slice(0, end)
        pending = pending.slice(end + 4)
        void answer(socket, head, index++)
      }
    })
  })
  listeners.push(listener)
  return { url: `http://127.0.0.1:${listener.port}`, listener }
}

/** Writes `bytes` one byte per event-loop turn: every boundary a parser can meet. */
async function dribble(socket: Socket, bytes: string): Promise<void> {
  for (const byte of bytes) {
    socket.write(byte, 'latin1')
    await new Promise((resolve) => setTimeout(resolve, 0))
  }
}

describe('well-formed answers', () => {
  test('a kept-alive connection serves one request after another', async () => {
    const upstream = portReportingServer()
    const pool = newPool()
    for (let i = 0; i < 20; i++) expect(await text(await get(pool, `${upstream.url}/x`))).toBe('ok')
    expect(upstream.connections()).toBe(1)
  })

  test('the request carries our Host, the caller’s headers, and none of the framing headers a caller might pass', async () => {
    let seen: Record<string, string> = {}
    const upstream = portReportingServer((request) => {
      seen = Object.fromEntries(request.headers)
      return new Response('ok')
    })
    const pool = newPool()
    await text(await get(pool, `${upstream.url}/a/b%20c?x=1&y=%2F`, { headers: { 'x-one': '1', host: 'evil.example', 'content-length': '5', 'transfer-encoding': 'chunked', connection: 'close' } }))
    expect(seen).toEqual({ host: new URL(upstream.url).host, 'x-one': '1' })
  })

  test('the head goes out byte for byte: plain ASCII as it is, a Latin-1 value as its one byte per character', async () => {
    const heads: string[] = []
    const upstream = await rawUpstream((socket, head) => {
      heads.push(head)
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')
    })
    const pool = newPool()
    await text(await get(pool, `${upstream.url}/plain?q=1`, { headers: { 'x-plain': 'abc' } }))
    await text(await get(pool, `${upstream.url}/latin`, { headers: { 'x-latin': 'caf\xe9 \xff' } }))
    expect(heads[0]).toBe(`GET /plain?q=1 HTTP/1.1\r\nhost: ${new URL(upstream.url).host}\r\nx-plain: abc`)
    // Read as Latin-1: one character per byte, so UTF-8 would show as two.
    expect(heads[1]).toBe(`GET /latin HTTP/1.1\r\nhost: ${new URL(upstream.url).host}\r\nx-latin: caf\xe9 \xff`)
  })

  test('POST, PUT and PATCH without a body say Content-Length: 0; GET and DELETE say nothing of a body', async () => {
    const seen: Record<string, string | null> = {}
    const upstream = portReportingServer((request) => {
      seen[request.method] = request.headers.get('content-length') ?? request.headers.get('transfer-encoding')
      return new Response('ok')
    })
    const pool = newPool()
    for (const method of ['POST', 'PUT', 'PATCH', 'GET', 'DELETE']) await text(await get(pool, `${upstream.url}/`, { method }))
    expect(seen).toEqual({ POST: '0', PUT: '0', PATCH: '0', GET: null, DELETE: null })
  })

  test('a chunked body with extensions and trailers, dribbled one byte at a time, arrives whole', async () => {
    const upstream = await rawUpstream(async (socket) => {
      await dribble(socket, 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Answer: yes\r\n\r\n5;name=value\r\nhello\r\n7\r\n, world\r\n0\r\nX-Trailer: t\r\n\r\n')
    })
    const pool = newPool()
    const answer = await get(pool, `${upstream.url}/`)
    expect(answer.status).toBe(200)
    expect(headersOf(answer.fields).get('x-answer')).toBe('yes')
    expect(await text(answer)).toBe('hello, world')
    expect(await answer.body!.ended).toEqual({ body: 'complete', body_bytes: 12 })
    // The same connection serves the next request: the chunked body ended exactly at its end.
    expect(await text(await get(pool, `${upstream.url}/`))).toBe('hello, world')
    expect(upstream.listener.connections).toBe(1)
  })

  test('interim 100 and 103 answers are passed over for the final one', async () => {
    const upstream = await rawUpstream((socket) => {
      socket.write('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 4\r\n\r\ndone')
    })
    const answer = await get(newPool(), `${upstream.url}/`)
    expect(answer.status).toBe(201)
    expect(answer.statusText).toBe('Created')
    expect(headersOf(answer.fields).get('link')).toBeNull()
    expect(await text(answer)).toBe('done')
  })

  test('a body delimited by the connection closing is read to its end and the connection is not reused', async () => {
    const upstream = await rawUpstream((socket) => {
      socket.end('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end')
    })
    const pool = newPool()
    const answer = await get(pool, `${upstream.url}/`)
    expect(await text(answer)).toBe('until the end')
    expect(await answer.body!.ended).toEqual({ body: 'complete', body_bytes: 13 })
    expect(await text(await get(pool, `${upstream.url}/`))).toBe('until the end')
    expect(upstream.listener.connections).toBe(2)
  })

  for (const [name, method, status] of [
    ['HEAD, whatever its Content-Length says', 'HEAD', 200],
    ['304', 'GET', 304],
  ] as const) {
    test(`${name}: no body, and the connection goes on to the next request`, async () => {
      const upstream = await rawUpstream((socket, head) => {
        if (head.startsWith('GET /next')) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nnext')
        else socket.write(`HTTP/1.1 ${status} X\r\nContent-Length: 1000\r\nETag: "v"\r\n\r\n`)
      })
      const pool = newPool()
      const answer = await get(pool, `${upstream.url}/`, { method })
      expect(answer.status).toBe(status)
      expect(answer.body).toBeNull()
      expect(await text(await get(pool, `${upstream.url}/next`))).toBe('next')
      expect(upstream.listener.connections).toBe(1)
    })
  }

  test('Connection: close and HTTP/1.0 answers are not reused', async () => {
    const upstream = await rawUpstream((socket, _head, index) => {
      socket.write(index % 2 === 0 ? 'HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok' : 'HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok')
    })
    const pool = newPool()
    for (let i = 0; i < 3; i++) expect(await text(await get(pool, `${upstream.url}/`))).toBe('ok')
    expect(upstream.listener.connections).toBe(3)
  })

  test('bytes after the announced length end the connection, not the answer', async () => {
    const upstream = await rawUpstream((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nforged')
    })
    const pool = newPool()
    expect(await text(await get(pool, `${upstream.url}/`))).toBe('ok')
    expect(await text(await get(pool, `${upstream.url}/`))).toBe('ok')
    expect(upstream.listener.connections).toBe(2)
  })

  test('header values keep their inner spaces and tabs, lose the ones around them, and may be empty', async () => {
    const upstream = await rawUpstream((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nX-Spaced: \t a b\tc \t \r\nX-Empty:\r\nX-Blank:   \r\nX-Latin: caf\xe9\r\nContent-Length: 2\r\n\r\nok', 'latin1')
    })
    const answer = await get(newPool(), `${upstream.url}/`)
    expect([...headersOf(answer.fields)]).toEqual([
      ['content-length', '2'],
      ['x-blank', ''],
      ['x-empty', ''],
      ['x-latin', 'caf\xe9'],
      ['x-spaced', 'a b\tc'],
    ])
  })

  test('repeated equal Content-Length values are one length', async () => {
    const upstream = await rawUpstream((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\nContent-Length: 2\r\n\r\nok')
    })
    expect(await text(await get(newPool(), `${upstream.url}/`))).toBe('ok')
  })
})

describe('answers that could be read two ways are refused', () => {
  const heads: [string, string][] = [
    ['Transfer-Encoding and Content-Length together', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n5\r\nhello\r\n0\r\n\r\n'],
    ['two different Content-Length values', 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!'],
    ['a Content-Length list that disagrees', 'HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\nhello!'],
    ['a negative Content-Length', 'HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n'],
    ['a Content-Length in another notation', 'HTTP/1.1 200 OK\r\nContent-Length: 0x5\r\n\r\nhello'],
    ['a transfer coding other than chunked', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n'],
    ['a folded header line', 'HTTP/1.1 200 OK\r\nX-A: one\r\n two\r\nContent-Length: 0\r\n\r\n'],
    ['a space before the colon', 'HTTP/1.1 200 OK\r\nContent-Length : 5\r\n\r\nhello'],
    ['a bare LF inside the head', 'HTTP/1.1 200 OK\nContent-Length: 5\r\n\r\nhello'],
    ['a control character in a value', 'HTTP/1.1 200 OK\r\nX-A: a\x01b\r\nContent-Length: 0\r\n\r\n'],
    ['another protocol', 'HTTP/2 200 OK\r\nContent-Length: 0\r\n\r\n'],
    ['a two-digit status', 'HTTP/1.1 99 OK\r\nContent-Length: 0\r\n\r\n'],
    ['an upgrade nobody asked for', 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n'],
    ['a head larger than 64 KiB', `HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(70 * 1024)}\r\nContent-Length: 0\r\n\r\n`],
    ['a head that never ends within 64 KiB', `HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(70 * 1024)}`],
  ]
  for (const [name, bytes] of heads) {
    test(name, async () => {
      const upstream = await rawUpstream((socket) => void socket.write(bytes, 'latin1'))
      const error = await get(newPool(), `${upstream.url}/`).then(
        () => null,
        (error: unknown) => error,
      )
      expect(error).toBeInstanceOf(UpstreamProtocolError)
    })
  }

  for (const [name, body] of [
    ['a chunk size that is not hexadecimal', 'zz\r\nhello\r\n0\r\n\r\n'],
    ['a chunk that does not end with CRLF', '5\r\nhelloXX0\r\n\r\n'],
    ['a chunk size beyond any real body', `${'f'.repeat(13)}\r\n`],
  ]) {
    test(`${name}: the body fails, it is not passed on as complete`, async () => {
      const upstream = await rawUpstream((socket) => void socket.write(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${body}`))
      const answer = await get(newPool(), `${upstream.url}/`)
      await expect(answer.body!.bytes()).rejects.toBeInstanceOf(UpstreamProtocolError)
      expect((await answer.body!.ended).body).toBe('incomplete')
    })
  }
})

describe('failures', () => {
  test('a body cut short by the upstream fails, and says how much came', async () => {
    const upstream = await rawUpstream((socket) => {
      socket.end('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n' + 'x'.repeat(40))
    })
    const answer = await get(newPool(), `${upstream.url}/`)
    await expect(answer.body!.bytes()).rejects.toThrow()
    expect(await answer.body!.ended).toMatchObject({ body: 'incomplete', body_bytes: 40, error_code: 'ECONNRESET' })
  })

  test('a chunked body cut before its last chunk fails', async () => {
    const upstream = await rawUpstream((socket) => {
      socket.end('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n')
    })
    const answer = await get(newPool(), `${upstream.url}/`)
    await expect(answer.body!.bytes()).rejects.toThrow()
    expect(await answer.body!.ended).toMatchObject({ body: 'incomplete', body_bytes: 5 })
  })

  test('a connection closed before any answer fails with ECONNRESET; a refused port with ECONNREFUSED', async () => {
    const upstream = await rawUpstream((socket) => void socket.destroy())
    await expect(get(newPool(), `${upstream.url}/`)).rejects.toMatchObject({ code: 'ECONNRESET' })
    const closed = await RawListener.start('127.0.0.1')
    const port = closed.port
    await closed.stop()
    await expect(get(newPool(), `http://127.0.0.1:${port}/`)).rejects.toMatchObject({ code: 'ECONNREFUSED' })
  })

  test('the deadline ends a silent exchange with the signal’s reason and closes the connection', async () => {
    let closed = false
    const upstream = await rawUpstream((socket) => void socket.on('close', () => (closed = true)))
    const controller = new AbortController()
    setTimeout(() => controller.abort(new DOMException('upstream timeout', 'TimeoutError')), 50)
    await expect(get(newPool(), `${upstream.url}/`, { signal: controller.signal })).rejects.toMatchObject({ name: 'TimeoutError' })
    expect(await within(2000, () => closed)).not.toBeNull()
  })

  test('the deadline covers connecting: an upstream that never completes the handshake is given up at the deadline', async () => {
    // A stopped upstream process whose accept queue is full: the kernel drops further handshakes.
    const child = Bun.spawn(['bun', '-e', "const s = require('node:net').createServer(() => {}); s.listen({ port: 0, host: '127.0.0.1' }, () => console.log(s.address().port))"], { stdout: 'pipe' })
    const fillers: Socket[] = []
    try {
      const port = Number(new TextDecoder().decode((await child.stdout.getReader().read()).value).trim())
      process.kill(child.pid, 'SIGSTOP')
      const opens = () =>
        new Promise<boolean>((resolve) => {
          const socket = connect(port, '127.0.0.1').on('error', () => {})
          fillers.push(socket)
          socket.once('connect', () => resolve(true))
          setTimeout(() => resolve(false), 300)
        })
      let full = false
      while (!full && fillers.length < 8192) full = (await Promise.all(Array.from({ length: 64 }, opens))).includes(false)
      expect(full).toBe(true)

      const controller = new AbortController()
      setTimeout(() => controller.abort(new DOMException('upstream timeout', 'TimeoutError')), 100)
      const started = performance.now()
      await expect(get(newPool(), `http://127.0.0.1:${port}/`, { signal: controller.signal })).rejects.toMatchObject({ name: 'TimeoutError' })
      expect(performance.now() - started).toBeLessThan(1000)
    } finally {
      child.kill('SIGKILL')
      for (const socket of fillers) socket.destroy()
    }
  })

  test('the deadline also covers a small body still arriving', async () => {
    const upstream = await rawUpstream((socket) => void socket.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc'))
    const controller = new AbortController()
    const answer = await get(newPool(), `${upstream.url}/`, { signal: controller.signal })
    setTimeout(() => controller.abort(new DOMException('upstream timeout', 'TimeoutError')), 20)
    await expect(answer.body!.bytes()).rejects.toMatchObject({ name: 'TimeoutError' })
  })

  /** Answers the first request on a connection, drops the connection on the second, answers on a new one. */
  async function droppingSecondRequest() {
    const seen: string[] = []
    const upstream = await rawUpstream((socket, head, index) => {
      seen.push(head.split(' ')[0]!)
      if (index === 1) socket.destroy()
      else socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')
    })
    return { ...upstream, seen }
  }

  test('a kept-alive connection dropped before any answer: a GET is sent again, once, on a new connection', async () => {
    const upstream = await droppingSecondRequest()
    const pool = newPool()
    expect(await text(await get(pool, `${upstream.url}/`))).toBe('ok')
    expect(await text(await get(pool, `${upstream.url}/`))).toBe('ok')
    expect(upstream.seen).toEqual(['GET', 'GET', 'GET'])
    expect(upstream.listener.connections).toBe(2)
  })

  // A DELETE too: its connection closing before any answer does not mean it was not acted on, and
  // a second attempt's 404 would hide an erasure.
  for (const [name, method, withBody] of [
    ['a POST', 'POST', false],
    ['a PUT with a body', 'PUT', true],
    ['a DELETE', 'DELETE', false],
  ] as const) {
    test(`the same for ${name}: never sent twice, the failure is reported`, async () => {
      const upstream = await droppingSecondRequest()
      const pool = newPool()
      expect(await text(await get(pool, `${upstream.url}/`))).toBe('ok')
      const sent = pool.request(new URL(`${upstream.url}/`), { method, headers: [], body: withBody ? new Response('payload').body! : undefined, bodyLength: withBody ? 7 : null, signal: new AbortController().signal })
      await expect(sent).rejects.toMatchObject({ code: 'ECONNRESET' })
      await Bun.sleep(20)
      expect(upstream.seen).toEqual(['GET', method])
    })
  }
})

describe('answers without a body', () => {
  test("a 204 with a head announcing a body (which a 204 must not have): its connection is not used again, so a body the upstream sends later is no one's answer", async () => {
    const answered = new WeakMap<Socket, number>()
    const upstream = await rawUpstream((socket, head) => {
      const before = answered.get(socket) ?? 0
      answered.set(socket, before + 1)
      // The body it announced, sent late: on a reused connection it would be read as the next answer.
      if (before > 0) return void socket.write('HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nforged')
      socket.write(head.startsWith('GET /first ') ? 'HTTP/1.1 204 X\r\nContent-Length: 19\r\n\r\n' : 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')
    })
    const pool = newPool()
    const first = await get(pool, `${upstream.url}/first`)
    expect([first.status, first.body]).toEqual([204, null])
    expect(await text(await get(pool, `${upstream.url}/next`))).toBe('ok')
    expect(upstream.listener.connections).toBe(2)
  })
})

describe('request bodies', () => {
  function echo() {
    return portReportingServer(async (request) => {
      const bytes = new Uint8Array(await request.arrayBuffer())
      return Response.json({ length: bytes.byteLength, sha: createHash('sha256').update(bytes).digest('hex'), declared: request.headers.get('content-length'), coding: request.headers.get('transfer-encoding') })
    })
  }
  const payload = new Uint8Array(3 * 1024 * 1024).map((_, i) => (i * 7) % 256)
  const sha = createHash('sha256').update(payload).digest('hex')

  test('a body of declared length goes with that Content-Length, byte for byte', async () => {
    const upstream = echo()
    const answer = await newPool().request(new URL(`${upstream.url}/`), { method: 'PUT', headers: [], body: new Response(payload).body!, bodyLength: payload.byteLength, signal: new AbortController().signal })
    expect(JSON.parse(await text(answer))).toEqual({ length: payload.byteLength, sha, declared: String(payload.byteLength), coding: null })
  })

  test('a body of unknown length goes chunked, byte for byte', async () => {
    const upstream = echo()
    const answer = await newPool().request(new URL(`${upstream.url}/`), { method: 'POST', headers: [], body: new Response(payload).body!, bodyLength: null, signal: new AbortController().signal })
    expect(JSON.parse(await text(answer))).toEqual({ length: payload.byteLength, sha, declared: null, coding: 'chunked' })
  })

  test('a body that fails on its way rejects the request with its own error', async () => {
    const upstream = echo()
    const failing = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(10))
        controller.error(new RangeError('too large'))
      },
    })
    const sent = newPool().request(new URL(`${upstream.url}/`), { method: 'POST', headers: [], body: failing, bodyLength: null, signal: new AbortController().signal })
    await expect(sent).rejects.toBeInstanceOf(RangeError)
  })
})

describe('the pool', () => {
  test('no more sockets than allowed: the others wait for one to come free', async () => {
    let open = 0
    let most = 0
    const upstream = await rawUpstream((socket) => {
      open++
      most = Math.max(most, open)
      setTimeout(() => {
        open--
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')
      }, 30)
    })
    const pool = newPool({ maxSockets: 2 })
    const answers = await Promise.all(Array.from({ length: 6 }, () => get(pool, `${upstream.url}/`).then(text)))
    expect(answers).toEqual(Array(6).fill('ok'))
    expect(upstream.listener.connections).toBe(2)
    expect(most).toBe(2)
  })

  test('an upstream’s Keep-Alive timeout is kept with a second to spare: not reused after it, nor at all when it is a second or less', async () => {
    const upstream = await rawUpstream((socket, head) => {
      const timeout = head.startsWith('GET /short') ? 1 : 2
      socket.write(`HTTP/1.1 200 OK\r\nKeep-Alive: timeout=${timeout}, max=100\r\nContent-Length: 2\r\n\r\nok`)
    })
    const pool = newPool({ idleMs: 10_000 })
    await text(await get(pool, `${upstream.url}/`))
    await Bun.sleep(200)
    await text(await get(pool, `${upstream.url}/`))
    expect(upstream.listener.connections).toBe(1)
    await Bun.sleep(1100)
    await text(await get(pool, `${upstream.url}/`))
    expect(upstream.listener.connections).toBe(2)
    await text(await get(pool, `${upstream.url}/short`))
    await text(await get(pool, `${upstream.url}/short`))
    expect(upstream.listener.connections).toBe(3)
  })

  test('an idle connection is closed after the idle time', async () => {
    let closed = 0
    const upstream = await rawUpstream((socket) => {
      socket.on('close', () => closed++)
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')
    })
    await text(await get(newPool({ idleMs: 60 }), `${upstream.url}/`))
    await Bun.sleep(30)
    expect(closed).toBe(0)
    expect(await within(2000, () => closed > 0)).not.toBeNull()
    expect(closed).toBe(1)
  })
})

describe('backpressure', () => {
  test('an unread body stops the upstream: it cannot send much beyond the socket buffers, and all of it arrives once read', async () => {
    const size = 96 * 1024 * 1024
    const piece = Buffer.alloc(256 * 1024, 7)
    let written = 0
    const upstream = await rawUpstream(async (socket) => {
      socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${size}\r\n\r\n`)
      while (written < size) {
        written += piece.byteLength
        if (!socket.write(piece)) await new Promise((resolve) => socket.once('drain', resolve))
      }
    })
    const answer = await get(newPool(), `${upstream.url}/`)
    await Bun.sleep(400)
    // The socket stopped reading: only what the kernel's buffers hold has left the upstream.
    expect(written).toBeLessThan(24 * 1024 * 1024)
    let read = 0
    for await (const chunk of answer.body!.stream()) read += chunk.byteLength
    expect(read).toBe(size)
    expect(await answer.body!.ended).toEqual({ body: 'complete', body_bytes: size })
  })

  test('a reader that leaves ends the connection and says the body was incomplete', async () => {
    let closed = false
    const upstream = await rawUpstream((socket) => {
      socket.on('close', () => (closed = true))
      socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${8 * 1024 * 1024}\r\n\r\n`)
      socket.write(Buffer.alloc(1024 * 1024))
    })
    const answer = await get(newPool(), `${upstream.url}/`)
    const reader = answer.body!.stream().getReader()
    await reader.read()
    await reader.cancel()
    expect((await answer.body!.ended).body).toBe('incomplete')
    expect(await within(2000, () => closed)).not.toBeNull()
  })
})
