// JSON lines on stdout (journald). Callers pass fields they chose; nothing here reads requests,
// so cookie values, tokens, keys and setting values never reach a log by accident.
//
// Output is batched and bounded: lines are collected and written together a few milliseconds later
// (one write for many lines), and when the reader stalls (a blocked pipe, a stuck journald) at
// most LOG_BUFFER_BYTES wait in memory. Beyond that, request lines are dropped and counted until
// the output takes some of what waits again, and the count is reported by a `log_lines_dropped`
// line before the next line; the other lines are kept up to twice that, and audit lines always.
// Requests never wait for the log.

import { fstatSync, write } from 'node:fs'
import type { LogLevel } from './config.ts'

export type LogFields = Record<string, string | number | boolean | null | undefined>

// A type alias, not an interface: it must spread into LogFields.
type ErrorFields = { error_name: string; error_code?: string; sqlstate?: string }

/** How a streamed body ended, for its request's line. */
export type BodyEnd = { body: 'complete' | 'incomplete'; body_bytes: number; error_name?: string; error_code?: string }

/** What the line of one request says: who, what, how it ended; never a query value, cookie or body. */
export interface RequestLine {
  request_id: string
  method: string
  path: string
  status: number
  duration_ms: number
  subject?: string
  error?: string
  upstream_failure?: string
  /** For proxied answers: whether the body reached the client whole, and how many bytes did. */
  body?: string
  body_bytes?: number
  error_name?: string
  error_code?: string
  /** The shutdown's drain gave up on this request and closed its connection. */
  cut?: 'shutdown'
}

export interface Logger {
  debug(event: string, fields?: LogFields): void
  info(event: string, fields?: LogFields): void
  warn(event: string, fields?: LogFields): void
  error(event: string, fields?: LogFields): void
  /** Audit lines the spec requires (identity searches): written whatever LOG_LEVEL says, never dropped. */
  audit(fields: LogFields): void
  /** The one line per request (at info): the first to go when the output is stalled. */
  request(line: RequestLine): void
  /** Writes what is pending and waits (at most `timeoutMs`) until the output has taken it. */
  flush(timeoutMs?: number): Promise<void>
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 }

/** At most this much waits in memory for a stalled output; past it, request lines are dropped and counted. */
export const LOG_BUFFER_BYTES = 4 * 1024 * 1024
const FLUSH_DELAY_MS = 20
const FLUSH_AT_BYTES = 64 * 1024
/** What one chunk holds: a flush's worth, and room for the line that reaches it. */
const CHUNK_BYTES = FLUSH_AT_BYTES + 16 * 1024
/** UTF-8 takes at most three bytes for each UTF-16 code unit. */
const MAX_BYTES_PER_CHAR = 3
/** Roughly what a request line takes besides its path (fixed text, time, id, status, duration, subject), for the bound. */
const REQUEST_LINE_BYTES = 256

/**
 * Lines other than request lines may take this many times LOG_BUFFER_BYTES: a line that explains a
 * failure outlasts the request lines, but not without bound, since anyone can cause some of them
 * (a `proxy_refused` per request: kept whatever the size, they grew a stalled service by 40 MB for
 * every 100,000 requests).
 */
const OTHER_LINES_LIMIT_FACTOR = 2

/**
 * Where lines go. When the output is stalled, request lines are dropped past the limit, lines
 * written with `mayDrop` past OTHER_LINES_LIMIT_FACTOR times it; any other line is kept.
 */
interface LineSink {
  write(line: string, mayDrop?: boolean): void
  /** The line of one request, logged at `time`; it may be formatted later, in order with the other lines. */
  request(fields: RequestLine, time: string): void
  flush(timeoutMs: number): Promise<void>
}

/** The output's side: writes a chunk and calls `done` once it has really been handed to the OS. */
type ChunkWriter = (chunk: Uint8Array, done: () => void) => void

let stdoutWriter: ChunkWriter | null = null

/** One line on stderr, if stderr still works, saying that log output is dropped from now on. */
function sayOutputLost(error: unknown): void {
  process.stderr.on('error', () => {})
  try {
    process.stderr.write(`admin-dashboard: stdout cannot be written (${describeError(error).error_code ?? 'error'}); log output is dropped from now on\n`)
  } catch {
    // stderr is gone too: nothing left to tell.
  }
}

