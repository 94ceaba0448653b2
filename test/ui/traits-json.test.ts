// An identity schema that is well formed but that a form cannot show (here: a list of e-mail
// addresses, each a login identifier): the identity page and Create identity offer the traits as
// JSON, all of them, and Kratos's check against the schema decides. The Kratos stand-in validates
// traits against the schema with JSON Schema, as Kratos does.
import { expect, test } from 'bun:test'
import { sweep, useSignedInBrowser } from './harness.ts'

const admin = useSignedInBrowser('admin')

const TEAM_SCHEMA = {
  $id: 'https://schemas.example.test/team.schema.json',
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Team member',
  type: 'object',
  properties: {
    traits: {
      type: 'object',
      properties: {
        emails: {
          type: 'array',
          minItems: 1,
          items: { type: 'string', format: 'email', 'ory.sh/kratos': { credentials: { password: { identifier: true } } } },
        },
        team: { type: 'string', title: 'Team' },
      },
      required: ['emails'],
      additionalProperties: false,
    },
  },
}

const settled = () => admin.page.waitForFunction(() => !document.querySelector('main [aria-busy="true"]'))
const note = 'The identity schema “team” has fields a form cannot show'

test('A schema with a list of e-mail addresses: the identity page edits the traits as JSON, and Kratos refuses what the schema does not allow', async () => {
  const { kratos } = admin.harness.sandbox
  kratos.extraSchemas.set('team', TEAM_SCHEMA)
  try {
    const identity = kratos.addIdentity({ emails: ['lists@example.test', 'lists.alias@example.test'], team: 'blue' }, { schemaId: 'team' })
    expect(identity.identifiers).toEqual(['lists@example.test', 'lists.alias@example.test'])
    await admin.page.goto(admin.url(`/dashboard/identities/${identity.id}`))
    await settled()
    const traits = admin.page.getByRole('region', { name: 'Traits' })
    await traits.getByText(note).waitFor()
    const box = traits.getByRole('textbox', { name: 'Traits (JSON)' })
    // Every trait is there, the list included.
    expect(JSON.parse(await box.inputValue())).toEqual({ emails: ['lists@example.test', 'lists.alias@example.test'], team: 'blue' })
    expect(admin.problems).toEqual([])
    expect(await sweep(admin.page, 'identity-traits-json', () => box.waitFor())).toEqual([])

    // Not JSON, then not an object: said beside the box, focus on it, nothing sent.
    const patches = () => kratos.calls.filter((call) => call.method === 'PATCH').length
    const before = patches()
    for (const text of ['{"emails": [', '["lists@example.test"]']) {
      await box.fill(text)
      await traits.getByRole('button', { name: 'Save' }).click()
      await traits.getByText('Enter the traits as a JSON object').waitFor()
      await admin.page.waitForFunction(() => document.activeElement?.id === 'traits-json')
      expect(await box.getAttribute('aria-invalid')).toBe('true')
    }
    expect(patches()).toBe(before)

    // What the schema refuses (no address at all), Kratos refuses; nothing changes.
    await box.fill(JSON.stringify({ emails: [], team: 'blue' }))
    await traits.getByRole('button', { name: 'Save' }).click()
    await traits.getByRole('alert').getByText('Kratos refused these values. Check them against the identity schema; if they look right, reload the page: the identity may have changed since it was loaded.').waitFor()
    expect(kratos.identities.get(identity.id)!.traits).toEqual({ emails: ['lists@example.test', 'lists.alias@example.test'], team: 'blue' })
    // A refusal of what was sent says what to change: no request ID to report (and no extra stop on the way to Save).
    expect(await traits.getByRole('alert').getByText('Details').count()).toBe(0)
    // The browser's console notes the refused request, and nothing else.
    expect(admin.problems.splice(0)).toEqual([expect.stringContaining('status of 400 (Bad Request)')])

    // A third address, typed with the keyboard: saved, and a login identifier from then on.
    await box.fill(JSON.stringify({ emails: ['lists@example.test', 'lists.alias@example.test', 'third@example.test'], team: 'blue' }, null, 2))
    await box.focus()
    await admin.page.keyboard.press('Tab')
    await admin.page.keyboard.press('Enter')
    await admin.page.getByRole('status').getByText('Traits saved.').waitFor()
    expect(kratos.identities.get(identity.id)!.traits).toEqual({ emails: ['lists@example.test', 'lists.alias@example.test', 'third@example.test'], team: 'blue' })
    expect(kratos.identities.get(identity.id)!.identifiers).toContain('third@example.test')
    // Only what changed was sent: a trait changed elsewhere meanwhile is kept.
    const patch = kratos.calls.filter((call) => call.method === 'PATCH').at(-1)!
    expect(patch.path).toBe(`/admin/identities/${identity.id}`)
    kratos.identities.get(identity.id)!.traits.team = 'red'
    await box.fill(JSON.stringify({ emails: ['third@example.test'], team: 'blue' }))
    await traits.getByRole('button', { name: 'Save' }).click()
    // The box then shows the traits as stored.
    await admin.page.waitForFunction(() => (document.getElementById('traits-json') as HTMLTextAreaElement).value.includes('"red"'))
    expect(JSON.parse(await box.inputValue())).toEqual({ emails: ['third@example.test'], team: 'red' })
    expect(kratos.identities.get(identity.id)!.traits).toEqual({ emails: ['third@example.test'], team: 'red' })
    expect(admin.problems).toEqual([])

    // The list names it by its first address (Kratos lists identities without their credentials).
    await admin.page.goto(admin.url(`/dashboard/identities?search=${encodeURIComponent('third@example.test')}`))
    await admin.page.getByRole('table', { name: /Identities/ }).getByRole('link', { name: 'third@example.test' }).waitFor()
  } finally {
    kratos.extraSchemas.delete('team')
  }
}, 120_000)

