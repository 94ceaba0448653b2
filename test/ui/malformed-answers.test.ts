// Kratos or Hydra answering 200 with a body of the wrong shape (an identity without traits,
// credentials that are no object, a client without client_id, a list that is no list, a message
// without a body): every list and detail page shows what it can and says what it cannot, or shows
// its error view; never an exception, a console error or a blank page. The stand-ins serve the
// malformed records (`malformedRecords`, `malformedLists`); each test puts them back as they were.
import { expect, test } from 'bun:test'
import type { Reshape, ReshapeList } from '../support/kratos.ts'
import { sweep, useSignedInBrowser } from './harness.ts'

const admin = useSignedInBrowser('admin')

const settled = () => admin.page.waitForFunction(() => !document.querySelector('main [aria-busy="true"]'))
const KRATOS_UNREADABLE = 'Kratos answered with data this page cannot show.'
const HYDRA_UNREADABLE = 'Hydra answered with data this page cannot show.'

/** Runs `steps` while the stand-in serves `key` reshaped; afterwards as before. */
async function served<V extends Reshape | ReshapeList>(map: Map<string, V>, key: string, reshape: NoInfer<V>, steps: () => Promise<void>): Promise<void> {
  map.set(key, reshape)
  try {
    await steps()
  } finally {
    map.delete(key)
  }
}

/** The sweep of a state (both themes, desktop and phone, axe), which also leaves its screenshots. */
async function swept(name: string, ready: () => Promise<unknown>): Promise<void> {
  expect(await sweep(admin.page, name, ready)).toEqual([])
}

function freshIdentity(email: string) {
  const { kratos } = admin.harness.sandbox
  const identity = kratos.addIdentity({ email, name: 'Shape Check' })
  kratos.addSession(identity.id, { ip_address: '81.2.69.160', user_agent: 'Shape browser' })
  return identity
}

test('Identity without traits (or traits that are no object): the rest of the page is there; the traits are not offered for editing', async () => {
  const identity = freshIdentity('no-traits@example.test')
  const traitsNote = "Kratos answered this identity's traits in a form this page cannot show. They cannot be edited here."
  for (const reshape of [({ traits: _traits, ...rest }) => rest, (record) => ({ ...record, traits: 'no-traits@example.test' })] as Reshape[]) {
    await served(admin.harness.sandbox.kratos.malformedRecords, identity.id, reshape, async () => {
      await admin.page.goto(admin.url(`/dashboard/identities/${identity.id}`))
      // Named by its login identifier, from the credentials.
      await admin.page.getByRole('heading', { level: 1, name: 'no-traits@example.test' }).waitFor()
      await settled()
      const traits = admin.page.getByRole('region', { name: 'Traits' })
      await traits.getByText(traitsNote).waitFor()
      expect(await traits.getByRole('textbox').count()).toBe(0)
      expect(await traits.getByRole('button', { name: 'Save' }).count()).toBe(0)
      await admin.page.getByRole('region', { name: 'Credentials' }).getByText('no-traits@example.test').waitFor()
      await admin.page.getByRole('button', { name: 'Revoke session 1' }).waitFor()
      await admin.page.getByRole('button', { name: 'Delete identity' }).waitFor()
    })
  }
  await served(admin.harness.sandbox.kratos.malformedRecords, identity.id, ({ traits: _traits, ...rest }) => rest, () =>
    swept('identity-unreadable-traits', async () => {
      await admin.page.reload()
      await admin.page.getByText(traitsNote).waitFor()
      await settled()
    }),
  )
  expect(admin.problems).toEqual([])
})

