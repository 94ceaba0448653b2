// Times as an operator in another zone and locale reads them: in their own zone, with seconds and
// the zone's name (two dispatch attempts seconds apart, or the two 02:30s of the night the clocks
// go back in Berlin, read as different moments), and Go's zero time, which Kratos and Hydra send
// for a time never set, as unset rather than a moment in year 1.
import { expect, test } from 'bun:test'
import type { BrowserContext, Page } from 'playwright-core'
import { DESKTOP, signIn, watchProblems, useHarness } from './harness.ts'

const harness = useHarness()

/** A signed-in admin's page in a browser set to `timezoneId` and `locale`, opened at `path`. */
async function openIn(timezoneId: string, locale: string, path: string): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await harness.browser.newContext({ timezoneId, locale, viewport: DESKTOP })
  context.setDefaultTimeout(10_000)
  const page = await context.newPage()
  const problems = watchProblems(page, harness.sandbox.url)
  await page.goto(`${harness.sandbox.url}${path}`)
  await signIn(page, harness.sandbox, 'admin')
  await page.getByRole('heading', { level: 1 }).waitFor()
  return { context, page, problems }
}

test('three dispatch attempts in the hour the clocks go back in Berlin read as three moments: seconds and the zone are shown', async () => {
  const { kratos } = harness.sandbox
  const message = kratos.addMessage({ recipient: 'dst@example.test', subject: 'Across the change', body: 'body' })
  const at = ['2024-10-27T00:30:10Z', '2024-10-27T00:30:40Z', '2024-10-27T01:30:10Z']
  message.dispatches = at.map((time, i) => ({
    id: crypto.randomUUID(),
    message_id: message.id,
    status: i === 2 ? 'success' : 'failed',
    error: i === 2 ? null : { reason: 'smtp timeout' },
    created_at: time,
    updated_at: time,
  })) as typeof message.dispatches
  const { context, page, problems } = await openIn('Europe/Berlin', 'en-GB', `/dashboard/messages/${message.id}`)
  try {
    const attempts = page.getByRole('region', { name: 'Dispatch attempts' }).locator('time')
    await attempts.first().waitFor()
    const shown = await attempts.evaluateAll((times) => times.map((time) => [time.textContent, time.getAttribute('datetime')]))
    expect(shown.map(([, datetime]) => datetime).sort()).toEqual(at.map((time) => new Date(time).toISOString()).sort())
    const texts = shown.map(([text]) => text!)
    // 02:30:10 summer time, 02:30:40 summer time, 02:30:10 winter time.
    expect(new Set(texts).size).toBe(3)
    expect(texts.filter((text) => text.includes('02:30:10'))).toHaveLength(2)
    expect(texts.filter((text) => text.includes('02:30:40'))).toHaveLength(1)
    expect(problems).toEqual([])
  } finally {
    await context.close()
  }
})

test('Go’s zero time from Kratos (a time never set) is shown as unset, not as a moment in year 1', async () => {
  const { kratos } = harness.sandbox
  const person = kratos.addIdentity({ email: 'zero.time@example.test', name: 'Zero' })
  kratos.malformedRecords.set(person.id, (record) => ({ ...(record as object), created_at: '0001-01-01T00:00:00Z', updated_at: '0001-01-01T00:00:00Z' }))
  const { context, page, problems } = await openIn('America/New_York', 'en-US', `/dashboard/identities/${person.id}`)
  try {
    const summary = page.getByRole('region', { name: 'Summary' })
    await summary.waitFor()
    const facts = await summary.innerText()
    expect(facts).not.toMatch(/\b1,|0001|Dec 31, 1\b/)
    expect(await summary.locator('time').count()).toBe(0)
    expect(problems).toEqual([])
  } finally {
    await context.close()
    kratos.malformedRecords.delete(person.id)
  }
})
