// What every UI journey needs: the sandbox, one headless Chromium per test file, sign-in through
// the sandbox's provider, and the checks every page must pass (no console error, no CSP
// violation, no sideways scroll, no serious or critical axe-core finding).

import { afterAll, beforeAll } from 'bun:test'
import { createRequire } from 'node:module'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Browser, type BrowserContext, type Dialog, type Locator, type Page, type Request, type Route } from 'playwright-core'
import { startSandbox, SANDBOX_USERS, type Sandbox } from '../../dev/sandbox.ts'
import { ANSWER_LOST, OUTCOME_UNKNOWN, UPSTREAM_OUTCOME_HEADER } from '../../src/proxy/answer-lost.ts'
import { isPassthrough } from '../../src/proxy/passthrough.ts'
import { inspectLater, inspectLogLine, inspectResponse, answerProblems, markSecret, recordFinding } from '../support/leaks.ts'
import { isRelayedAnswer } from '../support/process.ts'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
/** Screenshots go to a scratch directory; `UPDATE_SCREENSHOTS=1` writes them into docs/ for the README. */
export const SCREENSHOT_DIR = process.env.UPDATE_SCREENSHOTS === '1'
  ? join(import.meta.dir, '../../docs')
  : mkdtempSync(join(tmpdir(), 'admin-dashboard-screenshots-'))

export const DESKTOP = { width: 1280, height: 900 }
export const PHONE = { width: 390, height: 844 }

export interface Harness {
  sandbox: Sandbox
  browser: Browser
  stop(): Promise<void>
}

