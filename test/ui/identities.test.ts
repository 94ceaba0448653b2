// An administrator manages identities in a real browser (headless Chromium) against the sandbox.
import { expect, test } from 'bun:test'
import { join } from 'node:path'
import { SANDBOX_USERS } from '../../dev/sandbox.ts'
import { answerTooLate, createIdentityThroughForm, DESKTOP, holdRequests, pageOnFakeClock, PHONE, SCREENSHOT_DIR, signedInPage, sweep, tabTo, useSignedInBrowser } from './harness.ts'
import { within } from '../support/eventually.ts'

// Signed in from a deep link: the sign-in lands back on it.
const admin = useSignedInBrowser('admin', '/dashboard/identities?page_size=25')

const table = () => admin.page.getByRole('table', { name: /Identities/ })
const settled = () => admin.page.waitForFunction(() => document.querySelector('[aria-busy="true"]') === null && document.querySelectorAll('tbody tr').length > 0)
const identifiersOnPage = async () => {
  await settled()
  return table().locator('tbody tr td:nth-child(2)').allTextContents()
}

test('an admin who signed in from a deep link lands on it', async () => {
  expect(admin.page.url()).toBe(admin.url('/dashboard/identities?page_size=25'))
  await admin.page.getByRole('heading', { level: 1, name: 'Identities' }).waitFor()
  await admin.page.waitForFunction((title) => document.title === title, 'Identities · admin-dashboard')
  for (const name of ['Identifier', 'Name', 'State', 'Created']) await table().getByRole('columnheader', { name }).waitFor()
})

test('an admin pages through all identities and sees each one once; back returns to the previous page', async () => {
  // Each named by its login identifier: the e-mail address, or for the sandbox's customers the customer number.
  const everyone = [...admin.harness.sandbox.kratos.identities.values()].map((identity) => (identity.schema_id === 'customer' ? identity.traits.customer_number : identity.traits.email) as string)
  const seen: string[] = []
  await table().waitFor()
  for (;;) {
    const rows = await identifiersOnPage()
    expect(rows.length).toBeLessThanOrEqual(25)
    seen.push(...rows)
    const next = admin.page.getByRole('button', { name: 'Next page' })
    if (await next.isDisabled()) break
    const number = seen.length / 25 + 1
    await next.click()
    await admin.page.waitForFunction((n) => document.querySelector('.pager span')?.textContent === `Page ${n}` && document.querySelector('[aria-busy="true"]') === null, number)
  }
  expect(seen.sort()).toEqual(everyone.sort())
  expect(new Set(seen).size).toBe(seen.length)

  // The URL holds the place: a reload shows the same page; Previous page and the browser's back work.
  const lastPage = await identifiersOnPage()
  await admin.page.reload()
  await table().waitFor()
  expect(await identifiersOnPage()).toEqual(lastPage)
  await admin.page.getByRole('button', { name: 'Previous page' }).click()
  await admin.page.waitForFunction(() => document.querySelector('.pager span')?.textContent === 'Page 1' && document.querySelector('[aria-busy="true"]') === null)
  expect((await identifiersOnPage()).length).toBe(25)
  await admin.page.goBack()
  await admin.page.waitForFunction(() => document.querySelector('.pager span')?.textContent === 'Page 2' && document.querySelector('[aria-busy="true"]') === null)
  expect(await identifiersOnPage()).toEqual(lastPage)
}, 60_000)

test('a search made before the first list has arrived is said too: only the list the page opened with goes unannounced', async () => {
  const page = admin.page
  await page.goto(admin.url('/dashboard'))
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
  // The list the page opens with (no search) is held back; the search's own list is not.
  const firstList = await holdRequests(page, (url) => url.pathname === '/api/identities' && !url.searchParams.has('credentials_identifier'))
  try {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Identities' }).click()
    await page.getByRole('searchbox', { name: 'Search identities' }).fill('user07@example.test')
    await page.keyboard.press('Enter')
    await page.getByRole('status').getByText('1 identity shown.').waitFor()
  } finally {
    await firstList.stop()
  }
  expect(await identifiersOnPage()).toEqual(['user07@example.test'])
})

