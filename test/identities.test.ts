import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { KratosFixture, type FixtureIdentity } from './support/kratos.ts'
import { leakProblems, markSecret, markSensitive } from './support/leaks.ts'
import { startService, type TestService } from './support/service.ts'
import { startStack, type Stack } from './support/stack.ts'
import { nextPageToken, parseLinkHeader } from '../src/upstream/link.ts'

const LIST = '/admin/identities'
const STORE_SIZE = 300 // admin and viewer included
const IDENTITY_FIELDS = ['created_at', 'id', 'schema_id', 'state', 'traits', 'updated_at']

interface PageBody {
  identities: Record<string, unknown>[]
  next_page_token: string | null
  has_more: boolean
}

function query(params: Record<string, string>): string {
  const search = new URLSearchParams(params).toString()
  return search === '' ? '/api/identities' : `/api/identities?${search}`
}

async function get(stack: Stack, path: string, cookie: string | null = stack.cookie.admin): Promise<Response> {
  return fetch(stack.service.url + path, { headers: cookie ? { cookie } : {} })
}

function auditLines(service: TestService): Record<string, unknown>[] {
  return service.logLines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.action === 'identity_search')
}

/** Fixture calls to the list endpoint only (the gate's own presence checks go to /admin/identities/{id}). */
const listCalls = (stack: Stack) => stack.kratos.callsTo(LIST).length

