// Settings, Audit log, Security and the customizable Overview, as an administrator uses them;
// each outcome is checked where it lands (the service's store, the identity store's recorded calls,
// another browser's session).
import { beforeAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { SANDBOX_USERS } from '../../dev/sandbox.ts'
import { within } from '../support/eventually.ts'
import { answerQuestions, backThroughSignIn, DESKTOP, holdRequests, PHONE, SCREENSHOT_DIR, sidewaysScroll, signedInPage, signIn, sweep, tabTo, useSignedInBrowser, endSession } from './harness.ts'

const admin = useSignedInBrowser('admin', '/dashboard/settings')
/** Every response body the admin's browser received, to prove a stored key never comes back. */
const bodies: string[] = []

beforeAll(() => {
  admin.context.on('response', (response) => {
    response
      .text()
      .then((text) => bodies.push(text))
      .catch(() => {})
  })
})

const settingsRow = (key: string) => admin.page.getByRole('row').filter({ has: admin.page.getByRole('rowheader', { name: key, exact: true }) })
const identityIdOf = (email: string) => [...admin.harness.sandbox.kratos.identities.values()].find((identity) => identity.traits.email === email)!.id

test('an admin adds a setting in a category, edits it and deletes it after confirming', async () => {
  await admin.page.goto(admin.url('/dashboard/settings'))
  await admin.page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor()
  await admin.page.getByRole('button', { name: 'Add setting' }).click()
  const dialog = admin.page.getByRole('dialog', { name: 'Add setting' })
  await dialog.getByRole('textbox', { name: 'Key' }).fill('bad key!')
  await dialog.getByRole('button', { name: 'Save' }).click()
  await dialog.getByText(/Use letters, digits/).waitFor()
  await dialog.getByRole('textbox', { name: 'Key' }).fill('mail.from_name')
  await dialog.getByRole('textbox', { name: 'Value' }).fill('Identity Team')
  await dialog.getByRole('textbox', { name: 'Category' }).fill('mail')
  await dialog.getByRole('button', { name: 'Save' }).click()
  await admin.page.getByRole('status').getByText('Setting mail.from_name saved.').waitFor()
  const group = admin.page.getByRole('region', { name: 'mail' })
  await group.getByRole('cell', { name: 'Identity Team' }).waitFor()
  expect((await admin.harness.sandbox.services.settings.list()).find((s) => s.key === 'mail.from_name')).toMatchObject({ value: 'Identity Team', category: 'mail', encrypted: false })

  // As a person does, once the list read again after the save is shown: a click on a row while it
  // is redrawn is not this test's question (under a loaded CI machine it once found no Edit to open).
  await admin.page.waitForFunction(() => document.querySelector('[aria-busy="true"]') === null)
  await admin.page.getByRole('button', { name: 'Edit mail.from_name' }).click()
  const edit = admin.page.getByRole('dialog', { name: 'Edit mail.from_name' })
  await edit.getByRole('textbox', { name: 'Value' }).fill('Platform Team')
  await edit.getByRole('button', { name: 'Save' }).click()
  await group.getByRole('cell', { name: 'Platform Team' }).waitFor()
  expect((await admin.harness.sandbox.services.settings.list()).find((s) => s.key === 'mail.from_name')?.value).toBe('Platform Team')

  await admin.page.getByRole('button', { name: 'Delete mail.from_name' }).click()
  const confirm = admin.page.getByRole('dialog', { name: 'Delete setting?' })
  await confirm.getByRole('button', { name: 'Cancel' }).click()
  expect((await admin.harness.sandbox.services.settings.list()).some((s) => s.key === 'mail.from_name')).toBe(true)
  await admin.page.getByRole('button', { name: 'Delete mail.from_name' }).click()
  // Pressed twice: one request.
  const deletes: string[] = []
  const count = (request: { method(): string; url(): string }) => {
    if (request.method() === 'DELETE') deletes.push(new URL(request.url()).pathname)
  }
  admin.page.on('request', count)
  await confirm.getByRole('button', { name: 'Delete' }).dblclick()
  await admin.page.getByRole('status').getByText('Setting mail.from_name deleted.').waitFor()
  await admin.page.waitForFunction(() => !document.querySelector('main [aria-busy="true"]'))
  admin.page.off('request', count)
  expect(deletes).toEqual(['/api/settings/mail.from_name'])
  expect((await admin.harness.sandbox.services.settings.list()).some((s) => s.key === 'mail.from_name')).toBe(false)
  expect(await admin.page.getByRole('region', { name: 'mail' }).count()).toBe(0)
})

test('a long value (up to 64 KiB) is shown cut after its first lines, with Show all and Show less, from the keyboard too; a revealed one as well', async () => {
  const { settings } = admin.harness.sandbox.services
  const lines = Array.from({ length: 1000 }, (_, n) => `line ${n + 1}: ${'x'.repeat(40)} 😀`)
  const value = lines.join('\n')
  await settings.write({ key: 'templates.long', value, category: 'long values' }, null)
  await settings.write({ key: 'templates.long_secret', value, encrypted: true, category: 'long values' }, null)
  try {
    const page = admin.page
    await page.goto(admin.url('/dashboard/settings'))
    const row = settingsRow('templates.long')
    const shown = row.locator('td.value .multiline')
    await shown.waitFor()
    const cut = await shown.evaluate((element) => (element as HTMLElement).innerText)
    expect(cut.endsWith('…')).toBe(true)
    expect(cut.split('\n')).toHaveLength(6)
    expect(value.startsWith(cut.slice(0, -1))).toBe(true)
    // Six lines, each wrapped a few times at most in the value's column (its width depends on how long
    // the time beside it is): not the thousand lines of the value.
    const { height, line } = await shown.evaluate((element) => ({ height: element.getBoundingClientRect().height, line: parseFloat(getComputedStyle(element).lineHeight) }))
    expect(height).toBeLessThan(line * 6 * 4)
    const more = page.getByRole('button', { name: `Show all of templates.long (${Array.from(value).length.toLocaleString('en')} characters)` })
    expect(await more.getAttribute('aria-expanded')).toBe('false')
    await more.focus()
    await page.keyboard.press('Enter')
    const less = page.getByRole('button', { name: 'Show less of templates.long' })
    await less.waitFor()
    expect(await less.getAttribute('aria-expanded')).toBe('true')
    expect(await shown.evaluate((element) => (element as HTMLElement).innerText)).toBe(value)
    // Focus stays on the button, for the way back.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Show less of templates.long')
    await page.keyboard.press('Enter')
    await more.waitFor()
    expect(await shown.evaluate((element) => (element as HTMLElement).innerText)).toBe(cut)
    // Revealed through the audited read: cut the same way.
    await page.getByRole('button', { name: 'Reveal templates.long_secret' }).click()
    const revealed = settingsRow('templates.long_secret').getByTestId('revealed')
    await revealed.getByRole('button', { name: /^Show all of templates\.long_secret/ }).waitFor()
    expect(await revealed.locator('.multiline').evaluate((element) => (element as HTMLElement).innerText)).toBe(cut)
    expect(await sweep(page, 'settings-long-value', () => more.waitFor())).toEqual([])
    expect(admin.problems).toEqual([])
  } finally {
    await settings.remove('templates.long', null)
    await settings.remove('templates.long_secret', null)
  }
})

test('at 1280 px a setting’s key stays whole beside a long value, or breaks only after a dot, and its time stays on one line', async () => {
  const { settings } = admin.harness.sandbox.services
  const keys = ['notify.from_name', 'integrations.webhooks.customer_notifications.retry_interval_seconds', 'relay.password']
  await settings.write({ key: keys[0]!, value: 'Support Team '.repeat(40), category: 'wide keys' }, null)
  await settings.write({ key: keys[1]!, value: '30', category: 'wide keys' }, null)
  await settings.write({ key: keys[2]!, value: 'a-secret-of-some-length', encrypted: true, category: 'wide keys' }, null)
  try {
    const page = admin.page
    await page.setViewportSize(DESKTOP)
    await page.goto(admin.url('/dashboard/settings'))
    await settingsRow(keys[1]!).waitFor()
    await page.getByRole('button', { name: `Reveal ${keys[2]}` }).click()
    await settingsRow(keys[2]!).getByTestId('revealed').waitFor()
    /** The characters after which the rendered text goes on to a new line. */
    const breaksIn = (cell: import('playwright-core').Locator) =>
      cell.evaluate((element) => {
        const after: string[] = []
        let previous: { char: string; top: number } | null = null
        const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT, { acceptNode: (node) => (node.parentElement?.closest('.cell-label') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT) })
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          for (let i = 0; i < node.textContent!.length; i++) {
            const range = document.createRange()
            range.setStart(node, i)
            range.setEnd(node, i + 1)
            const top = range.getBoundingClientRect().top
            if (previous && top > previous.top + 2) after.push(previous.char)
            previous = { char: node.textContent![i]!, top }
          }
        }
        return after
      })
    const rowheader = (key: string) => settingsRow(key).getByRole('rowheader')
    expect(await breaksIn(rowheader(keys[0]!))).toEqual([])
    expect(await breaksIn(rowheader(keys[2]!))).toEqual([])
    const long = await breaksIn(rowheader(keys[1]!))
    expect(long.length).toBeGreaterThan(0)
    expect(long.filter((char) => char !== '.')).toEqual([])
    // The key reads as it is: the break opportunities add no text.
    expect(await rowheader(keys[1]!).textContent()).toBe(keys[1]!)
    for (const key of keys) expect(await breaksIn(settingsRow(key).locator('td.setting-time'))).toEqual([])
    expect(await sweep(page, 'settings-wide-keys', () => page.getByRole('heading', { level: 2, name: 'wide keys' }).scrollIntoViewIfNeeded())).toEqual([])
    expect(admin.problems).toEqual([])
  } finally {
    for (const key of keys) await settings.remove(key, null)
  }
})

test('on a phone a long value keeps the card’s width beside its name, with Show all under it, and a category of 64 characters without a space wraps instead of scrolling the page sideways', async () => {
  const { settings } = admin.harness.sandbox.services
  const category = 'com.example.platform.identity.integrations.salesforce.production'
  await settings.write({ key: 'integrations.salesforce.mapping', value: 'field mapping, '.repeat(60), category }, null)
  try {
    await admin.page.setViewportSize({ width: 390, height: 844 })
    await admin.page.goto(admin.url('/dashboard/settings'))
    await admin.page.getByRole('heading', { level: 2, name: category }).waitFor()
    const row = settingsRow('integrations.salesforce.mapping')
    const more = row.getByRole('button', { name: /^Show all of integrations\.salesforce\.mapping/ })
    await more.waitFor()
    expect(await sidewaysScroll(admin.page)).toBe(0)
    const cell = (await row.locator('td.value').boundingBox())!
    const value = (await row.locator('td.value .multiline').boundingBox())!
    const label = (await row.locator('td.value .cell-label').boundingBox())!
    // The value has the column beside its name, not a sliver of it; the button sits under the value, not under the name.
    expect(value.x).toBeGreaterThan(label.x + label.width)
    expect(value.width).toBeGreaterThan(cell.width / 2)
    expect((await more.boundingBox())!.x).toBeGreaterThanOrEqual(value.x)
    const heading = (await admin.page.getByRole('heading', { level: 2, name: category }).boundingBox())!
    expect(heading.x + heading.width).toBeLessThanOrEqual(390)
    expect(admin.problems).toEqual([])
  } finally {
    await admin.page.setViewportSize({ width: 1280, height: 900 })
    await settings.remove('integrations.salesforce.mapping', null)
  }
})

