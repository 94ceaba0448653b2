// Paging through the lists as an administrator does it: the Page size control of each list that has
// one (what it offers, what it shows, what it asks the upstream for) and the audit log's Older events
// and Newer events.
import { expect, test } from 'bun:test'
import type { Locator } from 'playwright-core'
import { useSignedInBrowser } from './harness.ts'

const admin = useSignedInBrowser('admin', '/dashboard')

const pageSize = () => admin.page.getByRole('combobox', { name: 'Page size' })
const query = (name: string) => new URL(admin.page.url()).searchParams.get(name)

/** Waits until nothing in the page is loading and `table` has `count` rows. */
async function rowsShown(table: Locator, count: number): Promise<void> {
  await table.waitFor()
  await admin.page.waitForFunction((n) => !document.querySelector('main [aria-busy="true"]') && document.querySelectorAll('main tbody tr').length === n, count)
}

test('Identities: Page size offers 25, 50, 100 and 250; the size picked is the rows shown, is kept in the link and is what Kratos is asked for', async () => {
  const { kratos } = admin.harness.sandbox
  // More identities than the largest page but one shows: each size shows a different number of rows.
  const added = Array.from({ length: 80 }, (_, i) => kratos.addIdentity({ email: `paged${String(i).padStart(2, '0')}@example.test` }))
  try {
    const total = kratos.identities.size
    expect(total).toBeGreaterThan(100)
    expect(total).toBeLessThan(250)
    // Kratos lists identities by id.
    // Each named by its schema's login identifier: a customer by its number, everyone else by e-mail.
    const inKratosOrder = [...kratos.identities.values()]
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .map((identity) => (identity.traits.customer_number ?? identity.traits.email) as string)
    const table = admin.page.getByRole('table', { name: /Identities/ })
    const identifiers = () => table.locator('tbody tr td:nth-child(2)').allTextContents()
    const askedFor = () => kratos.callsTo('/admin/identities').at(-1)?.query.get('page_size')

    await admin.page.goto(admin.url('/dashboard/identities'))
    await rowsShown(table, 25)
    expect(await pageSize().locator('option').allTextContents()).toEqual(['25', '50', '100', '250'])
    expect(await pageSize().inputValue()).toBe('25')
    expect(await identifiers()).toEqual(inKratosOrder.slice(0, 25))
    expect(askedFor()).toBe('25')

    // From the keyboard: the control takes focus, the arrow keys step through the sizes and Enter
    // shows the size chosen; each new list is read from the top, with focus on the h1, so the
    // control is reached again for the next.
    for (const size of [50, 100, 250]) {
      await pageSize().focus()
      await admin.page.keyboard.press('ArrowDown')
      await admin.page.keyboard.press('Enter')
      await admin.page.waitForURL((url) => url.searchParams.get('page_size') === String(size))
      await rowsShown(table, Math.min(size, total))
      expect(await identifiers()).toEqual(inKratosOrder.slice(0, size))
      expect(askedFor()).toBe(String(size))
      expect(await pageSize().inputValue()).toBe(String(size))
      await admin.page.waitForFunction(() => document.activeElement?.tagName === 'H1')
    }

    // A reload keeps the size the link holds; back at 25, the default, the link carries none.
    await admin.page.reload()
    await rowsShown(table, total)
    expect(await pageSize().inputValue()).toBe('250')
    await pageSize().selectOption('25')
    await admin.page.waitForURL((url) => !url.searchParams.has('page_size'))
    await rowsShown(table, 25)
    expect(await identifiers()).toEqual(inKratosOrder.slice(0, 25))
    expect(askedFor()).toBe('25')
    expect(admin.problems).toEqual([])
  } finally {
    for (const identity of added) kratos.identities.delete(identity.id)
  }
}, 60_000)

test('Identities: a size picked on a later page starts again from the first page', async () => {
  const table = admin.page.getByRole('table', { name: /Identities/ })
  await admin.page.goto(admin.url('/dashboard/identities'))
  await rowsShown(table, 25)
  await admin.page.getByRole('button', { name: 'Next page' }).click()
  await admin.page.waitForURL((url) => url.searchParams.has('page_token'))
  await admin.page.getByRole('table', { name: 'Identities, page 2' }).waitFor()
  await pageSize().selectOption('50')
  await admin.page.waitForURL((url) => url.searchParams.get('page_size') === '50')
  expect([query('page_token'), query('trail')]).toEqual([null, null])
  await admin.page.getByRole('table', { name: 'Identities, page 1' }).waitFor()
  await rowsShown(table, Math.min(50, admin.harness.sandbox.kratos.identities.size))
  expect(await admin.page.getByRole('button', { name: 'Previous page' }).isDisabled()).toBe(true)
  expect(admin.problems).toEqual([])
})

interface PagedList {
  name: string
  path: string
  table: string
  /** How many rows the upstream holds for this list. */
  total: () => number
  /** The page_size the upstream was last asked for. */
  askedFor: () => string | null | undefined
}