/** Whether stdout is a regular file (`>> service.log`), rather than a pipe, a socket (journald) or a terminal. */
function stdoutIsFile(): boolean {
  try {
    return fstatSync(1).isFile()
  } catch {
    return false
  }
}

/**
 * Writes to stdout until a write fails (EPIPE when the reader went away, or any other error); from
 * then on output is dropped, so a lost log reader never takes the service down. One line on stderr
 * says so, if stderr still works.
 */
function createStdoutWriter(): ChunkWriter {
  return stdoutIsFile() ? createFileWriter(1) : createStreamWriter()
}

/**
 * Stdout is a file: process.stdout would write it synchronously on the thread that serves requests,
 * and a 64 KiB write into a file whose pages the kernel is writing back takes 100–200 µs there.
 * These writes go through Bun's thread pool instead, one at a time and in order, each retried
 * until all of its bytes are written.
 */
function createFileWriter(fd: number): ChunkWriter {
  let broken = false
  const queue: { bytes: Uint8Array; offset: number; done: () => void }[] = []
  let writing = false
  const breakOff = (error: unknown) => {
    broken = true
    for (const pending of queue.splice(0)) pending.done()
    sayOutputLost(error)
  }
  const pump = () => {
    const next = queue[0]
    if (writing || next === undefined) return
    writing = true
    write(fd, next.bytes, next.offset, next.bytes.byteLength - next.offset, null, (error, written) => {
      writing = false
      if (error) return breakOff(error)
      next.offset += written
      if (next.offset >= next.bytes.byteLength) {
        queue.shift()
        next.done()
      }
      pump()
    })
  }
  return (chunk, done) => {
    if (broken) return done()
    queue.push({ bytes: chunk, offset: 0, done })
    pump()
  }
}

/** Stdout is a pipe, a socket or a terminal: process.stdout writes without blocking and says when each write is done. */
function createStreamWriter(): ChunkWriter {
  let broken = false
  const waiting = new Set<() => void>()
  const breakOff = (error: unknown) => {
    if (broken) return
    broken = true
    for (const done of waiting) done()
    waiting.clear()
    sayOutputLost(error)
  }
  process.stdout.on('error', breakOff)
  return (chunk, done) => {
    if (broken) return done()
    let called = false
    const once = () => {
      if (called) return
      called = true
      waiting.delete(once)
      done()
    }
    waiting.add(once)
    try {
      process.stdout.write(chunk, (error) => {
        if (error) breakOff(error)
        once()
      })
    } catch (error) {
      breakOff(error)
      once()
    }
  }
}

/**
 * Lines are encoded into the chunk as they come, while the pieces they are made of are still at
 * hand: joining a few hundred lines later, and then encoding the text, cost a proxied request
 * 2–5 % more CPU (bench/README.md). Request lines are the exception: their fields wait, and the
 * lines are written into the chunk together, piece by piece, when the chunk is written out or
 * another line comes (1–3 % more req/s on the public, session and proxy routes: one tight loop
 * instead of a line between two requests; and about 1 % more without the text of each line).
 * test/request-log.test.ts holds the bytes to those of the joined text.
 */