test('a value of several lines keeps its lines in the list; Edit opens with focus on Value, the key being fixed', async () => {
  const value = '{\n  "plan": "team",\n  "seats": 25\n}'
  await admin.page.goto(admin.url('/dashboard/settings'))
  await admin.page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor()
  await admin.page.getByRole('button', { name: 'Add setting' }).click()
  const dialog = admin.page.getByRole('dialog', { name: 'Add setting' })
  // Adding, the key comes first.
  expect(await admin.page.evaluate(() => document.activeElement?.id)).toBe('setting-key')
  await dialog.getByRole('textbox', { name: 'Key' }).fill('billing.defaults')
  await dialog.getByRole('textbox', { name: 'Value' }).fill(value)
  await dialog.getByRole('button', { name: 'Save' }).click()
  await admin.page.getByRole('status').getByText('Setting billing.defaults saved.').waitFor()
  expect((await admin.harness.sandbox.services.settings.list()).find((s) => s.key === 'billing.defaults')?.value).toBe(value)
  for (const size of [{ width: 1280, height: 900 }, { width: 390, height: 844 }]) {
    await admin.page.setViewportSize(size)
    // As shown: innerText keeps a line break only where the page shows one.
    const shown = await settingsRow('billing.defaults').locator('td.value .multiline').evaluate((element) => (element as HTMLElement).innerText)
    expect([size.width, shown]).toEqual([size.width, value])
  }
  await admin.page.setViewportSize({ width: 1280, height: 900 })
  await admin.page.getByRole('button', { name: 'Edit billing.defaults' }).click()
  const edit = admin.page.getByRole('dialog', { name: 'Edit billing.defaults' })
  await edit.waitFor()
  expect(await admin.page.evaluate(() => document.activeElement?.id)).toBe('setting-value')
  expect(await edit.getByRole('textbox', { name: 'Value' }).inputValue()).toBe(value)
  await admin.page.keyboard.press('Escape')
  await edit.waitFor({ state: 'hidden' })
  expect(await admin.page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Edit billing.defaults')
  await admin.harness.sandbox.services.settings.remove('billing.defaults', null)
})

test('Add setting with a key that exists is refused on the Key field and sends nothing; the stored setting is unchanged', async () => {
  const { settings } = admin.harness.sandbox.services
  await settings.write({ key: 'smtp.relay_password', value: 'relay-secret-42', encrypted: true, category: 'mail' }, null)
  const before = (await settings.list()).find((s) => s.key === 'smtp.relay_password')!
  await admin.page.goto(admin.url('/dashboard/settings'))
  await settingsRow('smtp.relay_password').waitFor()
  const writes: string[] = []
  const record = (request: { method(): string; url(): string }) => {
    if (request.method() !== 'GET' && new URL(request.url()).pathname.startsWith('/api/settings')) writes.push(`${request.method()} ${request.url()}`)
  }
  admin.page.on('request', record)
  try {
    await admin.page.getByRole('button', { name: 'Add setting' }).click()
    const dialog = admin.page.getByRole('dialog', { name: 'Add setting' })
    const key = dialog.getByRole('textbox', { name: 'Key' })
    await key.fill('smtp.relay_password')
    await dialog.getByRole('textbox', { name: 'Value' }).fill('now in plain text')
    await dialog.getByRole('button', { name: 'Save' }).click()
    const error = dialog.getByText('A setting with this key exists; edit it instead.')
    await error.waitFor()
    // The message belongs to the field: a screen reader reads it with Key, and focus is there.
    expect(await key.getAttribute('aria-invalid')).toBe('true')
    expect(await key.getAttribute('aria-describedby')).toBe(await error.getAttribute('id'))
    expect(await key.evaluate((element) => element === document.activeElement)).toBe(true)
    await admin.page.screenshot({ path: join(SCREENSHOT_DIR, 'settings-add-existing-key.png') })
    await dialog.getByRole('button', { name: 'Cancel' }).click()
  } finally {
    admin.page.off('request', record)
  }
  expect(writes).toEqual([])
  expect((await settings.list()).find((s) => s.key === 'smtp.relay_password')).toEqual(before)
  await settingsRow('smtp.relay_password').getByRole('button', { name: 'Reveal smtp.relay_password' }).waitFor()
  expect(admin.problems).toEqual([])
})

test('Add with a key added elsewhere since the list loaded, or while the list is still loading, is refused by the service: nothing is overwritten and the list shows it', async () => {
  const { settings } = admin.harness.sandbox.services
  await admin.page.goto(admin.url('/dashboard/settings'))
  // The list has arrived (without the key).
  await admin.page.getByRole('region', { name: 'Upstream API keys' }).waitFor()
  // Another operator, or `admin-dashboard settings set` on the host, adds the key now.
  await settings.write({ key: 'smtp.api_password', value: 'stored-elsewhere-77', encrypted: true, category: 'mail' }, null)
  const before = (await settings.list()).find((s) => s.key === 'smtp.api_password')!
  await admin.page.getByRole('button', { name: 'Add setting' }).click()
  const dialog = admin.page.getByRole('dialog', { name: 'Add setting' })
  const key = dialog.getByRole('textbox', { name: 'Key' })
  await key.fill('smtp.api_password')
  await dialog.getByRole('textbox', { name: 'Value' }).fill('typed in plain text')
  await dialog.getByRole('button', { name: 'Save' }).click()
  const error = dialog.getByText('A setting with this key exists; edit it instead.')
  await error.waitFor()
  expect(await key.getAttribute('aria-invalid')).toBe('true')
  expect(await key.getAttribute('aria-describedby')).toBe(await error.getAttribute('id'))
  expect(await key.evaluate((element) => element === document.activeElement)).toBe(true)
  expect((await settings.list()).find((s) => s.key === 'smtp.api_password')).toEqual(before)
  await dialog.getByRole('button', { name: 'Cancel' }).click()
  // The list was read again: the setting is there to edit.
  await settingsRow('smtp.api_password').getByRole('button', { name: 'Edit smtp.api_password' }).waitFor()

  // The list has not arrived yet: only the service can tell.
  const held = await holdRequests(admin.page, (url) => url.pathname === '/api/settings')
  try {
    await admin.page.goto(admin.url('/dashboard/settings'))
    await admin.page.getByRole('button', { name: 'Add setting' }).click()
    await key.fill('smtp.api_password')
    await dialog.getByRole('textbox', { name: 'Value' }).fill('typed while loading')
    await dialog.getByRole('button', { name: 'Save' }).click()
    await error.waitFor()
    expect((await settings.list()).find((s) => s.key === 'smtp.api_password')).toEqual(before)
  } finally {
    await held.stop()
  }
  await dialog.getByRole('button', { name: 'Cancel' }).click()
  await settingsRow('smtp.api_password').waitFor()
  // Each refusal is the service's 412 in the console, and nothing else is.
  expect(admin.problems.splice(0)).toEqual([expect.stringContaining('status of 412'), expect.stringContaining('status of 412')])
})

test('Edit of a setting deleted elsewhere since the page loaded does not bring it back; the dialog keeps what was typed and says so', async () => {
  const { settings } = admin.harness.sandbox.services
  await settings.write({ key: 'feature.old_banner', value: 'on', category: 'features' }, null)
  await admin.page.goto(admin.url('/dashboard/settings'))
  await settingsRow('feature.old_banner').getByRole('button', { name: 'Edit feature.old_banner' }).click()
  const dialog = admin.page.getByRole('dialog', { name: 'Edit feature.old_banner' })
  await dialog.getByRole('textbox', { name: 'Value' }).fill('off')
  await settings.remove('feature.old_banner', null)
  await dialog.getByRole('button', { name: 'Save' }).click()
  await dialog.getByRole('alert').getByText('Not saved: this setting was deleted since the page loaded. To keep it, add it again with Add setting.').waitFor()
  expect(await dialog.getByRole('textbox', { name: 'Value' }).inputValue()).toBe('off')
  expect((await settings.list()).some((s) => s.key === 'feature.old_banner')).toBe(false)
  await admin.page.screenshot({ path: join(SCREENSHOT_DIR, 'settings-edit-deleted-meanwhile.png') })
  await dialog.getByRole('button', { name: 'Cancel' }).click()
  await settingsRow('feature.old_banner').waitFor({ state: 'detached' })
  // The setting read again before the write found it gone (the write itself would answer 412).
  expect(admin.problems.splice(0)).toEqual([expect.stringContaining('status of 404')])
})

test('an encrypted value is masked, revealed through the audited read, masked again after 30 s; the reveal is in the audit log', async () => {
  await admin.page.clock.install()
  await admin.page.goto(admin.url('/dashboard/settings'))
  await admin.page.getByRole('button', { name: 'Add setting' }).click()
  const dialog = admin.page.getByRole('dialog', { name: 'Add setting' })
  await dialog.getByRole('textbox', { name: 'Key' }).fill('smtp.password')
  await dialog.getByRole('textbox', { name: 'Value' }).fill('hunter2-smtp')
  await dialog.getByRole('textbox', { name: 'Category' }).fill('mail')
  await dialog.getByRole('checkbox', { name: 'Encrypt the value' }).check()
  await dialog.getByRole('button', { name: 'Save' }).click()
  const row = settingsRow('smtp.password')
  await row.getByRole('button', { name: 'Reveal smtp.password' }).waitFor()
  const stored = (await admin.harness.sandbox.services.settings.list()).find((s) => s.key === 'smtp.password')!
  expect(stored.encrypted).toBe(true)
  expect(stored.value).not.toContain('hunter2')
  expect(await row.textContent()).not.toContain('hunter2-smtp')
  expect(await row.textContent()).not.toContain(stored.value)

  // The page's clock stands still from here, so the time the value stays shown is the clock's alone.
  await admin.page.clock.pauseAt(Date.now() + 1_000)
  await row.getByRole('button', { name: 'Reveal smtp.password' }).click()
  await row.getByText('hunter2-smtp').waitFor()
  // Still shown just before 30 s, masked at 30 s.
  await admin.page.clock.runFor(29_900)
  expect(await row.textContent()).toContain('hunter2-smtp')
  await admin.page.clock.runFor(100)
  await row.getByRole('button', { name: 'Reveal smtp.password' }).waitFor()
  expect(await row.textContent()).not.toContain('hunter2-smtp')
  await admin.page.clock.resume()

  // Revealed again, then leaving the page masks it too.
  await row.getByRole('button', { name: 'Reveal smtp.password' }).click()
  await row.getByText('hunter2-smtp').waitFor()
  await admin.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click()
  await admin.page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor()
  expect(await admin.page.getByText('hunter2-smtp').count()).toBe(0)
  await admin.page.getByRole('combobox', { name: 'Action' }).selectOption('settings_decrypt_read')
  const table = admin.page.getByRole('table')
  // Until the filtered page arrives the table still lists the setting's creation too.
  await admin.page.waitForFunction(() => {
    const actions = [...document.querySelectorAll('main table tbody tr td:nth-child(3)')].map((cell) => cell.textContent)
    return actions.length > 0 && actions.every((action) => action === 'settings decrypt read')
  })
  await table.getByRole('cell', { name: 'smtp.password' }).first().waitFor()
  const actions = await table.locator('tbody tr td:nth-child(3)').allTextContents()
  expect(new Set(actions)).toEqual(new Set(['settings decrypt read']))
  // Its two reveals (other tests reveal other settings).
  expect(await table.getByRole('cell', { name: 'smtp.password', exact: true }).count()).toBe(2)
  expect(await admin.page.content()).not.toContain('hunter2-smtp')
  await admin.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click()
  await admin.page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor()
  await settingsRow('smtp.password').getByRole('button', { name: 'Reveal smtp.password' }).waitFor()
})

test('Reveal pressed twice while the answer is slow reads (and audits) the value once; a new value saved while it is revealed is masked again, and Reveal shows the new one', async () => {
  const { settings, audit } = admin.harness.sandbox.services
  await settings.write({ key: 'captcha.secret', value: 'captcha-old-0001', encrypted: true, category: 'captcha' }, null)
  await admin.page.goto(admin.url('/dashboard/settings'))
  const row = settingsRow('captcha.secret')
  const reveal = row.getByRole('button', { name: 'Reveal captcha.secret' })
  await reveal.waitFor()
  const reads: string[] = []
  const count = (request: { url(): string }) => {
    if (new URL(request.url()).searchParams.get('decrypt') === 'true') reads.push(request.url())
  }
  admin.page.on('request', count)
  const slow = await holdRequests(admin.page, (url) => url.searchParams.get('decrypt') === 'true')
  try {
    await reveal.dblclick()
    await reveal.press('Enter')
    slow.release()
    await row.getByText('captcha-old-0001').waitFor()
  } finally {
    await slow.stop()
    admin.page.off('request', count)
  }
  expect(reads.length).toBe(1)
  expect((await audit.list({ limit: 1000, action: 'settings_decrypt_read' })).filter((event) => event.target === 'captcha.secret').length).toBe(1)

  await row.getByRole('button', { name: 'Edit captcha.secret' }).click()
  const dialog = admin.page.getByRole('dialog', { name: 'Edit captcha.secret' })
  await dialog.getByRole('textbox', { name: 'Value' }).fill('captcha-new-0002')
  await dialog.getByRole('button', { name: 'Save' }).click()
  await admin.page.getByRole('status').getByText('Setting captcha.secret saved.').waitFor()
  // What was revealed was the old value: the row does not go on showing it as the setting's.
  await reveal.waitFor()
  expect(await row.textContent()).not.toContain('captcha-old-0001')
  await reveal.click()
  await row.getByText('captcha-new-0002').waitFor()
  expect(admin.problems).toEqual([])
})

test('a setting or an API key deleted elsewhere first (another tab, the command line): Delete and Remove say it already was, and the row goes', async () => {
  const { settings } = admin.harness.sandbox.services
  await settings.write({ key: 'feature.beta_banner', value: 'on', category: 'features' }, null)
  await settings.write({ key: 'proxy.oauth-admin.api_key', value: 'ory_pat_doomed-0123456789', encrypted: true, category: 'proxy' }, null)
  await admin.page.goto(admin.url('/dashboard/settings'))
  const row = settingsRow('feature.beta_banner')
  await row.waitFor()
  await row.getByRole('button', { name: 'Delete feature.beta_banner' }).click()
  await settings.remove('feature.beta_banner', null)
  const confirm = admin.page.getByRole('dialog', { name: 'Delete setting?' })
  await confirm.getByRole('button', { name: 'Delete' }).click()
  await admin.page.getByRole('status').getByText('Setting feature.beta_banner had already been deleted.').waitFor()
  await row.waitFor({ state: 'detached' })
  expect(await confirm.isVisible()).toBe(false)

  const keys = admin.page.getByRole('region', { name: 'Upstream API keys' })
  const keyRow = keys.getByRole('row').filter({ has: admin.page.getByRole('rowheader', { name: '/api/oauth-admin', exact: true }) })
  await keyRow.getByRole('button', { name: 'Remove key for oauth-admin' }).click()
  await settings.remove('proxy.oauth-admin.api_key', null)
  const remove = admin.page.getByRole('dialog', { name: 'Remove API key?' })
  await remove.getByRole('button', { name: 'Remove' }).click()
  await admin.page.getByRole('status').getByText('API key for oauth-admin had already been removed.').waitFor()
  await keyRow.getByText('No key').waitFor()
  expect(await remove.isVisible()).toBe(false)
  // Each refused DELETE is in the console, and nothing else is.
  expect(admin.problems.splice(0)).toEqual([expect.stringContaining('status of 404'), expect.stringContaining('status of 404')])
})

test('a Save answered after Escape leaves alone the dialog opened since and what is typed in it; its outcome, saved or not, is announced', async () => {
  const { settings } = admin.harness.sandbox.services
  await settings.write({ key: 'mail.reply_to', value: 'support@example.test', category: 'mail' }, null)
  await settings.write({ key: 'mail.footer', value: 'Thanks', category: 'mail' }, null)
  await admin.page.goto(admin.url('/dashboard/settings'))
  await settingsRow('mail.footer').waitFor()
  const writes = (url: URL) => url.pathname === '/api/settings'
  const saved = await holdRequests(admin.page, writes, 'POST')
  const second = admin.page.getByRole('dialog', { name: 'Edit mail.footer' })
  try {
    await admin.page.getByRole('button', { name: 'Edit mail.reply_to' }).click()
    const first = admin.page.getByRole('dialog', { name: 'Edit mail.reply_to' })
    await first.getByRole('textbox', { name: 'Value' }).fill('help@example.test')
    await first.getByRole('button', { name: 'Save' }).click()
    await admin.page.keyboard.press('Escape')
    await admin.page.getByRole('button', { name: 'Edit mail.footer' }).click()
    const typing = second.getByRole('textbox', { name: 'Value' })
    await typing.fill('Kind regards, the platform team')
    saved.release()
    await admin.page.getByRole('status').getByText('Setting mail.reply_to saved.').waitFor()
    await settingsRow('mail.reply_to').getByRole('cell', { name: 'help@example.test' }).waitFor()
    expect(await second.isVisible()).toBe(true)
    expect(await typing.inputValue()).toBe('Kind regards, the platform team')
  } finally {
    await saved.stop()
  }

  // This one does not reach the service; the person has gone on to the API keys meanwhile.
  const unreached = await holdRequests(admin.page, writes, 'POST')
  try {
    await second.getByRole('button', { name: 'Save' }).click()
    await admin.page.keyboard.press('Escape')
    await admin.page.getByRole('button', { name: 'Set key for idp', exact: true }).click()
    const keyDialog = admin.page.getByRole('dialog', { name: 'API key for /api/idp' })
    await keyDialog.getByLabel('API key').fill('ory_pat_typed-meanwhile')
    unreached.release('abort')
    await admin.page.getByRole('status').getByText(/^Setting mail\.footer was not saved\. The service cannot be reached/).waitFor()
    // Nothing to report (no answer, no request ID): said, and not kept on the page.
    expect(await admin.page.getByRole('note').filter({ hasText: 'was not saved' }).count()).toBe(0)
    expect(await keyDialog.isVisible()).toBe(true)
    expect(await keyDialog.getByLabel('API key').inputValue()).toBe('ory_pat_typed-meanwhile')
    await keyDialog.getByRole('button', { name: 'Cancel' }).click()
  } finally {
    await unreached.stop()
  }
  expect((await settings.list()).filter((s) => s.key.startsWith('mail.')).map((s) => [s.key, s.value])).toEqual(
    expect.arrayContaining([
      ['mail.footer', 'Thanks'],
      ['mail.reply_to', 'help@example.test'],
    ]),
  )
  expect(admin.problems.splice(0)).toEqual([expect.stringContaining('ERR_CONNECTION_REFUSED')])
})

test('a Save under way keeps focus on it, in its dialog: Save is unavailable and the form busy until the answer, and Enter meanwhile sends nothing more (Add setting, an API key)', async () => {
  const page = admin.page
  await page.goto(admin.url('/dashboard/settings'))
  await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor()
  const posts: string[] = []
  const count = (request: { method(): string; url(): string }) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/settings') posts.push(request.url())
  }
  const held = await holdRequests(page, (url) => url.pathname === '/api/settings', 'POST')
  page.on('request', count)
  try {
    await page.getByRole('button', { name: 'Add setting' }).click()
    const dialog = page.getByRole('dialog', { name: 'Add setting' })
    await dialog.getByRole('textbox', { name: 'Key' }).fill('mail.held_save')
    await dialog.getByRole('textbox', { name: 'Value' }).fill('Held')
    await dialog.getByRole('button', { name: 'Save' }).focus()
    await page.keyboard.press('Enter')
    // While the write is held: focus on Save, inside the dialog; Save marked unavailable; the form busy.
    expect(await within(10_000, () => posts.length === 1)).not.toBeNull()
    expect(await page.evaluate(() => (document.activeElement?.closest('dialog') ? document.activeElement.textContent : 'outside the dialog'))).toBe('Save')
    expect(await dialog.getByRole('button', { name: 'Save' }).getAttribute('aria-disabled')).toBe('true')
    expect(await dialog.locator('form').getAttribute('aria-busy')).toBe('true')
    await page.keyboard.press('Enter')
    held.release()
    await page.getByRole('status').getByText('Setting mail.held_save saved.').waitFor()
    await dialog.waitFor({ state: 'hidden' })
    expect(posts.length).toBe(1)
  } finally {
    await held.stop()
  }

  // Enter in the key's field, twice: the second finds Save unavailable.
  const keyHeld = await holdRequests(page, (url) => url.pathname === '/api/settings', 'POST')
  try {
    await page.getByRole('button', { name: 'Set key for idp', exact: true }).click()
    const dialog = page.getByRole('dialog', { name: 'API key for /api/idp' })
    await dialog.getByLabel('API key').fill('ory_pat_held-save')
    await dialog.getByLabel('API key').press('Enter')
    expect(await within(10_000, () => posts.length === 2)).not.toBeNull()
    await dialog.getByLabel('API key').press('Enter')
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('api-key-value')
    expect(await dialog.getByRole('button', { name: 'Save' }).getAttribute('aria-disabled')).toBe('true')
    keyHeld.release()
    await page.getByRole('status').getByText('API key for idp saved.').waitFor()
    expect(posts.length).toBe(2)
  } finally {
    await keyHeld.stop()
    page.off('request', count)
  }
  expect(await admin.harness.sandbox.services.settings.apiKeyFor('idp')).toBe('ory_pat_held-save')
  await admin.harness.sandbox.services.settings.remove('proxy.idp.api_key', null)
  await admin.harness.sandbox.services.settings.remove('mail.held_save', null)
  expect(admin.problems).toEqual([])
})

