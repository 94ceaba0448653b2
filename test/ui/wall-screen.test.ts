// The overview on a wall screen: its timed checks of the services, on a fake clock, through an
// upstream going down and back, a hidden tab, a slow check and a session ended from outside. Run
// one file after the other (scripts/run-tests): each test holds the page to the next check.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { BrowserContext, Page } from 'playwright-core'
import { within } from '../support/eventually.ts'
import { backThroughSignIn, isHealthCheck, signedInPage, startHarness, sweep, watchSignIns, type Harness } from './harness.ts'

let harness: Harness

beforeAll(async () => {
  harness = await startHarness()
}, 60_000)
afterAll(async () => {
  await harness?.stop()
})

const url = (path: string) => `${harness.sandbox.url}${path}`

/**
 * Shows or hides the page as a switch of tab or a minimised window would. Headless Chromium always
 * reports a page as visible, so the page is told what the browser would say.
 */
async function setHidden(page: Page, hidden: boolean): Promise<void> {
  await page.evaluate((hidden) => {
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => hidden })
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => (hidden ? 'hidden' : 'visible') })
    document.dispatchEvent(new Event('visibilitychange'))
  }, hidden)
}

/** An overview of its own, on a fake clock, that counts the service checks it makes. */
async function watchedOverview(): Promise<{ context: BrowserContext; page: Page; problems: string[]; checks: () => number }> {
  const watched = await signedInPage(harness, 'admin')
  let checks = 0
  watched.page.on('request', (request) => {
    if (isHealthCheck(request)) checks++
  })
  await watched.page.clock.install()
  await watched.page.reload()
  await watched.page.getByRole('region', { name: 'Services' }).getByText('Up', { exact: true }).first().waitFor()
  // Every region's first load answered too: a request still under way when a test ends the session
  // is one the person's opening of the page made, and its 401 rightly goes to the sign-in.
  await watched.page.waitForLoadState('networkidle')
  return { ...watched, checks: () => checks }
}

/** Customize opened on `page` with Services moved down: the dialog, its order as shown, and that order now. */
async function customizeWithServicesMoved(page: Page) {
  await page.getByRole('button', { name: 'Customize' }).click()
  const dialog = page.getByRole('dialog', { name: 'Customize the overview' })
  await dialog.getByRole('button', { name: 'Move Services down' }).click()
  const arranged = async () => (await dialog.locator('ol li').allTextContents()).map((text) => text.split('Up')[0]!.trim())
  return { dialog, arranged, before: await arranged() }
}

test('on a wall screen the service cards follow an upstream that goes down and comes back, in place, announcing only the change', async () => {
  const { context, page, problems, checks } = await watchedOverview()
  const { hydra } = harness.sandbox
  let hydraDown = false
  try {
    const services = page.getByRole('region', { name: 'Services' })
    const card = services.getByRole('listitem').filter({ hasText: 'Hydra admin API' })
    await card.getByText('Up', { exact: true }).waitFor()
    const customize = page.getByRole('button', { name: 'Customize' })
    await customize.focus()
    // From here on: everything the status region says, and any card taken down and rebuilt.
    await page.evaluate(() => {
      const record: { said: string[]; rebuilt: number } = { said: [], rebuilt: 0 }
      ;(window as unknown as { seen: typeof record }).seen = record
      const status = document.querySelector('[role="status"]')!
      new MutationObserver(() => status.textContent && record.said.push(status.textContent)).observe(status, { childList: true, subtree: true, characterData: true })
      new MutationObserver((changes) => {
        for (const change of changes) for (const node of change.removedNodes) if (node instanceof Element && (node.matches('.service-card, .service-cards') || node.querySelector('.service-card'))) record.rebuilt++
      }).observe(document.getElementById('services-h')!.parentElement!, { childList: true, subtree: true })
    })
    const seen = () => page.evaluate(() => (window as unknown as { seen: { said: string[]; rebuilt: number } }).seen)
    const shownCard = await card.elementHandle()

    // Nothing changed: checked again after 30 s, and nothing is said.
    const before = checks()
    await page.clock.runFor(25_000)
    await Bun.sleep(300)
    expect(checks()).toBe(before)
    let answered = page.waitForResponse((response) => isHealthCheck(response.request()))
    await page.clock.runFor(5_000)
    await answered
    expect(checks()).toBe(before + 1)

    await hydra.stop()
    hydraDown = true
    answered = page.waitForResponse((response) => isHealthCheck(response.request()))
    await page.clock.runFor(30_000)
    await answered
    await card.getByText('Down', { exact: true }).waitFor()
    expect(await card.textContent()).toContain('—')
    await page.getByRole('status').getByText('Hydra admin API is down.').waitFor()

    hydra.start()
    hydraDown = false
    await page.clock.runFor(30_000)
    await card.getByText('Up', { exact: true }).waitFor()
    await page.getByRole('status').getByText('Hydra admin API is up.').waitFor()

    expect(checks()).toBe(before + 3)
    expect(await seen()).toEqual({ said: ['Hydra admin API is down.', 'Hydra admin API is up.'], rebuilt: 0 })
    expect(await shownCard!.evaluate((element) => element.isConnected)).toBe(true)
    expect(await services.locator('[aria-busy="true"]').count()).toBe(0)
    expect(await customize.evaluate((element) => element === document.activeElement)).toBe(true)
    await services.getByText(/^Checked .+, and again every 30 seconds while this page is shown\.$/).waitFor()
    expect(problems).toEqual([])
  } finally {
    if (hydraDown) hydra.start()
    await context.close()
  }
}, 60_000)

