// The one status region, where results and outcomes are announced: it speaks of the page shown (what
// was said about a page left goes with it, unless it was said for the navigation itself), and the
// box it shows at the foot of the screen never hides the control that has focus.
import { expect, test } from 'bun:test'
import type { Locator, Page } from 'playwright-core'
import { createIdentityThroughForm, DESKTOP, PHONE, useSignedInBrowser } from './harness.ts'
import { within } from '../support/eventually.ts'

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

test('a filtered list’s count is not left over the next list: "1 message shown." goes when a message opens, and is not over the whole list the menu leads to', async () => {
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
  // The breadcrumb leads back to the filtered list; the menu to the whole one.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Messages' }).click()
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

/**
 * Where the control that has focus stands, once the page has drawn the frames after the last key:
 * whether it is inside the screen, and whether the status box (with a message in it) covers any of it.
 */
async function focusInSight(page: Page): Promise<{ focused: string; message: string; inView: boolean; underTheBox: boolean }> {
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))))
  const status = page.getByRole('status')
  const box = (await status.boundingBox())!
  const focused = page.locator(':focus')
  const control = (await focused.boundingBox())!
  const height = page.viewportSize()!.height
  return {
    focused: (await focused.getAttribute('aria-label')) ?? (await focused.textContent()) ?? '',
    message: (await status.textContent()) ?? '',
    // A pixel's rounding aside.
    inView: control.y >= -1 && control.y + control.height <= height + 1,
    underTheBox: control.y + control.height > box.y && control.y < box.y + box.height && control.x + control.width > box.x && control.x < box.x + box.width,
  }
}

/**
 * The Sessions page at this size, where Kratos leaves every session as it is: each Extend says so
 * in a long message (several lines on a phone), which stays in the status box for its seconds.
 */
async function onSessionsKratosWontExtend(viewport: { width: number; height: number }, run: (table: Locator) => Promise<void>): Promise<void> {
  const { page } = admin
  const { kratos } = admin.harness.sandbox
  await page.setViewportSize(viewport)
  kratos.earliestPossibleExtendMs = 60 * 60 * 1000
  try {
    await page.goto(admin.url('/dashboard/sessions'))
    await run(page.getByRole('table', { name: 'Active sessions' }))
  } finally {
    kratos.earliestPossibleExtendMs = null
    await page.setViewportSize(DESKTOP)
  }
}

for (const [size, viewport] of [
  ['1280 px', DESKTOP],
  ['390 px', PHONE],
] as const) {
  test(`at ${size} the status box never hides the control that has focus: a message over a focused Extend, Tab down the list under a message, the pager at the end of the page`, () =>
    onSessionsKratosWontExtend(viewport, async (table) => {
      const { page } = admin
      await table.waitFor()
      const said = /^Kratos did not extend the session of /
      const extendButtons = table.getByRole('button', { name: /^Extend session of / })
      const clear = { inView: true, underTheBox: false }

      // A message that appears over the focused control (pressed at the foot of the screen): the page moves it clear.
      const low = extendButtons.nth(8)
      await low.evaluate((button) => {
        button.scrollIntoView({ block: 'end' })
        ;(button as HTMLElement).focus({ preventScroll: true })
      })
      await page.keyboard.press('Enter')
      await page.getByRole('status').getByText(said).waitFor()
      expect(await focusInSight(page)).toMatchObject({ ...clear, focused: await low.getAttribute('aria-label'), message: expect.stringMatching(said) })

      // Tab on down the list while the message shows: each control the browser scrolls to is clear of the box.
      for (let step = 0; step < 6; step++) {
        await page.keyboard.press('Tab')
        expect(await focusInSight(page)).toMatchObject({ ...clear, message: expect.stringMatching(said) })
      }

      // At the end of the page: the last row's Extend, then the pager's controls under its message.
      const last = extendButtons.last()
      await last.focus()
      await page.keyboard.press('Enter')
      await page.getByRole('status').getByText(said).waitFor()
      expect(await focusInSight(page)).toMatchObject({ ...clear, focused: await last.getAttribute('aria-label') })
      await page.getByRole('button', { name: 'Next page' }).focus()
      expect(await focusInSight(page)).toMatchObject({ ...clear, focused: 'Next page', message: expect.stringMatching(said) })
      await page.keyboard.press('Tab')
      expect(await focusInSight(page)).toMatchObject({ ...clear, message: expect.stringMatching(said) })
      expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('SELECT')
      expect(admin.problems).toEqual([])
    }),
  )
}

