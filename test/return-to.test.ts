// Deep links survive sign-in, and nothing else does: `return_to` lands only on a plain path under
// /dashboard. The requests are written raw on a socket, so every spelling reaches the service as typed.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { KratosFixture } from './support/kratos.ts'
import { signInAtProvider, startOAuthProvider, type RunningProvider } from './support/oauth-provider.ts'
import { startService, type TestService } from './support/service.ts'
import { markSecret, markSensitive } from './support/leaks.ts'
import { rawRequest } from './support/raw-http.ts'
import { safeReturnTo } from '../src/auth/return-to.ts'

const BASE_URL = 'http://admin.test'
let kratos: KratosFixture
let provider: RunningProvider
let service: TestService

beforeAll(async () => {
  kratos = new KratosFixture().start()
  kratos.addIdentity({ email: 'ada@example.test', role: 'admin' })
  provider = await startOAuthProvider({
    clientId: 'admin-dashboard',
    redirectUris: [`${BASE_URL}/api/auth/callback`],
    findSubject: (login) => {
      const identity = [...kratos.identities.values()].find((i) => i.traits.email === login)
      return identity ? { sub: identity.id, email: login } : null
    },
  })
  markSensitive(kratos.url, provider.url, new URL(provider.url).port)
  service = await startService({ env: { BASE_URL, OAUTH_ISSUER_URL: provider.url, OAUTH_CLIENT_ID: 'admin-dashboard', IDP_ADMIN_URL: kratos.url } })
})
afterAll(async () => {
  await service.stop()
  await provider.stop()
  await kratos.stop()
})

const cookiePairs = (setCookie: string[]) => new Map(setCookie.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1).split(';')[0]!]))

/** Starts a login with `return_to` exactly as written in the request line, signs in, and returns where the callback lands. */
async function landingAfterLogin(returnToAsWritten: string): Promise<string> {
  const start = await rawRequest(service.url, `GET /api/auth/login?return_to=${returnToAsWritten} HTTP/1.1`)
  expect(start.status).toBe(302)
  // The raw client keeps one header per name; ask again with fetch for all the cookies of the same request.
  const started = await fetch(`${service.url}/api/auth/login?return_to=${returnToAsWritten}`, { redirect: 'manual' })
  const flow = cookiePairs(started.headers.getSetCookie())
  markSecret(flow.get('oauth_state'), flow.get('oauth_verifier'))
  // The state sent to the provider is random: the deep link is never in it.
  const authorize = new URL(started.headers.get('location')!)
  expect(authorize.searchParams.get('state')).toBe(flow.get('oauth_state')!)
  expect(authorize.searchParams.get('state')).not.toContain('dashboard')
  const back = await signInAtProvider(authorize.href, 'ada@example.test')
  markSecret(back.searchParams.get('code'))
  const cookie = [...flow].map(([name, value]) => `${name}=${value}`).join('; ')
  const done = await rawRequest(service.url, `GET /api/auth/callback${back.search} HTTP/1.1`, { cookie })
  expect(done.status).toBe(302)
  return done.headers.location!
}

describe('an operator who signs in from a deep link', () => {
  test('lands on the identity page they asked for, query included', async () => {
    expect(await landingAfterLogin('%2Fdashboard%2Fidentities%3Fpage_size%3D50')).toBe('/dashboard/identities?page_size=50')
  })

  test('the deep link travels in its own HttpOnly flow cookie on /api/auth', async () => {
    const started = await fetch(`${service.url}/api/auth/login?return_to=/dashboard/audit`, { redirect: 'manual' })
    const line = started.headers.getSetCookie().find((l) => l.startsWith('oauth_return_to='))!
    expect(line).toContain('HttpOnly')
    expect(line).toContain('Path=/api/auth')
    expect(line).toContain('Max-Age=600')
    expect(decodeURIComponent(line.slice('oauth_return_to='.length).split(';')[0]!)).toBe('/dashboard/audit')
  })

  test('without return_to lands on /dashboard', async () => {
    expect(await landingAfterLogin('')).toBe('/dashboard')
  })
})

describe('open redirects land on /dashboard', () => {
  const hostile = [
    '//evil.example',
    '%2F%2Fevil.example',
    '/\\evil.example',
    '%2F%5Cevil.example',
    'https:evil.example',
    'https://evil.example/dashboard',
    '/dashboard/../api/settings',
    '%2Fdashboard%2F..%2Fapi',
    '/dashboard/%2e%2e/api',
    '/dashboard%2f..%2fapi',
    '/dashboard/%2fevil',
    '/dashboard/%5cevil',
    '/dashboard//evil.example',
    '/dashboard/%09/evil',
    '/dashboard/%20',
    '/dashboard%0d%0aSet-Cookie:x=1',
    '/dashboard@evil.example',
    '/dashboardevil',
    '/api/settings',
    'javascript:alert(1)',
    '/dashboard/%252e%252e/api',
    '/dashboard/.',
  ]
  for (const value of hostile) {
    test(`return_to=${value}`, async () => {
      expect(await landingAfterLogin(value)).toBe('/dashboard')
    })
  }

  test('the rule itself, for spellings a request line cannot carry', () => {
    for (const value of ['/dashboard/\\evil', '/dashboard#x', '/dashboard/ x', '/dashboard/\tx', '/Dashboard', ' /dashboard', '/dashboard/%zz', 'x'.repeat(2000)]) {
      expect(safeReturnTo(value)).toBeNull()
    }
    for (const value of ['/dashboard', '/dashboard/identities/8f4e', '/dashboard/identities?page_token=abc%2Fdef&page_size=25', '/dashboard/audit?action=login']) {
      expect(safeReturnTo(value)).toBe(value)
    }
  })
})