test('a hidden overview checks nothing, and checks at once when it is shown again', async () => {
  const { context, page, problems, checks } = await watchedOverview()
  try {
    const before = checks()
    await setHidden(page, true)
    await page.clock.runFor(5 * 30_000)
    await Bun.sleep(500)
    expect(checks()).toBe(before)
    const answered = page.waitForResponse((response) => isHealthCheck(response.request()))
    await setHidden(page, false)
    await answered
    expect(checks()).toBe(before + 1)
    // And every 30 s from then on.
    await page.clock.runFor(30_000)
    expect(await within(5_000, () => checks() === before + 2)).not.toBeNull()
    expect(problems).toEqual([])
  } finally {
    await context.close()
  }
}, 60_000)

test('a slow check is never doubled: the next waits until it has answered', async () => {
  const { context, page, problems, checks } = await watchedOverview()
  const { hydra } = harness.sandbox
  try {
    const before = checks()
    hydra.delayMs = 2_000
    await page.clock.runFor(30_000)
    expect(await within(5_000, () => checks() === before + 1)).not.toBeNull()
    const answered = page.waitForResponse((response) => isHealthCheck(response.request()))
    // While it waits: more intervals pass, and the page is hidden and shown again.
    await page.clock.runFor(3 * 30_000)
    await setHidden(page, true)
    await setHidden(page, false)
    await answered
    expect(checks()).toBe(before + 1)
    hydra.delayMs = 0
    await page.clock.runFor(30_000)
    expect(await within(5_000, () => checks() === before + 2)).not.toBeNull()
    await Bun.sleep(300)
    expect(checks()).toBe(before + 2)
    expect(problems).toEqual([])
  } finally {
    hydra.delayMs = 0
    await context.close()
  }
}, 60_000)

/** The console lines of the checks that found the session gone are the browser's, not the page's. */
const besidesRefusedChecks = (problems: string[]) => problems.filter((problem) => !(problem.includes('401') && problem.includes('/api/services/health')))

test('a session ended from outside stops the wall screen: the next timed check shows “Session ended” in place and never goes to the sign-in', async () => {
  const { context, page, problems, checks } = await watchedOverview()
  const signIns = watchSignIns(page)
  try {
    // Signed out elsewhere (another window, a script): this window is not told.
    expect((await context.request.post(url('/api/auth/logout'))).status()).toBe(204)
    const answered = page.waitForResponse((response) => isHealthCheck(response.request()))
    await page.clock.runFor(30_000)
    expect((await answered).status()).toBe(401)
    await page.getByRole('heading', { level: 1, name: 'Session ended' }).waitFor()
    await page.waitForFunction(() => document.title === 'Session ended · admin-dashboard')
    const again = page.getByRole('link', { name: 'Sign in again' })
    expect(await again.getAttribute('href')).toBe('/api/auth/login?return_to=%2Fdashboard')
    // No data is left on screen, and nothing is checked any more: not on the timer, not when shown again.
    expect(await page.getByRole('region', { name: 'Services' }).count()).toBe(0)
    expect(await page.getByRole('banner').count()).toBe(0)
    const after = checks()
    await page.clock.runFor(5 * 30_000)
    await setHidden(page, true)
    await setHidden(page, false)
    await Bun.sleep(500)
    expect(checks()).toBe(after)
    expect(signIns).toEqual([])
    expect(page.url()).toBe(url('/dashboard'))
    const found = await sweep(page, 'session-ended', () => page.getByRole('heading', { level: 1, name: 'Session ended' }).waitFor())
    expect(found).toEqual([])

    // A person's click is what goes to the sign-in, and it comes back to the overview.
    await again.click()
    await backThroughSignIn(page, harness.sandbox, page.getByRole('heading', { level: 1, name: 'Overview' }))
    expect(page.url()).toBe(url('/dashboard'))
    expect(signIns).toHaveLength(1)
    expect(besidesRefusedChecks(problems)).toEqual([])
  } finally {
    await context.close()
  }
}, 90_000)

