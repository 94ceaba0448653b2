// One wide log line per request, with the request id every response carries; streamed answers
// logged when they really end; writes through the admin proxies in the audit trail; bodies over
// the limit answered with our envelope on every route.
import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createBufferedSink, requestLine, requestLineBytesAtMost, type RequestLine } from '../src/log.ts'
import { PROXY_BODY_LIMIT } from '../src/proxy/index.ts'
import { markSecret, markSensitive } from './support/leaks.ts'
import { freePort } from './support/ports.ts'
import { seededRandom } from './support/random.ts'
import { startStack, type Stack } from './support/stack.ts'
import { RawListener, RecordingUpstream } from './support/upstream.ts'

const ORIGIN = 'http://admin.test'
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

let stack: Stack
let upstream: RecordingUpstream
/** Sends headers and half a body, then resets the connection. */
let cutter: RawListener
let closedPort: number

beforeAll(async () => {
  upstream = new RecordingUpstream()
  cutter = await RawListener.start('127.0.0.1', (socket) => {
    socket.once('data', (data) => {
      // /small…: an answer small enough to be read whole before it is sent; anything else streams.
      const length = String(data).startsWith('GET /small') ? 10_000 : 100_000
      socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\ncontent-length: ${length}\r\n\r\n`)
      socket.write(Buffer.alloc(length * 0.3, 1))
      setTimeout(() => socket.resetAndDestroy(), 150)
    })
  })
  closedPort = freePort()
  stack = await startStack({
    env: {
      IDP_PUBLIC_URL: upstream.url,
      OAUTH_ADMIN_URL: upstream.url,
      IAM_IDP_ADMIN_URL: upstream.url,
      OAUTH_PUBLIC_URL: `http://127.0.0.1:${cutter.port}`,
      IAM_IDP_PUBLIC_URL: `http://127.0.0.1:${closedPort}`,
    },
  })
  markSensitive(upstream.url, String(new URL(upstream.url).port), String(cutter.port), String(closedPort))
  // It is the login identity store here too: the seeded sessions' identities, with their roles.
  upstream.roles.set(stack.admin.id, 'admin').set(stack.viewer.id, 'viewer')
})
afterAll(async () => {
  await stack.stop()
  await upstream.stop()
  await cutter.stop()
})

type Line = Record<string, unknown>
const requestLines = (): Line[] => stack.service.logLines.map((line) => JSON.parse(line) as Line).filter((line) => line.event === 'request')
async function lineFor(id: string): Promise<Line> {
  for (let i = 0; i < 100; i++) {
    const found = requestLines().find((line) => line.request_id === id)
    if (found) return found
    await Bun.sleep(10)
  }
  throw new Error(`no log line for request ${id}`)
}

describe('X-Request-Id and the wide log line', () => {
  const cases: [string, string, RequestInit, number][] = [
    ['a public route', '/api/health', {}, 200],
    ['a protected route without a session', '/api/settings', {}, 401],
    ['an unknown route', '/api/nope', { headers: {} }, 401],
    ['a redirect', '/', { redirect: 'manual' }, 302],
    ['the sign-in redirect', '/api/auth/login', { redirect: 'manual' }, 302],
    ['a proxied answer', '/api/idp/self-service/login/api', {}, 200],
    ['an unreachable upstream', '/api/iam-idp/x', {}, 502],
  ]
  for (const [label, path, init, status] of cases) {
    test(`${label} (${status}) carries an id, and its log line the same id`, async () => {
      const response = await fetch(`${stack.service.url}${path}`, init)
      expect(response.status).toBe(status)
      const id = response.headers.get('x-request-id')!
      expect(id).toMatch(UUID)
      const line = await lineFor(id)
      expect(line).toMatchObject({ level: 'info', method: 'GET', status })
      expect(typeof line.duration_ms).toBe('number')
    })
  }

  test('a proxied answer carries our id, not the one its upstream chose', async () => {
    upstream.answer = () => Response.json({ ok: true }, { headers: { 'x-request-id': 'upstream-chosen' } })
    try {
      const response = await fetch(`${stack.service.url}/api/idp/with-id`)
      const id = response.headers.get('x-request-id')!
      expect(id).toMatch(UUID)
      expect((await lineFor(id)).path).toBe('/api/idp/with-id')
    } finally {
      upstream.answer = () => Response.json({ ok: true })
    }
  })

  test('ids are ours: unique per request, an incoming X-Request-Id is not echoed', async () => {
    const ids = new Set<string>()
    for (let i = 0; i < 20; i++) {
      const response = await fetch(`${stack.service.url}/api/health`, { headers: { 'x-request-id': 'client-chosen' } })
      ids.add(response.headers.get('x-request-id')!)
    }
    expect(ids.size).toBe(20)
    expect(ids.has('client-chosen')).toBe(false)
  })

  test('the line names the session subject, the error code and the upstream failure class; never a query value', async () => {
    const admin = await fetch(`${stack.service.url}/api/settings?category=secret-category-value`, { headers: { cookie: stack.cookie.admin } })
    const adminLine = await lineFor(admin.headers.get('x-request-id')!)
    expect(adminLine).toMatchObject({ status: 200, subject: stack.admin.id, path: '/api/settings' })
    expect(JSON.stringify(adminLine)).not.toContain('secret-category-value')

    const session = await fetch(`${stack.service.url}/api/auth/session`, { headers: { cookie: stack.cookie.admin } })
    expect(await lineFor(session.headers.get('x-request-id')!)).toMatchObject({ status: 200, subject: stack.admin.id })

    const denied = await fetch(`${stack.service.url}/api/settings`, { headers: { cookie: stack.cookie.viewer } })
    expect(await lineFor(denied.headers.get('x-request-id')!)).toMatchObject({ status: 403, error: 'forbidden' })
    const anonymous = await fetch(`${stack.service.url}/api/settings`)
    expect(await lineFor(anonymous.headers.get('x-request-id')!)).toMatchObject({ status: 401, error: 'not_authenticated' })

    const unreachable = await fetch(`${stack.service.url}/api/iam-idp/sessions/whoami`)
    expect(await lineFor(unreachable.headers.get('x-request-id')!)).toMatchObject({ status: 502, error: 'bad_gateway', upstream_failure: 'unreachable' })
  })

  test('a proxied body that the upstream cuts short is logged as incomplete, with the time until it ended', async () => {
    const response = await fetch(`${stack.service.url}/api/oauth/big`)
    expect(response.status).toBe(200)
    const id = response.headers.get('x-request-id')!
    await response.arrayBuffer().catch(() => null)
    const line = await lineFor(id)
    expect(line).toMatchObject({ status: 200, body: 'incomplete' })
    expect(line.body_bytes as number).toBeLessThan(100_000)
    expect(line.duration_ms as number).toBeGreaterThanOrEqual(140)
  })

  test('a small proxied answer that the upstream cuts short is not relayed truncated: 502 with our envelope, logged as such', async () => {
    const response = await fetch(`${stack.service.url}/api/oauth/small-answer`)
    expect(response.status).toBe(502)
    expect(await response.json()).toMatchObject({ error: 'bad_gateway' })
    const line = await lineFor(response.headers.get('x-request-id')!)
    expect(line).toMatchObject({ status: 502, error: 'bad_gateway' })
    expect(line.upstream_failure).toBeDefined()
  })

  test('a proxied body that arrives whole is logged as complete', async () => {
    upstream.answer = () => new Response('x'.repeat(50_000))
    const response = await fetch(`${stack.service.url}/api/idp/whole`)
    expect((await response.text()).length).toBe(50_000)
    expect(await lineFor(response.headers.get('x-request-id')!)).toMatchObject({ status: 200, body: 'complete', body_bytes: 50_000 })
    upstream.answer = () => Response.json({ ok: true })
  })
})

describe('writes through the admin proxies are audited', () => {
  const prefixes = ['/api/oauth-admin', '/api/iam-idp-admin'] as const
  for (const prefix of prefixes) {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      test(`${method} ${prefix}: one event with actor, method, prefix, path with ids, status, outcome; no body or query value`, async () => {
        upstream.answer = () => Response.json({ ok: true }, { status: method === 'DELETE' ? 200 : 201 })
        const before = (await stack.service.services.audit.list({ limit: 1000, action: 'proxy_write' })).length
        const response = await fetch(`${stack.service.url}${prefix}/admin/clients/client-42?secret_query=query-value-xyz`, {
          method,
          headers: { cookie: stack.cookie.admin, origin: ORIGIN, 'content-type': 'application/json' },
          body: JSON.stringify({ client_secret: 'body-secret-xyz' }),
        })
        expect(response.status).toBe(method === 'DELETE' ? 200 : 201)
        const events = (await stack.service.services.audit.list({ limit: 1000, action: 'proxy_write' }))
        expect(events.length).toBe(before + 1)
        const event = events[0]!
        expect(event).toMatchObject({
          actor: stack.admin.id,
          target: '/admin/clients/client-42',
          detail: { prefix: prefix.slice('/api/'.length), method, status: method === 'DELETE' ? 200 : 201, outcome: 'ok' },
        })
        expect(JSON.stringify(event)).not.toMatch(/query-value-xyz|body-secret-xyz|secret_query/)
      })
    }
    test(`GET and HEAD through ${prefix} are not audited`, async () => {
      const before = (await stack.service.services.audit.list({ limit: 1000, action: 'proxy_write' })).length
      for (const method of ['GET', 'HEAD']) {
        const response = await fetch(`${stack.service.url}${prefix}/admin/clients`, { method, headers: { cookie: stack.cookie.admin } })
        expect(response.status).toBe(200)
      }
      expect((await stack.service.services.audit.list({ limit: 1000, action: 'proxy_write' })).length).toBe(before)
    })
  }

  test('an upstream refusal and an unreachable upstream are audited with their outcome; /api/security/audit filters them', async () => {
    upstream.answer = () => Response.json({ error: 'invalid_client_metadata' }, { status: 400 })
    await fetch(`${stack.service.url}/api/oauth-admin/admin/clients`, { method: 'POST', headers: { cookie: stack.cookie.admin, origin: ORIGIN }, body: '{}' })
    upstream.answer = () => Response.json({ ok: true })
    const listed = await fetch(`${stack.service.url}/api/security/audit?action=proxy_write&limit=1`, { headers: { cookie: stack.cookie.admin } })
    const { events } = (await listed.json()) as { events: { action: string; detail: Record<string, unknown> }[] }
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ action: 'proxy_write', detail: { method: 'POST', status: 400, outcome: 'upstream_refused' } })
  })

  test('what a write did where its path does not say: the id a POST made, the client whose tokens were revoked (ids only)', async () => {
    upstream.answer = () => Response.json({ client_id: 'made-client-1', client_secret: 'never-recorded' }, { status: 201 })
    markSecret('never-recorded')
    await fetch(`${stack.service.url}/api/oauth-admin/admin/clients`, { method: 'POST', headers: { cookie: stack.cookie.admin, origin: ORIGIN }, body: '{}' })
    upstream.answer = () => new Response(null, { status: 204 })
    await fetch(`${stack.service.url}/api/oauth-admin/admin/oauth2/tokens?client_id=made-client-1`, { method: 'DELETE', headers: { cookie: stack.cookie.admin, origin: ORIGIN } })
    upstream.answer = () => Response.json({ ok: true })
    const [revoked, created] = await stack.service.services.audit.list({ limit: 2, action: 'proxy_write' })
    expect(created).toMatchObject({ target: '/admin/clients', detail: { method: 'POST', status: 201, outcome: 'ok', created: 'made-client-1' } })
    expect(revoked).toMatchObject({ target: '/admin/oauth2/tokens', detail: { method: 'DELETE', status: 204, outcome: 'ok', client_id: 'made-client-1' } })
    expect(JSON.stringify([revoked, created])).not.toContain('never-recorded')
  })

  test("a client whose id the UI percent-encodes in its path (app:web é) is found by its id, as its page's Audit link asks, for every write to it", async () => {
    const clientId = 'app:web é'
    upstream.answer = () => Response.json({ client_id: clientId }, { status: 201 })
    await fetch(`${stack.service.url}/api/oauth-admin/admin/clients`, { method: 'POST', headers: { cookie: stack.cookie.admin, origin: ORIGIN }, body: '{}' })
    upstream.answer = () => Response.json({ client_id: clientId })
    // As ui/api.ts sends them: the id through encodeURIComponent.
    const path = `/api/oauth-admin/admin/clients/${encodeURIComponent(clientId)}`
    await fetch(`${stack.service.url}${path}`, { method: 'PATCH', headers: { cookie: stack.cookie.admin, origin: ORIGIN }, body: '[]' })
    await fetch(`${stack.service.url}${path}`, { method: 'DELETE', headers: { cookie: stack.cookie.admin, origin: ORIGIN } })
    upstream.answer = () => Response.json({ ok: true })
    // As the client page's link asks (auditAbout: the id in the query, encoded there, decoded by the service).
    const listed = await fetch(`${stack.service.url}/api/security/audit?about=${encodeURIComponent(clientId)}`, { headers: { cookie: stack.cookie.admin } })
    const { events } = (await listed.json()) as { events: { detail: Record<string, unknown> }[] }
    expect(events.map((event) => event.detail.method)).toEqual(['DELETE', 'PATCH', 'POST'])
  })

  test('an identity written to under another spelling Kratos reads as the same (percent-encoded, capitals, braces, urn:uuid:) is recorded under its own id, and found by it', async () => {
    const id = '4f71c3bc-be35-499b-afc9-bb90f6883f06'
    const spellings = [`%34${id.slice(1)}`, id.toUpperCase(), `{${id}}`, `urn:uuid:${id}`, `${id.replace(/-/g, '').toUpperCase()}/credentials/totp`]
    upstream.answer = () => Response.json({ id, state: 'active' })
    for (const spelling of spellings) {
      const answer = await fetch(`${stack.service.url}/api/iam-idp-admin/admin/identities/${spelling}`, { method: 'PATCH', headers: { cookie: stack.cookie.admin, origin: ORIGIN }, body: '[]' })
      expect({ spelling, status: answer.status }).toEqual({ spelling, status: 200 })
    }
    upstream.answer = () => Response.json({ ok: true })
    const listed = await fetch(`${stack.service.url}/api/security/audit?about=${id}`, { headers: { cookie: stack.cookie.admin } })
    const { events } = (await listed.json()) as { events: { target: string }[] }
    // Each, newest first, under the id Kratos acted on: an insider cannot keep a write out of its identity's events by spelling.
    expect(events.map((event) => event.target)).toEqual([`/admin/identities/${id}/credentials/totp`, ...Array(4).fill(`/admin/identities/${id}`)])
  })

  test('a recovery link or code is recorded for the identity its body names (read before it is sent on, byte for byte as it came); a body that names none, or of no declared length, is recorded without one', async () => {
    const id = '7c9e6679-7425-40de-944b-e07fc1f90ae7'
    upstream.answer = () => Response.json({ recovery_link: 'https://idp.example/recovery?token=never-recorded', expires_at: '2030-01-01T00:00:00Z' })
    markSecret('never-recorded')
    const post = (path: string, body: BodyInit) =>
      fetch(`${stack.service.url}/api/iam-idp-admin/admin/recovery/${path}`, { method: 'POST', headers: { cookie: stack.cookie.admin, origin: ORIGIN, 'content-type': 'application/json' }, body })
    const asked = JSON.stringify({ identity_id: id.toUpperCase(), expires_in: '1h' })
    const received = upstream.received.length
    expect((await post('link', asked)).status).toBe(200)
    expect((await post('code', JSON.stringify({ identity_id: id }))).status).toBe(200)
    expect((await post('link', 'not json')).status).toBe(200)
    // A body streamed without a declared length is passed on unread.
    const streamed = new ReadableStream({ start: (controller) => (controller.enqueue(new TextEncoder().encode(asked)), controller.close()) })
    expect((await post('link', streamed)).status).toBe(200)
    upstream.answer = () => Response.json({ ok: true })
    // (The login store is asked about the admin's identity in between: only the POSTs count here.)
    const sent = upstream.received.slice(received).filter((request) => request.method === 'POST')
    expect(sent[0]).toMatchObject({ path: '/admin/recovery/link', bodyLength: asked.length, bodySha256: createHash('sha256').update(asked).digest('hex') })
    expect(sent.map((request) => request.bodyLength)).toEqual([asked.length, JSON.stringify({ identity_id: id }).length, 'not json'.length, asked.length])
    const events = await stack.service.services.audit.list({ limit: 4, action: 'proxy_write' })
    expect(events.map((event) => [event.target, event.detail?.identity_id ?? null])).toEqual([
      ['/admin/recovery/link', null],
      ['/admin/recovery/link', null],
      ['/admin/recovery/code', id],
      ['/admin/recovery/link', id],
    ])
    const listed = await fetch(`${stack.service.url}/api/security/audit?about=${id}`, { headers: { cookie: stack.cookie.admin } })
    const { events: about } = (await listed.json()) as { events: { target: string }[] }
    expect(about.map((event) => event.target)).toEqual(['/admin/recovery/code', '/admin/recovery/link'])
  })

  test('a 5xx (a gateway in front of the upstream, which may have acted) is audited as an upstream error, not a refusal', async () => {
    for (const status of [500, 502, 504]) {
      upstream.answer = () => new Response('<html>Bad Gateway</html>', { status, headers: { 'content-type': 'text/html' } })
      await fetch(`${stack.service.url}/api/oauth-admin/admin/clients/c1`, { method: 'DELETE', headers: { cookie: stack.cookie.admin, origin: ORIGIN } })
      upstream.answer = () => Response.json({ ok: true })
      const [event] = await stack.service.services.audit.list({ limit: 1, action: 'proxy_write' })
      expect(event!.detail).toMatchObject({ method: 'DELETE', status, outcome: 'upstream_error' })
    }
  })
})