test('a Save answered after Escape with a failure to report is announced without its request ID, which stays on the page under Details, with Copy', async () => {
  const { settings } = admin.harness.sandbox.services
  await settings.write({ key: 'mail.signature', value: 'The platform team', category: 'mail' }, null)
  const page = admin.page
  await page.goto(admin.url('/dashboard/settings'))
  await settingsRow('mail.signature').waitFor()
  const requestId = '6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b'
  const save = await holdRequests(page, (url) => url.pathname === '/api/settings', 'POST')
  try {
    await page.getByRole('button', { name: 'Edit mail.signature' }).click()
    const dialog = page.getByRole('dialog', { name: 'Edit mail.signature' })
    await dialog.getByRole('textbox', { name: 'Value' }).fill('Never stored')
    await dialog.getByRole('button', { name: 'Save' }).click()
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })
    save.release({
      status: 500,
      contentType: 'application/json',
      headers: { 'x-request-id': requestId },
      body: JSON.stringify({ error: 'internal_error', message: 'Something unexpected happened.' }),
    })
    // Said once, short, and with nothing in it to press.
    const status = page.getByRole('status')
    await status.getByText('Setting mail.signature was not saved. Something unexpected happened.').waitFor()
    expect(await status.textContent()).not.toContain(requestId)
    expect(await status.getByRole('button').count()).toBe(0)
  } finally {
    await save.stop()
  }
  // On the page, not read out again, with the answer's request ID under closed Details.
  const notice = page.getByRole('main').getByRole('note').filter({ hasText: 'Setting mail.signature was not saved.' })
  await notice.waitFor()
  expect(await page.getByRole('alert').count()).toBe(0)
  const details = notice.locator('details')
  expect(await details.evaluate((element) => (element as HTMLDetailsElement).open)).toBe(false)
  expect(await notice.ariaSnapshot()).not.toContain(requestId)
  await notice.getByText('Details', { exact: true }).focus()
  await page.keyboard.press('Enter')
  await notice.getByText(`Request ID: ${requestId}`).waitFor()
  await admin.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: admin.harness.sandbox.url })
  await page.keyboard.press('Tab')
  expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Copy the request ID')
  await page.keyboard.press('Enter')
  await page.getByRole('status').getByText('Copied.').waitFor()
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(requestId)
  expect(await sweep(page, 'settings-late-failure', () => notice.getByText(`Request ID: ${requestId}`).waitFor())).toEqual([])
  // Dismissed, it goes, and focus is on the page's heading.
  await notice.getByRole('button', { name: 'Dismiss' }).click()
  await notice.waitFor({ state: 'detached' })
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('page-title')
  expect((await settings.list()).find((s) => s.key === 'mail.signature')?.value).toBe('The platform team')
  expect(admin.problems.splice(0)).toEqual([expect.stringContaining('status of 500')])
})

