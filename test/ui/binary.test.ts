// The compiled executable serves the whole UI from inside itself: an admin signs in from a deep
// link and works through the identities, with nothing but the one file, a provider and a store.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { KratosFixture } from '../support/kratos.ts'
import { HydraFixture } from '../support/hydra.ts'
import { startOAuthProvider, type RunningProvider } from '../support/oauth-provider.ts'
import { randomKey } from '../support/service.ts'
import { runToEnd, startProcess, type ServiceProcess } from '../support/process.ts'
import { freePort } from '../support/ports.ts'
import { checkServiceAnswers, watchProblems } from './harness.ts'
import { markSecret, throwFindings } from '../support/leaks.ts'

const dir = mkdtempSync(join(tmpdir(), 'admin-dashboard-ui-binary-'))
const binary = join(dir, 'admin-dashboard')
let kratos: KratosFixture
let hydra: HydraFixture
let provider: RunningProvider
let service: ServiceProcess
let browser: Browser
let baseUrl: string

beforeAll(async () => {
  const build = await runToEnd(['bun', 'build.ts'], { OUTFILE: binary, HOME: process.env.HOME }, { cwd: join(import.meta.dir, '../..') })
  if (build.code !== 0) throw new Error(`build failed: ${build.stderr}`)
  kratos = new KratosFixture().start()
  kratos.addIdentity({ email: 'ops@example.test', role: 'admin' })
  kratos.addIdentity({ email: 'watcher@example.test', role: 'viewer' })
  for (let i = 1; i <= 30; i++) kratos.addIdentity({ email: `person${String(i).padStart(2, '0')}@example.test`, name: `Person ${i}` })
  const traveller = [...kratos.identities.values()].find((identity) => identity.traits.email === 'person07@example.test')!
  kratos.addSession(traveller.id, { ip_address: '81.2.69.160', user_agent: 'Firefox' })
  kratos.addMessage({ recipient: 'person07@example.test', subject: 'Your code', body: '<b>123456</b>', status: 'abandoned' }, [{ status: 'failed', error: { message: 'relay refused' } }])
  kratos.addMessage({ recipient: 'person08@example.test', subject: 'Welcome', body: 'Hello', status: 'sent' }, [{ status: 'success' }])
  hydra = new HydraFixture().start()
  const port = freePort()
  baseUrl = `http://127.0.0.1:${port}`
  provider = await startOAuthProvider({
    clientId: 'admin-dashboard',
    redirectUris: [`${baseUrl}/api/auth/callback`],
    findSubject: (login) => {
      const identity = [...kratos.identities.values()].find((i) => i.traits.email === login)
      return identity ? { sub: identity.id, email: login } : null
    },
  })
  service = await startProcess([binary], {
    PORT: String(port),
    HOST: '127.0.0.1',
    BASE_URL: baseUrl,
    NODE_ENV: 'development',
    OAUTH_ISSUER_URL: provider.url,
    OAUTH_CLIENT_ID: 'admin-dashboard',
    SESSION_SIGNING_KEY: randomKey(),
    ENCRYPTION_KEY: randomKey(),
    DATABASE_PATH: join(dir, 'db', 'a.db'),
    IDP_ADMIN_URL: kratos.url,
    OAUTH_ADMIN_URL: hydra.url,
  })
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] })
}, 180_000)
afterAll(async () => {
  await browser?.close()
  service?.child.kill('SIGTERM')
  await service?.exited
  await provider?.stop()
  await kratos?.stop()
  await hydra?.stop()
  rmSync(dir, { recursive: true, force: true })
  // The lines the service wrote as it stopped, after the last test's check.
  await throwFindings()
})

/** A new context and its page, whose error answers from the service pass the leak check. */
async function openPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext()
  const page = await context.newPage()
  await checkServiceAnswers(page, baseUrl)
  return { context, page }
}

async function signIn(page: Page, path: string, login = 'ops@example.test'): Promise<void> {
  await page.goto(`${baseUrl}${path}`)
  await page.waitForURL((url) => url.origin === provider.url)
  await page.fill('input[name="login"]', login)
  await page.fill('input[name="password"]', 'anything')
  await page.click('button[type="submit"]')
  // Back at the page asked for; what it shows is each test's to wait for.
  await page.waitForURL(`${baseUrl}${path}`, { waitUntil: 'commit' })
  // The session cookie the browser now holds is a secret: no answer and no log line may carry it.
  for (const cookie of await page.context().cookies(baseUrl)) if (cookie.name === 'admin-session') markSecret(cookie.value)
}

