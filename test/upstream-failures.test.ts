// The upstream failure matrix: an upstream that is slow, refuses connections, resets them, answers
// something that is not JSON, or answers 4xx with Ory's error body — through every caller of the
// one upstream client — gives the contract's codes, never the upstream's text.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { KratosFixture, type FixtureIdentity } from './support/kratos.ts'
import { markSecret, markSensitive } from './support/leaks.ts'
import { freePort } from './support/ports.ts'
import { flowCookieHeader, signInAtProvider, startOAuthProvider, type RunningProvider } from './support/oauth-provider.ts'
import { startService, type TestService } from './support/service.ts'
import { RawListener } from './support/upstream.ts'

const BASE_URL = 'http://admin.test'
// The healthy upstreams (the admins' store, the provider) answer well within it on a loaded machine.
const TIMEOUT_MS = 1000
const ORY_403 = { error: { code: 403, status: 'Forbidden', reason: 'upstream-secret-reason', message: 'The requested action was forbidden' } }

type Mode = 'timeout' | 'refused' | 'reset' | 'non-json' | '4xx'
const MODES: Mode[] = ['timeout', 'refused', 'reset', 'non-json', '4xx']

/** An upstream that misbehaves in one way, on every path. */
async function badUpstream(mode: Mode): Promise<{ url: string; stop(): Promise<void> }> {
  if (mode === 'refused') {
    return { url: `http://127.0.0.1:${freePort()}`, stop: async () => {} }
  }
  if (mode === 'reset') {
    const raw = await RawListener.start('127.0.0.1', (socket) => socket.once('data', () => socket.resetAndDestroy()))
    return { url: `http://127.0.0.1:${raw.port}`, stop: () => raw.stop() }
  }
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      if (mode === 'timeout') await Bun.sleep(TIMEOUT_MS * 4)
      if (mode === 'non-json') return new Response('<html>upstream-secret-page</html>', { headers: { 'content-type': 'text/html' } })
      // Hydra's token endpoint refuses in OAuth's shape; Kratos and Hydra's admin APIs in Ory's.
      if (new URL(request.url).pathname === '/oauth2/token') return Response.json({ error: 'invalid_grant', error_description: 'upstream-secret-reason' }, { status: 400 })
      return Response.json(ORY_403, { status: 403 })
    },
  })
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) }
}

let kratos: KratosFixture
let provider: RunningProvider
let admin: FixtureIdentity
const setups = new Map<Mode, { service: TestService; upstream: { url: string; stop(): Promise<void> }; cookie: string }>()

beforeAll(async () => {
  kratos = new KratosFixture().start()
  admin = kratos.addIdentity({ email: 'matrix@example.test', role: 'admin' })
  provider = await startOAuthProvider({
    clientId: 'admin-dashboard',
    redirectUris: [`${BASE_URL}/api/auth/callback`],
    findSubject: (login) => (login === 'matrix@example.test' ? { sub: admin.id, email: login } : null),
  })
  markSensitive(admin.id, 'matrix@example.test', kratos.url, provider.url, 'upstream-secret-reason', 'upstream-secret-page')
  for (const mode of MODES) {
    const upstream = await badUpstream(mode)
    markSensitive(upstream.url, String(new URL(upstream.url).port))
    const service = await startService({
      env: {
        BASE_URL,
        OAUTH_ISSUER_URL: provider.url,
        OAUTH_TOKEN_URL: `${upstream.url}/oauth2/token`,
        // Admins live in a healthy store; the managed store and the Hydra admin API are the bad upstream.
        IAM_IDP_ADMIN_URL: kratos.url,
        IDP_ADMIN_URL: upstream.url,
        OAUTH_ADMIN_URL: upstream.url,
        PROXY_TIMEOUT_MS: String(TIMEOUT_MS),
      },
    })
    setups.set(mode, { service, upstream, cookie: `admin-session=${service.sign({ sub: admin.id, role: 'admin', email: 'matrix@example.test' })}` })
  }
})
afterAll(async () => {
  for (const { service, upstream } of setups.values()) {
    await service.stop()
    await upstream.stop()
  }
  await provider.stop()
  await kratos.stop()
})