test('a proxy.<name>.api_key setting for a prefix the service does not have (mistyped at the command line) is listed with the other settings, where it can be seen and deleted', async () => {
  const { settings } = admin.harness.sandbox.services
  await settings.write({ key: 'proxy.hydra-admin.api_key', value: 'ory_pat_never-sent-anywhere', encrypted: true, category: 'proxy' }, null)
  await admin.page.goto(admin.url('/dashboard/settings'))
  await admin.page.getByRole('region', { name: 'Upstream API keys' }).waitFor()
  const row = settingsRow('proxy.hydra-admin.api_key')
  await row.waitFor()
  await row.getByRole('button', { name: 'Delete proxy.hydra-admin.api_key' }).click()
  await admin.page.getByRole('dialog', { name: 'Delete setting?' }).getByRole('button', { name: 'Delete' }).click()
  await admin.page.getByRole('status').getByText('Setting proxy.hydra-admin.api_key deleted.').waitFor()
  expect((await settings.list()).some((s) => s.key === 'proxy.hydra-admin.api_key')).toBe(false)
  expect(admin.problems).toEqual([])
})

test('an API key for idp-admin is stored encrypted, sent on the next Kratos call, and never shown or answered again', async () => {
  const apiKey = 'ory_pat_Secret-Key-For-Kratos-1234567890'
  await admin.page.goto(admin.url('/dashboard/settings'))
  const keys = admin.page.getByRole('region', { name: 'Upstream API keys' })
  const row = keys.getByRole('row').filter({ has: admin.page.getByRole('rowheader', { name: '/api/idp-admin', exact: true }) })
  await row.getByText('No key').waitFor()
  expect(await row.getByRole('button', { name: /Reveal/ }).count()).toBe(0)
  await row.getByRole('button', { name: 'Set key for idp-admin' }).click()
  const dialog = admin.page.getByRole('dialog', { name: 'API key for /api/idp-admin' })
  await dialog.getByRole('button', { name: 'Save' }).click()
  await dialog.getByText('Enter the API key.').waitFor()
  // Pasted with a space in it: said at the field, which keeps what was pasted and has the focus; nothing is sent.
  const writes = (await admin.harness.sandbox.services.audit.list({ limit: 1000, action: 'settings_write' })).length
  await dialog.getByLabel('API key').fill('ory_pat_half key')
  await dialog.getByRole('button', { name: 'Save' }).click()
  await dialog.getByText('An API key is sent in an HTTP header: it may hold only visible ASCII characters, without spaces or line breaks. Check what was pasted.').waitFor()
  expect(await admin.page.evaluate(() => [document.activeElement?.id, document.activeElement?.getAttribute('aria-invalid')])).toEqual(['api-key-value', 'true'])
  expect(await dialog.getByLabel('API key').inputValue()).toBe('ory_pat_half key')
  expect((await admin.harness.sandbox.services.audit.list({ limit: 1000, action: 'settings_write' })).length).toBe(writes)
  // White space a paste brought around the key goes.
  await dialog.getByLabel('API key').fill(`  ${apiKey}\n`)
  await dialog.getByRole('button', { name: 'Save' }).click()
  await admin.page.getByRole('status').getByText('API key for idp-admin saved.').waitFor()
  await row.getByText('Key set').waitFor()
  expect(await row.getByRole('button', { name: /Reveal/ }).count()).toBe(0)
  await row.getByRole('button', { name: 'Replace key for idp-admin' }).waitFor()
  const stored = (await admin.harness.sandbox.services.settings.list()).find((s) => s.key === 'proxy.idp-admin.api_key')!
  expect(stored.encrypted).toBe(true)
  expect(await admin.harness.sandbox.services.settings.apiKeyFor('idp-admin')).toBe(apiKey)
  // The generic list does not show the key's row at all (not even its ciphertext).
  expect(await admin.page.getByRole('rowheader', { name: 'proxy.idp-admin.api_key' }).count()).toBe(0)
  expect(await admin.page.content()).not.toContain(stored.value)

  const before = admin.harness.sandbox.kratos.calls.length
  await admin.page.goto(admin.url('/dashboard/identities'))
  await admin.page.getByRole('table').waitFor()
  const kratosCalls = admin.harness.sandbox.kratos.calls.slice(before).filter((call) => call.path.startsWith('/admin/'))
  expect(kratosCalls.length).toBeGreaterThan(0)
  for (const call of kratosCalls) expect(call.headers.get('authorization')).toBe(`Bearer ${apiKey}`)

  await admin.page.goto(admin.url('/dashboard/settings'))
  await admin.page.getByRole('region', { name: 'Upstream API keys' }).getByText('Key set').waitFor()
  await admin.page.waitForLoadState('networkidle')
  expect(await admin.page.content()).not.toContain(apiKey)
  expect(bodies.length).toBeGreaterThan(10)
  for (const body of bodies) expect(body).not.toContain(apiKey)
})

test('a prefix whose upstream this service has no address for says so in its row, as the Security page does; the others do not', async () => {
  const page = admin.page
  const described = (await (await page.request.get(admin.url('/api/config'))).json()) as { upstreams: Record<string, boolean> }
  const unconfigured = Object.entries(described.upstreams).filter(([, configured]) => !configured).map(([name]) => name).sort()
  expect(unconfigured.length).toBeGreaterThan(0)
  await page.goto(admin.url('/dashboard/settings'))
  const table = page.getByRole('table', { name: 'Upstream API keys' })
  await table.getByRole('rowheader', { name: '/api/idp-admin' }).waitFor()
  const said: string[] = []
  for (const name of Object.keys(described.upstreams)) {
    const row = table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: `/api/${name}`, exact: true }) })
    if ((await row.textContent())!.includes('(not configured on this service)')) said.push(name)
  }
  expect(said.sort()).toEqual(unconfigured)
  expect(admin.problems).toEqual([])
})

test('an API key stored in plain text (set on the host without --encrypted) is said so in its row; Replace key stores it encrypted', async () => {
  const { settings } = admin.harness.sandbox.services
  const plainKey = 'ory_pat_Plain-On-The-Host-0123456789'
  const newKey = 'ory_pat_Encrypted-Now-9876543210'
  await settings.write({ key: 'proxy.oauth-admin.api_key', value: plainKey, encrypted: false, category: 'proxy' }, null)
  try {
    await admin.page.goto(admin.url('/dashboard/settings'))
    const keys = admin.page.getByRole('region', { name: 'Upstream API keys' })
    const row = keys.getByRole('row').filter({ has: admin.page.getByRole('rowheader', { name: '/api/oauth-admin', exact: true }) })
    await row.getByText('Key set, stored in plain text').waitFor()
    await keys.getByText('One set on the host without --encrypted is stored in plain text: Replace key stores it encrypted.').waitFor()
    // Only that row: the others say what they did.
    expect(await keys.getByText('stored in plain text', { exact: false }).count()).toBe(2)
    const found = await sweep(admin.page, 'settings-plain-api-key', () => row.getByText('Key set, stored in plain text').waitFor())
    expect(found).toEqual([])
    expect(await admin.page.content()).not.toContain(plainKey)

    await row.getByRole('button', { name: 'Replace key for oauth-admin' }).click()
    const dialog = admin.page.getByRole('dialog', { name: 'API key for /api/oauth-admin' })
    await dialog.getByLabel('API key').fill(newKey)
    await dialog.getByRole('button', { name: 'Save' }).click()
    await admin.page.getByRole('status').getByText('API key for oauth-admin saved.').waitFor()
    await row.getByText('Key set', { exact: true }).waitFor()
    expect(await row.getByText('stored in plain text', { exact: false }).count()).toBe(0)
    const stored = (await settings.list()).find((setting) => setting.key === 'proxy.oauth-admin.api_key')!
    expect(stored.encrypted).toBe(true)
    expect(stored.value).not.toContain(newKey)
    expect(await settings.apiKeyFor('oauth-admin')).toBe(newKey)
    expect(admin.problems).toEqual([])
  } finally {
    await settings.remove('proxy.oauth-admin.api_key', null)
  }
})

test('Set key for a public prefix says at the field that its calls need no sign-in, so a key with admin rights does not belong there; an admin prefix says nothing of the kind', async () => {
  await admin.page.goto(admin.url('/dashboard/settings'))
  const keys = admin.page.getByRole('region', { name: 'Upstream API keys' })
  /** What a screen reader reads as the field's description, as the person reads it beside the field. */
  const describedAs = (dialog: ReturnType<typeof admin.page.getByRole>) =>
    dialog.getByLabel('API key').evaluate((field) =>
      (field.getAttribute('aria-describedby') ?? '')
        .split(' ')
        .filter(Boolean)
        .map((id) => document.getElementById(id)?.textContent ?? '')
        .join(' '),
    )
  for (const name of ['idp', 'iam-idp', 'oauth']) {
    await keys.getByRole('button', { name: `Set key for ${name}`, exact: true }).click()
    const dialog = admin.page.getByRole('dialog', { name: `API key for /api/${name}` })
    await dialog.getByText(`Calls through /api/${name} need no sign-in`).waitFor()
    const description = await describedAs(dialog)
    expect(description).toContain(`Calls through /api/${name} need no sign-in: anyone who can reach this service makes them with this key.`)
    expect(description).toContain('never a key with admin rights')
    expect(description).toContain(`/api/${name}-admin`)
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await dialog.waitFor({ state: 'hidden' })
  }
  await keys.getByRole('button', { name: /^(Set|Replace) key for idp-admin$/ }).click()
  const dialog = admin.page.getByRole('dialog', { name: 'API key for /api/idp-admin' })
  await dialog.getByLabel('API key').waitFor()
  expect(await dialog.getByText('need no sign-in').count()).toBe(0)
  expect(await describedAs(dialog)).toBe('')
  await dialog.getByRole('button', { name: 'Cancel' }).click()
})

test('a half-filled Add setting or Edit setting asks before the page is left, and before Escape closes it; Cancel, or Escape confirmed, lets go of it', async () => {
  const page = admin.page
  await page.goto(admin.url('/dashboard'))
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click()
  await page.getByRole('button', { name: 'Add setting' }).click()
  const questions = answerQuestions(page)
  try {
    const dialog = page.getByRole('dialog', { name: 'Add setting' })
    await dialog.getByLabel('Key').fill('half.typed')
    // Back (the menu is behind the modal dialog), answered Cancel: the page, the dialog and the key stay.
    await page.goBack()
    await within(5000, () => questions.asked.length > 0)
    expect(questions.asked.splice(0)).toEqual(['confirm: Your changes to the new setting are not saved. Leave anyway?'])
    await page.waitForURL(admin.url('/dashboard/settings'))
    expect(await dialog.getByLabel('Key').inputValue()).toBe('half.typed')
    // Escape asks too; answered Cancel, the dialog and the key stay.
    await page.keyboard.press('Escape')
    await within(5000, () => questions.asked.length > 0)
    expect(questions.asked.splice(0)).toEqual(['confirm: Your changes to the new setting are not saved. Close anyway?'])
    expect(await dialog.getByLabel('Key').inputValue()).toBe('half.typed')
    // Answered OK, it closes: nothing is held any more.
    questions.answer.ok = true
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })
    expect(questions.asked.splice(0)).toEqual(['confirm: Your changes to the new setting are not saved. Close anyway?'])
    questions.answer.ok = false
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click()
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor()
    expect(questions.asked).toEqual([])

    // Edit: the value changed, then Cancel; changed again, and OK to Back: the person leaves.
    await admin.harness.sandbox.services.settings.write({ key: 'guarded.edit', value: 'before', category: 'guard' }, null)
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click()
    await page.getByRole('button', { name: 'Edit guarded.edit' }).click()
    const edit = page.getByRole('dialog', { name: 'Edit guarded.edit' })
    await edit.getByRole('textbox', { name: 'Value', exact: true }).fill('after')
    await edit.getByRole('button', { name: 'Cancel' }).click()
    await edit.waitFor({ state: 'hidden' })
    await page.getByRole('button', { name: 'Edit guarded.edit' }).click()
    await edit.getByRole('textbox', { name: 'Value', exact: true }).fill('after, again')
    questions.answer.ok = true
    await page.goBack()
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor()
    expect(questions.asked.splice(0)).toEqual(['confirm: Your changes to the setting guarded.edit are not saved. Leave anyway?'])
  } finally {
    questions.stop()
  }
  expect(admin.problems).toEqual([])
})