export interface HarnessOptions {
  hydraAdmin?: boolean
  kratosAdmin?: boolean
  kratosPublic?: boolean
  encryption?: boolean
  /** PostgreSQL instead of SQLite (see test/ui/replicas.ts). */
  databaseUrl?: string
  /** Replicas of the service on that database (sandbox.replicas). */
  replicas?: number
  /** IDENTITY_RECHECK_SECONDS (sandbox.identityRecheckSeconds). */
  identityRecheckSeconds?: number
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'admin-dashboard-ui-'))
  // Every answer and every log line of the sandbox passes the suite's leak check (test/support/preload.ts).
  const sandbox = await startSandbox({
    port: 0,
    dataDir,
    quiet: true,
    observe: (request, response) => inspectResponse(request, response, isPassthrough),
    logLines: (line) => inspectLogLine(line, 'sandbox log line'),
    ...options,
  })
  markSecret(sandbox.env.SESSION_SIGNING_KEY, sandbox.env.ENCRYPTION_KEY)
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
  return {
    sandbox,
    browser,
    async stop() {
      await browser.close()
      await sandbox.stop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** Problems the page reported: console errors, uncaught exceptions, CSP violations. */
export function watchProblems(page: Page, serviceUrl: string): string[] {
  const problems: string[] = []
  page.on('console', (message) => {
    if (message.type() !== 'error') return
    // Only our pages count (the sandbox's provider page is not ours). The session check that
    // finds no session is how the app learns to send the browser to the sign-in.
    if (!page.url().startsWith(serviceUrl)) return
    const resource = message.location().url
    if (resource === `${serviceUrl}/api/auth/session` && message.text().includes('401')) return
    problems.push(`console: ${message.text()} ${resource}`)
  })
  page.on('pageerror', (error) => problems.push(`exception: ${error.message}`))
  void page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`)
    })
  })
  return problems
}

/**
 * The error answers a page receives from a service running as its own process pass the leak check,
 * as the sandbox's answers do in process. Each is read as it arrives, held by the browser's own
 * interception (DevTools' Fetch domain) and then let through unchanged: a page that goes elsewhere
 * on an error answer (the sign-in after a 401) has already dropped it when 'response' listeners
 * could ask for it.
 */
export async function checkServiceAnswers(page: Page, serviceUrl: string): Promise<void> {
  const devtools = await page.context().newCDPSession(page)
  devtools.on('Fetch.requestPaused', (paused) => {
    const status = paused.responseStatusCode
    const header = (name: string) => paused.responseHeaders?.find((entry) => entry.name.toLowerCase() === name)?.value ?? null
    const letThrough = () => devtools.send('Fetch.continueRequest', { requestId: paused.requestId }).catch(() => {})
    if (status === undefined || status < 400 || isRelayedAnswer(paused.request.url, header('content-security-policy'))) {
      void letThrough()
      return
    }
    const where = `${paused.request.method} ${new URL(paused.request.url).pathname} → ${status} (in the browser)`
    inspectLater(
      devtools
        .send('Fetch.getResponseBody', { requestId: paused.requestId })
        .then(
          ({ body, base64Encoded }) => {
            const text = base64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body
            if (paused.request.method === 'HEAD' && text === '') return
            const problems = answerProblems(new URL(paused.request.url).pathname, status, header('content-type'), text)
            if (problems.length > 0) recordFinding(`${where}: ${problems.join('; ')}: ${text.slice(0, 300)}`)
          },
          // Its page closed meanwhile: nothing was answered to anyone.
          () => {},
        )
        .finally(letThrough),
    )
  })
  await devtools.send('Fetch.enable', { patterns: [{ urlPattern: `${serviceUrl}/*`, requestStage: 'Response' }] })
}

/**
 * Signs in at the provider from wherever the app sent the browser, and waits to be back at the
 * service (`serviceUrl`: a replica's, the sandbox's first by default).
 */
export async function signIn(page: Page, sandbox: Sandbox, role: 'admin' | 'viewer', serviceUrl = sandbox.url): Promise<void> {
  await page.waitForURL((url) => url.origin === sandbox.providerUrl)
  await page.fill('input[name="login"]', SANDBOX_USERS[role])
  await page.fill('input[name="password"]', 'anything')
  await page.click('button[type="submit"]')
  await page.waitForURL((url) => url.origin === serviceUrl)
  // The session cookie the browser now holds is a secret: no answer and no log line may carry it.
  for (const cookie of await page.context().cookies(serviceUrl)) if (cookie.name === 'admin-session') markSecret(cookie.value)
}

/**
 * The sandbox and a browser for the tests of the surrounding file or describe block: started
 * before them, stopped after them. Read its fields in tests and hooks, not at load.
 */
export function useHarness(): Harness {
  let started: Harness | undefined
  beforeAll(async () => {
    started = await startHarness()
  }, 60_000)
  afterAll(async () => {
    await started?.stop()
  })
  return {
    get sandbox() {
      return started!.sandbox
    },
    get browser() {
      return started!.browser
    },
    stop: () => started!.stop(),
  }
}

/** A signed-in context for a role, and one page in it (at `serviceUrl`: a replica's, the sandbox's first by default). */
export async function signedInPage(
  harness: Harness,
  role: 'admin' | 'viewer',
  path = '/dashboard',
  serviceUrl = harness.sandbox.url,
): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await harness.browser.newContext({ viewport: DESKTOP })
  // Well under the test's own timeout, so a step that waits in vain says which step it was.
  context.setDefaultTimeout(10_000)
  const page = await context.newPage()
  const problems = watchProblems(page, serviceUrl)
  await page.goto(`${serviceUrl}${path}`)
  await signIn(page, harness.sandbox, role, serviceUrl)
  await page.getByRole('heading', { level: 1 }).waitFor()
  return { context, page, problems }
}

/**
 * Another signed-in page whose frames and timers are Playwright's fake clock's (it runs with real
 * time until the test pauses it: a slow device), opened on the list at `path` and then, as a
 * person goes there, on the record its link `link` leads to (whose h1 is that name).
 */
export async function pageOnFakeClock(harness: Harness, role: 'admin' | 'viewer', path: string, link: string): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const other = await signedInPage(harness, role, path)
  await other.page.clock.install()
  await other.page.getByRole('link', { name: link }).click()
  await other.page.getByRole('heading', { level: 1, name: link }).waitFor()
  return other
}

/** A file's (or a describe block's) sandbox and one signed-in page in it. */
export interface SignedInBrowser {
  harness: Harness
  context: BrowserContext
  page: Page
  problems: string[]
  /** The service's URL for a path, e.g. `url('/dashboard/identities')`. */
  url(path: string): string
}

/**
 * Starts the sandbox and signs a role in (landing on `path`) before the tests of the surrounding
 * file or describe block, and stops both after them. The fields are filled in by that beforeAll,
 * so read them in tests and hooks, not at load (no destructuring at the top of the file).
 */
export function useSignedInBrowser(role: 'admin' | 'viewer', path?: string): SignedInBrowser {
  const browser = { url: (to: string) => `${browser.harness.sandbox.url}${to}` } as SignedInBrowser
  beforeAll(async () => {
    browser.harness = await startHarness()
    Object.assign(browser, await signedInPage(browser.harness, role, path))
  }, 60_000)
  afterAll(async () => {
    await browser.context?.close()
    await browser.harness?.stop()
  })
  return browser
}

/** Serious or critical axe-core findings, as readable lines. */
export async function axeFindings(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE)
  const results = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string | null; nodes: { target: unknown[] }[] }[] }> } }).axe
    return (await axe.run()).violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => String(n.target)) }))
  })
  return results.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.impact} ${v.id}: ${v.targets.join(', ')}`)
}

export async function sidewaysScroll(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
}

/**
 * Blank space between the top bar and the page's main region beyond the main region's own margin
 * (a grid row that stretches while the phone menu is closed). 0 where there is no top bar.
 */
async function gapAboveMain(page: Page): Promise<number> {
  return page.evaluate(() => {
    const banner = document.querySelector('header.topbar')
    const main = document.querySelector('main')
    if (!banner || !main) return 0
    const margin = Number.parseFloat(getComputedStyle(main).marginTop) || 0
    return Math.round(main.getBoundingClientRect().top - margin - banner.getBoundingClientRect().bottom)
  })
}

/**
 * The sweep every page gets: light and dark, desktop and phone; each state is screenshotted into
 * SCREENSHOT_DIR as `<name>-<theme>-<size>.png`. Returns every problem found.
 */
export async function sweep(page: Page, name: string, ready: () => Promise<unknown>): Promise<string[]> {
  const found: string[] = []
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme })
    for (const [size, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      await page.setViewportSize(viewport)
      await ready()
      const overflow = await sidewaysScroll(page)
      if (overflow > 0) found.push(`${name} ${theme} ${size}: scrolls sideways by ${overflow}px`)
      const gap = await gapAboveMain(page)
      if (gap > 1) found.push(`${name} ${theme} ${size}: ${gap}px of blank space between the top bar and the page`)
      for (const finding of await axeFindings(page)) found.push(`${name} ${theme} ${size}: ${finding}`)
      await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}-${theme}-${size}.png`) })
    }
  }
  await page.emulateMedia({ colorScheme: 'light' })
  await page.setViewportSize(DESKTOP)
  return found
}

