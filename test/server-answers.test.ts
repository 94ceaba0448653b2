// What the server does around the app's answer, whether it comes at once or later: the request id
// on every answer, one log line per request, and a handler that throws answered with our envelope.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { SECURITY_HEADERS } from '../src/http/gate.ts'
import { assignRequestId } from '../src/http/request-context.ts'
import { createLogger } from '../src/log.ts'
import { serve, type RunningServer } from '../src/server.ts'
import { inspectResponse, markSensitive } from './support/leaks.ts'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

type Line = Record<string, unknown>
const lines: Line[] = []
let running: RunningServer

/** Each path answers in one way: at once or later, with or without the gate's id, or by throwing. */
function handle(request: Request): Response | Promise<Response> {
  const path = new URL(request.url).pathname
  if (path === '/now') return new Response('now')
  if (path === '/now-with-id') return new Response('now', { headers: { 'x-request-id': assignRequestId(request) } })
  if (path === '/later') return Bun.sleep(5).then(() => new Response('later'))
  if (path === '/throws') throw new Error('connect ECONNREFUSED db.internal:5432')
  if (path === '/rejects') return Bun.sleep(5).then(() => Promise.reject(new Error('connect ECONNREFUSED db.internal:5432')))
  return new Response('not here', { status: 404 })
}

beforeAll(() => {
  const log = createLogger('info', (line) => lines.push(JSON.parse(line) as Line))
  markSensitive('db.internal')
  // Every error answer goes through the suite's leak check, as the service's do (support/service.ts).
  running = serve({ handle, hostname: '127.0.0.1', port: 0, log, observe: (request, response) => inspectResponse(request, response, () => false) })
})
afterAll(() => running.stop())

/** The request's lines, found by the id its answer carries, once written. */
async function linesFor(id: string, event: string): Promise<Line[]> {
  for (let i = 0; i < 100; i++) {
    const found = lines.filter((line) => line.request_id === id && line.event === event)
    if (found.length > 0) return found
    await Bun.sleep(5)
  }
  return []
}

describe('an answer, at once or later', () => {
  for (const [path, body] of [
    ['/now', 'now'],
    ['/now-with-id', 'now'],
    ['/later', 'later'],
  ] as const) {
    test(`${path}: carries a request id, and its one line names it`, async () => {
      const response = await fetch(`${running.url.origin}${path}`)
      expect(await response.text()).toBe(body)
      const id = response.headers.get('x-request-id')!
      expect(id).toMatch(UUID)
      const logged = await linesFor(id, 'request')
      expect(logged).toEqual([expect.objectContaining({ method: 'GET', path, status: 200 })])
    })
  }
})

describe('a handler that throws', () => {
  for (const path of ['/throws', '/rejects']) {
    test(`${path}: 500 internal_error with the security headers; the error line and the request line name the id the answer carries, and nothing of the exception`, async () => {
      const response = await fetch(`${running.url.origin}${path}`)
      expect(response.status).toBe(500)
      const text = await response.text()
      expect(JSON.parse(text)).toEqual({ error: 'internal_error', message: 'Something unexpected happened.' })
      expect(text).not.toContain('db.internal')
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(response.headers.get(name)).toBe(value)
      const id = response.headers.get('x-request-id')!
      expect(id).toMatch(UUID)
      const [failure] = await linesFor(id, 'unhandled_error')
      expect(failure).toMatchObject({ path, error_name: 'Error' })
      expect(JSON.stringify(failure)).not.toContain('db.internal')
      expect(await linesFor(id, 'request')).toEqual([expect.objectContaining({ path, status: 500, error: 'internal_error' })])
    })
  }
})
