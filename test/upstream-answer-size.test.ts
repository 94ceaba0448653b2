// An identity store or an OAuth provider whose answer does not end (broken, or hostile): the
// service reads at most MAX_ANSWER_BYTES of it and takes it as unreadable, rather than holding all
// of it in memory until the timeout ends the read.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { MAX_ANSWER_BYTES } from '../src/upstream/client.ts'
import { KratosFixture, type FixtureIdentity } from './support/kratos.ts'
import { markSecret, markSensitive } from './support/leaks.ts'
import { flowCookieHeader } from './support/oauth-provider.ts'
import { startService, type TestService } from './support/service.ts'

// Far longer than reading MAX_ANSWER_BYTES takes: an answer read until the timeout ends it is a 504.
const TIMEOUT_MS = 8000
/** What the endless store sends, again and again after its `[`: 64 KiB strings of a JSON array. */
const CHUNK = new TextEncoder().encode(`"${'x'.repeat(64 * 1024 - 3)}",`)
/** What the store sent past the bound can only be what socket buffers held when the read stopped. */
const BUFFERS_AT_MOST = 16 * 1024 * 1024

let endlessStore: ReturnType<typeof Bun.serve>
let kratos: KratosFixture
let admin: FixtureIdentity
/** Reads the identities and sessions of the endless store; its admins live in a healthy one. */
let managed: TestService
/** Its admins live in the endless store. */
let login: TestService
/** Its OAuth provider is the endless store. */
let provider: TestService
/** How many bytes of its answers the endless store has sent, summed. */
let sent = 0

function endless(): Response {
  let opened = false
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = opened ? CHUNK : new TextEncoder().encode('[')
      opened = true
      sent += chunk.byteLength
      controller.enqueue(chunk)
    },
  })
  return new Response(body, { headers: { 'content-type': 'application/json' } })
}

beforeAll(async () => {
  endlessStore = Bun.serve({ hostname: '127.0.0.1', port: 0, idleTimeout: 0, fetch: endless })
  const url = `http://127.0.0.1:${endlessStore.port}`
  kratos = new KratosFixture().start()
  admin = kratos.addIdentity({ email: 'answer-size@example.test', role: 'admin' })
  markSensitive(url, String(endlessStore.port), kratos.url, admin.id, 'answer-size@example.test')
  managed = await startService({ env: { IDP_ADMIN_URL: url, IAM_IDP_ADMIN_URL: kratos.url, PROXY_TIMEOUT_MS: String(TIMEOUT_MS) } })
  login = await startService({ env: { IDP_ADMIN_URL: url, PROXY_TIMEOUT_MS: String(TIMEOUT_MS) } })
  provider = await startService({ env: { OAUTH_ISSUER_URL: url, IDP_ADMIN_URL: kratos.url, PROXY_TIMEOUT_MS: String(TIMEOUT_MS) } })
})
afterAll(async () => {
  await managed?.stop()
  await login?.stop()
  await provider?.stop()
  await kratos?.stop()
  endlessStore?.stop(true)
})

/** The answer to `path` with this session, how long it took, and how much the endless store sent meanwhile. */
async function timed(service: TestService, path: string, role: 'admin' | 'viewer', sub: string) {
  sent = 0
  const started = performance.now()
  const response = await fetch(`${service.url}${path}`, { headers: { cookie: `admin-session=${service.sign({ sub, role, email: 'answer-size@example.test' })}` } })
  const body = (await response.json()) as { error?: string; message?: string }
  return { status: response.status, body, ms: performance.now() - started, sent }
}

describe('an upstream answer without end', () => {
  for (const path of ['/api/identities', '/api/session-locations']) {
    test(`GET ${path}: 502, the answer cannot be read, after at most MAX_ANSWER_BYTES of it, long before the timeout`, async () => {
      const answer = await timed(managed, path, 'admin', admin.id)
      expect(answer.status).toBe(502)
      expect(answer.body).toEqual({ error: 'bad_gateway', message: 'The identity store answered with data that cannot be read.' })
      expect(answer.ms).toBeLessThan(TIMEOUT_MS)
      expect(answer.sent).toBeLessThan(MAX_ANSWER_BYTES + BUFFERS_AT_MOST)
      expect(managed.logLines.some((text) => text.includes('"event":"upstream_body"') && text.includes('"error_name":"AnswerTooLarge"'))).toBe(true)
    }, 30_000)
  }

  test("a viewer's presence check in it: 503 identity_backend_unavailable, long before the timeout", async () => {
    const answer = await timed(login, '/api/dashboard/layout', 'viewer', '5d0c1f4e-8a2b-4c3d-9e4f-0a1b2c3d4e5f')
    expect(answer.status).toBe(503)
    expect(answer.body.error).toBe('identity_backend_unavailable')
    expect(answer.ms).toBeLessThan(TIMEOUT_MS)
    expect(answer.sent).toBeLessThan(MAX_ANSWER_BYTES + BUFFERS_AT_MOST)
  }, 30_000)

  test("the provider's discovery document: the sign-in starts on Hydra's paths, long before the timeout", async () => {
    sent = 0
    const started = performance.now()
    const response = await fetch(`${provider.url}/api/auth/login`, { redirect: 'manual' })
    expect(response.status).toBe(302)
    expect(new URL(response.headers.get('location')!).pathname).toBe('/oauth2/auth')
    expect(performance.now() - started).toBeLessThan(TIMEOUT_MS)
    expect(sent).toBeLessThan(MAX_ANSWER_BYTES + BUFFERS_AT_MOST)
  }, 30_000)

  test("the provider's token answer: the callback fails with 502, long before the timeout", async () => {
    const start = await fetch(`${provider.url}/api/auth/login`, { redirect: 'manual' })
    const flow = new Map(start.headers.getSetCookie().map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1).split(';')[0]!]))
    markSecret(flow.get('oauth_state'), flow.get('oauth_verifier'), flow.get('__Host-oauth_flow'))
    const state = new URL(start.headers.get('location')!).searchParams.get('state')!
    sent = 0
    const started = performance.now()
    const response = await fetch(`${provider.url}/api/auth/callback?code=a-code&state=${state}`, { headers: { cookie: flowCookieHeader(flow) }, redirect: 'manual' })
    expect(response.status).toBe(502)
    expect(performance.now() - started).toBeLessThan(TIMEOUT_MS)
    expect(sent).toBeLessThan(2 * (MAX_ANSWER_BYTES + BUFFERS_AT_MOST))
  }, 30_000)
})