test('from the executable: an admin signs in from a deep link, pages through the identities and finds one', async () => {
  const { context, page } = await openPage()
  const problems = watchProblems(page, baseUrl)
  await signIn(page, '/dashboard/identities?page_size=25')
  const table = page.getByRole('table', { name: /Identities/ })
  await table.waitFor()
  const first = await table.locator('tbody tr').count()
  expect(first).toBe(25)
  await page.getByRole('button', { name: 'Next page' }).click()
  await page.waitForFunction(() => document.querySelector('.pager span')?.textContent === 'Page 2' && !document.querySelector('[aria-busy="true"]'))
  expect(await table.locator('tbody tr').count()).toBe(kratos.identities.size - 25)
  await page.getByRole('searchbox', { name: 'Search identities' }).fill('person17@example.test')
  await page.keyboard.press('Enter')
  await page.waitForURL(/search=person17/)
  await table.waitFor()
  expect(problems).toEqual([])
  await page.getByRole('link', { name: 'person17@example.test' }).click()
  await page.getByRole('heading', { level: 1, name: 'person17@example.test' }).waitFor()
  expect(problems).toEqual([])
  // The assets came from inside the executable, cached for good.
  const asset = await context.request.get(`${baseUrl}${await page.evaluate(() => document.querySelector('script[type="module"]')!.getAttribute('src'))}`)
  expect(asset.headers()['cache-control']).toBe('public, max-age=31536000, immutable')
  await context.close()
}, 60_000)

test('from the executable: an admin stores an API key that the next Kratos call carries, reveals a setting and finds the reveal in the audit log', async () => {
  const { context, page } = await openPage()
  context.setDefaultTimeout(10_000)
  const problems = watchProblems(page, baseUrl)
  const bodies: Promise<string>[] = []
  context.on('response', (response) => bodies.push(response.text().catch(() => '')))
  await signIn(page, '/dashboard/settings')
  await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor()
  const apiKey = 'ory_pat_from-the-executable-0123456789'
  markSecret(apiKey, 'smtp-secret-value')
  await page.getByRole('button', { name: 'Set key for idp-admin' }).click()
  await page.getByRole('dialog', { name: 'API key for /api/idp-admin' }).getByLabel('API key').fill(apiKey)
  await page.getByRole('dialog', { name: 'API key for /api/idp-admin' }).getByRole('button', { name: 'Save' }).click()
  await page.getByRole('button', { name: 'Replace key for idp-admin' }).waitFor()

  await page.getByRole('button', { name: 'Add setting' }).click()
  const dialog = page.getByRole('dialog', { name: 'Add setting' })
  await dialog.getByRole('textbox', { name: 'Key' }).fill('smtp.password')
  await dialog.getByRole('textbox', { name: 'Value' }).fill('smtp-secret-value')
  await dialog.getByRole('checkbox', { name: 'Encrypt the value' }).check()
  await dialog.getByRole('button', { name: 'Save' }).click()
  await page.getByRole('button', { name: 'Reveal smtp.password' }).click()
  await page.getByText('smtp-secret-value').waitFor()

  const before = kratos.calls.length
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Identities' }).click()
  await page.getByRole('table', { name: /Identities/ }).waitFor()
  const calls = kratos.calls.slice(before).filter((call) => call.path.startsWith('/admin/'))
  expect(calls.length).toBeGreaterThan(0)
  for (const call of calls) expect(call.headers.get('authorization')).toBe(`Bearer ${apiKey}`)

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click()
  await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor()
  await page.getByRole('table').waitFor()
  await page.getByRole('combobox', { name: 'Action' }).selectOption('settings_decrypt_read')
  await page.waitForURL(/action=settings_decrypt_read/)
  // Until the filtered page arrives the table still lists the setting's creation too.
  await page.waitForFunction(() => {
    const actions = [...document.querySelectorAll('main table tbody tr td:nth-child(3)')].map((cell) => cell.textContent)
    return actions.length > 0 && actions.every((action) => action === 'settings decrypt read')
  })
  await page.getByRole('table').getByRole('cell', { name: 'smtp.password' }).waitFor()
  expect(problems).toEqual([])
  for (const body of await Promise.all(bodies)) expect(body).not.toContain(apiKey)
  await context.close()
}, 60_000)

