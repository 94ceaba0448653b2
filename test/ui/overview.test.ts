// The overview and the shell around every page, for an administrator and for a viewer.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import type { BrowserContext, Locator, Page, Request } from 'playwright-core'
import { SANDBOX_USERS } from '../../dev/sandbox.ts'
import { join } from 'node:path'
import { PHONE, DESKTOP, axeFindings, isHealthCheck, watchSignIns, SCREENSHOT_DIR, sidewaysScroll, signIn, signedInPage, startHarness, sweep, tabTo, watchProblems, type Harness } from './harness.ts'

let harness: Harness
let admin: { context: BrowserContext; page: Page; problems: string[] }

beforeAll(async () => {
  harness = await startHarness()
  admin = await signedInPage(harness, 'admin')
}, 60_000)
afterAll(async () => {
  await admin?.context.close()
  await harness?.stop()
})

const url = (path: string) => `${harness.sandbox.url}${path}`

/** The country the embedded geo database places each address the sandbox gives its sessions (dev/sandbox.ts). */
const SEEDED_COUNTRIES: Record<string, string> = { '81.2.69.160': 'United Kingdom', '2.16.7.0': 'Netherlands', '1.0.16.1': 'Japan', '8.8.8.8': 'United States' }

/** The stand-in Kratos's active sessions, counted per country as [country, count] rows, sorted. */
function seededSessionsPerCountry(): string[][] {
  const counts = new Map<string, number>()
  for (const session of harness.sandbox.kratos.sessions.filter((candidate) => candidate.active)) {
    const countries = new Set(session.devices.map((device) => SEEDED_COUNTRIES[device.ip_address] ?? `no country known for ${device.ip_address}`))
    for (const country of countries) counts.set(country, (counts.get(country) ?? 0) + 1)
  }
  return [...counts].map(([country, count]) => [country, String(count)]).sort()
}

test('an admin sees the services, the session map with its table, and the latest audit events', async () => {
  const { page } = admin
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
  const services = page.getByRole('region', { name: 'Services' })
  const card = services.getByRole('listitem').filter({ hasText: 'Kratos admin API' })
  await card.getByText('Up', { exact: true }).waitFor()
  expect(await card.textContent()).toContain('v26.2.0')
  expect(await card.textContent()).toMatch(/\d+ ms/)

  const map = page.getByRole('region', { name: 'Session map' })
  await map.getByRole('img', { name: /Map of active sessions/ }).waitFor()
  const rows = await map.getByRole('table').locator('tbody tr').evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent)))
  expect(rows.sort()).toEqual(seededSessionsPerCountry())

  const audit = page.getByRole('region', { name: 'Latest audit events' })
  await audit.getByText('login').first().waitFor()
  await audit.getByRole('link', { name: 'Audit log' }).click()
  await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor()
  expect(page.url()).toBe(url('/dashboard/audit'))
  await page.getByRole('table').getByText('login').first().waitFor()
  await page.goBack()
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
})

test('the latest audit events say a sign-in that was refused, and name the signed-in admin by e-mail as the Audit log does', async () => {
  const { page } = admin
  const refused = [...harness.sandbox.kratos.identities.values()].find((identity) => identity.traits.role === undefined)!
  // Someone without a role signs in, in a browser of their own.
  const stranger = await harness.browser.newContext()
  try {
    const other = await stranger.newPage()
    await other.goto(url('/dashboard'))
    await other.waitForURL((address) => address.origin === harness.sandbox.providerUrl)
    await other.fill('input[name="login"]', refused.traits.email as string)
    await other.fill('input[name="password"]', 'anything')
    await other.click('button[type="submit"]')
    await other.getByRole('heading', { level: 1, name: 'Sign-in failed' }).waitFor()
  } finally {
    await stranger.close()
  }
  // A setting written, which was done: its event has no outcome to warn of ("created" is how it was done).
  const written = await page.request.post(url('/api/settings'), { headers: { origin: harness.sandbox.url }, data: { key: 'overview.outcome_check', value: 'v' } })
  expect(written.status()).toBe(201)
  await page.goto(url('/dashboard'))
  const latest = page.getByRole('region', { name: 'Latest audit events' }).getByRole('listitem')
  const write = latest.filter({ hasText: 'settings write' }).filter({ hasText: 'overview.outcome_check' })
  await write.waitFor()
  expect(await write.locator('.state-warn').count()).toBe(0)
  const item = latest.filter({ hasText: refused.id }).first()
  await item.waitFor()
  expect((await item.textContent())!.replace(/^.*?login/, 'login')).toBe(`login refused (no role) by ${refused.id}`)
  expect(await item.locator('.state-warn').textContent()).toBe('refused (no role)')
  // The admin's own sign-in: by e-mail, without an outcome (it was done).
  const own = latest.filter({ hasText: /login by admin@example\.test$/ }).first()
  await own.waitFor()
  expect((await own.textContent())!.replace(/^.*?login/, 'login')).toBe('login by admin@example.test')
  await harness.sandbox.services.settings.remove('overview.outcome_check', null)
  expect(admin.problems).toEqual([])
})

