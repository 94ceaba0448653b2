// An administrator changes identities: creates one from the schema form, edits traits and
// metadata, deactivates and reactivates, creates a recovery link, revokes a session, and
// deactivates three at once. Each change is checked in the identity store itself.
import { expect, test } from 'bun:test'
import { join } from 'node:path'
import { SANDBOX_USERS } from '../../dev/sandbox.ts'
import { within } from '../support/eventually.ts'
import { answerQuestions, answerTooLate, backThroughSignIn, browserAsksBeforeLeaving, createIdentityThroughForm, fillOtherRequired, DESKTOP, holdRequests, liveRegionTexts, PHONE, SCREENSHOT_DIR, signIn, sidewaysScroll, pageOnFakeClock, signedInPage, sweep, tabTo, useSignedInBrowser, endSession } from './harness.ts'

const admin = useSignedInBrowser('admin', '/dashboard/identities')
/** Who the tests sign in as: never deactivated by a bulk change here (a deactivated identity can no longer sign in). */
const SIGNS_IN = new Set(['admin@example.test', 'viewer@example.test'])

/** The stored identity the page names so: by its e-mail, or a customer by its number. */
const stored = (name: string) => [...admin.harness.sandbox.kratos.identities.values()].find((identity) => identity.traits.email === name || identity.traits.customer_number === name)
async function openIdentity(email: string) {
  await admin.page.goto(admin.url(`/dashboard/identities?search=${encodeURIComponent(email)}`))
  await admin.page.getByRole('link', { name: email }).click()
  await admin.page.getByRole('heading', { level: 1, name: email }).waitFor()
}

/** Whatever else the schema requires gets a plausible value. */
test('an admin creates an identity from the schema form; required fields say so first', async () => {
  await admin.page.goto(admin.url('/dashboard/identities'))
  await admin.page.getByRole('button', { name: 'Create identity' }).click()
  const dialog = admin.page.getByRole('dialog', { name: 'Create identity' })
  const email = dialog.getByRole('textbox', { name: /e-?mail/i }).first()
  await email.waitFor()
  // The form came from Kratos's public API, where a self-hosted Kratos serves the schemas.
  expect(admin.harness.sandbox.kratos.publicCalls).toContain('/schemas')
  await dialog.getByRole('button', { name: 'Create identity' }).click()
  await dialog.getByText(/is required/).first().waitFor()
  await email.fill('not-an-address')
  await dialog.getByRole('button', { name: 'Create identity' }).click()
  await dialog.getByText('Enter an e-mail address like name@example.com.').waitFor()
  // An identifier another identity has: the store's 409 in words, and nothing created.
  await email.fill('user01@example.test')
  await fillOtherRequired(dialog)
  const before = admin.harness.sandbox.kratos.identities.size
  await dialog.getByRole('button', { name: 'Create identity' }).click()
  await dialog.getByText('Another identity already uses this e-mail: it is a sign-in identifier, which no two identities can share.').waitFor()
  expect(admin.harness.sandbox.kratos.identities.size).toBe(before)
  // The browser reports the refused request in the console; that one is expected, and only that one.
  for (let waited = 0; admin.problems.length === 0 && waited < 2000; waited += 50) await Bun.sleep(50)
  expect(admin.problems.splice(0)).toEqual([expect.stringContaining('409 (Conflict)')])
  // The next attempt is judged afresh: what the store said about the last one goes.
  await email.fill('not-an-address')
  await dialog.getByRole('button', { name: 'Create identity' }).click()
  await dialog.getByText('Enter an e-mail address like name@example.com.').waitFor()
  expect(await dialog.getByText('Another identity already uses this e-mail: it is a sign-in identifier, which no two identities can share.').count()).toBe(0)
  await email.fill('new.person@example.test')
  await fillOtherRequired(dialog)
  await dialog.getByLabel('Initial password (optional)').fill('a long enough password 1')
  await dialog.getByRole('button', { name: 'Create identity' }).click()
  await admin.page.getByRole('heading', { level: 1, name: 'new.person@example.test' }).waitFor()
  const created = stored('new.person@example.test')!
  expect(created.state).toBe('active')
  expect(admin.harness.sandbox.kratos.passwords.get(created.id)).toBe('a long enough password 1')
}, 60_000)

test('a Create identity under way keeps focus on its button, in the dialog: unavailable and the form busy until Kratos answers, and Enter meanwhile creates nothing more', async () => {
  const { kratos } = admin.harness.sandbox
  const page = admin.page
  await page.goto(admin.url('/dashboard/identities'))
  await page.getByRole('button', { name: 'Create identity' }).click()
  const dialog = page.getByRole('dialog', { name: 'Create identity' })
  const email = dialog.getByRole('textbox', { name: /e-?mail/i }).first()
  await email.fill('held.create@example.test')
  await fillOtherRequired(dialog)
  const creates = () => kratos.calls.filter((call) => call.method === 'POST' && call.path === '/admin/identities').length
  const before = creates()
  const held = await holdRequests(page, (url) => url.pathname === '/api/idp-admin/admin/identities', 'POST')
  try {
    await dialog.getByRole('button', { name: 'Create identity' }).focus()
    const asked = page.waitForRequest((request) => request.method() === 'POST')
    await page.keyboard.press('Enter')
    await asked
    expect(await page.evaluate(() => (document.activeElement?.closest('dialog') ? document.activeElement.textContent : 'outside the dialog'))).toBe('Create identity')
    expect(await dialog.getByRole('button', { name: 'Create identity' }).getAttribute('aria-disabled')).toBe('true')
    expect(await dialog.locator('form').getAttribute('aria-busy')).toBe('true')
    await page.keyboard.press('Enter')
    await email.press('Enter')
    held.release()
    await page.getByRole('heading', { level: 1, name: 'held.create@example.test' }).waitFor()
  } finally {
    await held.stop()
  }
  expect(creates() - before).toBe(1)
  kratos.identities.delete(stored('held.create@example.test')!.id)
  expect(admin.problems).toEqual([])
})

test('an admin edits a trait and the metadata', async () => {
  await openIdentity('user03@example.test')
  const traits = admin.page.getByRole('region', { name: 'Traits' })
  // The form comes from the identity schema: the e-mail and the name are its fields.
  await traits.getByRole('textbox', { name: /e-?mail/i }).waitFor()
  await traits.getByRole('textbox', { name: 'Name', exact: true }).fill('Renamed Person')
  await traits.getByRole('button', { name: 'Save' }).click()
  await admin.page.getByRole('status').getByText('Traits saved.').waitFor()
  expect(stored('user03@example.test')?.traits).toEqual({ email: 'user03@example.test', name: 'Renamed Person' })
  // An optional trait emptied in the form is removed, not kept by the merge with the old traits.
  await traits.getByRole('textbox', { name: 'Name', exact: true }).fill('')
  await traits.getByRole('button', { name: 'Save' }).click()
  for (let waited = 0; stored('user03@example.test')?.traits.name !== undefined && waited < 5000; waited += 50) await Bun.sleep(50)
  expect(stored('user03@example.test')?.traits).toEqual({ email: 'user03@example.test' })
  await admin.page.reload()
  await traits.getByRole('textbox', { name: 'Name', exact: true }).waitFor()
  expect(await traits.getByRole('textbox', { name: 'Name', exact: true }).inputValue()).toBe('')

  const metadata = admin.page.getByRole('region', { name: 'Metadata' })
  await metadata.getByLabel('Public metadata').fill('{ not json')
  await metadata.getByRole('button', { name: 'Save' }).click()
  await metadata.getByText(/Enter a JSON object/).waitFor()
  await metadata.getByLabel('Public metadata').fill('{"plan": "team"}')
  // Pressed twice while Kratos answers slowly: one write.
  const id = stored('user03@example.test')!.id
  const writes = () => admin.harness.sandbox.kratos.calls.filter((call) => call.method !== 'GET' && call.path === `/admin/identities/${id}`).length
  const writesBefore = writes()
  admin.harness.sandbox.kratos.delayMs = 400
  try {
    await metadata.getByRole('button', { name: 'Save' }).focus()
    await admin.page.keyboard.press('Enter')
    await admin.page.keyboard.press('Enter')
    await admin.page.getByRole('status').getByText('Metadata saved.').waitFor()
  } finally {
    admin.harness.sandbox.kratos.delayMs = 0
  }
  expect(writes() - writesBefore).toBe(1)
  expect(stored('user03@example.test')?.metadata_public).toEqual({ plan: 'team' })
})

test('metadata of more than 100,000 characters is shown closed, with its size and Edit, instead of in a text box the browser lays out for seconds at each key; small metadata beside it is a text box as before', async () => {
  admin.problems.length = 0
  const { kratos } = admin.harness.sandbox
  const large = { items: Array.from({ length: 3000 }, (_, k) => ({ k, note: 'lorem ipsum dolor sit amet' })) }
  const text = JSON.stringify(large, null, 2)
  expect(text.length).toBeGreaterThan(100_000)
  const person = kratos.addIdentity({ email: 'large.metadata@example.test' })
  person.metadata_public = large
  person.metadata_admin = { note: 'vip' }
  await admin.page.goto(admin.url(`/dashboard/identities/${person.id}`))
  await admin.page.getByRole('heading', { level: 1, name: 'large.metadata@example.test' }).waitFor()
  const metadata = admin.page.getByRole('region', { name: 'Metadata' })
  const edit = metadata.getByRole('button', { name: 'Edit public metadata' })
  await edit.waitFor()
  expect(await metadata.getByRole('textbox', { name: 'Public metadata' }).count()).toBe(0)
  await metadata.getByText(`Public metadata: ${Math.round(text.length / 1000)} KB of JSON, not shown.`).waitFor()
  const adminBox = metadata.getByRole('textbox', { name: 'Admin metadata' })
  expect(await adminBox.inputValue()).toBe('{\n  "note": "vip"\n}')
  expect(await sweep(admin.page, 'identity-large-metadata', () => edit.waitFor())).toEqual([])

  // The small box is saved alone; the large one stays as stored, and closed.
  await adminBox.fill('{"note": "vvip"}')
  await metadata.getByRole('button', { name: 'Save' }).click()
  await admin.page.getByRole('status').getByText('Metadata saved.').waitFor()
  expect([kratos.identities.get(person.id)!.metadata_admin, kratos.identities.get(person.id)!.metadata_public]).toEqual([{ note: 'vvip' }, large])
  expect(await metadata.getByRole('textbox', { name: 'Public metadata' }).count()).toBe(0)

  // Edit opens it, with focus in it, holding the stored JSON.
  await edit.click()
  const publicBox = metadata.getByRole('textbox', { name: 'Public metadata' })
  await publicBox.waitFor()
  expect(await admin.page.evaluate(() => document.activeElement?.id)).toBe('metadata-public')
  expect(await publicBox.inputValue()).toBe(text)
  await publicBox.fill('{"plan": "team"}')
  await metadata.getByRole('button', { name: 'Save' }).click()
  // The status region may still hold the first save's words: wait for the store itself.
  expect(await within(10_000, () => JSON.stringify(kratos.identities.get(person.id)!.metadata_public) === '{"plan":"team"}')).not.toBeNull()
  await admin.page.getByRole('status').getByText('Metadata saved.').waitFor()
  expect(admin.problems).toEqual([])
})

test('a refused Save takes focus to the field that says why as it says so, not a frame later when Save has it again', async () => {
  admin.harness.sandbox.kratos.addIdentity({ email: 'refused.save@example.test', name: 'Refused Save' })
  const other = await pageOnFakeClock(admin.harness, 'admin', '/dashboard/identities?search=refused.save%40example.test', 'refused.save@example.test')
  try {
    const { page: tab } = other
    const metadata = tab.getByRole('region', { name: 'Metadata' })
    const field = metadata.getByLabel('Public metadata')
    const save = metadata.getByRole('button', { name: 'Save' })
    await field.waitFor()
    // A slow device: the page's next frame has not come (the clock is paused) when the person acts again.
    await tab.clock.pauseAt(Date.now() + 60_000)
    await field.fill('{ not json')
    await save.focus()
    await tab.keyboard.press('Enter')
    await metadata.getByText(/Enter a JSON object/).waitFor()
    expect(await tab.evaluate(() => document.activeElement?.id)).toBe('metadata-public')
    await field.fill('{"plan": "team"}')
    await save.focus()
    await tab.clock.runFor(1_000)
    expect(await tab.evaluate(() => document.activeElement?.textContent)).toBe('Save')
    await tab.keyboard.press('Enter')
    await tab.getByRole('status').getByText('Metadata saved.').waitFor()
    expect(stored('refused.save@example.test')?.metadata_public).toEqual({ plan: 'team' })
    expect(other.problems).toEqual([])
  } finally {
    await other.context.close()
  }
})