test('Create identity with that schema: chosen from the schemas, traits as JSON, created with its list', async () => {
  const { kratos } = admin.harness.sandbox
  kratos.extraSchemas.set('team', TEAM_SCHEMA)
  try {
    await admin.page.goto(admin.url('/dashboard/identities'))
    await admin.page.getByRole('table', { name: /Identities/ }).waitFor()
    await admin.page.getByRole('button', { name: 'Create identity' }).click()
    const dialog = admin.page.getByRole('dialog', { name: 'Create identity' })
    await dialog.getByLabel('Identity schema').selectOption('team')
    await dialog.getByText(note).waitFor()
    const box = dialog.getByRole('textbox', { name: 'Traits (JSON)' })
    expect(admin.problems).toEqual([])
    expect(await sweep(admin.page, 'create-identity-traits-json', () => box.waitFor())).toEqual([])

    await box.fill('emails: new@example.test')
    await dialog.getByRole('button', { name: 'Create identity' }).click()
    await dialog.getByText('Enter the traits as a JSON object').waitFor()
    await admin.page.waitForFunction(() => document.activeElement?.id === 'create-traits-json')

    const count = kratos.identities.size
    await box.fill(JSON.stringify({ emails: ['created.list@example.test', 'second.list@example.test'] }))
    await dialog.getByLabel('Initial password (optional)').fill('a long initial password')
    await dialog.getByRole('button', { name: 'Create identity' }).click()
    await dialog.waitFor({ state: 'hidden' })
    expect(kratos.identities.size).toBe(count + 1)
    const created = [...kratos.identities.values()].find((identity) => identity.identifiers.includes('created.list@example.test'))!
    expect(created.schema_id).toBe('team')
    expect(created.traits).toEqual({ emails: ['created.list@example.test', 'second.list@example.test'] })
    expect(created.identifiers).toEqual(['created.list@example.test', 'second.list@example.test'])
    expect(admin.problems).toEqual([])
  } finally {
    kratos.extraSchemas.delete('team')
  }
}, 120_000)

test('Traits stored in another shape than the schema gives them (a list where it says text): edited as JSON, not flattened by the form', async () => {
  const { kratos } = admin.harness.sandbox
  // Stored before the schema said `name` is text; Kratos keeps it until it is edited.
  const identity = kratos.addIdentity({ email: 'old.shape@example.test', name: ['Ann', 'Lee'] })
  await admin.page.goto(admin.url(`/dashboard/identities/${identity.id}`))
  await settled()
  const traits = admin.page.getByRole('region', { name: 'Traits' })
  await traits.getByText("This identity's traits hold values of another kind than the identity schema “default” gives them").waitFor()
  const box = traits.getByRole('textbox', { name: 'Traits (JSON)' })
  expect(JSON.parse(await box.inputValue())).toEqual({ email: 'old.shape@example.test', name: ['Ann', 'Lee'] })
  // The note is what the box is described by.
  expect(await box.getAttribute('aria-describedby')).toBe('traits-json-note')
  expect(await traits.getByRole('textbox', { name: /Name/ }).count()).toBe(0)

  // Saved as the schema wants it: the form is back.
  await box.fill(JSON.stringify({ email: 'old.shape@example.test', name: 'Ann Lee' }))
  await traits.getByRole('button', { name: 'Save' }).click()
  await admin.page.getByRole('status').getByText('Traits saved.').waitFor()
  expect(kratos.identities.get(identity.id)!.traits).toEqual({ email: 'old.shape@example.test', name: 'Ann Lee' })
  await traits.getByRole('textbox', { name: /Name/ }).waitFor()
  expect(await traits.getByRole('textbox', { name: /Name/ }).inputValue()).toBe('Ann Lee')
  expect(admin.problems).toEqual([])
}, 60_000)
