// The proxy's client for plain-HTTP upstreams: HTTP/1.1 over kept-alive sockets (Bun.connect).
// The request log must say truthfully how a proxied body ended; with Bun's fetch that meant
// pumping every body through a second stream in JavaScript, which cost about a quarter of the
// throughput of large downloads and doubled the memory they peak at. Here the body's end,
// complete or cut, is known where its bytes arrive, Bun reads the answer from one stream, and
// the socket stops reading while the reader is behind. The framing rules are RFC 9112's, read
// strictly: anything ambiguous is refused, never guessed, and a connection is reused only after
// an exchange that ended exactly where its framing said.

import type { Socket } from 'bun'
import { closeSync, openSync } from 'node:fs'
import { describeError, type BodyEnd } from '../log.ts'
import type { AbortLike } from './deadline.ts'
import { relayMemory } from './memory-budget.ts'
import type { UpstreamTarget } from './url.ts'

/** An answer that broke the framing rules: `invalid_response` in the log, 500 `proxy_error` to the client (decisions §6). */
export class UpstreamProtocolError extends Error {
  override name = 'UpstreamProtocolError'
}

/** The connection closed or failed before the exchange ended. */
class ConnectionLost extends Error {
  override name = 'ConnectionLost'
  readonly code = 'ECONNRESET'
  constructor(
    message: string,
    /** No byte of an answer had arrived: the upstream may never have read the request. */
    readonly beforeAnswer = false,
  ) {
    super(message)
  }
}

/**
 * Header fields as a flat list, name then value, names in lower case, in the order they came:
 * what a head parses into and what one is written from, without a `Headers` in between.
 */
export type HeaderFields = string[]

/** An upstream's answer as the proxy relays it, whichever client fetched it. */
export interface UpstreamAnswer {
  status: number
  statusText: string
  /** The answer's fields as they came (Set-Cookie lines each on their own). */
  fields: HeaderFields
  /** null when the answer has no body: HEAD, 204, 304. */
  body: RelayedBody | null
}

/** An answer's fields as a `Headers`. */
export function headersOf(fields: HeaderFields): Headers {
  const headers = new Headers()
  for (let i = 0; i < fields.length; i += 2) headers.append(fields[i]!, fields[i + 1]!)
  return headers
}

/** An answer's body: read whole, or streamed; `ended` says how it ended either way. */
export interface RelayedBody {
  /** The length the answer announced, when it did. */
  readonly length: number | null
  readonly ended: Promise<BodyEnd>
  bytes(): Promise<Uint8Array<ArrayBuffer>>
  /** The whole body at once when all of it has already arrived (as `bytes()` would give it), else null. */
  arrived(): Uint8Array<ArrayBuffer> | null
  stream(): ReadableStream<Uint8Array>
  /** Not wanted after all: the rest is dropped. */
  cancel(): void | Promise<void>
}

export interface UpstreamRequest {
  method: string
  /** The fields to send; those that frame the message are ours and left out. */
  headers: HeaderFields
  /** The body to send, with its length when the client declared one (sent chunked otherwise). */
  body?: ReadableStream<Uint8Array>
  bodyLength?: number | null
  /** The time limit (an AbortSignal serves): it ends whichever step is waiting when it passes. */
  signal: AbortLike
}

/** Unread bytes held per answer before the socket stops reading. */
const HIGH_WATER = 64 * 1024
/** The largest answer head (status line and headers). */
const MAX_HEAD = 64 * 1024
/** The longest chunk-size line or trailer section of a chunked body. */
const MAX_CHUNK_LINE = 4096
const MAX_TRAILERS = 16 * 1024
/** Sockets per upstream: beyond it, requests wait for one to come free (like fetch's own limit). */
const MAX_SOCKETS = 256
/** An idle connection is closed after this long; an upstream that closes its own sooner says so with Keep-Alive: timeout, or costs one retry. */
const IDLE_MS = 4000

export interface PoolOptions {
  maxSockets?: number
  idleMs?: number
}
/**
 * Methods that may be sent again when a kept-alive socket turns out to have been closed: the safe
 * ones (RFC 9110 §9.2.1). A DELETE is idempotent but not safe to send blind: "closed before any
 * answer" does not mean "not acted on" (Kratos may have erased the identity, then been reset), and
 * the second attempt's 404 would hide the erasure its sessions must end with.
 */
const SENT_AGAIN = new Set(['GET', 'HEAD', 'OPTIONS'])
/** Methods whose requests carry content: without any, they say so (Content-Length: 0), as fetch does. */
const EXPECTS_CONTENT = new Set(['POST', 'PUT', 'PATCH'])

