// An administrator deletes an identity's credentials as Kratos allows it (identity/handler.go
// deleteIdentityCredentials): an oidc link one at a time by its identifier, webauthn's
// second-factor keys only, the password and a link only while another way to sign in is left, and
// never a passkey or a code credential. The page shows what Kratos has afterwards, and the stand-in
// is checked for what it holds.
import { expect, test } from 'bun:test'
import { within } from '../support/eventually.ts'
import type { FixtureCredential, FixtureIdentity } from '../support/kratos.ts'
import { holdRequests, sweep, tabTo, useSignedInBrowser } from './harness.ts'

const admin = useSignedInBrowser('admin')

const credentialsRegion = () => admin.page.getByRole('region', { name: 'Credentials' })
const focusedSection = () => admin.page.evaluate(() => document.activeElement?.closest('section')?.getAttribute('aria-labelledby'))
/**
 * The section focus is in once the page has mended focus lost with a removed button (a mutation
 * observer does, in a task of its own: on a loaded machine, after the test's next look).
 */
const sectionFocused = async () => {
  await within(2000, async () => (await focusedSection()) !== undefined)
  return focusedSection()
}
const deletes = (identity: FixtureIdentity, type: string) =>
  admin.harness.sandbox.kratos.calls.filter((call) => call.method === 'DELETE' && call.path === `/admin/identities/${identity.id}/credentials/${type}`)

/** A new identity with these credentials (the password: its e-mail as identifier, with a hash). */
function identityWith(email: string, credentials: Record<string, Omit<FixtureCredential, 'type' | 'version'> | 'password'>): FixtureIdentity {
  const identity = admin.harness.sandbox.kratos.addIdentity({ email })
  identity.credentials = Object.fromEntries(
    Object.entries(credentials).map(([type, credential]) => [type, credential === 'password' ? { type, identifiers: identity.identifiers, version: 0 } : { type, version: 0, ...credential }]),
  )
  return identity
}
async function open(identity: FixtureIdentity) {
  await admin.page.goto(admin.url(`/dashboard/identities/${identity.id}`))
  await admin.page.getByRole('heading', { level: 1, name: identity.traits.email as string }).waitFor()
  await credentialsRegion().getByRole('heading', { name: 'Credentials' }).waitFor()
}
/** The browser reports each refused request in the console: those are expected, and only those. */
async function refusedRequestsReported(count: number, status: RegExp) {
  for (let waited = 0; admin.problems.length < count && waited < 2000; waited += 50) await Bun.sleep(50)
  const reported = admin.problems.splice(0)
  expect(reported.length).toBe(count)
  expect(reported.every((problem) => status.test(problem))).toBe(true)
}

test('an admin deletes one oidc link of two: Kratos is told which, and the other link stays, on the page and in Kratos', async () => {
  const person = identityWith('two.links@example.test', { password: 'password', oidc: { identifiers: ['google:1234', 'github:99'] } })
  await open(person)
  const credentials = credentialsRegion()
  await credentials.getByText('google:1234').waitFor()
  // One Delete per link, each named after it; none for the oidc credential as a whole.
  await credentials.getByRole('button', { name: 'Delete oidc identifier github:99' }).waitFor()
  expect(await credentials.getByRole('button', { name: 'Delete oidc credential' }).count()).toBe(0)

  await credentials.getByRole('button', { name: 'Delete oidc identifier google:1234' }).click()
  const dialog = admin.page.getByRole('dialog', { name: 'Delete the oidc identifier google:1234?' })
  await dialog.getByText('its other oidc identifiers stay').waitFor()
  await dialog.getByRole('button', { name: 'Delete' }).click()
  await admin.page.getByRole('status').getByText('The oidc identifier google:1234 was deleted.').waitFor()
  expect(deletes(person, 'oidc').map((call) => call.query.get('identifier'))).toEqual(['google:1234'])
  expect(person.credentials!.oidc!.identifiers).toEqual(['github:99'])
  await credentials.getByText('google:1234').waitFor({ state: 'detached' })
  await credentials.getByRole('button', { name: 'Delete oidc identifier github:99' }).waitFor()
  // The button that opened the dialog is gone: focus is on its section, not lost.
  expect(await sectionFocused()).toBe('credentials-h')
  expect(admin.problems).toEqual([])
})