describe('paging', () => {
  let stack: Stack
  let special: FixtureIdentity
  const SPECIAL_IDENTIFIER = 'ä+b&c=d#e f@exämple.test'

  beforeAll(async () => {
    stack = await startStack()
    for (let n = stack.kratos.identities.size; n < STORE_SIZE - 1; n++) {
      const email = `person.${n}@example.test`
      markSensitive(email)
      stack.kratos.addIdentity({ email, role: 'viewer' })
    }
    markSensitive(SPECIAL_IDENTIFIER)
    special = stack.kratos.addIdentity({ email: SPECIAL_IDENTIFIER, role: 'viewer' })
    markSensitive(special.id)
    expect(stack.kratos.identities.size).toBe(STORE_SIZE)
  })
  afterAll(() => stack.stop())

  for (const size of [1, 7, 25, 250]) {
    test(`walking every page of size ${size} from the first visits every identity exactly once`, async () => {
      const seen: string[] = []
      let token: string | null = null
      let pages = 0
      const before = listCalls(stack)
      for (;;) {
        const params: Record<string, string> = { page_size: String(size) }
        if (token !== null) params.page_token = token
        const response = await get(stack, query(params))
        expect(response.status).toBe(200)
        const body = (await response.json()) as PageBody
        pages++
        expect(body.identities.length).toBeLessThanOrEqual(size)
        expect(body.identities.length).toBeGreaterThan(0) // never an empty trailing page
        seen.push(...body.identities.map((identity) => identity.id as string))
        if (!body.has_more) {
          expect(body.next_page_token).toBeNull()
          break
        }
        expect(typeof body.next_page_token).toBe('string')
        token = body.next_page_token
        expect(pages).toBeLessThanOrEqual(STORE_SIZE) // bounded even if paging were broken
      }
      expect(seen.length).toBe(STORE_SIZE)
      expect(new Set(seen).size).toBe(STORE_SIZE)
      expect(new Set(seen)).toEqual(new Set(stack.kratos.identities.keys()))
      expect(pages).toBe(Math.ceil(STORE_SIZE / size))
      expect(listCalls(stack) - before).toBe(pages) // one upstream call per page
    })
  }

  test('an exactly full last page says has_more false and produces no empty trailing page', async () => {
    // 300 = 12 × 25: the twelfth page is full and is the last.
    let token: string | null = null
    const sizes: number[] = []
    let last: PageBody | null = null
    for (let page = 0; page < 13; page++) {
      const response = await get(stack, query(token ? { page_size: '25', page_token: token } : { page_size: '25' }))
      last = (await response.json()) as PageBody
      sizes.push(last.identities.length)
      if (!last.has_more) break
      token = last.next_page_token
    }
    expect(sizes).toEqual(Array(12).fill(25))
    expect(last!.has_more).toBe(false)
    expect(last!.next_page_token).toBeNull()
  })

  test('the default page size is 25 and is sent to the store explicitly', async () => {
    const response = await get(stack, '/api/identities')
    expect(response.status).toBe(200)
    const body = (await response.json()) as PageBody
    expect(body.identities.length).toBe(25)
    expect(body.has_more).toBe(true)
    const call = stack.kratos.callsTo(LIST).at(-1)!
    expect(call.query.get('page_size')).toBe('25')
    expect(call.query.has('page_token')).toBe(false)
    expect(call.query.has('credentials_identifier')).toBe(false)
  })

  test('an empty page_token is the first page', async () => {
    const first = (await (await get(stack, query({ page_size: '5' }))).json()) as PageBody
    const empty = (await (await get(stack, query({ page_size: '5', page_token: '' }))).json()) as PageBody
    expect(empty.identities.map((i) => i.id)).toEqual(first.identities.map((i) => i.id))
    expect(stack.kratos.callsTo(LIST).at(-1)!.query.has('page_token')).toBe(false)
  })

  test('the token is passed to the store unchanged', async () => {
    const first = (await (await get(stack, query({ page_size: '3' }))).json()) as PageBody
    await get(stack, query({ page_size: '3', page_token: first.next_page_token! }))
    expect(stack.kratos.callsTo(LIST).at(-1)!.query.get('page_token')).toBe(first.next_page_token)
  })

  test('each identity carries exactly id, schema_id, state, traits, created_at and updated_at', async () => {
    const cases: Record<string, string>[] = [{ page_size: '250' }, { credentials_identifier: SPECIAL_IDENTIFIER }]
    for (const params of cases) {
      const response = await get(stack, query(params))
      const text = await response.text()
      expect(text).not.toContain('credentials')
      expect(text).not.toContain('metadata_admin')
      expect(text).not.toContain('hashed_password')
      expect(text).not.toContain('metadata_public')
      expect(text).not.toContain('recovery_addresses')
      const body = JSON.parse(text) as PageBody
      expect(Object.keys(body).sort()).toEqual(['has_more', 'identities', 'next_page_token'])
      expect(body.identities.length).toBeGreaterThan(0)
      for (const identity of body.identities) expect(Object.keys(identity).sort()).toEqual(IDENTITY_FIELDS)
    }
  })

  test('an identifier with &, +, =, #, spaces and non-ASCII letters reaches the store intact and finds its identity', async () => {
    const response = await get(stack, query({ credentials_identifier: SPECIAL_IDENTIFIER }))
    expect(response.status).toBe(200)
    const body = (await response.json()) as PageBody
    expect(body.identities.map((identity) => identity.id)).toEqual([special.id])
    expect(body.has_more).toBe(false)
    expect(body.next_page_token).toBeNull()
    const call = stack.kratos.callsTo(LIST).at(-1)!
    expect(call.query.get('credentials_identifier')).toBe(SPECIAL_IDENTIFIER)
    expect(call.query.getAll('credentials_identifier')).toHaveLength(1)
  })

  test('the identifier filter is exact: a prefix finds nothing and the answer is an empty page', async () => {
    const response = await get(stack, query({ credentials_identifier: 'person.1' }))
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ identities: [], next_page_token: null, has_more: false })
  })

  test('parameters other than the three are not forwarded', async () => {
    const response = await get(stack, '/api/identities?page_size=2&include_credential=password&ids=x&organization_id=y')
    expect(response.status).toBe(200)
    const call = stack.kratos.callsTo(LIST).at(-1)!
    expect([...call.query.keys()].sort()).toEqual(['page_size'])
  })
})

