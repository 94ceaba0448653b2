// Changes whose answer did not come back whole, and 404 pages that are not the upstream's own: the
// operator is told what is known and what is not, never that a change failed that may have been
// made (a second Create would make a second client), nor that something was deleted that is still
// there. Each outcome is checked in the Kratos-like and Hydra-like stand-ins afterwards.
import { expect, test } from 'bun:test'
import type { Locator, Page } from 'playwright-core'
import { answerLost, createIdentityThroughForm, timedOut, useSignedInBrowser } from './harness.ts'

const admin = useSignedInBrowser('admin', '/dashboard/oauth-clients')

const made = (name: string) => [...admin.harness.sandbox.hydra.clients.values()].filter((client) => client.client_name === name).length
const listReads = () => admin.harness.sandbox.hydra.calls.filter((call) => call.method === 'GET' && call.path === '/admin/clients').length
const CREATE_PATH = (url: URL) => url.pathname === '/api/oauth-admin/admin/clients'

/** Create client with `name`, and what the page says afterwards about its outcome. */
async function createClient(name: string, why: string): Promise<void> {
  const page = admin.page
  await page.goto(admin.url('/dashboard/oauth-clients'))
  await page.getByRole('table', { name: 'OAuth clients' }).waitFor()
  await page.getByRole('button', { name: 'Create client' }).click()
  const dialog = page.getByRole('dialog', { name: 'Create client' })
  await dialog.getByRole('textbox', { name: 'Client name' }).fill(name)
  await dialog.getByRole('textbox', { name: 'Redirect URIs', exact: true }).fill('https://lost.example.com/cb')
  const readsBefore = listReads()
  await dialog.getByRole('button', { name: 'Create client' }).click()
  const notice = page.getByRole('alert').filter({ hasText: `${why} The client may have been created: check the list before creating it again.` })
  await notice.waitFor()
  await notice.getByText('If it is, its secret cannot be shown any more: Replace secret on its page gives it a new one.', { exact: false }).waitFor()
  // Not a failure that invites pressing Create client again: the dialog closes, and the list is read again.
  await dialog.waitFor({ state: 'hidden' })
  for (let waited = 0; listReads() === readsBefore && waited < 5000; waited += 50) await Bun.sleep(50)
  expect(listReads()).toBeGreaterThan(readsBefore)
  expect(made(name)).toBe(1)
  expect(await page.getByText('cannot be reached').count()).toBe(0)
}

test('a Create Hydra carried out whose answer did not come through (the service answers 502, the answer lost): said to be of unknown outcome, never a failure inviting a second client', async () => {
  const stop = await answerLost(admin.page, 'POST', CREATE_PATH)
  try {
    await createClient('Lost answer', "Hydra's answer did not come through.")
  } finally {
    await stop()
  }
  expect(admin.problems.splice(0).every((problem) => /status of 502\b/.test(problem))).toBe(true)
})

test('a Create Hydra answered 201 whose body was cut short on the way: said to be of unknown outcome (it was made, what it answered is not known)', async () => {
  const { hydra } = admin.harness.sandbox
  hydra.cutAnswers.add('POST /admin/clients')
  try {
    await createClient('Cut answer', 'Hydra answered, but its answer could not be read.')
  } finally {
    hydra.cutAnswers.clear()
  }
  // The browser says the connection was reset; nothing else went wrong.
  expect(admin.problems.splice(0).every((problem) => /ERR_CONNECTION_RESET|ERR_INCOMPLETE_CHUNKED_ENCODING/.test(problem))).toBe(true)
})

test('a Create Hydra answered 201 with a body that is no client (a proxy on the way rewrote it): of unknown outcome, not a failure inviting a second client', async () => {
  const { hydra } = admin.harness.sandbox
  hydra.answerBodies.set('POST /admin/clients', { data: null, status: 'ok' })
  try {
    await createClient('Rewritten answer', 'Hydra answered, but not with what this page can read.')
  } finally {
    hydra.answerBodies.clear()
  }
  expect(admin.problems.splice(0)).toEqual([])
})

