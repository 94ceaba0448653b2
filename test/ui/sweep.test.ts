// One sweep over the whole UI, for each role: every page (and a detail page of each kind), light
// and dark, 1280 px and 390 px, with no console error, CSP violation, sideways scroll or serious
// axe-core finding. A viewer gets the "no access" view on every admin page without a single admin
// request leaving the browser or reaching an upstream.
import { expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { SANDBOX_USERS } from '../../dev/sandbox.ts'
import { signedInPage, sweep, useHarness } from './harness.ts'

const harness = useHarness()

const url = (path: string) => `${harness.sandbox.url}${path}`

/** The page has rendered its heading and nothing in it is still loading. */
async function settled(page: Page, heading: string | RegExp): Promise<void> {
  await page.getByRole('heading', { level: 1, name: heading }).waitFor()
  await page.waitForFunction(() => !document.querySelector('main [aria-busy="true"]'))
}

interface Visit {
  name: string
  path: string
  heading: string | RegExp
  /** A text the state must show before it is swept (an empty list's sentence). */
  shows?: string
}

function adminPages(): Visit[] {
  const { kratos, hydra } = harness.sandbox
  const identity = [...kratos.identities.values()].find((candidate) => candidate.traits.email === 'user01@example.test')!
  const message = kratos.messages.find((candidate) => candidate.dispatches.some((d) => d.status === 'failed'))!
  const client = [...hydra.clients.values()].find((candidate) => candidate.client_name === 'Customer portal')!
  return [
    { name: 'overview', path: '/dashboard', heading: 'Overview' },
    { name: 'identities', path: '/dashboard/identities', heading: 'Identities' },
    { name: 'identity', path: `/dashboard/identities/${identity.id}`, heading: 'user01@example.test' },
    { name: 'sessions', path: '/dashboard/sessions', heading: 'Sessions' },
    { name: 'messages', path: '/dashboard/messages', heading: 'Messages' },
    { name: 'message', path: `/dashboard/messages/${message.id}`, heading: message.subject },
    { name: 'oauth-clients', path: '/dashboard/oauth-clients', heading: 'OAuth clients' },
    { name: 'oauth-client', path: `/dashboard/oauth-clients/${encodeURIComponent(client.client_id)}`, heading: 'Customer portal' },
    { name: 'settings', path: '/dashboard/settings', heading: 'Settings' },
    { name: 'audit', path: '/dashboard/audit', heading: 'Audit log' },
    { name: 'security', path: '/dashboard/security', heading: 'Security' },
    { name: 'not-found', path: '/dashboard/no/such/page', heading: 'Page not found' },
    // Empty lists, as a search or filter that matches nothing leaves them.
    { name: 'identities-empty', path: '/dashboard/identities?search=nobody%40example.test', heading: 'Identities', shows: 'No identity has the identifier “nobody@example.test”.' },
    { name: 'messages-empty', path: '/dashboard/messages?recipient=nobody%40example.test', heading: 'Messages', shows: 'No message matches this filter: the recipient is matched whole, exactly as written.' },
    { name: 'oauth-clients-empty', path: '/dashboard/oauth-clients?name=No%20such%20client', heading: 'OAuth clients', shows: 'No client has this name: names are matched whole, exactly as written.' },
    { name: 'audit-empty', path: `/dashboard/audit?actor=${crypto.randomUUID()}`, heading: 'Audit log', shows: 'No audit event matches this filter.' },
    // A later page with nothing on it (its rows deleted meanwhile, or a link kept too long) says so, not that the list is empty.
    { name: 'identities-past-the-end', path: '/dashboard/identities?page_token=ffffffff-ffff-4fff-bfff-ffffffffffff', heading: 'Identities', shows: 'No more identities.' },
    { name: 'audit-past-the-end', path: '/dashboard/audit?before=1', heading: 'Audit log', shows: 'No more audit events.' },
    // Hydra's page token names the last client of the page before: one after every id.
    { name: 'oauth-clients-past-the-end', path: `/dashboard/oauth-clients?page_token=${Buffer.from('c:~').toString('base64url')}`, heading: 'OAuth clients', shows: 'No more clients.' },
  ]
}

test('every page, for an admin: light and dark, desktop and phone', async () => {
  const { context, page, problems } = await signedInPage(harness, 'admin')
  try {
    const found: string[] = []
    for (const visit of adminPages()) {
      await page.goto(url(visit.path))
      found.push(
        ...(await sweep(page, visit.name, async () => {
          await settled(page, visit.heading)
          if (visit.shows) await page.getByText(visit.shows).waitFor()
        })),
      )
    }
    expect(found).toEqual([])
    expect(problems).toEqual([])
  } finally {
    await context.close()
  }
}, 240_000)

test('every page, for a viewer: the overview, and "no access" on each admin page without one admin request anywhere', async () => {
  const { context, page, problems } = await signedInPage(harness, 'viewer')
  const requests: string[] = []
  page.on('request', (request) => requests.push(new URL(request.url()).pathname))
  const kratosCalls = harness.sandbox.kratos.calls.length
  const hydraCalls = harness.sandbox.hydra.calls.length
  try {
    const found: string[] = []
    await page.goto(url('/dashboard'))
    found.push(...(await sweep(page, 'viewer-overview', () => settled(page, 'Overview'))))
    expect(await page.getByRole('banner').textContent()).toContain(SANDBOX_USERS.viewer)
    const adminOnly = adminPages().filter((visit) => visit.name !== 'overview' && visit.name !== 'not-found')
    for (const [index, visit] of adminOnly.entries()) {
      await page.goto(url(visit.path))
      await settled(page, 'No access')
      // One sweep of the view is enough; every visit is checked for requests below.
      if (index === 0) found.push(...(await sweep(page, 'no-access', () => settled(page, 'No access'))))
    }
    expect(found).toEqual([])
    expect(problems).toEqual([])
    const adminRequests = requests.filter((path) => /^\/api\/(config|identities|security|settings|encrypt|openapi\.json|idp-admin|iam-idp-admin|oauth-admin)(\/|$)/.test(path))
    expect(adminRequests).toEqual([])
    // The session map reads the managed store's sessions for everyone, and the services card its
    // health and version (under /admin on a self-hosted Kratos's admin port); nothing else may reach it.
    const upstream = harness.sandbox.kratos.calls.slice(kratosCalls).map((call) => call.path.replace(/^\/admin(?=\/health\/|\/version$)/, ''))
    expect(upstream.filter((path) => path !== '/admin/sessions' && !path.startsWith('/health/') && path !== '/version')).toEqual([])
    expect(harness.sandbox.hydra.calls.slice(hydraCalls).map((call) => call.path).filter((path) => !path.startsWith('/health/') && path !== '/version')).toEqual([])
  } finally {
    await context.close()
  }
}, 120_000)