test('from the executable: revoke a Kratos session, read a failed message, create a client whose secret is shown once', async () => {
  const { context, page } = await openPage()
  context.setDefaultTimeout(10_000)
  const problems = watchProblems(page, baseUrl)
  await signIn(page, '/dashboard/sessions')
  await page.getByRole('heading', { level: 1, name: 'Sessions' }).waitFor()
  await page.getByRole('button', { name: 'Revoke session of person07@example.test' }).click()
  await page.getByRole('dialog', { name: 'Revoke session?' }).getByRole('button', { name: 'Revoke' }).click()
  await page.getByRole('status').getByText('Session of person07@example.test revoked.').waitFor()
  expect(kratos.sessions.every((session) => !session.active)).toBe(true)

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Messages' }).click()
  await page.getByRole('combobox', { name: 'Status' }).selectOption('abandoned')
  await page.getByRole('link', { name: 'Your code' }).click()
  expect(await page.getByLabel('Message body').textContent()).toBe('<b>123456</b>')
  await page.getByText('relay refused').waitFor()

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'OAuth clients' }).click()
  await page.getByRole('button', { name: 'Create client' }).click()
  const dialog = page.getByRole('dialog', { name: 'Create client' })
  await dialog.getByRole('textbox', { name: 'Client name' }).fill('Ops tool')
  await dialog.getByRole('textbox', { name: 'Redirect URIs', exact: true }).fill('https://ops.example.com/cb')
  await dialog.getByRole('button', { name: 'Create client' }).click()
  await page.getByRole('heading', { level: 1, name: 'Ops tool' }).waitFor()
  const created = [...hydra.clients.values()].find((client) => client.client_name === 'Ops tool')!
  markSecret(created.secret)
  expect(await page.getByRole('textbox', { name: 'Client secret', exact: true }).inputValue()).toBe(created.secret)
  await page.reload()
  await page.getByRole('heading', { level: 1, name: 'Ops tool' }).waitFor()
  expect(await page.content()).not.toContain(created.secret!)
  expect(problems).toEqual([])
  await context.close()
}, 60_000)

test('from the executable: create an identity from the schema form, edit a trait, delete it after typing its identifier', async () => {
  const { context, page } = await openPage()
  context.setDefaultTimeout(10_000)
  const problems = watchProblems(page, baseUrl)
  await signIn(page, '/dashboard/identities')
  await page.getByRole('heading', { level: 1, name: 'Identities' }).waitFor()
  await page.getByRole('button', { name: 'Create identity' }).click()
  const dialog = page.getByRole('dialog', { name: 'Create identity' })
  await dialog.getByRole('textbox', { name: /e-?mail/i }).fill('fresh@example.test')
  await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill('Fresh Person')
  await dialog.getByRole('button', { name: 'Create identity' }).click()
  await page.getByRole('heading', { level: 1, name: 'fresh@example.test' }).waitFor()
  const created = [...kratos.identities.values()].find((identity) => identity.traits.email === 'fresh@example.test')!
  expect(created.traits).toEqual({ email: 'fresh@example.test', name: 'Fresh Person' })

  const traits = page.getByRole('region', { name: 'Traits' })
  await traits.getByRole('textbox', { name: 'Name', exact: true }).fill('Renamed Fresh')
  await traits.getByRole('button', { name: 'Save' }).click()
  await page.getByRole('status').getByText('Traits saved.').waitFor()
  expect(kratos.identities.get(created.id)!.traits.name).toBe('Renamed Fresh')

  await page.getByRole('button', { name: 'Delete identity' }).click()
  const confirm = page.getByRole('dialog', { name: 'Delete identity?' })
  await expect(confirm.getByRole('button', { name: 'Delete' }).isDisabled()).resolves.toBe(true)
  await confirm.getByRole('textbox').fill('fresh@example.test')
  await confirm.getByRole('button', { name: 'Delete' }).click()
  await page.getByRole('heading', { level: 1, name: 'Identities' }).waitFor()
  expect(kratos.identities.has(created.id)).toBe(false)
  expect(problems).toEqual([])
  await context.close()
}, 60_000)

