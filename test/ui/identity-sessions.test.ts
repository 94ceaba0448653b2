// An administrator works through the sessions of an identity that has many: Kratos pages them by
// offset, 250 at a time by default, and the revoked ones come first when they are the newest. The
// page asks only for the active ones and shows them 25 at a time; every one of them can be
// reached and revoked, with the keyboard alone, and the stand-in says so afterwards.
import { expect, test } from 'bun:test'
import type { FixtureSession } from '../support/kratos.ts'
import { holdRequests, PHONE, sidewaysScroll, sweep, tabTo, useSignedInBrowser } from './harness.ts'

const admin = useSignedInBrowser('admin')

const SECTION = 'section[aria-labelledby="sessions-h"]'
const sessions = () => admin.page.getByRole('region', { name: 'Sessions' })
/** The device column of the rows shown, in order. */
const devicesShown = () => admin.page.locator(`${SECTION} tbody tr td:first-child`).allTextContents()
const rowsShown = (count: number) => admin.page.waitForFunction(({ section, count }) => document.querySelectorAll(`${section} tbody tr`).length === count && !document.querySelector(`${section} [aria-busy="true"]`), { section: SECTION, count })
/** The device of the row whose Revoke button has focus. */
const focusedDevice = () => admin.page.evaluate(() => (document.activeElement?.closest('tr')?.cells[0]?.textContent ?? `not a row: ${document.activeElement?.textContent}`))

/**
 * An identity with `revoked` revoked sessions, the newest, then `active` older ones, the newest
 * first named "Device 01", "Device 02", …
 */
function identityWithSessions(email: string, revoked: number, active: number): { id: string; active: FixtureSession[] } {
  const { kratos } = admin.harness.sandbox
  const { id } = kratos.addIdentity({ email, name: 'Many Sessions' })
  for (let i = 0; i < revoked; i++) kratos.addSession(id, { ip_address: '81.2.69.160', user_agent: `Revoked ${i + 1}` }, i / 10_000).active = false
  const live = Array.from({ length: active }, (_, i) => kratos.addSession(id, { ip_address: '81.2.69.160', user_agent: `Device ${String(i + 1).padStart(2, '0')}` }, 1 + i / 10_000))
  return { id, active: live }
}
const device = (n: number) => `Device ${String(n).padStart(2, '0')}`
const devices = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => device(from + i))
const stillActive = (id: string) => admin.harness.sandbox.kratos.sessions.filter((s) => s.identityId === id && s.active).map((s) => s.devices[0]!.user_agent)

test('past 260 revoked sessions, every one of 30 active ones is reached and revoked with the keyboard alone', async () => {
  const person = identityWithSessions('many.sessions@example.test', 260, 30)
  await admin.page.goto(admin.url(`/dashboard/identities/${person.id}`))
  await admin.page.getByRole('heading', { level: 1, name: 'many.sessions@example.test' }).waitFor()
  await rowsShown(25)
  expect(await devicesShown()).toEqual(devices(1, 25))
  await sessions().getByText('Showing the 25 newest of 30 active sessions.').waitFor()
  // Kratos was asked for active sessions only.
  const asked = admin.harness.sandbox.kratos.calls.filter((call) => call.method === 'GET' && call.path === `/admin/identities/${person.id}/sessions`)
  expect(asked.map((call) => Object.fromEntries(call.query))).toEqual([{ active: 'true', page: '1', per_page: '25' }])

  // One revoked from the keyboard: focus goes to the Revoke button of the session that took its place.
  await tabTo(admin.page, 'Revoke session 3')
  await admin.page.keyboard.press('Enter')
  await admin.page.getByRole('status').getByText('Session revoked.').waitFor()
  await rowsShown(24)
  expect(await focusedDevice()).toBe(device(4))
  await sessions().getByText('Showing the 24 newest of 29 active sessions.').waitFor()

  // The rest are shown, none skipped though the list moved up by one, and focus is on the first of them.
  await tabTo(admin.page, 'Show more sessions')
  await admin.page.keyboard.press('Enter')
  await rowsShown(29)
  await admin.page.getByRole('status').getByText('29 active sessions.').waitFor()
  expect(await devicesShown()).toEqual([...devices(1, 2), ...devices(4, 30)])
  expect(await focusedDevice()).toBe(device(26))
  expect(await sessions().getByRole('button', { name: 'Show more sessions' }).count()).toBe(0)
  expect((await devicesShown()).sort()).toEqual(stillActive(person.id).sort())

  // Enter, again and again: each press revokes the session whose button has focus, then focus
  // moves to the next (the one before it, at the end of the list).
  await tabTo(admin.page, 'Revoke session 1', 80, 'Shift+Tab')
  const remaining = [...devices(2, 2), ...devices(4, 30)]
  for (let left = 28; left >= 0; left--) {
    await admin.page.keyboard.press('Enter')
    await rowsShown(left)
    if (left > 0) expect(await focusedDevice()).toBe(remaining.shift()!)
  }
  await sessions().getByText('This identity has no active session.').waitFor()
  expect(stillActive(person.id)).toEqual([])
  expect(admin.harness.sandbox.kratos.sessions.filter((s) => s.identityId === person.id)).toHaveLength(290)
  expect(admin.problems).toEqual([])
}, 120_000)

