// A link whose page token or filter the list's service refuses (a stale bookmark, an edited link,
// a token Kratos or Hydra no longer accepts): every paged list says that the link's page or filter
// is not valid and offers the way back to the first page or to the list without the filter, before
// the Retry every error keeps (ui.md).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { KratosFixture } from '../support/kratos.ts'
import { HydraFixture } from '../support/hydra.ts'
import { sweep, tabTo, useSignedInBrowser } from './harness.ts'

describe('the stand-ins refuse a page token as Kratos and Hydra do', () => {
  let kratos: KratosFixture
  let hydra: HydraFixture
  beforeAll(() => {
    kratos = new KratosFixture().start()
    hydra = new HydraFixture().start()
  })
  afterAll(async () => {
    await kratos?.stop()
    await hydra?.stop()
  })
  const answer = async (base: string, path: string) => {
    const response = await fetch(`${base}${path}`)
    return { status: response.status, body: await response.json() }
  }

  test('Kratos: 400 with its error body, worded per list', async () => {
    const malformed = 'The request was malformed or contained invalid parameters'
    expect(await answer(kratos.url, '/admin/identities?page_token=not-a-token')).toEqual({
      status: 400,
      body: { error: { code: 400, status: 'Bad Request', message: malformed, reason: 'The page token is invalid, do not craft your own page tokens' } },
    })
    // The session list reads a base64 map token before its page size, and says so in its words;
    // a map token whose id is no UUID is refused as crafted, in the identities list's words.
    expect(await answer(kratos.url, '/admin/sessions?page_token=not-a-token!')).toEqual({
      status: 400,
      body: { error: { code: 400, status: 'Bad Request', message: 'could not parse parameter page_size' } },
    })
    expect(await answer(kratos.url, `/admin/sessions?page_token=${btoa('id=x/created_at=2024-01-01 00:00:00').replace(/=+$/, '')}`)).toEqual({
      status: 400,
      body: { error: { code: 400, status: 'Bad Request', message: malformed, reason: 'The page token is invalid, do not craft your own page tokens' } },
    })
    expect(await answer(kratos.url, '/admin/courier/messages?page_token=not-a-token')).toEqual({
      status: 400,
      body: { error: { code: 400, status: 'Bad Request', message: 'invalid pagination token' } },
    })
    // A courier token is good for an hour: an older one is refused as expired.
    kratos.addMessage({ recipient: 'a@example.test', subject: 'One', body: 'one' })
    kratos.addMessage({ recipient: 'b@example.test', subject: 'Two', body: 'two' })
    const lifetime = kratos.pageTokenLifetimeMs
    kratos.pageTokenLifetimeMs = -1
    try {
      const link = (await fetch(`${kratos.url}/admin/courier/messages?page_size=1`)).headers.get('link')!
      const next = new URL(/<([^>]*)>; rel="next"/.exec(link)![1]!, kratos.url)
      expect(await answer(kratos.url, `${next.pathname}${next.search}`)).toEqual({
        status: 400,
        body: { error: { code: 400, status: 'Bad Request', message: 'page token expired, do not persist page tokens' } },
      })
    } finally {
      kratos.pageTokenLifetimeMs = lifetime
    }
    expect((await answer(kratos.url, '/admin/courier/messages?status=bogus')).body.error.reason).toBe('Message status is not valid')
    // A token of the right form that no longer exists is no error: the rows after it come.
    expect((await answer(kratos.url, `/admin/identities?page_token=${crypto.randomUUID()}`)).status).toBe(200)
  })

  test('Hydra: 400 in its OAuth error shape', async () => {
    expect(await answer(hydra.url, '/admin/clients?page_token=not-a-token')).toEqual({
      status: 400,
      body: { error: 'The request was malformed or contained invalid parameters', error_description: 'Unable to parse pagination parameters: invalid pagination token' },
    })
  })
})