test('Identity with credentials and addresses of the wrong shape: each part says so, what can be read is shown', async () => {
  const identity = freshIdentity('odd-parts@example.test')
  const credentialsNote = 'Kratos answered the credentials in a form this page cannot show.'
  await served(
    admin.harness.sandbox.kratos.malformedRecords,
    identity.id,
    (record) => ({ ...record, credentials: 'password', verifiable_addresses: { value: 'odd-parts@example.test' }, recovery_addresses: [null, { value: 'odd-parts@example.test', via: 'email' }] }),
    async () => {
      await admin.page.goto(admin.url(`/dashboard/identities/${identity.id}`))
      await admin.page.getByRole('heading', { level: 1, name: 'odd-parts@example.test' }).waitFor()
      await settled()
      const credentials = admin.page.getByRole('region', { name: 'Credentials' })
      await credentials.getByText(credentialsNote, { exact: true }).waitFor()
      expect(await credentials.getByText('No credentials.').count()).toBe(0)
      const addresses = admin.page.getByRole('region', { name: 'Addresses' })
      await addresses.getByText('Kratos answered some verifiable addresses in a form this page cannot show.').waitFor()
      await addresses.getByText('Kratos answered some recovery addresses in a form this page cannot show.').waitFor()
      await addresses.getByText('(email)').waitFor()
      expect(await addresses.getByText('No verifiable address.').count()).toBe(0)
      // The traits came as they should: their form is there.
      expect(await admin.page.getByRole('region', { name: 'Traits' }).getByRole('textbox', { name: /E-mail/ }).inputValue()).toBe('odd-parts@example.test')
      await swept('identity-unreadable-parts', () => credentials.getByText(credentialsNote, { exact: true }).waitFor())
    },
  )
  await served(
    admin.harness.sandbox.kratos.malformedRecords,
    identity.id,
    (record) => ({ ...record, credentials: { password: null, oidc: { type: 'oidc', identifiers: ['google:4711'] }, totp: { type: 'totp', identifiers: 'not-a-list' } } }),
    async () => {
      await admin.page.goto(admin.url(`/dashboard/identities/${identity.id}`))
      const credentials = admin.page.getByRole('region', { name: 'Credentials' })
      await credentials.getByText(`${credentialsNote} Those below could be read.`).waitFor()
      await credentials.getByText('google:4711').waitFor()
      await credentials.getByRole('button', { name: 'Delete oidc identifier google:4711' }).waitFor()
      expect(await credentials.getByRole('button', { name: 'Delete totp credential' }).count()).toBe(0)
    },
  )
  expect(admin.problems).toEqual([])
})

test('Identity that is no identity (null, a text, a list, no id): the page says so and offers Retry, which shows it once Kratos answers well', async () => {
  const identity = freshIdentity('not-an-identity@example.test')
  const shapes: Reshape[] = [() => null, () => 'identity', (record) => [record], ({ id: _id, ...rest }) => rest, (record) => ({ ...record, id: 42 })]
  for (const reshape of shapes) {
    await served(admin.harness.sandbox.kratos.malformedRecords, identity.id, reshape, async () => {
      await admin.page.goto(admin.url(`/dashboard/identities/${identity.id}`))
      const alert = admin.page.getByRole('alert')
      await alert.getByText(KRATOS_UNREADABLE).waitFor()
      await settled()
      expect(await admin.page.getByRole('heading', { level: 1 }).textContent()).toBe('Identity')
      await alert.getByRole('button', { name: 'Retry' }).waitFor()
    })
  }
  await served(admin.harness.sandbox.kratos.malformedRecords, identity.id, () => null, () =>
    swept('identity-unreadable', async () => {
      await admin.page.reload()
      await admin.page.getByRole('alert').getByText(KRATOS_UNREADABLE).waitFor()
    }),
  )
  await admin.page.getByRole('button', { name: 'Retry' }).click()
  await admin.page.getByRole('heading', { level: 1, name: 'not-an-identity@example.test' }).waitFor()
  expect(admin.problems).toEqual([])
})

/** The preset schema with one field of its traits replaced. */
const withField = (name: string, definition: unknown): Reshape => (schema) => {
  const properties = schema.properties as { traits: { properties: Record<string, unknown> } }
  properties.traits.properties[name] = definition
  return schema
}

