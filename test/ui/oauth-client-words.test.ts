// What the OAuth client pages and Messages say, as an operator registering a backend client, reading
// a client's page and finding a message meets it: hints read with their boxes, a client-credentials
// client without response types, a delete question that fits a client signing nobody in, the
// page's names as the form's, a "Not saved" that takes the place of an earlier "saved", and a way
// back from a recipient filter.
import { expect, test } from 'bun:test'
import { useSignedInBrowser } from './harness.ts'

const admin = useSignedInBrowser('admin', '/dashboard/oauth-clients')
const hydra = () => admin.harness.sandbox.hydra

/** The text of what describes a field, as a screen reader reads it with the field. */
const description = (id: string) =>
  admin.page.evaluate((id) => {
    const field = document.getElementById(id)!
    return (field.getAttribute('aria-describedby') ?? '').split(' ').map((ref) => document.getElementById(ref)?.textContent?.trim() ?? '').join(' | ')
  }, id)

test('a backend client (client credentials only) is created without response types; its hints are read with their boxes; its page names things as the form does; its delete question fits it', async () => {
  const page = admin.page
  await page.goto(admin.url('/dashboard/oauth-clients'))
  await page.getByRole('button', { name: 'Create client' }).click()
  const dialog = page.getByRole('dialog', { name: 'Create client' })
  await dialog.getByRole('textbox', { name: 'Client name' }).fill('Billing backend')
  expect(await description('client-redirect_uris')).toBe('One absolute URL per line.')
  expect(await description('client-scope')).toBe('Separated by spaces.')
  expect(await description('client-audience')).toBe('One per line.')
  const grants = dialog.getByRole('group', { name: 'Grant types' })
  for (const name of ['authorization code', 'refresh token']) await grants.getByRole('checkbox', { name }).uncheck()
  await grants.getByRole('checkbox', { name: 'client credentials' }).check()
  const responses = dialog.getByRole('group', { name: 'Response types' })
  for (const box of await responses.getByRole('checkbox').all()) await box.uncheck()
  await dialog.getByRole('button', { name: 'Create client' }).click()
  await page.getByRole('heading', { level: 1, name: 'Billing backend' }).waitFor()
  const created = [...hydra().clients.values()].find((client) => client.client_name === 'Billing backend')!
  expect(created.grant_types).toEqual(['client_credentials'])
  await page.getByRole('button', { name: 'Dismiss the client secret' }).click()

  const facts = page.getByRole('region', { name: 'Client', exact: true })
  expect(await facts.locator('dt', { hasText: 'Token endpoint authentication' }).count()).toBe(1)
  const grantsShown = facts.locator('dt', { hasText: 'Grant types' }).locator('xpath=following-sibling::dd[1]')
  expect(await grantsShown.textContent()).toBe('client\u00a0credentials')

  await page.getByRole('button', { name: 'Delete client' }).click()
  const question = page.getByRole('dialog', { name: /^Delete/ })
  await question.getByText('Billing backend is deleted; whatever uses it can no longer get tokens.').waitFor()
  await question.getByRole('button', { name: 'Cancel' }).click()
  expect(admin.problems).toEqual([])
})

test('"Not saved: this client changed…" takes the place of the "saved" said a moment before, rather than standing beside it', async () => {
  const page = admin.page
  const client = hydra().addClient({ client_name: 'Shop frontend', redirect_uris: ['https://shop.example.com/callback'] })
  await page.goto(admin.url(`/dashboard/oauth-clients/${client.client_id}`))
  await page.getByRole('heading', { level: 1, name: 'Shop frontend' }).waitFor()
  await page.getByRole('button', { name: 'Edit client' }).click()
  await page.getByRole('textbox', { name: 'Scope' }).fill('openid offline_access email')
  await page.getByRole('button', { name: 'Save' }).click()
  await page.getByRole('status').getByText('Client Shop frontend saved.').waitFor()
  // Within the message's seconds: another edit, while a deploy script adds a redirect URI.
  await page.getByRole('button', { name: 'Edit client' }).click()
  hydra().clients.get(client.client_id)!.redirect_uris = ['https://shop.example.com/callback', 'https://deploy.example.com/callback']
  await page.getByRole('textbox', { name: 'Redirect URIs', exact: true }).fill('https://shop.example.com/callback\nhttps://shop.example.com/other')
  await page.getByRole('button', { name: 'Save' }).click()
  await page.getByText('Not saved: this client changed since the page loaded.').waitFor()
  expect(await page.getByRole('status').textContent()).not.toContain('saved.')
  expect(hydra().clients.get(client.client_id)!.redirect_uris).toEqual(['https://shop.example.com/callback', 'https://deploy.example.com/callback'])
  expect(admin.problems).toEqual([])
})

test('Messages filtered by a recipient offer All recipients, which goes back to every message with focus in the box', async () => {
  const page = admin.page
  await page.goto(admin.url('/dashboard/messages'))
  const box = page.getByRole('searchbox', { name: 'Recipient' })
  await box.fill('nobody.at.all@example.test')
  await page.keyboard.press('Enter')
  await page.waitForURL(/recipient=nobody/)
  await page.getByText('No message matches this filter: the recipient is matched whole, exactly as written.').first().waitFor()
  await page.getByRole('button', { name: 'All recipients' }).click()
  await page.waitForURL((url) => !url.searchParams.has('recipient'))
  await page.getByRole('table', { name: 'Courier messages, newest first' }).waitFor()
  expect(await box.inputValue()).toBe('')
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('messages-recipient')
  expect(await page.getByRole('button', { name: 'All recipients' }).count()).toBe(0)
  expect(admin.problems).toEqual([])
})
