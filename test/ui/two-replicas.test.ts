// Two administrators at once, each in a browser of their own signed in at one of two replicas on
// one PostgreSQL database (as behind a balancer): what one does is what the other finds, nothing
// one saves is undone unseen by the other, and an outage of the database or of a replica is said
// and recovered from.
import { expect, test } from 'bun:test'
import type { BrowserContext, Page, Request } from 'playwright-core'
import { SANDBOX_USERS } from '../../dev/sandbox.ts'
import { within } from '../support/eventually.ts'
import { markSecret } from '../support/leaks.ts'
import { sweep } from './harness.ts'
import { operatorAt, useReplicaHarness } from './replicas.ts'

const cluster = useReplicaHarness()

const settingsRow = (page: Page, key: string) => page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: key, exact: true }) })
const storedSetting = async (key: string) => (await cluster.a.services.settings.list()).find((setting) => setting.key === key)

test('two administrators edit one setting on two replicas: the later Save does not undo the earlier one unseen; it shows what is stored now, and Save again replaces it', async () => {
  await cluster.a.services.settings.write({ key: 'mail.from_name', value: 'Identity Team', category: 'mail' }, null)
  const first = await operatorAt(cluster, cluster.a, 'admin', '/dashboard/settings')
  const second = await operatorAt(cluster, cluster.b, 'admin', '/dashboard/settings')
  try {
    await first.page.getByRole('button', { name: 'Edit mail.from_name' }).click()
    await second.page.getByRole('button', { name: 'Edit mail.from_name' }).click()
    const firstEdit = first.page.getByRole('dialog', { name: 'Edit mail.from_name' })
    const secondEdit = second.page.getByRole('dialog', { name: 'Edit mail.from_name' })
    await firstEdit.getByRole('textbox', { name: 'Value' }).fill('Platform Team')
    await secondEdit.getByRole('textbox', { name: 'Value' }).fill('Support Team')
    await firstEdit.getByRole('button', { name: 'Save' }).click()
    await first.page.getByRole('status').getByText('Setting mail.from_name saved.').waitFor()

    await secondEdit.getByRole('button', { name: 'Save' }).click()
    await secondEdit.getByRole('alert').getByText('Not saved: this setting changed since the page loaded.').waitFor()
    expect(await sweep(second.page, 'settings-changed-meanwhile', () => secondEdit.getByRole('alert').waitFor())).toEqual([])
    expect(await secondEdit.getByLabel('Stored value:').textContent()).toBe('Platform Team')
    expect((await storedSetting('mail.from_name'))?.value).toBe('Platform Team')
    // The edit is kept, and the list behind the dialog shows what is stored now.
    expect(await secondEdit.getByRole('textbox', { name: 'Value' }).inputValue()).toBe('Support Team')
    await settingsRow(second.page, 'mail.from_name').getByRole('cell', { name: 'Platform Team' }).waitFor()

    // Knowingly, now: the second Save replaces it.
    await secondEdit.getByRole('button', { name: 'Save' }).click()
    await second.page.getByRole('status').getByText('Setting mail.from_name saved.').waitFor()
    expect((await storedSetting('mail.from_name'))?.value).toBe('Support Team')
    expect([...first.problems, ...second.problems]).toEqual([])
  } finally {
    await first.context.close()
    await second.context.close()
  }
})

