// Kratos's PATCH takes no `test` operation, so a save that sets a list or an object whole cannot be
// made conditional there: the identity page reads the identity again first, and when that part
// changed since the page loaded (another operator, or the person in their account settings) it
// sends nothing, says so, and offers Reload, which loads what is stored and keeps the operator's
// own version to copy from. The second writer here writes to the Kratos stand-in directly.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { sweep, useSignedInBrowser } from './harness.ts'
import { within } from '../support/eventually.ts'

const admin = useSignedInBrowser('admin')

const TEAM_SCHEMA = {
  $id: 'https://schemas.example.test/team-changes.schema.json',
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    traits: {
      type: 'object',
      properties: {
        emails: { type: 'array', minItems: 1, items: { type: 'string', format: 'email', 'ory.sh/kratos': { credentials: { password: { identifier: true } } } } },
        team: { type: 'string' },
      },
      required: ['emails'],
      additionalProperties: false,
    },
  },
}

/** A schema a form can show, with a nested object: the form sets `name` whole when one of its fields changes. */
const NAMED_SCHEMA = {
  $id: 'https://schemas.example.test/named.schema.json',
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    traits: {
      type: 'object',
      properties: {
        email: { type: 'string', format: 'email', title: 'E-mail', 'ory.sh/kratos': { credentials: { password: { identifier: true } } } },
        name: { type: 'object', title: 'Name', properties: { first: { type: 'string', title: 'First name' }, last: { type: 'string', title: 'Last name' } } },
      },
      required: ['email'],
      additionalProperties: false,
    },
  },
}

beforeAll(() => {
  admin.harness.sandbox.kratos.extraSchemas.set('team', TEAM_SCHEMA)
  admin.harness.sandbox.kratos.extraSchemas.set('named', NAMED_SCHEMA)
})
afterAll(() => {
  admin.harness.sandbox.kratos.extraSchemas.delete('team')
  admin.harness.sandbox.kratos.extraSchemas.delete('named')
})

const REFUSED = 'Not saved: this identity changed since the page loaded.'

/** The identity's page, once its traits and metadata are shown (what a second writer changes after). */
async function openIdentity(id: string): Promise<void> {
  await admin.page.goto(admin.url(`/dashboard/identities/${id}`))
  await admin.page.getByRole('region', { name: 'Traits' }).getByRole('button', { name: 'Save' }).waitFor()
  await admin.page.waitForFunction(() => !document.querySelector('main [aria-busy="true"]'))
}
/** An identity of the team schema (its traits edited as JSON), its page open: its Traits region and their box. */
async function openTeamIdentity(traits: Record<string, unknown>) {
  const identity = admin.harness.sandbox.kratos.addIdentity(traits, { schemaId: 'team' })
  await openIdentity(identity.id)
  const region = admin.page.getByRole('region', { name: 'Traits' })
  return { identity, traits: region, box: region.getByRole('textbox', { name: 'Traits (JSON)' }) }
}

/** Focus moves once the action has ended (after its announcement): wait for it. */
const focusMovesTo = (id: string) => admin.page.waitForFunction((wanted) => document.activeElement?.id === wanted, id)
const focusMovesToButton = (name: string) => admin.page.waitForFunction((wanted) => document.activeElement?.tagName === 'BUTTON' && document.activeElement.textContent === wanted, name)
/** The page's writes to this identity and its reads of it (the re-reads), as Kratos saw them. */
const callsTo = (id: string, method: string) => admin.harness.sandbox.kratos.calls.filter((call) => call.method === method && call.path === `/admin/identities/${id}`).length

