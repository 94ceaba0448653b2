// Records another program wrote to Kratos or Hydra that try to pass for something else or to break
// a page: an e-mail address with spaces around it or a Cyrillic letter in it (both read as the
// admin's), a right-to-left override in a trait, a place name with no space to break at, a client
// named with spaces only, a message with no recipient. Each is shown for what it is, and each page
// can still do its job.
import { expect, test } from 'bun:test'
import { sweep, useSignedInBrowser } from './harness.ts'

const admin = useSignedInBrowser('admin', '/dashboard/identities')
const kratos = () => admin.harness.sandbox.kratos

test('an address with spaces around it, or with a Cyrillic letter, does not read as the admin: marked in the list, the heading and Delete, which works as shown', async () => {
  const spaced = kratos().addIdentity({ email: '  admin@example.test  ', name: 'Spaced' })
  const cyrillic = kratos().addIdentity({ email: '\u0430dmin@example.test', name: 'Cyrillic' })
  await admin.page.goto(admin.url('/dashboard/identities?page_size=250'))
  const table = admin.page.getByRole('table', { name: /Identities/ })
  await table.getByRole('link', { name: '⟨U+0020⟩⟨U+0020⟩admin@example.test⟨U+0020⟩⟨U+0020⟩' }).waitFor()
  await table.getByRole('link', { name: '⟨U+0430⟩dmin@example.test' }).waitFor()
  // The real admin is the only row that reads as the admin.
  expect(await table.getByRole('link', { name: 'admin@example.test', exact: true }).count()).toBe(1)

  await admin.page.goto(admin.url(`/dashboard/identities/${spaced.id}`))
  const shown = '⟨U+0020⟩⟨U+0020⟩admin@example.test⟨U+0020⟩⟨U+0020⟩'
  await admin.page.getByRole('heading', { level: 1, name: shown }).waitFor()
  // Its e-mail field says why a Save would be refused, in words that fit what the box shows.
  const traits = admin.page.getByRole('region', { name: 'Traits' })
  await traits.getByRole('button', { name: 'Save' }).click()
  await traits.getByText('Remove the spaces before or after the address.').waitFor()
  expect(await sweep(admin.page, 'identity-spaced-address', () => traits.getByText('Remove the spaces before or after the address.').waitFor())).toEqual([])
  await admin.page.getByRole('button', { name: 'Delete identity' }).click()
  const dialog = admin.page.getByRole('dialog', { name: 'Delete identity?' })
  const confirm = dialog.getByRole('textbox', { name: `Type ${shown} to confirm` })
  await confirm.fill('admin@example.test')
  expect(await dialog.getByRole('button', { name: 'Delete' }).isDisabled()).toBe(true)
  await confirm.fill(shown)
  await dialog.getByRole('button', { name: 'Delete' }).click()
  await admin.page.getByRole('heading', { level: 1, name: 'Identities' }).waitFor()
  expect(kratos().identities.has(spaced.id)).toBe(false)
  expect(kratos().identities.has(cyrillic.id)).toBe(true)
  expect(admin.problems).toEqual([])
})

test('a trait with a right-to-left override: the box obeys it, so the text beside the box shows it marked', async () => {
  const turned = kratos().addIdentity({ email: 'turned@example.test', name: '\u202Etset.elpmaxe@nimda' })
  await admin.page.goto(admin.url(`/dashboard/identities/${turned.id}`))
  const traits = admin.page.getByRole('region', { name: 'Traits' })
  const name = traits.getByRole('textbox', { name: 'Name' })
  await name.waitFor()
  await traits.getByText('⟨U+202E⟩tset.elpmaxe@nimda').waitFor()
  expect(await sweep(admin.page, 'identity-turned-name', () => traits.getByText('⟨U+202E⟩tset.elpmaxe@nimda').waitFor())).toEqual([])
  // Read with the box by a screen reader, too.
  const described = (await name.getAttribute('aria-describedby'))!.split(' ')
  expect(await admin.page.evaluate((ids) => ids.map((id) => document.getElementById(id)?.textContent ?? '').join(' '), described)).toContain('⟨U+202E⟩tset.elpmaxe@nimda')
  // A plain name has no such line.
  await name.fill('Plain Name')
  await traits.getByText('⟨U+202E⟩tset.elpmaxe@nimda').waitFor({ state: 'detached' })
  expect(await traits.locator('.marked-value').count()).toBe(0)
  expect(admin.problems).toEqual([])
})

