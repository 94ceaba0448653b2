// The identity forms and sections as an operator meets them beyond the plain path: an optional group
// left blank, a number the browser cannot read, a message that goes once its field is put right,
// Save keeping the focus while it sends, an identity deleted elsewhere while its page is open,
// Revoke all sessions where there is none, a recovery link dismissed, and a refused field on a phone.
import { expect, test } from 'bun:test'
import { DESKTOP, holdRequests, liveRegionTexts, PHONE, sweep, useSignedInBrowser } from './harness.ts'

const admin = useSignedInBrowser('admin', '/dashboard/identities')

const kratos = () => admin.harness.sandbox.kratos
const customer = (number: string) => [...kratos().identities.values()].find((identity) => identity.traits.customer_number === number)
const focused = () => admin.page.evaluate(() => `${document.activeElement?.tagName} ${document.activeElement?.textContent?.trim() ?? ''}`)

async function openCreateCustomer() {
  await admin.page.goto(admin.url('/dashboard/identities'))
  await admin.page.getByRole('button', { name: 'Create identity' }).click()
  const dialog = admin.page.getByRole('dialog', { name: 'Create identity' })
  await dialog.getByRole('combobox', { name: 'Identity schema' }).selectOption({ label: 'Business customer (customer)' })
  await dialog.getByRole('textbox', { name: 'Customer number (sign-in identifier)' }).waitFor()
  return dialog
}

test('a customer without a company: the optional group left blank is left out, not refused for the name it requires; emptied in an edit, it goes', async () => {
  const dialog = await openCreateCustomer()
  await dialog.getByRole('textbox', { name: 'Customer number (sign-in identifier)' }).fill('CN-12')
  await dialog.getByRole('textbox', { name: 'Contact e-mail' }).fill('orders@solo-trader.example')
  await dialog.getByRole('combobox', { name: 'Plan' }).selectOption('starter')
  await dialog.getByRole('button', { name: 'Create identity' }).click()
  // The pattern the schema asks for is said, not "the expected form".
  await dialog.getByText('Enter a value of the form the identity schema asks for (pattern: ^CN-[0-9]{6}$).').waitFor()
  expect(await dialog.getByText('Company name is required.').count()).toBe(0)
  await dialog.getByRole('textbox', { name: 'Customer number (sign-in identifier)' }).fill('CN-555001')
  await dialog.getByRole('button', { name: 'Create identity' }).click()
  await admin.page.getByRole('heading', { level: 1, name: 'CN-555001' }).waitFor()
  expect(customer('CN-555001')!.traits).toEqual({ customer_number: 'CN-555001', email: 'orders@solo-trader.example', plan: 'starter' })

  // An existing customer's company emptied in the form: saved without it.
  const acme = customer('CN-104233')!
  expect(acme.traits.company).toEqual({ name: 'Acme Tools GmbH', employees: 120 })
  await admin.page.goto(admin.url(`/dashboard/identities/${acme.id}`))
  const company = admin.page.getByRole('region', { name: 'Traits' }).getByRole('group', { name: 'Company' })
  await company.getByRole('textbox', { name: 'Company name' }).fill('')
  await company.getByRole('spinbutton', { name: 'Employees' }).fill('')
  await admin.page.getByRole('region', { name: 'Traits' }).getByRole('button', { name: 'Save' }).click()
  await admin.page.getByRole('status').getByText('Traits saved.').waitFor()
  expect(customer('CN-104233')!.traits.company).toBeUndefined()
  expect(customer('CN-104233')!.traits.customer_number).toBe('CN-104233')
  expect(admin.problems).toEqual([])
})

