// The UI's budgets (ui.md "Proof expected"), reported, not asserted:
//   - first load of /dashboard (shell + the entry's JS with its static imports + CSS), gzipped: budget 60 KB
//   - all built assets, gzipped: budget 250 KB
//   - navigation to a rendered 25-row identities table in headless Chromium: budget 300 ms
//   - the session map's data (its locations and its land outline) loaded only when the map is shown:
//     whether it was fetched while the map was below the fold, at 390×700 and 1280×420
//
//   bun bench/ui.ts            (BENCH_RUNS=10 navigations by default; the median is reported)

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Page } from 'playwright-core'
import { buildUi } from '../scripts/build-ui.ts'
import { startSandbox, SANDBOX_USERS } from '../dev/sandbox.ts'

const RUNS = Number(process.env.BENCH_RUNS ?? 10)
const KB = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`

await buildUi()
const dataDir = mkdtempSync(join(tmpdir(), 'admin-dashboard-bench-ui-'))
const sandbox = await startSandbox({ port: 0, dataDir, quiet: true })
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] })
try {
  const { ASSETS, ENTRY } = await import('../src/dashboard/assets.generated.ts')
  const shell = await (await fetch(`${sandbox.url}/dashboard`)).text()
  const gz = (text: string) => Bun.gzipSync(new TextEncoder().encode(text)).byteLength
  // The entry and what it imports statically (named in the shell as modulepreload links); the pages'
  // own chunks are fetched once the Overview is drawn, or when a link leads straight to them.
  const firstLoad = gz(shell) + [ENTRY.script, ...ENTRY.preload, ENTRY.style].reduce((sum, name) => sum + gz(ASSETS[name]!.body), 0)
  const allAssets = Object.values(ASSETS).reduce((sum, asset) => sum + gz(asset.body), 0)

  const signIn = async (page: Page) => {
    await page.goto(`${sandbox.url}/dashboard`)
    await page.waitForURL((url) => url.origin === sandbox.providerUrl)
    await page.fill('input[name="login"]', SANDBOX_USERS.admin)
    await page.fill('input[name="password"]', 'anything')
    await page.click('button[type="submit"]')
    await page.waitForURL(`${sandbox.url}/dashboard`)
  }

  // The overview at a size where the session map ends up below the fold: until every widget above
  // it has its answer and nothing more is on its way, then scrolled to the map.
  const mapBeforeShown = async (viewport: { width: number; height: number }) => {
    const context = await browser.newContext({ viewport })
    const page = await context.newPage()
    let fetched = 0
    page.on('request', (request) => {
      const path = new URL(request.url()).pathname
      if (path === '/api/session-locations' || path.startsWith('/dashboard/assets/world-outline.')) fetched++
    })
    await signIn(page)
    await page.getByRole('region', { name: 'Services' }).getByText('Up', { exact: true }).first().waitFor()
    await page.getByRole('region', { name: 'Latest audit events' }).getByRole('listitem').first().waitFor()
    await page.waitForLoadState('networkidle')
    const map = page.getByRole('region', { name: 'Session map' })
    const below = await map.evaluate((element) => element.getBoundingClientRect().top >= window.innerHeight)
    const before = fetched
    await map.scrollIntoViewIfNeeded()
    await map.locator('path.land').waitFor()
    await context.close()
    const size = `${viewport.width}×${viewport.height}`
    if (!below) return `${size}: the map is in view from the start, nothing to tell`
    return before === 0 ? `${size}: not fetched before it was shown, ${fetched} requests once scrolled into view (within budget)` : `${size}: FETCHED BEFORE IT WAS SHOWN (${before} requests while below the fold)`
  }
  const mapLines = [await mapBeforeShown({ width: 390, height: 700 }), await mapBeforeShown({ width: 1280, height: 420 })]

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  const page = await context.newPage()
  await signIn(page)
  const times: number[] = []
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now()
    await page.goto(`${sandbox.url}/dashboard/identities?page_size=25`)
    await page.waitForFunction(() => document.querySelectorAll('table tbody tr').length === 25)
    times.push(performance.now() - started)
  }
  times.sort((a, b) => a - b)
  const median = times[Math.floor(times.length / 2)]!
  const verdict = (value: number, budget: number) => (value <= budget ? 'within budget' : 'OVER BUDGET')
  console.log('UI budgets')
  console.log(`  first load of /dashboard, gzipped:   ${KB(firstLoad)}  (budget 60 KB, ${verdict(firstLoad, 60 * 1024)})`)
  console.log(`  all assets, gzipped:                 ${KB(allAssets)}  (budget 250 KB, ${verdict(allAssets, 250 * 1024)})`)
  console.log(`  navigation → 25-row identities table: median ${median.toFixed(0)} ms, best ${times[0]!.toFixed(0)} ms, worst ${times[times.length - 1]!.toFixed(0)} ms over ${RUNS} (budget 300 ms, ${verdict(median, 300)})`)
  for (const line of mapLines) console.log(`  the session map's data, ${line}`)
  await context.close()
} finally {
  await browser.close()
  await sandbox.stop()
  rmSync(dataDir, { recursive: true, force: true })
}