test('An identity schema that cannot be a form: Create identity and the identity page say so, keep the rest, and send no traits', async () => {
  const { kratos } = admin.harness.sandbox
  const identity = freshIdentity('odd-schema@example.test')
  const traitsNote = 'The identity schema “default” cannot be shown as a form, so the traits cannot be edited here.'
  const createNote = 'The identity schema “default” cannot be shown as a form, so no identity can be created with it here.'
  const shapes: [string, Reshape][] = [
    ['no properties', ({ properties: _properties, ...rest }) => rest],
    ['traits that are a text', (schema) => ({ ...schema, properties: { traits: 'email' } })],
    ['a type that is no text', withField('email', { type: 5, format: 'email' })],
    ['a title that is no text', withField('name', { type: 'string', title: { en: 'Name' } })],
    ['an enum that is no list', withField('role', { type: 'string', enum: 'admin,viewer' })],
    ['nested garbage', withField('name', { type: 'object', properties: { first: [], last: { type: 'string' } } })],
    ['a $ref cycle', (schema) => ({ ...withField('name', { $ref: '#/definitions/a' })(schema) as object, definitions: { a: { $ref: '#/definitions/b' }, b: { $ref: '#/definitions/a' } } })],
  ]
  const traits = admin.page.getByRole('region', { name: 'Traits' })
  const dialog = admin.page.getByRole('dialog', { name: 'Create identity' })
  const openIdentity = async () => {
    await admin.page.goto(admin.url(`/dashboard/identities/${identity.id}`))
    await admin.page.getByRole('heading', { level: 1, name: 'odd-schema@example.test' }).waitFor()
    await settled()
  }
  const openCreate = async () => {
    await admin.page.goto(admin.url('/dashboard/identities'))
    await admin.page.getByRole('table', { name: /Identities/ }).waitFor()
    await admin.page.getByRole('button', { name: 'Create identity' }).click()
    await dialog.waitFor()
    // The sandbox's other schema can be a form: the dialog would open on it.
    await dialog.getByLabel('Identity schema').selectOption('default')
  }
  for (const [name, reshape] of shapes) {
    await served(kratos.malformedSchemas, 'default', reshape, async () => {
      await openIdentity()
      await traits.getByRole('alert').getByText(traitsNote).waitFor({ timeout: 5000 }).catch(() => {
        throw new Error(`identity page, ${name}: no note that the schema cannot be a form`)
      })
      await traits.getByRole('alert').getByRole('button', { name: 'Retry' }).waitFor()
      expect(await traits.getByRole('button', { name: 'Save' }).count()).toBe(0)
      expect(await traits.getByRole('textbox').count()).toBe(0)
      // The rest of the page is there.
      await admin.page.getByRole('region', { name: 'Metadata' }).getByRole('button', { name: 'Save' }).waitFor()
      await admin.page.getByRole('button', { name: 'Revoke session 1' }).waitFor()

      await openCreate()
      await dialog.getByRole('alert').getByText(createNote).waitFor({ timeout: 5000 }).catch(() => {
        throw new Error(`Create identity, ${name}: no note that the schema cannot be a form`)
      })
      await dialog.getByRole('alert').getByRole('button', { name: 'Retry' }).waitFor()
      expect(await dialog.getByRole('button', { name: 'Create identity' }).count()).toBe(0)
      expect(await dialog.getByRole('textbox').count()).toBe(0)
      await dialog.getByRole('button', { name: 'Cancel' }).click()
      await dialog.waitFor({ state: 'hidden' })
    })
    expect(admin.problems, name).toEqual([])
  }

  // What the identity page still does: its metadata is saved, and not a trait is touched.
  await served(kratos.malformedSchemas, 'default', withField('role', { type: 'string', enum: 'admin,viewer' }), async () => {
    await openIdentity()
    await traits.getByText(traitsNote).waitFor()
    await swept('identity-unreadable-schema', () => traits.getByText(traitsNote).waitFor())
    const patches = kratos.calls.filter((call) => call.method === 'PATCH').length
    const metadata = admin.page.getByRole('region', { name: 'Metadata' })
    await metadata.getByLabel('Public metadata').fill('{"plan": "team"}')
    await metadata.getByRole('button', { name: 'Save' }).click()
    await admin.page.getByRole('status').getByText('Metadata saved.').waitFor()
    expect(kratos.calls.filter((call) => call.method === 'PATCH')).toHaveLength(patches + 1)
    expect(kratos.identities.get(identity.id)!.traits).toEqual({ email: 'odd-schema@example.test', name: 'Shape Check' })
    expect(kratos.identities.get(identity.id)!.metadata_public).toEqual({ plan: 'team' })

    await openCreate()
    await dialog.getByText(createNote).waitFor()
    await swept('create-identity-unreadable-schema', () => dialog.getByText(createNote).waitFor())
  })

  // Once Kratos answers a schema the form can read, Retry brings the form.
  await dialog.getByRole('button', { name: 'Retry' }).click()
  await dialog.getByRole('textbox', { name: /E-mail/ }).waitFor()
  await dialog.getByRole('button', { name: 'Create identity' }).waitFor()
  await dialog.getByRole('button', { name: 'Cancel' }).click()
  await served(kratos.malformedSchemas, 'default', () => 'schema', openIdentity)
  await traits.getByText(traitsNote).waitFor()
  await traits.getByRole('button', { name: 'Retry' }).click()
  await traits.getByRole('textbox', { name: /E-mail/ }).waitFor()
  await traits.getByRole('button', { name: 'Save' }).waitFor()
  expect(admin.problems).toEqual([])
}, 120_000)

