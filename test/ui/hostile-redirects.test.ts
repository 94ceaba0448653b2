// A redirect from an upstream is not followed by the pages. Kratos and Hydra are reached through
// this service's prefixes, and the browser would resolve a relative Location such as
// `../../../settings/<key>` against the prefix's URL, that is on this service itself: a compromised
// Kratos answering a DELETE with a 307 (which keeps the method) would have the operator's own
// browser, with its session, delete a setting or a Hydra client. The page says the call failed.
import { expect, test } from 'bun:test'
import { useSignedInBrowser } from './harness.ts'

const admin = useSignedInBrowser('admin')

const sessionsRegion = () => admin.page.getByRole('region', { name: 'Sessions' })

test('a Kratos that answers Revoke with a 307 into another route (a setting, a Hydra client) gets nothing deleted there: the redirect is not followed, and Revoke says it failed', async () => {
  const { kratos, hydra, services } = admin.harness.sandbox
  const person = kratos.addIdentity({ email: 'redirected.revoke@example.test', name: 'Redirected Revoke' })
  const session = kratos.addSession(person.id, { ip_address: '81.2.69.160', user_agent: 'Target device' }, 0)
  await services.settings.write({ key: 'mail.from_address', value: 'noreply@example.test', category: 'mail' }, null)
  const client = hydra.addClient({ client_name: 'Kept client', redirect_uris: ['https://kept.example.com/callback'] })
  // Resolved against /api/idp-admin/admin/sessions/<id> and /api/idp-admin/admin/identities/<id>/sessions.
  kratos.hostileRedirects.set(`DELETE /admin/sessions/${session.id}`, { status: 307, location: '../../../settings/mail.from_address' })
  kratos.hostileRedirects.set(`DELETE /admin/identities/${person.id}/sessions`, { status: 308, location: `../../../../oauth-admin/admin/clients/${client.client_id}` })
  try {
    await admin.page.goto(admin.url(`/dashboard/identities/${person.id}`))
    await sessionsRegion().getByRole('cell', { name: 'Target device' }).waitFor()

    await sessionsRegion().getByRole('button', { name: 'Revoke session 1', exact: true }).click()
    await sessionsRegion().getByText('Kratos answered with a redirect, which the page does not follow.').waitFor()
    await sessionsRegion().getByRole('button', { name: 'Revoke all sessions' }).click()
    const dialog = admin.page.getByRole('dialog', { name: 'Revoke all sessions?' })
    await dialog.getByRole('button', { name: 'Revoke' }).click()
    await dialog.waitFor({ state: 'hidden' })
    expect(kratos.calls.filter((call) => call.method === 'DELETE' && call.path === `/admin/identities/${person.id}/sessions`)).toHaveLength(1)
    await sessionsRegion().getByText('Kratos answered with a redirect, which the page does not follow.').first().waitFor()
    expect(await admin.page.getByText('All sessions of this identity were revoked.').count()).toBe(0)

    // Neither route was called: the setting and the client are there, and no delete reached either.
    expect((await services.settings.read('mail.from_address', { decrypt: false, actor: null }))?.value).toBe('noreply@example.test')
    expect((await services.audit.list({ limit: 50, action: 'settings_delete' })).filter((event) => event.target === 'mail.from_address')).toEqual([])
    expect(hydra.clients.has(client.client_id)).toBe(true)
    expect(hydra.calls.filter((call) => call.method === 'DELETE')).toEqual([])
    expect(admin.problems).toEqual([])
  } finally {
    kratos.hostileRedirects.clear()
  }
})
