import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import {
  MAX_SESSION_SECONDS,
  readCookieValues,
  sessionClearCookies,
  sessionLifetime,
  sessionSetCookies,
  signSessionCookie,
  verifySessionCookie,
  type SessionPayload,
} from '../src/session/cookie.ts'
import { rawRequest } from './support/raw-http.ts'
import { randomKey, TestClock } from './support/service.ts'
import { startStack, type Stack } from './support/stack.ts'
import { markSecret, markSensitive } from './support/leaks.ts'

const b64url = (value: string | Buffer) => Buffer.from(value).toString('base64url')

let stack: Stack
let clock: TestClock
beforeAll(async () => {
  clock = new TestClock()
  stack = await startStack({ clock, env: { IDENTITY_RECHECK_SECONDS: '60' } })
})
afterAll(async () => {
  await stack.stop()
})

function payloadFor(overrides: Partial<SessionPayload> = {}): SessionPayload {
  const iat = Math.floor(clock.now() / 1000)
  return { v: 1, sid: 'sid-1', sub: stack.admin.id, email: 'ada.admin@example.test', role: 'admin', iat, exp: iat + 3600, ...overrides }
}

async function getSettings(cookieHeader?: string) {
  const response = await fetch(`${stack.service.url}/api/identities`, { headers: cookieHeader ? { cookie: cookieHeader } : {} })
  return { status: response.status, body: await response.text(), setCookie: response.headers.get('set-cookie'), setCookies: response.headers.getSetCookie() }
}

describe('forged, tampered, truncated, expired and oversized cookies are 401, never 500', () => {
  const forgeries: [string, () => string][] = [
    ['an empty value', () => ''],
    ['no dot', () => b64url(JSON.stringify(payloadFor()))],
    ['many dots', () => `${stack.service.sign({ sub: stack.admin.id, role: 'admin' })}.extra`],
    ['invalid base64', () => '!!!!.@@@@'],
    ['a tampered payload (viewer turned admin)', () => {
      const real = stack.service.sign({ sub: stack.viewer.id, role: 'viewer' })
      const [, signature] = real.split('.')
      return `${b64url(JSON.stringify({ ...payloadFor({ sub: stack.viewer.id }), role: 'admin' }))}.${signature}`
    }],
    ['a truncated signature', () => stack.service.sign({ sub: stack.admin.id, role: 'admin' }).slice(0, -3)],
    ['a flipped signature character', () => {
      const real = stack.service.sign({ sub: stack.admin.id, role: 'admin' })
      return real.slice(0, -2) + (real.at(-2) === 'A' ? 'B' : 'A') + real.slice(-1)
    }],
    ['a signature of another length', () => `${b64url(JSON.stringify(payloadFor()))}.${b64url(Buffer.alloc(64, 1))}`],
    ['a cookie signed with another key', () => signSessionCookie(Buffer.from(randomKey(), 'base64'), payloadFor())],
    ['an alg:none style payload', () => `${b64url(JSON.stringify({ alg: 'none', ...payloadFor() }))}.`],
    ['an expired exp (the browser would still send it)', () => stack.service.sign({ sub: stack.admin.id, role: 'admin', iat: Math.floor(clock.now() / 1000) - 7200, exp: Math.floor(clock.now() / 1000) - 1 })],
    ['a far-future iat', () => stack.service.sign({ sub: stack.admin.id, role: 'admin', iat: Math.floor(clock.now() / 1000) + 86_400, exp: Math.floor(clock.now() / 1000) + 90_000 })],
    ['a lifetime over 8 hours', () => stack.service.sign({ sub: stack.admin.id, role: 'admin', exp: Math.floor(clock.now() / 1000) + MAX_SESSION_SECONDS + 60 })],
    ['an unknown role', () => stack.service.sign({ sub: stack.admin.id, role: 'root' as 'admin' })],
    ['a huge cookie', () => 'a'.repeat(7000) + '.' + 'b'.repeat(43)],
    ['percent-encoded garbage', () => '%00%ff.%2e%2e'],
  ]
  for (const [name, forge] of forgeries) {
    test(name, async () => {
      const result = await getSettings(`admin-session=${forge()}`)
      expect(result.status).toBe(401)
      expect(JSON.parse(result.body).error).toBe('not_authenticated')
    })
  }

  test('a payload with an extra field, correctly signed, is refused', async () => {
    const key = Buffer.from(stack.service.env.SESSION_SIGNING_KEY!, 'base64')
    const part = b64url(JSON.stringify({ ...payloadFor(), admin: true }))
    const signature = createHmac('sha256', key).update(`admin-session.${part}`).digest('base64url')
    markSecret(`${part}.${signature}`)
    expect((await getSettings(`admin-session=${part}.${signature}`)).status).toBe(401)
  })

  test('two admin-session cookies in one request are refused, whatever their order', async () => {
    const good = stack.cookie.admin
    expect((await getSettings(`${good}; admin-session=junk`)).status).toBe(401)
    expect((await getSettings(`admin-session=junk; ${good}`)).status).toBe(401)
    expect((await getSettings(`${good}; ${good}`)).status).toBe(401)
  })

  test('a bad cookie is cleared with the session attributes; a missing one is not touched', async () => {
    const bad = await getSettings('admin-session=junk.junk')
    expect(bad.setCookies).toEqual(sessionClearCookies(true))
    expect(bad.setCookie).toContain('Max-Age=0')
    const none = await getSettings()
    expect(none.status).toBe(401)
    expect(none.setCookie).toBeNull()
  })

  test('a huge Cookie header on a raw socket is an envelope, not a crash', async () => {
    const response = await rawRequest(stack.service.url, 'GET /api/settings HTTP/1.1', { cookie: `admin-session=${'x'.repeat(6000)}; other=1` })
    expect([401, 431]).toContain(response.status)
  })

  test('the genuine cookie passes (control)', async () => {
    const result = await getSettings(stack.cookie.admin)
    expect(result.status).not.toBe(401)
  })
})