const CRLF_CRLF = Buffer.from('\r\n\r\n')
const CRLF = Buffer.from('\r\n')
const LAST_CHUNK = Buffer.from('0\r\n\r\n')
/**
 * The field lines of a head, each after its CRLF: a token, a colon, and a value of visible
 * characters, spaces, tabs and obs-text, never another control. A line without a name (obs-fold,
 * a stray CR or LF) fails it: refused rather than guessed at. One pass over the whole section,
 * from `lastIndex` (sticky: the section is tested where it starts, without a copy of it).
 */
const FIELD_LINES = /(?:\r\n[!#$%&'*+\-.^_`|~0-9A-Za-z]+:[\t\x20-\x7e\x80-\xff]*)*$/y
const CHUNK_SIZE = /^([0-9A-Fa-f]{1,12})[ \t]*(?:;[^\r\n]*)?$/
const DIGITS = /^\d{1,15}$/
const KEEP_ALIVE_TIMEOUT = /(?:^|,)\s*timeout\s*=\s*(\d{1,6})\s*(?:,|$)/i
/** A connection is not reused this close to the idle time the upstream announced (none left: not reused at all). */
const KEEP_ALIVE_MARGIN_MS = 1000
const TRAILER = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+:/
// Framing is ours to decide: whatever the caller's headers say about it is not sent.
const FRAMING = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'te', 'trailer', 'upgrade'])

type Framing = { kind: 'none' } | { kind: 'length'; remaining: number } | { kind: 'chunked' } | { kind: 'close' }

/** The body of an answer on one of our connections, read as fast as its reader takes it. */
class UpstreamBody implements RelayedBody {
  private queue: Uint8Array[] = []
  private queued = 0
  private delivered = 0
  private finished = false
  private failure: unknown = null
  private wake: (() => void) | null = null
  /** How the body ended, once it has; `ended` is made only when asked for (a body read whole is noted without it). */
  private end: BodyEnd | null = null
  private endedPromise: Promise<BodyEnd> | null = null
  private resolveEnded: ((end: BodyEnd) => void) | null = null

  constructor(
    private readonly connection: Connection,
    readonly length: number | null,
  ) {}

  /** From the connection: bytes of this body, in order. */
  push(chunk: Uint8Array): void {
    if (chunk.byteLength === 0) return
    this.queue.push(chunk)
    this.queued += chunk.byteLength
    if (this.queued >= HIGH_WATER) this.connection.pause()
    this.notify()
  }

  /** From the connection: the framing's end was reached. */
  finish(): void {
    this.finished = true
    this.notify()
  }

  /** From the connection: the body stopped before its end. */
  fail(error: unknown): void {
    if (this.finished || this.failure !== null) return
    this.failure = error
    this.notify()
  }

  get ended(): Promise<BodyEnd> {
    if (this.endedPromise === null) {
      const end = this.end
      this.endedPromise = end !== null ? Promise.resolve(end) : new Promise<BodyEnd>((resolve) => (this.resolveEnded = resolve))
    }
    return this.endedPromise
  }

  /** The first end reported stands. */
  private settle(end: BodyEnd): void {
    if (this.end !== null) return
    this.end = end
    this.resolveEnded?.(end)
    this.resolveEnded = null
  }

  private notify(): void {
    const wake = this.wake
    this.wake = null
    wake?.()
  }

  /** The next piece, or null at the end; throws when the body was cut. */
  private async next(): Promise<Uint8Array | null> {
    while (this.queue.length === 0) {
      if (this.failure !== null) {
        this.settle({ body: 'incomplete', body_bytes: this.delivered, ...describeError(this.failure) })
        throw this.failure
      }
      if (this.finished) {
        this.settle({ body: 'complete', body_bytes: this.delivered })
        return null
      }
      this.connection.resume()
      await new Promise<void>((resolve) => (this.wake = resolve))
    }
    const chunk = this.queue.shift()!
    this.queued -= chunk.byteLength
    this.delivered += chunk.byteLength
    relayMemory.relayed(chunk.byteLength)
    if (this.queued < HIGH_WATER && !this.finished) this.connection.resume()
    return chunk
  }