test('a place name with no space to break at wraps in its cell: every row’s Revoke and Extend stay in view at 1280 px', async () => {
  const far = kratos().addIdentity({ email: 'far.away@example.test', name: 'Far Away' })
  kratos().addSession(far.id, { ip_address: '81.2.69.160', user_agent: 'Laptop', location: `Sankt Peterburg, ${'R'.repeat(300)}` }, -1)
  await admin.page.goto(admin.url('/dashboard/sessions'))
  const table = admin.page.getByRole('table', { name: 'Active sessions' })
  const revoke = table.getByRole('button', { name: 'Revoke session of far.away@example.test' })
  await revoke.waitFor()
  const wrap = await table.evaluate((element) => ({ scroll: element.parentElement!.scrollWidth, client: element.parentElement!.clientWidth }))
  expect(wrap.scroll).toBeLessThanOrEqual(wrap.client)
  const box = (await revoke.boundingBox())!
  expect(box.x + box.width).toBeLessThanOrEqual(1280)
  expect(await sweep(admin.page, 'sessions-long-place', () => revoke.waitFor())).toEqual([])
  await admin.page.goto(admin.url(`/dashboard/identities/${far.id}`))
  const row = admin.page.getByRole('region', { name: 'Sessions' }).getByRole('button', { name: 'Revoke session 1' })
  await row.waitFor()
  const own = (await row.boundingBox())!
  expect(own.x + own.width).toBeLessThanOrEqual(1280)
  expect(admin.problems).toEqual([])
})

test('a client named with spaces only is listed and headed by its id, and an unchanged Save leaves its name as stored', async () => {
  const { hydra } = admin.harness.sandbox
  const blank = hydra.addClient({ client_name: '   ', redirect_uris: ['https://blank.example.com/callback'], scope: 'openid  offline_access' })
  await admin.page.goto(admin.url(`/dashboard/oauth-clients?name=${encodeURIComponent('   ')}`))
  await admin.page.getByRole('link', { name: blank.client_id }).click()
  await admin.page.getByRole('heading', { level: 1, name: blank.client_id }).waitFor()
  await admin.page.waitForFunction((id) => document.title === `${id} · admin-dashboard`, blank.client_id)
  await admin.page.getByRole('button', { name: 'Edit client' }).click()
  await admin.page.getByRole('button', { name: 'Save' }).click()
  await admin.page.getByRole('status').getByText('Nothing was changed.').waitFor()
  expect(hydra.clients.get(blank.client_id)!.client_name).toBe('   ')
  expect(hydra.clients.get(blank.client_id)!.scope).toBe('openid  offline_access')
  expect(admin.problems).toEqual([])
})

test('a message with no recipient says so with a dash, not an empty cell', async () => {
  // The newest, so the first page lists it.
  const now = new Date().toISOString()
  kratos().addMessage({ recipient: '', subject: 'Nobody to send to', body: 'Hello', created_at: now, updated_at: now })
  await admin.page.goto(admin.url('/dashboard/messages'))
  const row = admin.page.getByRole('row').filter({ has: admin.page.getByRole('link', { name: 'Nobody to send to' }) })
  await row.waitFor()
  expect((await row.getByRole('cell').first().textContent())?.trim()).toBe('—')
  expect(admin.problems).toEqual([])
})

test('a client whose ID holds a "/" (Hydra takes any text) says why it cannot be opened here, with no Retry that could never work, and asks nothing of Hydra', async () => {
  const { hydra } = admin.harness.sandbox
  const slashed = hydra.addClient({ client_id: 'team/portal', client_name: 'Team portal', redirect_uris: ['https://portal.example.com/callback'] })
  const asked: string[] = []
  const count = (request: { url(): string }) => {
    if (request.url().includes('/api/oauth-admin/admin/clients/team')) asked.push(request.url())
  }
  await admin.page.goto(admin.url(`/dashboard/oauth-clients?name=${encodeURIComponent('Team portal')}`))
  admin.page.on('request', count)
  try {
    await admin.page.getByRole('link', { name: 'Team portal' }).click()
    await admin.page.getByRole('heading', { level: 1, name: 'team/portal' }).waitFor()
    await admin.page.getByText('This client cannot be opened here.').waitFor()
    expect(await admin.page.getByRole('button', { name: 'Retry' }).count()).toBe(0)
    await admin.page.getByRole('link', { name: 'Go to OAuth clients' }).waitFor()
    expect(asked).toEqual([])
  } finally {
    admin.page.off('request', count)
  }
  expect(hydra.clients.has(slashed.client_id)).toBe(true)
  expect(admin.problems).toEqual([])
})
