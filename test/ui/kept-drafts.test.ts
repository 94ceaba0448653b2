// The drafts kept through the sign-in when the session ended at a change, and the notice that says
// what became of them (ui/drafts.ts): whose they are, which forms they hold, and when they go.
import { expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { within } from '../support/eventually.ts'
import { answerQuestions, backThroughSignIn, signIn, signedInPage, useSignedInBrowser, endSession } from './harness.ts'

const admin = useSignedInBrowser('admin', '/dashboard/identities')

const stored = (email: string) => [...admin.harness.sandbox.kratos.identities.values()].find((identity) => identity.traits.email === email)
/** What this tab keeps for the way back from the sign-in: drafts and the notice. */
const keptInTab = (page: Page) => page.evaluate(() => Object.keys(sessionStorage).filter((key) => key.startsWith('admin-dashboard.')).sort())
/** The session ends, and the provider forgets this browser too: the next sign-in asks who it is. */
async function sessionAndProviderGone(page: Page) {
  await endSession(page)
  const context = page.context()
  for (const cookie of await context.cookies(admin.harness.sandbox.providerUrl)) await context.clearCookies({ name: cookie.name })
}

test('the "not saved" notice goes once its kept draft is saved, and a reload does not bring it back', async () => {
  const person = admin.harness.sandbox.kratos.addIdentity({ email: 'notice.used@example.test', name: 'Before' })
  const other = await signedInPage(admin.harness, 'admin', `/dashboard/identities/${person.id}`)
  try {
    const { page: tab } = other
    const traits = tab.getByRole('region', { name: 'Traits' })
    await traits.getByRole('textbox', { name: 'Name', exact: true }).fill('Typed Then Refused')
    await endSession(tab)
    await traits.getByRole('button', { name: 'Save' }).click()
    const notice = tab.getByRole('alert').filter({ hasText: 'it was not saved. Your draft was kept; check it and save again.' })
    await backThroughSignIn(tab, admin.harness.sandbox, notice)
    await traits.getByRole('button', { name: 'Save' }).click()
    await tab.getByRole('status').getByText('Traits saved.').waitFor()
    expect(stored('notice.used@example.test')!.traits.name).toBe('Typed Then Refused')
    expect(await tab.getByRole('alert').filter({ hasText: 'Your session ended' }).count()).toBe(0)
    expect(await keptInTab(tab)).toEqual([])
    // Not on another page either, nor after a reload.
    await tab.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click()
    await tab.getByRole('heading', { level: 1, name: 'Settings' }).waitFor()
    await tab.reload()
    await tab.getByRole('heading', { level: 1, name: 'Settings' }).waitFor()
    expect(await tab.getByRole('alert').filter({ hasText: 'Your session ended' }).count()).toBe(0)
  } finally {
    await other.context.close()
  }
})

test('the "not saved" notice is for the identity whose change was refused: another who signs in next in that tab never sees it, nor does the first after Sign out', async () => {
  const person = admin.harness.sandbox.kratos.addIdentity({ email: 'notice.owner@example.test', name: 'Before' })
  const other = await signedInPage(admin.harness, 'admin', `/dashboard/identities/${person.id}`)
  try {
    const { page: tab } = other
    const traits = tab.getByRole('region', { name: 'Traits' })
    await traits.getByRole('textbox', { name: 'Name', exact: true }).fill('The admin’s draft')
    await sessionAndProviderGone(tab)
    await traits.getByRole('button', { name: 'Save' }).click()
    await signIn(tab, admin.harness.sandbox, 'viewer')
    await tab.getByRole('heading', { level: 1, name: 'No access' }).waitFor()
    expect(await tab.getByRole('alert').filter({ hasText: 'Your session ended' }).count()).toBe(0)
    expect(await keptInTab(tab)).toEqual([])
    expect(JSON.stringify(await tab.evaluate(() => ({ ...sessionStorage })))).not.toContain('The admin’s draft')
    await tab.getByRole('button', { name: 'Sign out' }).click()
    await sessionAndProviderGone(tab)
    await tab.getByRole('link', { name: 'Sign in again' }).click()
    await signIn(tab, admin.harness.sandbox, 'admin')
    await tab.getByRole('heading', { level: 1, name: 'notice.owner@example.test' }).waitFor()
    expect(await tab.getByRole('alert').filter({ hasText: 'Your session ended' }).count()).toBe(0)
    expect(await traits.getByRole('textbox', { name: 'Name', exact: true }).inputValue()).toBe('Before')
  } finally {
    await other.context.close()
  }
})

test('Sign out drops the "not saved" notice: signing in again as the same identity does not show it', async () => {
  const person = admin.harness.sandbox.kratos.addIdentity({ email: 'notice.signout@example.test', name: 'Before' })
  const other = await signedInPage(admin.harness, 'admin', `/dashboard/identities/${person.id}`)
  try {
    const { page: tab } = other
    const questions = answerQuestions(tab)
    questions.answer.ok = true
    const traits = tab.getByRole('region', { name: 'Traits' })
    await tab.getByRole('button', { name: 'Deactivate' }).waitFor()
    await endSession(tab)
    await tab.getByRole('button', { name: 'Deactivate' }).click()
    const notice = tab.getByRole('alert').filter({ hasText: 'it was not saved. Make it again.' })
    await backThroughSignIn(tab, admin.harness.sandbox, notice)
    await traits.waitFor()
    await tab.getByRole('button', { name: 'Sign out' }).click()
    await tab.getByRole('heading', { level: 1, name: 'Signed out' }).waitFor()
    expect(await keptInTab(tab)).toEqual([])
    await tab.getByRole('link', { name: 'Sign in again' }).click()
    await backThroughSignIn(tab, admin.harness.sandbox, tab.getByRole('heading', { level: 1, name: 'notice.signout@example.test' }))
    await traits.waitFor()
    expect(await tab.getByRole('alert').filter({ hasText: 'Your session ended' }).count()).toBe(0)
    questions.stop()
  } finally {
    await other.context.close()
  }
})

test('a change refused because the session ended keeps the unsaved edits of the other forms of the page too, and says which', async () => {
  const person = admin.harness.sandbox.kratos.addIdentity({ email: 'two.forms@example.test', name: 'Before' })
  const other = await signedInPage(admin.harness, 'admin', `/dashboard/identities/${person.id}`)
  try {
    const { page: tab } = other
    const traits = tab.getByRole('region', { name: 'Traits' })
    const adminMetadata = tab.getByRole('region', { name: 'Metadata' }).getByLabel('Admin metadata')
    await traits.getByRole('textbox', { name: 'Name', exact: true }).fill('Both Typed')
    await adminMetadata.fill('{"note": "a long careful note"}')
    await endSession(tab)
    await traits.getByRole('button', { name: 'Save' }).click()
    const notice = tab.getByRole('alert').filter({ hasText: 'it was not saved. Your draft was kept; check it and save again. Your unsaved changes to the metadata were kept too: check them and save.' })
    await backThroughSignIn(tab, admin.harness.sandbox, notice)
    await tab.getByRole('heading', { level: 1, name: 'two.forms@example.test' }).waitFor()
    expect(await traits.getByRole('textbox', { name: 'Name', exact: true }).inputValue()).toBe('Both Typed')
    expect(await adminMetadata.inputValue()).toBe('{"note": "a long careful note"}')
    expect(await keptInTab(tab)).toEqual([])
    // The notice speaks of both drafts: it stays until both are used.
    await traits.getByRole('button', { name: 'Save' }).click()
    await tab.getByRole('status').getByText('Traits saved.').waitFor()
    expect(await notice.count()).toBe(1)
    await tab.getByRole('region', { name: 'Metadata' }).getByRole('button', { name: 'Save' }).click()
    await tab.getByRole('status').getByText('Metadata saved.').waitFor()
    expect(await notice.count()).toBe(0)
    expect(stored('two.forms@example.test')!.metadata_admin).toEqual({ note: 'a long careful note' })
  } finally {
    await other.context.close()
  }
})

test('Deactivate refused because the session ended keeps the traits being edited, and says so', async () => {
  const person = admin.harness.sandbox.kratos.addIdentity({ email: 'deactivate.edit@example.test', name: 'Before' })
  const other = await signedInPage(admin.harness, 'admin', `/dashboard/identities/${person.id}`)
  try {
    const { page: tab } = other
    const traits = tab.getByRole('region', { name: 'Traits' })
    await traits.getByRole('textbox', { name: 'Name', exact: true }).fill('Typed Before Deactivate')
    await endSession(tab)
    await tab.getByRole('button', { name: 'Deactivate' }).click()
    const notice = tab.getByRole('alert').filter({ hasText: 'it was not saved. Make it again. Your unsaved changes to the traits were kept: check them and save.' })
    await backThroughSignIn(tab, admin.harness.sandbox, notice)
    await tab.getByRole('heading', { level: 1, name: 'deactivate.edit@example.test' }).waitFor()
    expect(await traits.getByRole('textbox', { name: 'Name', exact: true }).inputValue()).toBe('Typed Before Deactivate')
    expect(stored('deactivate.edit@example.test')!.state).toBe('active')
  } finally {
    await other.context.close()
  }
})

test('an edit of an encrypted setting refused because the session ended is never kept, Encrypt ticked or not, and the notice says to type it again', async () => {
  const page = admin.page
  await page.goto(admin.url('/dashboard/settings'))
  await page.getByRole('button', { name: 'Add setting' }).click()
  const add = page.getByRole('dialog', { name: 'Add setting' })
  await add.getByLabel('Key', { exact: true }).fill('kept.secret')
  await add.getByLabel('Value', { exact: true }).fill('stored encrypted')
  await add.getByLabel('Encrypt the value').check()
  await add.getByRole('button', { name: 'Save' }).click()
  await page.getByRole('status').getByText('Setting kept.secret saved.').waitFor()
  const other = await signedInPage(admin.harness, 'admin', '/dashboard/settings')
  try {
    const { page: tab } = other
    await tab.getByRole('button', { name: 'Edit kept.secret' }).click()
    const dialog = tab.getByRole('dialog', { name: 'Edit kept.secret' })
    await dialog.getByLabel('Value', { exact: true }).fill('typed in plain')
    await dialog.getByLabel('Encrypt the value').uncheck()
    await endSession(tab)
    await dialog.getByRole('button', { name: 'Save' }).click()
    const notice = tab.getByRole('alert').filter({
      hasText: 'it was not saved. The new value of an encrypted setting is never kept in the browser, so the draft was not kept: make the change again.',
    })
    await backThroughSignIn(tab, admin.harness.sandbox, notice)
    await tab.getByRole('heading', { level: 1, name: 'Settings' }).waitFor()
    expect(await tab.getByRole('dialog').count()).toBe(0)
    expect(JSON.stringify(await tab.evaluate(() => ({ ...sessionStorage })))).not.toContain('typed in plain')
  } finally {
    await other.context.close()
  }
})

test('an API key refused because the session ended is never kept, and the notice says once to type it again', async () => {
  const other = await signedInPage(admin.harness, 'admin', '/dashboard/settings')
  try {
    const { page: tab } = other
    const keys = tab.getByRole('region', { name: 'Upstream API keys' })
    await keys.getByRole('button', { name: 'Set key for oauth', exact: true }).click()
    const dialog = tab.getByRole('dialog', { name: 'API key for /api/oauth' })
    await dialog.getByLabel('API key').fill('ory_pat_never_kept_0123')
    await endSession(tab)
    await dialog.getByRole('button', { name: 'Save' }).click()
    const said = 'Your session ended before your last change reached the server: it was not saved. The API key is never kept in the browser, so the draft was not kept: make the change again.'
    const notice = tab.getByRole('alert').filter({ hasText: said })
    await backThroughSignIn(tab, admin.harness.sandbox, notice)
    expect(await notice.locator('p').first().textContent()).toBe(said)
    expect(JSON.stringify(await tab.evaluate(() => ({ ...sessionStorage })))).not.toContain('ory_pat_never_kept_0123')
    expect(await admin.harness.sandbox.services.settings.getSetting('proxy.oauth.api_key')).toBeNull()
  } finally {
    await other.context.close()
  }
})

test('Save with a recovery link shown after the session ended asks first; Stay keeps the page and writes no draft (nothing old for a later reload to bring back); OK goes and keeps the draft', async () => {
  const person = admin.harness.sandbox.kratos.addIdentity({ email: 'stay.here@example.test', name: 'Before' })
  const other = await signedInPage(admin.harness, 'admin', `/dashboard/identities/${person.id}`)
  try {
    const { page: tab } = other
    const questions = answerQuestions(tab)
    await tab.getByRole('button', { name: 'Create recovery link' }).click()
    await tab.getByRole('textbox', { name: 'Recovery link', exact: true }).waitFor()
    const traits = tab.getByRole('region', { name: 'Traits' })
    const name = traits.getByRole('textbox', { name: 'Name', exact: true })
    await name.fill('Typed First')
    await endSession(tab)
    await traits.getByRole('button', { name: 'Save' }).click()
    await within(5000, () => questions.asked.length > 0)
    await tab.waitForTimeout(300)
    expect(questions.asked.splice(0)).toEqual([
      'confirm: The recovery link is shown only once: leaving this page loses it for good. Your session has ended: go to the sign-in anyway?',
    ])
    expect(new URL(tab.url()).pathname).toBe(`/dashboard/identities/${person.id}`)
    await tab.getByRole('textbox', { name: 'Recovery link', exact: true }).waitFor()
    expect(await keptInTab(tab)).toEqual([])
    // OK this time: to the sign-in with no other question, and back with the draft as typed now.
    await name.fill('Typed Since')
    questions.answer.ok = true
    await traits.getByRole('button', { name: 'Save' }).click()
    const notice = tab.getByRole('alert').filter({ hasText: 'it was not saved. Your draft was kept; check it and save again.' })
    await backThroughSignIn(tab, admin.harness.sandbox, notice)
    expect(await name.inputValue()).toBe('Typed Since')
    expect(questions.asked.splice(0)).toEqual([
      'confirm: The recovery link is shown only once: leaving this page loses it for good. Your session has ended: go to the sign-in anyway?',
    ])
    questions.stop()
  } finally {
    await other.context.close()
  }
})