describe('validation happens before any upstream call', () => {
  let stack: Stack
  beforeAll(async () => {
    stack = await startStack()
    await get(stack, '/api/identities') // the gate's presence check is now trusted
  })
  afterAll(() => stack.stop())

  const refused = async (path: string, code: string) => {
    const before = listCalls(stack)
    const response = await get(stack, path)
    expect(response.status).toBe(400)
    expect(((await response.json()) as { error: string }).error).toBe(code)
    expect(listCalls(stack)).toBe(before)
  }

  for (const raw of ['0', '251', '-1', '2.5', '1e2', 'abc', '%2025', '', '+5', '0x10', '25%20', '%EF%BC%92%EF%BC%95', '99999999999999999999999']) {
    test(`page_size=${raw} → 400 invalid_page_size without calling the store`, () =>
      refused(`/api/identities?page_size=${raw}`, 'invalid_page_size'))
  }

  test('a repeated page_size is refused, even when both values are valid', () =>
    refused('/api/identities?page_size=10&page_size=10', 'invalid_page_size'))

  test('page_size 1 and 250 are accepted', async () => {
    for (const size of ['1', '250', '007']) expect((await get(stack, `/api/identities?page_size=${size}`)).status).toBe(200)
  })

  test('a 2049-character page_token → 400 invalid_page_token without calling the store', () =>
    refused(query({ page_token: 'a'.repeat(2049) }), 'invalid_page_token'))

  test('a repeated page_token is refused', () => refused('/api/identities?page_token=a&page_token=b', 'invalid_page_token'))

  test('a 2048-character page_token is passed on (and the store judges it)', async () => {
    const before = listCalls(stack)
    const response = await get(stack, query({ page_token: 'a'.repeat(2048) }))
    expect(listCalls(stack)).toBe(before + 1)
    expect(response.status).toBe(400)
    expect(((await response.json()) as { error: string }).error).toBe('invalid_page_token')
  })

  for (const [name, encoded] of [
    ['NUL', '%00'],
    ['line feed', '%0A'],
    ['carriage return', '%0D'],
    ['tab', '%09'],
    ['escape', '%1B'],
    ['DEL', '%7F'],
    ['NEL (U+0085)', '%C2%85'],
    ['U+009F', '%C2%9F'],
  ] as const) {
    test(`a credentials_identifier containing ${name} → 400 invalid_credentials_identifier without calling the store`, () =>
      refused(`/api/identities?credentials_identifier=ada${encoded}@example.test`, 'invalid_credentials_identifier'))
  }

  test('a 256-character credentials_identifier → 400 invalid_credentials_identifier', () =>
    refused(query({ credentials_identifier: 'a'.repeat(244) + '@example.test' }), 'invalid_credentials_identifier'))

  test('a repeated credentials_identifier is refused', () =>
    refused('/api/identities?credentials_identifier=a&credentials_identifier=b', 'invalid_credentials_identifier'))

  test('255 characters, counted as characters rather than bytes, are accepted', async () => {
    const identifier = 'ä'.repeat(242) + '@example.test'
    markSensitive(identifier)
    expect([...identifier].length).toBe(255)
    expect((await get(stack, query({ credentials_identifier: identifier }))).status).toBe(200)
    expect(stack.kratos.callsTo(LIST).at(-1)!.query.get('credentials_identifier')).toBe(identifier)
  })

  test('a token the store rejects → 400 invalid_page_token', async () => {
    const before = listCalls(stack)
    const response = await get(stack, query({ page_token: 'not-a-token-the-store-issued' }))
    expect(listCalls(stack)).toBe(before + 1)
    expect(response.status).toBe(400)
    expect(((await response.json()) as { error: string }).error).toBe('invalid_page_token')
  })
})

describe('access', () => {
  let stack: Stack
  beforeAll(async () => {
    stack = await startStack()
  })
  afterAll(() => stack.stop())

  test('a viewer gets 403 on GET /api/identities and the store is not asked', async () => {
    const response = await get(stack, '/api/identities', stack.cookie.viewer)
    expect(response.status).toBe(403)
    expect(((await response.json()) as { error: string }).error).toBe('forbidden')
    expect(listCalls(stack)).toBe(0)
  })

  test('an anonymous caller gets 401 on GET /api/identities and the store is not asked', async () => {
    const response = await get(stack, '/api/identities?page_size=5', null)
    expect(response.status).toBe(401)
    expect(((await response.json()) as { error: string }).error).toBe('not_authenticated')
    expect(listCalls(stack)).toBe(0)
  })

  test('neither refusal is audited as a search', () => {
    expect(auditLines(stack.service)).toHaveLength(0)
  })

  test('the stored idp-admin API key is sent to the store as a Bearer token', async () => {
    const key = 'ory_pat_' + crypto.randomUUID().replaceAll('-', '')
    markSecret(key)
    await stack.service.services.settings.write({ key: 'proxy.idp-admin.api_key', value: key, encrypted: true }, null)
    stack.kratos.apiKey = key
    try {
      const response = await get(stack, '/api/identities?page_size=1')
      expect(response.status).toBe(200)
      expect(stack.kratos.callsTo(LIST).at(-1)!.headers.get('authorization')).toBe(`Bearer ${key}`)
      expect(await response.text()).not.toContain(key)
    } finally {
      stack.kratos.apiKey = undefined
    }
  })
})