test('from the executable: read the posture, end an identity’s dashboard sessions, and customize the overview', async () => {
  const { context, page } = await openPage()
  context.setDefaultTimeout(10_000)
  const problems = watchProblems(page, baseUrl)
  await signIn(page, '/dashboard/security')
  const posture = page.getByRole('region', { name: 'Posture checks' })
  await posture.getByText(/need(s)? attention/).waitFor()
  expect(await posture.textContent()).toContain('What to do:')
  const someone = [...kratos.identities.values()].find((identity) => identity.traits.email === 'person03@example.test')!
  const form = page.getByRole('region', { name: 'End dashboard sessions' })
  await form.getByRole('textbox', { name: 'Identity ID' }).fill(someone.id)
  await form.getByRole('button', { name: 'End dashboard sessions' }).click()
  await page.getByRole('dialog', { name: 'End dashboard sessions?' }).getByRole('button', { name: 'End dashboard sessions' }).click()
  await page.getByRole('status').getByText('Every dashboard session of person03@example.test has ended.').waitFor()

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Overview' }).click()
  await page.getByRole('button', { name: 'Customize' }).click()
  const dialog = page.getByRole('dialog', { name: 'Customize the overview' })
  await dialog.getByRole('checkbox', { name: 'Show Services' }).uncheck()
  await dialog.getByRole('button', { name: 'Save' }).click()
  await page.getByRole('status').getByText('Overview arrangement saved.').waitFor()
  await page.reload()
  await page.getByRole('region', { name: 'Latest audit events' }).waitFor()
  expect(await page.getByRole('region', { name: 'Services' }).count()).toBe(0)
  expect(problems).toEqual([])
  await context.close()
}, 60_000)

