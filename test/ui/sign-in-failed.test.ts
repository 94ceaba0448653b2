// A person whose account has no role in the dashboard signs in: the browser lands on a page that
// says so in words, in the dashboard's look, with a way to sign in again (as someone else) that
// still leads where they were going. Not on the error envelope's JSON.
import { expect, test } from 'bun:test'
import { SANDBOX_USERS } from '../../dev/sandbox.ts'
import { DESKTOP, signIn, sweep, tabTo, useHarness, watchProblems } from './harness.ts'

const harness = useHarness()

test('an account without a role: "Sign-in failed" says why and whom to ask; Sign in again, by keyboard, signs in as an admin and lands on the page asked for', async () => {
  const context = await harness.browser.newContext({ viewport: DESKTOP })
  context.setDefaultTimeout(10_000)
  const page = await context.newPage()
  const problems = watchProblems(page, harness.sandbox.url)
  const sample = [...harness.sandbox.kratos.identities.values()].find((identity) => identity.traits.role === undefined)!
  const before = harness.sandbox.kratos.identities.size

  await page.goto(`${harness.sandbox.url}/dashboard/identities?search=sample`)
  await page.waitForURL((url) => url.origin === harness.sandbox.providerUrl)
  await page.fill('input[name="login"]', sample.traits.email as string)
  await page.fill('input[name="password"]', 'anything')
  await page.click('button[type="submit"]')

  const heading = page.getByRole('heading', { level: 1, name: 'Sign-in failed' })
  await heading.waitFor()
  expect(new URL(page.url()).pathname).toBe('/api/auth/callback')
  expect(await page.title()).toBe('Sign-in failed · admin-dashboard')
  const main = page.getByRole('main')
  expect((await main.textContent())!.replace(/\s+/g, ' ').trim()).toBe(
    'Sign-in failed This account has no role in the admin dashboard. Ask an administrator to give your account a role. Sign in again',
  )
  // No session came of it.
  expect((await context.cookies(harness.sandbox.url)).map((cookie) => cookie.name)).not.toContain('admin-session')
  // The dashboard's look, in both themes, at desktop and phone sizes.
  expect(await sweep(page, 'sign-in-failed', () => heading.waitFor())).toEqual([])

  await tabTo(page, 'Sign in again')
  await page.keyboard.press('Enter')
  await signIn(page, harness.sandbox, 'admin')
  await page.getByRole('heading', { level: 1, name: 'Identities' }).waitFor()
  expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe('/dashboard/identities?search=sample')
  await expect(page.getByRole('searchbox', { name: 'Search identities' }).inputValue()).resolves.toBe('sample')

  // The refusal is in the audit trail, under the identity that tried; the store is as it was.
  await page.goto(`${harness.sandbox.url}/dashboard/audit?action=login`)
  const events = page.getByRole('table', { name: /Audit events/ })
  await events.getByRole('row').filter({ hasText: sample.id }).first().waitFor()
  expect(await events.getByRole('row').filter({ hasText: sample.id }).first().textContent()).toContain('refused')
  expect(harness.sandbox.kratos.identities.size).toBe(before)
  expect(SANDBOX_USERS.admin).not.toBe(sample.traits.email)

  // The browser notes the page's own status (403, as decisions §4 asks) in the console; nothing else.
  expect(problems.map((problem) => problem.replace(/\?.*/, ''))).toEqual([
    `console: Failed to load resource: the server responded with a status of 403 (Forbidden) ${harness.sandbox.url}/api/auth/callback`,
  ])
  await context.close()
}, 90_000)
