// Two administrators at once, each in a browser of their own signed in at one of two replicas on
// one PostgreSQL database (as behind a balancer): what one does is what the other finds, nothing
// one saves is undone unseen by the other, and an outage of the database or of a replica is said
// and recovered from.
import { expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
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
