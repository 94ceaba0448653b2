// The Kratos stand-in's GET /admin/identities/{id}/sessions against what Kratos v26.2 does there
// (session/handler.go listIdentitySessions, persistence/sql/persister_session.go
// ListSessionsByIdentity, ory/x migrationpagination, pop's Paginate): offset pages of 250 by
// default, newest first, an `active` filter, `X-Total-Count`, and a `Link` header that counts pages
// from 0 while the rows answered count them from 1.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { KratosFixture, type FixtureSession } from './support/kratos.ts'
import { offsetPagingHeaders, offsetToken } from './support/kratos-paging.ts'

let kratos: KratosFixture
/** Sessions of `busy`, newest first: 260 in all, of which the 8 newest revoked and the next 2 expired. */
let sessions: FixtureSession[]
let busyId: string
const TOTAL = 260

beforeAll(() => {
  kratos = new KratosFixture().start()
  busyId = kratos.addIdentity({ email: 'busy@example.test' }).id
  // One a minute apart, the newest first, each with its position as its user agent.
  sessions = Array.from({ length: TOTAL }, (_, i) => kratos.addSession(busyId, { ip_address: '81.2.69.160', user_agent: `#${i}` }, i / 1440))
  for (const session of sessions.slice(0, 8)) session.active = false
  for (const session of sessions.slice(8, 10)) session.expires_at = new Date(Date.now() - 60_000).toISOString()
  // Another identity's sessions are never listed.
  kratos.addSession(kratos.addIdentity({ email: 'other@example.test' }).id, { ip_address: '81.2.69.161', user_agent: 'other' })
})
afterAll(async () => {
  await kratos.stop()
})

interface Answer {
  status: number
  agents: string[]
  body: unknown
  total: string | null
  links: Record<string, string>
}

async function list(query = '', id = busyId): Promise<Answer> {
  const response = await fetch(`${kratos.url}/admin/identities/${id}/sessions${query}`)
  const body = (await response.json()) as unknown
  const links: Record<string, string> = {}
  for (const part of (response.headers.get('link') ?? '').split(',').filter(Boolean)) {
    const match = /^<([^>]*)>; rel="(\w+)"$/.exec(part)!
    links[match[2]!] = match[1]!
  }
  const agents = Array.isArray(body) ? body.map((row: { devices: { user_agent: string }[] }) => row.devices[0]!.user_agent) : []
  return { status: response.status, agents, body, total: response.headers.get('x-total-count'), links }
}

/** The user agents of sessions `from` to `to` (exclusive) in Kratos's order. */
const agents = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `#${from + i}`)
const ACTIVE_TOTAL = TOTAL - 10

