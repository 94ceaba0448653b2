// Every page but the Overview is its own chunk (ui/components/lazy-page.tsx): the first load is the
// shell, the entry and the style sheet; the code of the pages an operator can open is fetched while
// the browser is idle after it, or at once when a link leads straight to a page. A page whose code
// cannot be fetched (the network, or an executable updated since the tab opened) says so and offers
// Reload.
import { describe, expect, test } from 'bun:test'
import type { Page, Request } from 'playwright-core'
import { ASSETS, ENTRY } from '../../src/dashboard/assets.generated.ts'
import { within } from '../support/eventually.ts'
import { holdRequests, signedInPage, sweep, tabTo, useHarness } from './harness.ts'

const harness = useHarness()

const ASSET_PATH = '/dashboard/assets/'
/** The pages' chunks and the code they share: every script but the entry and the session map's outline. */
const PAGE_CHUNKS = Object.keys(ASSETS).filter((name) => name.endsWith('.js') && name !== ENTRY.script && !name.startsWith('world-outline.'))
const isPageChunk = (url: URL) => url.pathname.startsWith(ASSET_PATH) && PAGE_CHUNKS.includes(url.pathname.slice(ASSET_PATH.length))

/** Waits until the browser has been idle twice: what it fetches when idle, it has asked for by then. */
const afterIdle = (page: Page) =>
  page.evaluate(async () => {
    for (let i = 0; i < 2; i++) await new Promise<void>((resolve) => requestIdleCallback(() => resolve(), { timeout: 2_000 }))
  })

/** Scripts the page asked for (`request`), or that arrived whole (`requestfinished`), by asset name. */
function scriptsSeen(page: Page, event: 'request' | 'requestfinished' = 'request'): string[] {
  const seen: string[] = []
  const note = (request: Request) => {
    const url = new URL(request.url())
    if (url.pathname.startsWith(ASSET_PATH) && url.pathname.endsWith('.js')) seen.push(url.pathname.slice(ASSET_PATH.length))
  }
  if (event === 'request') page.on('request', note)
  else page.on('requestfinished', note)
  return seen
}

/**
 * Sessions opened from the menu of a freshly loaded Overview whose page chunks are all held: `meanwhile`
 * runs while the page says it is loading, then the chunks are let go.
 */
async function openSessionsWhileHeld(page: Page, meanwhile: () => Promise<void> = async () => {}): Promise<void> {
  const held = await holdRequests(page, isPageChunk, () => true)
  try {
    await page.reload()
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sessions' }).click()
    await page.getByText('Loading the page…').waitFor()
    expect(await page.getByRole('heading', { level: 1 }).allTextContents()).toEqual(['Sessions'])
    await meanwhile()
    held.release()
  } finally {
    await held.stop()
  }
  await page.getByRole('heading', { level: 1, name: 'Sessions' }).waitFor()
}

/** A failed fetch of a chunk is reported by Chromium itself; only those are expected. */
const unexpected = (problems: string[]) => problems.filter((problem) => !/Failed to load resource|Failed to fetch dynamically imported module/.test(problem))