test('a Customize arrangement changed and not saved asks before the Overview is left', async () => {
  const page = admin.page
  await page.goto(admin.url('/dashboard/settings'))
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Overview' }).click()
  await page.getByRole('button', { name: 'Customize' }).click()
  const dialog = page.getByRole('dialog', { name: 'Customize the overview' })
  const questions = answerQuestions(page)
  try {
    const box = dialog.getByRole('checkbox').first()
    await box.setChecked(!(await box.isChecked()))
    await page.goBack()
    await within(5000, () => questions.asked.length > 0)
    expect(questions.asked.splice(0)).toEqual(['confirm: Your changes to the overview arrangement are not saved. Leave anyway?'])
    await page.waitForURL(admin.url('/dashboard'))
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await dialog.waitFor({ state: 'hidden' })
    await page.goBack()
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor()
    expect(questions.asked).toEqual([])
  } finally {
    questions.stop()
  }
  expect(admin.problems).toEqual([])
})

test('Add setting refused because the session ended opens again with its draft after the sign-in; a value to be encrypted is not kept, and the notice says to type it again', async () => {
  const other = await signedInPage(admin.harness, 'admin', '/dashboard/settings')
  try {
    const { page: tab } = other
    const addRefused = async (key: string, value: string, encrypt: boolean) => {
      await tab.getByRole('button', { name: 'Add setting' }).click()
      const dialog = tab.getByRole('dialog', { name: 'Add setting' })
      await dialog.getByLabel('Key').fill(key)
      await dialog.getByRole('textbox', { name: 'Value', exact: true }).fill(value)
      await dialog.getByLabel('Category').fill('drafts')
      if (encrypt) await dialog.getByRole('checkbox', { name: 'Encrypt the value' }).check()
      await endSession(tab)
      await dialog.getByRole('button', { name: 'Save' }).click()
      return dialog
    }
    const dialog = await addRefused('draft.kept', 'plain value', false)
    await backThroughSignIn(tab, admin.harness.sandbox, tab.getByRole('alert').filter({ hasText: 'it was not saved. Your draft was kept; check it and save again.' }))
    await dialog.waitFor()
    expect(await dialog.getByLabel('Key').inputValue()).toBe('draft.kept')
    expect(await dialog.getByRole('textbox', { name: 'Value', exact: true }).inputValue()).toBe('plain value')
    expect(await dialog.getByLabel('Category').inputValue()).toBe('drafts')
    await dialog.getByRole('button', { name: 'Save' }).click()
    await tab.getByRole('status').getByText('Setting draft.kept saved.').waitFor()
    expect((await admin.harness.sandbox.services.settings.list()).find((s) => s.key === 'draft.kept')).toMatchObject({ value: 'plain value', category: 'drafts', encrypted: false })
    // The draft used, the notice about it has gone.
    expect(await tab.getByRole('alert').filter({ hasText: 'it was not saved' }).count()).toBe(0)

    // To be encrypted: nothing of it is kept, and the dialog does not open again.
    await addRefused('draft.secret', 'secret value', true)
    await backThroughSignIn(
      tab,
      admin.harness.sandbox,
      tab.getByRole('alert').filter({ hasText: 'it was not saved. A value to be encrypted is never kept in the browser, so the draft was not kept: make the change again.' }),
    )
    await tab.getByRole('heading', { level: 1, name: 'Settings' }).waitFor()
    expect(await tab.getByRole('dialog').count()).toBe(0)
    expect(await tab.evaluate(() => JSON.stringify(sessionStorage))).not.toContain('secret value')
    expect(other.problems.filter((problem) => !problem.includes('401'))).toEqual([])
  } finally {
    await other.context.close()
  }
})

test('the audit log filters by action and by actor; an actor links to its identity page', async () => {
  const adminId = identityIdOf(SANDBOX_USERS.admin)
  await admin.page.goto(admin.url('/dashboard/audit?action=login'))
  const table = admin.page.getByRole('table')
  await table.getByRole('cell', { name: 'login' }).first().waitFor()
  expect(new Set(await table.locator('tbody tr td:nth-child(3)').allTextContents())).toEqual(new Set(['login']))
  // Opened from a link: the heading is read out, no result is announced. A filter chosen here is.
  expect(await admin.page.locator('.status-region').textContent()).toBe('')
  await admin.page.getByRole('combobox', { name: 'Action' }).selectOption('settings_write')
  await admin.page.waitForURL(/action=settings_write/)
  await admin.page.waitForFunction(() => !document.querySelector('main [aria-busy="true"]'))
  const writes = await table.locator('tbody tr').count()
  await admin.page.getByRole('status').getByText(`${writes} audit ${writes === 1 ? 'event' : 'events'} shown.`).waitFor()
  await admin.page.getByRole('combobox', { name: 'Action' }).selectOption('')
  const byActor = admin.page.getByRole('search', { name: 'Filter by actor' })
  await admin.page.getByRole('textbox', { name: 'Actor (identity ID)' }).fill('not an id')
  await byActor.getByRole('button', { name: 'Filter' }).click()
  await admin.page.getByText('Enter an identity ID (a UUID), or leave it empty for everyone.').waitFor()
  // Focus goes from Filter to the field that says why.
  expect(await admin.page.evaluate(() => [document.activeElement?.id, document.activeElement?.getAttribute('aria-describedby')])).toEqual(['audit-actor', 'audit-actor-error'])
  await admin.page.getByRole('textbox', { name: 'Actor (identity ID)' }).fill(adminId)
  const filtered = admin.page.waitForResponse((r) => new URL(r.url()).pathname === '/api/security/audit' && new URL(r.url()).searchParams.get('actor') === adminId)
  await byActor.getByRole('button', { name: 'Filter' }).click()
  await filtered
  // The admin signed in here is named by e-mail, with the id beside it.
  const named = `${SANDBOX_USERS.admin} ${adminId}`
  await admin.page.waitForFunction((text) => {
    const cells = [...document.querySelectorAll('main table tbody tr td:nth-child(2)')]
    return cells.length > 2 && cells.every((cell) => cell.textContent === text)
  }, named)
  const actors = await table.locator('tbody tr td:nth-child(2)').allTextContents()
  expect(actors.length).toBeGreaterThan(2)
  expect(new Set(actors)).toEqual(new Set([named]))
  // An actor is matched as the events record it: one recorded in capitals (a provider's own subject) is found as typed.
  const capitals = '0A1B2C3D-0000-4000-8000-00000000ABCD'
  await admin.harness.sandbox.services.audit.record({ action: 'login', actor: capitals, target: null, detail: { outcome: 'refused' } })
  await admin.page.getByRole('textbox', { name: 'Actor (identity ID)' }).fill(capitals)
  await byActor.getByRole('button', { name: 'Filter' }).click()
  await admin.page.waitForURL((address) => address.searchParams.get('actor') === capitals)
  await admin.page.getByRole('status').getByText('1 audit event shown.').waitFor()
  await byActor.getByRole('button', { name: 'Show everyone' }).click()
  await admin.page.waitForURL((address) => !address.searchParams.has('actor'))
  // The field follows the link: emptied with it, before the next filter is typed.
  await admin.page.waitForFunction(() => (document.getElementById('audit-actor') as HTMLInputElement | null)?.value === '')
  await admin.page.getByRole('textbox', { name: 'Actor (identity ID)' }).fill(adminId)
  await byActor.getByRole('button', { name: 'Filter' }).click()
  await admin.page.waitForURL((address) => address.searchParams.get('actor') === adminId)
  expect(await table.locator('tbody tr td:nth-child(5)').first().textContent()).toBeTruthy()
  expect(await table.getByRole('link', { name: SANDBOX_USERS.admin, exact: true }).first().getAttribute('href')).toBe(`/dashboard/identities/${adminId}`)
})

test('a failure keeps its request ID under Details, closed so that it is not read out; the audit log finds the event of that request by it, with the keyboard alone', async () => {
  const { kratos } = admin.harness.sandbox
  const person = kratos.addIdentity({ email: 'traced.failure@example.test', name: 'Traced Failure' })
  const page = admin.page
  await page.goto(admin.url(`/dashboard/identities/${person.id}`))
  await page.getByRole('heading', { level: 1, name: 'traced.failure@example.test' }).waitFor()
  const traits = page.getByRole('region', { name: 'Traits' })
  await traits.getByRole('textbox', { name: 'Name', exact: true }).fill('Never Saved')
  const refused = page.waitForResponse((response) => response.request().method() === 'PATCH')
  kratos.failWith = 500
  let requestId: string
  try {
    await traits.getByRole('button', { name: 'Save' }).click()
    requestId = (await (await refused).headerValue('x-request-id'))!
  } finally {
    kratos.failWith = null
  }
  expect(requestId).toMatch(/^[0-9a-f-]{36}$/)
  const alert = traits.getByRole('alert')
  await alert.waitFor()
  // Closed: the alert as read out is the message alone.
  const details = alert.locator('details')
  expect(await details.evaluate((element) => (element as HTMLDetailsElement).open)).toBe(false)
  expect(await alert.ariaSnapshot()).not.toContain(requestId)
  // Opened from the keyboard.
  await alert.getByText('Details', { exact: true }).focus()
  await page.keyboard.press('Enter')
  await alert.getByText(`Request ID: ${requestId}`).waitFor()
  expect(await details.evaluate((element) => (element as HTMLDetailsElement).open)).toBe(true)
  expect(stored()).toBe('Traced Failure')
  // Copied with its own button, from the keyboard.
  await admin.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: admin.harness.sandbox.url })
  await page.keyboard.press('Tab')
  expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Copy the request ID')
  await page.keyboard.press('Enter')
  await page.getByRole('status').getByText('Copied.').waitFor()
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(requestId)
  // Opened, in both themes, on a desktop and a phone: the id wraps rather than scroll sideways.
  expect(await sweep(page, 'failure-details', () => alert.getByText(`Request ID: ${requestId}`).waitFor())).toEqual([])

  // The audit log, filtered by that id from the keyboard: the one event of that request.
  await page.goto(admin.url('/dashboard/audit'))
  const table = page.getByRole('table')
  await table.locator('tbody tr').first().waitFor()
  await page.getByRole('textbox', { name: 'Request ID' }).focus()
  await page.keyboard.type('not a request id')
  await page.keyboard.press('Enter')
  await page.getByText("Enter a request ID (a UUID, as a failure's Details show it), or leave it empty for every request.").waitFor()
  expect(await page.evaluate(() => [document.activeElement?.id, document.activeElement?.getAttribute('aria-describedby')])).toEqual(['audit-request-id', 'audit-request-id-error'])
  // Pasted after its label, as Details show it: the id is what counts.
  await page.getByRole('textbox', { name: 'Request ID' }).fill('')
  await page.keyboard.type('Request ID: ')
  await page.keyboard.press('Control+V')
  await page.keyboard.press('Enter')
  await page.waitForURL((address) => address.searchParams.get('request_id') === requestId)
  await page.getByRole('status').getByText('1 audit event shown.').waitFor()
  const row = table.locator('tbody tr')
  expect(await row.count()).toBe(1)
  expect(await row.locator('td').allTextContents()).toEqual([expect.any(String), `${SANDBOX_USERS.admin} ${identityIdOf(SANDBOX_USERS.admin)}`, 'proxy write (PATCH)', `/admin/identities/${person.id}`, 'upstream error (may have been done)'])
  expect(await sweep(page, 'audit-by-request', () => row.waitFor())).toEqual([])
  // Show every request takes the filter away.
  await tabTo(page, 'Show every request')
  await page.keyboard.press('Enter')
  await page.waitForURL((address) => !address.searchParams.has('request_id'))
  await table.locator('tbody tr').nth(1).waitFor()
  await page.waitForFunction(() => (document.getElementById('audit-request-id') as HTMLInputElement | null)?.value === '')
  // Typed in capitals, it is the same id.
  await page.getByRole('textbox', { name: 'Request ID' }).fill(requestId.toUpperCase())
  await page.keyboard.press('Enter')
  await page.waitForURL((address) => address.searchParams.get('request_id') === requestId)
  await page.getByRole('status').getByText('1 audit event shown.').waitFor()
  expect(admin.problems.splice(0).filter((problem) => !/status of 500\b/.test(problem))).toEqual([])

  function stored() {
    return kratos.identities.get(person.id)!.traits.name
  }
})