const lists = (): PagedList[] => {
  const { kratos, hydra } = admin.harness.sandbox
  return [
    { name: 'Sessions', path: '/dashboard/sessions', table: 'Active sessions', total: () => kratos.sessions.filter((s) => s.active).length, askedFor: () => kratos.callsTo('/admin/sessions').at(-1)?.query.get('page_size') },
    { name: 'Messages', path: '/dashboard/messages', table: 'Messages', total: () => kratos.messages.length, askedFor: () => kratos.callsTo('/admin/courier/messages').at(-1)?.query.get('page_size') },
    { name: 'OAuth clients', path: '/dashboard/oauth-clients', table: 'OAuth clients', total: () => hydra.clients.size, askedFor: () => hydra.calls.filter((call) => call.path === '/admin/clients' && call.method === 'GET').at(-1)?.query.get('page_size') },
  ]
}

for (const name of ['Sessions', 'Messages', 'OAuth clients']) {
  test(`${name}: Page size offers 25, 50, 100 and 250, and the size picked is the rows shown, kept in the link and asked for`, async () => {
    const list = lists().find((candidate) => candidate.name === name)!
    const total = list.total()
    // The sandbox holds more than one page of 25 and fewer than 50.
    expect(total).toBeGreaterThan(25)
    expect(total).toBeLessThan(50)
    const table = admin.page.getByRole('table', { name: list.table })
    await admin.page.goto(admin.url(list.path))
    await rowsShown(table, 25)
    expect(await pageSize().locator('option').allTextContents()).toEqual(['25', '50', '100', '250'])
    expect(await pageSize().inputValue()).toBe('25')
    expect(list.askedFor()).toBe('25')

    await pageSize().selectOption('50')
    await admin.page.waitForURL((url) => url.searchParams.get('page_size') === '50')
    await rowsShown(table, total)
    expect(list.askedFor()).toBe('50')
    expect(await admin.page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true)

    await pageSize().selectOption('25')
    await admin.page.waitForURL((url) => !url.searchParams.has('page_size'))
    await rowsShown(table, 25)
    expect(list.askedFor()).toBe('25')
    expect(admin.problems).toEqual([])
  })
}

test('Audit log: Older events and Newer events page through every event newest first, each once, and back', async () => {
  const { audit } = admin.harness.sandbox.services
  // Two pages and a part of a third (the page holds 50 events).
  for (let i = 1; i <= 120; i++) await audit.record({ action: 'settings_write', actor: null, target: `paging.key_${String(i).padStart(3, '0')}` })
  const everything = (await audit.list({ limit: 1000 })).map((event) => event.target ?? '—')
  expect(everything.length).toBeGreaterThan(100)
  expect(everything.length).toBeLessThanOrEqual(150)
  // Newest first: the last one recorded leads.
  expect(everything.slice(0, 3)).toEqual(['paging.key_120', 'paging.key_119', 'paging.key_118'])
  const expectedPages = [everything.slice(0, 50), everything.slice(50, 100), everything.slice(100)]

  const table = admin.page.getByRole('table', { name: 'Audit events, newest first' })
  const older = admin.page.getByRole('button', { name: 'Older events' })
  const newer = admin.page.getByRole('button', { name: 'Newer events' })
  /** The targets of the page shown once it is the one whose first event is `first`. */
  const pageStartingWith = async (first: string, count: number) => {
    await rowsShown(table, count)
    await admin.page.waitForFunction((target) => document.querySelector('main tbody tr td:nth-child(4)')?.textContent === target, first)
    return table.locator('tbody tr td:nth-child(4)').allTextContents()
  }

  await admin.page.goto(admin.url('/dashboard/audit'))
  const shown = [await pageStartingWith(expectedPages[0]![0]!, expectedPages[0]!.length)]
  expect(await newer.isDisabled()).toBe(true)
  for (const expected of expectedPages.slice(1)) {
    await older.click()
    shown.push(await pageStartingWith(expected[0]!, expected.length))
  }
  expect(await older.isDisabled()).toBe(true)
  // Every event, newest first, none twice and none left out.
  expect(shown.flat()).toEqual(everything)
  expect(shown.map((page) => page.length)).toEqual(expectedPages.map((page) => page.length))

  // Newer events walks back through the same pages to the first, whose link names no place.
  await newer.click()
  expect(await pageStartingWith(expectedPages[1]![0]!, 50)).toEqual(shown[1]!)
  await newer.click()
  expect(await pageStartingWith(expectedPages[0]![0]!, 50)).toEqual(shown[0]!)
  expect([query('before'), query('trail')]).toEqual([null, null])
  expect(await newer.isDisabled()).toBe(true)

  // The browser's Back goes to the page before as well.
  await older.click()
  await pageStartingWith(expectedPages[1]![0]!, 50)
  await admin.page.goBack()
  expect(await pageStartingWith(expectedPages[0]![0]!, 50)).toEqual(shown[0]!)
  expect(admin.problems).toEqual([])
}, 60_000)