  arrived(): Uint8Array<ArrayBuffer> | null {
    // The usual small answer: it arrived whole with its head, in one piece.
    if (!this.finished || this.queue.length !== 1 || this.delivered !== 0) return null
    const only = this.queue[0]!
    this.queue = []
    this.queued = 0
    this.delivered = only.byteLength
    this.settle({ body: 'complete', body_bytes: only.byteLength })
    return only as Uint8Array<ArrayBuffer>
  }

  /** The whole body in one piece. */
  async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    const arrived = this.arrived()
    if (arrived !== null) return arrived
    const chunks: Uint8Array[] = []
    for (let chunk = await this.next(); chunk !== null; chunk = await this.next()) chunks.push(chunk)
    return Buffer.concat(chunks) as Uint8Array<ArrayBuffer>
  }

  /** The body as a stream that reads from the upstream only as fast as it is read. */
  stream(): ReadableStream<Uint8Array> {
    return new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          const chunk = await this.next()
          if (chunk === null) controller.close()
          else controller.enqueue(chunk)
        },
        cancel: () => this.cancel(),
      },
      { highWaterMark: 0 },
    )
  }

  /** The reader has gone: the rest is not wanted, and the connection cannot be reused. */
  cancel(): void {
    if (!this.finished) this.connection.destroy()
    this.settle({ body: 'incomplete', body_bytes: this.delivered })
    this.queue = []
    this.queued = 0
  }
}

interface Exchange {
  method: string
  resolve: (answer: UpstreamAnswer) => void
  reject: (error: unknown) => void
  /** Called once when the exchange ends, however it ends. */
  ended: () => void
  /** Set once the head has been read. */
  body: UpstreamBody | null
  framing: Framing
  /** Any byte of an answer arrived (a reused socket that fails before is safe to retry). */
  answered: boolean
  requestSent: boolean
  /** Keep-alive after this exchange, if it ends cleanly. */
  reusable: boolean
  /** How long the upstream said it keeps an idle connection (`Keep-Alive: timeout=N`), if it did. */
  keepAliveMs: number | null
}

/** One socket to an upstream and the exchange on it, if any. */
class Connection {
  private pending: Buffer | null = null
  private exchange: Exchange | null = null
  private chunk: { remaining: number; state: 'size' | 'data' | 'data-end' | 'trailers' } = { remaining: 0, state: 'size' }
  private writeQueue: Uint8Array[] = []
  private drained: (() => void) | null = null
  closed = false
  private paused = false
  /** Served an exchange before: a failure before any answer byte may be a stale keep-alive. */
  reused = false
  /** When it last went idle, and how long it may stay so before the upstream could close it. */
  idleSince = 0
  idleLimit = 0

  constructor(
    readonly socket: Socket<Connection>,
    private readonly pool: Http1Pool,
    readonly key: string,
  ) {}

  begin(exchange: Exchange): void {
    this.exchange = exchange
    this.pending = null
  }

  pause(): void {
    if (this.closed || this.paused) return
    this.paused = true
    this.socket.pause()
  }

  resume(): void {
    if (this.closed || !this.paused) return
    this.paused = false
    this.socket.resume()
  }

  /**
   * Writes all of `bytes` (a head may come as text of ASCII characters, which the socket writes
   * without a buffer made for it): at once (undefined), or a promise that settles once the socket
   * has drained.
   */
  write(bytes: Uint8Array | string): Promise<void> | undefined {
    if (this.closed) return Promise.reject(new ConnectionLost('the upstream connection closed'))
    if (this.writeQueue.length === 0) {
      const written = this.socket.write(bytes)
      if (written === bytes.length) return undefined
      this.writeQueue.push(asBytes(bytes).subarray(Math.max(0, written)))
    } else {
      this.writeQueue.push(asBytes(bytes))
    }
    return new Promise<void>((resolve, reject) => {
      this.drained = () => (this.closed ? reject(new ConnectionLost('the upstream connection closed')) : resolve())
    })
  }

  onDrain(): void {
    while (this.writeQueue.length > 0) {
      const bytes = this.writeQueue[0]!
      const written = this.socket.write(bytes)
      if (written < bytes.byteLength) {
        this.writeQueue[0] = bytes.subarray(Math.max(0, written))
        return
      }
      this.writeQueue.shift()
    }
    const drained = this.drained
    this.drained = null
    drained?.()
  }

  onData(data: Buffer): void {
    const exchange = this.exchange
    // Bytes nobody asked for: the connection is out of step and is dropped.
    if (exchange === null) return this.destroy()
    exchange.answered = true
    try {
      if (exchange.body === null) this.readHead(exchange, data)
      else this.readBody(exchange, data)
    } catch (error) {
      this.fail(error)
    }
  }