describe('expiry comes from the signed exp', () => {
  test('a session stops working when its exp passes, even if the browser keeps it', async () => {
    const cookie = `admin-session=${stack.service.sign({ sub: stack.admin.id, role: 'admin', exp: Math.floor(clock.now() / 1000) + 120 })}`
    expect((await getSettings(cookie)).status).not.toBe(401)
    clock.advance(121)
    expect((await getSettings(cookie)).status).toBe(401)
  })
})

describe('revoked and erased', () => {
  test('a revoked session id stays dead', async () => {
    const value = stack.service.sign({ sub: stack.admin.id, role: 'admin', sid: 'revoke-me' })
    expect((await getSettings(`admin-session=${value}`)).status).not.toBe(401)
    await stack.service.services.revocations.revokeSession('revoke-me', Math.floor(clock.now() / 1000) + 3600)
    expect((await getSettings(`admin-session=${value}`)).status).toBe(401)
  })

  test('an erased identity loses its session within the recheck window; a store outage fails closed', async () => {
    const doomed = stack.kratos.addIdentity({ email: 'doomed@example.test', role: 'admin' })
    markSensitive(doomed.id, 'doomed@example.test')
    const cookie = `admin-session=${stack.service.sign({ sub: doomed.id, role: 'admin' })}`
    expect((await getSettings(cookie)).status).not.toBe(401)
    stack.kratos.identities.delete(doomed.id)
    // Trusted for IDENTITY_RECHECK_SECONDS, then asked again.
    expect((await getSettings(cookie)).status).not.toBe(401)
    clock.advance(61)
    const after = await getSettings(cookie)
    expect(after.status).toBe(401)
    expect(after.setCookie).toContain('Max-Age=0')

    stack.kratos.failWith = 500
    clock.advance(61)
    const down = await getSettings(stack.cookie.admin)
    stack.kratos.failWith = null
    expect(down.status).toBe(503)
    expect(JSON.parse(down.body).error).toBe('identity_backend_unavailable')
    expect(down.setCookie).toBeNull()
  })

  test('a wall clock stepped back (an NTP correction) does not stretch the recheck window: an erased identity still loses its session within it', async () => {
    const doomed = stack.kratos.addIdentity({ email: 'stepped.back@example.test', role: 'admin' })
    markSensitive(doomed.id, 'stepped.back@example.test')
    const now = Math.floor(clock.now() / 1000)
    const cookie = `admin-session=${stack.service.sign({ sub: doomed.id, role: 'admin', iat: now - 7200, exp: now + 7200 })}`
    expect((await getSettings(cookie)).status).toBe(200)
    clock.advance(-3600)
    try {
      stack.kratos.identities.delete(doomed.id)
      clock.advance(61)
      const after = await getSettings(cookie)
      expect(after.status).toBe(401)
      expect(after.setCookie).toContain('Max-Age=0')
    } finally {
      clock.advance(3600)
    }
  })
})