test('Customize open with unsaved changes when the timed check finds the session gone: “Session ended” says they are kept, and after Sign in again the dialog opens with them', async () => {
  const { context, page, problems } = await watchedOverview()
  try {
    const { dialog, arranged } = await customizeWithServicesMoved(page)
    await dialog.getByRole('checkbox', { name: 'Show Latest audit events' }).uncheck()
    const before = await arranged()
    expect((await context.request.post(url('/api/auth/logout'))).status()).toBe(204)
    await page.clock.runFor(30_000)
    await page.getByRole('heading', { level: 1, name: 'Session ended' }).waitFor()
    await page.getByText('Your unsaved changes to the overview arrangement are kept in this tab: they open again when you sign in again here.').waitFor()
    // Nothing is written to the tab until Sign in again is chosen.
    expect(await page.evaluate(() => Object.keys(sessionStorage).filter((key) => key.startsWith('admin-dashboard.')))).toEqual([])
    await page.getByRole('link', { name: 'Sign in again' }).click()
    await backThroughSignIn(page, harness.sandbox, page.getByRole('alert').filter({ hasText: 'Your session ended while changes were not saved. Your unsaved changes to the overview arrangement were kept: check them and save.' }))
    await dialog.waitFor()
    expect(await arranged()).toEqual(before)
    expect(await dialog.getByRole('checkbox', { name: 'Show Latest audit events' }).isChecked()).toBe(false)
    // Discarded (the arrangement the other tests see stays as it was): the notice about it goes too.
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await dialog.waitFor({ state: 'hidden' })
    expect(await page.getByRole('alert').filter({ hasText: 'Your session ended' }).count()).toBe(0)
    expect(besidesRefusedChecks(problems)).toEqual([])
  } finally {
    await context.close()
  }
}, 90_000)

test('a Customize Save refused because the session ended says only that the draft was kept, and after the sign-in the dialog opens with it', async () => {
  const { context, page, problems } = await watchedOverview()
  try {
    const { dialog, arranged, before } = await customizeWithServicesMoved(page)
    // Signed out elsewhere; this tab's Save is the request that finds it out.
    expect((await context.request.post(url('/api/auth/logout'))).status()).toBe(204)
    const refused = page.waitForResponse((response) => response.request().method() === 'PUT' && new URL(response.url()).pathname === '/api/dashboard/layout')
    await dialog.getByRole('button', { name: 'Save' }).click()
    expect((await refused).status()).toBe(401)
    const notice = page.getByRole('alert').filter({ hasText: 'Your session ended' })
    await backThroughSignIn(page, harness.sandbox, notice)
    // The change that was refused is the draft kept: not "make it again" beside "kept".
    expect(await notice.locator('p').first().textContent()).toBe('Your session ended before your last change reached the server: it was not saved. Your draft was kept; check it and save again.')
    await dialog.waitFor()
    expect(await arranged()).toEqual(before)
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await dialog.waitFor({ state: 'hidden' })
    expect(problems.filter((problem) => !problem.includes('401'))).toEqual([])
  } finally {
    await context.close()
  }
}, 90_000)

test('Retry on the Services card is busy until the check answers: the region is aria-busy and Retry waits, after a failed load and after a failed timed check', async () => {
  const { context, page, problems } = await watchedOverview()
  const services = page.getByRole('region', { name: 'Services' })
  const retryButton = services.getByRole('button', { name: 'Retry' })
  const busyRegions = () => services.locator('[aria-busy="true"]').count()
  // The service's answers, as the test decides them: refused, or held until let go.
  let next: 'refuse' | 'hold' | 'pass' = 'pass'
  let letGo = () => {}
  await page.route(url('/api/services/health'), async (route) => {
    const now = next
    next = 'pass'
    if (now === 'refuse') return route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: 'upstream_unavailable', message: 'The upstream service is unavailable.' }) })
    if (now === 'hold') await new Promise<void>((resolve) => (letGo = resolve))
    await route.continue()
  })
  try {
    // A timed check fails: the last answer stays, with Retry.
    next = 'refuse'
    await page.clock.runFor(30_000)
    await services.getByText(/^The services could not be checked again/).waitFor()
    next = 'hold'
    await retryButton.click()
    await page.waitForFunction(() => document.querySelector('[aria-labelledby="services-h"] [aria-busy="true"]') !== null)
    expect(await retryButton.isDisabled()).toBe(true)
    // The cards stay while they are checked again.
    expect(await services.getByRole('listitem').filter({ hasText: 'Hydra admin API' }).count()).toBe(1)
    letGo()
    await services.getByText(/^The services could not be checked again/).waitFor({ state: 'detached' })
    expect(await busyRegions()).toBe(0)

    // The first load fails: Retry gives way to "Loading services…" until the answer.
    next = 'refuse'
    await page.reload()
    await retryButton.waitFor()
    next = 'hold'
    await retryButton.click()
    await services.getByText('Loading services…').waitFor()
    expect(await busyRegions()).toBe(1)
    expect(await retryButton.count()).toBe(0)
    letGo()
    await services.getByText('Up', { exact: true }).first().waitFor()
    expect(await busyRegions()).toBe(0)
    expect(problems.filter((problem) => !(problem.includes('503') && problem.includes('/api/services/health')))).toEqual([])
  } finally {
    letGo()
    await context.close()
  }
}, 60_000)