describe('in the browser', () => {
  const admin = useSignedInBrowser('admin')

  const settled = () => admin.page.waitForFunction(() => !document.querySelector('main [aria-busy="true"]'))
  const query = () => new URL(admin.page.url()).searchParams
  /** The refused load's console line (the browser logs every 4xx answer); nothing else. */
  const onlyRefusals = () => {
    expect(admin.problems.filter((problem) => !/status of 400\b/.test(problem))).toEqual([])
    admin.problems.length = 0
  }

  /** Opens a list at a link its service refuses; returns the alert after checking it keeps Retry after the ways out. */
  async function openRefused(path: string, says: string | RegExp) {
    await admin.page.goto(admin.url(path))
    const alert = admin.page.getByRole('alert')
    await alert.getByText(says).waitFor()
    await settled()
    expect(await alert.getByRole('button', { name: 'Retry' }).count()).toBe(1)
    expect(await alert.locator('a, button').last().textContent()).toBe('Retry')
    // Nothing of the service's own error is shown.
    expect(await alert.textContent()).not.toMatch(/craft|pagination|parse|HTTP 400|page_token/)
    return alert
  }

  const PAGE = 'The page in this link is not valid: the link may be old or changed by hand.'
  const FILTER = 'The filter in this link is not valid: the link may be old or changed by hand.'
  const BOTH = 'The page or the filter in this link is not valid: the link may be old or changed by hand.'

  test('Identities: a stale page token, then a search the route refuses; with the keyboard alone', async () => {
    const alert = await openRefused('/dashboard/identities?page_token=not-a-token&trail=.', PAGE)
    expect(admin.harness.sandbox.kratos.callsTo('/admin/identities').at(-1)?.query.get('page_token')).toBe('not-a-token')
    expect(await alert.getByRole('link', { name: 'Clear the filter' }).count()).toBe(0)
    expect(await sweep(admin.page, 'identities-stale-link', () => alert.waitFor())).toEqual([])
    // Keyboard only: the way out is in the tab order, and taking it puts focus on the page's heading.
    await tabTo(admin.page, 'Go to the first page')
    await admin.page.keyboard.press('Enter')
    await admin.page.getByRole('table', { name: /Identities/ }).waitFor()
    expect(query().get('page_token')).toBeNull()
    expect(query().get('trail')).toBeNull()
    expect(await admin.page.evaluate(() => document.activeElement?.tagName)).toBe('H1')
    expect(await admin.page.getByRole('alert').count()).toBe(0)
    expect(await admin.page.getByText('Page 1', { exact: true }).count()).toBe(1)

    // An identifier longer than the route takes (255 characters) is the filter's fault.
    const long = `${'x'.repeat(300)}@example.test`
    const refused = await openRefused(`/dashboard/identities?search=${long}`, FILTER)
    expect(await refused.getByRole('link', { name: 'Go to the first page' }).count()).toBe(0)
    await refused.getByRole('link', { name: 'Clear the filter' }).click()
    await admin.page.getByRole('table', { name: /Identities/ }).waitFor()
    expect(query().get('search')).toBeNull()
    onlyRefusals()
  })

  test('Sessions: a token Kratos cannot parse', async () => {
    const alert = await openRefused('/dashboard/sessions?page_token=stale-bookmark!&trail=.', PAGE)
    expect(await sweep(admin.page, 'sessions-stale-link', () => alert.waitFor())).toEqual([])
    await alert.getByRole('link', { name: 'Go to the first page' }).click()
    await admin.page.getByRole('table', { name: 'Active sessions' }).waitFor()
    expect(query().get('page_token')).toBeNull()
    onlyRefusals()
  })

  test('Messages: a stale token with a filter keeps the filter on the first page; a status Kratos does not know is cleared', async () => {
    const alert = await openRefused('/dashboard/messages?status=abandoned&page_token=not-a-token', BOTH)
    expect(await sweep(admin.page, 'messages-stale-link', () => alert.waitFor())).toEqual([])
    await alert.getByRole('link', { name: 'Go to the first page' }).click()
    await admin.page.getByRole('table', { name: 'Messages' }).waitFor()
    await settled()
    expect(query().get('status')).toBe('abandoned')
    expect(query().get('page_token')).toBeNull()
    expect(new Set(await admin.page.getByRole('table', { name: 'Messages' }).locator('tbody tr td:nth-child(3)').allTextContents())).toEqual(new Set(['abandoned']))

    const refused = await openRefused('/dashboard/messages?status=bogus&recipient=user03%40example.test', FILTER)
    await refused.getByRole('link', { name: 'Clear the filter' }).click()
    await admin.page.getByRole('table', { name: 'Messages' }).waitFor()
    expect([...query().keys()]).toEqual([])
    onlyRefusals()
  })

  /** The select's chosen option as a person (and a screen reader) gets it: its value and its text. */
  const chosen = (name: string) =>
    admin.page.getByRole('combobox', { name }).evaluate((select: HTMLSelectElement) => ({ value: select.value, text: select.selectedOptions[0]?.textContent ?? null }))

  test('A status or an action the page does not know: the dropdown says so rather than going blank, and any choice mends the link', async () => {
    for (const { page: name, param, value, label, unknown, all, pick, rows } of [
      { page: 'messages', param: 'status', value: 'bogus', label: 'Status', unknown: 'Unknown status', all: 'All statuses', pick: 'sent', rows: () => admin.page.getByRole('table', { name: 'Messages' }) },
      { page: 'audit', param: 'action', value: 'everything', label: 'Action', unknown: 'Unknown action', all: 'All actions', pick: 'login', rows: () => admin.page.getByRole('table') },
    ]) {
      const path = `/dashboard/${name}?${param}=${value}`
      await openRefused(path, FILTER)
      expect(await chosen(label)).toEqual({ value, text: unknown })
      expect(await sweep(admin.page, `${name}-unknown-filter`, () => admin.page.getByRole('alert').waitFor())).toEqual([])

      // "All" is a change from the unknown value, so choosing it clears the filter.
      await admin.page.getByRole('combobox', { name: label }).selectOption('')
      await rows().waitFor()
      await settled()
      expect([...query().keys()]).toEqual([])
      expect(await chosen(label)).toEqual({ value: '', text: all })
      expect(await admin.page.getByRole('combobox', { name: label }).getByRole('option', { name: unknown }).count()).toBe(0)

      await openRefused(path, FILTER)
      await admin.page.getByRole('combobox', { name: label }).selectOption(pick)
      await rows().waitFor()
      await settled()
      expect(query().get(param)).toBe(pick)
      expect((await chosen(label)).value).toBe(pick)
    }
    onlyRefusals()
  })

  test('OAuth clients: a token Hydra cannot decrypt', async () => {
    const alert = await openRefused('/dashboard/oauth-clients?page_token=not-a-token&trail=.~x', PAGE)
    expect(await sweep(admin.page, 'oauth-clients-stale-link', () => alert.waitFor())).toEqual([])
    await alert.getByRole('link', { name: 'Go to the first page' }).click()
    await admin.page.getByRole('table', { name: 'OAuth clients' }).waitFor()
    expect(query().get('page_token')).toBeNull()
    expect(query().get('trail')).toBeNull()
    onlyRefusals()
  })

  test('Audit log: a cursor and an action the route refuses', async () => {
    const alert = await openRefused('/dashboard/audit?before=yesterday&trail=0', PAGE)
    expect(await sweep(admin.page, 'audit-stale-link', () => alert.waitFor())).toEqual([])
    await alert.getByRole('link', { name: 'Go to the first page' }).click()
    await admin.page.getByRole('table').waitFor()
    expect(query().get('before')).toBeNull()

    const refused = await openRefused('/dashboard/audit?action=everything&before=12', BOTH)
    await refused.getByRole('link', { name: 'Clear the filter' }).click()
    await admin.page.getByRole('table').waitFor()
    expect([...query().keys()]).toEqual([])
    onlyRefusals()
  })

  test('a failure a retry can mend still offers Retry, even on a link with a page token', async () => {
    const { kratos } = admin.harness.sandbox
    // A token of the second page, as Kratos's Link header gives it.
    const link = (await fetch(`${kratos.url}/admin/sessions?active=true&page_size=3`)).headers.get('link')!
    const token = new URL(/<([^>]*)>; rel="next"/.exec(link)![1]!, kratos.url).searchParams.get('page_token')!
    kratos.failWith = 500
    try {
      await admin.page.goto(admin.url(`/dashboard/sessions?page_token=${encodeURIComponent(token)}&trail=.`))
      const alert = admin.page.getByRole('alert')
      await alert.getByRole('button', { name: 'Retry' }).waitFor()
      expect(await alert.getByRole('link').count()).toBe(0)
    } finally {
      kratos.failWith = null
    }
    await admin.page.getByRole('alert').getByRole('button', { name: 'Retry' }).click()
    await admin.page.getByRole('table', { name: 'Active sessions' }).waitFor()
    expect(query().get('page_token')).toBe(token)
    expect(admin.problems.filter((problem) => !/status of 500\b/.test(problem))).toEqual([])
    admin.problems.length = 0
  })

  test('a record that is not there (an identity, a client, a message): said so, the way back to its list first, and Retry as every error has (ui.md); by keyboard', async () => {
    const { kratos, hydra } = admin.harness.sandbox
    const client = await fetch(`${hydra.url}/admin/clients`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'Deleted meanwhile' }) })
    const clientId = ((await client.json()) as { client_id: string }).client_id
    hydra.clients.delete(clientId)
    const person = kratos.addIdentity({ email: 'deleted.meanwhile@example.test' })
    kratos.identities.delete(person.id)
    for (const [path, said, list, heading] of [
      [`/dashboard/identities/${person.id}`, 'Kratos has no identity with this ID.', 'Identities', 'Identities'],
      [`/dashboard/oauth-clients/${clientId}`, 'Hydra has no OAuth client with this ID.', 'OAuth clients', 'OAuth clients'],
      [`/dashboard/messages/${crypto.randomUUID()}`, 'Kratos has no message with this ID.', 'Messages', 'Messages'],
    ] as const) {
      await admin.page.goto(admin.url(path))
      const alert = admin.page.getByRole('alert')
      await alert.waitFor()
      await settled()
      expect((await alert.textContent())!.replace(/\s+/g, ' ')).toBe(`${said} It may have been deleted, or the link is old.Go to ${list}Retry`)
      expect(await alert.getByRole('button', { name: 'Retry' }).count()).toBe(1)
      if (heading === 'Identities') expect(await sweep(admin.page, 'record-missing', () => alert.waitFor())).toEqual([])
      await tabTo(admin.page, `Go to ${list}`)
      await admin.page.keyboard.press('Enter')
      await admin.page.getByRole('heading', { level: 1, name: heading }).waitFor()
    }
    expect(admin.problems.filter((problem) => !/status of 404\b/.test(problem))).toEqual([])
    admin.problems.length = 0
  })
})