describe('pages', () => {
  test('without parameters: the first 250 sessions, newest first, with the identity and devices, and the total', async () => {
    const answer = await list()
    expect(answer.status).toBe(200)
    expect(answer.agents).toEqual(agents(0, 250))
    expect(answer.total).toBe(String(TOTAL))
    const first = (answer.body as Record<string, any>[])[0]!
    expect(first.identity.id).toBe(busyId)
    expect(first.devices).toHaveLength(1)
    expect(first.active).toBe(false)
  })

  test('page and per_page: pages count from 1, and page 0 is page 1 again', async () => {
    expect((await list('?per_page=100&page=0')).agents).toEqual(agents(0, 100))
    expect((await list('?per_page=100&page=1')).agents).toEqual(agents(0, 100))
    expect((await list('?per_page=100&page=2')).agents).toEqual(agents(100, 200))
    expect((await list('?per_page=100&page=3')).agents).toEqual(agents(200, 260))
    expect((await list('?per_page=100&page=4')).agents).toEqual([])
    // Unreadable or negative: the first page; the size is the default.
    expect((await list('?per_page=100&page=two')).agents).toEqual(agents(0, 100))
    expect((await list('?per_page=100&page=-3')).agents).toEqual(agents(0, 100))
    expect((await list('?per_page=many&page=1')).agents).toEqual(agents(0, 250))
  })

  test('walking page 1, 2, … up to X-Total-Count ÷ per_page reaches every session once', async () => {
    const seen: string[] = []
    const { total } = await list('?per_page=7')
    for (let page = 1; page <= Math.ceil(Number(total) / 7); page++) seen.push(...(await list(`?per_page=7&page=${page}`)).agents)
    expect(seen).toEqual(agents(0, TOTAL))
  })

  test('page_token and page_size: the token is an offset, rounded down to a page, then counted as a page from 1', async () => {
    // Offset 100 is page 1 for the paginator, so pop answers the first rows again.
    expect((await list(`?page_size=100&page_token=${offsetToken(100)}`)).agents).toEqual(agents(0, 100))
    expect((await list(`?page_size=100&page_token=${offsetToken(200)}`)).agents).toEqual(agents(100, 200))
    expect((await list(`?page_size=100&page_token=${offsetToken(299)}`)).agents).toEqual(agents(100, 200))
    // A token that is no offset token is the first page, not a 400.
    for (const token of ['not*a*token', offsetToken(100).padEnd(28, '='), Buffer.from('{"v":2}').toString('base64url')]) {
      const answer = await list(`?page_size=100&page_token=${encodeURIComponent(token)}`)
      expect(answer.status).toBe(200)
      expect(answer.agents).toEqual(agents(0, 100))
    }
    // Either parameter, even empty, selects this mode: page and per_page are then not read.
    expect((await list('?page_size=&page=2&per_page=10')).agents).toEqual(agents(0, 250))
    expect((await list('?page_token=&page=2&per_page=10')).agents).toEqual(agents(0, 250))
  })

  test('sizes: at most 1000, at least 1, the default 250 for one that is no integer', async () => {
    kratos.sessions.push(...Array.from({ length: 800 }, (_, i) => ({ ...sessions[TOTAL - 1]!, id: crypto.randomUUID(), created_at: new Date(Date.parse(sessions[TOTAL - 1]!.created_at) - (i + 1) * 1000).toISOString() })))
    try {
      expect((await list('?per_page=5000')).agents).toHaveLength(1000)
      expect((await list('?page_size=5000')).agents).toHaveLength(1000)
      expect((await list('?page_size=1000')).agents).toHaveLength(1000)
      expect((await list('?page_size=0')).agents).toHaveLength(1)
      expect((await list('?per_page=-5')).agents).toHaveLength(1)
      expect((await list('?page_size=2.5')).agents).toHaveLength(250)
      // Go's ParseInt takes a sign; an unescaped + in a query is a space, which it does not.
      expect((await list('?page_size=%2B3')).agents).toHaveLength(3)
      expect((await list('?page_size=+3')).agents).toHaveLength(250)
    } finally {
      kratos.sessions.splice(kratos.sessions.length - 800, 800)
    }
  })
})

describe('the active filter', () => {
  test('active=true: neither revoked nor expired, counted as such', async () => {
    const answer = await list('?active=true&per_page=100')
    expect(answer.agents).toEqual(agents(10, 110))
    expect(answer.total).toBe(String(ACTIVE_TOTAL))
    expect((await list('?active=true&per_page=100&page=3')).agents).toEqual(agents(210, TOTAL))
  })

  test('active=false: the revoked and the expired', async () => {
    const answer = await list('?active=false')
    expect(answer.agents).toEqual(agents(0, 10))
    expect(answer.total).toBe('10')
  })

  test('ParseBool spellings are read; anything else is a 400 before any paging', async () => {
    for (const value of ['1', 't', 'T', 'TRUE', 'True']) expect((await list(`?active=${value}`)).total).toBe(String(ACTIVE_TOTAL))
    for (const value of ['0', 'f', 'F', 'FALSE', 'False']) expect((await list(`?active=${value}`)).total).toBe('10')
    expect((await list('?active=')).total).toBe(String(TOTAL))
    for (const value of ['yes', 'on', 'tRUE', '2']) {
      const answer = await list(`?active=${value}&page=nonsense`)
      expect(answer.status).toBe(400)
      expect(answer.body).toEqual({ error: { code: 400, status: 'Bad Request', message: 'could not parse parameter active' } })
      expect(answer.total).toBeNull()
    }
  })
})

