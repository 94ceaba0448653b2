// An identity whose schema marks another trait than the e-mail address as its login identifier (the
// sandbox's business customers: the customer number, the e-mail address a contact field) is named
// by that trait wherever the dashboard names an identity: the Identities list, the identity's
// heading and title, the questions about it, the Sessions page.
import { expect, test } from 'bun:test'
import { holdRequests, sweep, useSignedInBrowser } from './harness.ts'

const admin = useSignedInBrowser('admin')

const customer = (number: string) => [...admin.harness.sandbox.kratos.identities.values()].find((identity) => identity.traits.customer_number === number)!
const settled = () => admin.page.waitForFunction(() => document.querySelector('main [aria-busy="true"]') === null && document.querySelectorAll('main tbody tr').length > 0)

test('the Identities list names a customer by its customer number, and finds it by that number as typed', async () => {
  const acme = customer('CN-104233')
  expect(acme.traits.email).toBe('orders@acme-tools.example')
  await admin.page.goto(admin.url('/dashboard/identities?page_size=100'))
  const table = admin.page.getByRole('table', { name: /Identities/ })
  await settled()
  const identifiers = await table.locator('tbody tr td:nth-child(2)').allTextContents()
  expect(identifiers).toContain('CN-104233')
  expect(identifiers).toContain('CN-220871')
  expect(identifiers).not.toContain('orders@acme-tools.example')
  const row = table.getByRole('row').filter({ has: admin.page.getByRole('link', { name: 'CN-104233' }) })
  await row.getByRole('checkbox', { name: 'Select CN-104233' }).waitFor()
  expect(await row.textContent()).toContain('Clara Kunde')

  await admin.page.getByRole('searchbox', { name: 'Search identities' }).fill('CN-104233')
  await admin.page.keyboard.press('Enter')
  await admin.page.getByRole('status').getByText('1 identity shown.').waitFor()
  expect(await table.locator('tbody tr td:nth-child(2)').allTextContents()).toEqual(['CN-104233'])
  expect(admin.problems).toEqual([])
})

test('the identity page is headed by the customer number, its form shows the schema’s fields, and its questions name it so', async () => {
  const acme = customer('CN-104233')
  await admin.page.goto(admin.url('/dashboard/identities?search=CN-104233'))
  await admin.page.getByRole('link', { name: 'CN-104233' }).click()
  await admin.page.getByRole('heading', { level: 1, name: 'CN-104233' }).waitFor()
  await admin.page.waitForFunction(() => document.title === 'CN-104233 · admin-dashboard')
  expect(admin.page.url()).toBe(admin.url(`/dashboard/identities/${acme.id}`))
  // The e-mail address is a field like any other; the customer number is the sign-in identifier.
  const traits = admin.page.getByRole('region', { name: 'Traits' })
  expect(await traits.getByRole('textbox', { name: 'Customer number (sign-in identifier)' }).inputValue()).toBe('CN-104233')
  expect(await traits.getByRole('textbox', { name: 'Contact e-mail' }).inputValue()).toBe('orders@acme-tools.example')
  expect(await traits.getByRole('group', { name: 'Company' }).getByRole('spinbutton', { name: 'Employees' }).inputValue()).toBe('120')
  expect(await traits.getByRole('combobox', { name: 'Plan' }).inputValue()).toBe('enterprise')
  expect(await traits.getByRole('checkbox', { name: 'Invoices by post' }).isChecked()).toBe(false)
  expect(await sweep(admin.page, 'identity-customer', () => traits.getByRole('textbox', { name: 'Customer number (sign-in identifier)' }).waitFor())).toEqual([])

  const sessions = admin.page.getByRole('region', { name: 'Sessions' })
  await sessions.getByRole('button', { name: 'End dashboard sessions' }).click()
  const question = admin.page.getByRole('dialog', { name: 'End dashboard sessions?' })
  await question.getByText('Every dashboard session of CN-104233 stops working now.').waitFor()
  await question.getByRole('button', { name: 'Cancel' }).click()
  await question.waitFor({ state: 'hidden' })
  expect(admin.problems).toEqual([])
})

test('Delete identity asks for the customer number, not the e-mail address, and says it deleted it by that name', async () => {
  const lind = customer('CN-220871')
  const { kratos } = admin.harness.sandbox
  await admin.page.goto(admin.url(`/dashboard/identities/${lind.id}`))
  await admin.page.getByRole('heading', { level: 1, name: 'CN-220871' }).waitFor()
  await admin.page.getByRole('button', { name: 'Delete identity' }).click()
  const dialog = admin.page.getByRole('dialog', { name: 'Delete identity?' })
  const confirm = dialog.getByRole('textbox', { name: 'Type CN-220871 to confirm' })
  await confirm.fill(lind.traits.email as string)
  expect(await dialog.getByRole('button', { name: 'Delete' }).isDisabled()).toBe(true)
  await confirm.fill('CN-220871')
  await dialog.getByRole('button', { name: 'Delete' }).click()
  await admin.page.getByRole('status').getByText('Identity CN-220871 deleted.').waitFor()
  await admin.page.getByRole('heading', { level: 1, name: 'Identities' }).waitFor()
  expect(kratos.identities.has(lind.id)).toBe(false)
  expect(admin.problems).toEqual([])
})

test('the Sessions page names the customer’s session by its customer number', async () => {
  const acme = customer('CN-104233')
  const [session] = admin.harness.sandbox.kratos.sessions.filter((candidate) => candidate.identityId === acme.id)
  // Its session is the oldest: the last page lists it.
  await admin.page.goto(admin.url('/dashboard/sessions?page_size=100'))
  const table = admin.page.getByRole('table', { name: 'Active sessions' })
  await settled()
  const link = table.getByRole('link', { name: 'CN-104233' })
  expect(await link.getAttribute('href')).toBe(`/dashboard/identities/${acme.id}`)
  await admin.page.getByRole('button', { name: 'Revoke session of CN-104233' }).click()
  const dialog = admin.page.getByRole('dialog', { name: 'Revoke session?' })
  await dialog.getByText('CN-104233 is signed out on this device.').waitFor()
  await dialog.getByRole('button', { name: 'Revoke' }).click()
  await admin.page.getByRole('status').getByText('Session of CN-104233 revoked.').waitFor()
  expect(session!.active).toBe(false)
  expect(admin.problems).toEqual([])
})

test('identity schemas that do not come do not hold the list: its rows are shown, named without them, and named by them once they have come', async () => {
  const schemas = await holdRequests(admin.page, (url) => /^\/api\/idp(-admin)?\/schemas/.test(url.pathname))
  try {
    // A fresh load of the app, so nothing of the schemas is known yet.
    await admin.page.goto(admin.url('/dashboard/identities?search=CN-104233'))
    const table = admin.page.getByRole('table', { name: /Identities/ })
    // Held: the row is there all the same, named by the trait names Kratos lists (the e-mail address).
    await table.getByRole('link', { name: 'orders@acme-tools.example' }).waitFor()
    schemas.release()
    // The next load of the list (the whole list, then the same search again) has them.
    await admin.page.getByRole('button', { name: 'Clear search' }).click()
    await admin.page.getByRole('searchbox', { name: 'Search identities' }).fill('CN-104233')
    await admin.page.keyboard.press('Enter')
    await table.getByRole('link', { name: 'CN-104233' }).waitFor()
  } finally {
    await schemas.stop()
  }
  expect(admin.problems).toEqual([])
})