describe('upstream failures', () => {
  let stack: Stack
  beforeAll(async () => {
    stack = await startStack({ env: { PROXY_TIMEOUT_MS: '200' } })
    // Warm the gate's presence check, so the faults below only hit the list call.
    expect((await get(stack, '/api/identities')).status).toBe(200)
  })
  afterAll(() => stack.stop())

  const expectError = async (status: number, code: string) => {
    const response = await get(stack, '/api/identities')
    expect(response.status).toBe(status)
    expect(response.headers.get('content-type')).toStartWith('application/json')
    const body = (await response.json()) as { error: string }
    expect(body.error).toBe(code)
  }

  test('a store slower than PROXY_TIMEOUT_MS → 504 gateway_timeout', async () => {
    stack.kratos.delayMs = 600
    try {
      await expectError(504, 'gateway_timeout')
    } finally {
      stack.kratos.delayMs = 0
    }
  })

  test('a store that is down → 502 bad_gateway, saying it cannot be reached', async () => {
    await stack.kratos.stop()
    try {
      const response = await get(stack, '/api/identities')
      expect(response.status).toBe(502)
      expect(await response.json()).toEqual({ error: 'bad_gateway', message: 'The identity store cannot be reached from this service.' })
    } finally {
      stack.kratos.start()
    }
    expect((await get(stack, '/api/identities')).status).toBe(200)
  })

  for (const status of [500, 503, 401, 404]) {
    test(`a store answering ${status} → 502 bad_gateway`, async () => {
      stack.kratos.failWith = status
      try {
        await expectError(502, 'bad_gateway')
      } finally {
        stack.kratos.failWith = null
      }
    })
  }

  test('a store 400 that is not about our token → 502 bad_gateway', async () => {
    stack.kratos.failWith = 400
    try {
      const response = await get(stack, query({ page_token: '00000000-0000-0000-0000-000000000001' }))
      expect(response.status).toBe(502)
    } finally {
      stack.kratos.failWith = null
    }
  })

  // Kratos was reached and answered 200, with something that is not a page of identities: the
  // contract's 502 code, in words that do not send the operator looking for a network fault.
  const UNREADABLE_SHAPES: [string, (rows: unknown[]) => unknown][] = [
    ['an object instead of the list', (rows) => ({ identities: rows, detail: 'upstream-secret-detail' })],
    ['a text instead of the list', () => 'upstream-secret-detail'],
    ['a row that is no identity', (rows) => [...rows, 'upstream-secret-detail']],
    ['a row without an id', (rows) => [...rows, { traits: { email: 'hidden.row@example.test' }, note: 'upstream-secret-detail' }]],
    ['null', () => null],
  ]
  for (const [name, reshape] of UNREADABLE_SHAPES) {
    test(`a store answering ${name} → 502 bad_gateway saying the answer cannot be read, nothing of it echoed`, async () => {
      markSensitive('upstream-secret-detail', 'hidden.row@example.test')
      stack.kratos.malformedLists.set(LIST, reshape)
      try {
        const response = await get(stack, '/api/identities')
        expect(response.status).toBe(502)
        const text = await response.text()
        expect(JSON.parse(text)).toEqual({ error: 'bad_gateway', message: 'The identity store answered with data that cannot be read.' })
        expect(leakProblems(response.status, response.headers.get('content-type'), text)).toEqual([])
      } finally {
        stack.kratos.malformedLists.delete(LIST)
      }
      expect((await get(stack, '/api/identities')).status).toBe(200)
    })
  }

  test('IDP_ADMIN_URL unset → 503 upstream_not_configured', async () => {
    // The admins live in a separate login store here, so the gate still has somewhere to ask.
    const login = new KratosFixture().start()
    markSensitive(login.url, String(new URL(login.url).port))
    const admin = login.addIdentity({ email: 'ada.admin@example.test', role: 'admin' })
    const service = await startService({ env: { IAM_IDP_ADMIN_URL: login.url } })
    try {
      const cookie = `admin-session=${service.sign({ sub: admin.id, role: 'admin', email: 'ada.admin@example.test' })}`
      const response = await fetch(`${service.url}/api/identities`, { headers: { cookie } })
      expect(response.status).toBe(503)
      expect(((await response.json()) as { error: string }).error).toBe('upstream_not_configured')
      expect(login.callsTo(LIST)).toHaveLength(0)
    } finally {
      await service.stop()
      await login.stop()
    }
  })
})