test('a number the browser cannot read ("1e") is refused beside its field, not left out; the message goes as soon as the field is put right', async () => {
  const before = kratos().identities.size
  const dialog = await openCreateCustomer()
  await dialog.getByRole('textbox', { name: 'Customer number (sign-in identifier)' }).fill('CN-555002')
  await dialog.getByRole('textbox', { name: 'Contact e-mail' }).fill('not an address')
  await dialog.getByRole('combobox', { name: 'Plan' }).selectOption('business')
  const limit = dialog.getByRole('spinbutton', { name: 'Credit limit (EUR)' })
  await limit.pressSequentially('1e')
  await dialog.getByRole('button', { name: 'Create identity' }).click()
  await dialog.getByText('Enter a number.').waitFor()
  expect(await limit.getAttribute('aria-invalid')).toBe('true')
  expect(kratos().identities.size).toBe(before)
  // The e-mail put right: its message goes at once, the number's stays until it is put right too.
  await dialog.getByRole('textbox', { name: 'Contact e-mail' }).fill('billing@two.example')
  await dialog.getByText('Enter an e-mail address like name@example.com.').waitFor({ state: 'detached' })
  expect(await dialog.getByText('Enter a number.').count()).toBe(1)
  await limit.fill('2500')
  await dialog.getByText('Enter a number.').waitFor({ state: 'detached' })
  expect(await limit.getAttribute('aria-invalid')).toBeNull()
  await dialog.getByRole('button', { name: 'Create identity' }).click()
  await admin.page.getByRole('heading', { level: 1, name: 'CN-555002' }).waitFor()
  expect(customer('CN-555002')!.traits.credit_limit).toBe(2500)
  expect(admin.problems).toEqual([])
})

test('with the keyboard, a traits Save under way keeps focus on Save (unavailable, not disabled), and a second Enter sends nothing more', async () => {
  const person = kratos().addIdentity({ email: 'keeps.focus@example.test', name: 'Keeps Focus' })
  await admin.page.goto(admin.url(`/dashboard/identities/${person.id}`))
  const traits = admin.page.getByRole('region', { name: 'Traits' })
  await traits.getByRole('textbox', { name: 'Name' }).fill('Kept Focus')
  const sent: string[] = []
  const count = (request: { method(): string; url(): string }) => {
    if (request.method() === 'PATCH' && request.url().includes(person.id)) sent.push(request.url())
  }
  admin.page.on('request', count)
  const slow = await holdRequests(admin.page, (url) => url.pathname.endsWith(`/identities/${person.id}`), 'PATCH')
  try {
    const save = traits.getByRole('button', { name: 'Save' })
    await save.focus()
    await admin.page.keyboard.press('Enter')
    await admin.page.waitForFunction(() => document.activeElement?.getAttribute('aria-disabled') === 'true')
    expect(await focused()).toBe('BUTTON Save')
    await admin.page.keyboard.press('Enter')
    slow.release()
    await admin.page.getByRole('status').getByText('Traits saved.').waitFor()
    expect(await focused()).toBe('BUTTON Save')
    expect(sent).toHaveLength(1)
    expect(kratos().identities.get(person.id)!.traits.name).toBe('Kept Focus')
  } finally {
    admin.page.off('request', count)
    await slow.stop()
  }
  expect(admin.problems).toEqual([])
})

test('an identity deleted elsewhere while its page is open: the next action says so for the whole page, once, with the way back focused', async () => {
  for (const act of ['Deactivate', 'Create recovery link'] as const) {
    const person = kratos().addIdentity({ email: `deleted.meanwhile.${act.length}@example.test`, name: 'Deleted Meanwhile' })
    await admin.page.goto(admin.url(`/dashboard/identities/${person.id}`))
    await admin.page.getByRole('heading', { level: 1, name: `deleted.meanwhile.${act.length}@example.test` }).waitFor()
    const gone = await admin.page.request.delete(admin.url(`/api/idp-admin/admin/identities/${person.id}`), { headers: { origin: new URL(admin.url('/')).origin } })
    expect(gone.status()).toBe(204)
    await admin.page.getByRole('button', { name: act }).click()
    const said = 'Kratos no longer has this identity: it was deleted after this page was opened.'
    await admin.page.getByRole('alert').getByText(said).waitFor()
    // One statement for the page: no section left to act on, and nothing else saying it its own way.
    expect(await admin.page.getByRole('alert').count()).toBe(1)
    expect(await admin.page.getByRole('region', { name: 'Traits' }).count()).toBe(0)
    expect(await focused()).toBe('A Go to Identities')
    expect((await liveRegionTexts(admin.page)).some((text) => text.includes(said))).toBe(true)
    // The browser reports Kratos's refusal and the read that found it gone.
    expect(admin.problems.splice(0).every((problem) => /status of (400|404)\b/.test(problem))).toBe(true)
    if (act === 'Deactivate') expect(await sweep(admin.page, 'identity-gone', () => admin.page.getByRole('alert').getByText(said).waitFor())).toEqual([])
  }
})