test('when every session shown has been revoked, the next ones take their place', async () => {
  const person = identityWithSessions('next.ones@example.test', 3, 27)
  await admin.page.goto(admin.url(`/dashboard/identities/${person.id}`))
  await rowsShown(25)
  for (let left = 24; left >= 0; left--) {
    await sessions().getByRole('button', { name: 'Revoke session 1', exact: true }).click()
    await rowsShown(left === 0 ? 2 : left)
  }
  expect(await devicesShown()).toEqual(devices(26, 27))
  expect(await focusedDevice()).toBe(device(26))
  await sessions().getByText('2 active sessions.').waitFor()
  expect(stillActive(person.id).sort()).toEqual(devices(26, 27))
  expect(admin.problems).toEqual([])
}, 60_000)

test('Revoke all sessions signs the identity out of every one, shown or not', async () => {
  const person = identityWithSessions('revoke.all@example.test', 10, 40)
  await admin.page.goto(admin.url(`/dashboard/identities/${person.id}`))
  await rowsShown(25)
  await sessions().getByRole('button', { name: 'Revoke all sessions' }).click()
  await admin.page.getByRole('dialog', { name: 'Revoke all sessions?' }).getByRole('button', { name: 'Revoke' }).click()
  await sessions().getByText('This identity has no active session.').waitFor()
  expect(stillActive(person.id)).toEqual([])
  expect(admin.problems).toEqual([])
})

test('Revoke all sessions where Kratos has none (its 404) says there was none left; a session revoked that way elsewhere says it already was', async () => {
  // Another tab (or Kratos's own tools) revoked every session of this identity first: Kratos deleted them.
  const person = identityWithSessions('revoked.elsewhere@example.test', 0, 2)
  await admin.page.goto(admin.url(`/dashboard/identities/${person.id}`))
  await rowsShown(2)
  const elsewhere = await admin.page.request.delete(admin.url(`/api/idp-admin/admin/identities/${person.id}/sessions`), { headers: { origin: new URL(admin.url('/')).origin } })
  expect(elsewhere.status()).toBe(204)
  expect(admin.harness.sandbox.kratos.sessions.filter((session) => session.identityId === person.id)).toEqual([])
  // One still shown here: Kratos no longer has it.
  await sessions().getByRole('button', { name: 'Revoke session 1', exact: true }).click()
  await admin.page.getByRole('status').getByText('Session had already been revoked.').waitFor()
  await rowsShown(1)
  // All of them: none left.
  await sessions().getByRole('button', { name: 'Revoke all sessions' }).click()
  await admin.page.getByRole('dialog', { name: 'Revoke all sessions?' }).getByRole('button', { name: 'Revoke' }).click()
  await admin.page.getByRole('status').getByText('This identity had no session left to revoke.').waitFor()
  await sessions().getByText('This identity has no active session.').waitFor()
  expect(await admin.page.getByRole('alert').count()).toBe(0)
  expect(admin.problems.splice(0).every((problem) => /status of 404\b/.test(problem))).toBe(true)
})

test('the section with more to show passes the sweep, and on a phone Show more sessions is there without sideways scrolling', async () => {
  const person = identityWithSessions('swept.sessions@example.test', 5, 28)
  await admin.page.goto(admin.url(`/dashboard/identities/${person.id}`))
  const ready = async () => {
    await rowsShown(25)
    // The end of the list in view: its last rows, Show more sessions and the section's actions.
    await sessions().getByRole('button', { name: 'Show more sessions' }).evaluate((button) => button.scrollIntoView({ block: 'center' }))
  }
  expect(await sweep(admin.page, 'identity-sessions', ready)).toEqual([])
  await admin.page.setViewportSize(PHONE)
  await sessions().getByRole('button', { name: 'Show more sessions' }).click()
  await rowsShown(28)
  expect(await sidewaysScroll(admin.page)).toBe(0)
  expect(admin.problems).toEqual([])
})