  private readHead(exchange: Exchange, data: Buffer): void {
    let buffer = this.pending === null ? data : Buffer.concat([this.pending, data])
    for (;;) {
      const end = buffer.indexOf(CRLF_CRLF)
      if (end < 0) {
        if (buffer.byteLength > MAX_HEAD) throw new UpstreamProtocolError('the answer head is too large')
        this.pending = buffer
        return
      }
      if (end > MAX_HEAD) throw new UpstreamProtocolError('the answer head is too large')
      const head = parseHead(buffer.toString('latin1', 0, end))
      buffer = buffer.subarray(end + 4)
      // 100 Continue, 103 Early Hints: interim, the final answer follows on the same connection.
      if (head.status < 200) continue
      this.pending = null
      const framing = framingOf(exchange.method, head)
      exchange.framing = framing
      exchange.reusable = head.keepAlive && framing.kind !== 'close' && !announcesUnsentBody(exchange.method, head)
      exchange.keepAliveMs = head.keepAliveMs
      const length = framing.kind === 'length' ? framing.remaining : framing.kind === 'none' ? 0 : null
      const body = new UpstreamBody(this, length)
      exchange.body = body
      exchange.resolve({ status: head.status, statusText: head.reason, fields: head.fields, body: framing.kind === 'none' ? null : body })
      if (framing.kind === 'none') {
        // Bytes after a bodiless answer: it stands, the connection is not to be trusted.
        if (buffer.byteLength > 0) exchange.reusable = false
        return this.complete(exchange)
      }
      if (buffer.byteLength > 0) this.readBody(exchange, buffer)
      return
    }
  }

  private readBody(exchange: Exchange, data: Buffer): void {
    const framing = exchange.framing
    const body = exchange.body!
    if (framing.kind === 'close') return body.push(data)
    if (framing.kind === 'length') {
      if (data.byteLength > framing.remaining) {
        // More than the announced length: the body is whole, the connection is not to be trusted.
        body.push(data.subarray(0, framing.remaining))
        framing.remaining = 0
        exchange.reusable = false
        return this.complete(exchange)
      }
      framing.remaining -= data.byteLength
      body.push(data)
      if (framing.remaining === 0) this.complete(exchange)
      return
    }
    if (framing.kind === 'chunked') this.readChunked(exchange, body, data)
  }

  private readChunked(exchange: Exchange, body: UpstreamBody, data: Buffer): void {
    let buffer = this.pending === null ? data : Buffer.concat([this.pending, data])
    this.pending = null
    const chunk = this.chunk
    while (buffer.byteLength > 0) {
      if (chunk.state === 'data') {
        const take = Math.min(chunk.remaining, buffer.byteLength)
        body.push(buffer.subarray(0, take))
        chunk.remaining -= take
        buffer = buffer.subarray(take)
        if (chunk.remaining === 0) chunk.state = 'data-end'
        continue
      }
      if (chunk.state === 'data-end') {
        if (buffer.byteLength < 2) break
        if (buffer[0] !== 13 || buffer[1] !== 10) throw new UpstreamProtocolError('a chunk does not end with CRLF')
        buffer = buffer.subarray(2)
        chunk.state = 'size'
        continue
      }
      if (chunk.state === 'size') {
        const end = buffer.indexOf('\r\n')
        if (end < 0) {
          if (buffer.byteLength > MAX_CHUNK_LINE) throw new UpstreamProtocolError('a chunk-size line is too long')
          break
        }
        const match = CHUNK_SIZE.exec(buffer.toString('latin1', 0, end))
        if (match === null) throw new UpstreamProtocolError('a chunk size does not parse')
        buffer = buffer.subarray(end + 2)
        chunk.remaining = Number.parseInt(match[1]!, 16)
        chunk.state = chunk.remaining === 0 ? 'trailers' : 'data'
        continue
      }
      // Trailers are read and dropped, like fetch does; the body ends at the empty line.
      const end = buffer.indexOf('\r\n')
      if (end < 0) {
        if (buffer.byteLength > MAX_TRAILERS) throw new UpstreamProtocolError('the trailers are too large')
        break
      }
      if (end > 0) {
        if (!TRAILER.test(buffer.toString('latin1', 0, end))) throw new UpstreamProtocolError('a trailer does not parse')
        buffer = buffer.subarray(end + 2)
        continue
      }
      if (buffer.byteLength > 2) exchange.reusable = false
      return this.complete(exchange)
    }
    if (buffer.byteLength > 0) this.pending = Buffer.from(buffer)
  }