test('an admin finds one identity by its exact identifier, and a near miss says nothing matched', async () => {
  await admin.page.goto(admin.url('/dashboard/identities'))
  await admin.page.getByRole('searchbox', { name: 'Search identities' }).fill('user07@example.test')
  await admin.page.keyboard.press('Enter')
  await admin.page.waitForURL(/search=user07/)
  await table().waitFor()
  expect(await identifiersOnPage()).toEqual(['user07@example.test'])
  // Focus stays in the search box: what the search found is said in the status region.
  await admin.page.getByRole('status').getByText('1 identity shown.').waitFor()
  await admin.page.getByRole('searchbox', { name: 'Search identities' }).fill('user07@example')
  await admin.page.keyboard.press('Enter')
  await admin.page.getByRole('main').getByText('No identity has the identifier “user07@example”.').waitFor()
  await admin.page.getByRole('status').getByText('No identity has the identifier “user07@example”.').waitFor()
  // Back and forward move the search box with the URL, not only the table.
  const box = admin.page.getByRole('searchbox', { name: 'Search identities' })
  await admin.page.goBack()
  await admin.page.waitForURL(/search=user07%40example\.test/)
  await admin.page.waitForFunction(() => (document.getElementById('identity-search') as HTMLInputElement | null)?.value === 'user07@example.test')
  expect(await box.inputValue()).toBe('user07@example.test')
  await admin.page.goForward()
  await admin.page.getByRole('main').getByText('No identity has the identifier “user07@example”.').waitFor()
  expect(await box.inputValue()).toBe('user07@example')
})

test('a pasted identifier longer than the 255 characters the route accepts is not cut and searched as another: the box says the limit and nothing is searched; a longer link is still refused', async () => {
  const { kratos } = admin.harness.sandbox
  const long = `${'l'.repeat(300)}@example.test`
  const person = kratos.addIdentity({ email: long })
  const searches = () => kratos.calls.filter((call) => call.query.has('credentials_identifier')).length
  const limitSaid = 'The search takes at most 255 characters; this text has 313. A longer identifier cannot be searched for.'
  try {
    await admin.page.goto(admin.url('/dashboard/identities'))
    await table().waitFor()
    const box = admin.page.getByRole('searchbox', { name: 'Search identities' })
    await admin.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: admin.harness.sandbox.url })
    await admin.page.evaluate((text) => navigator.clipboard.writeText(text), long)
    await box.fill('user07@example.test')
    await box.selectText()
    await admin.page.keyboard.press('ControlOrMeta+V')
    await admin.context.clearPermissions()
    expect(await box.inputValue()).toBe(long)
    const before = searches()
    await admin.page.getByRole('button', { name: 'Search', exact: true }).click()
    await admin.page.getByText(limitSaid).waitFor()
    // Focus goes to the box, which the message describes; nothing was searched, and no "No identity has" for a text never searched.
    expect(await admin.page.evaluate(() => [document.activeElement?.id, document.activeElement?.getAttribute('aria-describedby')])).toEqual(['identity-search', 'identity-search-error'])
    expect(await box.getAttribute('aria-invalid')).toBe('true')
    expect(new URL(admin.page.url()).searchParams.has('search')).toBe(false)
    expect(searches()).toBe(before)
    expect(await admin.page.getByText(/No identity has the identifier/).count()).toBe(0)
    expect(await identifiersOnPage()).toHaveLength(25)
    expect(await sweep(admin.page, 'identities-search-too-long', () => admin.page.getByText(limitSaid).waitFor())).toEqual([])

    // Within the limit, it is searched as typed, and the message goes.
    const kept = long.slice(0, 255)
    await box.fill(kept)
    await admin.page.keyboard.press('Enter')
    await admin.page.getByRole('main').getByText(`No identity has the identifier “${kept}”.`).waitFor()
    expect(new URL(admin.page.url()).searchParams.get('search')).toBe(kept)
    expect(await admin.page.getByText(limitSaid).count()).toBe(0)
    expect(await box.getAttribute('aria-invalid')).toBeNull()

    // A link that carries a longer search is not cut short behind the person's back: the route refuses it, and the page says so.
    await admin.page.goto(admin.url(`/dashboard/identities?search=${encodeURIComponent(long)}`))
    await admin.page.getByRole('alert').getByText('The filter in this link is not valid: the link may be old or changed by hand.').waitFor()
    expect(await box.inputValue()).toBe(long)
    expect(admin.problems.filter((problem) => !/status of 400\b/.test(problem))).toEqual([])
    admin.problems.length = 0
  } finally {
    kratos.identities.delete(person.id)
  }
})

