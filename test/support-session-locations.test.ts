// GET /api/session-locations: active sessions of the managed store, paged, windowed, located,
// grouped; upstream failures enveloped.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startStack, type Stack } from './support/stack.ts'
import { startService } from './support/service.ts'
import { markSensitive } from './support/leaks.ts'
import { MAX_PAGES, PAGE_SIZE } from '../src/support/session-locations.ts'

let stack: Stack
beforeAll(async () => {
  stack = await startStack({ env: { PROXY_TIMEOUT_MS: '300' } })
  const someone = stack.kratos.addIdentity({ email: 'user@example.test', role: 'viewer' }).id
  markSensitive(someone)
  // 3 in the Netherlands (one of them with two devices there), 2 in Japan, 1 in Brazil, within a week.
  stack.kratos.addSession(someone, { ip_address: '193.0.6.139' }, 1.5)
  stack.kratos.addSession(someone, { ip_address: '2001:67c:2e8::1' }, 2)
  const twoDevices = stack.kratos.addSession(someone, { ip_address: '91.198.174.192' }, 3)
  twoDevices.devices.push({ id: 'd2', ip_address: '193.0.6.140', user_agent: 'test', location: '' })
  stack.kratos.addSession(someone, { ip_address: '133.242.0.1' }, 0)
  stack.kratos.addSession(someone, { ip_address: '2001:200::1' }, 6)
  stack.kratos.addSession(someone, { ip_address: '200.160.0.1' }, 5)
  // Older than a week: Switzerland.
  stack.kratos.addSession(someone, { ip_address: '129.132.0.1' }, 20)
  // Not placeable: private, invalid, none.
  stack.kratos.addSession(someone, { ip_address: '10.1.2.3' }, 1)
  stack.kratos.addSession(someone, { ip_address: 'not-an-ip' }, 1)
  const noDevice = stack.kratos.addSession(someone, { ip_address: '193.0.6.139' }, 1)
  noDevice.devices = []
  // Inactive sessions are not asked for.
  stack.kratos.addSession(someone, { ip_address: '196.216.2.1' }, 1).active = false
})
afterAll(async () => {
  await stack.stop()
})

async function locations(query = '', cookie: string | null = stack.cookie.viewer, base = stack.service.url) {
  const response = await fetch(`${base}/api/session-locations${query}`, { headers: cookie ? { cookie } : {} })
  return { status: response.status, body: (await response.json()) as Record<string, any> }
}

describe('happy path', () => {
  test('a viewer gets grouped points, most sessions first, within 7 days', async () => {
    const { status, body } = await locations('?days=7')
    expect(status).toBe(200)
    expect(body.truncated).toBe(false)
    expect(body.points).toEqual([
      { lat: 52.5, lng: 5.75, label: 'Netherlands', count: 3 },
      { lat: 36, lng: 138, label: 'Japan', count: 2 },
      { lat: -10, lng: -55, label: 'Brazil', count: 1 },
    ])
  })

  test('the default window is 30 days and takes the older session in', async () => {
    const { body } = await locations('', stack.cookie.admin)
    expect(body.points.map((p: { label: string }) => p.label)).toEqual(['Netherlands', 'Japan', 'Brazil', 'Switzerland'])
  })

  test('one day keeps only the newest sessions', async () => {
    const { body } = await locations('?days=1')
    expect(body.points).toEqual([{ lat: 36, lng: 138, label: 'Japan', count: 1 }])
  })

  test('the store is asked for active sessions with devices, page by page', async () => {
    stack.kratos.calls.length = 0
    await locations('?days=365')
    const calls = stack.kratos.callsTo('/admin/sessions')
    expect(calls.length).toBe(1)
    expect(calls[0]!.query.get('active')).toBe('true')
    expect(calls[0]!.query.get('expand')).toBe('devices')
    expect(calls[0]!.query.get('page_size')).toBe(String(PAGE_SIZE))
  })
})