test('saving traits or metadata keeps what changed elsewhere meanwhile: a deactivation is not undone', async () => {
  await openIdentity('user12@example.test')
  const id = stored('user12@example.test')!.id
  const traits = admin.page.getByRole('region', { name: 'Traits' })
  await traits.getByRole('textbox', { name: 'Name', exact: true }).fill('Edited Here')
  await admin.page.getByRole('region', { name: 'Metadata' }).getByLabel('Admin metadata').fill('{"note": "edited here"}')

  // Meanwhile another operator, through the same service, deactivates the identity and sets its public metadata.
  const elsewhere = await admin.page.evaluate(async (path) => {
    const response = await fetch(path, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        { op: 'replace', path: '/state', value: 'inactive' },
        { op: 'add', path: '/metadata_public', value: { plan: 'frozen' } },
      ]),
    })
    return response.status
  }, `/api/idp-admin/admin/identities/${id}`)
  expect(elsewhere).toBe(200)

  await traits.getByRole('button', { name: 'Save' }).click()
  await admin.page.getByRole('status').getByText('Traits saved.').waitFor()
  await admin.page.getByRole('region', { name: 'Metadata' }).getByRole('button', { name: 'Save' }).click()
  await admin.page.getByRole('status').getByText('Metadata saved.').waitFor()
  const after = stored('user12@example.test')!
  expect(after.traits.name).toBe('Edited Here')
  expect(after.metadata_admin).toEqual({ note: 'edited here' })
  expect(after.state).toBe('inactive')
  expect(after.metadata_public).toEqual({ plan: 'frozen' })
  // The page now shows what is stored: the state and the other metadata field too.
  expect(JSON.parse(await admin.page.getByRole('region', { name: 'Metadata' }).getByLabel('Public metadata').inputValue())).toEqual({ plan: 'frozen' })
  await admin.page.getByText('Inactive', { exact: true }).first().waitFor()

  // Saved again without a change: nothing is sent.
  const writes = () => admin.harness.sandbox.kratos.calls.filter((call) => call.method !== 'GET' && call.path === `/admin/identities/${id}`).length
  const before = writes()
  await traits.getByRole('button', { name: 'Save' }).click()
  await admin.page.getByRole('status').getByText('Nothing was changed.').waitFor()
  expect(writes()).toBe(before)
  expect(admin.problems).toEqual([])
})

test('an admin deactivates and reactivates an identity', async () => {
  await openIdentity('user04@example.test')
  await admin.page.getByRole('button', { name: 'Deactivate' }).click()
  await admin.page.getByRole('status').getByText('Identity deactivated.').waitFor()
  expect(stored('user04@example.test')?.state).toBe('inactive')
  await admin.page.getByRole('button', { name: 'Activate' }).click()
  await admin.page.getByRole('status').getByText('Identity activated.').waitFor()
  expect(stored('user04@example.test')?.state).toBe('active')
})

test('with the keyboard, a Deactivate under way keeps focus on its button: unavailable and the state busy until Kratos answers, Enter meanwhile sends nothing more, and focus stays as it turns into Activate', async () => {
  const { kratos } = admin.harness.sandbox
  const person = kratos.addIdentity({ email: 'held.state@example.test', name: 'Held State' })
  await openIdentity('held.state@example.test')
  const page = admin.page
  const button = page.getByRole('button', { name: 'Deactivate', exact: true })
  const writes = () => kratos.calls.filter((call) => call.method === 'PATCH' && call.path === `/admin/identities/${person.id}`).length
  const held = await holdRequests(page, (url) => url.pathname === `/api/idp-admin/admin/identities/${person.id}`, 'PATCH')
  try {
    await button.focus()
    const asked = page.waitForRequest((request) => request.method() === 'PATCH')
    await page.keyboard.press('Enter')
    await asked
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Deactivate')
    expect(await button.getAttribute('aria-disabled')).toBe('true')
    expect(await page.locator('dd[aria-busy="true"]').getByRole('button', { name: 'Deactivate' }).count()).toBe(1)
    await page.keyboard.press('Enter')
    held.release()
    await page.getByRole('status').getByText('Identity deactivated.').waitFor()
  } finally {
    await held.stop()
  }
  expect(writes()).toBe(1)
  expect(person.state).toBe('inactive')
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Activate')
  expect(await page.locator('dd[aria-busy="true"]').count()).toBe(0)
  kratos.identities.delete(person.id)
  expect(admin.problems).toEqual([])
})

test('an admin creates a recovery link and a recovery code: each shown once as Kratos issued it, with its expiry, and Copy copies exactly it; the status region says so in words, never the link or code', async () => {
  const { page, harness } = admin
  const { kratos } = harness.sandbox
  await admin.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: harness.sandbox.url })
  await openIdentity('user06@example.test')
  const person = stored('user06@example.test')!
  const recovery = page.getByRole('region', { name: 'Account recovery' })
  /** The expiry as the page shows a time: in the browser's zone and locale. */
  const shownTime = (iso: string) => page.evaluate((value) => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'long' }).format(new Date(value)), iso)

  for (const kind of ['link', 'code'] as const) {
    const before = kratos.recoveries.length
    await recovery.getByRole('button', { name: `Create recovery ${kind}` }).click()
    await page.getByRole('status').getByText(`Recovery ${kind} created; it is shown once, below.`).waitFor()
    const issued = kratos.recoveries.slice(before)
    expect(issued.map(({ identityId, kind }) => ({ identityId, kind }))).toEqual([{ identityId: person.id, kind }])
    const { value, link, expires_at } = issued[0]!
    const shown = recovery.getByRole('textbox', { name: `Recovery ${kind}`, exact: true })
    expect(await shown.inputValue()).toBe(value)
    // A code is entered at the flow's address, shown with it.
    if (kind === 'code') await recovery.getByText(`Enter it at ${link}`).waitFor()
    // Its expiry, in words and as the exact time.
    await recovery.getByText(`(shown once, expires ${await shownTime(expires_at)})`).waitFor()
    expect(await recovery.locator('time').getAttribute('datetime')).toBe(new Date(expires_at).toISOString())
    // Read out by no live region: the one status region says what was made, in words.
    expect(await page.getByRole('status').count()).toBe(1)
    expect((await liveRegionTexts(page)).filter((text) => text.includes(value))).toEqual([])
    // Copy puts exactly it on the clipboard, and says so.
    await page.evaluate(() => navigator.clipboard.writeText(''))
    await recovery.getByRole('button', { name: 'Copy' }).click()
    await page.getByRole('status').getByText('Copied.').waitFor()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(value)
    await recovery.getByRole('button', { name: `Dismiss the recovery ${kind}` }).click()
    await shown.waitFor({ state: 'detached' })
  }
  expect(admin.problems).toEqual([])
})

