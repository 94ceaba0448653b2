// The overview and the shell around every page, for an administrator and for a viewer.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { BrowserContext, Page } from 'playwright-core'
import { SANDBOX_USERS } from '../../dev/sandbox.ts'
import { PHONE, DESKTOP, signedInPage, startHarness, sweep, type Harness } from './harness.ts'

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

test('an admin sees the services, the session map with its table, and the latest audit events', async () => {
  const { page } = admin
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
  const services = page.getByRole('region', { name: 'Services' })
  const card = services.getByRole('listitem').filter({ hasText: 'Kratos admin API' })
  await card.getByText('Up', { exact: true }).waitFor()
  expect(await card.textContent()).toContain('v26.2.0')
  expect(await card.textContent()).toMatch(/\d+ ms/)

  const map = page.getByRole('region', { name: 'Active sessions by location' })
  await map.getByRole('img', { name: /Map of active sessions/ }).waitFor()
  const rows = await map.getByRole('table').locator('tbody tr').allTextContents()
  expect(rows.length).toBeGreaterThan(1)

  const audit = page.getByRole('region', { name: 'Latest audit events' })
  await audit.getByText('login').first().waitFor()
  await audit.getByRole('link', { name: 'Audit log' }).click()
  await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor()
  expect(page.url()).toBe(url('/dashboard/audit'))
  await page.getByRole('table').getByText('login').first().waitFor()
  await page.goBack()
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
})

test('the Main navigation lists the admin pages in order; an unknown path shows the app’s own not-found view', async () => {
  const { page } = admin
  const nav = page.getByRole('navigation', { name: 'Main' })
  expect(await nav.getByRole('link').allTextContents()).toEqual(['Overview', 'Identities', 'Sessions', 'Messages', 'OAuth clients', 'Settings', 'Audit log', 'Security'])
  await page.goto(url('/dashboard/no/such/page'))
  await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor()
  await page.waitForFunction((title) => document.title === title, 'Page not found · admin-dashboard')
})

test('the theme choice is remembered', async () => {
  const { page } = admin
  await page.goto(url('/dashboard'))
  await page.getByRole('combobox', { name: 'Theme' }).selectOption('dark')
  await page.reload()
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
  expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark')
  expect(await page.getByRole('combobox', { name: 'Theme' }).inputValue()).toBe('dark')
  await page.getByRole('combobox', { name: 'Theme' }).selectOption('system')
  expect(await page.evaluate(() => document.documentElement.dataset.theme ?? null)).toBeNull()
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

test('the overview and the audit log pass the sweep: light and dark, desktop and phone', async () => {
  const { page, problems } = admin
  await page.goto(url('/dashboard'))
  const found = await sweep(page, 'overview', async () => {
    await page.getByRole('region', { name: 'Active sessions by location' }).getByRole('table').waitFor()
    await page.getByRole('region', { name: 'Services' }).getByText('Up', { exact: true }).first().waitFor()
  })
  await page.goto(url('/dashboard/audit'))
  found.push(...(await sweep(page, 'audit', () => page.getByRole('table').waitFor())))
  expect(found).toEqual([])
  expect(problems).toEqual([])
}, 90_000)