test('an admin opens an identity: its identifier is the heading, its sessions are listed', async () => {
  await admin.page.goto(admin.url('/dashboard/identities?search=user05%40example.test'))
  await admin.page.getByRole('link', { name: 'user05@example.test' }).click()
  await admin.page.getByRole('heading', { level: 1, name: 'user05@example.test' }).waitFor()
  // Focus moved to the heading on navigation.
  await admin.page.waitForFunction(() => document.activeElement?.tagName === 'H1')
  await admin.page.waitForFunction((title) => document.title === title, 'user05@example.test · admin-dashboard')
  const sessions = admin.page.getByRole('region', { name: 'Sessions' })
  await sessions.getByRole('button', { name: 'Revoke session 1' }).waitFor()
  await admin.page.goBack()
  await admin.page.getByRole('heading', { level: 1, name: 'Identities' }).waitFor()
})

test('an admin deletes an identity after typing its identifier; that identity’s dashboard session stops working', async () => {
  // The viewer signs in elsewhere first.
  const viewer = await signedInPage(admin.harness, 'viewer')
  expect((await viewer.context.request.get(admin.url('/api/auth/session'))).status()).toBe(200)

  await admin.page.goto(admin.url(`/dashboard/identities?search=${encodeURIComponent(SANDBOX_USERS.viewer)}`))
  await admin.page.getByRole('link', { name: SANDBOX_USERS.viewer }).click()
  await admin.page.getByRole('heading', { level: 1, name: SANDBOX_USERS.viewer }).waitFor()
  const opener = admin.page.getByRole('button', { name: 'Delete identity' })
  await opener.click()
  const dialog = admin.page.getByRole('dialog', { name: 'Delete identity?' })
  const confirm = dialog.getByRole('button', { name: 'Delete', exact: true })
  expect(await confirm.isDisabled()).toBe(true)
  // Escape closes the dialog and focus returns to the button that opened it.
  await admin.page.keyboard.press('Escape')
  await dialog.waitFor({ state: 'hidden' })
  expect(await admin.page.evaluate(() => document.activeElement?.textContent)).toBe('Delete identity')
  await opener.click()
  await dialog.getByRole('textbox', { name: `Type ${SANDBOX_USERS.viewer} to confirm` }).fill(SANDBOX_USERS.viewer)
  await confirm.click()
  await admin.page.waitForURL(admin.url('/dashboard/identities'))
  await admin.page.getByRole('status').getByText(`Identity ${SANDBOX_USERS.viewer} deleted.`).waitFor()
  expect([...admin.harness.sandbox.kratos.identities.values()].some((i) => i.traits.email === SANDBOX_USERS.viewer)).toBe(false)
  expect((await viewer.context.request.get(admin.url('/api/auth/session'))).status()).toBe(401)
  await viewer.context.close()
}, 60_000)