describe('audit', () => {
  let stack: Stack
  beforeAll(async () => {
    stack = await startStack()
  })
  afterAll(() => stack.stop())

  test('every call writes exactly one JSON audit line with action, adminId, searchFilter and timestamp', async () => {
    const filter = 'victor.viewer@example.test'
    const calls = [
      '/api/identities',
      query({ credentials_identifier: filter }),
      '/api/identities?page_size=0',
      query({ page_token: 'x'.repeat(2049), credentials_identifier: filter }),
      '/api/identities?credentials_identifier=a%00b',
      query({ page_token: 'stale' }),
    ]
    const before = auditLines(stack.service).length
    for (const path of calls) await get(stack, path)
    const lines = auditLines(stack.service).slice(before)
    expect(lines).toHaveLength(calls.length)
    for (const line of lines) {
      expect(line.action).toBe('identity_search')
      expect(line.adminId).toBe(stack.admin.id)
      expect(typeof line.timestamp).toBe('string')
      expect(new Date(line.timestamp as string).toISOString()).toBe(line.timestamp as string)
    }
    expect(lines.map((line) => line.searchFilter)).toEqual([null, filter, null, filter, 'a\u0000b', null])
    expect(lines.map((line) => line.outcome)).toEqual([
      'ok',
      'ok',
      'invalid_page_size',
      'invalid_page_token',
      'invalid_credentials_identifier',
      'invalid_page_token',
    ])
  })

  test('a filter refused for what it holds is kept in the table as its length, not as its text (line breaks, escape sequences, 14,000 characters)', async () => {
    for (const filter of ['evil\n2026-11-28T00:00:00Z login admin ok', '\u001b[31mRED\u001b[0m', 'A'.repeat(14_000)]) {
      await get(stack, query({ credentials_identifier: filter }))
      const [row] = stack.service.db!.query('SELECT target, detail FROM audit_events ORDER BY id DESC LIMIT 1').all() as { target: string | null; detail: string }[]
      expect([row!.target, JSON.parse(row!.detail)]).toEqual([null, { outcome: 'invalid_credentials_identifier', refused_filter_length: filter.length }])
    }
  })

  test('each audit line is one valid JSON line on its own', async () => {
    await get(stack, query({ credentials_identifier: 'line\nbreak@example.test' }))
    const raw = stack.service.logLines.filter((line) => line.includes('"identity_search"'))
    for (const line of raw) {
      expect(line.endsWith('\n')).toBe(true)
      expect(line.slice(0, -1)).not.toContain('\n')
      expect(() => JSON.parse(line)).not.toThrow()
    }
  })

  test('the same events are in the audit_events table', async () => {
    const before = stack.service.db!.query('SELECT COUNT(*) AS n FROM audit_events').get() as { n: number }
    await get(stack, query({ credentials_identifier: 'ada.admin@example.test' }))
    const rows = stack.service.db!
      .query('SELECT at, action, actor, target, detail FROM audit_events ORDER BY id DESC LIMIT 1')
      .all() as { at: string; action: string; actor: string; target: string | null; detail: string }[]
    const after = stack.service.db!.query('SELECT COUNT(*) AS n FROM audit_events').get() as { n: number }
    expect(after.n).toBe(before.n + 1)
    expect(rows[0]).toMatchObject({ action: 'identity_search', actor: stack.admin.id, target: 'ada.admin@example.test' })
    expect(JSON.parse(rows[0]!.detail)).toEqual({ outcome: 'ok' })
    const line = auditLines(stack.service).at(-1)!
    expect(rows[0]!.at).toBe(line.timestamp as string)
    const total = stack.service.db!.query("SELECT COUNT(*) AS n FROM audit_events WHERE action = 'identity_search'").get() as { n: number }
    expect(total.n).toBe(auditLines(stack.service).length)
  })
})