/** The requests that fetch the session map: its data and its land outline. */
function isMapRequest(request: Request): boolean {
  const path = new URL(request.url()).pathname
  return path === '/api/session-locations' || path.startsWith('/dashboard/assets/world-outline.')
}

/** An admin's overview opened at this size from the start, and every request for the session map it made. */
async function overviewAt(viewport: { width: number; height: number }): Promise<{ context: BrowserContext; page: Page; problems: string[]; mapRequests: string[] }> {
  const context = await harness.browser.newContext({ viewport })
  context.setDefaultTimeout(10_000)
  const page = await context.newPage()
  const problems = watchProblems(page, harness.sandbox.url)
  const mapRequests: string[] = []
  page.on('request', (request) => {
    if (isMapRequest(request)) mapRequests.push(new URL(request.url()).pathname.replace(/\.[^.]+\.js$/, '.js'))
  })
  await page.goto(url('/dashboard'))
  await signIn(page, harness.sandbox, 'admin')
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
  return { context, page, problems, mapRequests }
}

/** The overview as it stays until the person moves: the services checked, the latest audit events read, nothing more on its way. */
async function settled(page: Page): Promise<void> {
  await page.getByRole('region', { name: 'Services' }).getByText('Up', { exact: true }).first().waitFor()
  await page.getByRole('region', { name: 'Latest audit events' }).getByRole('link', { name: 'Audit log' }).waitFor()
  await page.waitForLoadState('networkidle')
}

const belowTheFold = (region: Locator) => region.evaluate((element) => element.getBoundingClientRect().top >= window.innerHeight)

test('the session map fetches nothing while it is below the fold, on a phone and in a low window; scrolled into view, it fetches its data and outline and shows', async () => {
  for (const viewport of [{ width: 390, height: 700 }, { width: 1280, height: 420 }]) {
    const { context, page, problems, mapRequests } = await overviewAt(viewport)
    try {
      await settled(page)
      const map = page.getByRole('region', { name: 'Session map' })
      expect(await belowTheFold(map)).toBe(true)
      expect(mapRequests).toEqual([])
      await map.scrollIntoViewIfNeeded()
      await map.getByRole('img', { name: /^Map of active sessions/ }).waitFor()
      await map.getByRole('table').waitFor()
      // The land outline is drawn once its chunk has arrived.
      await map.locator('path.land').waitFor()
      expect([...new Set(mapRequests)].sort()).toEqual(['/api/session-locations', '/dashboard/assets/world-outline.js'])
      expect(problems).toEqual([])
    } finally {
      await context.close()
    }
  }
}, 60_000)

test('keyboard only: Tab from Customize reaches Load the session map below the fold, which loads nothing until pressed; Enter loads it with focus on its heading; the next Tab goes on to the Audit log link', async () => {
  const { context, page, problems, mapRequests } = await overviewAt({ width: 390, height: 700 })
  try {
    await settled(page)
    const map = page.getByRole('region', { name: 'Session map' })
    expect(await belowTheFold(map)).toBe(true)
    expect(mapRequests).toEqual([])
    await page.getByRole('button', { name: 'Customize' }).focus()
    await page.keyboard.press('Tab')
    const focused = () => page.evaluate(() => `${document.activeElement?.tagName} ${document.activeElement?.textContent}`)
    expect(await focused()).toBe('BUTTON Load the session map')
    // Focus alone changes nothing (WCAG 3.2.1): no fetch, focus stays on the button.
    await Bun.sleep(300)
    expect(mapRequests).toEqual([])
    expect(await focused()).toBe('BUTTON Load the session map')
    await page.keyboard.press('Enter')
    expect(await focused()).toBe('H2 Session map')
    await map.getByRole('table').waitFor()
    // The table comes with the data; the land outline is drawn once its own chunk has arrived.
    await map.locator('path.land').waitFor()
    expect([...new Set(mapRequests)].sort()).toEqual(['/api/session-locations', '/dashboard/assets/world-outline.js'])
    await page.keyboard.press('Tab')
    expect(await focused()).toBe('A Audit log')
    // Back: the map stays, and nothing in it is a stop of its own.
    await page.keyboard.press('Shift+Tab')
    expect(await focused()).toBe('BUTTON Customize')
    expect(await axeFindings(page)).toEqual([])
    expect(problems).toEqual([])
  } finally {
    await context.close()
  }
}, 60_000)

