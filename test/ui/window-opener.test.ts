// The dashboard opened from another site's page (a link in a phishing mail that opens the real
// dashboard in a new window, so the address looks right) keeps that page no hold on it: without
// one, the page could later send the dashboard's tab to a look-alike "session ended, sign in again"
// (tabnabbing). The shell answers with Cross-Origin-Opener-Policy: same-origin.
import { expect, test } from 'bun:test'
import { useSignedInBrowser } from './harness.ts'

const admin = useSignedInBrowser('admin')

test('a page of another site that opened the dashboard has no hold on it: the window it opened reads as closed, and the dashboard has no opener', async () => {
  const attacker = await admin.context.newPage()
  await attacker.route('http://attacker.test/**', (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>Attacker</title><p>Hello</p>' }))
  await attacker.goto('http://attacker.test/')
  const [dashboard] = await Promise.all([
    admin.context.waitForEvent('page'),
    attacker.evaluate((url) => void ((window as unknown as { opened: Window | null }).opened = window.open(url)), admin.url('/dashboard')),
  ])
  await dashboard.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
  expect(await dashboard.evaluate(() => window.opener === null)).toBe(true)
  expect(await attacker.evaluate(() => (window as unknown as { opened: Window }).opened.closed)).toBe(true)
  await attacker.close()
  await dashboard.close()
})