describe('the Link header', () => {
  const next = (header: string | null) => nextPageToken(header)

  test('Kratos form: first and next, comma without space', () => {
    expect(
      next(
        '</admin/identities?page_size=2&page_token=00000000-0000-0000-0000-000000000000>; rel="first",</admin/identities?page_size=2&page_token=7f0c0000-0000-0000-0000-000000000001>; rel="next"',
      ),
    ).toBe('7f0c0000-0000-0000-0000-000000000001')
  })

  test('no next link, or no header, means no more pages', () => {
    expect(next('</admin/identities?page_size=2&page_token=00000000-0000-0000-0000-000000000000>; rel="first"')).toBeUndefined()
    expect(next(null)).toBeUndefined()
    expect(next('')).toBeUndefined()
  })

  test('order, spaces, unquoted and multi-valued rel, upper case and extra parameters', () => {
    expect(next(' <https://x.test/a?page_token=t1> ;  rel=next ,  <https://x.test/b?page_token=t0>; rel="first"')).toBe('t1')
    expect(next('<https://x.test/b?page_token=t0>; rel="first", <https://x.test/a?page_token=t2>; title="a, b; c"; rel="prev NEXT"')).toBe('t2')
    expect(next('</a?page_token=t3>;REL="Next"')).toBe('t3')
    expect(next('</a?page_token=t3>; rel="nextpage"')).toBeUndefined()
  })

  test('a comma inside the URL does not split the entry', () => {
    expect(next('</a?x=1,2&page_token=t4>; rel="next"')).toBe('t4')
  })

  test('only the first rel of an entry counts', () => {
    expect(next('</a?page_token=t5>; rel="first"; rel="next"')).toBeUndefined()
  })

  test('the token is percent-decoded once, as a query value', () => {
    expect(next('</a?page_token=a%2Bb%3D>; rel="next"')).toBe('a+b=')
  })

  test('a next link without a token is reported as unusable', () => {
    expect(next('</a?page_size=2>; rel="next"')).toBeNull()
    expect(next('</a?page_token=>; rel="next"')).toBeNull()
  })

  test('malformed entries are skipped', () => {
    expect(parseLinkHeader('garbage, </a?page_token=t6>; rel="next"').map((link) => link.rels)).toEqual([['next']])
    expect(next('<unterminated; rel="next"')).toBeUndefined()
  })
})

describe('an audit event the database refuses', () => {
  let stack: Stack
  beforeAll(async () => {
    stack = await startStack()
  })
  afterAll(() => stack.stop())

  test('the search still answers; the missing event is logged as audit_write_failed with the request id, and its stdout line is still written', async () => {
    stack.service.db!.run("CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_events BEGIN SELECT RAISE(ABORT, 'refused'); END")
    try {
      const response = await get(stack, '/api/identities?page_size=5', stack.cookie.admin)
      expect(response.status).toBe(200)
      const id = response.headers.get('x-request-id')
      const failed = stack.service.logLines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.event === 'audit_write_failed')
      expect(failed).toEqual([expect.objectContaining({ level: 'error', request_id: id, action: 'identity_search' })])
      expect(auditLines(stack.service).filter((line) => line.event === 'audit').at(-1)).toMatchObject({ request_id: id })
    } finally {
      stack.service.db!.run('DROP TRIGGER refuse_audit')
    }
  })
})