test('a save refused in the form (an e-mail that is none) takes away an earlier “saved” of another section: the two would read as if this one was saved', async () => {
  const { page } = admin
  const person = admin.harness.sandbox.kratos.addIdentity({ email: 'refused.after.saved@example.test', name: 'Refused After Saved' })
  await page.goto(admin.url(`/dashboard/identities/${person.id}`))
  await page.getByRole('heading', { level: 1, name: 'refused.after.saved@example.test' }).waitFor()
  const metadata = page.getByRole('region', { name: 'Metadata' })
  await metadata.getByLabel('Public metadata').fill('{"plan": "team"}')
  await metadata.getByRole('button', { name: 'Save' }).click()
  await page.getByRole('status').getByText('Metadata saved.').waitFor()
  const traits = page.getByRole('region', { name: 'Traits' })
  const email = traits.getByRole('textbox', { name: /e-?mail/i })
  await email.fill('not-an-email')
  await traits.getByRole('button', { name: 'Save' }).click()
  await page.waitForFunction(() => document.activeElement?.getAttribute('aria-invalid') === 'true')
  expect(await statusText()).toBe('')
  expect(admin.harness.sandbox.kratos.identities.get(person.id)!.traits.email).toBe('refused.after.saved@example.test')
  // And the other way: traits saved, then metadata that is not JSON.
  await email.fill('refused.after.saved@example.test')
  await traits.getByRole('textbox', { name: 'Name', exact: true }).fill('Saved Again')
  await traits.getByRole('button', { name: 'Save' }).click()
  await page.getByRole('status').getByText('Traits saved.').waitFor()
  await metadata.getByLabel('Public metadata').fill('{ not json')
  await metadata.getByRole('button', { name: 'Save' }).click()
  await metadata.getByText(/Enter a JSON object/).waitFor()
  expect(await statusText()).toBe('')
  admin.harness.sandbox.kratos.identities.delete(person.id)
  expect(admin.problems).toEqual([])
})

test('on a phone the status box takes no tap: what it covers for its seconds is reached through it', () =>
  onSessionsKratosWontExtend(PHONE, async (table) => {
    const { page } = admin
    const { kratos } = admin.harness.sandbox
    await table.getByRole('button', { name: /^Extend session of / }).first().click()
    const box = page.getByRole('status')
    await box.getByText(/^Kratos did not extend the session of /).waitFor()
    // Scrolled so that a row's Extend lies under the box.
    const under = await page.evaluate(async () => {
      const status = document.querySelector<HTMLElement>('[role="status"]')!
      for (let step = 0; step < 200; step++) {
        const area = status.getBoundingClientRect()
        const covered = [...document.querySelectorAll<HTMLButtonElement>('main button')].find((button) => {
          const r = button.getBoundingClientRect()
          return r.top < area.bottom && r.bottom > area.top && r.left < area.right && r.right > area.left
        })
        if (covered) {
          const r = covered.getBoundingClientRect()
          const x = Math.max(r.left, area.left) + 2
          const y = Math.max(r.top, area.top) + 2
          return { label: covered.getAttribute('aria-label') ?? covered.textContent, x, y, hit: document.elementFromPoint(x, y)?.closest('button')?.getAttribute('aria-label') ?? null }
        }
        window.scrollBy(0, 20)
        await new Promise((resolve) => requestAnimationFrame(resolve))
      }
      return null
    })
    expect(under).not.toBeNull()
    expect(under!.hit).toBe(under!.label)
    const before = kratos.calls.filter((call) => call.method === 'PATCH' && call.path.includes('/extend')).length
    await page.mouse.click(under!.x, under!.y)
    await within(5000, async () => kratos.calls.filter((call) => call.method === 'PATCH' && call.path.includes('/extend')).length > before)
    expect(kratos.calls.filter((call) => call.method === 'PATCH' && call.path.includes('/extend')).length).toBe(before + 1)
    expect(admin.problems).toEqual([])
  }),
)