export function createBufferedSink(options: { writer?: ChunkWriter; limitBytes?: number } = {}): LineSink {
  const writer = options.writer ?? (stdoutWriter ??= createStdoutWriter())
  const limit = options.limitBytes ?? LOG_BUFFER_BYTES
  /** The chunk being filled, and how many of its bytes are lines. */
  let chunk: Buffer | null = null
  let used = 0
  /** Handed to the writer and not yet confirmed: bytes that may still sit in a buffer. */
  let inflight = 0
  let dropped = 0
  /** Whether the output has taken anything since the first of the `dropped` lines. */
  let outputMoved = false
  /** Request lines not formatted yet, the time each was logged, and what they will take at most, roughly. */
  let pending: RequestLine[] = []
  let pendingTimes: string[] = []
  let pendingBytes = 0
  let timer: ReturnType<typeof setTimeout> | null = null
  const idle: (() => void)[] = []

  const settle = () => {
    if (inflight === 0 && used === 0 && pending.length === 0) for (const resolve of idle.splice(0)) resolve()
  }
  const handOver = (bytes: Uint8Array) => {
    inflight += bytes.byteLength
    writer(bytes, () => {
      inflight -= bytes.byteLength
      outputMoved = true
      settle()
    })
  }
  const writeOut = () => {
    if (timer) {
      clearTimeout(timer)
      timer = null
    }
    if (pending.length > 0) formatPending()
    if (used === 0) return
    const full = chunk!.subarray(0, used)
    chunk = null
    used = 0
    handOver(full)
  }
  const formatPending = () => {
    const lines = pending
    const times = pendingTimes
    pending = []
    pendingTimes = []
    pendingBytes = 0
    for (let i = 0; i < lines.length; i++) {
      const fields = lines[i]!
      const time = times[i]!
      const most = requestLineBytesAtMost(fields, time)
      if (chunkHasRoom(most)) {
        used = writeRequestLine(chunk!, used, fields, time)
        lineAdded()
      } else {
        const alone = Buffer.allocUnsafe(most)
        handOver(alone.subarray(0, writeRequestLine(alone, 0, fields, time)))
      }
    }
  }
  const encode = (line: string) => {
    if (chunkHasRoom(line.length * MAX_BYTES_PER_CHAR)) {
      used += chunk!.write(line, used)
      lineAdded()
    } else {
      handOver(Buffer.from(line))
    }
  }
  /**
   * Whether a line of at most `most` bytes goes into the chunk (made if there is none), after what
   * the chunk already holds is written out when it would not fit. False for a line longer than a
   * chunk holds: the caller hands it over alone, after what came before it.
   */
  const chunkHasRoom = (most: number): boolean => {
    if (used > 0 && CHUNK_BYTES - used < most) writeOut()
    if (most > CHUNK_BYTES) return false
    chunk ??= Buffer.allocUnsafe(CHUNK_BYTES)
    return true
  }
  /** After a line went into the chunk: written out once the chunk is nearly full, else soon. */
  const lineAdded = () => {
    if (used >= FLUSH_AT_BYTES) writeOut()
    else writeOutSoon()
  }
  const writeOutSoon = () => {
    if (timer) return
    timer = setTimeout(writeOut, FLUSH_DELAY_MS)
    timer.unref?.()
  }
  /**
   * Whether `bytes` more fit. Once request lines are being dropped, they are until the output takes
   * something again: pending lines, counted at an upper estimate, free room when they are formatted,
   * and a stalled output must not let one line in and one count out each time that happens.
   */
  const roomFor = (bytes: number) => (dropped === 0 || outputMoved) && inflight + used + pendingBytes + bytes <= limit
  const waitingBytes = () => inflight + used + pendingBytes
  /** A line dropped: counted, and from the first on no count is reported until the output takes something. */
  const drop = () => {
    if (dropped++ === 0) outputMoved = false
  }
  /** The count of lines dropped, once there is room again, before the line that found it. */
  const reportDropped = () => {
    if (dropped === 0) return
    write(jsonLine('warn', 'log_lines_dropped', { count: dropped }))
    dropped = 0
  }
  const write = (line: string) => {
    if (pending.length > 0) formatPending()
    encode(line)
  }

  return {
    write(line, mayDrop = false) {
      if (roomFor(line.length)) reportDropped()
      else if (mayDrop && waitingBytes() + line.length > limit * OTHER_LINES_LIMIT_FACTOR) return drop()
      write(line)
    },
    request(fields, time) {
      const most = REQUEST_LINE_BYTES + fields.path.length * MAX_BYTES_PER_CHAR
      if (!roomFor(most)) return drop()
      reportDropped()
      pending.push(fields)
      pendingTimes.push(time)
      pendingBytes += most
      if (pendingBytes >= FLUSH_AT_BYTES) writeOut()
      else writeOutSoon()
    },
    flush(timeoutMs) {
      writeOut()
      if (inflight === 0) return Promise.resolve()
      return new Promise<void>((resolve) => {
        const timeout = setTimeout(resolve, timeoutMs)
        idle.push(() => {
          clearTimeout(timeout)
          resolve()
        })
      })
    },
  }
}