test('with the keyboard alone, an admin deletes an oidc link by its own Delete; the question opens on Cancel, so Enter pressed twice deletes nothing', async () => {
  const person = identityWith('keyboard.links@example.test', { password: 'password', oidc: { identifiers: ['google:1234', 'github:99'] } })
  await open(person)
  await admin.page.getByRole('heading', { level: 1 }).focus()
  await tabTo(admin.page, 'Delete oidc identifier github:99')
  const dialog = admin.page.getByRole('dialog', { name: 'Delete the oidc identifier github:99?' })
  // Enter twice: the first asks, the second lands on Cancel.
  await admin.page.keyboard.press('Enter')
  await admin.page.keyboard.press('Enter')
  await dialog.waitFor({ state: 'hidden' })
  expect(await admin.page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Delete oidc identifier github:99')
  expect(deletes(person, 'oidc')).toEqual([])
  // Asked again: Delete is one Shift+Tab from Cancel.
  await admin.page.keyboard.press('Enter')
  await dialog.waitFor()
  expect(await admin.page.evaluate(() => document.activeElement?.closest('dialog') !== null && document.activeElement?.textContent)).toBe('Cancel')
  await admin.page.keyboard.press('Shift+Tab')
  expect(await admin.page.evaluate(() => document.activeElement?.closest('dialog') !== null && document.activeElement?.textContent)).toBe('Delete')
  await admin.page.keyboard.press('Enter')
  await admin.page.getByRole('status').getByText('The oidc identifier github:99 was deleted.').waitFor()
  expect(person.credentials!.oidc!.identifiers).toEqual(['google:1234'])
  expect(deletes(person, 'oidc').map((call) => call.query.get('identifier'))).toEqual(['github:99'])
  expect(await sectionFocused()).toBe('credentials-h')
  // Tab goes on from there to the Delete of the link that is left.
  await tabTo(admin.page, 'Delete oidc identifier google:1234')
  expect(admin.problems).toEqual([])
})

test('the last way to sign in is not deleted: Kratos refuses, and the page says why and keeps the list as it was', async () => {
  const person = identityWith('last.link@example.test', { oidc: { identifiers: ['google:4711'] }, totp: { identifiers: [] } })
  await open(person)
  const credentials = credentialsRegion()
  await credentials.getByRole('button', { name: 'Delete oidc identifier google:4711' }).click()
  await admin.page.getByRole('dialog', { name: 'Delete the oidc identifier google:4711?' }).getByRole('button', { name: 'Delete' }).click()
  await credentials
    .getByRole('alert')
    .getByText('Kratos refused to delete the oidc identifier google:4711 (HTTP 400): it keeps an identity’s last way to sign in.')
    .waitFor()
  expect(person.credentials!.oidc!.identifiers).toEqual(['google:4711'])
  await credentials.getByRole('button', { name: 'Delete oidc identifier google:4711' }).waitFor()
  await refusedRequestsReported(1, /status of 400\b/)

  // An identity with only its password: the same rule.
  const passwordOnly = admin.harness.sandbox.kratos.addIdentity({ email: 'password.only@example.test' })
  await open(passwordOnly)
  await credentials.getByRole('button', { name: 'Delete password' }).click()
  await admin.page.getByRole('dialog', { name: 'Delete the password?' }).getByRole('button', { name: 'Delete' }).click()
  await credentials
    .getByRole('alert')
    .getByText('Kratos refused to delete the password (HTTP 400): it keeps an identity’s last way to sign in, and a password it has already emptied, or any password before Kratos v25, cannot be deleted.')
    .waitFor()
  expect(deletes(passwordOnly, 'password').length).toBe(1)
  await refusedRequestsReported(1, /status of 400\b/)
})

test('the password is deleted while a social sign-in is left; Kratos keeps the credential without a password, and the page says so', async () => {
  const person = identityWith('password.and.link@example.test', { password: 'password', oidc: { identifiers: ['google:555'] } })
  await open(person)
  const credentials = credentialsRegion()
  await credentials.getByRole('button', { name: 'Delete password' }).click()
  await admin.page.getByRole('dialog', { name: 'Delete the password?' }).getByRole('button', { name: 'Delete' }).click()
  await admin.page.getByRole('status').getByText('The password was deleted. Kratos keeps the password credential, with its identifiers and no password.').waitFor()
  expect(person.credentials!.password!.config).toEqual({ hashed: false })
  expect(await credentials.textContent()).toContain('password: password.and.link@example.test')
  // Deleted once: not offered again (Kratos's emptied credential looks like any other).
  expect(await credentials.getByRole('button', { name: 'Delete password' }).count()).toBe(0)
  expect(admin.problems).toEqual([])
})

test('passkey and code credentials offer no Delete, and the page says why; the section passes the sweep', async () => {
  const person = identityWith('passkey.person@example.test', {
    password: 'password',
    oidc: { identifiers: ['google:1234', `github:${'9'.repeat(60)}`] },
    passkey: { identifiers: ['passkey.person@example.test'] },
    code: { identifiers: ['passkey.person@example.test'] },
  })
  await open(person)
  const credentials = credentialsRegion()
  await credentials.getByText('Kratos’s admin API cannot delete passkey credentials.').waitFor()
  await credentials.getByText('Kratos’s admin API cannot delete code credentials.').waitFor()
  expect(await credentials.getByRole('button', { name: /passkey|code/ }).count()).toBe(0)
  // The password's Delete is offered (whether it is the last way to sign in is Kratos's to say).
  await credentials.getByRole('button', { name: 'Delete password' }).waitFor()
  expect(await sweep(admin.page, 'identity-credentials', () => credentials.getByText('Kratos’s admin API cannot delete passkey credentials.').waitFor())).toEqual([])
  expect(admin.problems).toEqual([])
})

test('deleting webauthn removes only its second-factor keys: the page shows the credential Kratos keeps, and says so', async () => {
  const person = identityWith('security.keys@example.test', {
    password: 'password',
    webauthn: { identifiers: ['security.keys@example.test'], config: { keys: [{ id: 'laptop', passwordless: false }, { id: 'phone', passwordless: true }] } },
  })
  await open(person)
  const credentials = credentialsRegion()
  await credentials.getByRole('button', { name: 'Delete webauthn second-factor keys' }).click()
  const dialog = admin.page.getByRole('dialog', { name: 'Delete the webauthn second-factor keys?' })
  await dialog.getByText('Passwordless keys stay: Kratos does not delete them here.', { exact: false }).waitFor()
  const reads = admin.harness.sandbox.kratos.calls.length
  await dialog.getByRole('button', { name: 'Delete' }).click()
  await admin.page
    .getByRole('status')
    .getByText('Kratos deleted the webauthn second-factor keys, if there were any. The webauthn credential stays with its passwordless keys, which Kratos does not delete here.')
    .waitFor()
  expect(person.credentials!.webauthn!.config!.keys).toEqual([{ id: 'phone', passwordless: true }])
  // The list is Kratos's, read again after the delete.
  expect(admin.harness.sandbox.kratos.calls.slice(reads).map((call) => `${call.method} ${call.path}`)).toEqual([
    `DELETE /admin/identities/${person.id}/credentials/webauthn`,
    `GET /admin/identities/${person.id}`,
  ])
  expect(await credentials.textContent()).toContain('webauthn')
  // Focus is back on the Delete that opened the dialog, which is still there.
  expect(await admin.page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Delete webauthn second-factor keys')

  // Keys that are all second factors: the credential goes with them.
  const secondFactorOnly = identityWith('second.factor.keys@example.test', { password: 'password', webauthn: { identifiers: [] } })
  await open(secondFactorOnly)
  await credentials.getByRole('button', { name: 'Delete webauthn second-factor keys' }).click()
  await admin.page.getByRole('dialog', { name: 'Delete the webauthn second-factor keys?' }).getByRole('button', { name: 'Delete' }).click()
  await admin.page.getByRole('status').getByText('The webauthn credential was deleted: it had no passwordless keys.').waitFor()
  expect(Object.keys(secondFactorOnly.credentials!)).toEqual(['password'])
  await credentials.getByText('webauthn').waitFor({ state: 'detached' })
  expect(admin.problems).toEqual([])
})

test('when the identity cannot be read again after a delete, the page says the delete was made and shows what it knows went', async () => {
  const person = identityWith('read.again.fails@example.test', { password: 'password', totp: { identifiers: [] } })
  await open(person)
  const credentials = credentialsRegion()
  const identityRead = (url: URL) => url.pathname === `/api/idp-admin/admin/identities/${person.id}`
  await admin.page.route(identityRead, (route) => (route.request().method() === 'GET' ? route.abort('connectionrefused') : route.continue()))
  try {
    await credentials.getByRole('button', { name: 'Delete totp credential' }).click()
    await admin.page.getByRole('dialog', { name: 'Delete the totp credential?' }).getByRole('button', { name: 'Delete' }).click()
    await credentials.getByRole('alert').getByText(/^The totp credential was deleted\. The credentials could not be read again to show what Kratos has now\. /).waitFor()
  } finally {
    await admin.page.unroute(identityRead)
  }
  expect(Object.keys(person.credentials!)).toEqual(['password'])
  await credentials.getByRole('button', { name: 'Delete totp credential' }).waitFor({ state: 'detached' })
  await credentials.getByRole('button', { name: 'Delete password' }).waitFor()
  await refusedRequestsReported(1, /ERR_CONNECTION_REFUSED/)
})

test('a Deactivate answered after a credential was deleted meanwhile keeps the delete on the page: each answer changes the identity as it is by then', async () => {
  const person = identityWith('overlapping.changes@example.test', { password: 'password', totp: { identifiers: [] } })
  await open(person)
  const credentials = credentialsRegion()
  // Kratos answers the Deactivate only once the test lets it go.
  const deactivate = await holdRequests(admin.page, (url) => url.pathname === `/api/idp-admin/admin/identities/${person.id}`, 'PATCH')
  try {
    await admin.page.getByRole('button', { name: 'Deactivate', exact: true }).click()
    await credentials.getByRole('button', { name: 'Delete totp credential' }).click()
    await admin.page.getByRole('dialog', { name: 'Delete the totp credential?' }).getByRole('button', { name: 'Delete' }).click()
    await admin.page.getByRole('status').getByText('The totp credential was deleted.').waitFor()
    deactivate.release()
    await admin.page.getByRole('status').getByText('Identity deactivated.').waitFor()
  } finally {
    await deactivate.stop()
  }
  expect(person.state).toBe('inactive')
  expect(person.credentials!.totp).toBeUndefined()
  expect(await credentials.getByText('totp', { exact: true }).count()).toBe(0)
  expect(await credentials.getByRole('button', { name: 'Delete totp credential' }).count()).toBe(0)
  expect(admin.problems).toEqual([])
})

test('an answer about one identity that arrives after the page moved to another changes nothing on it', async () => {
  const first = identityWith('answer.arrives.late@example.test', { password: 'password', totp: { identifiers: [] } })
  const other = identityWith('shown.meanwhile@example.test', { password: 'password' })
  const page = admin.page
  // In the app: the other identity, the list, a search, then the first one.
  await open(other)
  await page.getByRole('link', { name: 'Identities', exact: true }).first().click()
  await page.getByRole('searchbox', { name: 'Search identities' }).fill('answer.arrives.late@example.test')
  await page.getByRole('button', { name: 'Search', exact: true }).click()
  await page.getByRole('link', { name: 'answer.arrives.late@example.test' }).click()
  await page.getByRole('heading', { level: 1, name: 'answer.arrives.late@example.test' }).waitFor()
  // Its Deactivate is answered only after the page has gone back to the other identity.
  const stateChange = (url: URL) => url.pathname === `/api/idp-admin/admin/identities/${first.id}`
  const deactivate = await holdRequests(page, stateChange, 'PATCH')
  const answered = page.waitForResponse((response) => response.request().method() === 'PATCH' && stateChange(new URL(response.url())))
  try {
    await page.getByRole('button', { name: 'Deactivate', exact: true }).click()
    await page.evaluate(() => history.go(-3))
    await page.getByRole('heading', { level: 1, name: 'shown.meanwhile@example.test' }).waitFor()
    await credentialsRegion().getByText('password: shown.meanwhile@example.test').waitFor()
    deactivate.release()
    await answered
    await Bun.sleep(300)
  } finally {
    await deactivate.stop()
  }
  expect(first.state).toBe('inactive')
  // The page still shows the other identity, all of it.
  await page.getByRole('heading', { level: 1, name: 'shown.meanwhile@example.test' }).waitFor()
  expect(await page.getByRole('region', { name: 'Summary' }).getByText(other.id).count()).toBe(1)
  expect(await page.getByRole('region', { name: 'Summary' }).getByText('Active', { exact: true }).count()).toBe(1)
  expect(await credentialsRegion().getByText('totp').count()).toBe(0)
  expect(admin.problems).toEqual([])
})

test('a changed e-mail saved in the traits is the password’s identifier on the page at once, as in Kratos', async () => {
  const person = identityWith('before.change@example.test', { password: 'password' })
  await open(person)
  const credentials = credentialsRegion()
  await credentials.getByText('password: before.change@example.test').waitFor()
  const traits = admin.page.getByRole('region', { name: 'Traits' })
  await traits.getByRole('textbox', { name: /e-?mail/i }).fill('after.change@example.test')
  await traits.getByRole('button', { name: 'Save' }).click()
  await admin.page.getByRole('status').getByText('Traits saved.').waitFor()
  await credentials.getByText('password: after.change@example.test').waitFor()
  expect(await credentials.textContent()).not.toContain('before.change@example.test')
  expect(admin.harness.sandbox.kratos.identities.get(person.id)!.credentials!.password!.identifiers).toEqual(['after.change@example.test'])
  admin.harness.sandbox.kratos.identities.delete(person.id)
  expect(admin.problems).toEqual([])
})