test('the latest audit events link to the Audit log also when there are none, and when they cannot be read', async () => {
  const { context, page, problems } = await signedInPage(harness, 'admin')
  // The overview's read of the latest events, answered as the test decides: none, then refused.
  let answer: 'none' | 'refused' = 'none'
  await page.route((address) => address.pathname === '/api/security/audit', (route) =>
    answer === 'none'
      ? route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ events: [], next_before: null }) })
      : route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: 'database_unavailable', message: 'The database is unavailable; try again shortly.' }) }),
  )
  try {
    const audit = page.getByRole('region', { name: 'Latest audit events' })
    const link = audit.getByRole('link', { name: 'Audit log' })
    await page.reload()
    await audit.getByText('Nothing has been audited yet.').waitFor()
    expect(await link.evaluateAll((links) => links.map((a) => a.getAttribute('href')))).toEqual(['/dashboard/audit'])

    answer = 'refused'
    await page.reload()
    await audit.getByRole('alert').getByText('The database is unavailable; try again shortly.').waitFor()
    expect(await link.evaluateAll((links) => links.map((a) => a.getAttribute('href')))).toEqual(['/dashboard/audit'])
    await link.click()
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor()
    expect(problems.filter((problem) => !(problem.includes('503') && problem.includes('/api/security/audit')))).toEqual([])
  } finally {
    await context.close()
  }
}, 60_000)

test('a hidden session map fetches nothing; Customize → Reset to default shows it again and says so in the dialog', async () => {
  const { context, page, problems, mapRequests } = await overviewAt(DESKTOP)
  const layout = url('/api/dashboard/layout')
  const before = (await (await context.request.get(layout)).json()) as { layout: object | null }
  try {
    await settled(page)
    const map = page.getByRole('region', { name: 'Session map' })
    await map.getByRole('table').waitFor()
    const customize = page.getByRole('button', { name: 'Customize' })
    const dialog = page.getByRole('dialog', { name: 'Customize the overview' })
    const arranged = async () => (await dialog.locator('ol li').allTextContents()).map((text) => text.split('Up')[0]!.trim())
    await customize.click()
    await dialog.getByRole('checkbox', { name: 'Show Session map' }).uncheck()
    await dialog.getByRole('button', { name: 'Move Services down' }).click()
    await dialog.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('status').getByText('Overview arrangement saved.').waitFor()

    mapRequests.length = 0
    await page.reload()
    await settled(page)
    expect(await map.count()).toBe(0)
    expect(mapRequests).toEqual([])

    await customize.click()
    expect(await arranged()).toEqual(['Show Session map', 'Show Services', 'Show Latest audit events'])
    await dialog.getByRole('button', { name: 'Reset to default' }).click()
    expect(await arranged()).toEqual(['Show Services', 'Show Session map', 'Show Latest audit events'])
    // Said inside the dialog, as the moves are: the page's status region behind a modal dialog is out of reach.
    await dialog.getByRole('status').getByText('The default is back here: Services, Session map, Latest audit events, all shown. Save to keep it.').waitFor()
    await dialog.getByRole('button', { name: 'Save' }).click()
    await map.getByRole('table').waitFor()
    // The table comes with the data; the land outline is drawn once its own chunk has arrived.
    await map.locator('path.land').waitFor()
    expect([...new Set(mapRequests)].sort()).toEqual(['/api/session-locations', '/dashboard/assets/world-outline.js'])
    expect(problems).toEqual([])
  } finally {
    // The other tests find the arrangement as it was, whatever happened here.
    await context.request.put(layout, { data: { layout: before.layout ?? {} }, headers: { origin: harness.sandbox.url } })
    await context.close()
  }
}, 60_000)

test('the Main navigation lists the admin pages in order; an unknown path shows the app’s own not-found view', async () => {
  const { page } = admin
  const nav = page.getByRole('navigation', { name: 'Main' })
  expect(await nav.getByRole('link').allTextContents()).toEqual(['Overview', 'Identities', 'Sessions', 'Messages', 'OAuth clients', 'Settings', 'Audit log', 'Security'])
  // The link of the page shown is the current one: Overview only for itself, a section for its pages too.
  const current = () => nav.locator('[aria-current="page"]').allTextContents()
  await page.goto(url('/dashboard/'))
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
  expect(await current()).toEqual(['Overview'])
  const identity = [...harness.sandbox.kratos.identities.values()].find((candidate) => candidate.traits.email === 'user02@example.test')!
  await page.goto(url(`/dashboard/identities/${identity.id}`))
  await page.getByRole('heading', { level: 1, name: 'user02@example.test' }).waitFor()
  expect(await current()).toEqual(['Identities'])
  await page.goto(url('/dashboard/no/such/page'))
  await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor()
  await page.waitForFunction((title) => document.title === title, 'Page not found · admin-dashboard')
  expect(await current()).toEqual([])
})