test('an identity with no session is not offered Revoke all sessions; after Revoke all the focus is on the section, not lost with the button', async () => {
  const person = kratos().addIdentity({ email: 'two.sessions@example.test', name: 'Two Sessions' })
  kratos().addSession(person.id, { ip_address: '81.2.69.160', user_agent: 'Laptop' })
  kratos().addSession(person.id, { ip_address: '81.2.69.161', user_agent: 'Phone' }, 1)
  await admin.page.goto(admin.url(`/dashboard/identities/${person.id}`))
  const sessions = admin.page.getByRole('region', { name: 'Sessions' })
  await sessions.getByText('2 active sessions.').waitFor()
  await sessions.getByRole('button', { name: 'Revoke all sessions' }).click()
  await admin.page.getByRole('dialog', { name: 'Revoke all sessions?' }).getByRole('button', { name: 'Revoke', exact: true }).click()
  await sessions.getByText('This identity has no active session.').waitFor()
  expect(await sessions.getByRole('button', { name: 'Revoke all sessions' }).count()).toBe(0)
  await admin.page.waitForFunction(() => document.activeElement?.id === 'sessions-h')
  // And so when the page opens on an identity without one; End dashboard sessions stays.
  await admin.page.reload()
  await sessions.getByText('This identity has no active session.').waitFor()
  expect(await sessions.getByRole('button', { name: 'Revoke all sessions' }).count()).toBe(0)
  expect(await sessions.getByRole('button', { name: 'End dashboard sessions' }).count()).toBe(1)
  expect(admin.problems).toEqual([])
})

test('Dismiss of a recovery link takes "…shown once, below" off the screen with it', async () => {
  const person = kratos().addIdentity({ email: 'dismissed.link@example.test', name: 'Dismissed Link' })
  await admin.page.goto(admin.url(`/dashboard/identities/${person.id}`))
  await admin.page.getByRole('button', { name: 'Create recovery link' }).click()
  const status = admin.page.getByRole('status').getByText('Recovery link created; it is shown once, below.')
  await status.waitFor()
  await admin.page.getByRole('button', { name: 'Dismiss the recovery link' }).click()
  await status.waitFor({ state: 'detached' })
  expect(await admin.page.evaluate(() => document.activeElement?.id)).toBe('recovery-h')
  expect(admin.problems).toEqual([])
})

test('on a phone, a refused Save brings the field into view with its label, not just the box under the top edge', async () => {
  const acme = customer('CN-220871')!
  await admin.page.setViewportSize(PHONE)
  try {
    await admin.page.goto(admin.url(`/dashboard/identities/${acme.id}`))
    const traits = admin.page.getByRole('region', { name: 'Traits' })
    const number = traits.getByRole('textbox', { name: 'Customer number (sign-in identifier)' })
    await number.fill('')
    const save = traits.getByRole('button', { name: 'Save' })
    await save.scrollIntoViewIfNeeded()
    // The field is out of sight above when Save is pressed.
    expect((await number.boundingBox())!.y).toBeLessThan(0)
    await save.click()
    await traits.getByText('Customer number is required.').waitFor()
    await admin.page.waitForFunction(() => document.activeElement?.getAttribute('aria-invalid') === 'true')
    const label = await traits.locator('label[for="traits-customer_number"]').boundingBox()
    expect(label!.y).toBeGreaterThanOrEqual(0)
    expect(customer('CN-220871')!.traits.customer_number).toBe('CN-220871')
  } finally {
    await admin.page.setViewportSize(DESKTOP)
  }
  expect(admin.problems).toEqual([])
})

