// The public proxy prefixes (/api/idp, /api/iam-idp, /api/oauth) need no session, and forward with
// the API key stored for them. On Ory Network one URL serves the public and the admin API, and its
// project API key opens the admin API: an operator who set that key for a public prefix too (the
// Settings page offers a key for every prefix) would hand the admin API to anyone who can reach the
// service. A public prefix therefore never forwards a path of the admin API (`/admin/...`), however
// it is spelled; the admin prefixes, behind an admin session, are the way there.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { KratosFixture, type FixtureIdentity } from './support/kratos.ts'
import { rawRequest } from './support/raw-http.ts'
import { startService, type TestService } from './support/service.ts'
import { markSecret, markSensitive } from './support/leaks.ts'
import { normalizePath } from '../src/http/access.ts'
import { reachesAdminApi } from '../src/proxy/url.ts'

const ORY_API_KEY = 'ory_pat_project_key_with_admin_rights_0123456789'
const ORIGIN = 'http://admin.test'

let kratos: KratosFixture
let service: TestService
let someone: FixtureIdentity
let admin: FixtureIdentity
const viewerCookie = () => `admin-session=${service.sign({ sub: crypto.randomUUID(), role: 'viewer', email: 'victor.viewer@example.test' })}`
/** Every call that reached the upstream, however its path was spelled. */
const upstreamCalls = () => kratos.calls.length

beforeAll(async () => {
  // As on Ory Network: one URL for both APIs, the admin API behind the project API key.
  kratos = new KratosFixture({ apiKey: ORY_API_KEY }).start()
  someone = kratos.addIdentity({ email: 'someone@example.test' })
  admin = kratos.addIdentity({ email: 'ada.admin@example.test', role: 'admin' })
  markSecret(ORY_API_KEY)
  markSensitive(kratos.url, String(new URL(kratos.url).port), someone.id, admin.id, 'someone@example.test', 'ada.admin@example.test')
  service = await startService({ env: { IDP_ADMIN_URL: kratos.url, IDP_PUBLIC_URL: kratos.url, OAUTH_PUBLIC_URL: kratos.url, IAM_IDP_PUBLIC_URL: kratos.url } })
  for (const prefix of ['idp-admin', 'idp', 'iam-idp', 'oauth']) {
    await service.services.settings.write({ key: `proxy.${prefix}.api_key`, value: ORY_API_KEY, encrypted: true, category: 'proxy' }, null)
  }
})
afterAll(async () => {
  await service.stop()
  await kratos.stop()
})

describe('a public prefix with the project API key stored for it', () => {
  const spellings = [
    '/admin/identities',
    '/admin',
    '/admin/',
    '/ADMIN/identities',
    '/Admin/identities',
    '/%61dmin/identities',
    '/%2561dmin/identities',
    '/admin;x/identities',
    '/admin./identities',
    '/x/../admin/identities',
    '/x/%2e%2e/admin/identities',
    '/./admin/identities',
    '/ａｄｍｉｎ/identities',
  ]
  for (const prefix of ['/api/idp', '/api/iam-idp', '/api/oauth']) {
    for (const spelling of spellings) {
      test(`anonymous GET ${prefix}${spelling} → 404, and nothing reaches the upstream`, async () => {
        const before = upstreamCalls()
        const response = await rawRequest(service.url, `GET ${prefix}${spelling} HTTP/1.1`)
        expect({ spelling, status: response.status }).toEqual({ spelling, status: 404 })
        expect(JSON.parse(response.body).error).toBe('not_found')
        expect(upstreamCalls()).toBe(before)
      })
    }
  }

  test('a viewer cannot delete an identity through it either', async () => {
    const before = upstreamCalls()
    const response = await fetch(`${service.url}/api/idp/admin/identities/${someone.id}`, { method: 'DELETE', headers: { cookie: viewerCookie(), origin: ORIGIN } })
    expect(response.status).toBe(404)
    expect(upstreamCalls()).toBe(before)
    expect(kratos.identities.has(someone.id)).toBe(true)
  })

  test('nor can an anonymous caller create one', async () => {
    const count = kratos.identities.size
    const response = await fetch(`${service.url}/api/idp/admin/identities`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ schema_id: 'default', traits: { email: 'intruder@example.test', role: 'admin' } }),
    })
    expect(response.status).toBe(404)
    expect(kratos.identities.size).toBe(count)
  })

  test('what the public API serves still passes, with its key', async () => {
    const schemas = await fetch(`${service.url}/api/idp/schemas`)
    expect(schemas.status).toBe(200)
    expect(kratos.calls.at(-1)!.path).toBe('/schemas')
    expect(kratos.calls.at(-1)!.headers.get('authorization')).toBe(`Bearer ${ORY_API_KEY}`)
    // A segment that only starts with "admin" is not the admin API: forwarded, though not with the
    // key, which goes only with the public API's own paths.
    await fetch(`${service.url}/api/idp/administrators`)
    expect(kratos.calls.at(-1)!.path).toBe('/administrators')
    expect(kratos.calls.at(-1)!.headers.get('authorization')).toBeNull()
  })

  test('the admin API stays reachable where it belongs: the admin prefix, for an admin', async () => {
    const cookie = `admin-session=${service.sign({ sub: admin.id, role: 'admin', email: 'ada.admin@example.test' })}`
    const response = await fetch(`${service.url}/api/idp-admin/admin/identities/${someone.id}`, { headers: { cookie } })
    expect(response.status).toBe(200)
  })
})

test('a plain path is judged without normalizing it, as normalizing it would judge it', () => {
  const full = (rest: string) => {
    const { path } = normalizePath(rest)
    return path === '/admin' || path.startsWith('/admin/')
  }
  const paths = ['', '/', '/admin', '/admin/', '/admin/identities', '/admins', '/administrator/x', '/x/admin', '/adm', '/admin-x/y', '/sessions/whoami', '/schemas/default', '/admin.x/y', '/admin_/y', '/a/b/admin/', '/admin/a/b/c/']
  for (const path of paths) expect({ path, reaches: reachesAdminApi(path) }).toEqual({ path, reaches: full(path) })
  expect(paths.filter(reachesAdminApi)).toEqual(['/admin', '/admin/', '/admin/identities', '/admin/a/b/c/'])
})