test('an encrypted setting saved again on one replica and revealed on the other: the value as it is now, and the row says it was saved since the list was read; deleted there, Reveal takes the row away and says so', async () => {
  await cluster.a.services.settings.write({ key: 'smtp.password', value: 'smtp-old-0001', encrypted: true, category: 'mail' }, null)
  const first = await operatorAt(cluster, cluster.a, 'admin', '/dashboard/settings')
  const second = await operatorAt(cluster, cluster.b, 'admin', '/dashboard/settings')
  try {
    const row = settingsRow(second.page, 'smtp.password')
    await row.getByRole('button', { name: 'Reveal smtp.password' }).waitFor()
    await first.page.getByRole('button', { name: 'Edit smtp.password' }).click()
    const edit = first.page.getByRole('dialog', { name: 'Edit smtp.password' })
    await edit.getByRole('textbox', { name: 'Value' }).fill('smtp-new-0002')
    await edit.getByRole('button', { name: 'Save' }).click()
    await first.page.getByRole('status').getByText('Setting smtp.password saved.').waitFor()

    await row.getByRole('button', { name: 'Reveal smtp.password' }).click()
    await row.getByText('smtp-new-0002').waitFor()
    const savedAgain = row.getByText(/^Saved again on .*, since the list was read: Reveal shows the value as it is now\.$/)
    await savedAgain.waitFor()
    expect(await sweep(second.page, 'settings-saved-again', () => savedAgain.waitFor())).toEqual([])

    // Made plain there: said too.
    await cluster.a.services.settings.write({ key: 'smtp.password', value: 'smtp-plain-0003', category: 'mail' }, null)
    await row.getByRole('button', { name: 'Hide smtp.password' }).click()
    await row.getByRole('button', { name: 'Reveal smtp.password' }).click()
    await row.getByText('smtp-plain-0003').waitFor()
    await row.getByText(/, and now stored in plain text: Reveal shows/).waitFor()

    await first.page.reload()
    await first.page.getByRole('button', { name: 'Delete smtp.password' }).click()
    await first.page.getByRole('dialog', { name: 'Delete setting?' }).getByRole('button', { name: 'Delete' }).click()
    await first.page.getByRole('status').getByText('Setting smtp.password deleted.').waitFor()
    await row.getByRole('button', { name: 'Hide smtp.password' }).click()
    await row.getByRole('button', { name: 'Reveal smtp.password' }).click()
    await second.page.getByRole('status').getByText('Setting smtp.password was deleted since the page loaded.').waitFor()
    await row.waitFor({ state: 'detached' })
    expect(await storedSetting('smtp.password')).toBeUndefined()
    expect(first.problems).toEqual([])
    expect(second.problems).toEqual([expect.stringContaining('status of 404')])
  } finally {
    await first.context.close()
    await second.context.close()
  }
})

/** The cookie header a browser sends to `serviceUrl`. */
const cookieOf = async (context: BrowserContext, serviceUrl: string) => (await context.cookies(serviceUrl)).map((cookie) => `${cookie.name}=${cookie.value}`).join('; ')

test('an administrator on one replica ends the dashboard sessions of a viewer signed in at the other: refused there within 1 s, and the viewer’s wall screen says an administrator may have ended it', async () => {
  const viewer = await operatorAt(cluster, cluster.a, 'viewer', '/dashboard')
  const admin = await operatorAt(cluster, cluster.b, 'admin', '/dashboard/security')
  try {
    await viewer.page.clock.install()
    await viewer.page.reload()
    await viewer.page.getByRole('region', { name: 'Services' }).getByText('Up', { exact: true }).first().waitFor()
    await viewer.page.waitForLoadState('networkidle')
    const viewerCookie = await cookieOf(viewer.context, cluster.a.url)
    const sessionAtA = async () => (await fetch(`${cluster.a.url}/api/auth/session`, { headers: { cookie: viewerCookie } })).status

    const viewerId = [...cluster.sandbox.kratos.identities.values()].find((identity) => identity.traits.email === SANDBOX_USERS.viewer)!.id
    await admin.page.getByRole('textbox', { name: 'Identity ID' }).fill(viewerId)
    await admin.page.getByRole('button', { name: 'End dashboard sessions' }).click()
    await admin.page.getByRole('dialog', { name: 'End dashboard sessions?' }).getByRole('button', { name: 'End dashboard sessions' }).click()
    await admin.page.getByRole('status').getByText(`Every dashboard session of ${SANDBOX_USERS.viewer} has ended.`).waitFor()
    expect(await within(1000, async () => (await sessionAtA()) === 401)).not.toBeNull()

    // The overview's own check finds it, shows "Session ended" in place and says why it may have.
    await viewer.page.clock.runFor(30_000)
    await viewer.page.getByRole('heading', { level: 1, name: 'Session ended' }).waitFor()
    await viewer.page.getByText('Your dashboard session has ended: it expired, you signed out in another window, or an administrator ended it.', { exact: false }).waitFor()
    expect(admin.problems).toEqual([])
  } finally {
    await viewer.context.close()
    await admin.context.close()
  }
})