test("Identity's sessions: a list that is no list fails that section alone; a row that is no session is counted, the others listed", async () => {
  const identity = freshIdentity('odd-sessions@example.test')
  const path = `/admin/identities/${identity.id}/sessions`
  const sessions = () => admin.page.getByRole('region', { name: 'Sessions' })
  await served(admin.harness.sandbox.kratos.malformedLists, path, (rows) => ({ sessions: rows }), async () => {
    await admin.page.goto(admin.url(`/dashboard/identities/${identity.id}`))
    await sessions().getByRole('alert').getByText(KRATOS_UNREADABLE).waitFor()
    await admin.page.getByRole('region', { name: 'Traits' }).getByRole('button', { name: 'Save' }).waitFor()
    await sessions().getByRole('button', { name: 'Revoke all sessions' }).waitFor()
  })
  await served(admin.harness.sandbox.kratos.malformedLists, path, (rows) => [null, { devices: [] }, ...rows], async () => {
    await admin.page.goto(admin.url(`/dashboard/identities/${identity.id}`))
    await sessions().getByText('2 sessions from Kratos cannot be shown: they came in a form this page cannot read.').waitFor()
    await sessions().getByRole('button', { name: 'Revoke session 1' }).waitFor()
    expect(await sessions().getByRole('button', { name: /^Revoke session \d/ }).count()).toBe(1)
  })
  expect(admin.problems).toEqual([])
})