test('from the executable: deactivate and reactivate, a recovery link, revoke and extend sessions, deactivate three at once', async () => {
  const { context, page } = await openPage()
  context.setDefaultTimeout(10_000)
  const problems = watchProblems(page, baseUrl)
  const find = (email: string) => [...kratos.identities.values()].find((identity) => identity.traits.email === email)!
  const person = find('person11@example.test')
  kratos.addSession(person.id, { ip_address: '81.2.69.160', user_agent: 'Safari' })
  kratos.addSession(find('person12@example.test').id, { ip_address: '81.2.69.161', user_agent: 'Chrome' })
  await signIn(page, `/dashboard/identities/${person.id}`)
  await page.getByRole('heading', { level: 1, name: 'person11@example.test' }).waitFor()
  await page.getByRole('button', { name: 'Deactivate' }).click()
  await page.getByRole('status').getByText('Identity deactivated.').waitFor()
  expect(kratos.identities.get(person.id)!.state).toBe('inactive')
  await page.getByRole('button', { name: 'Activate' }).click()
  await page.getByRole('status').getByText('Identity activated.').waitFor()
  expect(kratos.identities.get(person.id)!.state).toBe('active')

  await page.getByRole('button', { name: 'Create recovery link' }).click()
  const link = page.getByRole('textbox', { name: 'Recovery link', exact: true })
  expect(await link.inputValue()).toMatch(/^https?:\/\//)

  const sessionsOf = (id: string) => kratos.sessions.filter((session) => session.identityId === id && session.active)
  expect(sessionsOf(person.id).length).toBe(1)
  await page.getByRole('button', { name: 'Revoke session 1' }).click()
  await page.getByRole('status').getByText('Session revoked.').waitFor()
  expect(sessionsOf(person.id).length).toBe(0)

  // The recovery link is still on screen: leaving asks first, and going on loses it.
  const asked = new Promise<string>((resolve) => page.once('dialog', (dialog) => (resolve(dialog.message()), void dialog.accept())))
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sessions' }).click()
  expect(await asked).toContain('shown only once')
  const [extended] = sessionsOf(find('person12@example.test').id)
  const before = Date.parse(extended!.expires_at)
  await page.getByRole('button', { name: 'Extend session of person12@example.test' }).click()
  await page.getByRole('status').getByText('Session of person12@example.test extended.').waitFor()
  expect(Date.parse(extended!.expires_at)).toBeGreaterThan(before)

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Identities' }).click()
  const table = page.getByRole('table', { name: /Identities/ })
  await table.waitFor()
  const chosen: string[] = []
  // Never someone a test signs in as: a deactivated identity can no longer sign in.
  for (let i = 0; chosen.length < 3; i++) {
    const box = table.getByRole('checkbox', { name: /^Select (?!all on this page)/ }).nth(i)
    const name = ((await box.getAttribute('aria-label')) ?? '').replace(/^Select /, '')
    if (name === 'ops@example.test' || name === 'watcher@example.test') continue
    chosen.push(name)
    await box.check()
  }
  await page.getByRole('button', { name: 'Deactivate', exact: true }).click()
  await page.getByRole('dialog', { name: 'Deactivate 3 identities?' }).getByRole('button', { name: 'Deactivate' }).click()
  await page.getByRole('status').getByText('3 identities deactivated.').waitFor()
  expect(chosen.map((email) => find(email).state)).toEqual(['inactive', 'inactive', 'inactive'])
  expect(problems).toEqual([])
  await context.close()
}, 60_000)

test('from the executable: edit a client’s redirect URIs, create a public client with no secret, delete a client', async () => {
  const { context, page } = await openPage()
  context.setDefaultTimeout(10_000)
  const problems = watchProblems(page, baseUrl)
  await signIn(page, '/dashboard/oauth-clients')
  await page.getByRole('button', { name: 'Create client' }).click()
  const dialog = page.getByRole('dialog', { name: 'Create client' })
  await dialog.getByRole('textbox', { name: 'Client name' }).fill('Kiosk app')
  await dialog.getByRole('combobox', { name: 'Token endpoint authentication' }).selectOption('none')
  await dialog.getByRole('textbox', { name: 'Redirect URIs', exact: true }).fill('com.example.kiosk:/callback')
  await dialog.getByRole('button', { name: 'Create client' }).click()
  await page.getByRole('heading', { level: 1, name: 'Kiosk app' }).waitFor()
  const kiosk = [...hydra.clients.values()].find((client) => client.client_name === 'Kiosk app')!
  // Hydra gave it a random secret too, and told nobody: none is shown.
  expect(kiosk.secret).toBeTruthy()
  expect(await page.getByRole('textbox', { name: 'Client secret', exact: true }).count()).toBe(0)

  await page.getByRole('button', { name: 'Edit client' }).click()
  await page.getByRole('textbox', { name: 'Redirect URIs', exact: true }).fill('com.example.kiosk:/callback\ncom.example.kiosk:/other')
  await page.getByRole('button', { name: 'Save' }).click()
  await page.getByRole('status').getByText('Client Kiosk app saved.').waitFor()
  expect(hydra.clients.get(kiosk.client_id)!.redirect_uris).toEqual(['com.example.kiosk:/callback', 'com.example.kiosk:/other'])

  await page.getByRole('button', { name: 'Delete client' }).click()
  await page.getByRole('dialog', { name: 'Delete client?' }).getByRole('button', { name: 'Delete' }).click()
  await page.getByRole('heading', { level: 1, name: 'OAuth clients' }).waitFor()
  expect(hydra.clients.has(kiosk.client_id)).toBe(false)
  expect(problems).toEqual([])
  await context.close()
}, 60_000)

test('from the executable: a viewer sees only Overview, and an admin page\'s URL says no access without one admin request', async () => {
  const { context, page } = await openPage()
  context.setDefaultTimeout(10_000)
  const problems = watchProblems(page, baseUrl)
  const requests: string[] = []
  page.on('request', (request) => requests.push(new URL(request.url()).pathname))
  await signIn(page, '/dashboard', 'watcher@example.test')
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
  expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents()).toEqual(['Overview'])
  // The session map reads the store's sessions for every role; once it is drawn, that read is over.
  await page.getByRole('region', { name: 'Session map' }).getByRole('img', { name: /Map of active sessions/ }).waitFor()
  await page.waitForLoadState('networkidle')
  const kratosBefore = kratos.calls.length
  for (const path of ['/dashboard/identities', '/dashboard/sessions', '/dashboard/messages', '/dashboard/oauth-clients', '/dashboard/settings', '/dashboard/audit', '/dashboard/security']) {
    await page.goto(`${baseUrl}${path}`)
    await page.getByRole('heading', { level: 1, name: 'No access' }).waitFor()
  }
  expect(requests.filter((path) => /^\/api\/(config|identities|security|settings|encrypt|audit|idp-admin|iam-idp-admin|oauth-admin)(\/|$)/.test(path))).toEqual([])
  expect(kratos.calls.slice(kratosBefore).filter((call) => call.path.startsWith('/admin/identities') || call.path.startsWith('/admin/sessions'))).toEqual([])
  expect(problems).toEqual([])
  await context.close()
}, 60_000)