test('an API key set, replaced and removed through one replica’s page: the other replica’s next calls carry the new key, and none after the removal, within 1 s', async () => {
  const first = await operatorAt(cluster, cluster.a, 'admin', '/dashboard/settings')
  const second = await operatorAt(cluster, cluster.b, 'admin', '/dashboard/oauth-clients')
  const { hydra } = cluster.sandbox
  /** The key B's next call to Hydra carries, as Hydra received it. */
  const sentByB = async () => {
    const response = await second.context.request.get(`${cluster.b.url}/api/oauth-admin/admin/clients`)
    expect(response.status()).toBe(200)
    return hydra.calls.filter((call) => call.path === '/admin/clients').at(-1)?.headers.get('authorization') ?? null
  }
  try {
    expect(await sentByB()).toBeNull()
    const keys = ['ory_pat_first-0123456789', 'ory_pat_second-0123456789']
    markSecret(...keys)
    for (const key of keys) {
      await first.page.getByRole('button', { name: /^(Set|Replace) key for oauth-admin$/ }).click()
      const dialog = first.page.getByRole('dialog', { name: 'API key for /api/oauth-admin' })
      await dialog.getByLabel('API key').fill(key)
      await dialog.getByRole('button', { name: 'Save' }).click()
      await first.page.getByRole('status').getByText('API key for oauth-admin saved.').waitFor()
      expect(await within(1000, async () => (await sentByB()) === `Bearer ${key}`)).not.toBeNull()
    }
    // Removed because it leaked: B stops sending it.
    await first.page.getByRole('button', { name: 'Remove key for oauth-admin' }).click()
    await first.page.getByRole('dialog', { name: 'Remove API key?' }).getByRole('button', { name: 'Remove' }).click()
    await first.page.getByRole('status').getByText('API key for oauth-admin removed.').waitFor()
    expect(await within(1000, async () => (await sentByB()) === null)).not.toBeNull()
    expect([...first.problems, ...second.problems]).toEqual([])
  } finally {
    await first.context.close()
    await second.context.close()
  }
})

test('the audit log lists the events of both replicas, newest first; paging back through it while the other replica writes shows each once and skips none', async () => {
  const first = await operatorAt(cluster, cluster.a, 'admin', '/dashboard/audit')
  try {
    const keys = Array.from({ length: 110 }, (_, n) => `audit.both.${String(n).padStart(3, '0')}`)
    // Written on both at once, alternately.
    await Promise.all(keys.map((key, n) => (n % 2 === 0 ? cluster.a : cluster.b).services.settings.write({ key, value: 'v' }, null)))
    await first.page.goto(`${cluster.a.url}/dashboard/audit?action=settings_write`)
    const shown: string[] = []
    let later = 0
    for (;;) {
      const table = first.page.getByRole('table', { name: 'Audit events, newest first' })
      await table.waitFor()
      await first.page.waitForFunction(() => !document.querySelector('main [aria-busy="true"]'))
      const rows = await table.getByRole('row').allInnerTexts()
      shown.push(...rows.slice(1).map((row) => row.split('\t')[3]!.trim()))
      // Newer events keep coming on the other replica meanwhile.
      await Promise.all(Array.from({ length: 5 }, () => cluster.b.services.settings.write({ key: `audit.later.${later++}`, value: 'v' }, null)))
      const older = first.page.getByRole('button', { name: 'Older events' })
      if (await older.isDisabled()) break
      await older.click()
    }
    const ours = shown.filter((target) => target.startsWith('audit.both.'))
    expect(new Set(ours).size).toBe(ours.length)
    expect(ours.toSorted()).toEqual(keys)
    // Newest first: by id, the order the service took them in.
    const stored = await cluster.b.services.audit.list({ limit: 1000, action: 'settings_write' })
    expect(ours).toEqual(stored.map((event) => event.target ?? '').filter((target) => target.startsWith('audit.both.')))
    expect(shown.some((target) => target.startsWith('audit.later.'))).toBe(false)
    expect(first.problems).toEqual([])
  } finally {
    await first.context.close()
  }
})

test('an arrangement of the overview saved through one replica is the one the other shows', async () => {
  const first = await operatorAt(cluster, cluster.a, 'admin', '/dashboard')
  const second = await operatorAt(cluster, cluster.b, 'admin', '/dashboard')
  try {
    await first.page.getByRole('button', { name: 'Customize' }).click()
    const dialog = first.page.getByRole('dialog', { name: 'Customize the overview' })
    await dialog.getByRole('checkbox', { name: 'Show Session map' }).uncheck()
    await dialog.getByRole('button', { name: 'Move Latest audit events up' }).click()
    await dialog.getByRole('button', { name: 'Save' }).click()
    await first.page.getByRole('status').getByText('Overview arrangement saved.').waitFor()
    await second.page.reload()
    await second.page.getByRole('heading', { level: 2, name: 'Latest audit events' }).waitFor()
    expect(await second.page.getByRole('main').getByRole('heading', { level: 2 }).allInnerTexts()).toEqual(['Services', 'Latest audit events'])
    expect([...first.problems, ...second.problems]).toEqual([])
  } finally {
    await first.context.close()
    await second.context.close()
  }
})