test('Message without a body, with dispatches that are no list and a template that is no text; a message that is none', async () => {
  const { kratos } = admin.harness.sandbox
  const message = kratos.addMessage({ recipient: 'shape@example.test', subject: 'Shape check', body: 'Your code is 123456', status: 'abandoned' }, [{ status: 'failed', error: { message: 'connection refused' } }])
  await served(
    kratos.malformedRecords,
    message.id,
    ({ body: _body, ...rest }) => ({ ...rest, dispatches: { failed: 1 }, template_type: 7, recipient: null }),
    async () => {
      await admin.page.goto(admin.url(`/dashboard/messages/${message.id}`))
      await admin.page.getByRole('heading', { level: 1, name: 'Shape check' }).waitFor()
      await settled()
      await admin.page.getByRole('region', { name: 'Body' }).getByText("Kratos answered this message's body in a form this page cannot show.").waitFor()
      expect(await admin.page.getByLabel('Message body').count()).toBe(0)
      await admin.page.getByRole('region', { name: 'Dispatch attempts' }).getByText('Kratos answered some dispatch attempts in a form this page cannot show.').waitFor()
      await admin.page.getByRole('region', { name: 'Details' }).getByText('abandoned').waitFor()
      await swept('message-unreadable-parts', () => admin.page.getByRole('region', { name: 'Body' }).getByText(/cannot show/).waitFor())
    },
  )
  await served(kratos.malformedRecords, message.id, ({ id: _id, ...rest }) => rest, async () => {
    await admin.page.goto(admin.url(`/dashboard/messages/${message.id}`))
    await admin.page.getByRole('alert').getByText(KRATOS_UNREADABLE).waitFor()
    await settled()
    expect(await admin.page.getByRole('heading', { level: 1 }).textContent()).toBe('Message')
  })
  expect(admin.problems).toEqual([])
})

test('OAuth client with a field of the wrong shape: marked, not offered for editing; a client without client_id is none', async () => {
  const { hydra } = admin.harness.sandbox
  const client = hydra.addClient({ client_name: 'Shape portal', redirect_uris: ['https://shape.example.com/callback'], grant_types: ['authorization_code'], response_types: ['code'] })
  await served(hydra.malformedRecords, client.client_id, (record) => ({ ...record, redirect_uris: 'https://shape.example.com/callback', skip_consent: 'no', jwt_bearer_grant_access_token_lifespan: 3600 }), async () => {
    await admin.page.goto(admin.url(`/dashboard/oauth-clients/${encodeURIComponent(client.client_id)}`))
    await admin.page.getByRole('heading', { level: 1, name: 'Shape portal' }).waitFor()
    await settled()
    const card = admin.page.getByRole('region', { name: 'Client', exact: true })
    await card.getByText("Hydra answered some of this client's fields in a form this page cannot show. They are marked below, and the client cannot be edited here.").waitFor()
    expect(await card.getByText('Cannot be shown').count()).toBe(3)
    // A lifespan is listed when it cannot be shown, never taken for Hydra's default.
    expect(await card.getByRole('listitem').allTextContents()).toEqual(['JWT bearer grant: access token Cannot be shown'])
    await card.getByText('authorization code').waitFor()
    expect(await admin.page.getByRole('button', { name: 'Edit client' }).count()).toBe(0)
    await admin.page.getByRole('button', { name: 'Delete client' }).waitFor()
    await swept('oauth-client-unreadable-fields', () => card.getByText(/cannot be edited here/).waitFor())
  })
  // A field the form does not edit leaves the form offered.
  await served(hydra.malformedRecords, client.client_id, (record) => ({ ...record, updated_at: { at: 'now' } }), async () => {
    await admin.page.goto(admin.url(`/dashboard/oauth-clients/${encodeURIComponent(client.client_id)}`))
    const card = admin.page.getByRole('region', { name: 'Client', exact: true })
    await card.getByText("Hydra answered some of this client's fields in a form this page cannot show. They are marked below.", { exact: true }).waitFor()
    expect(await card.getByText('Cannot be shown').count()).toBe(1)
    await admin.page.getByRole('button', { name: 'Edit client' }).waitFor()
  })
  await served(hydra.malformedRecords, client.client_id, ({ client_id: _id, ...rest }) => rest, async () => {
    await admin.page.goto(admin.url(`/dashboard/oauth-clients/${encodeURIComponent(client.client_id)}`))
    await admin.page.getByRole('alert').getByText(HYDRA_UNREADABLE).waitFor()
    await settled()
    expect(await admin.page.getByRole('heading', { level: 1 }).textContent()).toBe('OAuth client')
  })
  expect(admin.problems).toEqual([])
})

