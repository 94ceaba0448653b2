// Plain JSON values answered with the gate's headers, without Elysia rebuilding them per answer.

import { SECURITY_HEADERS } from './gate.ts'

/**
 * A JSON answer's type and the gate's headers, prepared once: a Response copies a Headers natively
 * instead of checking each name and value again. The type is the one Response.json gives.
 */
const JSON_HEADER_SET = new Headers({ 'content-type': 'application/json;charset=utf-8', ...SECURITY_HEADERS })
/** The security headers and the request id: everything the gate puts in `set.headers`. */
const GATE_HEADER_COUNT = Object.keys(SECURITY_HEADERS).length + 1

interface MappedContext {
  response: unknown
  set: { headers: Record<string, string | number>; status?: number | string; cookie?: unknown }
}

/**
 * A route's plain JSON value, answered with the gate's headers (Elysia `mapResponse`). Elysia would
 * build the answer from `set.headers`, an object it turns into Headers name by name; when the
 * gate's headers are all there is to send, the prepared set is copied instead and the request id
 * added: the same bytes, about half the cost. Anything else (another status or header, a cookie,
 * a string, a Response) is left to Elysia.
 */
export function answerPlainValue({ response, set }: MappedContext): Response | undefined {
  if (set.status !== 200 || set.cookie !== undefined || !isPlainValue(response)) return undefined
  const headers = set.headers
  let count = 0
  for (const name in headers) {
    if (name !== 'x-request-id' && headers[name] !== SECURITY_HEADERS[name]) return undefined
    count++
  }
  const id = headers['x-request-id']
  if (count !== GATE_HEADER_COUNT || typeof id !== 'string') return undefined
  // Sent as it is: with `set` empty, Elysia does not copy the answer to merge the same headers again.
  set.headers = {}
  return gateJson(response, id)
}

/** The JSON text of each prepared value (`prepared`), made once. */
const preparedTexts = new WeakMap<object, string>()

/**
 * A value a route answers again and again (`/api/health`'s, one session's answer), frozen through
 * and through so that it cannot change, with its JSON text made now: `gateJson` sends that text
 * instead of serializing the value for every request.
 */
export function prepared<T extends object>(value: T): T {
  deepFreeze(value)
  preparedTexts.set(value, JSON.stringify(value))
  return value
}

function deepFreeze(value: object): void {
  for (const field of Object.values(value)) if (field !== null && typeof field === 'object') deepFreeze(field)
  Object.freeze(value)
}

/** A plain JSON value with the gate's headers and the request's id: what Elysia would send for it. */
export function gateJson(value: object, id: string): Response {
  const answer = new Response(preparedTexts.get(value) ?? JSON.stringify(value), { headers: JSON_HEADER_SET })
  answer.headers.set('x-request-id', id)
  return answer
}

/** A plain object or array: what Elysia answers as JSON (a class instance, a Response or a string is answered otherwise). */
export function isPlainValue(value: unknown): value is object {
  if (value === null || typeof value !== 'object') return false
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === Array.prototype
}