/** A body sent in 1 MiB chunks of unknown length, past PROXY_BODY_LIMIT. */
function oversizedBody(): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(1024 * 1024)
  let sent = 0
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent++ > PROXY_BODY_LIMIT / chunk.byteLength + 2) controller.close()
      else controller.enqueue(chunk)
    },
  })
}

describe('bodies over the limit get our envelope', () => {
  test(`a proxied upload announcing more than ${PROXY_BODY_LIMIT} bytes → 413 envelope with our headers, nothing sent`, async () => {
    const before = upstream.received.length
    const response = await fetch(`${stack.service.url}/api/idp/upload`, { method: 'POST', body: new Uint8Array(PROXY_BODY_LIMIT + 1) })
    expect(response.status).toBe(413)
    expect(await response.json()).toEqual({ error: 'payload_too_large', message: 'The request body is too large.' })
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    expect(response.headers.get('x-request-id')).toMatch(UUID)
    expect(upstream.received.length).toBe(before)
  })

  test('a chunked proxied upload that grows past the limit → 413 envelope', async () => {
    const body = oversizedBody()
    const response = await fetch(`${stack.service.url}/api/idp/upload`, { method: 'POST', body, duplex: 'half' } as RequestInit)
    expect(response.status).toBe(413)
    expect((await response.json()).error).toBe('payload_too_large')
  })

  test('the same through an admin prefix: its audit event, written before it was sent, says it was cut off (not "no outcome recorded")', async () => {
    const body = oversizedBody()
    const response = await fetch(`${stack.service.url}/api/oauth-admin/admin/clients`, { method: 'POST', headers: { cookie: stack.cookie.admin, origin: ORIGIN }, body, duplex: 'half' } as RequestInit)
    expect(response.status).toBe(413)
    const [event] = await stack.service.services.audit.list({ limit: 1, action: 'proxy_write' })
    expect(event!.detail).toEqual({ prefix: 'oauth-admin', method: 'POST', status: null, outcome: 'payload_too_large' })
  })

  test('our own JSON routes: over 256 KiB, announced or chunked → 413 envelope', async () => {
    const big = JSON.stringify({ key: 'k', value: 'x'.repeat(300 * 1024) })
    const announced = await fetch(`${stack.service.url}/api/settings`, { method: 'POST', headers: { cookie: stack.cookie.admin, origin: ORIGIN, 'content-type': 'application/json' }, body: big })
    expect(announced.status).toBe(413)
    const chunked = await fetch(`${stack.service.url}/api/settings`, {
      method: 'POST',
      headers: { cookie: stack.cookie.admin, origin: ORIGIN, 'content-type': 'application/json' },
      body: new Blob([big]).stream(),
      duplex: 'half',
    } as RequestInit)
    expect(chunked.status).toBe(413)
    expect((await chunked.json()).error).toBe('payload_too_large')
  })
})