/** The first rows of a list ordered by id (Hydra's clients). */
const firstIds = (ids: string[], count: number) => [...ids].sort().slice(0, count)
/** The ids of the first rows of a Kratos list ordered newest first, equal times by id (sessions, courier messages). */
const newestIds = (rows: { id: string; created_at: string }[], count: number) =>
  [...rows]
    .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, count)
    .map((row) => row.id)

test('Sessions list: a row that is no session is counted and left out, a row with odd fields shows what it can, a list that is no list offers Retry', async () => {
  const { kratos } = admin.harness.sandbox
  const [gone, odd] = newestIds(kratos.sessions.filter((session) => session.active), 2) as [string, string]
  const table = admin.page.getByRole('table', { name: 'Active sessions' })
  await served(kratos.malformedRecords, gone, () => null, () =>
    served(kratos.malformedRecords, odd, (record) => ({ ...record, devices: 'Firefox', identity: 'someone', expires_at: 17 }), async () => {
      await admin.page.goto(admin.url('/dashboard/sessions'))
      await admin.page.getByText('1 session from Kratos cannot be shown: it came in a form this page cannot read.').waitFor()
      await table.waitFor()
      expect(await table.locator('tbody tr').count()).toBe(24)
      await admin.page.getByRole('button', { name: 'Extend session of an unknown identity' }).waitFor()
      await swept('sessions-unreadable-row', () => table.waitFor())
    }),
  )
  await served(kratos.malformedLists, '/admin/sessions', (rows) => ({ sessions: rows }), async () => {
    await admin.page.goto(admin.url('/dashboard/sessions'))
    await admin.page.getByRole('alert').getByText(KRATOS_UNREADABLE).waitFor()
    await swept('sessions-unreadable-list', () => admin.page.getByRole('alert').waitFor())
  })
  await admin.page.getByRole('button', { name: 'Retry' }).click()
  await table.waitFor()
  expect(admin.problems).toEqual([])
})

test('Sessions list whose next-page link cannot be followed (no page token, or no URL at all): said so with Retry, not shown as the end of the list nor left loading', async () => {
  const { kratos } = admin.harness.sandbox
  const table = admin.page.getByRole('table', { name: 'Active sessions' })
  for (const link of ['</admin/sessions?page_size=25>; rel="next"', '<http://[>; rel="next"']) {
    kratos.malformedLinks.set('/admin/sessions', link)
    try {
      await admin.page.goto(admin.url('/dashboard/sessions'))
      await admin.page.getByRole('alert').getByText(KRATOS_UNREADABLE).waitFor()
      await settled()
      expect(await table.count()).toBe(0)
    } finally {
      kratos.malformedLinks.delete('/admin/sessions')
    }
    await admin.page.getByRole('button', { name: 'Retry' }).click()
    await table.waitFor()
    // Read again as Kratos links it, the next page can be asked for.
    expect(await admin.page.getByRole('button', { name: 'Next page' }).isEnabled()).toBe(true)
  }
  expect(admin.problems).toEqual([])
})

test('Messages list: a row without an id is counted and left out, odd fields show a dash; a list that is no list', async () => {
  const { kratos } = admin.harness.sandbox
  const [gone, odd] = newestIds(kratos.messages, 2) as [string, string]
  const table = admin.page.getByRole('table', { name: 'Messages' })
  await served(kratos.malformedRecords, gone, ({ id: _id, ...rest }) => rest, () =>
    served(kratos.malformedRecords, odd, (record) => ({ ...record, template_type: 7, subject: { text: 'hi' }, status: null, recipient: ['someone@example.test'] }), async () => {
      await admin.page.goto(admin.url('/dashboard/messages'))
      await admin.page.getByText('1 message from Kratos cannot be shown: it came in a form this page cannot read.').waitFor()
      await table.waitFor()
      expect(await table.locator('tbody tr').count()).toBe(24)
      await table.getByRole('link', { name: '(no subject)' }).first().waitFor()
    }),
  )
  await served(kratos.malformedLists, '/admin/courier/messages', () => 'messages', async () => {
    await admin.page.goto(admin.url('/dashboard/messages'))
    await admin.page.getByRole('alert').getByText(KRATOS_UNREADABLE).waitFor()
    await admin.page.getByRole('alert').getByRole('button', { name: 'Retry' }).waitFor()
  })
  expect(admin.problems).toEqual([])
})