describe('paging', () => {
  test('follows the Link header to the last page, and stops at the page bound with the newest sessions', async () => {
    const big = await startStack({ env: { PROXY_TIMEOUT_MS: '2000' } })
    try {
      const owner = big.kratos.addIdentity({ email: 'many@example.test', role: 'viewer' }).id
      markSensitive(owner)
      for (let i = 0; i < PAGE_SIZE * 2 + 5; i++) big.kratos.addSession(owner, { ip_address: '133.242.0.1' }, 0)
      const walked = await locations('', big.cookie.viewer, big.service.url)
      expect(walked.body).toEqual({ points: [{ lat: 36, lng: 138, label: 'Japan', count: PAGE_SIZE * 2 + 5 }], truncated: false })
      const pages = big.kratos.callsTo('/admin/sessions')
      expect(pages.length).toBe(3)
      expect(pages[0]!.query.get('page_token')).toBeNull()
      // Each next page is asked with the token of the rel="next" link Kratos answered, as it came.
      for (const [i, asked] of pages.slice(1).entries()) {
        const next = /<([^>]*)>; rel="next"/.exec(pages[i]!.link ?? '')?.[1]
        expect(next).toBeDefined()
        expect(asked.query.get('page_token')).toBe(new URL(next!, 'http://kratos.invalid').searchParams.get('page_token')!)
      }
      expect(pages[2]!.link).not.toContain('rel="next"')

      for (let i = PAGE_SIZE * 2 + 5; i < PAGE_SIZE * MAX_PAGES + 1; i++) big.kratos.addSession(owner, { ip_address: '133.242.0.1' }, 0)
      // Older than all of those, within the window: Kratos lists them last, so the bound leaves them out.
      for (let i = 0; i < 3; i++) big.kratos.addSession(owner, { ip_address: '200.160.0.1' }, 2)
      big.kratos.calls.length = 0
      const bounded = await locations('', big.cookie.viewer, big.service.url)
      expect(bounded.body).toEqual({ points: [{ lat: 36, lng: 138, label: 'Japan', count: PAGE_SIZE * MAX_PAGES }], truncated: true })
      expect(big.kratos.callsTo('/admin/sessions').length).toBe(MAX_PAGES)
    } finally {
      await big.stop()
    }
  })
})

describe('a slow store', () => {
  /**
   * A stack whose store holds `pages` full pages of sessions in Japan; the viewer's identity already
   * confirmed (a map read at full speed), then every store call taking `delayMs`.
   */
  async function slowStack(timeoutMs: number, pages: number, delayMs: number) {
    const slow = await startStack({ env: { PROXY_TIMEOUT_MS: String(timeoutMs) } })
    const owner = slow.kratos.addIdentity({ email: 'slow@example.test', role: 'viewer' }).id
    markSensitive(owner)
    for (let i = 0; i < PAGE_SIZE * pages; i++) slow.kratos.addSession(owner, { ip_address: '133.242.0.1' }, 0)
    expect((await locations('', slow.cookie.viewer, slow.service.url)).status).toBe(200)
    slow.kratos.calls.length = 0
    slow.kratos.delayMs = delayMs
    return slow
  }

  test('the walk takes at most PROXY_TIMEOUT_MS: a page still under way then is given up, and the pages read are answered, truncated', async () => {
    // Every page takes 0.4 s: the third would end at 1.2 s.
    const slow = await slowStack(1000, 3, 400)
    try {
      const cut = await locations('', slow.cookie.viewer, slow.service.url)
      expect(cut).toEqual({ status: 200, body: { points: [{ lat: 36, lng: 138, label: 'Japan', count: PAGE_SIZE * 2 }], truncated: true } })
      expect(slow.kratos.callsTo('/admin/sessions')).toHaveLength(3)
      expect(slow.service.logLines.some((line) => line.includes('"session_locations_cut"'))).toBe(true)
      // Given up by us, not failed by the store: no upstream failure is logged for it.
      expect(slow.service.logLines.some((line) => line.includes('"upstream_failed"'))).toBe(false)
    } finally {
      await slow.stop()
    }
  })

  test('a caller that leaves stops the walk: no page is asked for after it has gone', async () => {
    const slow = await slowStack(5000, 5, 300)
    try {
      const leaving = new AbortController()
      const asked = fetch(`${slow.service.url}/api/session-locations`, { headers: { cookie: slow.cookie.viewer }, signal: leaving.signal }).catch((error: unknown) => error)
      // Gone while the second page is under way.
      await Bun.sleep(450)
      leaving.abort()
      expect(await asked).toBeInstanceOf(Error)
      await Bun.sleep(1200)
      expect(slow.kratos.callsTo('/admin/sessions')).toHaveLength(2)
    } finally {
      await slow.stop()
    }
  })
})

