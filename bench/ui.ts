// The UI's budgets (ui.md "Proof expected"), reported, not asserted:
//   - first load of /dashboard (shell + the entry's JS with its static imports + CSS), gzipped: budget 60 KB
//   - all built assets, gzipped: budget 250 KB
//   - navigation to a rendered 25-row identities table in headless Chromium: budget 300 ms
//
//   bun bench/ui.ts            (BENCH_RUNS=10 navigations by default; the median is reported)

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
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

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  const page = await context.newPage()
  await page.goto(`${sandbox.url}/dashboard`)
  await page.waitForURL((url) => url.origin === sandbox.providerUrl)
  await page.fill('input[name="login"]', SANDBOX_USERS.admin)
  await page.fill('input[name="password"]', 'anything')
  await page.click('button[type="submit"]')
  await page.waitForURL(`${sandbox.url}/dashboard`)
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
  await context.close()
} finally {
  await browser.close()
  await sandbox.stop()
  rmSync(dataDir, { recursive: true, force: true })
}