/** A request line as JSON.stringify writes it: the definition the template is held to. */
const reference = (f: RequestLine, time: string) =>
  `${JSON.stringify({ time, level: 'info', event: 'request', request_id: f.request_id, method: f.method, path: f.path, status: f.status, duration_ms: f.duration_ms, subject: f.subject, error: f.error, upstream_failure: f.upstream_failure, body: f.body, body_bytes: f.body_bytes, error_name: f.error_name, error_code: f.error_code, cut: f.cut })}\n`

/** Request fields of every kind: texts that need escaping, numbers JSON cannot hold, fields left out. */
function randomFields(next: (below: number) => number): RequestLine {
  const texts = ['', 'GET', '/api/idp/small', 'a"b', 'back\\slash', 'new\nline', 'tab\there', '\u0000\u001f\u007f', 'caf\u00e9', '\u2028\u2029', '\ud800 lone', '😀', '%2e%2e/..', '<script>', "it's", '{"json":1}']
  const numbers = [0, -0, 1, 200, 0.5, 12.34, 1e21, 1e-7, Number.NaN, Number.POSITIVE_INFINITY, -1]
  const text = () => texts[next(texts.length)]! + (next(2) ? texts[next(texts.length)]! : '')
  const maybe = <T>(value: () => T): T | undefined => (next(2) === 0 ? undefined : value())
  return {
    request_id: next(3) ? crypto.randomUUID() : text(),
    method: text(),
    path: text(),
    status: numbers[next(numbers.length)]!,
    duration_ms: numbers[next(numbers.length)]!,
    subject: maybe(text),
    error: maybe(text),
    upstream_failure: maybe(text),
    body: maybe(text),
    body_bytes: maybe(() => numbers[next(numbers.length)]!),
    error_name: maybe(text),
    error_code: maybe(text),
    cut: maybe(() => 'shutdown' as const),
  }
}