test('the tab’s title names the page in the same render as its h1, never the page before: through the Main navigation and into an identity', async () => {
  const { page } = admin
  await page.goto(url('/dashboard/'))
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
  // Each time the h1 changes, what the title was at that moment (a mutation is seen in the microtask after the render).
  await page.evaluate(() => {
    const seen: string[][] = []
    ;(window as unknown as { titlesSeen: string[][] }).titlesSeen = seen
    new MutationObserver(() => {
      const heading = document.querySelector('h1')?.textContent ?? ''
      if (heading && seen.at(-1)?.[0] !== heading) seen.push([heading, document.title])
    }).observe(document.body, { subtree: true, childList: true, characterData: true })
  })
  const nav = page.getByRole('navigation', { name: 'Main' })
  for (const name of ['Identities', 'Sessions', 'Messages', 'OAuth clients', 'Settings', 'Audit log', 'Security', 'Identities']) {
    await nav.getByRole('link', { name, exact: true }).click()
    await page.getByRole('heading', { level: 1, name, exact: true }).waitFor()
  }
  const first = page.getByRole('table', { name: 'Identities' }).getByRole('link').first()
  const identity = (await first.textContent())!
  await first.click()
  await page.getByRole('heading', { level: 1, name: identity, exact: true }).waitFor()
  const seen = await page.evaluate(() => (window as unknown as { titlesSeen: string[][] }).titlesSeen)
  expect(seen.map(([heading]) => heading)).toEqual(expect.arrayContaining(['Identities', 'Sessions', 'Messages', 'OAuth clients', 'Settings', 'Audit log', 'Security', identity]))
  expect(seen.filter(([heading, title]) => title !== `${heading} · admin-dashboard`)).toEqual([])
  expect(admin.problems).toEqual([])
})

test('the theme choice is remembered', async () => {
  const { page } = admin
  await page.goto(url('/dashboard'))
  await page.getByRole('combobox', { name: 'Theme' }).selectOption('dark')
  await page.reload()
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
  expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark')
  expect(await page.getByRole('combobox', { name: 'Theme' }).inputValue()).toBe('dark')
  // Another tab of the browser follows a choice made here at once, control and all.
  const other = await admin.context.newPage()
  await other.goto(url('/dashboard'))
  await other.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
  expect(await other.evaluate(() => document.documentElement.dataset.theme)).toBe('dark')
  await page.getByRole('combobox', { name: 'Theme' }).selectOption('light')
  await other.waitForFunction(() => document.documentElement.dataset.theme === 'light')
  expect(await other.getByRole('combobox', { name: 'Theme' }).inputValue()).toBe('light')
  await page.getByRole('combobox', { name: 'Theme' }).selectOption('system')
  expect(await page.evaluate(() => document.documentElement.dataset.theme ?? null)).toBeNull()
  await other.waitForFunction(() => document.documentElement.dataset.theme === undefined)
  expect(await other.getByRole('combobox', { name: 'Theme' }).inputValue()).toBe('system')
  await other.close()
})

test('on a phone the navigation sits behind the Menu button', async () => {
  const { page } = admin
  await page.setViewportSize(PHONE)
  const nav = page.getByRole('navigation', { name: 'Main' })
  expect(await nav.isVisible()).toBe(false)
  const menu = page.getByRole('button', { name: 'Menu' })
  await menu.click()
  expect(await menu.getAttribute('aria-expanded')).toBe('true')
  await nav.getByRole('link', { name: 'Identities' }).click()
  await page.getByRole('heading', { level: 1, name: 'Identities' }).waitFor()
  expect(await nav.isVisible()).toBe(false)
  await page.setViewportSize(DESKTOP)
})

