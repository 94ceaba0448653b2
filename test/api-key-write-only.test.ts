// Upstream API keys are write-only through the API (ui.md "Settings": never revealed, and the value
// never appears in a page or response after saving). A stolen or borrowed admin session, a page
// left open on a shared machine, must not turn into the upstream's own key, which outlives any
// dashboard session and acts on Kratos and Hydra without this service's audit trail.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startStack, type Stack } from './support/stack.ts'
import { markSecret } from './support/leaks.ts'
import { UPSTREAM_NAMES } from '../src/config.ts'

const ENCRYPTED_KEY = 'ory_pat_stored_encrypted_0123456789abcdef'
const PLAIN_KEY = 'ory_pat_stored_in_plain_text_0123456789'
let stack: Stack

beforeAll(async () => {
  stack = await startStack()
  markSecret(ENCRYPTED_KEY, PLAIN_KEY)
  const { settings } = stack.service.services
  await settings.write({ key: 'proxy.idp-admin.api_key', value: ENCRYPTED_KEY, encrypted: true, category: 'proxy' }, null)
  // As `admin-dashboard settings set proxy.oauth-admin.api_key` stores it without --encrypted.
  await settings.write({ key: 'proxy.oauth-admin.api_key', value: PLAIN_KEY, encrypted: false, category: 'proxy' }, null)
})
afterAll(async () => {
  await stack.stop()
})

const asAdmin = (path: string, init: RequestInit = {}) =>
  fetch(`${stack.service.url}${path}`, { ...init, headers: { cookie: stack.freshCookie('admin'), origin: 'http://admin.test', ...init.headers } })

for (const prefix of UPSTREAM_NAMES) {
  test(`an admin's decrypt read of proxy.${prefix}.api_key → 403, with no key in it, and the attempt in the audit trail`, async () => {
    const response = await asAdmin(`/api/settings/proxy.${prefix}.api_key?decrypt=true`)
    const text = await response.text()
    expect(response.status).toBe(403)
    expect(JSON.parse(text).error).toBe('forbidden')
    expect(text).not.toContain(ENCRYPTED_KEY)
    expect(text).not.toContain(PLAIN_KEY)
    const [event] = await stack.service.services.audit.list({ limit: 1, action: 'settings_decrypt_read' })
    expect(event).toMatchObject({ target: `proxy.${prefix}.api_key`, detail: { outcome: 'refused' } })
  })
}

test('a key stored in plain text is listed and read without its value; one stored encrypted keeps its ciphertext', async () => {
  const listed = (await (await asAdmin('/api/settings')).json()) as { key: string; value: string; encrypted: boolean }[]
  expect(listed.find((s) => s.key === 'proxy.oauth-admin.api_key')).toMatchObject({ value: '', encrypted: false })
  const encrypted = listed.find((s) => s.key === 'proxy.idp-admin.api_key')!
  expect(encrypted.encrypted).toBe(true)
  expect(encrypted.value).toMatch(/^v1\./)
  for (const path of ['/api/settings/proxy.oauth-admin.api_key', '/api/settings/proxy.oauth-admin.api_key?decrypt=false', '/api/settings?category=proxy']) {
    const text = await (await asAdmin(path)).text()
    expect({ path, leaks: text.includes(PLAIN_KEY) }).toEqual({ path, leaks: false })
  }
})

test('a key written in plain text through the API is not answered back either, and is still the one sent upstream', async () => {
  const key = 'ory_pat_written_plain_by_a_script_0123456789'
  markSecret(key)
  const response = await asAdmin('/api/settings', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: 'proxy.iam-idp-admin.api_key', value: key }) })
  const text = await response.text()
  expect(response.status).toBe(201)
  expect(text).not.toContain(key)
  expect(await stack.service.services.settings.apiKeyFor('iam-idp-admin')).toBe(key)
})

test('other settings are answered as before: a plain value as it is, an encrypted one decrypted on request', async () => {
  const { settings } = stack.service.services
  await settings.write({ key: 'proxy.timeout_note', value: 'plain and visible', category: 'proxy' }, null)
  await settings.write({ key: 'smtp.password', value: 'smtp-secret', encrypted: true }, null)
  expect(((await (await asAdmin('/api/settings/proxy.timeout_note')).json()) as { value: string }).value).toBe('plain and visible')
  expect(((await (await asAdmin('/api/settings/smtp.password?decrypt=true')).json()) as { value: string }).value).toBe('smtp-secret')
})