test('an inactive identity’s sessions are listed, marked as unusable until it is activated, and can be revoked', async () => {
  const person = identityWithSessions('deactivated.sessions@example.test', 2, 3)
  await admin.page.goto(admin.url(`/dashboard/identities/${person.id}`))
  await rowsShown(3)
  await sessions().getByText('3 active sessions.').waitFor()
  await admin.page.getByRole('button', { name: 'Deactivate' }).click()
  await admin.page.getByRole('status').getByText('Identity deactivated.').waitFor()
  // Kratos still lists them as neither revoked nor expired; they work again once it is active.
  await sessions().getByText('The identity is inactive, so none of these sessions can be used; they work again if it is activated.').waitFor()
  await sessions().getByText('3 sessions.').waitFor()
  await sessions().getByRole('button', { name: 'Revoke session 2' }).click()
  await rowsShown(2)
  expect(stillActive(person.id).sort()).toEqual([device(1), device(3)])
  expect(admin.problems).toEqual([])
})

/** Presses Show more sessions until it is gone, waiting for each read. */
async function showAll(): Promise<void> {
  const more = sessions().getByRole('button', { name: 'Show more sessions' })
  for (let i = 0; i < 10 && (await more.count()) > 0; i++) {
    const before = (await devicesShown()).join('|')
    await more.click()
    await admin.page.waitForFunction(
      ({ section, before }) =>
        !document.querySelector(`${section} .pager button[aria-disabled="true"]`) &&
        [...document.querySelectorAll(`${section} tbody tr td:first-child`)].map((cell) => cell.textContent).join('|') !== before,
      { section: SECTION, before },
    )
  }
  expect(await more.count()).toBe(0)
}

test('sessions that end elsewhere while the page is open (one expires, one is signed out): Show more still reaches every active one', async () => {
  const person = identityWithSessions('shrinking.list@example.test', 0, 30)
  await admin.page.goto(admin.url(`/dashboard/identities/${person.id}`))
  await rowsShown(25)
  person.active[2]!.expires_at = new Date(Date.now() - 1000).toISOString()
  person.active[3]!.active = false
  await showAll()
  // The list as it is now: the two that ended are gone, and none after them was skipped.
  expect(await devicesShown()).toEqual([...devices(1, 2), ...devices(5, 30)])
  await sessions().getByText('28 active sessions.').waitFor()
}, 60_000)

test('25 newer sessions made while the page is open (a client signing in again and again): Show more reaches the older ones too', async () => {
  const person = identityWithSessions('growing.list@example.test', 0, 30)
  await admin.page.goto(admin.url(`/dashboard/identities/${person.id}`))
  await rowsShown(25)
  const { kratos } = admin.harness.sandbox
  for (let i = 0; i < 25; i++) kratos.addSession(person.id, { ip_address: '81.2.69.161', user_agent: `New ${i + 1}` }, -(i + 1) / 100_000)
  await showAll()
  const shown = await devicesShown()
  expect(shown).toHaveLength(55)
  expect(shown.slice(25)).toEqual(devices(1, 30))
  await sessions().getByText('55 active sessions.').waitFor()
}, 60_000)

test('while Show more is reading, Revoke and Revoke all wait for it (unavailable; a press does nothing), and what Revoke all ended does not come back', async () => {
  const person = identityWithSessions('busy.list@example.test', 0, 40)
  await admin.page.goto(admin.url(`/dashboard/identities/${person.id}`))
  await rowsShown(25)
  const slow = await holdRequests(admin.page, (url) => url.pathname.endsWith(`/identities/${person.id}/sessions`) && url.searchParams.get('per_page') === '50')
  try {
    await sessions().getByRole('button', { name: 'Show more sessions' }).click()
    await admin.page.waitForFunction((section) => document.querySelector(`${section} .pager button`)?.getAttribute('aria-disabled') === 'true', SECTION)
    // Said to be unavailable rather than disabled, so the pressed button keeps the focus.
    expect(await admin.page.evaluate(() => document.activeElement?.textContent)).toBe('Show more sessions')
    expect(await sessions().getByRole('button', { name: 'Revoke session 5', exact: true }).getAttribute('aria-disabled')).toBe('true')
    // Pressed anyway (past Playwright's own wait for an enabled button): nothing is revoked.
    await sessions().getByRole('button', { name: 'Revoke session 5', exact: true }).click({ force: true })
    await Bun.sleep(200)
    expect(stillActive(person.id)).toHaveLength(40)
    await sessions().getByRole('button', { name: 'Revoke all sessions' }).click()
    const confirm = admin.page.getByRole('dialog', { name: 'Revoke all sessions?' }).getByRole('button', { name: 'Revoke', exact: true })
    expect(await confirm.isDisabled()).toBe(true)
    slow.release()
    await rowsShown(40)
    await confirm.click()
    await sessions().getByText('This identity has no active session.').waitFor()
    expect(stillActive(person.id)).toEqual([])
    await Bun.sleep(500)
    expect(await devicesShown()).toEqual([])
  } finally {
    await slow.stop()
  }
}, 60_000)