test('an identity deactivated in the login store (Kratos\'s lock-out) loses its session within the recheck window, as an erased one does; active again, the session works again, as Kratos’s own do', async () => {
  const locked = stack.kratos.addIdentity({ email: 'locked.out@example.test', role: 'admin' })
  markSensitive(locked.id, 'locked.out@example.test')
  const cookie = `admin-session=${stack.service.sign({ sub: locked.id, role: 'admin' })}`
  expect((await getSettings(cookie)).status).toBe(200)
  stack.kratos.identities.get(locked.id)!.state = 'inactive'
  clock.advance(61)
  const after = await getSettings(cookie)
  expect(after.status).toBe(401)
  expect(after.setCookie).toContain('Max-Age=0')
  // A lock-out, not a logout (Kratos treats its own sessions of a deactivated identity so): a
  // session that was not revoked is accepted again once the identity is active again.
  stack.kratos.identities.get(locked.id)!.state = 'active'
  clock.advance(61)
  expect((await getSettings(cookie)).status).toBe(200)
})

test('a 404 page of something in front of Kratos (not Kratos\'s own JSON error) is the store unavailable, not the identity erased: 503, the cookie kept, the session working once Kratos answers again', async () => {
  const someone = stack.kratos.addIdentity({ email: 'fronted@example.test', role: 'admin' })
  markSensitive(someone.id, 'fronted@example.test')
  const cookie = `admin-session=${stack.service.sign({ sub: someone.id, role: 'admin' })}`
  expect((await getSettings(cookie)).status).toBe(200)
  // An ingress's HTML page, and gateways' own JSON 404s (Spring Cloud Gateway's, a bare one): none is Kratos's `{"error":{"code":404,…}}`.
  for (const front of [404, { status: 404, json: { timestamp: '2026-11-28T09:00:00Z', status: 404, error: 'Not Found', path: '/admin/identities' } }, { status: 404, json: { error: 'not found' } }]) {
    stack.kratos.frontPages.set(`GET /admin/identities/${someone.id}`, front)
    try {
      clock.advance(61)
      const refused = await getSettings(cookie)
      expect(refused.status).toBe(503)
      expect(JSON.parse(refused.body).error).toBe('identity_backend_unavailable')
      expect(refused.setCookie).toBeNull()
    } finally {
      stack.kratos.frontPages.clear()
    }
  }
  expect((await getSettings(cookie)).status).toBe(200)
})

test('concurrent requests of one session share one identity-store lookup', async () => {
  const busy = stack.kratos.addIdentity({ email: 'busy@example.test', role: 'admin' })
  markSensitive(busy.id, 'busy@example.test')
  stack.kratos.delayMs = 100
  const cookie = `admin-session=${stack.service.sign({ sub: busy.id, role: 'admin' })}`
  const statuses = await Promise.all(Array.from({ length: 40 }, () => getSettings(cookie).then((r) => r.status)))
  stack.kratos.delayMs = 0
  expect(statuses.every((status) => status === 200)).toBe(true)
  expect(stack.kratos.callsTo(`/admin/identities/${busy.id}`)).toHaveLength(1)
})

