// The login identity store stops answering this service for longer than the gate trusts its last
// word that the signed-in account exists (IDENTITY_RECHECK_SECONDS, 1 s here): here, Kratos's API
// key was rotated and the service still sends the old one. Every page is refused until Kratos
// answers again (decisions §5, fail closed): the operator is told what cannot be confirmed, what
// to check, and how to set the key from the server, since Settings is refused too; once Kratos
// accepts the service again, Retry brings the dashboard back.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { signedInPage, startHarness, sweep, type Harness } from './harness.ts'

let harness: Harness
beforeAll(async () => {
  harness = await startHarness({ identityRecheckSeconds: 1 })
}, 60_000)
afterAll(async () => {
  await harness?.stop()
})

test('Kratos refusing the service\'s key past the recheck window: "Dashboard unavailable" says why and what to do, and Retry brings the dashboard back once Kratos answers', async () => {
  const { kratos } = harness.sandbox
  const admin = await signedInPage(harness, 'admin', '/dashboard/settings')
  try {
    await admin.page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor()
    kratos.apiKey = 'rotated-at-kratos-0123456789'
    await Bun.sleep(1500)
    await admin.page.reload()
    const main = admin.page.getByRole('main')
    await main.getByRole('heading', { level: 1, name: 'Dashboard unavailable' }).waitFor()
    await main.getByText('Your sign-in cannot be confirmed: Kratos, where this service checks that your account still exists, is not answering it.', { exact: false }).waitFor()
    await main.getByText('admin-dashboard settings set proxy.iam-idp-admin.api_key --encrypted', { exact: false }).waitFor()
    expect(await sweep(admin.page, 'dashboard-unavailable', () => main.getByRole('button', { name: 'Retry' }).waitFor())).toEqual([])
    // The session is kept (not signed out): once Kratos accepts the service again, Retry is enough.
    kratos.apiKey = undefined
    await main.getByRole('button', { name: 'Retry' }).click()
    await admin.page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor()
    expect(admin.problems.every((problem) => /status of 503\b/.test(problem))).toBe(true)
  } finally {
    kratos.apiKey = undefined
    await admin.context.close()
  }
})
