// Two administrators at once, each in a browser of their own signed in at one of two replicas on
// one PostgreSQL database (as behind a balancer): what one does is what the other finds, nothing
// one saves is undone unseen by the other, and an outage of the database or of a replica is said
// and recovered from.
import { expect, test } from 'bun:test'
import type { BrowserContext, Page } from 'playwright-core'
import { SANDBOX_USERS } from '../../dev/sandbox.ts'
import { within } from '../support/eventually.ts'
import { axeFindings } from './harness.ts'
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
    expect(await axeFindings(second.page)).toEqual([])
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
    await row.getByText(/^Saved again on .*, since the list was read: Reveal shows the value as it is now\.$/).waitFor()
    expect(await axeFindings(second.page)).toEqual([])

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
    await admin.page.getByRole('status').getByText(`Every dashboard session of ${viewerId} has ended.`).waitFor()
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