test('PostgreSQL stopped for a moment, then a replica restarted, while pages are open: each says so in place and recovers, the wall screen by itself, a Save when pressed again', async () => {
  const wall = await operatorAt(cluster, cluster.a, 'admin', '/dashboard')
  const editor = await operatorAt(cluster, cluster.b, 'admin', '/dashboard/settings')
  const services = wall.page.getByRole('region', { name: 'Services' })
  /** The next timed check of the services, 30 s on: its status, 0 when no answer came. */
  const checkAgain = async () => {
    const isCheck = (request: Request) => new URL(request.url()).pathname === '/api/services/health'
    const finished = wall.page.waitForEvent('requestfinished', isCheck).then(async (request) => (await request.response())?.status() ?? 0)
    const failed = wall.page.waitForEvent('requestfailed', isCheck).then(() => 0)
    await wall.page.clock.runFor(30_000)
    return Promise.race([finished, failed].map((outcome) => outcome.catch(() => -1)))
  }
  const answers: string[] = []
  editor.page.on('response', (response) => answers.push(`${response.request().method()} ${new URL(response.url()).pathname} ${response.status()} at ${Math.round(performance.now())}`))
  editor.page.on('requestfailed', (request) => answers.push(`${request.method()} ${new URL(request.url()).pathname} failed at ${Math.round(performance.now())}`))
  try {
    await wall.page.clock.install()
    await wall.page.reload()
    await services.getByText('Up', { exact: true }).first().waitFor()
    await editor.page.getByRole('button', { name: 'Add setting' }).click()
    const dialog = editor.page.getByRole('dialog', { name: 'Add setting' })
    await dialog.getByRole('textbox', { name: 'Key' }).fill('outage.note')
    await dialog.getByRole('textbox', { name: 'Value' }).fill('written after the outage')

    await cluster.pg.stop()
    try {
      await dialog.getByRole('button', { name: 'Save' }).click()
      await dialog.getByRole('alert').getByText('The database is unavailable; try again shortly.').waitFor({ timeout: 15_000 })
      // Past the second the gate trusts what it knew, the timed check is refused: the last check stays, marked as such.
      await Bun.sleep(1200)
      expect(await checkAgain()).toBe(503)
      await services.getByText('The services could not be checked again; the last check is shown. The database is unavailable; try again shortly.').waitFor()
      // The last check's answers, said as such: a service may have gone down since.
      await services.getByText('Up at the last check', { exact: true }).first().waitFor()
      expect(await services.getByText('Up', { exact: true }).count()).toBe(0)
    } finally {
      await cluster.pg.start()
    }
    // Back: the next timed check clears the notice, and Save (pressed again) saves.
    expect(await within(10_000, async () => (await checkAgain()) === 200)).not.toBeNull()
    await services.getByText('The services could not be checked again', { exact: false }).waitFor({ state: 'detached' })
    // The editor's replica answers again, and its gate vouches for sessions again: it has heard
    // from the database within the last second (until then it refuses them, 503, as it cannot
    // know of a revocation made meanwhile). Its health answered before that in some runs.
    expect(await within(10_000, async () => (await editor.page.request.get(`${cluster.b.url}/api/auth/session`)).status() === 200)).not.toBeNull()
    await dialog.getByRole('button', { name: 'Save' }).click()
    await editor.page
      .getByRole('status')
      .getByText('Setting outage.note saved.')
      .waitFor()
      .catch(async (error) => {
        throw new Error(`${error}\nThe dialog said: ${await dialog.innerText().catch(() => '(no dialog)')}\nThe editor's answers: ${answers.join(', ')}`)
      })
    expect((await storedSetting('outage.note'))?.value).toBe('written after the outage')

    // The wall screen's replica restarted: it cannot be reached for a moment, then the next check is answered.
    await cluster.a.stop()
    try {
      expect(await checkAgain()).toBe(0)
      await services.getByText('The services could not be checked again; the last check is shown. The service cannot be reached. Check your connection and try again.').waitFor()
    } finally {
      await cluster.a.start()
    }
    expect(await checkAgain()).toBe(200)
    await services.getByText('The services could not be checked again', { exact: false }).waitFor({ state: 'detached' })
    await wall.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
  } finally {
    await wall.context.close()
    await editor.context.close()
  }
}, 90_000)
