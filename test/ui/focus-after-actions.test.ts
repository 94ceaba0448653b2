// Where focus and announcements go after small actions, with the keyboard alone: a filter cleared,
// an inline edit cancelled, an API key removed, a revealed value masked by the page, a record's
// breadcrumb back to its list, and the audit log's actors read out by name.
import { expect, test } from 'bun:test'
import type { Locator } from 'playwright-core'
import { SANDBOX_USERS } from '../../dev/sandbox.ts'
import { tabTo, useSignedInBrowser } from './harness.ts'

const admin = useSignedInBrowser('admin', '/dashboard')

const isFocused = (locator: Locator) => locator.evaluate((element) => element === document.activeElement)
const identityIdOf = (email: string) => [...admin.harness.sandbox.kratos.identities.values()].find((identity) => identity.traits.email === email)!.id

test('a button that clears a filter goes with it and leaves focus in the field, where the next search is typed: Clear search, Show all, Show everyone, Show every request', async () => {
  const page = admin.page
  const status = page.getByRole('status')

  await page.goto(admin.url('/dashboard/identities?search=user07%40example.test'))
  await page.getByRole('table').getByRole('link', { name: 'user07@example.test' }).waitFor()
  await tabTo(page, 'Clear search')
  await page.keyboard.press('Enter')
  await page.waitForURL((url) => !url.searchParams.has('search'))
  await status.getByText(/identities shown\./).waitFor()
  const identities = page.getByRole('searchbox', { name: 'Search identities' })
  expect(await isFocused(identities)).toBe(true)
  await page.keyboard.type('user09@example.test')
  await page.keyboard.press('Enter')
  await page.waitForURL((url) => url.searchParams.get('search') === 'user09@example.test')
  await status.getByText('1 identity shown.').waitFor()

  await page.goto(admin.url('/dashboard/oauth-clients?name=Customer%20portal'))
  await page.getByRole('table', { name: 'OAuth clients' }).getByRole('link', { name: 'Customer portal' }).waitFor()
  await tabTo(page, 'Show all')
  await page.keyboard.press('Enter')
  await page.waitForURL((url) => !url.searchParams.has('name'))
  await status.getByText(/clients shown\./).waitFor()
  expect(await isFocused(page.getByRole('searchbox', { name: 'Search clients by name' }))).toBe(true)

  await page.goto(admin.url(`/dashboard/audit?actor=${identityIdOf(SANDBOX_USERS.admin)}`))
  await page.getByRole('table').locator('tbody tr').first().waitFor()
  await tabTo(page, 'Show everyone')
  await page.keyboard.press('Enter')
  await page.waitForURL((url) => !url.searchParams.has('actor'))
  await status.getByText(/audit events? shown\./).waitFor()
  expect(await isFocused(page.getByRole('textbox', { name: 'Actor (identity ID)' }))).toBe(true)

  await page.goto(admin.url('/dashboard/audit?request_id=00000000-0000-4000-8000-000000000000'))
  await page.getByText('No audit event matches this filter.').waitFor()
  await tabTo(page, 'Show every request')
  await page.keyboard.press('Enter')
  await page.waitForURL((url) => !url.searchParams.has('request_id'))
  await status.getByText(/audit events? shown\./).waitFor()
  expect(await isFocused(page.getByRole('textbox', { name: 'Request ID' }))).toBe(true)
  expect(admin.problems.splice(0)).toEqual([])
})

test('Cancel of Edit client gives focus back to Edit client, not to the section heading', async () => {
  const page = admin.page
  await page.goto(admin.url('/dashboard/oauth-clients'))
  await page.getByRole('link', { name: 'Billing service' }).click()
  await page.getByRole('heading', { level: 1, name: 'Billing service' }).waitFor()
  await tabTo(page, 'Edit client')
  await page.keyboard.press('Enter')
  const form = page.getByRole('region', { name: 'Edit client' })
  await form.getByRole('button', { name: 'Cancel' }).focus()
  await page.keyboard.press('Enter')
  await form.waitFor({ state: 'detached' })
  expect(await isFocused(page.getByRole('button', { name: 'Edit client' }))).toBe(true)
  // And it opens again from there.
  await page.keyboard.press('Enter')
  await form.waitFor()
  expect(admin.problems.splice(0)).toEqual([])
})

test('removing an upstream API key gives focus to that prefix’s Set key, which takes the place of its Replace key and Remove', async () => {
  const page = admin.page
  await admin.harness.sandbox.services.settings.write({ key: 'proxy.oauth-admin.api_key', value: 'ory_pat_focus-0123456789', encrypted: true, category: 'proxy' }, null)
  await page.goto(admin.url('/dashboard/settings'))
  const keyRow = page
    .getByRole('region', { name: 'Upstream API keys' })
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name: '/api/oauth-admin', exact: true }) })
  await keyRow.getByRole('button', { name: 'Remove key for oauth-admin' }).waitFor()
  await tabTo(page, 'Remove key for oauth-admin')
  await page.keyboard.press('Enter')
  const question = page.getByRole('dialog', { name: 'Remove API key?' })
  await question.getByRole('button', { name: 'Remove' }).focus()
  await page.keyboard.press('Enter')
  await page.getByRole('status').getByText('API key for oauth-admin removed.').waitFor()
  const setKey = keyRow.getByRole('button', { name: 'Set key for oauth-admin' })
  await setKey.waitFor()
  await keyRow.getByRole('button', { name: 'Remove key for oauth-admin' }).waitFor({ state: 'detached' })
  expect(await isFocused(setKey)).toBe(true)
  expect(admin.problems.splice(0)).toEqual([])
})