test('the request ID is under Details for every failure to report: an unreadable record, a bulk change and an Extend Kratos refused', async () => {
  const { kratos } = admin.harness.sandbox
  const page = admin.page
  const idOf = async (answer: Promise<import('playwright-core').Response>) => (await (await answer).headerValue('x-request-id'))!
  const opened = async (alert: import('playwright-core').Locator, requestId: string) => {
    await alert.getByText('Details', { exact: true }).click()
    await alert.getByText(`Request ID: ${requestId}`).waitFor()
  }

  // A record Kratos answers 200 with, in a shape the page cannot read (the page reads it for more
  // than one section: the ID is one of those answers').
  const odd = kratos.addIdentity({ email: 'unreadable.record@example.test', name: 'Odd Record' })
  kratos.malformedRecords.set(odd.id, () => null)
  const answers: string[] = []
  const record = (response: import('playwright-core').Response) => {
    if (new URL(response.url()).pathname.endsWith(`/identities/${odd.id}`)) void response.headerValue('x-request-id').then((id) => answers.push(id!))
  }
  page.on('response', record)
  try {
    await page.goto(admin.url(`/dashboard/identities/${odd.id}`))
    const alert = page.getByRole('alert').filter({ hasText: 'Kratos answered with data this page cannot show.' }).first()
    await alert.waitFor()
    await alert.getByText('Details', { exact: true }).click()
    const shown = /Request ID: ([0-9a-f-]{36})/.exec((await alert.textContent())!)![1]!
    expect(answers).toContain(shown)
  } finally {
    page.off('response', record)
    kratos.malformedRecords.delete(odd.id)
  }

  // A bulk change Kratos refused: the first refused request's ID.
  const chosen = kratos.addIdentity({ email: 'bulk.refused@example.test', name: 'Bulk Refused' })
  await page.goto(admin.url('/dashboard/identities?search=bulk.refused%40example.test'))
  await page.getByRole('checkbox', { name: 'Select bulk.refused@example.test' }).check()
  kratos.failWith = 500
  try {
    const answer = page.waitForResponse((response) => response.request().method() === 'PATCH')
    await page.getByRole('button', { name: 'Deactivate', exact: true }).click()
    await page.getByRole('dialog', { name: 'Deactivate 1 identity?' }).getByRole('button', { name: 'Deactivate' }).click()
    const alert = page.getByRole('alert').filter({ hasText: 'Not deactivated: bulk.refused@example.test.' })
    await alert.waitFor()
    await opened(alert, await idOf(answer))
  } finally {
    kratos.failWith = null
  }
  expect(kratos.identities.get(chosen.id)!.state).toBe('active')

  // An Extend Kratos refused: in its row.
  await page.goto(admin.url('/dashboard/sessions'))
  const sessions = page.getByRole('table', { name: 'Active sessions' })
  await sessions.waitFor()
  const email = (await sessions.locator('tbody tr td:first-child a').allTextContents())[0]!
  const button = page.getByRole('button', { name: `Extend session of ${email}` })
  kratos.failWith = 500
  try {
    const answer = page.waitForResponse((response) => response.request().method() === 'PATCH')
    await button.click()
    const alert = page.getByRole('row').filter({ has: button }).getByRole('alert')
    await alert.getByText(`The session of ${email} was not extended.`, { exact: false }).waitFor()
    await opened(alert, await idOf(answer))
    expect(await sweep(page, 'extend-refused-details', () => alert.waitFor())).toEqual([])
  } finally {
    kratos.failWith = null
  }
  // The refused writes (500), and the list read again after the bulk change while Kratos still failed (502).
  expect(admin.problems.splice(0).filter((problem) => !/status of 50[02]\b/.test(problem))).toEqual([])
})

test('the audit log filters to writes through the proxies, stepped to with the arrow keys, and says which method each was', async () => {
  // One write of each kind through the admin prefix, as the identity pages make them.
  const target = identityIdOf('user05@example.test')
  const patch = await admin.page.request.patch(admin.url(`/api/idp-admin/admin/identities/${target}`), {
    headers: { 'content-type': 'application/json' },
    data: [{ op: 'replace', path: '/metadata_public', value: { plan: 'audited' } }],
  })
  expect(patch.status()).toBe(200)
  await admin.page.goto(admin.url('/dashboard/audit'))
  const table = admin.page.getByRole('table')
  await table.locator('tbody tr').first().waitFor()
  const select = admin.page.getByRole('combobox', { name: 'Action' })
  await select.focus()
  // Each arrow applies the next filter at once; focus stays on the select, so the next arrow works.
  for (let step = 0; (await select.inputValue()) !== 'proxy_write'; step++) {
    expect(step).toBeLessThan(12)
    await admin.page.keyboard.press('ArrowDown')
    expect(await admin.page.evaluate(() => document.activeElement?.tagName)).toBe('SELECT')
  }
  expect(new URL(admin.page.url()).searchParams.get('action')).toBe('proxy_write')
  await table.getByRole('cell', { name: 'proxy write (PATCH)' }).first().waitFor()
  expect(new Set(await table.locator('tbody tr td:nth-child(3)').allTextContents())).toEqual(new Set(['proxy write (PATCH)']))
  expect(await table.getByRole('cell', { name: `/admin/identities/${target}` }).count()).toBeGreaterThan(0)
  // A Deactivate is a PATCH like the edit above: its row says what it did.
  const locked = admin.harness.sandbox.kratos.addIdentity({ email: 'audited.lock@example.test' })
  const deactivated = await admin.page.request.patch(admin.url(`/api/idp-admin/admin/identities/${locked.id}`), {
    headers: { 'content-type': 'application/json' },
    data: [{ op: 'replace', path: '/state', value: 'inactive' }],
  })
  expect(deactivated.status()).toBe(200)
  await admin.page.reload()
  const row = table.locator('tbody tr').filter({ hasText: `/admin/identities/${locked.id}` })
  await row.waitFor()
  expect(await row.locator('td').nth(2).textContent()).toBe('proxy write (PATCH, identity left deactivated)')
  // What a create made and whose tokens were revoked: long ids in the Action column, which wraps
  // rather than scroll sideways, in both themes, on a desktop and a phone.
  const { audit } = admin.harness.sandbox.services
  const actor = identityIdOf(SANDBOX_USERS.admin)
  await audit.record({ action: 'proxy_write', actor, target: '/admin/clients', detail: { prefix: 'oauth-admin', method: 'POST', status: 201, outcome: 'ok', created: '5b0e2a47-8c1d-4f3e-9a6b-2c7d8e9f0a1b' } })
  await audit.record({ action: 'proxy_write', actor, target: '/admin/oauth2/tokens', detail: { prefix: 'oauth-admin', method: 'DELETE', status: 204, outcome: 'ok', client_id: 'partner-portal-production-eu-west-1-confidential' } })
  await admin.page.reload()
  const revoked = table.locator('tbody tr').filter({ hasText: 'client partner-portal-production-eu-west-1-confidential' })
  expect(await sweep(admin.page, 'audit-proxy-facts', () => revoked.waitFor())).toEqual([])
  expect(await table.getByRole('cell', { name: 'proxy write (POST, created 5b0e2a47-8c1d-4f3e-9a6b-2c7d8e9f0a1b)' }).count()).toBe(1)
  // On a desktop the Actor column is narrowed by the long actions beside it: an actor's address
  // wraps after its `@`, never inside its domain (it read "admin@example." over "test").
  const domainLines = await revoked.getByRole('link', { name: SANDBOX_USERS.admin }).evaluate((link) => {
    const text = link.textContent ?? ''
    const domainStart = text.lastIndexOf('@') + 1
    const range = document.createRange()
    let offset = 0
    const walker = document.createTreeWalker(link, NodeFilter.SHOW_TEXT)
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const length = node.textContent?.length ?? 0
      if (offset <= domainStart && domainStart < offset + length) range.setStart(node, domainStart - offset)
      if (offset + length === text.length) range.setEnd(node, length)
      offset += length
    }
    return new Set([...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) => Math.round(rect.top))).size
  })
  expect(domainLines).toBe(1)
  expect(admin.problems).toEqual([])
})

test('an audit target or actor with characters that hide or turn text around shows them, in the audit log and the Overview’s latest events', async () => {
  admin.problems.length = 0
  const { audit } = admin.harness.sandbox.services
  await audit.record({ action: 'settings_write', actor: identityIdOf(SANDBOX_USERS.admin), target: 'feature.\u202Egalf' })
  await audit.record({ action: 'sessions_revoke', actor: '\u202Enimda', target: 'adm\u200Bin' })
  const hiding = /[\u202A-\u202E\u2066-\u2069\u200B-\u200F]/
  await admin.page.goto(admin.url('/dashboard/audit'))
  const rows = admin.page.getByRole('table').locator('tbody tr')
  await rows.first().waitFor()
  expect(await rows.nth(0).locator('td:nth-child(2)').textContent()).toBe('⟨U+202E⟩nimda')
  expect(await rows.nth(0).locator('td:nth-child(4)').textContent()).toBe('adm⟨U+200B⟩in')
  expect(await rows.nth(1).locator('td:nth-child(4)').textContent()).toBe('feature.⟨U+202E⟩galf')
  expect(hiding.test((await admin.page.getByRole('table').textContent()) ?? '')).toBe(false)

  await admin.page.goto(admin.url('/dashboard'))
  const latest = admin.page.getByRole('region', { name: 'Latest audit events' }).getByRole('listitem')
  await latest.first().waitFor()
  expect(await latest.nth(0).textContent()).toContain(' by ⟨U+202E⟩nimda on adm⟨U+200B⟩in')
  expect(await latest.nth(1).textContent()).toContain(' on feature.⟨U+202E⟩galf')
  expect(hiding.test((await admin.page.getByRole('region', { name: 'Latest audit events' }).textContent()) ?? '')).toBe(false)
  expect(admin.problems).toEqual([])
})

test('an identity’s page and a client’s page lead an admin, by keyboard, to the audit events about them, found as the trail recorded them', async () => {
  admin.problems.length = 0
  const { kratos, hydra } = admin.harness.sandbox
  const page = admin.page
  const person = kratos.addIdentity({ email: 'audited.about@example.test' })
  await page.goto(admin.url(`/dashboard/identities/${person.id}`))
  const summary = page.getByRole('region', { name: 'Summary' })
  await summary.getByRole('button', { name: 'Deactivate' }).click()
  await summary.getByRole('button', { name: 'Activate' }).waitFor()
  // Another identity's write, which the filter leaves out.
  const other = kratos.addIdentity({ email: 'audited.other@example.test' })
  const patched = await page.request.patch(admin.url(`/api/idp-admin/admin/identities/${other.id}`), {
    headers: { 'content-type': 'application/json' },
    data: [{ op: 'replace', path: '/state', value: 'inactive' }],
  })
  expect(patched.status()).toBe(200)

  await tabTo(page, 'Audit events about this identity')
  await page.keyboard.press('Enter')
  await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor()
  expect(new URL(page.url()).searchParams.get('about')).toBe(person.id)
  expect(await page.getByRole('textbox', { name: 'About (identity ID, client ID or setting key)' }).inputValue()).toBe(person.id)
  const rows = page.getByRole('table').locator('tbody tr')
  await rows.first().waitFor()
  expect(await rows.locator('td:nth-child(3)').allTextContents()).toEqual(['proxy write (PATCH, identity left deactivated)'])
  expect(await rows.locator('td:nth-child(4)').allTextContents()).toEqual([`/admin/identities/${person.id}`])
  // What the filter cannot find is said beside it, so the list is not taken for all there is.
  await page.getByText('Not listed here, as their path names no identity: a single Kratos session of it revoked or extended.', { exact: false }).waitFor()
  expect(await sweep(page, 'audit-about', () => rows.first().waitFor())).toEqual([])
  // Show events about anything takes the filter away; the other identity's write is there again.
  await page.getByRole('button', { name: 'Show events about anything' }).click()
  await page.getByRole('table').locator('tbody tr').filter({ hasText: `/admin/identities/${other.id}` }).waitFor()
  expect(new URL(page.url()).searchParams.get('about')).toBeNull()

  // A client: its creation through the admin prefix is about it, found by the id Hydra gave it.
  const created = await page.request.post(admin.url('/api/oauth-admin/admin/clients'), {
    headers: { 'content-type': 'application/json' },
    data: { client_name: 'Audited about', redirect_uris: ['https://audited.example.com/cb'] },
  })
  expect(created.status()).toBe(201)
  const { client_id } = (await created.json()) as { client_id: string }
  expect(hydra.clients.has(client_id)).toBe(true)
  await page.goto(admin.url(`/dashboard/oauth-clients/${encodeURIComponent(client_id)}`))
  await page.getByRole('link', { name: 'Audit events about this client' }).click()
  await rows.first().waitFor()
  expect(await rows.locator('td:nth-child(3)').allTextContents()).toEqual([`proxy write (POST, created ${client_id})`])

  // Typed by hand: a line break is refused beside the field, before anything is sent.
  const field = page.getByRole('textbox', { name: 'About (identity ID, client ID or setting key)' })
  await field.fill('x'.repeat(256))
  await page.getByRole('search', { name: 'Filter by what it is about' }).getByRole('button', { name: 'Filter' }).click()
  await page.getByText('Enter an identity ID, an OAuth client ID or a setting key (at most 255 characters, on one line), or leave it empty for everything.').waitFor()
  expect(new URL(page.url()).searchParams.get('about')).toBe(client_id)
  expect(admin.problems).toEqual([])

})