  /** The answer ended where its framing said. */
  private complete(exchange: Exchange): void {
    exchange.body?.finish()
    exchange.ended()
    this.exchange = null
    this.chunk = { remaining: 0, state: 'size' }
    if (exchange.reusable && exchange.requestSent) this.pool.release(this, exchange.keepAliveMs)
    else this.destroy()
  }

  fail(error: unknown): void {
    const exchange = this.exchange
    this.exchange = null
    this.destroy()
    if (exchange === null) return
    exchange.ended()
    if (exchange.body === null) exchange.reject(error)
    else if (exchange.framing.kind === 'close' && error instanceof ConnectionLost) exchange.body.finish()
    else exchange.body.fail(error)
  }

  destroy(): void {
    if (this.closed) return
    this.closed = true
    this.pool.forget(this)
    this.socket.terminate()
    const drained = this.drained
    this.drained = null
    drained?.()
  }

  /** From the socket: it closed, on either side. */
  onClose(error?: unknown): void {
    const wasClosed = this.closed
    this.closed = true
    if (!wasClosed) this.pool.forget(this)
    const drained = this.drained
    this.drained = null
    drained?.()
    const exchange = this.exchange
    if (exchange !== null) this.fail(error instanceof Error ? error : new ConnectionLost('the upstream closed the connection', !exchange.answered))
  }
}

export interface Head {
  status: number
  reason: string
  fields: HeaderFields
  keepAlive: boolean
  keepAliveMs: number | null
  transferEncoding: string | null
  contentLengths: string[]
}

/**
 * `HTTP/1.0` or `HTTP/1.1`, a space, a three-digit status from 100 to 599 (RFC 9110 §15: the others
 * are not HTTP's, and no answer can carry them on), then the end or a space and a reason without CR
 * or LF: read character by character (the line comes first in every answer, so no expression is run
 * for it).
 */
function statusLine(text: string, end: number): { minor: number; code: number; reason: string } | null {
  if (end < 12 || !text.startsWith('HTTP/1.')) return null
  const minor = text.charCodeAt(7) - 48
  if ((minor !== 0 && minor !== 1) || text.charCodeAt(8) !== 32) return null
  const hundreds = text.charCodeAt(9) - 48
  const tens = text.charCodeAt(10) - 48
  const units = text.charCodeAt(11) - 48
  if (hundreds < 1 || hundreds > 5 || tens < 0 || tens > 9 || units < 0 || units > 9) return null
  let reason = ''
  if (end > 12) {
    if (text.charCodeAt(12) !== 32) return null
    reason = text.slice(13, end)
    if (reason.includes('\r') || reason.includes('\n')) return null
  }
  return { minor, code: hundreds * 100 + tens * 10 + units, reason }
}

/** A field value without the spaces and tabs around it (String#trim would also take obs-text such as U+00A0). */
function trimmed(text: string, start: number, end: number): string {
  while (start < end && (text.charCodeAt(start) === 32 || text.charCodeAt(start) === 9)) start++
  while (end > start && (text.charCodeAt(end - 1) === 32 || text.charCodeAt(end - 1) === 9)) end--
  return text.slice(start, end)
}

/** The status line and fields of an answer head (without its final CRLF CRLF); exported for its tests. */
export function parseHead(text: string): Head {
  const statusEnd = text.indexOf('\r\n')
  const status = statusLine(text, statusEnd < 0 ? text.length : statusEnd)
  if (status === null) throw new UpstreamProtocolError('the status line does not parse')
  const code = status.code
  if (code === 101) throw new UpstreamProtocolError('an upgrade that was not asked for')
  if (statusEnd >= 0) {
    FIELD_LINES.lastIndex = statusEnd
    if (!FIELD_LINES.test(text)) throw new UpstreamProtocolError('a header line does not parse')
  }
  const fields: HeaderFields = []
  let connection = ''
  let keepAliveMs: number | null = null
  let transferEncoding: string | null = null
  const contentLengths: string[] = []
  for (let at = statusEnd; at >= 0; ) {
    const start = at + 2
    const next = text.indexOf('\r\n', start)
    const end = next < 0 ? text.length : next
    const colon = text.indexOf(':', start)
    const name = text.slice(start, colon).toLowerCase()
    const value = trimmed(text, colon + 1, end)
    if (name === 'content-length') contentLengths.push(value)
    else if (name === 'transfer-encoding') transferEncoding = transferEncoding === null ? value : `${transferEncoding}, ${value}`
    else if (name === 'connection') connection += `,${value.toLowerCase()}`
    else if (name === 'keep-alive') {
      const timeout = KEEP_ALIVE_TIMEOUT.exec(value)
      if (timeout !== null) keepAliveMs = Math.min(keepAliveMs ?? Number.POSITIVE_INFINITY, Number(timeout[1]) * 1000)
    }
    fields.push(name, value)
    at = next
  }
  const keepAlive = status.minor === 1 && (connection === '' || !connection.split(',').some((token) => token.trim() === 'close'))
  return { status: code, reason: status.reason, fields, keepAlive, keepAliveMs, transferEncoding, contentLengths }
}

