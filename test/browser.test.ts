// A person signs in: headless Chromium (Debian's package, driven by playwright-core) goes through
// the sandbox's provider and lands on /dashboard showing who is signed in.
import { expect, test } from 'bun:test'
import { SANDBOX_USERS } from '../dev/sandbox.ts'
import { useHarness, watchProblems } from './ui/harness.ts'

const harness = useHarness()

test('an administrator signs in through the provider and lands on /dashboard', async () => {
  const { sandbox } = harness
  const page = await harness.browser.newPage()
  const problems = watchProblems(page, sandbox.url)
  await page.goto(`${sandbox.url}/dashboard`)
  // No session: the page sends the browser to the login, which ends at the provider's form.
  await page.waitForURL((url) => url.origin === sandbox.providerUrl)
  await page.fill('input[name="login"]', SANDBOX_USERS.admin)
  await page.fill('input[name="password"]', 'anything')
  await page.click('button[type="submit"]')
  await page.waitForURL(`${sandbox.url}/dashboard`)
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
  expect(await page.getByRole('banner').textContent()).toContain(SANDBOX_USERS.admin)
  expect(await page.getByRole('banner').textContent()).toContain('Admin')

  // The cookie is HttpOnly: page script cannot read it.
  expect(await page.evaluate(() => document.cookie)).not.toContain('admin-session')
  const cookies = await page.context().cookies(sandbox.url)
  const session = cookies.find((cookie) => cookie.name === 'admin-session')!
  expect(session.httpOnly).toBe(true)
  expect(session.sameSite).toBe('Strict')

  // Sign out: the page says so, and the session is gone.
  await page.getByRole('button', { name: 'Sign out' }).click()
  await page.getByRole('heading', { level: 1, name: 'Signed out' }).waitFor()
  const after = await page.context().request.get(`${sandbox.url}/api/auth/session`)
  expect(after.status()).toBe(401)
  expect(problems).toEqual([])
}, 60_000)