test('the About filter’s clear button says it clears only what the events are about: with an Action chosen too, the list stays filtered by that action, as the button says', async () => {
  admin.problems.length = 0
  const page = admin.page
  await page.goto(admin.url(`/dashboard/audit?about=${encodeURIComponent(SANDBOX_USERS.admin)}&action=login`))
  await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor()
  // Not "Show everything": the Action filter is left as it was, as Show everyone and Show every request leave it.
  expect(await page.getByRole('button', { name: 'Show everything' }).count()).toBe(0)
  await page.getByRole('button', { name: 'Show events about anything' }).click()
  await page.waitForURL((url) => !url.searchParams.has('about'))
  expect(new URL(page.url()).searchParams.get('action')).toBe('login')
  expect(await page.getByRole('combobox', { name: 'Action' }).inputValue()).toBe('login')
  expect(await page.getByRole('textbox', { name: 'About (identity ID, client ID or setting key)' }).evaluate((field) => field === document.activeElement)).toBe(true)
  expect(admin.problems).toEqual([])
})

test('a client whose id begins and ends with a space: its page’s audit link finds its events, and Filter pressed on the id the link put in the field still finds them', async () => {
  admin.problems.length = 0
  const page = admin.page
  const clientId = ' spaced client '
  const created = await page.request.post(admin.url('/api/oauth-admin/admin/clients'), {
    headers: { 'content-type': 'application/json' },
    data: { client_id: clientId, client_name: 'Spaced', redirect_uris: ['https://spaced.example.com/cb'] },
  })
  expect(created.status()).toBe(201)
  await page.goto(admin.url(`/dashboard/oauth-clients/${encodeURIComponent(clientId)}`))
  await page.getByRole('link', { name: 'Audit events about this client' }).click()
  const rows = page.getByRole('table').locator('tbody tr')
  await rows.first().waitFor()
  expect(await rows.locator('td:nth-child(3)').allTextContents()).toEqual([`proxy write (POST, created ${clientId})`])
  expect(await page.getByRole('textbox', { name: 'About (identity ID, client ID or setting key)' }).inputValue()).toBe(clientId)
  await page.getByRole('search', { name: 'Filter by what it is about' }).getByRole('button', { name: 'Filter' }).click()
  await page.getByRole('status').getByText('1 audit event shown.').waitFor()
  expect(new URL(page.url()).searchParams.get('about')).toBe(clientId)
  expect(await rows.locator('td:nth-child(3)').allTextContents()).toEqual([`proxy write (POST, created ${clientId})`])
  expect(admin.problems).toEqual([])
})

test('a prune of the audit trail (the command line’s audit prune) says how many events from before when it deleted, and one still under way that it has not finished', async () => {
  admin.problems.length = 0
  const { audit } = admin.harness.sandbox.services
  await audit.record({ action: 'audit_prune', actor: null, target: null, detail: { before: '2025-03-01T09:30:00.000Z', outcome: 'started' } })
  await audit.record({ action: 'audit_prune', actor: null, target: null, detail: { before: '2025-03-01T09:30:00.000Z', deleted: 12003, outcome: 'ok' } })
  await admin.page.goto(admin.url('/dashboard/audit'))
  const select = admin.page.getByRole('combobox', { name: 'Action' })
  await select.selectOption({ label: 'audit prune' })
  const rows = admin.page.getByRole('table').locator('tbody tr')
  await rows.nth(1).waitFor()
  const when = await admin.page.evaluate(() => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'long' }).format(new Date('2025-03-01T09:30:00.000Z')))
  expect(await rows.nth(0).locator('td').allTextContents()).toEqual([expect.any(String), 'command line', `audit prune (12,003 events recorded before ${when} deleted)`, '—', 'ok'])
  expect(await rows.nth(1).locator('td').allTextContents()).toEqual([expect.any(String), 'command line', `audit prune (events recorded before ${when})`, '—', 'started'])
  expect(admin.problems).toEqual([])
})

test('Security shows every posture check with what to do about each warning, and the configuration without secrets', async () => {
  await admin.page.goto(admin.url('/dashboard/security'))
  const posture = admin.page.getByRole('region', { name: 'Posture checks' })
  await posture.getByText(/checks needs? attention/).waitFor()
  // The sandbox runs in development: the cookie check warns and says what to do.
  const cookies = posture.getByRole('listitem').filter({ hasText: 'NODE_ENV=development' })
  expect(await cookies.getByText('Warning', { exact: true }).count()).toBe(1)
  expect(await cookies.textContent()).toContain('What to do: Run with NODE_ENV=production')
  const configuration = admin.page.getByRole('region', { name: 'Effective configuration' })
  expect(await configuration.textContent()).toContain('Encryption available')
  const html = await admin.page.content()
  for (const secret of [admin.harness.sandbox.env.SESSION_SIGNING_KEY!, admin.harness.sandbox.env.ENCRYPTION_KEY!, admin.harness.sandbox.kratos.url]) expect(html).not.toContain(secret)
})

test('End dashboard sessions signs that identity out of its open browser', async () => {
  const viewer = await signedInPage(admin.harness, 'viewer')
  try {
    await viewer.page.getByRole('region', { name: 'Services' }).waitFor()
    const viewerCookie = (await viewer.context.cookies()).find((c) => c.name === 'admin-session')!.value
    expect((await fetch(admin.url('/api/auth/session'), { headers: { cookie: `admin-session=${viewerCookie}` } })).status).toBe(200)
    await admin.page.goto(admin.url('/dashboard/security'))
    const form = admin.page.getByRole('region', { name: 'End dashboard sessions' })
    await form.getByRole('button', { name: 'End dashboard sessions' }).click()
    await form.getByText(/Enter an identity ID/).waitFor()
    // Focus goes to the field that says why, so the reason is read out with it.
    expect(await admin.page.evaluate(() => [document.activeElement?.id, document.activeElement?.getAttribute('aria-describedby')])).toEqual(['end-sessions-id', 'end-sessions-error'])
    // The operator's own identity: the question says their own session ends too; Cancel keeps it.
    await form.getByRole('textbox', { name: 'Identity ID' }).fill(identityIdOf(SANDBOX_USERS.admin).toUpperCase())
    await form.getByRole('button', { name: 'End dashboard sessions' }).click()
    const own = admin.page.getByRole('dialog', { name: 'End dashboard sessions?' })
    await own.getByText('That is your own identity: your session in this browser ends too, and you go through the sign-in again.').waitFor()
    await own.getByRole('button', { name: 'Cancel' }).click()
    await own.waitFor({ state: 'hidden' })
    const viewerId = identityIdOf(SANDBOX_USERS.viewer)
    await form.getByRole('textbox', { name: 'Identity ID' }).fill(viewerId)
    await form.getByRole('button', { name: 'End dashboard sessions' }).click()
    const dialog = admin.page.getByRole('dialog', { name: 'End dashboard sessions?' })
    expect(await dialog.getByText(/your own identity/).count()).toBe(0)
    // Named by who it is, as the login identity store has it.
    await dialog.getByText(`Every dashboard session of ${SANDBOX_USERS.viewer} (${viewerId}) stops working now.`).waitFor()
    await dialog.getByRole('button', { name: 'End dashboard sessions' }).click()
    await admin.page.getByRole('status').getByText(`Every dashboard session of ${SANDBOX_USERS.viewer} has ended.`).waitFor()
    // The viewer's cookie is refused from now on; the viewer's browser, on its next request, is
    // refused too and sent to sign in (the provider may sign it in again at once: that is a new session).
    const refused = viewer.page.waitForResponse((r) => r.url() === admin.url('/api/auth/session') && r.status() === 401)
    const toLogin = viewer.page.waitForRequest((r) => new URL(r.url()).pathname === '/api/auth/login')
    await viewer.page.reload()
    await refused
    await toLogin
    const oldCookie = `admin-session=${viewerCookie}`
    const answer = await fetch(admin.url('/api/auth/session'), { headers: { cookie: oldCookie } })
    expect(answer.status).toBe(401)
  } finally {
    await viewer.context.close()
  }
})

test('End dashboard sessions for an ID no identity has (a typing mistake): the question says so before, and the outcome after, instead of naming someone signed out', async () => {
  const unknownId = '00000000-0000-4000-8000-000000000000'
  await admin.page.goto(admin.url('/dashboard/security'))
  await admin.page.getByRole('heading', { level: 1, name: 'Security' }).waitFor()
  const form = admin.page.getByRole('region', { name: 'End dashboard sessions' })
  await form.getByRole('textbox', { name: 'Identity ID' }).fill(unknownId)
  await form.getByRole('button', { name: 'End dashboard sessions' }).click()
  const dialog = admin.page.getByRole('dialog', { name: 'End dashboard sessions?' })
  await dialog.getByText('The login identity store has no identity with this ID: check it for a typing mistake.', { exact: false }).waitFor()
  expect(await dialog.getByText(`Every dashboard session of ${unknownId} stops working now.`).count()).toBe(1)
  expect(await sweep(admin.page, 'end-sessions-unknown', () => dialog.waitFor())).toEqual([])
  await dialog.getByRole('button', { name: 'End dashboard sessions' }).click()
  await admin.page.getByRole('status').getByText(`No identity has the ID ${unknownId}; any dashboard session of that ID has ended.`).waitFor()
  // The browser reports the lookup's 404 (Kratos has no such identity); nothing else.
  expect(admin.problems.filter((problem) => !/status of 404\b/.test(problem))).toEqual([])
  admin.problems.length = 0
})