test('keyboard only on a phone: Menu opens the navigation; Escape, a chosen link and focus moving on close it', async () => {
  const phone = await signedInPage(harness, 'admin')
  try {
    const { page, problems } = phone
    await page.setViewportSize(PHONE)
    await page.reload()
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
    const menu = page.getByRole('button', { name: 'Menu' })
    const nav = page.getByRole('navigation', { name: 'Main' })
    const focusedText = () => page.evaluate(() => document.activeElement?.textContent?.trim() ?? '')
    const isOpen = async () => {
      const expanded = await menu.getAttribute('aria-expanded')
      expect(await nav.isVisible()).toBe(expanded === 'true')
      return expanded === 'true'
    }

    await tabTo(page, 'Menu')
    // Escape the moment it has opened: its listeners are there from the render that shows it.
    await page.keyboard.press('Enter')
    await page.keyboard.press('Escape')
    expect(await isOpen()).toBe(false)
    await page.keyboard.press('Enter')
    expect(await isOpen()).toBe(true)
    expect(await sidewaysScroll(page)).toBe(0)
    expect(await axeFindings(page)).toEqual([])
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'menu-open-light-phone.png') })
    await page.keyboard.press('Escape')
    expect(await isOpen()).toBe(false)
    expect(await menu.evaluate((element) => element === document.activeElement)).toBe(true)

    // Open again: the account controls between the button and the links keep it open; a link closes it.
    await page.keyboard.press('Enter')
    await tabTo(page, 'Identities')
    expect(await isOpen()).toBe(true)
    await page.keyboard.press('Escape')
    expect(await isOpen()).toBe(false)
    expect(await focusedText()).toBe('Menu')
    await page.keyboard.press('Enter')
    await tabTo(page, 'Identities')
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { level: 1, name: 'Identities' }).waitFor()
    expect(page.url()).toBe(url('/dashboard/identities'))
    expect(await isOpen()).toBe(false)
    expect(await focusedText()).toBe('Identities')
    // Focus reaches the h1 once the new page has been drawn.
    await page.waitForFunction(() => document.activeElement?.tagName === 'H1', undefined, { timeout: 5000 })

    // The link of the page already shown closes it too.
    await tabTo(page, 'Menu', 20, 'Shift+Tab')
    await page.keyboard.press('Enter')
    expect(await isOpen()).toBe(true)
    await tabTo(page, 'Identities')
    await page.keyboard.press('Enter')
    expect(await isOpen()).toBe(false)
    // Focus reaches the h1 once the navigation to the same page has been drawn.
    await page.waitForFunction(() => document.activeElement?.tagName === 'H1', undefined, { timeout: 5000 })

    // Tabbing on past the last link, into the page, closes it.
    await tabTo(page, 'Menu', 20, 'Shift+Tab')
    await page.keyboard.press('Enter')
    await tabTo(page, 'Security')
    expect(await isOpen()).toBe(true)
    await page.keyboard.press('Tab')
    expect(await isOpen()).toBe(false)
    expect(await page.evaluate(() => document.querySelector('main')!.contains(document.activeElement))).toBe(true)
    expect(problems).toEqual([])
  } finally {
    await phone.context.close()
  }
}, 60_000)

test('on a phone a click outside the menu and the top bar closes it; one inside leaves it open', async () => {
  const phone = await signedInPage(harness, 'admin')
  try {
    const { page, problems } = phone
    await page.setViewportSize(PHONE)
    const menu = page.getByRole('button', { name: 'Menu' })
    const nav = page.getByRole('navigation', { name: 'Main' })
    await menu.click()
    await nav.getByRole('link', { name: 'Security' }).waitFor()
    await page.getByRole('banner').getByText(SANDBOX_USERS.admin).click()
    await nav.click({ position: { x: 5, y: 5 } })
    expect(await menu.getAttribute('aria-expanded')).toBe('true')
    expect(await nav.isVisible()).toBe(true)
    await page.getByRole('region', { name: 'Services' }).getByRole('heading', { name: 'Services' }).click()
    expect(await menu.getAttribute('aria-expanded')).toBe('false')
    expect(await nav.isVisible()).toBe(false)
    expect(problems).toEqual([])
  } finally {
    await phone.context.close()
  }
})

test('Sign out in one window takes another window’s page away too, and that window says which unsaved changes it did not keep', async () => {
  const other = await signedInPage(harness, 'admin', '/dashboard/settings')
  try {
    const { page: first, context, problems } = other
    const second = await context.newPage()
    const secondProblems = watchProblems(second, harness.sandbox.url)
    await second.goto(url('/dashboard/settings'))
    await second.getByRole('button', { name: 'Add setting' }).click()
    const dialog = second.getByRole('dialog', { name: 'Add setting' })
    await dialog.getByRole('textbox', { name: 'Key' }).fill('site.left_behind')
    await first.getByRole('button', { name: 'Sign out' }).click()
    await first.getByRole('heading', { level: 1, name: 'Signed out' }).waitFor()
    await second.getByRole('heading', { level: 1, name: 'Signed out' }).waitFor()
    await second.getByText('You signed out in another window: your unsaved changes to the new setting in this tab were not kept.').waitFor()
    // The window that signed out held nothing unsaved, and says nothing of the kind.
    expect(await first.getByText('were not kept').count()).toBe(0)
    expect(await second.evaluate(() => Object.keys(sessionStorage).filter((key) => key.startsWith('admin-dashboard.draft')))).toEqual([])
    expect([...problems, ...secondProblems]).toEqual([])
  } finally {
    await other.context.close()
  }
})

