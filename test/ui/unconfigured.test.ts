// What the UI does when something is not configured: the pages of a missing upstream are not
// linked and a direct visit explains what to set (Kratos-only mode and its mirror); without Kratos's
// public API, the identity form says where the schemas are; without an encryption key, Settings
// says so and offers nothing that needs one.
import { afterAll, expect, test } from 'bun:test'
import { signedInPage, startHarness, sweep, tabTo, type Harness } from './harness.ts'

const harnesses: Harness[] = []
afterAll(async () => {
  for (const harness of harnesses) await harness.stop()
})

test('without OAUTH_ADMIN_URL: no OAuth clients link; a direct visit says Hydra is not configured, and nothing is asked of it', async () => {
  const harness = await startHarness({ hydraAdmin: false })
  harnesses.push(harness)
  const { context, page, problems } = await signedInPage(harness, 'admin')
  const requests: string[] = []
  page.on('request', (request) => requests.push(new URL(request.url()).pathname))
  const links = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents()
  expect(links).toEqual(['Overview', 'Identities', 'Sessions', 'Messages', 'Settings', 'Audit log', 'Security'])
  await page.goto(`${harness.sandbox.url}/dashboard/oauth-clients`)
  await page.getByRole('heading', { level: 1, name: 'OAuth clients: not configured' }).waitFor()
  expect(await page.getByRole('main').textContent()).toContain('Set OAUTH_ADMIN_URL')
  await page.goto(`${harness.sandbox.url}/dashboard/oauth-clients/some-client`)
  await page.getByRole('heading', { level: 1, name: 'OAuth client: not configured' }).waitFor()
  expect(requests.filter((path) => path.startsWith('/api/oauth-admin'))).toEqual([])
  expect(await sweep(page, 'not-configured', () => page.getByRole('heading', { level: 1 }).waitFor())).toEqual([])
  expect(problems).toEqual([])
  await context.close()
}, 60_000)

test('without IDP_ADMIN_URL (admins in their own store): no Kratos pages linked; a direct visit says Kratos is not configured', async () => {
  const harness = await startHarness({ kratosAdmin: false })
  harnesses.push(harness)
  const { context, page, problems } = await signedInPage(harness, 'admin')
  const links = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents()
  expect(links).toEqual(['Overview', 'OAuth clients', 'Settings', 'Audit log', 'Security'])
  for (const [path, title] of [
    ['/dashboard/identities', 'Identities'],
    ['/dashboard/sessions', 'Sessions'],
    ['/dashboard/messages', 'Messages'],
  ]) {
    await page.goto(`${harness.sandbox.url}${path}`)
    await page.getByRole('heading', { level: 1, name: `${title}: not configured` }).waitFor()
    expect(await page.getByRole('main').textContent()).toContain('Set IDP_ADMIN_URL')
  }
  // The audit log names the admin who signed in, without a link to an identity page that is not there.
  const adminId = [...harness.sandbox.kratos.identities.values()].find((identity) => identity.traits.email === 'admin@example.test')!.id
  await page.goto(`${harness.sandbox.url}/dashboard/audit?action=login`)
  const table = page.getByRole('table', { name: /Audit events/ })
  await table.getByRole('cell', { name: adminId }).first().waitFor()
  expect(await table.getByRole('link').count()).toBe(0)
  expect(problems).toEqual([])
  await context.close()
}, 60_000)

test('without IDP_PUBLIC_URL, a self-hosted Kratos: Create identity says where the schemas are instead of following its redirect off the site', async () => {
  const harness = await startHarness({ kratosPublic: false })
  harnesses.push(harness)
  const { context, page, problems } = await signedInPage(harness, 'admin', '/dashboard/identities')
  await page.getByRole('button', { name: 'Create identity' }).click()
  const dialog = page.getByRole('dialog', { name: 'Create identity' })
  const message = dialog.getByText('Set IDP_PUBLIC_URL to the address of Kratos’s public API.', { exact: false })
  await message.waitFor()
  // The admin API was asked, answered with its redirect, and the page went no further.
  expect(harness.sandbox.kratos.calls.map((call) => call.path)).toContain('/schemas')
  expect(harness.sandbox.kratos.publicCalls).toEqual([])
  expect(await sweep(page, 'create-identity-no-schemas', () => message.waitFor())).toEqual([])
  // A way out without the Escape key (a phone has none), reached with the keyboard.
  await tabTo(page, 'Cancel')
  await page.keyboard.press('Enter')
  await dialog.waitFor({ state: 'hidden' })
  expect(problems).toEqual([])
  await context.close()
}, 60_000)

test('without ENCRYPTION_KEY: Settings says so, offers no encryption and no API key, and plain settings still work', async () => {
  const harness = await startHarness({ encryption: false })
  harnesses.push(harness)
  const { context, page, problems } = await signedInPage(harness, 'admin', '/dashboard/settings')
  await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor()
  await page.getByRole('note').getByText(/Encryption is not available/).waitFor()
  expect(await page.getByRole('button', { name: 'Set key for idp-admin' }).isDisabled()).toBe(true)
  await page.getByRole('button', { name: 'Add setting' }).click()
  const dialog = page.getByRole('dialog', { name: 'Add setting' })
  expect(await dialog.getByRole('checkbox', { name: 'Encrypt the value' }).isDisabled()).toBe(true)
  await dialog.getByRole('textbox', { name: 'Key' }).fill('plain.setting')
  await dialog.getByRole('textbox', { name: 'Value' }).fill('visible')
  await dialog.getByRole('button', { name: 'Save' }).click()
  await page.getByRole('cell', { name: 'visible' }).waitFor()
  expect(problems).toEqual([])
  await context.close()
}, 60_000)