/**
 * A 204 whose head announces a body, which RFC 9110 §8.6 forbids (a HEAD's or a 304's length is the
 * GET's, and allowed): an upstream that breaks that rule may send the body anyway, in a later packet,
 * where it would be read as the next request's answer; its connection is not used again.
 */
function announcesUnsentBody(method: string, head: Head): boolean {
  if (method === 'HEAD' || head.status !== 204) return false
  return head.transferEncoding !== null || head.contentLengths.some((value) => value.trim() !== '0')
}

/** How the body of this answer is delimited (RFC 9112 §6.3), refusing what could be read two ways. */
function framingOf(method: string, head: Head): Framing {
  if (method === 'HEAD' || head.status === 204 || head.status === 304) return { kind: 'none' }
  if (head.transferEncoding !== null) {
    if (head.contentLengths.length > 0) throw new UpstreamProtocolError('both Transfer-Encoding and Content-Length')
    if (head.transferEncoding.trim().toLowerCase() !== 'chunked') throw new UpstreamProtocolError('a transfer coding other than chunked')
    return { kind: 'chunked' }
  }
  if (head.contentLengths.length === 1 && DIGITS.test(head.contentLengths[0]!)) {
    // The usual answer: one plain number.
    const remaining = Number(head.contentLengths[0])
    return remaining === 0 ? { kind: 'none' } : { kind: 'length', remaining }
  }
  if (head.contentLengths.length > 0) {
    const values = new Set(head.contentLengths.flatMap((value) => value.split(',').map((part) => part.trim())))
    const [only] = values
    if (values.size !== 1 || !DIGITS.test(only!)) throw new UpstreamProtocolError('the Content-Length is not one number')
    const remaining = Number(only)
    return remaining === 0 ? { kind: 'none' } : { kind: 'length', remaining }
  }
  return { kind: 'close' }
}

/** A head written as text is ASCII: its Latin-1 bytes are the bytes the socket would have written. */
function asBytes(bytes: Uint8Array | string): Uint8Array {
  return typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes
}

/** Text of ASCII characters only: the socket writes it as the same bytes. */
const ASCII = /^[\x00-\x7f]*$/

/**
 * The request head: our framing, then the caller's fields (names and values already checked by the
 * Headers they came from). As text when every character is ASCII (the usual head: the socket writes
 * such text byte for byte), otherwise as its Latin-1 bytes.
 */
function requestHead(url: UpstreamTarget, init: UpstreamRequest, chunked: boolean): Buffer | string {
  let head = `${init.method} ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n`
  const fields = init.headers
  for (let i = 0; i < fields.length; i += 2) {
    const name = fields[i]!
    if (!FRAMING.has(name)) head += `${name}: ${fields[i + 1]}\r\n`
  }
  if (init.body !== undefined) head += chunked ? 'transfer-encoding: chunked\r\n' : `content-length: ${init.bodyLength}\r\n`
  else if (EXPECTS_CONTENT.has(init.method)) head += 'content-length: 0\r\n'
  head += '\r\n'
  return ASCII.test(head) ? head : Buffer.from(head, 'latin1')
}

const SOCKET_HANDLERS = {
  data: (socket: Socket<Connection>, data: Buffer) => socket.data.onData(data),
  drain: (socket: Socket<Connection>) => socket.data.onDrain(),
  close: (socket: Socket<Connection>, error?: Error) => socket.data.onClose(error),
  error: (socket: Socket<Connection>, error: Error) => socket.data.onClose(error),
}

/** Kept-alive connections per upstream origin, with a bound on how many are open at once. */
export class Http1Pool {
  private idle = new Map<string, Connection[]>()
  private open = new Map<string, number>()
  private waiting = new Map<string, (() => void)[]>()
  private sweeper: ReturnType<typeof setInterval> | undefined
  private readonly maxSockets: number
  private readonly idleMs: number