test('Sign in again, after signing out, returns to the page where the operator signed out', async () => {
  const identity = [...harness.sandbox.kratos.identities.values()].find((candidate) => candidate.traits.email === 'user16@example.test')!
  const identityPage = `/dashboard/identities/${identity.id}`
  const other = await signedInPage(harness, 'admin', identityPage)
  try {
    const { page, context, problems } = other
    await page.getByRole('heading', { level: 1, name: 'user16@example.test' }).waitFor()
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('heading', { level: 1, name: 'Signed out' }).waitFor()
    expect((await context.request.get(url('/api/auth/session'))).status()).toBe(401)
    // The provider forgets the admin too: its sign-in form is shown.
    await context.clearCookies()
    await page.getByRole('link', { name: 'Sign in again' }).click()
    await signIn(page, harness.sandbox, 'admin')
    await page.getByRole('heading', { level: 1 }).waitFor()
    expect(page.url()).toBe(url(identityPage))
    await page.getByRole('heading', { level: 1, name: 'user16@example.test' }).waitFor()

    // A filtered list; this time the provider remembers the admin, and still asks who signs in (the
    // next person at this computer is not signed in as the last): here, as the viewer.
    const filteredList = '/dashboard/audit?action=login'
    await page.goto(url(filteredList))
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor()
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('heading', { level: 1, name: 'Signed out' }).waitFor()
    await page.getByRole('link', { name: 'Sign in again' }).click()
    await signIn(page, harness.sandbox, 'viewer')
    await page.getByRole('heading', { level: 1, name: 'No access' }).waitFor()
    expect(await page.getByRole('banner').textContent()).toContain('viewer@example.test')
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('heading', { level: 1, name: 'Signed out' }).waitFor()
    await page.getByRole('link', { name: 'Sign in again' }).click()
    await signIn(page, harness.sandbox, 'admin')
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor()
    expect(page.url()).toBe(url(filteredList))
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor()
    expect(await page.getByRole('combobox', { name: 'Action' }).inputValue()).toBe('login')
    expect(problems).toEqual([])
  } finally {
    await other.context.close()
  }
}, 60_000)

test('after Sign out, Back to a page loaded before, or a link opened in a new tab, says "Signed out" and signs nobody in until Sign in again is chosen', async () => {
  const other = await signedInPage(harness, 'admin')
  try {
    const { page, context, problems } = other
    const logins = async () => (await harness.sandbox.services.audit.list({ limit: 1000, action: 'login' })).length
    await page.goto(url('/dashboard/messages?status=sent'))
    await page.getByRole('heading', { level: 1, name: 'Messages' }).waitFor()
    const loginsBefore = await logins()
    const signIns = watchSignIns(page)
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('heading', { level: 1, name: 'Signed out' }).waitFor()
    // Back loads the page of before afresh: the provider still knows this browser, and would sign it straight in.
    await page.goBack()
    await page.waitForURL(url('/dashboard'))
    await page.getByRole('heading', { level: 1, name: 'Signed out' }).waitFor()
    expect(await page.getByRole('link', { name: 'Sign in again' }).getAttribute('href')).toBe('/api/auth/login?return_to=%2Fdashboard&prompt=login')
    const tab = await context.newPage()
    const tabSignIns = watchSignIns(tab)
    await tab.goto(url('/dashboard/audit'))
    await tab.getByRole('heading', { level: 1, name: 'Signed out' }).waitFor()
    expect(await tab.getByRole('banner').count()).toBe(0)
    expect({ signIns, tabSignIns, logins: await logins(), session: (await context.request.get(url('/api/auth/session'))).status() }).toEqual({ signIns: [], tabSignIns: [], logins: loginsBefore, session: 401 })

    // A person's choice: through the provider (which asks who signs in, though it knows the browser) and back to that page, signed in from now on.
    await tab.getByRole('link', { name: 'Sign in again' }).click()
    await signIn(tab, harness.sandbox, 'admin')
    await tab.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor()
    await page.reload()
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
    expect(await logins()).toBe(loginsBefore + 1)
    expect(problems.filter((problem) => !problem.includes('401'))).toEqual([])
  } finally {
    await other.context.close()
  }
}, 60_000)