test('OAuth clients list: a row without client_id is counted and left out, a list field that is no list shows a dash; a list that is no list', async () => {
  const { hydra } = admin.harness.sandbox
  const [gone, odd] = firstIds([...hydra.clients.keys()], 2) as [string, string]
  const table = admin.page.getByRole('table', { name: 'OAuth clients' })
  await served(hydra.malformedRecords, gone, ({ client_id: _id, ...rest }) => rest, () =>
    served(hydra.malformedRecords, odd, (record) => ({ ...record, grant_types: 'authorization_code', client_name: 12 }), async () => {
      await admin.page.goto(admin.url('/dashboard/oauth-clients'))
      await admin.page.getByText('1 client from Hydra cannot be shown: it came in a form this page cannot read.').waitFor()
      await table.waitFor()
      expect(await table.locator('tbody tr').count()).toBe(24)
      // Named by its id when its name cannot be read.
      const row = table.getByRole('row').filter({ has: admin.page.getByRole('link', { name: odd, exact: true }) })
      expect(await row.locator('td').nth(3).textContent()).toBe('—')
      await swept('oauth-clients-unreadable-row', () => table.waitFor())
    }),
  )
  await served(hydra.malformedLists, '/admin/clients', (rows) => ({ items: rows }), async () => {
    await admin.page.goto(admin.url('/dashboard/oauth-clients'))
    await admin.page.getByRole('alert').getByText(HYDRA_UNREADABLE).waitFor()
    await admin.page.getByRole('alert').getByRole('button', { name: 'Retry' }).waitFor()
  })
  expect(admin.problems).toEqual([])
})

test('Identities list: rows with traits of the wrong shape are listed by their id; a list that is no list offers Retry', async () => {
  const { kratos } = admin.harness.sandbox
  // Not the signed-in admin: the service reads its role from its traits.
  const others = [...kratos.identities.values()].filter((identity) => identity.traits.role === undefined)
  const [noTraits, oddTraits] = firstIds(others.map((identity) => identity.id), 2) as [string, string]
  const table = admin.page.getByRole('table', { name: /Identities/ })
  await served(kratos.malformedRecords, noTraits, ({ traits: _traits, ...rest }) => rest, () =>
    served(kratos.malformedRecords, oddTraits, (record) => ({ ...record, traits: ['not', 'an', 'object'], state: { active: true } }), async () => {
      await admin.page.goto(admin.url('/dashboard/identities'))
      await table.waitFor()
      await settled()
      for (const id of [noTraits, oddTraits]) await table.getByRole('link', { name: id, exact: true }).waitFor()
      expect(await table.locator('tbody tr').count()).toBe(25)
      await swept('identities-unreadable-rows', () => table.waitFor())
    }),
  )
  await served(kratos.malformedLists, '/admin/identities', (rows) => ({ identities: rows }), async () => {
    await admin.page.goto(admin.url('/dashboard/identities'))
    // Our route's words: the store answered, with something that is not a page of identities.
    await admin.page.getByRole('alert').getByText('The identity store answered with data that cannot be read.').waitFor()
    await admin.page.getByRole('alert').getByRole('button', { name: 'Retry' }).waitFor()
    await swept('identities-unreadable-list', () => admin.page.getByRole('alert').waitFor())
  })
  await admin.page.getByRole('button', { name: 'Retry' }).click()
  await table.waitFor()
  // Our route answers a list it cannot read with 502 (the browser logs it); nothing else was logged.
  expect(admin.problems.filter((problem) => !/status of 502\b/.test(problem))).toEqual([])
  admin.problems.length = 0
})