/**
 * Presses Tab (or Shift+Tab) until the focused element has this accessible text (its text or
 * aria-label); fails after `limit` presses.
 */
export async function tabTo(page: Page, name: string, limit = 80, key: 'Tab' | 'Shift+Tab' = 'Tab'): Promise<void> {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press(key)
    const focused = await page.evaluate(() => {
      const element = document.activeElement as HTMLElement | null
      if (!element) return ''
      const labelled = element.getAttribute('aria-label') ?? (element.id ? document.querySelector(`label[for="${element.id}"]`)?.textContent : null)
      return (labelled ?? element.textContent ?? '').trim()
    })
    if (focused === name) return
  }
  throw new Error(`keyboard focus never reached "${name}"`)
}

/** How held requests are let go: on to the service, failed as when the service cannot be reached, or answered as given. */
export type HeldAnswer = 'continue' | 'abort' | NonNullable<Parameters<Route['fulfill']>[0]>

/**
 * Holds the page's requests whose URL `matches` and that `held` picks (a method, GET unless said,
 * or a test of the request) until `release()`: a slow upstream, as the page sees it. `release`
 * lets them go on, or answers them with `answer`; those picked after it are answered the same way,
 * without waiting. `stop()` lets everything through again. Call both in a `finally`.
 */
export async function holdRequests(
  page: Page,
  matches: (url: URL) => boolean,
  held: string | ((request: Request) => boolean) = 'GET',
): Promise<{ release: (answer?: HeldAnswer) => void; stop: () => Promise<void> }> {
  let release: (answer: HeldAnswer) => void = () => {}
  const answered = new Promise<HeldAnswer>((resolve) => (release = resolve))
  const picks = typeof held === 'string' ? (request: Request) => request.method() === held : held
  const handler = async (route: Route) => {
    const answer = picks(route.request()) ? await answered : 'continue'
    const sent = answer === 'continue' ? route.continue() : answer === 'abort' ? route.abort('connectionrefused') : route.fulfill(answer)
    // The page may have given the request up meanwhile (a newer read of the same list replaced it).
    await sent.catch((error: Error) => {
      if (!/already handled/.test(error.message)) throw error
    })
  }
  await page.route(matches, handler)
  return {
    release: (answer = 'continue') => release(answer),
    stop: async () => {
      release('continue')
      await page.unroute(matches, handler)
    },
  }
}