// The check answers at once for an identity confirmed a moment ago and waits for the identity store
// otherwise: both ways give the same answer, on the gated routes and on GET /api/auth/session.
test('a session is answered alike while its identity is looked up and once it was confirmed', async () => {
  const fresh = stack.kratos.addIdentity({ email: 'fresh@example.test', role: 'admin' })
  markSensitive(fresh.id, 'fresh@example.test')
  stack.kratos.delayMs = 50
  const cookie = `admin-session=${stack.service.sign({ sub: fresh.id, email: 'fresh@example.test', role: 'admin' })}`
  const ask = async () => {
    const response = await fetch(`${stack.service.url}/api/auth/session`, { headers: { cookie } })
    return { status: response.status, body: await response.json(), id: response.headers.get('x-request-id') }
  }
  const looked = await ask()
  stack.kratos.delayMs = 0
  const confirmed = await ask()
  expect(stack.kratos.callsTo(`/admin/identities/${fresh.id}`)).toHaveLength(1)
  for (const answer of [looked, confirmed]) {
    expect(answer.status).toBe(200)
    expect(answer.body).toEqual({ user: { identityId: fresh.id, email: 'fresh@example.test', role: 'admin' } })
    expect(answer.id).toMatch(/^[0-9a-f-]{36}$/)
  }
  expect((await getSettings(cookie)).status).toBe(200)

  // An erased identity, asked about again after the window: the waiting path refuses and clears.
  stack.kratos.identities.delete(fresh.id)
  clock.advance(61)
  const gone = await fetch(`${stack.service.url}/api/auth/session`, { headers: { cookie } })
  expect(gone.status).toBe(401)
  expect(gone.headers.get('set-cookie')).toContain('Max-Age=0')
})

describe('signing and verifying', () => {
  const key = Buffer.from(randomKey(), 'base64')
  const now = 1_800_000_000
  const payload: SessionPayload = { v: 1, sid: 's', sub: 'u', email: 'e', role: 'viewer', iat: now, exp: now + 60 }

  test('the format is base64url(payload).base64url(HMAC(key, "admin-session." + payload))', () => {
    const value = signSessionCookie(key, payload)
    const [part, signature] = value.split('.')
    expect(JSON.parse(Buffer.from(part!, 'base64url').toString())).toEqual(payload)
    expect(signature).toBe(createHmac('sha256', key).update(`admin-session.${part}`).digest('base64url'))
    expect(verifySessionCookie(key, value, now)).toEqual({ ok: true, session: payload })
    expect(verifySessionCookie(key, value, now + 60)).toEqual({ ok: false, reason: 'expired' })
  })

  test('max age is min(expires_in, 28800), 3600 without expires_in', () => {
    expect(sessionLifetime(3599)).toBe(3599)
    expect(sessionLifetime(10 ** 9)).toBe(28_800)
    expect(sessionLifetime(undefined)).toBe(3600)
    expect(sessionLifetime(0)).toBe(3600)
  })

  test('attributes: HttpOnly, SameSite=Strict, Path=/, Secure unless development; where Secure, the same session as __Host-admin-session too', () => {
    expect(sessionSetCookies(true, 'v', 100)).toEqual([
      'admin-session=v; Path=/; Max-Age=100; HttpOnly; Secure; SameSite=Strict',
      '__Host-admin-session=v; Path=/; Max-Age=100; HttpOnly; Secure; SameSite=Strict',
    ])
    expect(sessionSetCookies(false, 'v', 100)).toEqual(['admin-session=v; Path=/; Max-Age=100; HttpOnly; SameSite=Strict'])
    expect(sessionClearCookies(true)).toEqual([
      'admin-session=; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=Strict',
      '__Host-admin-session=; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=Strict',
    ])
  })

  test('an admin-session planted by another host of the site (Domain=the site) beside a browser\'s own two cookies is not read: neither its attacker\'s session nor a lock-out', async () => {
    const own = stack.cookie.admin.slice('admin-session='.length)
    const hostOwn = `__Host-admin-session=${own}`
    const attackers = stack.cookie.viewer
    for (const planted of [attackers, 'admin-session=junk.junk']) {
      // Sent first (a longer Path), then the browser's own two.
      const response = await fetch(`${stack.service.url}/api/auth/session`, { headers: { cookie: `${planted}; admin-session=${own}; ${hostOwn}` } })
      expect(response.status).toBe(200)
      expect(((await response.json()) as { user: { identityId: string } }).user.identityId).toBe(stack.admin.id)
      expect(response.headers.getSetCookie()).toEqual([])
    }
    // Two of the cookie no other host can set: refused, as two admin-session are.
    expect((await getSettings(`${hostOwn}; ${hostOwn}`)).status).toBe(401)
    // A client that sends admin-session only (curl, as the spec shows) is read as before.
    expect((await fetch(`${stack.service.url}/api/auth/session`, { headers: { cookie: stack.cookie.admin } })).status).toBe(200)
  })
})

