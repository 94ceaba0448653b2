// The one status region, where results and outcomes are announced: it speaks of the page shown (what
// was said about a page left goes with it, unless it was said for the navigation itself), and the
// box it shows at the foot of the screen never hides the control that has focus.
import { expect, test } from 'bun:test'
import { createIdentityThroughForm, useSignedInBrowser } from './harness.ts'

const admin = useSignedInBrowser('admin')

const statusText = () => admin.page.getByRole('status').textContent()

test('an outcome said on one page is not left over the next: a revoked session’s message goes when Security opens', async () => {
  const { page } = admin
  await page.goto(admin.url('/dashboard/sessions'))
  const table = page.getByRole('table', { name: 'Active sessions' })
  await table.waitFor()
  const email = (await table.locator('tbody tr td:first-child a').allTextContents())[0]!
  await table.getByRole('button', { name: `Revoke session of ${email}` }).click()
  await page.getByRole('dialog', { name: 'Revoke session?' }).getByRole('button', { name: 'Revoke' }).click()
  await page.getByRole('status').getByText(`Session of ${email} revoked.`).waitFor()
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Security' }).click()
  await page.getByRole('heading', { level: 1, name: 'Security' }).waitFor()
  expect(await statusText()).toBe('')
  expect(admin.problems).toEqual([])
})

test('a filtered list’s count is not left over the next list: "1 message shown." goes when a message opens, and is not over the whole list its breadcrumb leads back to', async () => {
  const { page } = admin
  const recipient = `one.message.${crypto.randomUUID().slice(0, 8)}@example.test`
  admin.harness.sandbox.kratos.addMessage({ recipient, subject: 'The only one', body: 'Hello', status: 'sent' })
  await page.goto(admin.url('/dashboard/messages'))
  await page.getByRole('table', { name: 'Messages' }).waitFor()
  await page.getByRole('searchbox', { name: 'Recipient' }).fill(recipient)
  await page.getByRole('button', { name: 'Filter' }).click()
  await page.getByRole('status').getByText('1 message shown.').waitFor()
  await page.getByRole('link', { name: 'The only one' }).click()
  await page.getByRole('heading', { level: 1, name: 'The only one' }).waitFor()
  expect(await statusText()).toBe('')
  await page.getByRole('main').getByRole('link', { name: 'Messages' }).click()
  await page.getByRole('heading', { level: 1, name: 'Messages' }).waitFor()
  await page.waitForFunction(() => document.querySelectorAll('main tbody tr').length > 1)
  expect(await statusText()).toBe('')
  expect(admin.problems).toEqual([])
})

test('what is said with the navigation stays: "Identity … created." on the identity it opens, "Identity … deleted." on the list it goes back to', async () => {
  const { page } = admin
  const email = `announced.${crypto.randomUUID().slice(0, 8)}@example.test`
  await page.goto(admin.url('/dashboard/identities'))
  await page.getByRole('table', { name: /Identities/ }).waitFor()
  await createIdentityThroughForm(page, email)
  await page.getByRole('heading', { level: 1, name: email }).waitFor()
  await page.getByRole('status').getByText(`Identity ${email} created.`).waitFor()
  await page.getByRole('button', { name: 'Delete identity' }).click()
  const dialog = page.getByRole('dialog', { name: 'Delete identity?' })
  await dialog.getByRole('textbox', { name: `Type ${email} to confirm` }).fill(email)
  await dialog.getByRole('button', { name: 'Delete', exact: true }).click()
  await page.getByRole('heading', { level: 1, name: 'Identities' }).waitFor()
  await page.getByRole('status').getByText(`Identity ${email} deleted.`).waitFor()
  expect(admin.problems).toEqual([])
})
