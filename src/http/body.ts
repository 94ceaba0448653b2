// Request bodies of our own routes: JSON only, and at most JSON_BODY_LIMIT bytes whether or not
// the client announced a length; nested at most MAX_JSON_DEPTH deep (checked on the bytes, before
// anything that recurses); every string well-formed Unicode (a lone surrogate would be stored as
// U+FFFD, unlike what was acknowledged). Proxy routes never come here: they stream the body through.

import { ApiError } from './errors.ts'

export const JSON_BODY_LIMIT = 256 * 1024
export const MAX_JSON_DEPTH = 64

const OPEN_BRACE = 0x7b
const OPEN_BRACKET = 0x5b
const CLOSE_BRACE = 0x7d
const CLOSE_BRACKET = 0x5d
const QUOTE = 0x22
const BACKSLASH = 0x5c

export async function readJsonBody(request: Request, contentType: string): Promise<unknown> {
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) > JSON_BODY_LIMIT) throw new ApiError('payload_too_large')
  const bytes = await readLimited(request, JSON_BODY_LIMIT)
  if (bytes.length === 0) return undefined
  if (!/^application\/([a-z0-9.+-]+\+)?json\b/i.test(contentType)) {
    throw new ApiError('bad_request', { message: 'Content-Type must be application/json.' })
  }
  if (nestingDepth(bytes) > MAX_JSON_DEPTH) {
    throw new ApiError('bad_request', { message: `The request body is nested deeper than ${MAX_JSON_DEPTH} levels.` })
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes))
  } catch {
    throw new ApiError('bad_request', { message: 'The request body is not valid JSON.' })
  }
  if (!wellFormed(parsed)) throw new ApiError('bad_request', { message: 'The request body contains a string that is not well-formed Unicode.' })
  return parsed
}

/**
 * Refuses a JSON object with a top-level field the route does not take. Elysia drops undeclared
 * fields before the handler sees them, so without this a typo (`encrypt` for `encrypted`) would
 * store a secret in plaintext and answer success. The message names only the route's own fields
 * (nothing the client sent is repeated, decisions §10), and the one meant when the unknown name is
 * a near miss of it. Anything that is not an object is left to the route's schema.
 */
export function refuseUnknownFields(body: unknown, declared: Readonly<Record<string, unknown>>): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return
  const unknown = Object.keys(body).find((field) => !Object.hasOwn(declared, field))
  if (unknown === undefined) return
  const fields = Object.keys(declared)
  const meant = fields.find((field) => nearMiss(unknown, field))
  throw new ApiError('bad_request', {
    message: `The request body has a field this route does not take${meant ? ` (did you mean ${meant}?)` : ''}. The fields are: ${fields.join(', ')}.`,
  })
}

/** Whether `typed` is `field` mistyped: the same but for letter case, or at most two edits away. */
function nearMiss(typed: string, field: string): boolean {
  const a = typed.toLowerCase()
  const b = field.toLowerCase()
  if (Math.abs(a.length - b.length) > 2) return false
  // Levenshtein distance, one row at a time (both names are short).
  let row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const next = [i]
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    row = next
  }
  return row[b.length]! <= 2
}

/** The deepest nesting of arrays and objects, counted on the raw bytes (strings skipped), without recursion. */
export function nestingDepth(bytes: Uint8Array): number {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]
    if (inString) {
      if (byte === BACKSLASH) i++
      else if (byte === QUOTE) inString = false
    } else if (byte === QUOTE) inString = true
    else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (++depth > deepest) deepest = depth
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) depth--
  }
  return deepest
}

/** Every string (keys included) of a parsed value is well-formed UTF-16; checked without recursion. */
export function wellFormed(value: unknown): boolean {
  const pending: unknown[] = [value]
  while (pending.length > 0) {
    const next = pending.pop()
    if (typeof next === 'string') {
      if (!next.isWellFormed()) return false
    } else if (Array.isArray(next)) {
      for (const item of next) pending.push(item)
    } else if (next !== null && typeof next === 'object') {
      for (const [key, item] of Object.entries(next)) {
        if (!key.isWellFormed()) return false
        pending.push(item)
      }
    }
  }
  return true
}

function readLimited(request: Request, limit: number): Promise<Uint8Array<ArrayBuffer>> {
  return readCapped(request.body, limit, () => new ApiError('payload_too_large'))
}

/**
 * A body read whole, counted as it comes whatever its length said: past `limit` bytes the error
 * `tooLarge` makes is thrown and the rest cancelled. Our own routes' bodies, the upstreams' answers,
 * a proxied request read before it is sent.
 */
export async function readCapped(body: ReadableStream<Uint8Array> | null, limit: number, tooLarge: () => Error): Promise<Uint8Array<ArrayBuffer>> {
  if (!body) return new Uint8Array()
  const chunks: Uint8Array[] = []
  let total = 0
  // Leaving the loop by the throw cancels the stream.
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength
    if (total > limit) throw tooLarge()
    chunks.push(chunk)
  }
  return Buffer.concat(chunks, total) as Uint8Array<ArrayBuffer>
}

/** A body passed on as it streams, cut with the error `tooLarge` makes once it passes `limit` bytes. */
export function cappedStream(body: ReadableStream<Uint8Array>, limit: number, tooLarge: () => Error): ReadableStream<Uint8Array> {
  let total = 0
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        total += chunk.byteLength
        // Erroring here cancels the rest of the body.
        if (total > limit) controller.error(tooLarge())
        else controller.enqueue(chunk)
      },
    }),
  )
}