describe('errors', () => {
  test('anonymous → 401', async () => {
    const { status, body } = await locations('', null)
    expect(status).toBe(401)
    expect(body.error).toBe('not_authenticated')
  })

  for (const days of ['0', '366', '-1', '+5', '1.5', '1e2', '', 'abc', ' 7', '0x10', '99999999999']) {
    test(`days=${JSON.stringify(days)} → 400 bad_request`, async () => {
      const { status, body } = await locations(`?days=${encodeURIComponent(days)}`)
      expect(status).toBe(400)
      expect(body.error).toBe('bad_request')
    })
  }

  test('days given twice → 400', async () => {
    expect((await locations('?days=1&days=2')).status).toBe(400)
  })

  test('the store failing → 502 bad_gateway', async () => {
    stack.kratos.failWith = 500
    try {
      const { status, body } = await locations()
      expect(status).toBe(502)
      expect(body.error).toBe('bad_gateway')
    } finally {
      stack.kratos.failWith = null
    }
  })

  test('the store too slow → 504 gateway_timeout', async () => {
    stack.kratos.delayMs = 600
    try {
      // The gate's own identity check is still trusted from earlier requests; only the list is slow.
      const { status, body } = await locations()
      expect(status).toBe(504)
      expect(body.error).toBe('gateway_timeout')
    } finally {
      stack.kratos.delayMs = 0
    }
  })

  test('the API key is sent, and a refused key is the store’s failure → 502', async () => {
    stack.kratos.apiKey = 'managed-store-key-123'
    markSensitive('managed-store-key-123')
    try {
      expect((await locations()).status).toBe(502)
      const write = await fetch(`${stack.service.url}/api/settings`, {
        method: 'POST',
        headers: { cookie: stack.cookie.admin, 'content-type': 'application/json', origin: 'http://admin.test' },
        body: JSON.stringify({ key: 'proxy.idp-admin.api_key', value: 'managed-store-key-123', encrypted: true }),
      })
      expect(write.status).toBeLessThan(300)
      expect((await locations()).status).toBe(200)
      expect(stack.kratos.callsTo('/admin/sessions').at(-1)!.headers.get('authorization')).toBe('Bearer managed-store-key-123')
    } finally {
      stack.kratos.apiKey = undefined
    }
  })

  test('no IDP_ADMIN_URL → 503 upstream_not_configured', async () => {
    const bare = await startService({ env: { IAM_IDP_ADMIN_URL: stack.kratos.url } })
    try {
      const cookie = `admin-session=${bare.sign({ sub: stack.viewer.id, role: 'viewer' })}`
      const { status, body } = await locations('', cookie, bare.url)
      expect(status).toBe(503)
      expect(body.error).toBe('upstream_not_configured')
    } finally {
      await bare.stop()
    }
  })

  test('the store unreachable → 502', async () => {
    const gone = await startService({ env: { IAM_IDP_ADMIN_URL: stack.kratos.url, IDP_ADMIN_URL: 'http://127.0.0.1:9' } })
    markSensitive('127.0.0.1:9')
    try {
      const cookie = `admin-session=${gone.sign({ sub: stack.viewer.id, role: 'viewer' })}`
      const { status, body } = await locations('', cookie, gone.url)
      expect(status).toBe(502)
      expect(body.error).toBe('bad_gateway')
    } finally {
      await gone.stop()
    }
  })
})