test('a Create identity whose answer was lost: of unknown outcome, and Create identity opens again with what was typed (for the case it was not made); Cancel lets go of it', async () => {
  const page = admin.page
  await page.goto(admin.url('/dashboard/identities'))
  await page.getByRole('table', { name: /Identities/ }).waitFor()
  // Kratos makes it; the service answers as when its answer is lost on the way back.
  const stop = await answerLost(page, 'POST', (url) => url.pathname === '/api/idp-admin/admin/identities')
  try {
    const dialog = await createIdentityThroughForm(page, 'maybe.made@example.test')
    await page.getByRole('alert').filter({ hasText: "Kratos's answer did not come through. The identity may have been created: search for it before creating it again." }).waitFor()
    await dialog.waitFor({ state: 'hidden' })
  } finally {
    await stop()
  }
  // Made once, by the Create whose answer was lost.
  expect([...admin.harness.sandbox.kratos.identities.values()].filter((identity) => identity.traits.email === 'maybe.made@example.test')).toHaveLength(1)
  await page.getByRole('button', { name: 'Create identity' }).click()
  const again = page.getByRole('dialog', { name: 'Create identity' })
  await again.getByRole('textbox').first().waitFor()
  expect(await again.getByRole('textbox', { name: /e-?mail/i }).first().inputValue()).toBe('maybe.made@example.test')
  await again.getByRole('button', { name: 'Cancel' }).click()
  // Cancel lets go of it: the next Create identity starts empty.
  await page.getByRole('button', { name: 'Create identity' }).click()
  expect(await again.getByRole('textbox', { name: /e-?mail/i }).first().inputValue()).toBe('')
  await again.getByRole('button', { name: 'Cancel' }).click()
  expect(admin.problems.splice(0).every((problem) => /status of 502\b/.test(problem))).toBe(true)
})

test('an Extend whose answer was lost (Kratos extended it) says it may have been extended, not that it was not, and reads the list again', async () => {
  const { kratos } = admin.harness.sandbox
  const page = admin.page
  await page.goto(admin.url('/dashboard/sessions'))
  const table = page.getByRole('table', { name: 'Active sessions' })
  await table.waitFor()
  const first = table.locator('tbody tr').first()
  const who = (await first.getByRole('button', { name: /^Extend session of / }).getAttribute('aria-label'))!.slice('Extend session of '.length)
  const reads = () => kratos.callsTo('/admin/sessions').length
  const readsBefore = reads()
  const stop = await answerLost(page, 'PATCH', (url) => /^\/api\/idp-admin\/admin\/sessions\/[^/]+\/extend$/.test(url.pathname))
  try {
    await first.getByRole('button', { name: `Extend session of ${who}` }).click()
    await page.getByRole('alert').filter({ hasText: `Kratos's answer did not come through. The session of ${who} may have been extended: the list has been read again.` }).waitFor()
  } finally {
    await stop()
  }
  expect(await page.getByText('was not extended').count()).toBe(0)
  for (let waited = 0; reads() === readsBefore && waited < 5000; waited += 50) await Bun.sleep(50)
  expect(reads()).toBeGreaterThan(readsBefore)
  expect(admin.problems.splice(0).every((problem) => /status of 502\b/.test(problem))).toBe(true)
})

/** A new identity's page, open: the identity, the page and its Summary section. */
async function identityPageOfNew(email: string) {
  const person = admin.harness.sandbox.kratos.addIdentity({ email })
  const page = admin.page
  await page.goto(admin.url(`/dashboard/identities/${person.id}`))
  await page.getByRole('heading', { level: 1, name: email }).waitFor()
  return { person, page, summary: page.getByRole('region', { name: 'Summary' }) }
}

test('a Deactivate on the identity page whose answer was lost (Kratos deactivated it): the state is read again and shown as Kratos has it, and said done', async () => {
  const { kratos } = admin.harness.sandbox
  const { person, page, summary } = await identityPageOfNew('lost.deactivate@example.test')
  const stop = await answerLost(page, 'PATCH', (url) => url.pathname === `/api/idp-admin/admin/identities/${person.id}`)
  try {
    await summary.getByRole('button', { name: 'Deactivate' }).click()
    await page.getByRole('status').getByText('Identity deactivated.').waitFor()
  } finally {
    await stop()
  }
  // What the page shows is what Kratos has: the button now offers the way back.
  await summary.getByRole('button', { name: 'Activate' }).waitFor()
  expect(await summary.getByText('Inactive', { exact: true }).count()).toBe(1)
  expect(kratos.identities.get(person.id)!.state).toBe('inactive')
  expect(await summary.getByRole('alert').count()).toBe(0)
  expect(admin.problems.splice(0).every((problem) => /status of 502\b/.test(problem))).toBe(true)
})