describe('the bounded log output', () => {
  test('a stalled output keeps at most the limit: request lines are dropped and counted, audit lines kept', async () => {
    const written: string[] = []
    const stalled: (() => void)[] = []
    // An output that takes chunks but confirms none of them until released.
    const sink = createBufferedSink({ limitBytes: 10_000, writer: (chunk, done) => (written.push(Buffer.from(chunk).toString('utf8')), stalled.push(done)) })
    const time = '2026-11-26T12:00:00.000Z'
    const fields = (n: number): RequestLine => ({ request_id: `id-${n}`, method: 'GET', path: `/api/idp/${'x'.repeat(80)}`, status: 200, duration_ms: 1 })
    for (let i = 0; i < 1000; i++) sink.request(fields(i), time)
    sink.write('{"event":"audit","n":"kept"}\n')
    await sink.flush(50)
    // Formatting the pending lines freed room (they were counted at an upper estimate), but the
    // output has taken nothing: more lines are dropped, and no count comes out while it is stalled.
    for (let i = 1000; i < 1100; i++) sink.request(fields(i), time)
    await sink.flush(50)
    expect(written.join('')).not.toContain('log_lines_dropped')
    const pending = written.join('')
    expect(pending.length).toBeLessThanOrEqual(10_000)
    expect(pending).toContain('"n":"kept"')
    const kept = (pending.match(/"event":"request"/g) ?? []).length
    expect(kept).toBeGreaterThan(10)
    for (const done of stalled.splice(0)) done()
    sink.request(fields(1100), time)
    await sink.flush(50)
    for (const done of stalled.splice(0)) done()
    const after = written.join('')
    const report = after.split('\n').find((text) => text.includes('log_lines_dropped'))
    expect(report).toBeDefined()
    expect(after.split('\n').filter((text) => text.includes('log_lines_dropped'))).toHaveLength(1)
    expect(JSON.parse(report!).count).toBe(1100 - kept)
    expect(after.endsWith(reference(fields(1100), time))).toBe(true)
  })
  test('a stalled output keeps the other lines up to twice the limit, then drops and counts them too; audit lines are still kept', async () => {
    const written: string[] = []
    const stalled: (() => void)[] = []
    const sink = createBufferedSink({ limitBytes: 10_000, writer: (chunk, done) => (written.push(Buffer.from(chunk).toString('utf8')), stalled.push(done)) })
    // A line anyone can cause once per request (a refused proxy path), 100 bytes, 2,000 of them: 200 KB.
    const refused = (n: number) => `{"level":"warn","event":"proxy_refused","request_id":"${String(n).padStart(36, '0')}","reason":"x"}`.padEnd(99, ' ') + '\n'
    for (let i = 0; i < 2000; i++) sink.write(refused(i), true)
    sink.write('{"event":"audit","n":"kept"}\n')
    await sink.flush(50)
    const pending = written.join('')
    expect(pending.length).toBeLessThanOrEqual(20_000 + 100)
    expect(pending).toContain('"n":"kept"')
    const kept = (pending.match(/"event":"proxy_refused"/g) ?? []).length
    expect(kept).toBeGreaterThan(100)
    for (const done of stalled.splice(0)) done()
    sink.write(refused(2000), true)
    await sink.flush(50)
    const report = written.join('').split('\n').find((text) => text.includes('log_lines_dropped'))
    expect(JSON.parse(report!).count).toBe(2000 - kept)
  })
})