/**
 * `write`, when given, receives every line at once (the tests and the command line use this);
 * otherwise lines go to stdout through a bounded, batched sink.
 */
export function createLogger(level: LogLevel, write?: (line: string) => void): Logger {
  const sink: LineSink = write
    ? { write: (line) => write(line), request: (fields, time) => write(requestLine(fields, time)), flush: async () => {} }
    : createBufferedSink()
  const emit = (lineLevel: LogLevel, event: string, fields: LogFields = {}) => {
    if (RANK[lineLevel] >= RANK[level]) sink.write(jsonLine(lineLevel, event, fields), true)
  }
  return {
    debug: (event, fields) => emit('debug', event, fields),
    info: (event, fields) => emit('info', event, fields),
    warn: (event, fields) => emit('warn', event, fields),
    error: (event, fields) => emit('error', event, fields),
    audit: (fields) => sink.write(jsonLine('info', 'audit', fields)),
    request: (fields) => {
      if (RANK.info >= RANK[level]) sink.request(fields, isoNow())
    },
    flush: (timeoutMs = 2000) => sink.flush(timeoutMs),
  }
}

// The time is formatted once per millisecond, not once per line.
let clockMs = Number.NaN
let clockIso = ''

function isoNow(): string {
  const now = Date.now()
  if (now !== clockMs) {
    clockMs = now
    clockIso = new Date(now).toISOString()
  }
  return clockIso
}

function jsonLine(level: LogLevel, event: string, fields: LogFields): string {
  return `${JSON.stringify({ time: isoNow(), level, event, ...fields })}\n`
}

/** Text that JSON writes as it is, between quotes: printable ASCII without `"` and `\\`. */
const PLAIN_TEXT = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/

/** A JSON number, as JSON.stringify writes it (null for what JSON cannot hold). */
function jsonNumber(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null'
}

/** The most bytes a JSON string of `text` can take: six per code unit (`\\u0000`, or up to three of UTF-8), and the quotes. */
const jsonTextBytesAtMost = (text: string | undefined) => (text === undefined ? 0 : text.length * 6 + 2)

/** A request line's names, punctuation and three numbers (at most 24 characters each), at most: about 280 bytes. */
const REQUEST_LINE_FRAME_BYTES = 320

/** An upper bound on what `writeRequestLine` writes for these fields. */
export function requestLineBytesAtMost(f: RequestLine, time: string): number {
  return (
    REQUEST_LINE_FRAME_BYTES +
    jsonTextBytesAtMost(time) +
    jsonTextBytesAtMost(f.request_id) +
    jsonTextBytesAtMost(f.method) +
    jsonTextBytesAtMost(f.path) +
    jsonTextBytesAtMost(f.subject) +
    jsonTextBytesAtMost(f.error) +
    jsonTextBytesAtMost(f.upstream_failure) +
    jsonTextBytesAtMost(f.body) +
    jsonTextBytesAtMost(f.error_name) +
    jsonTextBytesAtMost(f.error_code) +
    jsonTextBytesAtMost(f.cut)
  )
}

/** ASCII text written byte for byte at `at`; returns where it ends. The caller knows it is ASCII. */
function putAscii(chunk: Buffer, at: number, text: string): number {
  const length = text.length
  for (let i = 0; i < length; i++) chunk[at + i] = text.charCodeAt(i)
  return at + length
}

const QUOTE = 0x22

/** A JSON string written at `at`: plain text (ids, methods, most paths) byte for byte between quotes, anything else as JSON.stringify writes it, in UTF-8. */
function putJsonText(chunk: Buffer, at: number, value: string): number {
  if (!PLAIN_TEXT.test(value)) return at + chunk.write(JSON.stringify(value), at)
  chunk[at] = QUOTE
  const end = putAscii(chunk, at + 1, value)
  chunk[end] = QUOTE
  return end + 1
}

/**
 * The one line per request, logged at `time`, encoded into `chunk` at `at`, which has room for
 * `requestLineBytesAtMost(f, time)` bytes; returns where it ends. Written piece by piece: a line
 * built as text and then encoded costs 0.1–0.3 µs more under load, most of it in joining the
 * pieces into one string first (bench/README.md).
 */