test('a sign-out the service could not record says so, keeps the session, and can be tried again', async () => {
  const identity = [...harness.sandbox.kratos.identities.values()].find((candidate) => candidate.traits.email === 'user17@example.test')!
  const identityPage = `/dashboard/identities/${identity.id}`
  const other = await signedInPage(harness, 'admin', identityPage)
  // Another connection holds the database's write lock: the sign-out cannot be recorded, and the
  // service answers 503 once it has waited 5 s for the lock.
  const holder = new Database(harness.sandbox.env.DATABASE_PATH!)
  let locked = false
  const lock = () => {
    holder.run('BEGIN EXCLUSIVE')
    locked = true
  }
  const unlock = () => {
    holder.run('ROLLBACK')
    locked = false
  }
  try {
    const { page, context, problems } = other
    const sessionStatus = async () => (await context.request.get(url('/api/auth/session'))).status()
    await page.getByRole('heading', { level: 1, name: 'user17@example.test' }).waitFor()
    lock()
    const answered = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/auth/logout')
    await page.getByRole('button', { name: 'Sign out' }).click()
    expect((await answered).status()).toBe(503)
    const outcome = page.getByRole('heading', { level: 1, name: /^(Signed out|Sign-out failed)$/ })
    expect(await outcome.textContent()).toBe('Sign-out failed')
    expect(await page.getByRole('main').textContent()).toContain('You are still signed in')
    await page.getByRole('alert').getByText('The database is unavailable; try again shortly.').waitFor()
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Sign-out failed')
    await page.waitForFunction(() => document.title === 'Sign-out failed · admin-dashboard')
    expect(await sessionStatus()).toBe(200)
    expect(await axeFindings(page)).toEqual([])
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'sign-out-failed-light-desktop.png') })

    // Back to where the operator was, still signed in.
    await page.getByRole('link', { name: 'Back to the dashboard' }).click()
    await page.getByRole('heading', { level: 1, name: 'user17@example.test' }).waitFor()
    expect(page.url()).toBe(url(identityPage))

    // Still failing, then the database answers again: Retry signs out.
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('heading', { level: 1, name: 'Sign-out failed' }).waitFor()
    expect(await sessionStatus()).toBe(200)
    unlock()
    await page.getByRole('button', { name: 'Retry' }).click()
    await page.getByRole('heading', { level: 1, name: 'Signed out' }).waitFor()
    expect(await sessionStatus()).toBe(401)
    await page.getByRole('link', { name: 'Sign in again' }).waitFor()
    // The failed requests' own console lines are the browser's, not the page's.
    expect(problems.filter((problem) => !problem.includes('/api/auth/logout'))).toEqual([])
  } finally {
    if (locked) unlock()
    holder.close()
    await other.context.close()
  }
}, 60_000)

test('signing out in one tab shows “Signed out” at once in the other tabs of the browser: no data, no more checks, no sign-in', async () => {
  const first = await signedInPage(harness, 'admin')
  const { context } = first
  try {
    // A wall screen on the overview, on a clock of its own, and a tab on the identities.
    const overview = await context.newPage()
    const overviewProblems = watchProblems(overview, harness.sandbox.url)
    const overviewSignIns = watchSignIns(overview)
    let checks = 0
    overview.on('request', (request) => {
      if (isHealthCheck(request)) checks++
    })
    await overview.clock.install()
    await overview.goto(url('/dashboard'))
    await overview.getByRole('region', { name: 'Services' }).getByText('Up', { exact: true }).first().waitFor()
    const identities = await context.newPage()
    const identitiesProblems = watchProblems(identities, harness.sandbox.url)
    const identitiesSignIns = watchSignIns(identities)
    await identities.goto(url('/dashboard/identities?search=user16%40example.test'))
    await identities.getByRole('table').getByText('user16@example.test').waitFor()

    await first.page.getByRole('button', { name: 'Sign out' }).click()
    await first.page.getByRole('heading', { level: 1, name: 'Signed out' }).waitFor()
    // Told, not found out: without a check falling due or a click.
    for (const [tab, returnTo] of [
      [overview, '%2Fdashboard'],
      [identities, '%2Fdashboard%2Fidentities%3Fsearch%3Duser16%2540example.test'],
    ] as const) {
      await tab.getByRole('heading', { level: 1, name: 'Signed out' }).waitFor()
      expect(await tab.getByRole('link', { name: 'Sign in again' }).getAttribute('href')).toBe(`/api/auth/login?return_to=${returnTo}&prompt=login`)
      expect(await tab.getByRole('banner').count()).toBe(0)
    }
    expect(await overview.getByRole('region', { name: 'Services' }).count()).toBe(0)
    expect(await identities.getByText('user16@example.test').count()).toBe(0)
    await identities.setViewportSize(PHONE)
    expect(await axeFindings(identities)).toEqual([])
    expect(await sidewaysScroll(identities)).toBe(0)
    await identities.screenshot({ path: join(SCREENSHOT_DIR, 'signed-out-elsewhere-light-phone.png') })

    // The overview's timer has stopped.
    const after = checks
    await overview.clock.runFor(3 * 30_000)
    await Bun.sleep(500)
    expect(checks).toBe(after)
    expect(overviewSignIns).toEqual([])
    expect(identitiesSignIns).toEqual([])
    expect([...first.problems, ...overviewProblems, ...identitiesProblems]).toEqual([])
  } finally {
    await context.close()
  }
}, 60_000)