test('a Deactivate that timed out before Kratos made it: of unknown outcome, read again, and said to be still active (the change not made, or still under way)', async () => {
  const { kratos } = admin.harness.sandbox
  const { person, page, summary } = await identityPageOfNew('late.deactivate@example.test')
  // The service gave up waiting (504) and Kratos never got to it.
  const stop = await timedOut(page, 'PATCH', (url) => url.pathname === `/api/idp-admin/admin/identities/${person.id}`)
  try {
    await summary.getByRole('button', { name: 'Deactivate' }).click()
    await summary.getByRole('alert').filter({ hasText: 'Kratos did not answer in time. Read again afterwards, the identity is still active: the change was not made, or is still under way.' }).waitFor()
  } finally {
    await stop()
  }
  expect(kratos.identities.get(person.id)!.state).toBe('active')
  await summary.getByRole('button', { name: 'Deactivate' }).waitFor()
  expect(admin.problems.splice(0).every((problem) => /status of 504\b/.test(problem))).toBe(true)
})

/** The page of a new identity with a password and a totp credential, its Credentials region, and the path of a credential's DELETE. */
async function credentialsPageOfNew(email: string) {
  const person = admin.harness.sandbox.kratos.addIdentity({ email })
  person.credentials = { password: { type: 'password', identifiers: person.identifiers, version: 0 }, totp: { type: 'totp', identifiers: [person.id], version: 0 } }
  const page = admin.page
  await page.goto(admin.url(`/dashboard/identities/${person.id}`))
  await page.getByRole('heading', { level: 1, name: email }).waitFor()
  const deletePath = (type: string) => (url: URL) => url.pathname === `/api/idp-admin/admin/identities/${person.id}/credentials/${type}`
  return { person, page, credentials: page.getByRole('region', { name: 'Credentials' }), deletePath }
}

/** Delete of credential `type` asked for and confirmed on its page. */
async function deleteCredential(page: Page, credentials: Locator, button: string, question: string) {
  await credentials.getByRole('button', { name: button }).click()
  await page.getByRole('dialog', { name: question }).getByRole('button', { name: 'Delete' }).click()
}

test('a Delete of a credential whose answer was lost (Kratos deleted it): the credentials read again, shown as Kratos has them, and said deleted', async () => {
  const { kratos } = admin.harness.sandbox
  const { person, page, credentials, deletePath } = await credentialsPageOfNew('lost.credential@example.test')
  const stop = await answerLost(page, 'DELETE', deletePath('totp'))
  try {
    await deleteCredential(page, credentials, 'Delete totp credential', 'Delete the totp credential?')
    await page.getByRole('status').getByText('The totp credential was deleted.').waitFor()
  } finally {
    await stop()
  }
  // Kratos deleted it, and the list shows it gone, without a reload and without a question left open.
  expect(Object.keys(kratos.identities.get(person.id)!.credentials ?? {})).toEqual(['password'])
  await credentials.getByRole('button', { name: 'Delete totp credential' }).waitFor({ state: 'detached' })
  expect(await credentials.getByText('totp', { exact: true }).count()).toBe(0)
  expect(await credentials.getByRole('alert').count()).toBe(0)
  expect(admin.problems.splice(0).every((problem) => /status of 502\b/.test(problem))).toBe(true)
})

test('a Delete of a credential that timed out before Kratos made it: of unknown outcome, read again, and said to be still there', async () => {
  const { kratos } = admin.harness.sandbox
  const { person, page, credentials, deletePath } = await credentialsPageOfNew('late.credential@example.test')
  const stop = await timedOut(page, 'DELETE', deletePath('totp'))
  try {
    await deleteCredential(page, credentials, 'Delete totp credential', 'Delete the totp credential?')
    await credentials
      .getByRole('alert')
      .filter({ hasText: 'Kratos did not answer in time. Read again afterwards, the totp credential is still there: it was not deleted, or its deletion is still under way.' })
      .waitFor()
  } finally {
    await stop()
  }
  expect(Object.keys(kratos.identities.get(person.id)!.credentials ?? {}).sort()).toEqual(['password', 'totp'])
  await credentials.getByRole('button', { name: 'Delete totp credential' }).waitFor()
  expect(admin.problems.splice(0).every((problem) => /status of 504\b/.test(problem))).toBe(true)
})