/** What each caller answers, per mode: [status, error code] (null: relayed as the upstream said). */
const EXPECTED: Record<string, Record<Mode, [number, string | null]>> = {
  'GET /api/identities': { timeout: [504, 'gateway_timeout'], refused: [502, 'bad_gateway'], reset: [502, 'bad_gateway'], 'non-json': [502, 'bad_gateway'], '4xx': [502, 'bad_gateway'] },
  'GET /api/session-locations': { timeout: [504, 'gateway_timeout'], refused: [502, 'bad_gateway'], reset: [502, 'bad_gateway'], 'non-json': [502, 'bad_gateway'], '4xx': [502, 'bad_gateway'] },
  'GET /api/idp-admin/admin/identities': { timeout: [504, 'gateway_timeout'], refused: [502, 'bad_gateway'], reset: [502, 'bad_gateway'], 'non-json': [200, null], '4xx': [403, null] },
  'POST /api/oauth-admin/admin/clients': { timeout: [504, 'gateway_timeout'], refused: [502, 'bad_gateway'], reset: [502, 'bad_gateway'], 'non-json': [200, null], '4xx': [403, null] },
  'the sign-in callback (token endpoint)': { timeout: [504, 'gateway_timeout'], refused: [502, 'bad_gateway'], reset: [502, 'bad_gateway'], 'non-json': [502, 'bad_gateway'], '4xx': [401, 'login_failed'] },
}

async function call(caller: string, mode: Mode): Promise<Response> {
  const { service, cookie } = setups.get(mode)!
  if (caller.startsWith('the sign-in')) {
    const start = await fetch(`${service.url}/api/auth/login`, { redirect: 'manual' })
    const flow = new Map(start.headers.getSetCookie().map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1).split(';')[0]!]))
    markSecret(flow.get('oauth_state'), flow.get('oauth_verifier'), flow.get('__Host-oauth_flow'))
    const back = await signInAtProvider(start.headers.get('location')!, 'matrix@example.test')
    markSecret(back.searchParams.get('code'))
    return fetch(`${service.url}/api/auth/callback${back.search}`, {
      headers: { cookie: flowCookieHeader(flow) },
      redirect: 'manual',
    })
  }
  const [method, path] = caller.split(' ') as [string, string]
  return fetch(`${service.url}${path}`, {
    method,
    headers: { cookie, origin: BASE_URL, 'content-type': 'application/json' },
    body: method === 'POST' ? '{"client_name":"x"}' : undefined,
  })
}

describe('through every caller', () => {
  for (const [caller, byMode] of Object.entries(EXPECTED)) {
    for (const mode of MODES) {
      const [status, code] = byMode[mode]
      test(`${caller}, upstream ${mode} → ${status}${code ? ` ${code}` : ' (relayed)'}`, async () => {
        const response = await call(caller, mode)
        expect(response.status).toBe(status)
        const text = await response.text()
        if (code) expect(JSON.parse(text).error).toBe(code)
        else expect(response.headers.get('cache-control')).toBe('no-store')
      })
    }
  }

  for (const caller of ['GET /api/identities', 'GET /api/session-locations']) {
    test(`${caller}: the message says what happened at the identity store (unreadable, refused, not reached, late)`, async () => {
      expect(await (await call(caller, 'non-json')).json()).toEqual({ error: 'bad_gateway', message: 'The identity store answered with data that cannot be read.' })
      // The stand-in refuses with 403, as Ory Network refuses a key it does not take.
      expect(await (await call(caller, '4xx')).json()).toEqual({ error: 'bad_gateway', message: "The identity store did not accept this service's credentials: check its API key under Settings." })
      expect(await (await call(caller, 'refused')).json()).toEqual({ error: 'bad_gateway', message: 'The identity store cannot be reached from this service.' })
      expect(await (await call(caller, 'timeout')).json()).toEqual({ error: 'gateway_timeout', message: 'The identity store did not answer in time.' })
    })
  }

  for (const mode of MODES) {
    test(`services health with the upstream ${mode}: 200, the Kratos and Hydra admin APIs down, nothing of theirs shown`, async () => {
      const { service, cookie } = setups.get(mode)!
      const response = await fetch(`${service.url}/api/services/health`, { headers: { cookie } })
      expect(response.status).toBe(200)
      const { services } = (await response.json()) as { services: { name: string; healthy: boolean; version: string | null }[] }
      for (const name of ['idp-admin', 'oauth-admin']) expect(services.find((s) => s.name === name)).toMatchObject({ healthy: false, version: null })
      expect(services.find((s) => s.name === 'iam-idp-admin')).toMatchObject({ healthy: true })
    })
  }
})