test('a viewer sees only Overview, and a direct visit to an admin page says no access without any admin request', async () => {
  const viewer = await signedInPage(harness, 'viewer')
  const requests: string[] = []
  viewer.page.on('request', (request) => requests.push(new URL(request.url()).pathname))
  try {
    const { page } = viewer
    await page.reload()
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
    expect(await page.getByRole('banner').textContent()).toContain(SANDBOX_USERS.viewer)
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents()).toEqual(['Overview'])
    await page.getByRole('region', { name: 'Services' }).getByText('Up', { exact: true }).first().waitFor()
    expect(await page.getByRole('region', { name: 'Latest audit events' }).count()).toBe(0)

    await page.goto(url('/dashboard/identities'))
    await page.getByRole('heading', { level: 1, name: 'No access' }).waitFor()
    // Not the overview's page: no link is the current one.
    expect(await page.getByRole('navigation', { name: 'Main' }).locator('[aria-current="page"]').count()).toBe(0)
    await page.goto(url('/dashboard/identities/00000000-0000-4000-8000-000000000000'))
    await page.getByRole('heading', { level: 1, name: 'No access' }).waitFor()
    const adminRoutes = requests.filter((path) => /^\/api\/(config|identities|security|settings|encrypt|idp-admin|iam-idp-admin|oauth-admin)(\/|$)/.test(path))
    expect(adminRoutes).toEqual([])
    const found = await sweep(page, 'no-access', () => page.getByRole('heading', { level: 1, name: 'No access' }).waitFor())
    expect(found).toEqual([])
    expect(viewer.problems).toEqual([])
  } finally {
    await viewer.context.close()
  }
}, 60_000)

test('on a Down service card the Version “unknown” is never broken mid-word, at any width from 1280 px down to 320 px', async () => {
  const { context, page, problems } = await signedInPage(harness, 'admin')
  const { hydra } = harness.sandbox
  await hydra.stop()
  try {
    await page.reload()
    const card = page.getByRole('region', { name: 'Services' }).getByRole('listitem').filter({ hasText: 'Hydra admin API' })
    await card.getByText('Down', { exact: true }).waitFor()
    const version = card.getByRole('definition').first()
    expect(await version.textContent()).toBe('unknown')
    // One line box: the text's range has a single client rect.
    const lines = () => version.evaluate((element) => {
      const range = document.createRange()
      range.selectNodeContents(element)
      return range.getClientRects().length
    })
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'overview-service-down-light-desktop.png') })
    expect(await lines()).toBe(1)
    const found: string[] = []
    for (let width = DESKTOP.width; width >= 320; width -= 8) {
      await page.setViewportSize({ width, height: DESKTOP.height })
      const count = await lines()
      if (count !== 1) found.push(`${width}px: "unknown" on ${count} lines`)
      const overflow = await sidewaysScroll(page)
      if (overflow > 0) found.push(`${width}px: scrolls sideways by ${overflow}px`)
    }
    expect(found).toEqual([])
    expect(problems).toEqual([])
  } finally {
    hydra.start()
    await context.close()
  }
}, 60_000)

test('a long unbroken version string wraps inside its service card: nothing scrolls sideways on a phone or a desktop', async () => {
  const { context, page, problems } = await signedInPage(harness, 'admin')
  const { hydra } = harness.sandbox
  const long = `v26.2.0+build.${'0123456789abcdef'.repeat(3)}`
  hydra.version = long
  try {
    const card = page.getByRole('region', { name: 'Services' }).getByRole('listitem').filter({ hasText: 'Hydra admin API' })
    for (const viewport of [PHONE, DESKTOP]) {
      await page.setViewportSize(viewport)
      await page.reload()
      await card.getByRole('definition').getByText(long).waitFor()
      expect(await sidewaysScroll(page)).toBe(0)
      expect(await card.evaluate((element) => element.scrollWidth - element.clientWidth)).toBe(0)
    }
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'overview-long-version-light-desktop.png') })
    expect(problems).toEqual([])
  } finally {
    hydra.version = 'v26.2.0'
    await context.close()
  }
}, 60_000)

test('the overview and the audit log pass the sweep: light and dark, desktop and phone', async () => {
  const { page, problems } = admin
  await page.goto(url('/dashboard'))
  const found = await sweep(page, 'overview', async () => {
    await page.getByRole('region', { name: 'Session map' }).getByRole('table').waitFor()
    await page.getByRole('region', { name: 'Services' }).getByText('Up', { exact: true }).first().waitFor()
  })
  await page.goto(url('/dashboard/audit'))
  found.push(...(await sweep(page, 'audit', () => page.getByRole('table').waitFor())))
  expect(found).toEqual([])
  expect(problems).toEqual([])
}, 90_000)