test('a Delete of a password whose answer was lost: of unknown outcome (Kratos keeps an emptied password credential, so reading again cannot tell), the credentials read again', async () => {
  const { kratos } = admin.harness.sandbox
  const person = kratos.addIdentity({ email: 'lost.password@example.test' })
  person.credentials = {
    password: { type: 'password', identifiers: person.identifiers, version: 0 },
    oidc: { type: 'oidc', identifiers: ['google:lost-password'], version: 0 },
  }
  const page = admin.page
  await page.goto(admin.url(`/dashboard/identities/${person.id}`))
  await page.getByRole('heading', { level: 1, name: 'lost.password@example.test' }).waitFor()
  const credentials = page.getByRole('region', { name: 'Credentials' })
  const stop = await answerLost(page, 'DELETE', (url) => url.pathname === `/api/idp-admin/admin/identities/${person.id}/credentials/password`)
  try {
    await deleteCredential(page, credentials, 'Delete password', 'Delete the password?')
    await credentials.getByRole('alert').filter({ hasText: "Kratos's answer did not come through. Kratos may have deleted the password: the credentials below were read again afterwards." }).waitFor()
  } finally {
    await stop()
  }
  expect(admin.problems.splice(0).every((problem) => /status of 502\b/.test(problem))).toBe(true)
})

/** Delete identity on the page of identity `id`, the question answered, with the service's answer to the DELETE stood in for by `intercept` (which returns its stop). */
async function deleteIdentityAnswered(email: string, id: string, intercept: (matches: (url: URL) => boolean) => Promise<() => Promise<void>>) {
  const page = admin.page
  await page.goto(admin.url(`/dashboard/identities/${id}`))
  await page.getByRole('heading', { level: 1, name: email }).waitFor()
  const stop = await intercept((url) => url.pathname === `/api/idp-admin/admin/identities/${id}`)
  await page.getByRole('button', { name: 'Delete identity' }).click()
  const dialog = page.getByRole('dialog', { name: 'Delete identity?' })
  await dialog.getByRole('textbox', { name: `Type ${email} to confirm` }).fill(email)
  await dialog.getByRole('button', { name: 'Delete', exact: true }).click()
  return { dialog, stop }
}

test('a Delete identity whose answer was lost (Kratos deleted it): asked again whether Kratos has it, and said deleted, on the list', async () => {
  const { kratos } = admin.harness.sandbox
  const person = kratos.addIdentity({ email: 'lost.delete@example.test' })
  const { stop } = await deleteIdentityAnswered('lost.delete@example.test', person.id, (matches) => answerLost(admin.page, 'DELETE', matches))
  try {
    await admin.page.getByRole('status').getByText('Identity lost.delete@example.test deleted.').waitFor()
  } finally {
    await stop()
  }
  expect(new URL(admin.page.url()).pathname).toBe('/dashboard/identities')
  expect(kratos.identities.has(person.id)).toBe(false)
  expect(admin.problems.splice(0).every((problem) => /status of (502|404)\b/.test(problem))).toBe(true)
})

test('a Delete identity that timed out before Kratos made it: the question stays, saying the identity is still there', async () => {
  const { kratos } = admin.harness.sandbox
  const person = kratos.addIdentity({ email: 'late.delete@example.test' })
  const { dialog, stop } = await deleteIdentityAnswered('late.delete@example.test', person.id, (matches) => timedOut(admin.page, 'DELETE', matches))
  try {
    await dialog.getByRole('alert').filter({ hasText: 'Kratos did not answer in time. Read again afterwards, the identity is still there: it was not deleted, or its deletion is still under way.' }).waitFor()
  } finally {
    await stop()
  }
  expect(kratos.identities.has(person.id)).toBe(true)
  await dialog.getByRole('button', { name: 'Cancel' }).click()
  expect(admin.problems.splice(0).every((problem) => /status of 504\b/.test(problem))).toBe(true)
})