test('a recovery link left on screen past its expiry says it expired, and nothing holds it any more: Create recovery code replaces it without asking, leaving the page does not warn', async () => {
  const other = await pageOnFakeClock(admin.harness, 'admin', '/dashboard/identities?search=user09%40example.test', 'user09@example.test')
  const { page } = other
  try {
    const recovery = page.getByRole('region', { name: 'Account recovery' })
    await recovery.getByRole('button', { name: 'Create recovery link' }).click()
    const expiry = recovery.locator('#recovery-expiry')
    await expiry.getByText(/^\(shown once, expires /).waitFor()
    const made = admin.harness.sandbox.kratos.recoveries.at(-1)!
    expect(await browserAsksBeforeLeaving(page)).toBe(true)
    // An hour later (the stand-in's lifespan, as Kratos's default) the page is still open.
    await page.clock.fastForward(Date.parse(made.expires_at) - (await page.evaluate(() => Date.now())) + 1000)
    await expiry.getByText(/^\(expired /).waitFor()
    expect(await expiry.locator('time').getAttribute('datetime')).toBe(new Date(made.expires_at).toISOString())
    expect(await browserAsksBeforeLeaving(page)).toBe(false)
    await recovery.getByRole('button', { name: 'Create recovery code' }).click()
    await recovery.getByRole('textbox', { name: 'Recovery code', exact: true }).waitFor()
    expect(await page.getByRole('dialog').count()).toBe(0)
    expect(other.problems).toEqual([])
  } finally {
    await other.context.close()
  }
})

test('a recovery link that expires while focus is on its Copy is said to have expired in the status region; Copy goes, and focus moves to Dismiss', async () => {
  const other = await pageOnFakeClock(admin.harness, 'admin', '/dashboard/identities?search=user08%40example.test', 'user08@example.test')
  const { page } = other
  try {
    const recovery = page.getByRole('region', { name: 'Account recovery' })
    await recovery.getByRole('button', { name: 'Create recovery link' }).click()
    await recovery.locator('#recovery-expiry').getByText(/^\(shown once, expires /).waitFor()
    const copy = recovery.getByRole('button', { name: 'Copy' })
    await copy.focus()
    const made = admin.harness.sandbox.kratos.recoveries.at(-1)!
    await page.clock.fastForward(Date.parse(made.expires_at) - (await page.evaluate(() => Date.now())) + 1000)
    await page.getByRole('status').getByText('The recovery link expired: Kratos no longer accepts it. Create a new one.').waitFor()
    expect(await copy.count()).toBe(0)
    expect(await recovery.getByRole('button', { name: 'Dismiss the recovery link' }).evaluate((button) => button === document.activeElement)).toBe(true)
    expect(other.problems).toEqual([])
  } finally {
    await other.context.close()
  }
})

test('on a phone a new recovery link comes with focus on its Copy, clear of the status box that says it was made; another one asks before it replaces the one shown', async () => {
  const { page } = admin
  const { kratos } = admin.harness.sandbox
  await page.setViewportSize(PHONE)
  try {
    await openIdentity('user12@example.test')
    const recovery = page.getByRole('region', { name: 'Account recovery' })
    await recovery.getByRole('button', { name: 'Create recovery link' }).click()
    await page.getByRole('status').getByText('Recovery link created; it is shown once, below.').waitFor()
    const link = recovery.getByRole('textbox', { name: 'Recovery link', exact: true })
    const value = await link.inputValue()
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Copy')
    // Nothing of it under the status box: the value, Copy and Dismiss are all above its top (once
    // the page has scrolled the focused Copy clear, a frame after focus moved).
    await page.waitForFunction(() => {
      const copy = document.activeElement!.getBoundingClientRect()
      const status = document.querySelector('[role="status"]')!.getBoundingClientRect()
      return copy.bottom <= status.top
    })
    const box = (await page.getByRole('status').boundingBox())!
    for (const part of [link, recovery.getByRole('button', { name: 'Copy' }), recovery.getByRole('button', { name: 'Dismiss the recovery link' })]) {
      const shown = (await part.boundingBox())!
      expect(shown.y + shown.height).toBeLessThanOrEqual(box.y)
      expect(shown.y).toBeGreaterThanOrEqual(0)
    }
    // Create recovery code while the link is shown: asked first, in the page's own dialog, which
    // opens on Cancel; declined, the link stays and nothing is made.
    const made = kratos.recoveries.length
    await recovery.getByRole('button', { name: 'Create recovery code' }).click()
    const question = page.getByRole('dialog', { name: 'Replace the recovery link?' })
    await question.getByText('The recovery link shown below is lost when a new one is created: it still works, but cannot be copied again.').waitFor()
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel')
    await page.keyboard.press('Enter')
    await question.waitFor({ state: 'hidden' })
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Create recovery code')
    expect([await link.inputValue(), kratos.recoveries.length]).toEqual([value, made])
    // Confirmed, the code takes its place.
    await recovery.getByRole('button', { name: 'Create recovery code' }).click()
    await question.getByRole('button', { name: 'Create recovery code' }).click()
    await recovery.getByRole('textbox', { name: 'Recovery code', exact: true }).waitFor()
    expect(kratos.recoveries.length).toBe(made + 1)
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Copy')
    await recovery.getByRole('button', { name: 'Dismiss the recovery code' }).click()
    expect(admin.problems).toEqual([])
  } finally {
    await page.setViewportSize(DESKTOP)
  }
})

test('a recovery method turned off in Kratos says so, with the setting that turns it on, instead of "not found"', async () => {
  const { kratos } = admin.harness.sandbox
  await openIdentity('user07@example.test')
  const recovery = admin.page.getByRole('region', { name: 'Account recovery' })
  kratos.recoveryMethods.link = false
  try {
    await recovery.getByRole('button', { name: 'Create recovery link' }).click()
    await recovery
      .getByRole('alert')
      .getByText("Kratos did not create a recovery link: the link recovery method is turned off in Kratos's configuration (selfservice.methods.link.enabled, off by default). A recovery code may still be created.")
      .waitFor()
    // The code method, still on, works.
    await recovery.getByRole('button', { name: 'Create recovery code' }).click()
    await recovery.getByRole('textbox', { name: 'Recovery code', exact: true }).waitFor()
    await recovery.getByRole('button', { name: 'Dismiss the recovery code' }).click()
    kratos.recoveryMethods.code = false
    await recovery.getByRole('button', { name: 'Create recovery code' }).click()
    await recovery
      .getByRole('alert')
      .getByText("Kratos did not create a recovery code: the code recovery method is turned off in Kratos's configuration (selfservice.methods.code.enabled), or the identity was deleted meanwhile.")
      .waitFor()
  } finally {
    kratos.recoveryMethods.link = true
    kratos.recoveryMethods.code = true
  }
  expect(admin.problems.splice(0).every((problem) => /status of 404\b/.test(problem))).toBe(true)
})

test('a recovery link shown once is not lost without a question: a menu link, Back and a reload ask first; Cancel stays, OK leaves, Dismiss lets go', async () => {
  const page = admin.page
  await openIdentity('user07@example.test')
  const identityUrl = page.url()
  const asked: string[] = []
  let answer = false
  const onDialog = (dialog: import('playwright-core').Dialog) => {
    asked.push(`${dialog.type()}: ${dialog.message()}`)
    void (answer ? dialog.accept() : dialog.dismiss())
  }
  page.on('dialog', onDialog)
  try {
    await page.getByRole('button', { name: 'Create recovery link' }).click()
    const link = page.getByRole('textbox', { name: 'Recovery link', exact: true })
    await link.waitFor()
    const question = 'confirm: The recovery link is shown only once: leaving this page loses it for good. Leave anyway?'
    const menuLink = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Identities' })

    // A menu link, answered Cancel: the page and its link stay.
    await menuLink.click()
    expect(asked.splice(0)).toEqual([question])
    expect(page.url()).toBe(identityUrl)
    await link.waitFor()
    // Back within the app, answered Cancel: the same.
    await page.goBack()
    await page.waitForURL(identityUrl)
    expect(asked.splice(0)).toEqual([question])
    await link.waitFor()
    expect(await page.getByRole('heading', { level: 1, name: 'user07@example.test' }).count()).toBe(1)
    // A reload or closing the tab: the browser's own question.
    expect(await browserAsksBeforeLeaving(page)).toBe(true)

    // Dismiss: the link goes, and so does the question.
    await page.getByRole('button', { name: 'Dismiss the recovery link' }).click()
    await link.waitFor({ state: 'detached' })
    await menuLink.click()
    await page.getByRole('heading', { level: 1, name: 'Identities' }).waitFor()
    expect(asked).toEqual([])

    // A code this time, and OK: the person leaves.
    await openIdentity('user07@example.test')
    await page.getByRole('button', { name: 'Create recovery code' }).click()
    await page.getByRole('textbox', { name: 'Recovery code', exact: true }).waitFor()
    answer = true
    await menuLink.click()
    await page.getByRole('heading', { level: 1, name: 'Identities' }).waitFor()
    expect(asked.splice(0)).toEqual(['confirm: The recovery code is shown only once: leaving this page loses it for good. Leave anyway?'])
    // Nothing guards the page now.
    answer = false
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sessions' }).click()
    await page.getByRole('heading', { level: 1, name: 'Sessions' }).waitFor()
    expect(asked).toEqual([])
  } finally {
    page.off('dialog', onDialog)
  }
  expect(admin.problems).toEqual([])
})

test('Sign out with a recovery link shown asks first: Cancel keeps the page, the link and the session; OK signs out', async () => {
  const page = admin.page
  await openIdentity('user08@example.test')
  const identityUrl = page.url()
  let loggedOut = 0
  const countLogout = (request: import('playwright-core').Request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/auth/logout') loggedOut++
  }
  page.on('request', countLogout)
  const questions = answerQuestions(page)
  try {
    await page.getByRole('button', { name: 'Create recovery link' }).click()
    const link = page.getByRole('textbox', { name: 'Recovery link', exact: true })
    await link.waitFor()
    const shown = await link.inputValue()
    const question = 'confirm: The recovery link is shown only once: leaving this page loses it for good. Sign out anyway?'

    // Cancel: nothing happens; the page, its link and the session stay.
    await page.getByRole('button', { name: 'Sign out' }).click()
    expect(questions.asked.splice(0)).toEqual([question])
    expect(page.url()).toBe(identityUrl)
    expect(await link.inputValue()).toBe(shown)
    await page.getByRole('heading', { level: 1, name: 'user08@example.test' }).waitFor()
    expect(await page.getByRole('heading', { level: 1, name: /Sign/ }).count()).toBe(0)
    expect(loggedOut).toBe(0)
    expect(await page.evaluate(async () => (await fetch('/api/auth/session')).status)).toBe(200)

    // OK: signed out.
    questions.answer.ok = true
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('heading', { level: 1, name: 'Signed out' }).waitFor()
    expect(questions.asked.splice(0)).toEqual([question])
    expect(loggedOut).toBe(1)
    expect(await page.evaluate(async () => (await fetch('/api/auth/session')).status)).toBe(401)
  } finally {
    questions.stop()
    page.off('request', countLogout)
  }
  // Signed in again for the tests after this one.
  await page.getByRole('link', { name: 'Sign in again' }).click()
  await backThroughSignIn(page, admin.harness.sandbox, page.getByRole('heading', { level: 1, name: 'user08@example.test' }))
  expect(admin.problems.splice(0).filter((problem) => !problem.includes('401'))).toEqual([])
})

test('unsaved edits to the traits and the metadata are not lost without a question: a menu link, Back and a reload ask, naming them; Save and undoing the edit let go', async () => {
  const page = admin.page
  admin.harness.sandbox.kratos.addIdentity({ email: 'unsaved.edits@example.test', name: 'Unsaved Edits' })
  // Reached from the list, so that Back stays within the app.
  await openIdentity('unsaved.edits@example.test')
  const identityUrl = page.url()
  const questions = answerQuestions(page)
  try {
    const menuLink = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sessions' })
    const traits = page.getByRole('region', { name: 'Traits' })
    const name = traits.getByRole('textbox', { name: 'Name', exact: true })
    const metadata = page.getByRole('region', { name: 'Metadata' })
    const publicMetadata = metadata.getByLabel('Public metadata')
    const original = await publicMetadata.inputValue()

    // A menu link, answered Cancel: the page and the edit stay.
    await name.fill('Half Typed')
    await menuLink.click()
    expect(questions.asked.splice(0)).toEqual(['confirm: Your changes to the traits are not saved. Leave anyway?'])
    expect(page.url()).toBe(identityUrl)
    expect(await name.inputValue()).toBe('Half Typed')
    // Both forms edited: the question names both. Back within the app asks it too.
    await publicMetadata.fill('{"plan": "draft"}')
    await page.goBack()
    await within(5000, () => questions.asked.length > 0)
    await page.waitForURL(identityUrl)
    expect(questions.asked.splice(0)).toEqual(['confirm: Your changes to the traits are not saved. Your changes to the metadata are not saved. Leave anyway?'])
    expect(await publicMetadata.inputValue()).toBe('{"plan": "draft"}')
    // A reload or closing the tab: the browser's own question.
    expect(await browserAsksBeforeLeaving(page)).toBe(true)

    // Saved: the traits no longer ask. The metadata put back as it was: nothing asks.
    await traits.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('status').getByText('Traits saved.').waitFor()
    expect(stored('unsaved.edits@example.test')!.traits.name).toBe('Half Typed')
    await menuLink.click()
    expect(questions.asked.splice(0)).toEqual(['confirm: Your changes to the metadata are not saved. Leave anyway?'])
    await publicMetadata.fill(original)
    await menuLink.click()
    await page.getByRole('heading', { level: 1, name: 'Sessions' }).waitFor()
    expect(questions.asked).toEqual([])
  } finally {
    questions.stop()
  }
  expect(admin.problems).toEqual([])
})

test('a declined Back or Forward leaves the history as it was: the next Back and Forward go where they went before', async () => {
  const page = admin.page
  const person = admin.harness.sandbox.kratos.addIdentity({ email: 'history.kept@example.test', name: 'History Kept' })
  const nav = async (name: string) => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click()
    await page.getByRole('heading', { level: 1, name }).waitFor()
  }
  await openIdentity('history.kept@example.test') // the list, then A
  await nav('Messages') // B
  await nav('Audit log') // C
  await page.goBack()
  await page.getByRole('heading', { level: 1, name: 'Messages' }).waitFor()
  await page.goBack()
  await page.getByRole('heading', { level: 1, name: 'history.kept@example.test' }).waitFor()
  const at = (path: string) => page.waitForURL((address) => address.pathname === path)
  const questions = answerQuestions(page)
  try {
    const name = page.getByRole('region', { name: 'Traits' }).getByRole('textbox', { name: 'Name', exact: true })
    await name.fill('Not Yet Saved')
    // Forward, declined: still on the identity; Back then goes to the page before it, not forward.
    await page.goForward()
    await within(5000, () => questions.asked.length > 0)
    await at(`/dashboard/identities/${person.id}`)
    await page.waitForTimeout(200)
    expect(questions.asked.splice(0)).toEqual(['confirm: Your changes to the traits are not saved. Leave anyway?'])
    expect(await name.inputValue()).toBe('Not Yet Saved')
    questions.answer.ok = true
    await page.goForward()
    await page.getByRole('heading', { level: 1, name: 'Messages' }).waitFor()
    questions.answer.ok = false
    await page.goForward()
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor()
    await page.goBack()
    await page.getByRole('heading', { level: 1, name: 'Messages' }).waitFor()
    await page.goBack()
    await page.getByRole('heading', { level: 1, name: 'history.kept@example.test' }).waitFor()
    // Back, declined: still on the identity; Forward then goes to Messages, and Back twice to the list.
    await name.fill('Typed Again')
    questions.asked.splice(0)
    await page.goBack()
    await within(5000, () => questions.asked.length > 0)
    await at(`/dashboard/identities/${person.id}`)
    await page.waitForTimeout(200)
    expect(await name.inputValue()).toBe('Typed Again')
    questions.answer.ok = true
    await page.goForward()
    await page.getByRole('heading', { level: 1, name: 'Messages' }).waitFor()
    await page.goBack()
    await page.getByRole('heading', { level: 1, name: 'history.kept@example.test' }).waitFor()
    await page.goBack()
    await page.getByRole('heading', { level: 1, name: 'Identities' }).waitFor()
  } finally {
    questions.stop()
  }
  expect(admin.problems).toEqual([])
})

test('a half-filled Create identity asks before the page is left; OK leaves, and Cancel lets go of it', async () => {
  const page = admin.page
  const questions = answerQuestions(page)
  try {
    await page.goto(admin.url('/dashboard'))
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Identities' }).click()
    const menuLink = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sessions' })
    await page.getByRole('button', { name: 'Create identity' }).click()
    const dialog = page.getByRole('dialog', { name: 'Create identity' })
    await dialog.getByRole('textbox', { name: /e-?mail/i }).first().fill('half.filled@example.test')
    // Back (the menu is behind the modal dialog): within the app, to the overview.
    await page.goBack()
    await within(5000, () => questions.asked.length > 0)
    expect(questions.asked.splice(0)).toEqual(['confirm: Your changes to the new identity are not saved. Leave anyway?'])
    // Declined: the page, the dialog and what was typed stay.
    await page.waitForURL(admin.url('/dashboard/identities'))
    expect(await dialog.getByRole('textbox', { name: /e-?mail/i }).first().inputValue()).toBe('half.filled@example.test')
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await dialog.waitFor({ state: 'hidden' })
    await menuLink.click()
    await page.getByRole('heading', { level: 1, name: 'Sessions' }).waitFor()
    expect(questions.asked).toEqual([])
    // Typed again, and OK: Back leaves, and the dialog with it.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Identities' }).click()
    await page.getByRole('button', { name: 'Create identity' }).click()
    await dialog.getByLabel('Initial password (optional)').fill('typed but not sent')
    questions.answer.ok = true
    await page.goBack()
    await page.getByRole('heading', { level: 1, name: 'Sessions' }).waitFor()
    await dialog.waitFor({ state: 'hidden' })
    expect(questions.asked.splice(0)).toEqual(['confirm: Your changes to the new identity are not saved. Leave anyway?'])
  } finally {
    questions.stop()
  }
  expect(admin.problems).toEqual([])
})

test('an identity page lists its credentials by type and identifier, and no credential secret reaches the browser', async () => {
  const person = stored('user11@example.test')!
  person.credentials = {
    password: { type: 'password', identifiers: ['user11@example.test'], version: 0 },
    totp: { type: 'totp', identifiers: [person.id], version: 0 },
  }
  const bodies: Promise<string>[] = []
  const asked: string[] = []
  const listen = (response: import('playwright-core').Response) => {
    if (!new URL(response.url()).pathname.startsWith('/api/')) return
    asked.push(response.url())
    bodies.push(response.text().catch(() => ''))
  }
  admin.page.on('response', listen)
  try {
    await openIdentity('user11@example.test')
    const credentials = admin.page.getByRole('region', { name: 'Credentials' })
    await credentials.getByText('totp', { exact: true }).waitFor()
    expect(await credentials.textContent()).toContain('password: user11@example.test')
    // A type's name comes with what it is, in words.
    expect(await credentials.textContent()).toContain('totp (authenticator app):')
  } finally {
    admin.page.off('response', listen)
  }
  // Kratos sends a credential's config (a password's hash, a TOTP secret, OIDC tokens) only when asked.
  expect(asked.filter((address) => address.includes('include_credential'))).toEqual([])
  expect(admin.harness.sandbox.kratos.calls.some((call) => call.query.has('include_credential'))).toBe(false)
  for (const body of await Promise.all(bodies)) expect(body).not.toContain('hashed_password')
  expect(admin.problems).toEqual([])
})

test('deleting a second factor leaves the rest of the page as it was: unsaved edits, the recovery link shown once, focus', async () => {
  const person = stored('user10@example.test')!
  person.credentials = {
    password: { type: 'password', identifiers: ['user10@example.test'], version: 0 },
    totp: { type: 'totp', identifiers: [person.id], version: 0 },
  }
  await openIdentity('user10@example.test')
  const traits = admin.page.getByRole('region', { name: 'Traits' })
  await traits.getByRole('textbox', { name: 'Name', exact: true }).fill('Not saved yet')
  await admin.page.getByRole('button', { name: 'Create recovery link' }).click()
  const link = admin.page.getByRole('textbox', { name: 'Recovery link', exact: true })
  await link.waitFor()
  const shown = await link.inputValue()

  await admin.page.getByRole('button', { name: 'Delete totp credential' }).click()
  const dialog = admin.page.getByRole('dialog', { name: 'Delete the totp credential?' })
  await dialog.getByRole('button', { name: 'Delete' }).dblclick()
  await admin.page.getByRole('status').getByText('The totp credential was deleted.').waitFor()
  expect(Object.keys(stored('user10@example.test')!.credentials ?? {})).toEqual(['password'])
  expect(admin.harness.sandbox.kratos.calls.filter((call) => call.method === 'DELETE' && call.path.endsWith('/credentials/totp')).length).toBe(1)
  await admin.page.getByRole('region', { name: 'Credentials' }).getByText('totp').waitFor({ state: 'detached' })
  expect(await traits.getByRole('textbox', { name: 'Name', exact: true }).inputValue()).toBe('Not saved yet')
  expect(await link.inputValue()).toBe(shown)
  // The button that opened the dialog is gone: focus is on its section, not lost.
  expect(await admin.page.evaluate(() => document.activeElement?.closest('section')?.getAttribute('aria-labelledby'))).toBe('credentials-h')
  expect(admin.problems).toEqual([])
})

test('a very long identifier wraps: the page and the Delete identity dialog scroll no sideways, on a desktop and on a phone', async () => {
  const long = `${'a'.repeat(90)}.${'b'.repeat(60)}@${'sub.'.repeat(10)}example.test`
  admin.harness.sandbox.kratos.addIdentity({ email: long, role: 'viewer' })
  await openIdentity(long)
  for (const size of [PHONE, DESKTOP]) {
    await admin.page.setViewportSize(size)
    expect(await sidewaysScroll(admin.page)).toBe(0)
    await admin.page.getByRole('button', { name: 'Delete identity' }).click()
    const dialog = admin.page.getByRole('dialog', { name: 'Delete identity?' })
    await dialog.getByLabel(`Type ${long} to confirm`).waitFor()
    expect(await dialog.evaluate((element) => element.scrollWidth - element.clientWidth)).toBe(0)
    await admin.page.keyboard.press('Escape')
  }
  expect(admin.problems).toEqual([])
})

test('an admin revokes one session of an identity', async () => {
  await openIdentity('user08@example.test')
  const id = stored('user08@example.test')!.id
  const activeBefore = admin.harness.sandbox.kratos.sessions.filter((s) => s.identityId === id && s.active).length
  expect(activeBefore).toBeGreaterThan(0)
  await admin.page.getByRole('button', { name: 'Revoke session 1' }).click()
  await admin.page.getByRole('status').getByText('Session revoked.').waitFor()
  expect(admin.harness.sandbox.kratos.sessions.filter((s) => s.identityId === id && s.active).length).toBe(activeBefore - 1)
})

test('Revoke all sessions and End dashboard sessions, each pressed twice, reach Kratos and the audit trail once', async () => {
  await openIdentity('user11@example.test')
  const id = stored('user11@example.test')!.id
  const { kratos, services } = admin.harness.sandbox
  const revokeAllCalls = () => kratos.calls.filter((call) => call.method === 'DELETE' && call.path === `/admin/identities/${id}/sessions`).length
  const endedAudits = async () => (await services.audit.list({ limit: 1000, action: 'sessions_revoke' })).filter((event) => event.target === id).length
  const auditsBefore = await endedAudits()
  // Kratos answers slowly, so the second press arrives while the first request runs.
  kratos.delayMs = 400
  try {
    await admin.page.getByRole('button', { name: 'Revoke all sessions' }).click()
    const dialog = admin.page.getByRole('dialog', { name: 'Revoke all sessions?' })
    await dialog.getByRole('button', { name: 'Revoke' }).dblclick()
    await admin.page.getByRole('status').getByText('All sessions of this identity were revoked.').waitFor()
    await admin.page.getByRole('button', { name: 'End dashboard sessions' }).click()
    const ending = admin.page.getByRole('dialog', { name: 'End dashboard sessions?' })
    await ending.getByText('Every dashboard session of user11@example.test stops working now.').waitFor()
    // Someone else's: nothing about the operator's own session.
    expect(await ending.getByText(/your own identity/).count()).toBe(0)
    await ending.getByRole('button', { name: 'End dashboard sessions' }).dblclick()
    await admin.page.getByRole('status').getByText('Dashboard sessions of this identity ended.').waitFor()
    await ending.waitFor({ state: 'hidden' })
  } finally {
    kratos.delayMs = 0
  }
  expect(revokeAllCalls()).toBe(1)
  expect(kratos.sessions.filter((s) => s.identityId === id && s.active).length).toBe(0)
  expect((await endedAudits()) - auditsBefore).toBe(1)
  expect(admin.problems).toEqual([])
})

test('an admin deactivates three identities at once behind one dialog that says how many', async () => {
  await admin.page.goto(admin.url('/dashboard/identities'))
  const table = admin.page.getByRole('table', { name: /Identities/ })
  await table.waitFor()
  const boxes = table.getByRole('checkbox', { name: /^Select (?!all on this page)/ })
  const chosen: string[] = []
  for (let i = 0; chosen.length < 3; i++) {
    const box = boxes.nth(i)
    const name = ((await box.getAttribute('aria-label')) ?? '').replace(/^Select /, '')
    if (SIGNS_IN.has(name)) continue
    chosen.push(name)
    await box.check()
  }
  await admin.page.getByRole('button', { name: 'Deactivate', exact: true }).click()
  const dialog = admin.page.getByRole('dialog', { name: 'Deactivate 3 identities?' })
  await dialog.getByRole('button', { name: 'Deactivate' }).click()
  await admin.page.getByRole('status').getByText('3 identities deactivated.').waitFor()
  for (const email of chosen) expect(stored(email)?.state).toBe('inactive')
  // The opener is disabled now (nothing is selected): focus goes to the page, not nowhere.
  await admin.page.waitForFunction(() => document.activeElement?.id === 'page-title', undefined, { timeout: 5000 })
  expect(admin.problems).toEqual([])
}, 60_000)

test('Back while a bulk Delete asks for confirmation closes the question with the page it was about; nothing is deleted', async () => {
  await admin.page.goto(admin.url('/dashboard/identities'))
  const table = admin.page.getByRole('table', { name: /Identities/ })
  await table.waitFor()
  await admin.page.getByRole('button', { name: 'Next page' }).click()
  await admin.page.waitForURL(/page_token=/)
  await table.getByRole('checkbox', { name: /^Select (?!all on this page)/ }).nth(0).check()
  await table.getByRole('checkbox', { name: /^Select (?!all on this page)/ }).nth(1).check()
  const before = admin.harness.sandbox.kratos.identities.size
  await admin.page.getByRole('button', { name: 'Delete', exact: true }).click()
  const dialog = admin.page.getByRole('dialog', { name: 'Delete 2 identities?' })
  await dialog.waitFor()
  await admin.page.goBack()
  await admin.page.waitForURL((address) => !address.search.includes('page_token'))
  await admin.page.getByRole('dialog').waitFor({ state: 'hidden' })
  expect(await admin.page.getByRole('dialog').count()).toBe(0)
  expect(admin.harness.sandbox.kratos.identities.size).toBe(before)
  expect(admin.problems).toEqual([])
})

test('a change refused because the session ended is not passed off as saved: after signing in again, the page says it was not saved', async () => {
  const other = await signedInPage(admin.harness, 'admin', '/dashboard/identities?search=user13%40example.test')
  try {
    const { page: tab } = other
    await tab.getByRole('link', { name: 'user13@example.test' }).click()
    await tab.getByRole('heading', { level: 1, name: 'user13@example.test' }).waitFor()
    const traits = tab.getByRole('region', { name: 'Traits' })
    await traits.getByRole('textbox', { name: 'Name', exact: true }).fill('Never Saved')
    // The session ends elsewhere (Sign out in another tab of this browser).
    expect(await tab.evaluate(async () => (await fetch('/api/auth/logout', { method: 'POST' })).status)).toBe(204)
    await traits.getByRole('button', { name: 'Save' }).click()
    // Through the sign-in (the provider may still know this browser and send it straight back).
    await tab.waitForURL((address) => address.origin === admin.harness.sandbox.providerUrl || address.pathname.startsWith('/dashboard/identities/'))
    if (new URL(tab.url()).origin === admin.harness.sandbox.providerUrl) await signIn(tab, admin.harness.sandbox, 'admin')
    const notice = tab.getByRole('alert').filter({ hasText: 'it was not saved' })
    await notice.waitFor()
    await tab.getByRole('heading', { level: 1, name: 'user13@example.test' }).waitFor()
    await tab.setViewportSize(PHONE)
    await tab.screenshot({ path: join(SCREENSHOT_DIR, 'lost-write-notice-phone.png') })
    await tab.setViewportSize(DESKTOP)
    expect(stored('user13@example.test')!.traits.name).not.toBe('Never Saved')
    await notice.getByRole('button', { name: 'Dismiss' }).click()
    await notice.waitFor({ state: 'hidden' })
    await tab.reload()
    await tab.getByRole('heading', { level: 1, name: 'user13@example.test' }).waitFor()
    expect(await tab.getByRole('alert').count()).toBe(0)
    // The session check that found none is the one console problem the sign-in round trip leaves.
    expect(other.problems.filter((problem) => !problem.includes('401'))).toEqual([])
  } finally {
    await other.context.close()
  }
})

test('a metadata save that first reads the identity again, refused because the session ended, is not passed off as saved either', async () => {
  const person = admin.harness.sandbox.kratos.addIdentity({ email: 'reread.metadata@example.test', name: 'Reread Metadata' })
  person.metadata_public = { plan: 'silver' }
  const other = await signedInPage(admin.harness, 'admin', `/dashboard/identities/${person.id}`)
  try {
    const { page: tab } = other
    await tab.getByRole('heading', { level: 1, name: 'reread.metadata@example.test' }).waitFor()
    const metadata = tab.getByRole('region', { name: 'Metadata' })
    // The field has a value: it is set whole, so Save reads the identity again first (a GET).
    await metadata.getByLabel('Public metadata').fill('{"plan": "gold"}')
    await endSession(tab)
    await metadata.getByRole('button', { name: 'Save' }).click()
    // Through the sign-in (the provider may still know this browser and send it straight back).
    const notice = tab.getByRole('alert').filter({ hasText: 'it was not saved' })
    await backThroughSignIn(tab, admin.harness.sandbox, notice)
    await tab.getByRole('heading', { level: 1, name: 'reread.metadata@example.test' }).waitFor()
    expect(stored('reread.metadata@example.test')!.metadata_public).toEqual({ plan: 'silver' })
    // The box holds the edit again (its draft was kept), measured against what it was filled from.
    await notice.getByText('Your draft was kept; check it and save again.').waitFor()
    expect(await metadata.getByLabel('Public metadata').inputValue()).toBe('{"plan": "gold"}')
    expect(other.problems.filter((problem) => !problem.includes('401'))).toEqual([])
  } finally {
    await other.context.close()
  }
})

/** The drafts this tab keeps for the way back from the sign-in (ui/drafts.ts). */
const keptDrafts = (page: import('playwright-core').Page) => page.evaluate(() => Object.keys(sessionStorage).filter((key) => key.startsWith('admin-dashboard.draft')))

test('a traits edit refused because the session ended is kept through the sign-in: the form opens with it again, says so, and saves it', async () => {
  const person = admin.harness.sandbox.kratos.addIdentity({ email: 'kept.draft@example.test', name: 'Before Draft' })
  const other = await signedInPage(admin.harness, 'admin', `/dashboard/identities/${person.id}`)
  try {
    const { page: tab } = other
    await tab.getByRole('heading', { level: 1, name: 'kept.draft@example.test' }).waitFor()
    const traits = tab.getByRole('region', { name: 'Traits' })
    await traits.getByRole('textbox', { name: 'Name', exact: true }).fill('Typed Before The Session Ended')
    await endSession(tab)
    await traits.getByRole('button', { name: 'Save' }).click()
    const notice = tab.getByRole('alert').filter({ hasText: 'it was not saved. Your draft was kept; check it and save again.' })
    await backThroughSignIn(tab, admin.harness.sandbox, notice)
    await tab.getByRole('heading', { level: 1, name: 'kept.draft@example.test' }).waitFor()
    // The form holds the edit again, not saved yet; the draft is used up.
    expect(await traits.getByRole('textbox', { name: 'Name', exact: true }).inputValue()).toBe('Typed Before The Session Ended')
    expect(stored('kept.draft@example.test')!.traits.name).toBe('Before Draft')
    expect(await keptDrafts(tab)).toEqual([])
    await traits.getByRole('button', { name: 'Save' }).click()
    await tab.getByRole('status').getByText('Traits saved.').waitFor()
    expect(stored('kept.draft@example.test')!.traits.name).toBe('Typed Before The Session Ended')
    expect(other.problems.filter((problem) => !problem.includes('401'))).toEqual([])
  } finally {
    await other.context.close()
  }
})

test('Create identity refused because the session ended opens again with its draft after the sign-in, all but the initial password, which the notice asks to type again', async () => {
  const other = await signedInPage(admin.harness, 'admin', '/dashboard/identities')
  try {
    const { page: tab } = other
    await tab.getByRole('button', { name: 'Create identity' }).click()
    const dialog = tab.getByRole('dialog', { name: 'Create identity' })
    const email = dialog.getByRole('textbox', { name: /e-?mail/i }).first()
    await email.fill('drafted.person@example.test')
    await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill('Drafted Person')
    await dialog.getByLabel('Initial password (optional)').fill('never kept in the browser 1')
    await endSession(tab)
    await dialog.getByRole('button', { name: 'Create identity' }).click()
    const notice = tab.getByRole('alert').filter({
      hasText: 'Your draft was kept, except the initial password, which is never kept in the browser: type it again, check the rest and save again.',
    })
    await backThroughSignIn(tab, admin.harness.sandbox, notice)
    await email.waitFor()
    expect(await email.inputValue()).toBe('drafted.person@example.test')
    expect(await dialog.getByRole('textbox', { name: 'Name', exact: true }).inputValue()).toBe('Drafted Person')
    expect(await dialog.getByLabel('Initial password (optional)').inputValue()).toBe('')
    expect(stored('drafted.person@example.test')).toBeUndefined()
    // Nothing of the password was stored in the tab on the way.
    expect(await tab.evaluate(() => JSON.stringify(sessionStorage))).not.toContain('never kept in the browser 1')
    await dialog.getByLabel('Initial password (optional)').fill('typed again 12345')
    await dialog.getByRole('button', { name: 'Create identity' }).click()
    await tab.getByRole('heading', { level: 1, name: 'drafted.person@example.test' }).waitFor()
    expect(admin.harness.sandbox.kratos.passwords.get(stored('drafted.person@example.test')!.id)).toBe('typed again 12345')
    expect(other.problems.filter((problem) => !problem.includes('401'))).toEqual([])
  } finally {
    await other.context.close()
  }
})

test('a kept draft is offered to nobody else: another identity signed in this tab does not get it, and Sign out drops it', async () => {
  const person = admin.harness.sandbox.kratos.addIdentity({ email: 'not.theirs@example.test', name: 'Stored Name' })
  const page = admin.page
  await page.goto(admin.url(`/dashboard/identities/${person.id}`))
  await page.getByRole('heading', { level: 1, name: 'not.theirs@example.test' }).waitFor()
  // A draft left in this tab by someone else's session, for this very page and form.
  const draft = (owner: string) => ({ key: `admin-dashboard.draft:${owner}`, value: JSON.stringify({ page: `/dashboard/identities/${person.id}`, form: 'traits', data: { base: person.traits, values: { ...person.traits, name: 'Someone Else' }, text: '{}' } }) })
  await page.evaluate(({ key, value }) => sessionStorage.setItem(key, value), draft('00000000-0000-4000-8000-000000000000'))
  await page.reload()
  const name = page.getByRole('region', { name: 'Traits' }).getByRole('textbox', { name: 'Name', exact: true })
  await name.waitFor()
  expect(await name.inputValue()).toBe('Stored Name')
  expect(await keptDrafts(page)).toEqual([])
  // One of the admin's own, then Sign out: gone.
  const adminId = [...admin.harness.sandbox.kratos.identities.values()].find((identity) => identity.traits.email === SANDBOX_USERS.admin)!.id
  await page.evaluate(({ key, value }) => sessionStorage.setItem(key, value), draft(adminId))
  await page.getByRole('button', { name: 'Sign out' }).click()
  await page.getByRole('heading', { level: 1, name: 'Signed out' }).waitFor()
  expect(await keptDrafts(page)).toEqual([])
  await page.getByRole('link', { name: 'Sign in again' }).click()
  await backThroughSignIn(page, admin.harness.sandbox, name)
  expect(await name.inputValue()).toBe('Stored Name')
  expect(admin.problems.filter((problem) => !problem.includes('401'))).toEqual([])
  admin.problems.splice(0)
})

test('an admin page left open after the role became viewer shows "No access", not an error Retry cannot mend', async () => {
  const other = await signedInPage(admin.harness, 'admin', '/dashboard/identities')
  try {
    const { page: tab, context: browser } = other
    await tab.getByRole('table', { name: /Identities/ }).waitFor()
    // Signed in again in another tab of the same browser, now with the viewer role (the provider
    // is made to forget this browser, so that it asks who is signing in).
    for (const cookie of await browser.cookies(admin.harness.sandbox.providerUrl)) if (cookie.name !== 'admin-session') await browser.clearCookies({ name: cookie.name })
    const second = await browser.newPage()
    await second.goto(admin.url('/api/auth/login?return_to=%2Fdashboard'))
    await signIn(second, admin.harness.sandbox, 'viewer')
    await second.close()
    await tab.getByRole('button', { name: 'Next page' }).click()
    await tab.getByRole('heading', { level: 1, name: 'No access' }).waitFor()
    expect(await tab.getByText('Viewer', { exact: true }).count()).toBe(1)
    expect(await tab.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Identities' }).count()).toBe(0)
    expect(other.problems.filter((problem) => !problem.includes('403'))).toEqual([])
  } finally {
    await other.context.close()
  }
})

test('a bulk change shows its progress, and Cancel while it runs stops it after the request under way, saying what was done and what was not', async () => {
  const { kratos } = admin.harness.sandbox
  // Identities of its own, all active: the list is in id order, so rows picked by position could be
  // ones an earlier test left inactive.
  const chosen = [1, 2, 3, 4, 5].map((n) => kratos.addIdentity({ email: `bulk.cancel.${n}@example.test`, name: `Bulk Cancel ${n}` }).traits.email as string)
  await admin.page.goto(admin.url('/dashboard/identities?page_size=250'))
  const table = admin.page.getByRole('table', { name: /Identities/ })
  await table.waitFor()
  for (const email of chosen) await table.getByRole('checkbox', { name: `Select ${email}` }).check()
  // Each request takes 0.8 s: once one or two are done, three stay for Cancel to keep from running,
  // however late a loaded machine lets the test see the progress.
  kratos.delayMs = 800
  try {
    await admin.page.getByRole('button', { name: 'Deactivate', exact: true }).click()
    const dialog = admin.page.getByRole('dialog', { name: 'Deactivate 5 identities?' })
    await dialog.getByRole('button', { name: 'Deactivate' }).click()
    await dialog.getByRole('progressbar', { name: /^[12] of 5$/ }).waitFor()
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await dialog.waitFor({ state: 'hidden' })
    const status = admin.page.getByRole('status').getByText(/^\d identit(y|ies) deactivated\. Cancelled: \d not changed\.$/)
    await status.waitFor()
    const [, done, , left] = /^(\d) identit(y|ies) deactivated\. Cancelled: (\d)/.exec((await status.textContent())!)!
    expect(Number(done) + Number(left)).toBe(5)
    expect(Number(left)).toBeGreaterThan(0)
    // No request after the one under way when Cancel was pressed.
    await Bun.sleep(1000)
    expect(chosen.filter((email) => stored(email)!.state === 'inactive').length).toBe(Number(done))
    // What was not changed stays selected, for another try.
    await admin.page.getByRole('group', { name: 'Selected identities' }).getByText(`${left} selected`).waitFor()
  } finally {
    kratos.delayMs = 0
  }
  for (const email of chosen) if (stored(email)!.state === 'inactive') stored(email)!.state = 'active'
  expect(admin.problems).toEqual([])
})

test('with the keyboard alone: Cancel while a bulk change runs returns focus to the button that opened it, says it is stopping after the request under way, then says the outcome', async () => {
  const { kratos } = admin.harness.sandbox
  const page = admin.page
  const chosen = [1, 2, 3, 4, 5].map((n) => kratos.addIdentity({ email: `bulk.keys.${n}@example.test`, name: `Bulk Keys ${n}` }).traits.email as string)
  await page.goto(admin.url('/dashboard/identities?page_size=250'))
  const table = page.getByRole('table', { name: /Identities/ })
  for (const email of chosen) {
    await table.getByRole('checkbox', { name: `Select ${email}` }).focus()
    await page.keyboard.press('Space')
  }
  await page.getByRole('group', { name: 'Selected identities' }).getByText('5 selected').waitFor()
  // The second request is held until the test lets it go: Cancel comes while it is under way.
  let patches = 0
  const second = await holdRequests(page, (url) => url.pathname.startsWith('/api/idp-admin/admin/identities/'), (request) => request.method() === 'PATCH' && ++patches === 2)
  try {
    await page.getByRole('searchbox', { name: 'Search identities' }).focus()
    await tabTo(page, 'Deactivate')
    const opener = page.getByRole('group', { name: 'Selected identities' }).getByRole('button', { name: 'Deactivate' })
    expect(await opener.evaluate((element) => element === document.activeElement)).toBe(true)
    await page.keyboard.press('Enter')
    const dialog = page.getByRole('dialog', { name: 'Deactivate 5 identities?' })
    await dialog.waitFor()
    await tabTo(page, 'Deactivate')
    await page.keyboard.press('Enter')
    await dialog.getByRole('progressbar', { name: '1 of 5' }).waitFor()
    await tabTo(page, 'Cancel')
    await page.keyboard.press('Enter')
    await dialog.waitFor({ state: 'hidden' })
    // Still running: said at once, and focus is back on what opened the dialog (said to be unavailable, not disabled).
    await page.getByRole('status').getByText('Stopping after the current request…', { exact: true }).waitFor()
    expect(await within(2000, () => opener.evaluate((element) => element === document.activeElement))).not.toBeNull()
    expect(await opener.getAttribute('aria-disabled')).toBe('true')
    expect(await opener.evaluate((element) => (element as HTMLButtonElement).disabled)).toBe(false)
    // Enter on it now opens nothing while the action is still under way.
    await page.keyboard.press('Enter')
    await Bun.sleep(200)
    expect(await dialog.count()).toBe(0)
    expect(patches).toBe(2)
    second.release()
    await page.getByRole('status').getByText('2 identities deactivated. Cancelled: 3 not changed.', { exact: true }).waitFor()
    expect(await within(2000, async () => (await opener.getAttribute('aria-disabled')) === null)).not.toBeNull()
    expect(await opener.evaluate((element) => element === document.activeElement)).toBe(true)
    expect(patches).toBe(2)
    expect(chosen.filter((email) => stored(email)!.state === 'inactive').length).toBe(2)
    await page.getByRole('group', { name: 'Selected identities' }).getByText('3 selected').waitFor()
  } finally {
    await second.stop()
  }
  for (const email of chosen) kratos.identities.delete(stored(email)!.id)
  expect(admin.problems).toEqual([])
})

test('a bulk change under way keeps focus in its dialog, on its unavailable button, with the form busy; its progress is said from inside the dialog every tenth of the way, and its outcome by the page as the dialog closes', async () => {
  const { kratos } = admin.harness.sandbox
  const page = admin.page
  const chosen = Array.from({ length: 30 }, (_, i) => kratos.addIdentity({ email: `bulk.said.${String(i).padStart(2, '0')}@example.test`, name: `Bulk Said ${i}` }).traits.email as string)
  await page.goto(admin.url('/dashboard/identities?page_size=250'))
  const table = page.getByRole('table', { name: /Identities/ })
  for (const email of chosen) await table.getByRole('checkbox', { name: `Select ${email}` }).check()
  // The sixteenth request is held: the test looks at the dialog half-way.
  let patches = 0
  const held = await holdRequests(page, (url) => url.pathname.startsWith('/api/idp-admin/admin/identities/'), (request) => request.method() === 'PATCH' && ++patches === 16)
  try {
    await page.getByRole('group', { name: 'Selected identities' }).getByRole('button', { name: 'Deactivate' }).click()
    const dialog = page.getByRole('dialog', { name: 'Deactivate 30 identities?' })
    await dialog.waitFor()
    // Everything the dialog's status region says, in order.
    await dialog.getByRole('status').evaluate((region) => {
      const said: string[] = []
      ;(window as unknown as { said: string[] }).said = said
      new MutationObserver(() => region.textContent && said.push(region.textContent)).observe(region, { childList: true, subtree: true, characterData: true })
    })
    // Its question opens on Cancel; the person goes to Deactivate, and Enter there starts it.
    expect(await page.evaluate(() => (document.activeElement?.closest('dialog') ? document.activeElement.textContent : 'outside the dialog'))).toBe('Cancel')
    await page.keyboard.press('Shift+Tab')
    expect(await page.evaluate(() => (document.activeElement?.closest('dialog') ? document.activeElement.textContent : 'outside the dialog'))).toBe('Deactivate')
    await page.keyboard.press('Enter')
    await dialog.getByRole('progressbar', { name: '15 of 30' }).waitFor()
    expect(await page.evaluate(() => (document.activeElement?.closest('dialog') ? document.activeElement.textContent : 'outside the dialog'))).toBe('Deactivate')
    expect(await dialog.getByRole('button', { name: 'Deactivate' }).getAttribute('aria-disabled')).toBe('true')
    expect(await dialog.locator('form').getAttribute('aria-busy')).toBe('true')
    expect(await dialog.getByRole('status').textContent()).toBe('Deactivating: 15 of 30 done.')
    // Enter again on the unavailable button starts nothing more.
    await page.keyboard.press('Enter')
    held.release()
    await page.getByRole('status').getByText('30 identities deactivated.', { exact: true }).waitFor()
  } finally {
    await held.stop()
  }
  expect(patches).toBe(30)
  expect(chosen.every((email) => stored(email)!.state === 'inactive')).toBe(true)
  expect(await page.evaluate(() => (window as unknown as { said: string[] }).said)).toEqual([3, 6, 9, 12, 15, 18, 21, 24, 27].map((n) => `Deactivating: ${n} of 30 done.`))
  for (const email of chosen) kratos.identities.delete(stored(email)!.id)
  expect(admin.problems).toEqual([])
}, 60_000)

test('a bulk Delete of an identity already deleted elsewhere counts it as deleted, as a single Delete does', async () => {
  const { kratos } = admin.harness.sandbox
  const kept = kratos.addIdentity({ email: 'bulk.gone.a@example.test', name: 'Bulk Gone A' })
  const gone = kratos.addIdentity({ email: 'bulk.gone.b@example.test', name: 'Bulk Gone B' })
  await admin.page.goto(admin.url('/dashboard/identities?page_size=250'))
  const table = admin.page.getByRole('table', { name: /Identities/ })
  await table.getByRole('checkbox', { name: 'Select bulk.gone.a@example.test' }).check()
  await table.getByRole('checkbox', { name: 'Select bulk.gone.b@example.test' }).check()
  // Deleted in another tab, or with the Kratos CLI, after the list was read.
  expect((await fetch(`${kratos.url}/admin/identities/${gone.id}`, { method: 'DELETE' })).status).toBe(204)
  await admin.page.getByRole('button', { name: 'Delete', exact: true }).click()
  await admin.page.getByRole('dialog', { name: 'Delete 2 identities?' }).getByRole('button', { name: 'Delete' }).click()
  await admin.page.getByRole('status').getByText('2 identities deleted.').waitFor()
  expect(await admin.page.getByRole('alert').count()).toBe(0)
  expect(kratos.identities.has(kept.id)).toBe(false)
  // The 404 of the delete is the only problem the browser reports.
  expect(admin.problems.splice(0).filter((problem) => !/status of 404\b/.test(problem))).toEqual([])
})

test('a bulk change whose first failure is a refusal and whose second is a server failure gives the second one\'s request ID under Details', async () => {
  const { kratos } = admin.harness.sandbox
  const chosen = [1, 2].map((n) => kratos.addIdentity({ email: `bulk.report.${n}@example.test`, name: `Bulk Report ${n}` }).traits.email as string)
  const page = admin.page
  await page.goto(admin.url('/dashboard/identities?page_size=250'))
  const table = page.getByRole('table', { name: /Identities/ })
  for (const email of chosen) await table.getByRole('checkbox', { name: `Select ${email}` }).check()
  // The first change refused (what the message explains), the second failing at the server (what to report).
  const reported = '0b5c5e5e-1111-4222-8333-444455556666'
  let patches = 0
  const answer = async (route: import('playwright-core').Route) => {
    if (route.request().method() !== 'PATCH') return route.continue()
    const json = { contentType: 'application/json', headers: { 'x-request-id': ++patches === 1 ? 'aaaaaaaa-1111-4222-8333-444455556666' : reported } }
    if (patches === 1) return route.fulfill({ ...json, status: 409, body: JSON.stringify({ error: { code: 409, status: 'Conflict', message: 'conflict' } }) })
    return route.fulfill({ ...json, status: 500, body: JSON.stringify({ error: { code: 500, status: 'Internal Server Error', message: 'failed' } }) })
  }
  const changes = (url: URL) => url.pathname.startsWith('/api/idp-admin/admin/identities/')
  await page.route(changes, answer)
  try {
    await page.getByRole('button', { name: 'Deactivate', exact: true }).click()
    await page.getByRole('dialog', { name: 'Deactivate 2 identities?' }).getByRole('button', { name: 'Deactivate' }).click()
    const alert = page.getByRole('alert').filter({ hasText: 'Not deactivated' })
    await alert.waitFor()
    await alert.getByText('Details', { exact: true }).click()
    await alert.getByText(`Request ID: ${reported}`).waitFor()
  } finally {
    await page.unroute(changes, answer)
  }
  expect(patches).toBe(2)
  expect(admin.problems.splice(0).every((problem) => /status of (409|500)\b/.test(problem))).toBe(true)
})

test('a bulk change Kratos refuses says why and for which identities, and leaves them selected for another try', async () => {
  await admin.page.goto(admin.url('/dashboard/identities'))
  const table = admin.page.getByRole('table', { name: /Identities/ })
  await table.waitFor()
  const chosen: string[] = []
  // Two from the middle of the page.
  for (let index = 4; chosen.length < 2; index++) {
    const box = table.getByRole('checkbox', { name: /^Select (?!all on this page)/ }).nth(index)
    const name = ((await box.getAttribute('aria-label')) ?? '').replace(/^Select /, '')
    if (SIGNS_IN.has(name)) continue
    chosen.push(name)
    await box.check()
  }
  admin.harness.sandbox.kratos.failWith = 500
  // After the change the page reloads the list, which Kratos may still refuse.
  const reloaded = admin.page.waitForResponse((response) => response.request().method() === 'GET' && new URL(response.url()).pathname === '/api/identities')
  try {
    await admin.page.getByRole('button', { name: 'Deactivate', exact: true }).click()
    await admin.page.getByRole('dialog', { name: 'Deactivate 2 identities?' }).getByRole('button', { name: 'Deactivate' }).click()
    await admin.page.getByRole('status').getByText('0 identities deactivated. 2 could not be changed.').waitFor()
  } finally {
    admin.harness.sandbox.kratos.failWith = null
  }
  const alert = admin.page.getByRole('alert').filter({ hasText: 'Not deactivated' })
  await alert.waitFor()
  expect(await alert.textContent()).toContain(`Not deactivated: ${chosen.join(', ')}.`)
  // The list reloaded while Kratos still failed says so too: Retry it now that Kratos is back.
  if ((await reloaded).status() >= 500) await admin.page.getByRole('button', { name: 'Retry' }).click()
  await table.waitFor()
  for (let waited = 0; admin.problems.length < 2 && waited < 2000; waited += 50) await Bun.sleep(50)
  expect(admin.problems.splice(0).every((problem) => /\b50\d\b/.test(problem))).toBe(true)
  await admin.page.getByRole('group', { name: 'Selected identities' }).getByText('2 selected').waitFor()
  await admin.page.getByRole('button', { name: 'Deactivate', exact: true }).click()
  await admin.page.getByRole('dialog', { name: 'Deactivate 2 identities?' }).getByRole('button', { name: 'Deactivate' }).click()
  await admin.page.getByRole('status').getByText('2 identities deactivated.').waitFor()
  for (const email of chosen) expect(stored(email)!.state).toBe('inactive')
  expect(await admin.page.getByRole('alert').count()).toBe(0)
  expect(admin.problems).toEqual([])
})

test('changes Kratos did not answer in time for are said to be of unknown outcome, not failed, and the list is read again: Create identity, a bulk deactivation, a traits save', async () => {
  const page = admin.page
  const identitiesPath = (url: URL) => url.pathname.startsWith('/api/idp-admin/admin/identities')
  await page.goto(admin.url('/dashboard/identities'))
  const table = page.getByRole('table', { name: /Identities/ })
  await table.waitFor()

  // Create identity: Kratos creates it, the answer is lost. The dialog closes rather than invite a second one.
  let stop = await answerTooLate(page, 'POST', identitiesPath)
  try {
    const dialog = await createIdentityThroughForm(page, 'late.create@example.test')
    await page.getByRole('alert').filter({ hasText: 'Kratos did not answer in time. The identity may have been created: search for it before creating it again.' }).waitFor()
    await dialog.waitFor({ state: 'hidden' })
  } finally {
    await stop()
  }
  expect([...admin.harness.sandbox.kratos.identities.values()].filter((identity) => identity.traits.email === 'late.create@example.test').length).toBe(1)
  // The list read again after it has been drawn, before rows are chosen in it.
  await page.waitForFunction(() => !document.querySelector('main [aria-busy="true"]'))

  // A bulk deactivation: both were deactivated, neither answer came back.
  const chosen: string[] = []
  for (let index = 6; chosen.length < 2; index++) {
    const box = table.getByRole('checkbox', { name: /^Select (?!all on this page)/ }).nth(index)
    const name = ((await box.getAttribute('aria-label')) ?? '').replace(/^Select /, '')
    if (SIGNS_IN.has(name)) continue
    chosen.push(name)
    await box.check()
  }
  stop = await answerTooLate(page, 'PATCH', identitiesPath)
  try {
    await page.getByRole('button', { name: 'Deactivate', exact: true }).click()
    await page.getByRole('dialog', { name: 'Deactivate 2 identities?' }).getByRole('button', { name: 'Deactivate' }).click()
    await page.getByRole('status').getByText('0 identities deactivated. 2 may or may not have been: Kratos did not answer in time.').waitFor()
  } finally {
    await stop()
  }
  await page.getByRole('alert').filter({ hasText: `Kratos did not answer in time for ${chosen.join(', ')}: they may have been deactivated.` }).waitFor()
  for (const email of chosen) expect(stored(email)!.state).toBe('inactive')
  // The list read again shows what Kratos did.
  for (const email of chosen) await table.getByRole('row').filter({ has: page.getByRole('checkbox', { name: `Select ${email}` }) }).getByText('Inactive').waitFor()

  // A traits save.
  await openIdentity('user18@example.test')
  const traits = page.getByRole('region', { name: 'Traits' })
  await traits.getByRole('textbox', { name: 'Name', exact: true }).fill('Saved Late')
  stop = await answerTooLate(page, 'PATCH', identitiesPath)
  try {
    await traits.getByRole('button', { name: 'Save' }).click()
    await traits.getByRole('alert').getByText('Kratos did not answer in time. The change may have been made: check before trying again.').waitFor()
  } finally {
    await stop()
  }
  expect(stored('user18@example.test')!.traits.name).toBe('Saved Late')
  expect(admin.problems.splice(0).every((problem) => /status of 504\b/.test(problem))).toBe(true)
})

/** The identity's page with its name saved as "First" ("Traits saved." on screen), then "Second" typed for the next Save. */
async function savedOnceThenEdited(email: string) {
  await openIdentity(email)
  const traits = admin.page.getByRole('region', { name: 'Traits' })
  const status = admin.page.getByRole('status')
  await traits.getByRole('textbox', { name: 'Name', exact: true }).fill('First')
  await traits.getByRole('button', { name: 'Save' }).click()
  await status.getByText('Traits saved.').waitFor()
  await traits.getByRole('textbox', { name: 'Name', exact: true }).fill('Second')
  return { traits, status }
}

test('a failed save takes the place of the earlier "Traits saved." in the status region: the two are never shown together', async () => {
  const { traits, status } = await savedOnceThenEdited('user16@example.test')
  admin.harness.sandbox.kratos.failWith = 500
  try {
    await traits.getByRole('button', { name: 'Save' }).click()
    await traits.getByRole('alert').waitFor()
  } finally {
    admin.harness.sandbox.kratos.failWith = null
  }
  expect(await status.textContent()).toBe('')
  expect(stored('user16@example.test')!.traits.name).toBe('First')
  for (let waited = 0; admin.problems.length === 0 && waited < 2000; waited += 50) await Bun.sleep(50)
  expect(admin.problems.splice(0).every((problem) => /status of 500\b/.test(problem))).toBe(true)
})

test('while a second Save is under way the first one\'s "Traits saved." is no longer on screen: it would read as this one\'s outcome', async () => {
  const { kratos } = admin.harness.sandbox
  kratos.addIdentity({ email: 'two.saves@example.test', name: 'Two Saves' })
  const { traits, status } = await savedOnceThenEdited('two.saves@example.test')
  kratos.delayMs = 1500
  try {
    await traits.getByRole('button', { name: 'Save' }).click()
    await Bun.sleep(300)
    expect(await traits.getByRole('button', { name: 'Save' }).getAttribute('aria-disabled')).toBe('true')
    expect(await status.textContent()).toBe('')
  } finally {
    kratos.delayMs = 0
  }
  await status.getByText('Traits saved.').waitFor()
  expect(stored('two.saves@example.test')!.traits.name).toBe('Second')
  expect(admin.problems).toEqual([])
})

test('the same sentence said twice in a row ("Nothing was changed.") leaves the status region empty for a moment in between, so a screen reader hears it again', async () => {
  const { kratos } = admin.harness.sandbox
  kratos.addIdentity({ email: 'said.twice@example.test', name: 'Said Twice' })
  await openIdentity('said.twice@example.test')
  const traits = admin.page.getByRole('region', { name: 'Traits' })
  const status = admin.page.getByRole('status')
  await traits.getByRole('button', { name: 'Save' }).click()
  await status.getByText('Nothing was changed.').waitFor()
  // Every text the region takes from now on, with when.
  await admin.page.evaluate(() => {
    const region = document.querySelector('[role="status"]')!
    const seen: [string, number][] = []
    ;(window as unknown as { said: [string, number][] }).said = seen
    new MutationObserver(() => seen.push([region.textContent ?? '', performance.now()])).observe(region, { childList: true, characterData: true, subtree: true })
  })
  await traits.getByRole('button', { name: 'Save' }).click()
  await admin.page.waitForFunction(() => (window as unknown as { said: [string, number][] }).said.some(([text]) => text === 'Nothing was changed.'))
  const said = await admin.page.evaluate(() => (window as unknown as { said: [string, number][] }).said)
  const emptied = said.findIndex(([text]) => text === '')
  const again = said.findIndex(([text]) => text === 'Nothing was changed.')
  expect(emptied).toBeGreaterThanOrEqual(0)
  expect(again).toBeGreaterThan(emptied)
  expect(said[again]![1] - said[emptied]![1]).toBeGreaterThanOrEqual(100)
  expect(admin.problems).toEqual([])
})

test('a Save Kratos refuses as too busy (429) or unavailable (503) names Kratos and says to wait and try again', async () => {
  const { kratos } = admin.harness.sandbox
  kratos.addIdentity({ email: 'busy.kratos@example.test', name: 'Busy Kratos' })
  await openIdentity('busy.kratos@example.test')
  const traits = admin.page.getByRole('region', { name: 'Traits' })
  await traits.getByRole('textbox', { name: 'Name', exact: true }).fill('Not Yet')
  for (const [status, said] of [
    [429, 'Kratos is receiving too many requests (HTTP 429). Wait a moment and try again.'],
    [503, 'Kratos is unavailable for the moment (HTTP 503). Wait a moment and try again.'],
  ] as const) {
    kratos.failWith = status
    try {
      await traits.getByRole('button', { name: 'Save' }).click()
      await traits.getByRole('alert').getByText(said).waitFor()
    } finally {
      kratos.failWith = null
    }
  }
  expect(stored('busy.kratos@example.test')!.traits.name).toBe('Busy Kratos')
  for (let waited = 0; admin.problems.length < 2 && waited < 2000; waited += 50) await Bun.sleep(50)
  expect(admin.problems.splice(0).every((problem) => /status of (429|503)\b/.test(problem))).toBe(true)
})

test('a Save Kratos refuses with 401 (its API key, not the dashboard session) says so and stays on the page: no sign-in, no "not saved" notice, the edit kept', async () => {
  const { kratos } = admin.harness.sandbox
  kratos.addIdentity({ email: 'keyless.kratos@example.test', name: 'Keyless Kratos' })
  await openIdentity('keyless.kratos@example.test')
  const page = admin.page
  const navigations: string[] = []
  const onNavigation = (frame: { url(): string }) => frame === page.mainFrame() && navigations.push(frame.url())
  page.on('framenavigated', onNavigation)
  const traits = page.getByRole('region', { name: 'Traits' })
  const name = traits.getByRole('textbox', { name: 'Name', exact: true })
  await name.fill('Still Mine')
  kratos.failWith = 401
  try {
    await traits.getByRole('button', { name: 'Save' }).click()
    await traits.getByRole('alert').getByText("Kratos did not accept this service's credentials (HTTP 401). Check its API key under Settings.").waitFor()
    // Long enough for a sign-in round trip (and the loop it would start) to show.
    await Bun.sleep(1500)
  } finally {
    kratos.failWith = null
    page.off('framenavigated', onNavigation)
  }
  expect(navigations).toEqual([])
  expect(await name.inputValue()).toBe('Still Mine')
  expect(await page.getByText('Your session ended').count()).toBe(0)
  expect((await page.request.get(admin.url('/api/auth/session'))).status()).toBe(200)
  expect(stored('keyless.kratos@example.test')!.traits.name).toBe('Keyless Kratos')
  for (let waited = 0; admin.problems.length < 1 && waited < 2000; waited += 50) await Bun.sleep(50)
  expect(admin.problems.splice(0).every((problem) => /status of 401\b/.test(problem))).toBe(true)
})

test('an announcement leaves the screen after 10 s, once it has been read out', async () => {
  // An identity of its own: the bulk test before it deactivates two chosen at random, and an
  // inactive identity's sessions are not active (as Kratos answers them).
  const { kratos } = admin.harness.sandbox
  const person = kratos.addIdentity({ email: 'announced@example.test', name: 'Announced' })
  kratos.addSession(person.id, { ip_address: '81.2.69.160' })
  const other = await signedInPage(admin.harness, 'admin', '/dashboard/identities?search=announced%40example.test')
  try {
    const { page: tab } = other
    await tab.getByRole('link', { name: 'announced@example.test' }).click()
    await tab.getByRole('heading', { level: 1, name: 'announced@example.test' }).waitFor()
    // Loaded before the clock is faked: the page's effects wait on timers the fake clock holds.
    const revoke = tab.getByRole('button', { name: 'Revoke session 1' })
    await revoke.waitFor()
    await tab.clock.install()
    await revoke.click()
    const status = tab.getByRole('status')
    await status.getByText('Session revoked.').waitFor()
    await tab.clock.runFor(9_000)
    expect(await status.textContent()).toBe('Session revoked.')
    await tab.clock.runFor(1_500)
    // Polled by moving the fake clock: a waitForFunction polls on animation frames, which it holds.
    for (let step = 0; step < 20 && (await status.textContent()) !== ''; step++) await tab.clock.runFor(100)
    expect(await status.textContent()).toBe('')
    expect(other.problems).toEqual([])
  } finally {
    await other.context.close()
  }
})

test('an identity deleted elsewhere first (another tab, the Kratos CLI): Delete takes the person to the list saying it already was', async () => {
  const { kratos } = admin.harness.sandbox
  const identity = kratos.addIdentity({ email: 'deleted.twice@example.test', name: 'Deleted Twice' })
  await admin.page.goto(admin.url(`/dashboard/identities/${identity.id}`))
  await admin.page.getByRole('heading', { level: 1, name: 'deleted.twice@example.test' }).waitFor()
  expect((await fetch(`${kratos.url}/admin/identities/${identity.id}`, { method: 'DELETE' })).status).toBe(204)

  await admin.page.getByRole('button', { name: 'Delete identity' }).click()
  const dialog = admin.page.getByRole('dialog', { name: 'Delete identity?' })
  await dialog.getByRole('textbox', { name: 'Type deleted.twice@example.test to confirm' }).fill('deleted.twice@example.test')
  await dialog.getByRole('button', { name: 'Delete', exact: true }).click()
  await admin.page.getByRole('heading', { level: 1, name: 'Identities' }).waitFor()
  await admin.page.getByRole('status').getByText('Identity deleted.twice@example.test had already been deleted.').waitFor()
  expect(await admin.page.getByRole('alert').count()).toBe(0)
  expect(stored('deleted.twice@example.test')).toBeUndefined()
  // The refusal is the only problem the browser reports: Kratos's 404 for the delete.
  expect(admin.problems.filter((problem) => !/status of 404\b/.test(problem))).toEqual([])
  admin.problems.length = 0
})

test('a Delete identity under way stays until it is answered: Cancel is unavailable with Delete and Escape does nothing, so nothing is deleted behind a Cancel', async () => {
  admin.problems.length = 0
  const { kratos } = admin.harness.sandbox
  const identity = kratos.addIdentity({ email: 'held.delete@example.test', name: 'Held Delete' })
  await admin.page.goto(admin.url(`/dashboard/identities/${identity.id}`))
  await admin.page.getByRole('heading', { level: 1, name: 'held.delete@example.test' }).waitFor()
  const opener = admin.page.getByRole('button', { name: 'Delete identity' })
  const dialog = admin.page.getByRole('dialog', { name: 'Delete identity?' })
  const box = dialog.getByRole('textbox', { name: 'Type held.delete@example.test to confirm' })
  const deleting = (url: URL) => url.pathname === `/api/idp-admin/admin/identities/${identity.id}`
  const deletes = () => kratos.calls.filter((call) => call.method === 'DELETE' && call.path === `/admin/identities/${identity.id}`).length
  /** While its request is held: both buttons unavailable (focus stays in the question), and neither Escape (twice) nor Cancel closes it. */
  const staysWhileHeld = async () => {
    await dialog.locator('button[aria-disabled="true"]', { hasText: 'Cancel' }).waitFor()
    expect(await dialog.getByRole('button', { name: 'Delete', exact: true }).getAttribute('aria-disabled')).toBe('true')
    expect(await admin.page.evaluate(() => document.activeElement?.closest('dialog') !== null)).toBe(true)
    expect(await dialog.getAttribute('aria-busy')).toBe('true')
    await dialog.getByText('Waiting for the answer: this question closes when it comes.').waitFor()
    // Twice: Chromium lets a page refuse a dialog's cancel event only once per click or key other than Escape.
    await admin.page.keyboard.press('Escape')
    await admin.page.keyboard.press('Escape')
    expect(await dialog.isVisible()).toBe(true)
    await dialog.getByRole('button', { name: 'Cancel' }).click({ force: true })
    expect(await dialog.isVisible()).toBe(true)
    expect(kratos.identities.has(identity.id)).toBe(true)
  }

  // From the keyboard (Enter in the box), refused once its answer comes: the question is free again,
  // with the refusal in it; Escape then closes it, and the identity stays.
  await opener.click()
  await box.fill('held.delete@example.test')
  let hold = await holdRequests(admin.page, deleting, 'DELETE')
  try {
    await box.press('Enter')
    await staysWhileHeld()
    kratos.failWith = 500
    hold.release()
    await dialog.getByRole('alert').waitFor()
  } finally {
    kratos.failWith = null
    await hold.stop()
  }
  expect(await dialog.getByRole('button', { name: 'Cancel' }).isEnabled()).toBe(true)
  await admin.page.keyboard.press('Escape')
  await dialog.waitFor({ state: 'hidden' })
  expect(await admin.page.evaluate(() => document.activeElement?.textContent)).toBe('Delete identity')
  expect(kratos.identities.has(identity.id)).toBe(true)

  // Clicked, and answered: the list opens saying so, as before.
  await opener.click()
  await box.fill('held.delete@example.test')
  hold = await holdRequests(admin.page, deleting, 'DELETE')
  try {
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click()
    await staysWhileHeld()
    hold.release()
    await admin.page.waitForURL(admin.url('/dashboard/identities'))
    await admin.page.getByRole('status').getByText('Identity held.delete@example.test deleted.').waitFor()
  } finally {
    await hold.stop()
  }
  expect(kratos.identities.has(identity.id)).toBe(false)
  expect(deletes()).toBe(2)
  // The refusal is the only problem the browser reports: Kratos's 500 for the first Delete.
  for (let waited = 0; admin.problems.length === 0 && waited < 2000; waited += 50) await Bun.sleep(50)
  expect(admin.problems.splice(0).every((problem) => /status of 500\b/.test(problem))).toBe(true)
})

test('traits nested deeper than the browser can walk fail their own section, with Retry; the rest of the page still works', async () => {
  admin.problems.length = 0
  const { kratos } = admin.harness.sandbox
  let deep: Record<string, unknown> = { end: true }
  for (let i = 0; i < 20_000; i++) deep = { next: deep }
  const person = kratos.addIdentity({ email: 'deep.traits@example.test', profile: deep })
  await admin.page.goto(admin.url(`/dashboard/identities/${person.id}`))
  await admin.page.getByRole('heading', { level: 1, name: 'deep.traits@example.test' }).waitFor()
  const traits = admin.page.getByRole('region', { name: 'Traits' })
  await traits.getByRole('alert').getByText('This part of the page cannot be shown').waitFor()
  await traits.getByRole('button', { name: 'Retry' }).waitFor()
  // The sections after it are there, and the identity can still be deleted from here.
  await admin.page.getByRole('region', { name: 'Sessions' }).waitFor()
  await admin.page.getByRole('button', { name: 'Delete identity' }).click()
  const dialog = admin.page.getByRole('dialog', { name: 'Delete identity?' })
  await dialog.getByRole('textbox', { name: 'Type deep.traits@example.test to confirm' }).fill('deep.traits@example.test')
  await dialog.getByRole('button', { name: 'Delete', exact: true }).click()
  await admin.page.waitForURL(admin.url('/dashboard/identities'))
  expect(kratos.identities.has(person.id)).toBe(false)
  expect(admin.problems).toEqual([])
})

test('an identifier with characters that hide or turn text around (zero-width, right-to-left override) shows them, so it cannot pass for the admin; its Delete asks for it as shown', async () => {
  admin.problems.length = 0
  const { kratos } = admin.harness.sandbox
  const zeroWidth = kratos.addIdentity({ email: 'adm\u200Bin@example.test', name: 'Ada\u200B Admin' })
  const turned = kratos.addIdentity({ email: '\u202Etset.elpmaxe@nimda' })
  kratos.addSession(turned.id, { ip_address: '2.16.7.0', user_agent: 'curl/8.0' }, 0)
  await admin.page.goto(admin.url(`/dashboard/identities/${turned.id}`))
  await admin.page.getByRole('heading', { level: 1, name: '⟨U+202E⟩tset.elpmaxe@nimda' }).waitFor()
  await admin.page.waitForFunction((title) => document.title === title, '⟨U+202E⟩tset.elpmaxe@nimda · admin-dashboard')
  // The sentence that quotes it reads as written.
  await admin.page.getByRole('button', { name: 'End dashboard sessions' }).click()
  const ending = admin.page.getByRole('dialog', { name: 'End dashboard sessions?' })
  expect(await ending.locator('p').first().textContent()).toBe('Every dashboard session of ⟨U+202E⟩tset.elpmaxe@nimda stops working now. Its Kratos sessions are not touched.')
  expect(await ending.evaluate((element) => /[\u202A-\u202E\u2066-\u2069\u200B-\u200F]/.test(element.textContent ?? ''))).toBe(false)
  await admin.page.keyboard.press('Escape')

  await admin.page.goto(admin.url(`/dashboard/identities/${zeroWidth.id}`))
  await admin.page.getByRole('heading', { level: 1, name: 'adm⟨U+200B⟩in@example.test' }).waitFor()
  await admin.page.getByRole('button', { name: 'Delete identity' }).click()
  const dialog = admin.page.getByRole('dialog', { name: 'Delete identity?' })
  const box = dialog.getByRole('textbox', { name: 'Type adm⟨U+200B⟩in@example.test to confirm' })
  const confirm = dialog.getByRole('button', { name: 'Delete', exact: true })
  await box.fill('admin@example.test')
  expect(await confirm.isDisabled()).toBe(true)
  // The field says what makes Delete available; letter case counts, spaces around it (a paste) do not.
  expect(await box.getAttribute('aria-describedby').then((id) => dialog.locator(`#${id}`).textContent())).toBe(
    'Delete is available once it is typed exactly as shown, letter case included (spaces around it do not count).',
  )
  await box.fill('ADM⟨U+200B⟩IN@example.test')
  expect(await confirm.isDisabled()).toBe(true)
  await box.fill(' adm⟨U+200B⟩in@example.test ')
  expect(await confirm.isDisabled()).toBe(false)
  await confirm.click()
  await admin.page.waitForURL(admin.url('/dashboard/identities'))
  expect([kratos.identities.has(zeroWidth.id), [...kratos.identities.values()].some((identity) => identity.traits.email === 'admin@example.test')]).toEqual([false, true])
  expect(admin.problems).toEqual([])
})

// Last in this file: it ends the dashboard sessions of the admin this file signed in.
test('an admin ending their own dashboard sessions is told first that theirs ends too; Cancel keeps it, and once ended this browser goes through the sign-in', async () => {
  const { sandbox } = admin.harness
  const ownId = stored(SANDBOX_USERS.admin)!.id
  const endedAudits = async () => (await sandbox.services.audit.list({ limit: 1000, action: 'sessions_revoke' })).filter((event) => event.target === ownId).length
  const auditsBefore = await endedAudits()
  await openIdentity(SANDBOX_USERS.admin)
  const opener = admin.page.getByRole('button', { name: 'End dashboard sessions' })
  await opener.click()
  const dialog = admin.page.getByRole('dialog', { name: 'End dashboard sessions?' })
  await dialog.getByText('That is your own identity: your session in this browser ends too, and you go through the sign-in again.').waitFor()
  await dialog.getByRole('button', { name: 'Cancel' }).click()
  await dialog.waitFor({ state: 'hidden' })
  expect(await admin.page.evaluate(() => document.activeElement?.textContent)).toBe('End dashboard sessions')
  expect(await admin.page.evaluate(async () => (await fetch('/api/auth/session')).status)).toBe(200)
  expect(await endedAudits()).toBe(auditsBefore)

  const oldCookie = (await admin.context.cookies(sandbox.url)).find((cookie) => cookie.name === 'admin-session')!.value
  await opener.click()
  await dialog.getByRole('button', { name: 'End dashboard sessions' }).click()
  // Through the sign-in: the provider asks, or still knows this browser and sends it straight back
  // with a new session.
  const newSession = async () => (await admin.context.cookies(sandbox.url)).find((cookie) => cookie.name === 'admin-session')?.value
  for (let waited = 0; new URL(admin.page.url()).origin !== sandbox.providerUrl && [oldCookie, undefined].includes(await newSession()); waited += 50) {
    if (waited > 10_000) throw new Error('no sign-in after the own sessions ended')
    await Bun.sleep(50)
  }
  expect(await endedAudits()).toBe(auditsBefore + 1)
  const refused = await fetch(admin.url('/api/auth/session'), { headers: { cookie: `admin-session=${oldCookie}` } })
  expect(refused.status).toBe(401)
  if (new URL(admin.page.url()).origin === sandbox.providerUrl) await signIn(admin.page, sandbox, 'admin')
  await admin.page.getByRole('heading', { level: 1, name: SANDBOX_USERS.admin }).waitFor()
  // Back, the page says what happened, rather than showing the same page as if nothing had.
  await admin.page.getByRole('status').getByText('Your dashboard sessions were ended, here and everywhere else; you are signed in again in this browser.').waitFor()
  expect(await admin.page.evaluate(() => sessionStorage.getItem('admin-dashboard.said-after-sign-in'))).toBeNull()
  expect(await admin.page.evaluate(async () => (await fetch('/api/auth/session')).status)).toBe(200)
  expect(admin.problems.filter((problem) => !problem.includes('401'))).toEqual([])
})