/**
 * The page's `method` requests whose URL `matches` reach the upstream (the change is made), and are
 * then answered as the service answers when the upstream outlives its deadline: 504
 * gateway_timeout. Returns the function that stops it.
 */
export async function answerTooLate(page: Page, method: string, matches: (url: URL) => boolean): Promise<() => Promise<void>> {
  const handler = async (route: Route) => {
    if (route.request().method() !== method) return route.continue()
    await route.fetch()
    await route.fulfill({ status: 504, contentType: 'application/json', body: JSON.stringify({ error: 'gateway_timeout', message: 'Upstream service did not respond within the timeout window.' }) })
  }
  await page.route(matches, handler)
  return () => page.unroute(matches, handler)
}

/**
 * The page's `method` requests whose URL `matches` reach the service and the upstream (the change is
 * made), and are then answered as the service answers when the upstream's answer was lost on the
 * way back (a reset after the request went out, an answer cut short: test/proxy.test.ts holds the
 * service to it): 502 with ANSWER_LOST's words and the outcome header. Returns the function that stops it.
 */
export async function answerLost(page: Page, method: string, matches: (url: URL) => boolean): Promise<() => Promise<void>> {
  const handler = async (route: Route) => {
    if (route.request().method() !== method) return route.continue()
    await route.fetch()
    await route.fulfill({ status: 502, contentType: 'application/json', headers: { [UPSTREAM_OUTCOME_HEADER]: OUTCOME_UNKNOWN }, body: JSON.stringify({ error: 'bad_gateway', message: ANSWER_LOST }) })
  }
  await page.route(matches, handler)
  return () => page.unroute(matches, handler)
}

/**
 * The page's `method` requests to URLs that `matches` answered as when the service gave up waiting
 * for the upstream before it did anything (504, nothing sent on). Returns the function that stops it.
 */
export async function timedOut(page: Page, method: string, matches: (url: URL) => boolean): Promise<() => Promise<void>> {
  const handler = (route: Route) =>
    route.request().method() !== method
      ? route.continue()
      : route.fulfill({ status: 504, contentType: 'application/json', body: JSON.stringify({ error: 'gateway_timeout', message: 'Upstream service did not respond within the timeout window.' }) })
  await page.route(matches, handler)
  return () => page.unroute(matches, handler)
}

/**
 * Answers the page's questions (window.confirm: Cancel unless `answer.ok` is set; the browser's own
 * question on reload or close: Leave when it is), noting each one asked; `stop` stops answering.
 */
export function answerQuestions(page: Page) {
  const asked: string[] = []
  const answer = { ok: false }
  const onDialog = (dialog: Dialog) => {
    asked.push(dialog.type() === 'beforeunload' ? 'beforeunload' : `${dialog.type()}: ${dialog.message()}`)
    void (answer.ok ? dialog.accept() : dialog.dismiss())
  }
  page.on('dialog', onDialog)
  return { asked, answer, stop: () => page.off('dialog', onDialog) }
}