/** Delete client on the page of a new client named `name`, the question answered, with the service's answer to the DELETE stood in for by `intercept`. */
async function deleteClientAnswered(name: string, intercept: (matches: (url: URL) => boolean) => Promise<() => Promise<void>>) {
  const { hydra } = admin.harness.sandbox
  const client = hydra.addClient({ client_name: name, redirect_uris: ['https://lost.example.com/cb'] })
  const page = admin.page
  await page.goto(admin.url(`/dashboard/oauth-clients/${encodeURIComponent(client.client_id)}`))
  await page.getByRole('heading', { level: 1, name }).waitFor()
  const stop = await intercept((url) => url.pathname === `/api/oauth-admin/admin/clients/${client.client_id}`)
  await page.getByRole('button', { name: 'Delete client' }).click()
  const dialog = page.getByRole('dialog', { name: 'Delete client?' })
  await dialog.getByRole('button', { name: 'Delete' }).click()
  return { client, dialog, stop }
}

test('a Delete client whose answer was lost (Hydra deleted it): asked again whether Hydra has it, and said deleted, on the list', async () => {
  const { client, stop } = await deleteClientAnswered('Lost delete', (matches) => answerLost(admin.page, 'DELETE', matches))
  try {
    await admin.page.getByRole('status').getByText('Client Lost delete deleted.').waitFor()
  } finally {
    await stop()
  }
  expect(new URL(admin.page.url()).pathname).toBe('/dashboard/oauth-clients')
  expect(admin.harness.sandbox.hydra.clients.has(client.client_id)).toBe(false)
  expect(admin.problems.splice(0).every((problem) => /status of (502|404)\b/.test(problem))).toBe(true)
})

test('a Delete client that timed out before Hydra made it: the question stays, saying the client is still there', async () => {
  const { client, dialog, stop } = await deleteClientAnswered('Late delete', (matches) => timedOut(admin.page, 'DELETE', matches))
  try {
    await dialog.getByRole('alert').filter({ hasText: 'Hydra did not answer in time. Read again afterwards, the client is still there: it was not deleted, or its deletion is still under way.' }).waitFor()
  } finally {
    await stop()
  }
  expect(admin.harness.sandbox.hydra.clients.has(client.client_id)).toBe(true)
  await dialog.getByRole('button', { name: 'Cancel' }).click()
  expect(admin.problems.splice(0).every((problem) => /status of 504\b/.test(problem))).toBe(true)
})

for (const [label, front] of [
  ['an ingress\'s HTML page', 404],
  ['a gateway\'s own JSON', { status: 404, json: { timestamp: '2026-11-28T09:00:00Z', status: 404, error: 'Not Found', path: '/admin/identities' } }],
  ['JSON in Hydra\'s shape, on a Kratos path', { status: 404, json: { error: 'not_found', error_description: 'no route' } }],
] as const) {
  test(`a Delete answered with a 404 of something in front of Kratos (${label}, not Kratos's own error) is not taken for "already deleted": said so, the identity still there and still shown`, async () => {
    const { kratos } = admin.harness.sandbox
    const email = `fronted.delete.${label.replace(/[^a-z]+/gi, '-').toLowerCase()}@example.test`
    const identity = kratos.addIdentity({ email, name: 'Fronted Delete' })
    await admin.page.goto(admin.url(`/dashboard/identities/${identity.id}`))
    await admin.page.getByRole('heading', { level: 1, name: email }).waitFor()
    kratos.frontPages.set(`DELETE /admin/identities/${identity.id}`, front)
    try {
      await admin.page.getByRole('button', { name: 'Delete identity' }).click()
      const dialog = admin.page.getByRole('dialog', { name: 'Delete identity?' })
      await dialog.getByRole('textbox', { name: `Type ${email} to confirm` }).fill(email)
      await dialog.getByRole('button', { name: 'Delete', exact: true }).click()
      await admin.page
        .getByRole('alert')
        .filter({ hasText: "A 404 page came instead of Kratos's answer: check the Kratos URL this service is configured with, and any proxy in front of Kratos." })
        .first()
        .waitFor()
    } finally {
      kratos.frontPages.clear()
    }
    expect(admin.page.url()).toBe(admin.url(`/dashboard/identities/${identity.id}`))
    expect(await admin.page.getByText('had already been deleted').count()).toBe(0)
    expect(kratos.identities.has(identity.id)).toBe(true)
    // Nor is the identity said to be gone from the page: it is there.
    expect(await admin.page.getByRole('heading', { level: 1, name: email }).count()).toBe(1)
    expect(await admin.page.getByText('Kratos no longer has this identity').count()).toBe(0)
    expect(admin.problems.splice(0).every((problem) => /status of 404\b/.test(problem))).toBe(true)
  })
}