test('taking the admin role from one’s own identity says first what it does; another identity’s role change says nothing of the kind', async () => {
  const own = [...kratos().identities.values()].find((identity) => identity.traits.email === 'admin@example.test')!
  const other = kratos().addIdentity({ email: 'other.admin@example.test', name: 'Other Admin', role: 'admin' })
  const said = 'This is your own identity: without the admin role, the dashboard\'s admin pages close to you from your next sign-in.'
  await admin.page.goto(admin.url(`/dashboard/identities/${own.id}`))
  const traits = admin.page.getByRole('region', { name: 'Traits' })
  const role = traits.getByRole('combobox', { name: 'Role' })
  await role.selectOption('viewer')
  await traits.getByText(said).waitFor()
  expect(await traits.getByRole('button', { name: 'Save' }).getAttribute('aria-describedby')).toBe('traits-h own-role-note')
  await role.selectOption('admin')
  await traits.getByText(said).waitFor({ state: 'detached' })
  await admin.page.goto(admin.url(`/dashboard/identities/${other.id}`))
  await role.selectOption('viewer')
  await Bun.sleep(100)
  expect(await traits.getByText(said).count()).toBe(0)
  expect(kratos().identities.get(own.id)!.traits.role).toBe('admin')
  expect(admin.problems).toEqual([])
})

test('deactivating one’s own identity, alone or among others, says first that it signs one out at once; Cancel keeps it active', async () => {
  const own = [...kratos().identities.values()].find((identity) => identity.traits.email === 'admin@example.test')!
  await admin.page.goto(admin.url(`/dashboard/identities/${own.id}`))
  await admin.page.getByRole('button', { name: 'Deactivate', exact: true }).click()
  const question = admin.page.getByRole('dialog', { name: 'Deactivate your own identity?' })
  await question.getByText('It signs you out of the dashboard at once, and you cannot sign in again until another administrator activates it.').waitFor()
  expect(await admin.page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel')
  await question.getByRole('button', { name: 'Cancel' }).click()
  expect(kratos().identities.get(own.id)!.state).toBe('active')
  // Another identity's Deactivate acts at once, as before.
  const other = kratos().addIdentity({ email: 'plain.deactivate@example.test', name: 'Plain' })
  await admin.page.goto(admin.url(`/dashboard/identities/${other.id}`))
  await admin.page.getByRole('button', { name: 'Deactivate', exact: true }).click()
  await admin.page.getByRole('status').getByText('Identity deactivated.').waitFor()
  expect(await admin.page.getByRole('dialog').count()).toBe(0)

  // Among others in a bulk change: the question says so.
  await admin.page.goto(admin.url('/dashboard/identities?search=admin%40example.test'))
  await admin.page.getByRole('checkbox', { name: 'Select admin@example.test' }).check()
  await admin.page.getByRole('button', { name: 'Deactivate', exact: true }).click()
  const bulk = admin.page.getByRole('dialog', { name: 'Deactivate 1 identity?' })
  await bulk.getByText('Your own identity is among them: deactivated, it signs you out of the dashboard at once.').waitFor()
  await bulk.getByRole('button', { name: 'Cancel' }).click()
  expect(kratos().identities.get(own.id)!.state).toBe('active')
  expect(admin.problems).toEqual([])
})

test('the traits and the metadata Save are told apart by their sections: each is described by its heading', async () => {
  await admin.page.goto(admin.url(`/dashboard/identities/${[...admin.harness.sandbox.kratos.identities.values()].find((identity) => identity.traits.email === 'user05@example.test')!.id}`))
  for (const section of ['Traits', 'Metadata']) {
    const save = admin.page.getByRole('region', { name: section }).getByRole('button', { name: 'Save', exact: true })
    await save.waitFor()
    expect(await save.evaluate((button) => (button as HTMLElement).getAttribute('aria-describedby')?.split(' ').map((id) => document.getElementById(id)?.textContent))).toEqual([section])
  }
})