/**
 * After a change refused because the session ended: through the provider's sign-in when it asks
 * (it may still know this browser and send it straight back), until `landed` is shown.
 */
export async function backThroughSignIn(page: Page, sandbox: Sandbox, landed: Locator): Promise<void> {
  // The provider's address is enough to know which way it went (signIn waits for its form); a
  // loaded machine may take a while to finish loading a page on the way, so the wait is longer.
  const atProvider = page.waitForURL((address) => address.origin === sandbox.providerUrl, { waitUntil: 'commit', timeout: 20_000 }).then(() => true)
  const wentThere = await Promise.race([atProvider, landed.waitFor({ timeout: 20_000 }).then(() => false)]).catch(async (error) => {
    // Neither: say where the page is and what it shows, for whoever reads the failure.
    const shown = await page.locator('body').innerText({ timeout: 1000 }).catch(() => '(nothing readable)')
    throw new Error(`${error}\nThe page is at ${page.url()} and shows: ${shown.slice(0, 2000)}`)
  })
  if (wentThere) await signIn(page, sandbox, 'admin')
  await landed.waitFor()
}

/** Create identity: fills every field the schema form marked as required (after a first Create), the e-mail address aside. */
export async function fillOtherRequired(dialog: Locator): Promise<void> {
  for (const field of await dialog.locator('[aria-invalid="true"]:not([type="email"])').all()) {
    if ((await field.evaluate((e) => e.tagName)) === 'SELECT') await field.selectOption({ index: 1 })
    else if ((await field.getAttribute('type')) === 'number') await field.fill('1')
    else await field.fill('Some value')
  }
}

/**
 * Create identity from the page's button: an empty Create first marks what the schema requires,
 * then `email` and the required fields are filled and Create is pressed once. The dialog, for what follows.
 */
export async function createIdentityThroughForm(page: Page, email: string): Promise<Locator> {
  await page.getByRole('button', { name: 'Create identity' }).click()
  const dialog = page.getByRole('dialog', { name: 'Create identity' })
  const address = dialog.getByRole('textbox', { name: /e-?mail/i }).first()
  await address.waitFor()
  await dialog.getByRole('button', { name: 'Create identity' }).click()
  await dialog.getByText(/is required/).first().waitFor()
  await address.fill(email)
  await fillOtherRequired(dialog)
  await dialog.getByRole('button', { name: 'Create identity' }).click()
  return dialog
}

/**
 * What each live region of the page holds (an <output>, role status, alert or log, aria-live): what a
 * screen reader reads out as it changes. A text box's value inside one counts with its text.
 */
export function liveRegionTexts(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('output, [role="status"], [role="alert"], [role="log"], [role="timer"], [role="marquee"], [aria-live]:not([aria-live="off"])')].map((region) =>
      [region.textContent ?? '', ...[...region.querySelectorAll('input, textarea')].map((field) => (field as HTMLInputElement).value)].join(' '),
    ),
  )
}

/** Whether a reload or closing the tab would get the browser's own "Leave site?" question now. */
export function browserAsksBeforeLeaving(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const event = new Event('beforeunload', { cancelable: true })
    window.dispatchEvent(event)
    return event.defaultPrevented
  })
}

/** A request of the overview's check of the services (timed or by Retry). */
export const isHealthCheck = (request: Request) => new URL(request.url()).pathname === '/api/services/health'

/** Every request that would take the browser to the sign-in. */
export function watchSignIns(page: Page): string[] {
  const signIns: string[] = []
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === '/api/auth/login') signIns.push(request.url())
  })
  return signIns
}

/**
 * The session ends under an open page (its cookie gone, as when it expires), once the page's own
 * loads have been answered: a load still under way (an identity's sessions, after its Deactivate
 * is shown) would meet the ended session first, and its 401 rightly takes the person to the
 * sign-in before the change the test is about is made.
 */
export async function endSession(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle')
  await page.context().clearCookies({ name: 'admin-session' })
}