test('a revealed value masked again by the page after 30 s says so in the status region, once; Hide pressed by the person says nothing', async () => {
  const page = admin.page
  await admin.harness.sandbox.services.settings.write({ key: 'webhook.signing_secret', value: 'whsec-focus-0001', encrypted: true, category: 'webhooks' }, null)
  await page.clock.install()
  await page.goto(admin.url('/dashboard/settings'))
  const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'webhook.signing_secret', exact: true }) })
  const status = page.getByRole('status')
  await row.getByRole('button', { name: 'Reveal webhook.signing_secret' }).waitFor()
  // Every text the status region shows, in order.
  await page.evaluate(() => {
    const region = document.querySelector('[role="status"]')!
    const said: string[] = ((window as unknown as { said: string[] }).said = [])
    new MutationObserver(() => region.textContent && said.push(region.textContent)).observe(region, { childList: true, subtree: true, characterData: true })
  })
  await row.getByRole('button', { name: 'Reveal webhook.signing_secret' }).press('Enter')
  await row.getByText('whsec-focus-0001').waitFor()
  await page.clock.fastForward(31_000)
  await status.getByText('webhook.signing_secret masked again.').waitFor()
  expect(await row.textContent()).not.toContain('whsec-focus-0001')
  // Focus stays on the row's button, Reveal again.
  expect(await isFocused(row.getByRole('button', { name: 'Reveal webhook.signing_secret' }))).toBe(true)
  await page.clock.fastForward(60_000)
  expect(await status.textContent()).toBe('')

  await page.keyboard.press('Enter')
  await row.getByText('whsec-focus-0001').waitFor()
  await row.getByRole('button', { name: 'Hide webhook.signing_secret' }).press('Enter')
  await row.getByRole('button', { name: 'Reveal webhook.signing_secret' }).waitFor()
  await page.clock.fastForward(31_000)
  expect(await page.evaluate(() => (window as unknown as { said: string[] }).said)).toEqual(['webhook.signing_secret masked again.'])
  expect(admin.problems.splice(0)).toEqual([])
})

test('a record’s breadcrumb leads back to its list as it was left, filter and page kept, as Back does: a message, an identity, a client', async () => {
  const page = admin.page
  const table = page.getByRole('table')
  /**
   * Opens the list at `list` (on its next page when `nextPage`), opens its first record, and comes
   * back by the breadcrumb `crumb`, with the keyboard: to the same list, the same first record.
   */
  const backByBreadcrumb = async (list: string, crumb: string, nextPage: boolean) => {
    await page.goto(admin.url(list))
    await table.waitFor()
    if (nextPage) {
      await page.getByRole('button', { name: 'Next page' }).click()
      await page.getByText('Page 2', { exact: true }).waitFor()
    }
    const left = page.url()
    const record = table.getByRole('link').first()
    const name = (await record.textContent())!
    await record.click()
    await page.waitForURL((url) => url.href !== left)
    await page.getByRole('heading', { level: 1 }).waitFor()
    await page.getByRole('link', { name: crumb, exact: true }).and(page.locator('.breadcrumb a')).focus()
    await page.keyboard.press('Enter')
    await page.waitForURL(left)
    await page.getByRole('heading', { level: 1, name: crumb }).waitFor()
    if (nextPage) await page.getByText('Page 2', { exact: true }).waitFor()
    expect(await table.getByRole('link').first().textContent()).toBe(name)
  }
  await backByBreadcrumb('/dashboard/messages?status=abandoned', 'Messages', false)
  await backByBreadcrumb('/dashboard/messages', 'Messages', true)
  await backByBreadcrumb('/dashboard/identities?search=user07%40example.test', 'Identities', false)
  await backByBreadcrumb('/dashboard/oauth-clients', 'OAuth clients', true)
  expect(admin.problems.splice(0)).toEqual([])
})

test('the audit log names the signed-in actor by e-mail, its id beside it; an actor the page does not know keeps its id', async () => {
  const page = admin.page
  const adminId = identityIdOf(SANDBOX_USERS.admin)
  const other = '0a1b2c3d-0000-4000-8000-0000000000aa'
  await admin.harness.sandbox.services.audit.record({ action: 'login', actor: other, target: null, detail: { outcome: 'refused', reason: 'no_role' } })
  await page.goto(admin.url('/dashboard/audit?action=login'))
  const table = page.getByRole('table')
  const own = table.getByRole('link', { name: SANDBOX_USERS.admin, exact: true }).first()
  await own.waitFor()
  expect(await own.getAttribute('href')).toBe(`/dashboard/identities/${adminId}`)
  expect(await table.getByRole('link', { name: adminId }).count()).toBe(0)
  // The id is still there to read and copy (the actor filter takes it).
  expect(await own.locator('xpath=..').textContent()).toContain(adminId)
  expect(await table.getByRole('link', { name: other, exact: true }).getAttribute('href')).toBe(`/dashboard/identities/${other}`)
  expect(admin.problems.splice(0)).toEqual([])
})