test('with the keyboard alone: skip link, search, open the identity, a dialog and back', async () => {
  await admin.page.goto(admin.url('/dashboard/identities'))
  await table().waitFor()
  await admin.page.keyboard.press('Tab')
  expect(await admin.page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content')
  const entries = await admin.page.evaluate(() => history.length)
  await admin.page.keyboard.press('Enter')
  // The skip link lands on the page's heading and makes no history entry (Back leaves the page).
  expect(await admin.page.evaluate(() => document.activeElement?.id)).toBe('page-title')
  expect(await admin.page.evaluate(() => history.length)).toBe(entries)
  await tabTo(admin.page, 'Search identities')
  await admin.page.keyboard.type('user09@example.test')
  await admin.page.keyboard.press('Enter')
  await admin.page.waitForURL(/search=user09/)
  await table().getByRole('link', { name: 'user09@example.test' }).waitFor()
  await tabTo(admin.page, 'user09@example.test')
  await admin.page.keyboard.press('Enter')
  await admin.page.getByRole('heading', { level: 1, name: 'user09@example.test' }).waitFor()
  await admin.page.waitForFunction(() => document.activeElement?.tagName === 'H1')
  await tabTo(admin.page, 'Revoke all sessions')
  await admin.page.keyboard.press('Enter')
  const dialog = admin.page.getByRole('dialog', { name: 'Revoke all sessions?' })
  await dialog.waitFor()
  // Focus stays inside the dialog.
  for (let i = 0; i < 4; i++) {
    await admin.page.keyboard.press('Tab')
    expect(await admin.page.evaluate(() => Boolean(document.activeElement?.closest('dialog')))).toBe(true)
  }
  await admin.page.keyboard.press('Escape')
  await dialog.waitFor({ state: 'hidden' })
  expect(await admin.page.evaluate(() => document.activeElement?.textContent)).toBe('Revoke all sessions')
  await admin.page.goBack()
  await admin.page.getByRole('heading', { level: 1, name: 'Identities' }).waitFor()
  // Create identity: once the schema's form replaces the loading state, focus is in its first field:
  // the choice of schema (the sandbox has two), then Tab goes on to the chosen schema's first field.
  await tabTo(admin.page, 'Create identity')
  await admin.page.keyboard.press('Enter')
  const create = admin.page.getByRole('dialog', { name: 'Create identity' })
  await create.getByRole('textbox', { name: /e-?mail/i }).first().waitFor()
  await admin.page.waitForFunction(() => document.activeElement?.closest('dialog') !== null && document.activeElement?.id === 'create-schema', undefined, { timeout: 5000 })
  await admin.page.keyboard.press('Tab')
  await admin.page.keyboard.type('typed.first@example.test')
  expect(await create.getByRole('textbox', { name: /e-?mail/i }).first().inputValue()).toBe('typed.first@example.test')
  // Escape asks before it drops what was typed; declined, the form stays as it was, focus in it.
  const asked: string[] = []
  admin.page.once('dialog', (question) => (asked.push(question.message()), void question.dismiss()))
  await admin.page.keyboard.press('Escape')
  await admin.page.waitForFunction(() => document.activeElement?.closest('dialog') !== null)
  expect(asked).toEqual(['Your changes to the new identity are not saved. Close anyway?'])
  expect(await create.isVisible()).toBe(true)
  expect(await create.getByRole('textbox', { name: /e-?mail/i }).first().inputValue()).toBe('typed.first@example.test')
  expect(await admin.page.evaluate(() => document.activeElement?.closest('dialog') !== null)).toBe(true)
  // Accepted, it closes, and focus is back on Create identity.
  admin.page.once('dialog', (question) => (asked.push(question.message()), void question.accept()))
  await admin.page.keyboard.press('Escape')
  await create.waitFor({ state: 'hidden' })
  expect(asked).toHaveLength(2)
  expect(await admin.page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Create identity')
  // Nothing typed: Escape closes at once, without a question.
  await admin.page.keyboard.press('Enter')
  await create.getByRole('textbox', { name: /e-?mail/i }).first().waitFor()
  await admin.page.keyboard.press('Escape')
  await create.waitFor({ state: 'hidden' })
  expect(asked).toHaveLength(2)
}, 60_000)

test('after Back focus is on the h1 as the page appears, and keys pressed before its next frame are not undone', async () => {
  const other = await pageOnFakeClock(admin.harness, 'admin', '/dashboard/identities?search=user09%40example.test', 'user09@example.test')
  try {
    const { page: tab } = other
    // A slow phone: the page is drawn but its next frame has not come (the clock is paused), and
    // the person already presses keys.
    await tab.clock.pauseAt(Date.now() + 60_000)
    // The list's answer is held too, so nothing but the keys renders the page again meanwhile.
    const list = await holdRequests(tab, (url) => url.pathname === '/api/identities')
    await tab.goBack()
    await tab.getByRole('heading', { level: 1, name: 'Identities' }).waitFor()
    expect(await tab.evaluate(() => document.activeElement?.id)).toBe('page-title')
    await tabTo(tab, 'Create identity')
    await tab.keyboard.press('Enter')
    await tab.clock.runFor(1_000)
    const create = tab.getByRole('dialog', { name: 'Create identity' })
    await create.getByRole('textbox', { name: /e-?mail/i }).first().waitFor()
    await tab.keyboard.press('Escape')
    await tab.clock.runFor(1_000)
    await create.waitFor({ state: 'hidden' })
    expect(await tab.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Create identity')
    list.release()
    await tab.getByRole('table', { name: /Identities/ }).waitFor()
    await list.stop()
    expect(other.problems).toEqual([])
  } finally {
    await other.context.close()
  }
}, 60_000)

test('another page size from the keyboard: the arrow keys step through the sizes without reading the list, Enter reads it again from the top, and focus goes to the h1 there with it, not left on the select far down the page', async () => {
  const { page } = admin
  await page.goto(admin.url('/dashboard/identities'))
  await settled()
  const size = page.getByRole('combobox', { name: 'Page size' })
  await size.focus()
  const before = page.url()
  await page.keyboard.press('ArrowDown')
  await page.keyboard.press('ArrowDown')
  await Bun.sleep(300)
  // Stepped to 100, nothing read yet, focus still here.
  expect(page.url()).toBe(before)
  expect(await size.inputValue()).toBe('100')
  expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('SELECT')
  await page.keyboard.press('Enter')
  await page.waitForURL(/page_size=100/)
  await page.getByRole('status').getByText(/identities shown\./).waitFor()
  expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1')
  expect(await page.evaluate(() => window.scrollY)).toBe(0)
  // Back to 25, chosen from the list: the same.
  await size.focus()
  await size.selectOption('25')
  await page.waitForURL((url) => !url.searchParams.has('page_size'))
  await page.getByRole('status').getByText('25 identities shown.').waitFor()
  expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1')
  expect(admin.problems).toEqual([])
})

test('the identities page passes the sweep: light and dark, desktop and phone', async () => {
  admin.problems.length = 0
  await admin.page.goto(admin.url('/dashboard/identities'))
  const found = await sweep(admin.page, 'identities', () => table().waitFor())
  expect(found).toEqual([])
  expect(admin.problems).toEqual([])
}, 90_000)

test('an admin empties the last page with a bulk delete: it says there are no more identities, not that there are none, and Previous page goes back', async () => {
  admin.problems.length = 0
  const { kratos } = admin.harness.sandbox
  // Kratos lists by id: 25 identities with the highest ids fill the last page (whatever it holds
  // besides), so what is deleted is never the admin signed in here.
  const added = Array.from({ length: 25 }, (_, i) => kratos.addIdentity({ email: `last.page${String(i).padStart(2, '0')}@example.test` }, { id: `ffffffff-ffff-4fff-bfff-${String(i).padStart(12, '0')}` }))
  await admin.page.goto(admin.url('/dashboard/identities?page_size=25'))
  await table().waitFor()
  for (let page = 2; ; page++) {
    const next = admin.page.getByRole('button', { name: 'Next page' })
    await admin.page.waitForFunction(() => document.querySelector('[aria-busy="true"]') === null)
    if (await next.isDisabled()) break
    await next.click()
    await admin.page.waitForFunction((n) => document.querySelector('.pager span')?.textContent === `Page ${n}` && document.querySelector('[aria-busy="true"]') === null, page)
  }
  const onPage = await identifiersOnPage()
  expect(onPage.length).toBeGreaterThan(0)
  expect(onPage.every((identifier) => identifier.startsWith('last.page'))).toBe(true)
  for (const identifier of onPage) await table().getByRole('checkbox', { name: `Select ${identifier}` }).check()
  await admin.page.getByRole('group', { name: 'Selected identities' }).getByRole('button', { name: 'Delete' }).click()
  const plural = onPage.length === 1 ? 'identity' : 'identities'
  await admin.page.getByRole('dialog', { name: `Delete ${onPage.length} ${plural}?` }).getByRole('button', { name: 'Delete' }).click()
  await admin.page.getByRole('status').getByText(`${onPage.length} ${plural} deleted.`).waitFor()
  await admin.page.getByRole('main').getByText('No more identities.').waitFor()
  expect(await admin.page.getByText('There are no identities yet.').count()).toBe(0)
  const emails = [...kratos.identities.values()].map((identity) => identity.traits.email as string)
  for (const identifier of onPage) expect(emails).not.toContain(identifier)
  expect(added.filter((identity) => kratos.identities.has(identity.id)).length).toBe(25 - onPage.length)
  const shownPage = await admin.page.evaluate(() => document.querySelector('.pager span')?.textContent)
  await admin.page.getByRole('button', { name: 'Previous page' }).click()
  await admin.page.waitForFunction((before) => document.querySelector('.pager span')?.textContent !== before && document.querySelector('[aria-busy="true"]') === null, shownPage)
  expect((await identifiersOnPage()).length).toBeGreaterThan(0)
  expect(admin.problems).toEqual([])
}, 60_000)

test('Select all on this page selects every row shown, or none, and is mixed while some are; the bulk dialog says how many; on a phone it stands above the cards, with its name', async () => {
  const page = admin.page
  await page.goto(admin.url('/dashboard/identities?page_size=25'))
  await settled()
  const all = table().getByRole('checkbox', { name: 'Select all on this page' })
  const group = page.getByRole('group', { name: 'Selected identities' })
  const state = () => all.evaluate((box) => ((box as HTMLInputElement).indeterminate ? 'mixed' : (box as HTMLInputElement).checked))
  const rowsChecked = () => table().getByRole('checkbox', { name: /^Select (?!all)/ }).evaluateAll((boxes) => boxes.filter((box) => (box as HTMLInputElement).checked).length)
  expect(await state()).toBe(false)
  await table().getByRole('checkbox', { name: /^Select (?!all)/ }).nth(2).check()
  expect(await state()).toBe('mixed')
  // Mixed, it selects the rest.
  await all.click()
  await group.getByText('25 selected').waitFor()
  expect(await state()).toBe(true)
  expect(await rowsChecked()).toBe(25)
  await group.getByRole('button', { name: 'Deactivate' }).click()
  const dialog = page.getByRole('dialog', { name: 'Deactivate 25 identities?' })
  await dialog.getByText('This changes the state of 25 identities.').waitFor()
  await dialog.getByRole('button', { name: 'Cancel' }).click()
  await dialog.waitFor({ state: 'hidden' })
  // From the keyboard: Space lets go of them all.
  await all.focus()
  await page.keyboard.press('Space')
  await group.getByText('No identity selected').waitFor()
  expect(await rowsChecked()).toBe(0)
  expect(await state()).toBe(false)

  // On a phone, where the cards have no header row: above the first card, its name in sight.
  await page.setViewportSize(PHONE)
  try {
    for (const theme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: theme })
      const box = (await all.boundingBox())!
      const name = (await page.locator('.select-all-name').boundingBox())!
      const firstCard = (await table().getByRole('row').nth(1).boundingBox())!
      expect(box.y + box.height).toBeLessThanOrEqual(firstCard.y)
      expect(name.width).toBeGreaterThan(50)
      expect(name.x + name.width).toBeLessThanOrEqual(PHONE.width)
      await page.screenshot({ path: join(SCREENSHOT_DIR, `identities-select-all-${theme}-phone.png`) })
    }
    await all.check()
    await group.getByText('25 selected').waitFor()
  } finally {
    await page.emulateMedia({ colorScheme: 'light' })
    await page.setViewportSize(DESKTOP)
  }
  // Another page starts with nothing selected.
  await page.getByRole('button', { name: 'Next page' }).click()
  await page.waitForFunction(() => document.querySelector('.pager span')?.textContent === 'Page 2' && document.querySelector('[aria-busy="true"]') === null)
  await group.getByText('No identity selected').waitFor()
  expect(await state()).toBe(false)
  expect(admin.problems).toEqual([])
})

test('a bulk Delete or Deactivate asks with focus on Cancel, so Enter pressed twice changes nothing', async () => {
  const page = admin.page
  const { kratos } = admin.harness.sandbox
  const chosen = [1, 2].map((n) => kratos.addIdentity({ email: `bulk.enter.${n}@example.test`, name: `Bulk Enter ${n}` }))
  await page.goto(admin.url('/dashboard/identities?page_size=250'))
  await settled()
  for (const identity of chosen) await table().getByRole('checkbox', { name: `Select ${identity.traits.email}` }).check()
  const group = page.getByRole('group', { name: 'Selected identities' })
  const focused = () => page.evaluate(() => `${document.activeElement?.closest('dialog') ? 'in the dialog: ' : ''}${document.activeElement?.textContent}`)
  await group.getByRole('button', { name: 'Delete' }).focus()
  const deleting = page.getByRole('dialog', { name: 'Delete 2 identities?' })
  await page.keyboard.press('Enter')
  await deleting.waitFor()
  expect(await focused()).toBe('in the dialog: Cancel')
  await page.keyboard.press('Enter')
  await deleting.waitFor({ state: 'hidden' })
  expect(await focused()).toBe('Delete')
  expect(chosen.every((identity) => kratos.identities.has(identity.id))).toBe(true)
  await group.getByText('2 selected').waitFor()
  // A deactivation can be undone, but meanwhile none of them can sign in: it opens on Cancel too.
  await group.getByRole('button', { name: 'Deactivate' }).focus()
  await page.keyboard.press('Enter')
  const deactivating = page.getByRole('dialog', { name: 'Deactivate 2 identities?' })
  await deactivating.waitFor()
  expect(await focused()).toBe('in the dialog: Cancel')
  await page.keyboard.press('Enter')
  await deactivating.waitFor({ state: 'hidden' })
  expect(await focused()).toBe('Deactivate')
  expect(chosen.map((identity) => kratos.identities.get(identity.id)!.state)).toEqual(['active', 'active'])
  // Chosen on purpose, it deactivates.
  await page.keyboard.press('Enter')
  await deactivating.waitFor()
  await tabTo(page, 'Deactivate', 5, 'Shift+Tab')
  await page.keyboard.press('Enter')
  await deactivating.waitFor({ state: 'hidden' })
  expect(await within(5000, () => chosen.every((identity) => kratos.identities.get(identity.id)!.state === 'inactive'))).not.toBeNull()
  for (const identity of chosen) kratos.identities.delete(identity.id)
  expect(admin.problems).toEqual([])
})

test('a link past the last page (kept too long, without the trail Previous page follows) says there are no more and offers the first page', async () => {
  await admin.page.goto(admin.url('/dashboard/identities?page_size=50&page_token=ffffffff-ffff-4fff-bfff-fffffffffffe'))
  const empty = admin.page.getByRole('main').getByText('No more identities.')
  await empty.waitFor()
  expect(await admin.page.getByRole('button', { name: 'Previous page' }).isDisabled()).toBe(true)
  await admin.page.getByRole('main').getByRole('link', { name: 'Go to the first page' }).click()
  await admin.page.waitForURL(admin.url('/dashboard/identities?page_size=50'))
  expect((await identifiersOnPage()).length).toBeGreaterThan(0)
})

test('a deep page whose trail no longer holds the page before (the oldest tokens gave way, to keep the URL short): the page number counts them, and Previous page says beside it that it leads to the first page, and does', async () => {
  await admin.page.goto(admin.url('/dashboard/identities?page_size=25'))
  await table().waitFor()
  await admin.page.getByRole('button', { name: 'Next page' }).click()
  await admin.page.waitForFunction(() => document.querySelector('.pager span')?.textContent === 'Page 2' && document.querySelector('[aria-busy="true"]') === null)
  const token = new URL(admin.page.url()).searchParams.get('page_token')!
  const secondPage = await identifiersOnPage()
  await admin.page.goto(admin.url(`/dashboard/identities?page_size=25&page_token=${token}&trail=${encodeURIComponent('%+40')}`))
  await admin.page.waitForFunction(() => document.querySelector('.pager span')?.textContent === 'Page 41' && document.querySelector('[aria-busy="true"]') === null)
  expect(await identifiersOnPage()).toEqual(secondPage)
  await admin.page.getByRole('table', { name: 'Identities, page 41' }).waitFor()
  const previous = admin.page.getByRole('button', { name: 'Previous page' })
  expect(await previous.evaluate((button) => document.getElementById(button.getAttribute('aria-describedby') ?? '')?.textContent)).toBe(
    '(Previous page leads to the first page: the pages between are too many to keep in the address)',
  )
  await previous.click()
  await admin.page.waitForURL(admin.url('/dashboard/identities?page_size=25'))
  await admin.page.waitForFunction(() => document.querySelector('.pager span')?.textContent === 'Page 1' && document.querySelector('[aria-busy="true"]') === null)
  expect(await admin.page.getByRole('button', { name: 'Previous page' }).isDisabled()).toBe(true)
  expect(admin.problems).toEqual([])
})

test('the notice of a create of unknown outcome belongs to the list it was shown on: Back and Forward to another page of the list do not carry it, nor bring it back', async () => {
  const page = admin.page
  await page.goto(admin.url('/dashboard/identities?page_size=25'))
  await settled()
  await page.getByRole('button', { name: 'Next page' }).click()
  await page.waitForURL((address) => address.searchParams.has('page_token'))
  await settled()
  const stop = await answerTooLate(page, 'POST', (url) => url.pathname === '/api/idp-admin/admin/identities')
  const notice = page.getByRole('alert').filter({ hasText: 'The identity may have been created' })
  try {
    await createIdentityThroughForm(page, 'late.on.page2@example.test')
    await notice.waitFor()
  } finally {
    await stop()
  }
  await page.goBack()
  await page.waitForURL((address) => !address.searchParams.has('page_token'))
  await settled()
  expect(await notice.count()).toBe(0)
  await page.goForward()
  await page.waitForURL((address) => address.searchParams.has('page_token'))
  await settled()
  expect(await notice.count()).toBe(0)
  expect(admin.problems.splice(0).every((problem) => /status of 504\b/.test(problem))).toBe(true)
})