  constructor(options: PoolOptions = {}) {
    this.maxSockets = options.maxSockets ?? MAX_SOCKETS
    this.idleMs = options.idleMs ?? IDLE_MS
  }

  /** Sends a request to an `http:` target and resolves with the answer's head once it has arrived. */
  request(url: UpstreamTarget, init: UpstreamRequest): Promise<UpstreamAnswer> {
    if (url.protocol !== 'http:') return Promise.reject(new TypeError('only http: upstreams are served by this client'))
    if (init.signal.aborted) return Promise.reject(init.signal.reason)
    return this.attempt(url, init, 0)
  }

  /** The exchange on a kept-alive connection when one is ready (one promise, settled by the exchange itself), else on a new one. */
  private attempt(url: UpstreamTarget, init: UpstreamRequest, attempt: number): Promise<UpstreamAnswer> {
    const key = url.host
    const idle = this.takeIdle(key)
    if (idle !== undefined) return this.exchange(idle, url, init, attempt)
    return this.acquire(url, key, init.signal).then((connection) => this.exchange(connection, url, init, attempt))
  }

  /**
   * One request on `connection`. When a kept-alive connection turns out to have been closed by the
   * upstream before any answer, the request is made again once on another connection, when nothing
   * can have been acted on twice; the promise settles with that attempt.
   */
  private exchange(connection: Connection, url: UpstreamTarget, init: UpstreamRequest, attempt: number): Promise<UpstreamAnswer> {
    const chunked = init.body !== undefined && (init.bodyLength === null || init.bodyLength === undefined)
    return new Promise<UpstreamAnswer>((resolve, reject) => {
      // The deadline covers the exchange until it ends: a small body read whole is inside it too.
      const onAbort = () => connection.fail(init.signal.reason)
      init.signal.addEventListener('abort', onAbort, { once: true })
      const failed = (error: unknown) => {
        const retry = attempt === 0 && connection.reused && error instanceof ConnectionLost && error.beforeAnswer && init.body === undefined && SENT_AGAIN.has(init.method) && !init.signal.aborted
        if (!retry) return reject(error)
        this.attempt(url, init, 1).then(resolve, reject)
      }
      const exchange: Exchange = {
        method: init.method,
        resolve,
        reject: failed,
        ended: () => init.signal.removeEventListener('abort', onAbort),
        body: null,
        framing: { kind: 'none' },
        answered: false,
        requestSent: false,
        reusable: false,
        keepAliveMs: null,
      }
      connection.begin(exchange)
      sendRequest(connection, exchange, requestHead(url, init, chunked), init, chunked)
    })
  }