describe('the pages’ own chunks', () => {
  test('the bundle has page chunks, and the shell names the entry and what it imports statically, nothing else', async () => {
    expect(PAGE_CHUNKS.length).toBeGreaterThanOrEqual(9)
    const shell = await (await fetch(`${harness.sandbox.url}/dashboard`)).text()
    const scripts = [...shell.matchAll(/<script[^>]*src="([^"]+)"|<link rel="modulepreload" href="([^"]+)"/g)].map((m) => m[1] ?? m[2])
    expect(scripts).toEqual([`${ASSET_PATH}${ENTRY.script}`, ...ENTRY.preload.map((name) => `${ASSET_PATH}${name}`)])
    // Every chunk a script names, statically or when asked, is served.
    for (const asset of Object.values(ASSETS)) {
      for (const match of asset.body.matchAll(/["']\.\/([\w.-]+\.js)["']/g)) {
        const response = await fetch(`${harness.sandbox.url}${ASSET_PATH}${match[1]}`)
        expect(response.status).toBe(200)
      }
    }
  })

  test('an admin’s pages are fetched while the browser is idle after the Overview, so a link followed later needs nothing more; a viewer’s browser fetches none of them', async () => {
    const admin = await signedInPage(harness, 'admin')
    try {
      const { page } = admin
      const arrived = scriptsSeen(page, 'requestfinished')
      await page.reload()
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
      // Arrived, not only asked for: a chunk still on its way when the route below is set would be refused.
      const fetched = () => [...new Set(arrived.filter((name) => PAGE_CHUNKS.includes(name)))].sort()
      await within(15_000, () => fetched().length === PAGE_CHUNKS.length)
      expect(fetched()).toEqual([...PAGE_CHUNKS].sort())
      await afterIdle(page)
      // Nothing more can be fetched now, and every page still opens: its own content, not only its
      // name (a page that could not be fetched shows that too).
      await page.route(isPageChunk, (route) => route.abort('connectionrefused'))
      for (const [link, content] of [
        ['Identities', page.getByRole('button', { name: 'Create identity' })],
        ['OAuth clients', page.getByRole('button', { name: 'Create client' })],
        ['Settings', page.getByRole('button', { name: 'Add setting' })],
        ['Security', page.getByRole('button', { name: 'End dashboard sessions' })],
      ] as const) {
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link }).click()
        await page.getByRole('heading', { level: 1, name: link }).waitFor()
        await content.waitFor()
      }
      expect(admin.problems).toEqual([])
    } finally {
      await admin.context.close()
    }

    const viewer = await signedInPage(harness, 'viewer')
    try {
      const { page } = viewer
      const asked = scriptsSeen(page)
      await page.reload()
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
      await afterIdle(page)
      expect(asked.filter((name) => PAGE_CHUNKS.includes(name))).toEqual([])
      expect(asked).toContain(ENTRY.script)
      expect(viewer.problems).toEqual([])
    } finally {
      await viewer.context.close()
    }
  })

  test('a link followed before its page’s code has arrived says the page is loading, and the page’s heading takes focus when it is drawn', async () => {
    const admin = await signedInPage(harness, 'admin')
    try {
      const { page } = admin
      await openSessionsWhileHeld(page)
      const focused = () => page.evaluate(() => document.activeElement?.id)
      await within(5_000, async () => (await focused()) === 'page-title')
      expect(await focused()).toBe('page-title')
      expect(await page.title()).toBe('Sessions · admin-dashboard')
      expect(admin.problems).toEqual([])
    } finally {
      await admin.context.close()
    }
  })

  test('focus moved by the person while the page’s code is on its way stays where they put it', async () => {
    const admin = await signedInPage(harness, 'admin')
    try {
      const { page } = admin
      let movedTo: string | undefined
      await openSessionsWhileHeld(page, async () => {
        // The page's name is there, and has focus, while its code is on its way.
        expect(await page.evaluate(() => document.activeElement?.id)).toBe('page-title')
        expect(await page.title()).toBe('Sessions · admin-dashboard')
        await page.keyboard.press('Shift+Tab')
        movedTo = await page.evaluate(() => document.activeElement?.textContent ?? undefined)
        expect(movedTo).toBe('Security')
      })
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(movedTo)
      expect(admin.problems).toEqual([])
    } finally {
      await admin.context.close()
    }
  })

  test('a page that could not be fetched for one record is fetched again for the next one opened in the same tab', async () => {
    const { kratos } = harness.sandbox
    const first = kratos.addIdentity({ email: 'chunk.first@example.test', name: 'First' })
    const second = kratos.addIdentity({ email: 'chunk.second@example.test', name: 'Second' })
    const admin = await signedInPage(harness, 'admin')
    try {
      const { page } = admin
      const gone = (route: import('playwright-core').Route) => route.fulfill({ status: 404, contentType: 'application/json', body: '{"error":"not_found"}' })
      await page.route(isPageChunk, gone)
      await page.goto(`${harness.sandbox.url}/dashboard/identities/${first.id}`)
      await page.getByRole('heading', { level: 1, name: 'Identity' }).waitFor()
      await page.getByRole('alert').filter({ hasText: 'This page could not be loaded.' }).waitFor()
      await page.unroute(isPageChunk, gone)
      // A link inside the app (no reload) to another identity.
      await page.evaluate((path) => {
        const link = document.createElement('a')
        link.href = path
        link.textContent = 'the other identity'
        document.getElementById('main')!.append(link)
        link.click()
        link.remove()
      }, `/dashboard/identities/${second.id}`)
      await page.getByRole('heading', { level: 1, name: 'chunk.second@example.test' }).waitFor()
      expect(await page.getByRole('alert').filter({ hasText: 'This page could not be loaded.' }).count()).toBe(0)
      expect(unexpected(admin.problems)).toEqual([])
    } finally {
      await admin.context.close()
    }
  })

  test('a page that could not be fetched is asked for again when its link is pressed once more, or when the browser comes back online', async () => {
    const admin = await signedInPage(harness, 'admin')
    try {
      const { page, context } = admin
      const notLoaded = page.getByRole('alert').filter({ hasText: 'This page could not be loaded.' })
      const menu = page.getByRole('navigation', { name: 'Main' })
      await page.route(isPageChunk, (route) => route.abort('internetdisconnected'))
      await page.reload()
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
      await menu.getByRole('link', { name: 'Settings' }).click()
      await notLoaded.waitFor()
      await page.unroute(isPageChunk)
      await menu.getByRole('link', { name: 'Settings' }).click()
      await page.getByRole('button', { name: 'Add setting' }).waitFor()
      expect(await notLoaded.count()).toBe(0)
      // Back leaves Settings at once: pressing its link again made no entry of its own.
      await page.goBack()
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()

      await page.route(isPageChunk, (route) => route.abort('internetdisconnected'))
      await menu.getByRole('link', { name: 'Security' }).click()
      await notLoaded.waitFor()
      await page.unroute(isPageChunk)
      await context.setOffline(true)
      await context.setOffline(false)
      // The page itself, not only its name (the failure shows that too).
      await page.getByRole('button', { name: 'End dashboard sessions' }).waitFor()
      await within(5_000, async () => (await notLoaded.count()) === 0)
      expect(await notLoaded.count()).toBe(0)
      expect(unexpected(admin.problems)).toEqual([])
    } finally {
      await admin.context.close()
    }
  })

  test('a page whose code cannot be fetched says so under its heading, with Reload, which brings the page once it can be', async () => {
    const admin = await signedInPage(harness, 'admin')
    try {
      const { page } = admin
      // As after an upgrade: the chunks this tab's entry names are no longer served.
      const gone = (route: import('playwright-core').Route) => route.fulfill({ status: 404, contentType: 'application/json', body: '{"error":"not_found"}' })
      await page.route(isPageChunk, gone)
      await page.goto(`${harness.sandbox.url}/dashboard/identities`)
      await page.getByRole('heading', { level: 1, name: 'Identities' }).waitFor()
      const alert = page.getByRole('alert').filter({ hasText: 'This page could not be loaded. The dashboard may have been updated since this tab was opened, or the network is down.' })
      await alert.waitFor()
      expect(await sweep(page, 'page-not-loaded', () => alert.waitFor())).toEqual([])
      await page.unroute(isPageChunk, gone)
      await tabTo(page, 'Reload')
      await page.keyboard.press('Enter')
      await page.getByRole('table', { name: /Identities/ }).waitFor()
      expect(await alert.count()).toBe(0)
      expect(unexpected(admin.problems)).toEqual([])
    } finally {
      await admin.context.close()
    }
  })
})