test('End dashboard sessions under way stays until it is answered: Cancel is unavailable with its button and Escape does nothing, so no session ends behind a Cancel', async () => {
  const viewer = await signedInPage(admin.harness, 'viewer')
  try {
    await viewer.page.getByRole('region', { name: 'Services' }).waitFor()
    const viewerCookie = (await viewer.context.cookies()).find((c) => c.name === 'admin-session')!.value
    const viewerSession = async () => (await fetch(admin.url('/api/auth/session'), { headers: { cookie: `admin-session=${viewerCookie}` } })).status
    const viewerId = identityIdOf(SANDBOX_USERS.viewer)
    await admin.page.goto(admin.url('/dashboard/security'))
    await admin.page.getByRole('heading', { level: 1, name: 'Security' }).waitFor()
    const form = admin.page.getByRole('region', { name: 'End dashboard sessions' })
    const dialog = admin.page.getByRole('dialog', { name: 'End dashboard sessions?' })
    const field = form.getByRole('textbox', { name: 'Identity ID' })
    const hold = await holdRequests(admin.page, (url) => url.pathname === '/api/security/sessions/revoke', 'POST')
    try {
      // From the keyboard: Enter in the field asks, with focus on Cancel; Enter on the question's button answers.
      await field.fill(viewerId)
      await field.press('Enter')
      await dialog.waitFor()
      expect(await admin.page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel')
      await admin.page.keyboard.press('Shift+Tab')
      expect(await admin.page.evaluate(() => document.activeElement?.textContent)).toBe('End dashboard sessions')
      await admin.page.keyboard.press('Enter')
      await dialog.locator('button[aria-disabled="true"]', { hasText: 'Cancel' }).waitFor()
      expect(await dialog.getByRole('button', { name: 'End dashboard sessions' }).getAttribute('aria-disabled')).toBe('true')
      // Focus stays on the pressed button, in the question, which says it is waiting.
      expect(await admin.page.evaluate(() => (document.activeElement?.closest('dialog') ? document.activeElement.textContent : null))).toBe('End dashboard sessions')
      expect(await dialog.getAttribute('aria-busy')).toBe('true')
      // Twice: Chromium lets a page refuse a dialog's cancel event only once per click or key other than Escape.
      await admin.page.keyboard.press('Escape')
      await admin.page.keyboard.press('Escape')
      expect(await dialog.isVisible()).toBe(true)
      await dialog.getByRole('button', { name: 'Cancel' }).click({ force: true })
      expect(await dialog.isVisible()).toBe(true)
      expect(await viewerSession()).toBe(200)
      hold.release()
      await admin.page.getByRole('status').getByText(`Every dashboard session of ${SANDBOX_USERS.viewer} has ended.`).waitFor()
    } finally {
      await hold.stop()
    }
    await dialog.waitFor({ state: 'hidden' })
    expect(await admin.page.evaluate(() => document.activeElement?.id)).toBe('end-sessions-id')
    expect(await field.inputValue()).toBe('')
    expect(await viewerSession()).toBe(401)
    expect(admin.problems).toEqual([])
  } finally {
    await viewer.context.close()
  }
})

test('on a device whose next frame is late, a dialog is open in the render that opens it: keys go into it, Customize keeps a Space and the moved button keeps focus', async () => {
  await admin.harness.sandbox.services.settings.write({ key: 'slow.device.flag', value: 'on', category: 'features' }, null)
  const other = await signedInPage(admin.harness, 'admin', '/dashboard/settings')
  try {
    const { page } = other
    // Every frame and timer of the page from here on is the fake clock's.
    await page.clock.install()
    await page.getByRole('button', { name: 'Delete slow.device.flag' }).waitFor()
    // A slow device: the page's next frame does not come while the person acts.
    await page.clock.pauseAt(Date.now() + 60_000)
    await page.getByRole('button', { name: 'Add setting' }).focus()
    await page.keyboard.press('Enter')
    await page.keyboard.type('typed.at.once')
    const dialog = page.getByRole('dialog', { name: 'Add setting' })
    expect(await dialog.getByRole('textbox', { name: 'Key' }).inputValue()).toBe('typed.at.once')
    // Escape asks first (something is typed); the person lets it go.
    const asked: string[] = []
    page.once('dialog', (question) => (asked.push(question.message()), void question.accept()))
    await page.keyboard.press('Escape')
    expect(asked).toEqual(['Your changes to the new setting are not saved. Close anyway?'])
    expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Add setting')
    // Opened again: the form is empty, before any key can reach it.
    await page.keyboard.press('Enter')
    expect(await dialog.getByRole('textbox', { name: 'Key' }).inputValue()).toBe('')
    await page.keyboard.press('Escape')
    expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Add setting')
    // A confirmation, which has no form to reset: open, and holding focus, at once.
    await page.getByRole('button', { name: 'Delete slow.device.flag' }).focus()
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Delete slow.device.flag')
    await page.keyboard.press('Enter')
    expect(await page.getByRole('dialog', { name: 'Delete setting?' }).isVisible()).toBe(true)
    expect(await page.evaluate(() => document.activeElement?.closest('dialog')?.getAttribute('aria-labelledby') ?? null)).not.toBeNull()
    await page.keyboard.press('Escape')
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Delete slow.device.flag')

    await page.clock.resume()
    await page.getByRole('link', { name: 'Overview' }).click()
    await page.getByRole('region', { name: 'Latest audit events' }).waitFor()
    await page.clock.pauseAt(Date.now() + 120_000)
    await page.getByRole('button', { name: 'Customize' }).focus()
    await page.keyboard.press('Enter')
    // The dialog's first control has focus as it opens: a Space pressed at once is kept.
    await page.keyboard.press('Space')
    // The late frame comes: nothing left waiting for it undoes the Space.
    await page.clock.runFor(200)
    const customize = page.getByRole('dialog', { name: 'Customize the overview' })
    expect(await customize.getByRole('checkbox', { name: 'Show Services' }).isChecked()).toBe(false)
    await customize.getByRole('button', { name: 'Move Latest audit events up' }).focus()
    await page.keyboard.press('Enter')
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Move Latest audit events up')
    await page.keyboard.press('Enter')
    // At the top, focus stays on the button, which says it is unavailable: pressed again, nothing moves.
    const up = customize.getByRole('button', { name: 'Move Latest audit events up' })
    expect([await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), await up.getAttribute('aria-disabled')]).toEqual(['Move Latest audit events up', 'true'])
    await page.keyboard.press('Enter')
    await page.keyboard.press('Space')
    expect(await customize.locator('li label').allTextContents()).toEqual(['Show Latest audit events', 'Show Services', 'Show Session map'])
    expect(await customize.getByRole('status').textContent()).toBe('Latest audit events moved to position 1 of 3.')
    page.once('dialog', (question) => (asked.push(question.message()), void question.accept()))
    await page.keyboard.press('Escape')
    expect(asked.at(-1)).toBe('Your changes to the overview arrangement are not saved. Close anyway?')
    expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Customize')

    // Back pressed as soon as a question is open, on a page that stays (the identities' first page
    // from the second): the question goes with the page it was about.
    await page.clock.resume()
    await page.getByRole('link', { name: 'Identities' }).click()
    const table = page.getByRole('table', { name: /Identities/ })
    await table.waitFor()
    await page.getByRole('button', { name: 'Next page' }).click()
    await page.waitForURL(/page_token=/)
    await table.getByRole('checkbox', { name: /^Select (?!all on this page)/ }).nth(0).check()
    await page.clock.pauseAt(Date.now() + 180_000)
    await page.getByRole('button', { name: 'Delete', exact: true }).focus()
    await page.keyboard.press('Enter')
    await page.goBack()
    await page.waitForURL((address) => !address.search.includes('page_token'))
    await page.getByRole('dialog').waitFor({ state: 'hidden' })
    expect(other.problems).toEqual([])
  } finally {
    await other.context.close()
  }
})

test('an admin customizes the Overview with the keyboard, signs out and in, and finds it as left', async () => {
  await admin.page.goto(admin.url('/dashboard'))
  await admin.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
  // The heading comes before the stored arrangement has been read and its sections drawn.
  await admin.page.getByRole('region', { name: 'Latest audit events' }).waitFor()
  const titles = () => admin.page.locator('main .sections > section h2').allTextContents()
  expect(await titles()).toEqual(['Services', 'Session map', 'Latest audit events'])
  await tabTo(admin.page, 'Customize')
  await admin.page.keyboard.press('Enter')
  const dialog = admin.page.getByRole('dialog', { name: 'Customize the overview' })
  await dialog.waitFor()
  await tabTo(admin.page, 'Show Session map')
  await admin.page.keyboard.press('Space')
  expect(await dialog.getByRole('checkbox', { name: 'Show Session map' }).isChecked()).toBe(false)
  await tabTo(admin.page, 'Move Latest audit events up')
  await admin.page.keyboard.press('Enter')
  // Focus stays on the moved widget's button, so it can move again at once.
  await admin.page.keyboard.press('Enter')
  // Said inside the dialog: the page's status region behind a modal dialog is out of reach.
  await dialog.getByRole('status').getByText('Latest audit events moved to position 1 of 3.').waitFor()
  expect(await admin.page.locator('.status-region').textContent()).not.toContain('moved to position')
  await tabTo(admin.page, 'Save')
  await admin.page.keyboard.press('Enter')
  await admin.page.getByRole('status').getByText('Overview arrangement saved.').waitFor()
  expect(await titles()).toEqual(['Latest audit events', 'Services'])

  const stored = await admin.context.request.get(admin.url('/api/dashboard/layout'))
  expect(await stored.json()).toEqual({ layout: { overview: { order: ['audit', 'services', 'map'], hidden: ['map'] } } })

  await admin.page.getByRole('button', { name: 'Sign out' }).click()
  await admin.page.getByRole('heading', { level: 1, name: 'Signed out' }).waitFor()
  await admin.page.getByRole('link', { name: 'Sign in again' }).click()
  // The provider may still remember the admin and send the browser straight back.
  await admin.page.waitForURL((u) => u.origin === admin.harness.sandbox.providerUrl || u.pathname === '/dashboard')
  if (new URL(admin.page.url()).origin === admin.harness.sandbox.providerUrl) await signIn(admin.page, admin.harness.sandbox, 'admin')
  await admin.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
  await admin.page.getByRole('region', { name: 'Latest audit events' }).waitFor()
  expect(await titles()).toEqual(['Latest audit events', 'Services'])
})

test('keyboard only: Settings → Add setting dialog → Escape back to its opener; Security → the end-sessions form', async () => {
  await admin.page.goto(admin.url('/dashboard/settings'))
  await admin.page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor()
  await tabTo(admin.page, 'Add setting')
  await admin.page.keyboard.press('Enter')
  await admin.page.getByRole('dialog', { name: 'Add setting' }).waitFor()
  expect(await admin.page.evaluate(() => document.activeElement?.id)).toBe('setting-key')
  await admin.page.keyboard.press('Escape')
  expect(await admin.page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Add setting')
  await admin.page.goto(admin.url('/dashboard/security'))
  await admin.page.getByRole('heading', { level: 1, name: 'Security' }).waitFor()
  await tabTo(admin.page, 'Identity ID')
  await admin.page.keyboard.type(identityIdOf('user01@example.test'))
  await admin.page.keyboard.press('Enter')
  const dialog = admin.page.getByRole('dialog', { name: 'End dashboard sessions?' })
  await dialog.waitFor()
  await admin.page.keyboard.press('Escape')
  expect(await dialog.isVisible()).toBe(false)
})

test('Settings and Security pass the sweep: light and dark, desktop and phone', async () => {
  await admin.page.goto(admin.url('/dashboard/settings'))
  const found = await sweep(admin.page, 'settings', () => admin.page.getByRole('region', { name: 'Upstream API keys' }).waitFor())
  await admin.page.goto(admin.url('/dashboard/security'))
  found.push(...(await sweep(admin.page, 'security', () => admin.page.getByRole('region', { name: 'Posture checks' }).getByRole('listitem').first().waitFor())))
  expect(found).toEqual([])
  expect(admin.problems).toEqual([])
}, 90_000)

test('on a phone, an upstream API key row of a prefix not configured here reads as the others: the upstream beside its label, on its lines, not a column one word wide', async () => {
  await admin.page.setViewportSize(PHONE)
  try {
    await admin.page.goto(admin.url('/dashboard/settings'))
    const keys = admin.page.getByRole('region', { name: 'Upstream API keys' })
    const row = keys.getByRole('row').filter({ hasText: '/api/iam-idp-admin' })
    await row.getByText('(not configured on this service)').waitFor()
    const cell = row.getByRole('cell').filter({ hasText: 'Admins’ Kratos admin API' })
    const label = (await cell.locator('.cell-label').boundingBox())!
    const value = (await cell.locator(':scope > span:not(.cell-label)').boundingBox())!
    // Beside its label, on the label's first line, and as wide as the card allows.
    expect(value.x).toBeGreaterThan(label.x + label.width)
    expect(Math.abs(value.y - label.y)).toBeLessThan(8)
    expect(value.width).toBeGreaterThan(150)
  } finally {
    await admin.page.setViewportSize(DESKTOP)
  }
})