function writeRequestLine(chunk: Buffer, at: number, f: RequestLine, time: string): number {
  let end = putAscii(chunk, at, '{"time":')
  end = putJsonText(chunk, end, time)
  end = putAscii(chunk, end, ',"level":"info","event":"request","request_id":')
  end = putJsonText(chunk, end, f.request_id)
  end = putAscii(chunk, end, ',"method":')
  end = putJsonText(chunk, end, f.method)
  end = putAscii(chunk, end, ',"path":')
  end = putJsonText(chunk, end, f.path)
  end = putAscii(chunk, end, ',"status":')
  end = putAscii(chunk, end, jsonNumber(f.status))
  end = putAscii(chunk, end, ',"duration_ms":')
  end = putAscii(chunk, end, jsonNumber(f.duration_ms))
  if (f.subject !== undefined) end = putJsonText(chunk, putAscii(chunk, end, ',"subject":'), f.subject)
  if (f.error !== undefined) end = putJsonText(chunk, putAscii(chunk, end, ',"error":'), f.error)
  if (f.upstream_failure !== undefined) end = putJsonText(chunk, putAscii(chunk, end, ',"upstream_failure":'), f.upstream_failure)
  if (f.body !== undefined) end = putJsonText(chunk, putAscii(chunk, end, ',"body":'), f.body)
  if (f.body_bytes !== undefined) end = putAscii(chunk, putAscii(chunk, end, ',"body_bytes":'), jsonNumber(f.body_bytes))
  if (f.error_name !== undefined) end = putJsonText(chunk, putAscii(chunk, end, ',"error_name":'), f.error_name)
  if (f.error_code !== undefined) end = putJsonText(chunk, putAscii(chunk, end, ',"error_code":'), f.error_code)
  if (f.cut !== undefined) end = putJsonText(chunk, putAscii(chunk, end, ',"cut":'), f.cut)
  return putAscii(chunk, end, '}\n')
}

/**
 * The one line per request, logged at `time`, as text: the bytes `writeRequestLine` writes, which
 * are the same text as JSON.stringify of the fields in this order, leaving out what is undefined
 * (test/request-log.test.ts holds the two together). For the loggers that take whole lines.
 */
export function requestLine(f: RequestLine, time: string): string {
  const bytes = Buffer.allocUnsafe(requestLineBytesAtMost(f, time))
  return bytes.toString('utf8', 0, writeRequestLine(bytes, 0, f, time))
}

/**
 * What an error may be called where its text may not go (a message, a log field): plain tokens
 * only, never free text that could quote a value. PostgreSQL's SQLSTATE (Bun.SQL's `errno`)…
 */
export function sqlstateOf(error: unknown): string | null {
  const { errno } = (error ?? {}) as { errno?: unknown }
  return typeof errno === 'string' && /^[0-9A-Z]{5}$/.test(errno) ? errno : null
}

/** …and a system or driver code such as EACCES or SQLITE_READONLY (not our envelope's error code: `http/errors.ts` errorCodeOf). */
export function systemCodeOf(error: unknown): string | null {
  const { code } = (error ?? {}) as { code?: unknown }
  return typeof code === 'string' && /^[A-Z0-9_]{1,64}$/.test(code) ? code : null
}

/** Its code, else its name (RangeError, TypeError), else `fallback`. */
export function errorLabel(error: unknown, fallback: string): string {
  const { name } = (error ?? {}) as { name?: unknown }
  return systemCodeOf(error) ?? (typeof name === 'string' && /^\w{1,64}$/.test(name) ? name : fallback)
}

/** What may be logged about a caught error: its class and code, never its message (it may hold host names). */
export function describeError(error: unknown): ErrorFields {
  if (error instanceof Error) {
    // Only a text code (ECONNREFUSED, SQLITE_FULL, 28P01): a DOMException's legacy number means nothing here, and one field has one type.
    const code = (error as { code?: unknown }).code
    // PostgreSQL's own code (25006: a read-only database), where the driver's is a generic ERR_POSTGRES_SERVER_ERROR.
    return { error_name: error.name, error_code: typeof code === 'string' ? code : undefined, sqlstate: sqlstateOf(error) ?? undefined }
  }
  return { error_name: typeof error }
}