describe('the bytes the log hands over', () => {
  test('are those of the lines joined and encoded whole, in the order they were logged, for lines of every kind and length', async () => {
    const chunks: Uint8Array[] = []
    const sink = createBufferedSink({ writer: (chunk, done) => (chunks.push(Uint8Array.from(chunk)), done()) })
    const pieces = ['plain', 'caf\u00e9', '\u2028', '😀', '\ud800', '\udfff', '"', '\\', '\u0000', 'x'.repeat(1000)]
    const next = seededRandom(5)
    const lines: string[] = []
    for (let i = 0; i < 3_000; i++) {
      if (next(2) === 0) {
        // A request line: its fields wait, and it is formatted later, in its place among the others.
        const fields = randomFields(next)
        // Now and then a path longer than a chunk could hold at its worst (80 KiB at six bytes a character), plain or not.
        if (next(100) === 0) fields.path = `/api/idp/${'x'.repeat(14_000)}${next(2) ? '' : pieces[next(pieces.length)]!}`
        const time = new Date(1_800_000_000_000 + i).toISOString()
        sink.request(fields, time)
        lines.push(reference(fields, time))
        continue
      }
      // Now and then a line longer than a chunk holds (80 KiB), and lines of every length between.
      const repeat = next(500) === 0 ? 3_000 : next(40)
      let text = ''
      for (let j = 0; j < repeat; j++) text += pieces[next(pieces.length)]!
      sink.write(`${text}\n`)
      lines.push(`${text}\n`)
    }
    await sink.flush(1000)
    expect(chunks.length).toBeGreaterThan(1)
    expect(Buffer.concat(chunks).equals(Buffer.from(lines.join('')))).toBe(true)
  })

  test('request lines alone reach the output on their own within a moment, without a flush', async () => {
    const chunks: string[] = []
    const sink = createBufferedSink({ writer: (chunk, done) => (chunks.push(Buffer.from(chunk).toString('utf8')), done()) })
    const fields: RequestLine = { request_id: 'id-1', method: 'GET', path: '/api/health', status: 200, duration_ms: 0.5 }
    sink.request(fields, '2026-11-26T12:00:00.000Z')
    for (let i = 0; i < 100 && chunks.length === 0; i++) await Bun.sleep(5)
    expect(chunks).toEqual([reference(fields, '2026-11-26T12:00:00.000Z')])
  })
})