test('25 sessions from one address: its place is asked for once, not once per row', async () => {
  const person = identityWithSessions('one.address@example.test', 0, 25)
  const asked: string[] = []
  const count = (request: { url(): string }) => {
    if (new URL(request.url()).pathname === '/api/geo') asked.push(request.url())
  }
  admin.page.on('request', count)
  try {
    await admin.page.goto(admin.url(`/dashboard/identities/${person.id}`))
    await rowsShown(25)
    await admin.page.locator(`${SECTION} tbody tr`).first().getByText('United Kingdom').waitFor()
    await admin.page.waitForFunction((section) => [...document.querySelectorAll(`${section} tbody tr td:nth-child(3)`)].every((cell) => cell.textContent === 'United Kingdom'), SECTION)
    expect(asked).toHaveLength(1)
  } finally {
    admin.page.off('request', count)
  }
}, 60_000)

test('sessions from private, loopback, link-local and documentation addresses show no place and ask the geo route nothing (no 404 for the browser to report); a public address beside them is placed', async () => {
  admin.problems.length = 0
  const { kratos } = admin.harness.sandbox
  const { id } = kratos.addIdentity({ email: 'office.network@example.test', name: 'Office Network' })
  const reserved = ['10.1.2.3', '192.168.1.20', '172.20.0.5', '127.0.0.1', '100.64.1.1', '169.254.3.4', '192.0.2.44', '198.51.100.7', '203.0.113.9', 'fd12:3456::1', 'fe80::1', '2001:db8::7', '::1', '::ffff:10.0.0.1']
  reserved.forEach((ip, index) => kratos.addSession(id, { ip_address: ip, user_agent: `Office ${ip}` }, 1 + index / 1000))
  kratos.addSession(id, { ip_address: '81.2.69.160', user_agent: 'Travelling' }, 0)
  const asked: string[] = []
  const count = (request: { url(): string }) => {
    const url = new URL(request.url())
    if (url.pathname === '/api/geo') asked.push(url.searchParams.get('ip')!)
  }
  admin.page.on('request', count)
  try {
    await admin.page.goto(admin.url(`/dashboard/identities/${id}`))
    await rowsShown(reserved.length + 1)
    const row = (device: string) => admin.page.locator(`${SECTION} tbody tr`).filter({ has: admin.page.getByRole('cell', { name: device, exact: true }) })
    await row('Travelling').getByText('United Kingdom').waitFor()
    for (const ip of reserved) expect([ip, await row(`Office ${ip}`).locator('td:nth-child(3)').textContent()]).toEqual([ip, '—'])
    expect(asked).toEqual(['81.2.69.160'])
  } finally {
    admin.page.off('request', count)
  }
  expect(admin.problems).toEqual([])
})

test('after Revoke all, the list’s buttons stay unavailable until the list is read again, so nothing is pressed on rows already revoked', async () => {
  const person = identityWithSessions('reloading.list@example.test', 0, 30)
  await admin.page.goto(admin.url(`/dashboard/identities/${person.id}`))
  await rowsShown(25)
  let revoked = false
  const reload = await holdRequests(admin.page, (url) => revoked && url.pathname.endsWith(`/identities/${person.id}/sessions`))
  try {
    await sessions().getByRole('button', { name: 'Revoke all sessions' }).click()
    revoked = true
    await admin.page.getByRole('dialog', { name: 'Revoke all sessions?' }).getByRole('button', { name: 'Revoke', exact: true }).click()
    await admin.page.getByRole('status').getByText('All sessions of this identity were revoked.').waitFor()
    expect(stillActive(person.id)).toEqual([])
    // The list is being read again: the old rows' buttons cannot be pressed meanwhile.
    expect(await sessions().getByRole('button', { name: 'Show more sessions' }).getAttribute('aria-disabled')).toBe('true')
    expect(await sessions().getByRole('button', { name: 'Revoke session 1', exact: true }).getAttribute('aria-disabled')).toBe('true')
    reload.release()
    await sessions().getByText('This identity has no active session.').waitFor()
  } finally {
    await reload.stop()
  }
}, 60_000)
