// An upstream slower than Bun's own idle timeout for a connection (10 s unless told): with
// PROXY_TIMEOUT_MS above that, the service keeps the client's connection for the wait, so the
// answer reaches the client instead of a connection Bun has closed meanwhile.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { idleSecondsFor, MOST_IDLE_SECONDS } from '../src/server.ts'
import { loadConfig } from '../src/config.ts'
import { baseEnvironment, startService, type TestService } from './support/service.ts'

// Past Bun's 10 s and the coarse tick it checks idle connections on.
const WAIT_MS = 14_000
let upstream: ReturnType<typeof Bun.serve>
let service: TestService

beforeAll(async () => {
  upstream = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    // The upstream itself keeps the connection for its slow answer.
    idleTimeout: 60,
    async fetch() {
      await Bun.sleep(WAIT_MS)
      return Response.json({ late: true })
    },
  })
  service = await startService({ env: { IDP_PUBLIC_URL: `http://127.0.0.1:${upstream.port}`, PROXY_TIMEOUT_MS: '20000' } })
})
afterAll(async () => {
  await service?.stop()
  upstream?.stop(true)
})

test('an answer 14 s late, within PROXY_TIMEOUT_MS of 20 s, reaches the client whole, and the log line says so', async () => {
  const started = performance.now()
  const response = await fetch(`${service.url}/api/idp/sessions/whoami`)
  expect(response.status).toBe(200)
  expect(await response.json()).toEqual({ late: true })
  expect(performance.now() - started).toBeGreaterThanOrEqual(WAIT_MS)
  const line = service.logLines.map((text) => JSON.parse(text) as Record<string, unknown>).find((entry) => entry.path === '/api/idp/sessions/whoami')
  expect(line).toMatchObject({ status: 200, body: 'complete' })
}, 30_000)

test('the idle timeout outlasts the upstream wait, within what Bun takes; PROXY_TIMEOUT_MS beyond that is refused naming it', () => {
  expect(idleSecondsFor(10_000)).toBe(15)
  expect(idleSecondsFor(20_000)).toBe(25)
  expect(idleSecondsFor(250_000)).toBe(MOST_IDLE_SECONDS)
  expect(loadConfig(baseEnvironment({ PROXY_TIMEOUT_MS: '250000' })).ok).toBe(true)
  const refused = loadConfig(baseEnvironment({ PROXY_TIMEOUT_MS: '250001' }))
  expect(refused.ok).toBe(false)
  if (!refused.ok) expect(refused.errors.join(' ')).toContain('PROXY_TIMEOUT_MS')
})