describe('the id', () => {
  test('a text gofrs/uuid cannot read is a 400 with its error, before the active filter', async () => {
    const answer = await list('?active=maybe', 'not-an-id')
    expect(answer.status).toBe(400)
    expect(answer.body).toEqual({ error: { code: 400, status: 'Bad Request', message: 'uuid: incorrect UUID length 9 in string "not-an-id"' } })
    expect((await list('', busyId.replace(/-/g, '_'))).body).toEqual({
      error: { code: 400, status: 'Bad Request', message: `uuid: incorrect UUID format in string "${busyId.replace(/-/g, '_')}"` },
    })
    expect((await list('', `${busyId.slice(0, 35)}g`)).body).toEqual({ error: { code: 400, status: 'Bad Request', message: "encoding/hex: invalid byte: U+0067 'g'" } })
  })

  test('braced, URN and hyphen-less forms in either case are the same identity', async () => {
    for (const form of [`{${busyId}}`, `urn:uuid:${busyId}`, busyId.replaceAll('-', ''), busyId.toUpperCase()]) {
      const answer = await list('?per_page=2', encodeURIComponent(form))
      expect(answer.agents).toEqual(agents(0, 2))
    }
  })

  test('an identity without sessions, or none at all: an empty list, a total of 0, and first, next and prev links', async () => {
    const answer = await list('', crypto.randomUUID())
    expect(answer.status).toBe(200)
    expect(answer.body).toEqual([])
    expect(answer.total).toBe('0')
    expect(Object.keys(answer.links)).toEqual(['first', 'next', 'prev'])
  })
})

describe('the Link header', () => {
  const query = (link: string) => Object.fromEntries(new URL(link, 'http://kratos.invalid').searchParams)

  test("it is ory/x's: the request's URL with page, page_size, page_token and per_page set, keys sorted", async () => {
    const { links } = await list('?per_page=50&active=true&page=2&zeta=1')
    const path = `/admin/identities/${busyId}/sessions`
    expect(links).toEqual({
      first: `${path}?active=true&page=0&page_size=50&page_token=${offsetToken(0)}&per_page=50&zeta=1`,
      next: `${path}?active=true&page=3&page_size=50&page_token=${offsetToken(150)}&per_page=50&zeta=1`,
      prev: `${path}?active=true&page=1&page_size=50&page_token=${offsetToken(50)}&per_page=50&zeta=1`,
      last: `${path}?active=true&page=4&page_size=50&page_token=${offsetToken(200)}&per_page=50&zeta=1`,
    })
  })

  test('its next link from the first page answers the first page again', async () => {
    const first = await list('?per_page=100')
    expect(Object.keys(first.links)).toEqual(['next', 'last'])
    expect(query(first.links.next!).page).toBe('1')
    const next = await fetch(`${kratos.url}${first.links.next}`)
    expect(((await next.json()) as { id: string }[]).map((row) => row.id)).toEqual(sessions.slice(0, 100).map((s) => s.id))
  })

  test('following next links from the first page never reaches the last partial page', async () => {
    const seen = new Set<string>()
    let link: string | undefined = `/admin/identities/${busyId}/sessions?per_page=100`
    for (let hops = 0; link && hops < 10; hops++) {
      const response: Response = await fetch(`${kratos.url}${link}`)
      for (const row of (await response.json()) as { id: string }[]) seen.add(row.id)
      link = /<([^>]*)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1]
    }
    expect(seen.size).toBe(200)
    expect(seen.has(sessions[200]!.id)).toBe(false)
  })

  // The cases of ory/x's own snapshots (oryx/pagination/migrationpagination/.snapshots), which Go wrote.
  test.each([
    ['at the beginning: next and last', 150, 0, 50, [['next', 1, 50, 50], ['last', 2, 50, 100]]],
    ['in the middle: first, next, prev and last', 300, 3, 50, [['first', 0, 50, 0], ['next', 4, 50, 200], ['prev', 2, 50, 100], ['last', 5, 50, 250]]],
    ['at the end: first and prev', 150, 2, 50, [['first', 0, 50, 0], ['prev', 1, 50, 50]]],
    ['a list that fits one page: first, sized to the list', 5, 0, 50, [['first', 0, 5, 0]]],
    ['no total: first, next and prev', 0, 3, 50, [['first', 0, 50, 0], ['next', 4, 50, 200], ['prev', 2, 50, 100]]],
  ] as const)('%s', (_name, total, page, perPage, expected) => {
    const { link, 'x-total-count': count } = offsetPagingHeaders(new URL('http://example.com/'), total, { page, perPage })
    expect(count).toBe(String(total))
    expect(link).toBe(expected.map(([rel, number, size, offset]) => `</?page=${number}&page_size=${size}&page_token=${offsetToken(offset)}&per_page=${size}>; rel="${rel}"`).join(','))
  })

  test('offset tokens are those of the snapshots', () => {
    expect(offsetToken(0)).toBe('eyJvZmZzZXQiOiIwIiwidiI6Mn0')
    expect(offsetToken(50)).toBe('eyJvZmZzZXQiOiI1MCIsInYiOjJ9')
    expect(offsetToken(250)).toBe('eyJvZmZzZXQiOiIyNTAiLCJ2IjoyfQ')
  })
})
