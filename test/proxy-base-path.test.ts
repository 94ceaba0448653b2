// An upstream mounted under a path, as behind a reverse proxy (`location /kratos/ { proxy_pass
// http://kratos:4434/; }`): IDP_ADMIN_URL ends in `/kratos`. The proxy forwards under that path,
// and what it records about a request (the audit trail's path, the identity an erasure names)
// is the path under it, as with an upstream at the root.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { KratosFixture, type FixtureIdentity } from './support/kratos.ts'
import { markSensitive } from './support/leaks.ts'
import { startService, type TestService } from './support/service.ts'

const ORIGIN = 'http://admin.test'
const MOUNT = '/kratos'

let kratos: KratosFixture
let mount: ReturnType<typeof Bun.serve>
let service: TestService
let admin: FixtureIdentity
/** Paths the mount received, before it stripped its own path. */
const mounted: string[] = []

beforeAll(async () => {
  kratos = new KratosFixture().start()
  admin = kratos.addIdentity({ email: 'ada.admin@example.test', role: 'admin' })
  // Only paths under the mount reach Kratos, with the mount's path taken off.
  mount = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const url = new URL(request.url)
      mounted.push(url.pathname)
      if (!url.pathname.startsWith(`${MOUNT}/`)) return new Response('not under the mount', { status: 404 })
      const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer()
      const answer = await fetch(`${kratos.url}${url.pathname.slice(MOUNT.length)}${url.search}`, { method: request.method, headers: request.headers, body })
      return new Response(answer.body, { status: answer.status, headers: answer.headers })
    },
  })
  markSensitive(admin.id, 'ada.admin@example.test', kratos.url, String(new URL(kratos.url).port), String(mount.port))
  service = await startService({ env: { IDP_ADMIN_URL: `http://127.0.0.1:${mount.port}${MOUNT}` } })
})
afterAll(async () => {
  await service.stop()
  await mount.stop(true)
  await kratos.stop()
})

const adminCookie = () => `admin-session=${service.sign({ sub: admin.id, role: 'admin', email: 'ada.admin@example.test' })}`

test('a write through the admin prefix reaches the upstream under its path; the audit trail records the path under it', async () => {
  const response = await fetch(`${service.url}/api/idp-admin/admin/identities`, {
    method: 'POST',
    headers: { cookie: adminCookie(), origin: ORIGIN, 'content-type': 'application/json' },
    body: JSON.stringify({ schema_id: 'default', traits: { email: 'new.one@example.test', role: 'viewer' } }),
  })
  expect(response.status).toBe(201)
  const created = (await response.json()) as { id: string }
  markSensitive(created.id, 'new.one@example.test')
  expect(kratos.identities.get(created.id)?.traits.email).toBe('new.one@example.test')
  expect(mounted).toContain(`${MOUNT}/admin/identities`)
  const [event] = await service.services.audit.list({ limit: 1, action: 'proxy_write' })
  expect(event).toMatchObject({ target: '/admin/identities', detail: { prefix: 'idp-admin', method: 'POST', status: 201, outcome: 'ok' } })
})

test('deleting an identity under the path ends its dashboard sessions at once, and is audited with the path under it', async () => {
  const doomed = kratos.addIdentity({ email: 'erase.me@example.test', role: 'viewer' })
  markSensitive(doomed.id, 'erase.me@example.test')
  const victimCookie = `admin-session=${service.sign({ sub: doomed.id, role: 'viewer' })}`
  expect((await fetch(`${service.url}/api/auth/session`, { headers: { cookie: victimCookie } })).status).toBe(200)

  const response = await fetch(`${service.url}/api/idp-admin/admin/identities/${doomed.id}`, { method: 'DELETE', headers: { cookie: adminCookie(), origin: ORIGIN } })
  expect(response.status).toBe(204)
  expect(kratos.identities.has(doomed.id)).toBe(false)
  expect(mounted).toContain(`${MOUNT}/admin/identities/${doomed.id}`)
  // Within the recheck window, without waiting for it.
  expect((await fetch(`${service.url}/api/auth/session`, { headers: { cookie: victimCookie } })).status).toBe(401)
  const [event] = await service.services.audit.list({ limit: 1, action: 'proxy_write' })
  expect(event).toMatchObject({ target: `/admin/identities/${doomed.id}`, detail: { method: 'DELETE', status: 204, outcome: 'ok' } })
})

test('the service’s own calls go under the path too: the identity list answers from the mounted upstream', async () => {
  const response = await fetch(`${service.url}/api/identities`, { headers: { cookie: adminCookie() } })
  expect(response.status).toBe(200)
  expect(JSON.stringify(await response.json())).toContain(admin.id)
  expect(mounted.filter((path) => !path.startsWith(`${MOUNT}/`))).toEqual([])
})