  /** A new connection, once fewer than maxSockets are open (an idle one is taken before this is called). */
  private async acquire(url: UpstreamTarget, key: string, signal: AbortLike): Promise<Connection> {
    for (;;) {
      const reused = this.takeIdle(key)
      if (reused !== undefined) return reused
      const open = this.open.get(key) ?? 0
      if (open < this.maxSockets) break
      await new Promise<void>((resolve, reject) => {
        const queue = this.waiting.get(key) ?? []
        this.waiting.set(key, queue)
        const wake = () => {
          signal.removeEventListener('abort', onAbort)
          resolve()
        }
        const onAbort = () => {
          const at = queue.indexOf(wake)
          if (at >= 0) queue.splice(at, 1)
          reject(signal.reason)
        }
        signal.addEventListener('abort', onAbort, { once: true })
        queue.push(wake)
      })
    }
    this.open.set(key, (this.open.get(key) ?? 0) + 1)
    const connecting = Bun.connect<Connection>({ hostname: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 80), socket: SOCKET_HANDLERS }).then(
      (socket) => {
        const connection = new Connection(socket, this, key)
        socket.data = connection
        return connection
      },
      (error: unknown) => {
        this.freeSlot(key)
        throw descriptorsExhausted() ?? error
      },
    )
    // The deadline covers connecting too: an upstream that never completes the handshake (stopped,
    // or its accept queue full) is given up at the deadline, and a socket that opens later is closed.
    return await new Promise<Connection>((resolve, reject) => {
      const onAbort = () => {
        reject(signal.reason)
        connecting.then(
          (late) => late.destroy(),
          () => {},
        )
      }
      if (signal.aborted) return onAbort()
      signal.addEventListener('abort', onAbort, { once: true })
      connecting.then(
        (connection) => {
          signal.removeEventListener('abort', onAbort)
          resolve(connection)
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort)
          reject(error)
        },
      )
    })
  }

  /** The most recently used idle connection that the upstream cannot have closed for idleness yet. */
  private takeIdle(key: string): Connection | undefined {
    const list = this.idle.get(key)
    if (list === undefined) return undefined
    const now = performance.now()
    for (let connection = list.pop(); connection !== undefined; connection = list.pop()) {
      if (now - connection.idleSince < connection.idleLimit) return connection
      connection.destroy()
    }
    return undefined
  }

  /** A connection whose exchange ended cleanly goes back for the next request. */
  release(connection: Connection, keepAliveMs: number | null): void {
    if (connection.closed) return
    connection.reused = true
    connection.resume()
    const waiting = this.waiting.get(connection.key)
    const list = this.idle.get(connection.key) ?? []
    this.idle.set(connection.key, list)
    list.push(connection)
    connection.idleSince = performance.now()
    connection.idleLimit = keepAliveMs === null ? this.idleMs : Math.min(this.idleMs, keepAliveMs - KEEP_ALIVE_MARGIN_MS)
    // One sweep for all idle connections: a timer per socket costs more than the request itself.
    this.sweeper ??= setInterval(() => this.sweep(), this.idleMs / 2).unref()
    waiting?.shift()?.()
  }

  private sweep(): void {
    const now = performance.now()
    let left = 0
    for (const list of this.idle.values()) {
      for (const connection of list.filter((idle) => now - idle.idleSince >= idle.idleLimit)) connection.destroy()
      left += list.length
    }
    if (left === 0) {
      clearInterval(this.sweeper)
      this.sweeper = undefined
    }
  }

  /** A connection has closed: it is neither idle nor counted any more. */
  forget(connection: Connection): void {
    const list = this.idle.get(connection.key)
    const at = list?.indexOf(connection) ?? -1
    if (at >= 0) list!.splice(at, 1)
    this.freeSlot(connection.key)
  }

  /** One socket fewer is open to `key`: the first request waiting for one may go. */
  private freeSlot(key: string): void {
    this.open.set(key, Math.max(0, (this.open.get(key) ?? 1) - 1))
    this.waiting.get(key)?.shift()?.()
  }

  /** Closes every idle connection (the tests do between cases; the service ends with its process). */
  closeIdle(): void {
    for (const list of this.idle.values()) for (const connection of [...list]) connection.destroy()
  }
}

/**
 * Bun.connect reports a socket it could not create for want of a file descriptor as ECONNREFUSED,
 * like an upstream's refusal; a probe for a descriptor tells our exhaustion (503) from theirs (502).
 */
function descriptorsExhausted(): Error | null {
  try {
    closeSync(openSync('/dev/null', 'r'))
    return null
  } catch (error) {
    const code = (error as { code?: string }).code
    return code === 'EMFILE' || code === 'ENFILE' ? Object.assign(new Error('no file descriptor left for a socket'), { code }) : null
  }
}

/** Writes the head and the body (counted, or chunked); a body that fails or runs short ends the connection. */
function sendRequest(connection: Connection, exchange: Exchange, head: Buffer | string, init: UpstreamRequest, chunked: boolean): void {
  if (init.body !== undefined) {
    void sendWithBody(connection, exchange, head, init, chunked)
    return
  }
  const written = connection.write(head)
  if (written === undefined) exchange.requestSent = true
  else written.then(() => (exchange.requestSent = true), (error: unknown) => connection.fail(error))
}

async function sendWithBody(connection: Connection, exchange: Exchange, head: Buffer | string, init: UpstreamRequest, chunked: boolean): Promise<void> {
  const reader = init.body!.getReader()
  try {
    await connection.write(head)
    let sent = 0
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      const value = read.value
      if (value.byteLength === 0) continue
      sent += value.byteLength
      // Bun's server has already held the client's body to its Content-Length; this is a guard, not a rule.
      if (!chunked && sent > init.bodyLength!) throw new Error('the body is longer than its Content-Length')
      await connection.write(chunked ? Buffer.concat([Buffer.from(`${value.byteLength.toString(16)}\r\n`), value, CRLF]) : value)
    }
    if (chunked) await connection.write(LAST_CHUNK)
    else if (sent !== init.bodyLength) throw new Error('the body is shorter than its Content-Length')
    exchange.requestSent = true
  } catch (error) {
    // The body's own failure (too large, the client gone) is the one the caller is told.
    connection.fail(error)
    reader.cancel().catch(() => {})
  }
}