describe('reading the cookie header', () => {
  // The general rule, written out once more: every `;`-separated part, split at its first `=`, both
  // sides without the spaces and tabs around them (only those: U+00A0 is part of a name).
  const ows = (text: string) => text.replace(/^[ \t]+|[ \t]+$/g, '')
  const reference = (header: string, name: string) =>
    header.split(';').flatMap((part) => {
      const eq = part.indexOf('=')
      return eq >= 0 && ows(part.slice(0, eq)) === name ? [ows(part.slice(eq + 1))] : []
    })
  const pieces = ['admin-session', 'admin-session2', 'admin-sessio', 'other', '=', ';', ' ', '\t', 'x', 'a=b', '\u00a0', '"v"', '%3B']

  test('one cookie alone and any mixture of names, separators and spaces give what the general rule gives', () => {
    const header = () => Array.from({ length: 1 + Math.floor(Math.random() * 6) }, () => pieces[Math.floor(Math.random() * pieces.length)]).join('')
    for (let i = 0; i < 5000; i++) {
      const value = header()
      expect(readCookieValues(value, 'admin-session')).toEqual(reference(value, 'admin-session'))
    }
    expect(readCookieValues('admin-session=abc', 'admin-session')).toEqual(['abc'])
    expect(readCookieValues('admin-session= abc ', 'admin-session')).toEqual(['abc'])
    expect(readCookieValues('admin-sessionx=abc', 'admin-session')).toEqual([])
    expect(readCookieValues('admin-session=a; admin-session=b', 'admin-session')).toEqual(['a', 'b'])
    // A name a browser keeps apart from ours (another host of the site may set it), never read as ours.
    expect(readCookieValues('\u00a0__Host-admin-session=x; \u2000admin-session=y; \ufeffadmin-session=z', '__Host-admin-session')).toEqual([])
    expect(readCookieValues('\u00a0admin-session=x', 'admin-session')).toEqual([])
  })

  test('a __Host- cookie name with U+00A0 before it (which another host may set) is not ours: it neither names the session nor locks anyone out', async () => {
    const own = stack.cookie.admin.slice('admin-session='.length)
    const viewers = stack.cookie.viewer.slice('admin-session='.length)
    // Sent as bytes: the U+00A0 is one 0xA0 byte, as Bun reads a header (Latin-1).
    const swap = await rawRequest(stack.service.url, 'GET /api/auth/session HTTP/1.1', { Cookie: `a=1; \xa0__Host-admin-session=${viewers}; admin-session=${own}` }, '', 'latin1')
    expect([swap.status, (JSON.parse(swap.body) as { user: { identityId: string } }).user.identityId]).toEqual([200, stack.admin.id])
    const lockout = await rawRequest(stack.service.url, 'GET /api/auth/session HTTP/1.1', { Cookie: `__Host-admin-session=${own}; admin-session=${own}; \xa0__Host-admin-session=junk.junk` }, '', 'latin1')
    expect(lockout.status).toBe(200)
  })
})