/** Another writer, straight to Kratos's admin API. */
async function elsewhere(id: string, patch: unknown[]): Promise<void> {
  const answer = await fetch(`${admin.harness.sandbox.kratos.url}/admin/identities/${id}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify(patch) })
  expect(answer.status).toBe(200)
}

test('traits as JSON: an address added elsewhere after the page loaded is not overwritten; Reload loads it, keeps the typed text, and the save after it keeps both', async () => {
  const { kratos } = admin.harness.sandbox
  const { identity, traits, box } = await openTeamIdentity({ emails: ['first@example.test'], team: 'blue' })
  expect(JSON.parse(await box.inputValue())).toEqual({ emails: ['first@example.test'], team: 'blue' })

  // The person adds an address in their account settings while the operator types.
  await elsewhere(identity.id, [{ op: 'add', path: '/traits/emails', value: ['first@example.test', 'theirs@example.test'] }])
  const mine = JSON.stringify({ emails: ['first@example.test', 'mine@example.test'], team: 'red' }, null, 2)
  await box.fill(mine)
  const patchesBefore = callsTo(identity.id, 'PATCH')
  await traits.getByRole('button', { name: 'Save' }).click()
  const refused = traits.getByRole('alert').filter({ hasText: REFUSED })
  await refused.waitFor()
  expect(await refused.textContent()).toContain('The trait “emails” was changed meanwhile, by another operator or by the person in their account settings.')
  // Nothing was sent, nothing is lost, the text is still in the box, and what is stored is shown.
  expect(callsTo(identity.id, 'PATCH')).toBe(patchesBefore)
  expect(kratos.identities.get(identity.id)!.traits).toEqual({ emails: ['first@example.test', 'theirs@example.test'], team: 'blue' })
  expect(await box.inputValue()).toBe(mine)
  const stored = traits.getByLabel('Stored “emails”:')
  expect(JSON.parse((await stored.textContent()) ?? '')).toEqual(['first@example.test', 'theirs@example.test'])
  await focusMovesToButton('Reload')
  expect(await sweep(admin.page, 'identity-changed-meanwhile', () => refused.waitFor())).toEqual([])

  // Saved again without Reload: still refused, still nothing sent.
  await traits.getByRole('button', { name: 'Save' }).click()
  await focusMovesToButton('Reload')
  expect(callsTo(identity.id, 'PATCH')).toBe(patchesBefore)

  // Reload with the keyboard: the stored addresses in the box, the other change (the team) kept,
  // the typed text kept to copy from, focus in the box.
  await admin.page.keyboard.press('Enter')
  await admin.page.getByRole('status').getByText('Reloaded the stored “emails”; your version is kept below to copy from.').waitFor()
  expect(JSON.parse(await box.inputValue())).toEqual({ emails: ['first@example.test', 'theirs@example.test'], team: 'red' })
  const yours = traits.getByLabel('Your text, not saved:')
  expect(await yours.textContent()).toBe(mine)
  await focusMovesTo('traits-json')
  expect(await traits.getByRole('alert').count()).toBe(0)
  expect(await sweep(admin.page, 'identity-changed-meanwhile-reloaded', () => yours.waitFor())).toEqual([])

  await box.fill(JSON.stringify({ emails: ['first@example.test', 'theirs@example.test', 'mine@example.test'], team: 'red' }))
  await traits.getByRole('button', { name: 'Save' }).click()
  await admin.page.getByRole('status').getByText('Traits saved.').waitFor()
  expect(kratos.identities.get(identity.id)!.traits).toEqual({ emails: ['first@example.test', 'theirs@example.test', 'mine@example.test'], team: 'red' })
  // Saved: the kept text goes with the notice.
  expect(await yours.count()).toBe(0)
  expect(admin.problems).toEqual([])
}, 120_000)

test('metadata: a field changed elsewhere is not overwritten; Reload loads it and keeps the other field as typed; Dismiss returns to Save', async () => {
  const { kratos } = admin.harness.sandbox
  const identity = kratos.addIdentity({ email: 'metadata.meanwhile@example.test' })
  identity.metadata_admin = { note: 'loaded' }
  await openIdentity(identity.id)
  const metadata = admin.page.getByRole('region', { name: 'Metadata' })
  await elsewhere(identity.id, [{ op: 'add', path: '/metadata_admin', value: { note: 'loaded', flag: 'theirs' } }])
  await metadata.getByLabel('Public metadata').fill('{"plan": "mine"}')
  await metadata.getByLabel('Admin metadata').fill('{"note": "mine"}')
  const patchesBefore = callsTo(identity.id, 'PATCH')
  await metadata.getByRole('button', { name: 'Save' }).click()
  await focusMovesToButton('Reload')
  const refused = metadata.getByRole('alert').filter({ hasText: REFUSED })
  await refused.waitFor()
  expect(await refused.textContent()).toContain('The admin metadata was changed meanwhile')
  expect(callsTo(identity.id, 'PATCH')).toBe(patchesBefore)
  expect(kratos.identities.get(identity.id)!).toMatchObject({ metadata_public: null, metadata_admin: { note: 'loaded', flag: 'theirs' } })
  expect(JSON.parse((await metadata.getByLabel('Stored admin metadata:').textContent()) ?? '')).toEqual({ note: 'loaded', flag: 'theirs' })

  await metadata.getByRole('button', { name: 'Reload' }).click()
  await metadata.getByLabel('Your admin metadata, not saved:').waitFor()
  expect(await metadata.getByLabel('Your admin metadata, not saved:').textContent()).toBe('{"note": "mine"}')
  expect(JSON.parse(await metadata.getByLabel('Admin metadata', { exact: true }).inputValue())).toEqual({ note: 'loaded', flag: 'theirs' })
  // The public field did not change meanwhile: the operator's text stays.
  expect(await metadata.getByLabel('Public metadata').inputValue()).toBe('{"plan": "mine"}')
  await focusMovesTo('metadata-admin')
  await metadata.getByRole('button', { name: 'Dismiss' }).click()
  expect(await metadata.getByLabel('Your admin metadata, not saved:').count()).toBe(0)
  await focusMovesToButton('Save')

  await metadata.getByLabel('Admin metadata', { exact: true }).fill('{"note": "mine", "flag": "theirs"}')
  await metadata.getByRole('button', { name: 'Save' }).click()
  await admin.page.getByRole('status').getByText('Metadata saved.').waitFor()
  expect(kratos.identities.get(identity.id)!).toMatchObject({ metadata_public: { plan: 'mine' }, metadata_admin: { note: 'mine', flag: 'theirs' } })
  expect(admin.problems).toEqual([])
})

test('a form field that is an object (a name of two parts): a part changed elsewhere is not overwritten; Reload fills the form from what is stored', async () => {
  const { kratos } = admin.harness.sandbox
  const identity = kratos.addIdentity({ email: 'named.meanwhile@example.test', name: { first: 'Ann', last: 'Lee' } }, { schemaId: 'named' })
  await openIdentity(identity.id)
  const traits = admin.page.getByRole('region', { name: 'Traits' })
  const first = traits.getByRole('textbox', { name: 'First name' })
  await first.waitFor()
  await elsewhere(identity.id, [{ op: 'add', path: '/traits/name/last', value: 'Lee-Smith' }])
  await first.fill('Anna')
  await traits.getByRole('button', { name: 'Save' }).click()
  await traits.getByRole('alert').filter({ hasText: REFUSED }).waitFor()
  expect(await traits.getByRole('alert').textContent()).toContain('Your edit is still in the form.')
  expect(kratos.identities.get(identity.id)!.traits).toEqual({ email: 'named.meanwhile@example.test', name: { first: 'Ann', last: 'Lee-Smith' } })

  await traits.getByRole('button', { name: 'Reload' }).click()
  await traits.getByLabel('Your “name”, not saved:').waitFor()
  expect(JSON.parse((await traits.getByLabel('Your “name”, not saved:').textContent()) ?? '')).toEqual({ first: 'Anna', last: 'Lee' })
  expect(await first.inputValue()).toBe('Ann')
  expect(await traits.getByRole('textbox', { name: 'Last name' }).inputValue()).toBe('Lee-Smith')
  await focusMovesTo('traits-name-first')

  await first.fill('Anna')
  await traits.getByRole('button', { name: 'Save' }).click()
  await admin.page.getByRole('status').getByText('Traits saved.').waitFor()
  expect(kratos.identities.get(identity.id)!.traits).toEqual({ email: 'named.meanwhile@example.test', name: { first: 'Anna', last: 'Lee-Smith' } })
  expect(admin.problems).toEqual([])
}, 60_000)

test('nothing changed meanwhile: a list is read again once and saved in one go; a text trait is saved without reading again', async () => {
  const { kratos } = admin.harness.sandbox
  const { identity, traits, box } = await openTeamIdentity({ emails: ['unchanged@example.test'], team: 'blue' })
  // Another trait changed elsewhere is no reason to refuse: only what this save sets whole is compared.
  await elsewhere(identity.id, [{ op: 'add', path: '/traits/team', value: 'green' }])
  const reads = callsTo(identity.id, 'GET')
  const patches = callsTo(identity.id, 'PATCH')
  await box.fill(JSON.stringify({ emails: ['unchanged@example.test', 'added@example.test'], team: 'blue' }))
  await traits.getByRole('button', { name: 'Save' }).click()
  await admin.page.getByRole('status').getByText('Traits saved.').waitFor()
  // One read before the write (a list is set whole), one after it for the credentials (their
  // identifiers follow the traits).
  expect(await within(5000, () => callsTo(identity.id, 'GET') - reads === 2)).not.toBeNull()
  expect(callsTo(identity.id, 'PATCH') - patches).toBe(1)
  expect(kratos.identities.get(identity.id)!.traits).toEqual({ emails: ['unchanged@example.test', 'added@example.test'], team: 'green' })

  await box.fill(JSON.stringify({ emails: ['unchanged@example.test', 'added@example.test'], team: 'red' }))
  await traits.getByRole('button', { name: 'Save' }).click()
  for (let waited = 0; kratos.identities.get(identity.id)!.traits.team !== 'red' && waited < 5000; waited += 50) await Bun.sleep(50)
  // Only the read after the write, for the credentials: none before it.
  expect(await within(5000, () => callsTo(identity.id, 'GET') - reads === 3)).not.toBeNull()
  await Bun.sleep(300)
  expect(callsTo(identity.id, 'GET') - reads).toBe(3)
  expect(callsTo(identity.id, 'PATCH') - patches).toBe(2)
  expect(kratos.identities.get(identity.id)!.traits.team).toBe('red')
  expect(await traits.getByRole('alert').count()).toBe(0)
  expect(admin.problems).toEqual([])
}, 60_000)