describe('running out of file descriptors', () => {
  test('is answered 503 service_unavailable and logged as a local failure, not blamed on the upstream', async () => {
    const script = `${import.meta.dir}/fixtures/descriptor-exhaustion.ts`
    const child = Bun.spawn(['sh', '-c', 'ulimit -n 128; exec bun "$0"', script], { stdout: 'pipe', stderr: 'pipe', env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/root' } })
    const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited])
    expect(code).toBe(0)
    const result = JSON.parse(out) as { status: number; body: string; lines: string[] }
    expect(result.status).toBe(503)
    expect(JSON.parse(result.body)).toEqual({ error: 'service_unavailable', message: 'The service is out of resources for the moment; try again shortly.' })
    const lines = result.lines.map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(lines.find((line) => line.event === 'proxy_failed')).toMatchObject({ failure: 'local_resources', error_code: 'EMFILE' })
    expect(lines.find((line) => line.event === 'request' && line.path === '/api/oauth/.well-known/jwks.json')).toMatchObject({ error: 'service_unavailable', upstream_failure: 'local_resources' })
  })
})

describe('the request line', () => {
  test('is the text JSON.stringify writes, for 5,000 random lines with every kind of character', () => {
    const next = seededRandom(11)
    for (let i = 0; i < 5_000; i++) {
      const fields = randomFields(next)
      const time = new Date(1_800_000_000_000 + next(1_000_000_000)).toISOString()
      expect(requestLine(fields, time)).toBe(reference(fields, time))
      // The room the log makes for a line in its chunk: never less than the line takes.
      expect(Buffer.byteLength(reference(fields, time))).toBeLessThanOrEqual(requestLineBytesAtMost(fields, time))
    }
  })

  test('takes no more room than its bound at the worst: every field there, the longest numbers, every character escaped or three bytes long', () => {
    const longest = -1.2345678901234567e-300
    expect(String(longest)).toHaveLength(24)
    for (const character of ['\u0000', '\ud800', '\u2028', '\u00e9']) {
      const text = character.repeat(7)
      const fields: RequestLine = { request_id: text, method: text, path: text, status: longest, duration_ms: longest, subject: text, error: text, upstream_failure: text, body: text, body_bytes: longest, error_name: text, error_code: text, cut: text as 'shutdown' }
      const time = text
      expect(requestLine(fields, time)).toBe(reference(fields, time))
      expect(Buffer.byteLength(reference(fields, time))).toBeLessThanOrEqual(requestLineBytesAtMost(fields, time))
    }
    // And with every text empty, where the fixed part of the bound is all there is.
    const empty: RequestLine = { request_id: '', method: '', path: '', status: longest, duration_ms: longest, subject: '', error: '', upstream_failure: '', body: '', body_bytes: longest, error_name: '', error_code: '', cut: '' as 'shutdown' }
    expect(Buffer.byteLength(reference(empty, ''))).toBeLessThanOrEqual(requestLineBytesAtMost(empty, ''))
  })
})
