// The proxy prefixes against real upstream servers on loopback that record what they receive.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import type { Socket } from 'node:net'
import { ANSWER_LOST, ANSWER_UNREADABLE, OUTCOME_UNKNOWN, UPSTREAM_OUTCOME_HEADER } from '../src/proxy/answer-lost.ts'
import { gzipSync } from 'node:zlib'
import { rawRequest } from './support/raw-http.ts'
import { startStack, type Stack } from './support/stack.ts'
import { RawListener, RecordingUpstream, repeatedStream } from './support/upstream.ts'
import { markSecret, markSensitive } from './support/leaks.ts'
import { seededRandom } from './support/random.ts'
import { randomKey, startService, type TestService } from './support/service.ts'
import { joinUpstreamUrl, type UpstreamTarget } from '../src/proxy/url.ts'
import { rewriteLocation } from '../src/proxy/index.ts'
import { canonicalUuid } from '../src/text.ts'
import { KratosFixture, kratosId } from './support/kratos.ts'
import { freePort } from './support/ports.ts'
import { testCertificate } from './support/tls.ts'
import { PROXY_PREFIXES } from '../src/proxy/upstreams.ts'
import { foreignCookies, relayedResponseHeaders } from '../src/proxy/headers.ts'
import { readCookieValues } from '../src/session/cookie.ts'

const ORIGIN = 'http://admin.test'
const ADMIN_KEY = 'ory_pat_oauth_admin_secret_key_0123456789'
let stack: Stack
let upstream: RecordingUpstream
/** Listens on another loopback address: any connection there is the key leaving for a foreign host. */
let trap: RawListener

beforeAll(async () => {
  upstream = new RecordingUpstream()
  trap = await RawListener.start('127.0.0.2')
  stack = await startStack({
    env: {
      IDP_PUBLIC_URL: `${upstream.url}/kratos-public`,
      OAUTH_ADMIN_URL: upstream.url,
      OAUTH_PUBLIC_URL: upstream.url,
      // Up to the answer's head: a 20 MB upload included, on a loaded machine.
      PROXY_TIMEOUT_MS: '2000',
    },
  })
  markSensitive(ADMIN_KEY, upstream.url, String(new URL(upstream.url).port), String(trap.port))
  await stack.service.services.settings.write({ key: 'proxy.oauth-admin.api_key', value: ADMIN_KEY, encrypted: true }, null)
})
afterAll(async () => {
  await stack.stop()
  await upstream.stop()
  await trap.stop()
})

function adminHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return { cookie: stack.freshCookie('admin'), origin: ORIGIN, ...extra }
}

describe('forwarding', () => {
  for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
    test(`${method}: method, path, query, body and end-to-end headers arrive intact`, async () => {
      upstream.answer = () => Response.json({ echoed: true }, { headers: { 'x-upstream': 'yes', etag: '"v1"' } })
      const body = method === 'GET' ? undefined : JSON.stringify({ method, list: [1, 2, 3] })
      const response = await fetch(`${stack.service.url}/api/idp/self-service/login/flows?id=abc&x=%20y&empty=`, {
        method,
        headers: { 'content-type': 'application/json', accept: 'application/json', 'x-request-id': 'req-42', 'accept-language': 'de' },
        body,
      })
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({ echoed: true })
      expect(response.headers.get('x-upstream')).toBe('yes')
      expect(response.headers.get('etag')).toBe('"v1"')
      const seen = upstream.last()
      expect(seen.method).toBe(method)
      expect(seen.path).toBe('/kratos-public/self-service/login/flows')
      expect(seen.search).toBe('?id=abc&x=%20y&empty=')
      expect(seen.headers['x-request-id']).toBe('req-42')
      expect(seen.headers['accept-language']).toBe('de')
      expect(seen.headers['content-type']).toBe('application/json')
      if (body) expect(seen.bodySha256).toBe(createHash('sha256').update(body).digest('hex'))
    })
  }

  test('a 20 MB upload streams through intact', async () => {
    upstream.answer = (_request, received) => Response.json({ length: received.bodyLength, sha256: received.bodySha256 })
    const chunk = new Uint8Array(1024 * 1024).map((_, i) => (i * 31) % 251)
    const hash = createHash('sha256')
    for (let i = 0; i < 20; i++) hash.update(chunk)
    const body = repeatedStream(chunk, 20)
    const response = await fetch(`${stack.service.url}/api/idp/upload`, { method: 'POST', body, headers: { 'content-type': 'application/octet-stream' } })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ length: 20 * 1024 * 1024, sha256: hash.digest('hex') })
  })

  test('a 20 MB download streams through intact', async () => {
    const chunk = new Uint8Array(1024 * 1024).map((_, i) => (i * 7) % 253)
    const expected = createHash('sha256')
    for (let i = 0; i < 20; i++) expected.update(chunk)
    upstream.answer = () => new Response(repeatedStream(chunk, 20), { headers: { 'content-type': 'application/octet-stream' } })
    const response = await fetch(`${stack.service.url}/api/idp/download`)
    const hash = createHash('sha256')
    let length = 0
    for await (const part of response.body as unknown as AsyncIterable<Uint8Array>) {
      hash.update(part)
      length += part.byteLength
    }
    expect(length).toBe(20 * 1024 * 1024)
    expect(hash.digest('hex')).toBe(expected.digest('hex'))
  })
})

describe('the API key and the client’s credentials', () => {
  test('an admin prefix sends the stored key, never the client’s Authorization', async () => {
    upstream.answer = () => Response.json({})
    await fetch(`${stack.service.url}/api/oauth-admin/admin/clients`, { headers: adminHeaders({ authorization: 'Bearer client-token' }) })
    expect(upstream.last().headers.authorization).toBe(`Bearer ${ADMIN_KEY}`)
  })

  test('naming Authorization in Connection does not remove the injected key', async () => {
    upstream.answer = () => Response.json({})
    const response = await rawRequest(stack.service.url, 'GET /api/oauth-admin/admin/clients HTTP/1.1', {
      ...adminHeaders(),
      Connection: 'close, authorization, x-drop-me',
      'x-drop-me': 'secret',
    })
    expect(response.status).toBe(200)
    const seen = upstream.last()
    expect(seen.headers.authorization).toBe(`Bearer ${ADMIN_KEY}`)
    expect(seen.headers['x-drop-me']).toBeUndefined()
  })

  test('a public prefix without a stored key passes the client’s Authorization', async () => {
    upstream.answer = () => Response.json({})
    await fetch(`${stack.service.url}/api/oauth/userinfo`, { headers: { authorization: 'Bearer end-user-token' } })
    expect(upstream.last().headers.authorization).toBe('Bearer end-user-token')
  })

  test('a public prefix adds its stored key only to its upstream’s public API: anything else on that address (Ory Network’s permission reads) goes as with no key', async () => {
    const PUBLIC_KEY = 'ory_pat_oauth_public_key_0123456789'
    markSensitive(PUBLIC_KEY)
    await stack.service.services.settings.write({ key: 'proxy.oauth.api_key', value: PUBLIC_KEY, encrypted: true }, null)
    try {
      upstream.answer = () => Response.json({})
      const sent = async (path: string, headers: Record<string, string> = {}) => {
        const response = await rawRequest(stack.service.url, `GET ${path} HTTP/1.1`, { Host: new URL(stack.service.url).host, ...headers })
        expect([path, response.status]).toEqual([path, 200])
        return upstream.last().headers.authorization
      }
      for (const path of ['/api/oauth/userinfo', '/api/oauth/oauth2/token', '/api/oauth/.well-known/openid-configuration', '/api/oauth/sessions/whoami', '/api/oauth/self-service/login/browser', '/api/oauth/%73essions/whoami']) {
        expect([path, await sent(path)]).toEqual([path, `Bearer ${PUBLIC_KEY}`])
      }
      for (const path of ['/api/oauth/relation-tuples', '/api/oauth/relation-tuples/check?namespace=x', '/api/oauth/namespaces', '/api/oauth/opl/syntax/check', '/api/oauth/oauth2x', '/api/oauth/']) {
        expect([path, await sent(path)]).toEqual([path, undefined])
        // The client's own, as with no key stored.
        expect([path, await sent(path, { Authorization: 'Bearer own-token' })]).toEqual([path, 'Bearer own-token'])
      }
    } finally {
      await stack.service.services.settings.remove('proxy.oauth.api_key', null, undefined)
    }
  })

  test('our cookies never reach an upstream; other cookies do', async () => {
    upstream.answer = () => Response.json({})
    await fetch(`${stack.service.url}/api/oauth-admin/admin/clients`, {
      headers: adminHeaders({ cookie: `${stack.freshCookie('admin')}; oauth_state=s; csrf_token_abc=kratos-csrf; oauth_verifier=v; oauth_return_to=%2Fdashboard; ory_session=sess` }),
    })
    const cookie = upstream.last().headers.cookie ?? ''
    expect(cookie).not.toContain('admin-session')
    expect(cookie).not.toContain('oauth_state')
    expect(cookie).not.toContain('oauth_verifier')
    expect(cookie).not.toContain('oauth_return_to')
    expect(cookie).toContain('csrf_token_abc=kratos-csrf')
    expect(cookie).toContain('ory_session=sess')
  })

  test('Host, X-Forwarded-*, Forwarded, X-Real-IP and hop-by-hop headers are not forwarded as sent', async () => {
    upstream.answer = () => Response.json({})
    const response = await rawRequest(stack.service.url, 'GET /api/idp/sessions/whoami HTTP/1.1', {
      Host: 'evil.example',
      'X-Forwarded-For': '6.6.6.6',
      'X-Forwarded-Host': 'evil.example',
      'X-Forwarded-Proto': 'https',
      'X-Forwarded-Prefix': '/admin',
      Forwarded: 'for=6.6.6.6;host=evil.example',
      'X-Real-IP': '6.6.6.6',
      'Keep-Alive': 'timeout=999',
      'Proxy-Authorization': 'Basic c2VjcmV0',
      TE: 'trailers',
    })
    expect(response.status).toBe(200)
    const seen = upstream.last().headers
    expect(seen.host).toBe(new URL(upstream.url).host)
    for (const name of ['x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-prefix', 'forwarded', 'x-real-ip', 'keep-alive', 'proxy-authorization', 'te']) {
      expect(seen[name]).toBeUndefined()
    }
  })

  test('nor the other headers an upstream would take the client’s word from: its address and place (True-Client-IP, Cloudflare’s), a URL or a method to use instead', async () => {
    upstream.answer = () => Response.json({})
    const spoofed = {
      'True-Client-IP': '6.6.6.6',
      'X-Client-IP': '6.6.6.6',
      'X-Cluster-Client-IP': '6.6.6.6',
      'Fastly-Client-IP': '6.6.6.6',
      'CF-Connecting-IP': '6.6.6.6',
      'CF-Connecting-IPv6': '2001:db8::6',
      'CF-Pseudo-IPv4': '6.6.6.6',
      'Cf-Ipcountry': 'KP',
      'Cf-Ipcity': 'Pyongyang',
      'Cf-Ipcontinent': 'AS',
      'Cf-Iplatitude': '39.0',
      'Cf-Iplongitude': '125.7',
      'Cf-Region': 'P',
      'Cf-Region-Code': 'P',
      'Cf-Metro-Code': '1',
      'Cf-Postal-Code': '1',
      'Cf-Timezone': 'Asia/Pyongyang',
      'X-Original-URL': '/admin/identities',
      'X-Rewrite-URL': '/admin/identities',
      'X-HTTP-Method-Override': 'DELETE',
      'X-HTTP-Method': 'DELETE',
      'X-Method-Override': 'DELETE',
      // The same names with `_`, which a server that folds `_` into `-` reads as the names above.
      X_Forwarded_For: '6.6.6.6',
      'X-Forwarded_Host': 'evil.example',
      X_Real_IP: '6.6.6.6',
      True_Client_IP: '6.6.6.6',
      CF_Connecting_IP: '6.6.6.6',
      X_Original_URL: '/admin/identities',
    }
    const response = await rawRequest(stack.service.url, 'GET /api/idp/sessions/whoami HTTP/1.1', { Host: new URL(stack.service.url).host, ...spoofed, 'X-Kept': 'yes' })
    expect(response.status).toBe(200)
    const seen = upstream.last().headers
    for (const name of Object.keys(spoofed)) expect([name, seen[name.toLowerCase()]]).toEqual([name, undefined])
    // Anything else still passes (Kratos's browser flows need their own headers).
    expect(seen['x-kept']).toBe('yes')
  })
})

describe('methods that are not forwarded', () => {
  // TRACE asks each hop to echo the request, the API key the service adds included; CONNECT makes a tunnel.
  for (const method of ['TRACE', 'CONNECT']) {
    for (const [path, admin] of [
      ['/api/oauth/oauth2/token', false],
      ['/api/oauth-admin/admin/clients', true],
    ] as const) {
      test(`${method} ${path}${admin ? ' by an admin' : ''}: refused (405), nothing reaches the upstream`, async () => {
        const before = upstream.received.length
        const session: Record<string, string> = admin ? { Cookie: stack.freshCookie('admin'), Origin: ORIGIN } : {}
        const response = await rawRequest(stack.service.url, `${method} ${path} HTTP/1.1`, { Host: new URL(stack.service.url).host, ...session })
        expect([response.status, JSON.parse(response.body).error]).toEqual([405, 'method_not_allowed'])
        await Bun.sleep(20)
        expect(upstream.received.length).toBe(before)
        expect(response.body).not.toContain(ADMIN_KEY)
      })
    }
  }
})

describe('a stored API key the service cannot read', () => {
  // ENCRYPTION_KEY changed since the key was stored (it no longer authenticates), or unset (it
  // cannot be opened at all): the proxy path fails as any other failure does, 500 proxy_error, and
  // nothing goes upstream without the key. The cause is in the log, not in the answer.
  test('changed or removed ENCRYPTION_KEY → 500 proxy_error on public and admin prefixes, nothing sent, the write audited', async () => {
    const env = { IDP_PUBLIC_URL: upstream.url, OAUTH_ADMIN_URL: upstream.url, IDP_ADMIN_URL: stack.kratos.url }
    const first = await startService({ env })
    await first.services.settings.write({ key: 'proxy.idp.api_key', value: 'public-prefix-key-0123', encrypted: true }, null)
    await first.services.settings.write({ key: 'proxy.oauth-admin.api_key', value: 'admin-prefix-key-0123', encrypted: true }, null)
    markSecret('public-prefix-key-0123', 'admin-prefix-key-0123')
    await first.stop({ keepDir: true })

    for (const encryptionKey of [randomKey(), '']) {
      const service = await startService({ dir: first.dir, env: { ...env, ENCRYPTION_KEY: encryptionKey } })
      try {
        const before = upstream.received.length
        const cookie = `admin-session=${service.sign({ sub: stack.admin.id, role: 'admin' })}`
        const anonymous = await fetch(`${service.url}/api/idp/sessions/whoami`)
        const write = await fetch(`${service.url}/api/oauth-admin/admin/clients`, {
          method: 'POST',
          headers: { cookie, origin: ORIGIN, 'content-type': 'application/json' },
          body: JSON.stringify({ client_name: 'never sent' }),
        })
        for (const response of [anonymous, write]) {
          expect(response.status).toBe(500)
          expect(await response.json()).toEqual({ error: 'proxy_error', message: 'An unexpected error occurred.' })
        }
        expect(upstream.received.length).toBe(before)
        const [event] = await service.services.audit.list({ limit: 1, action: 'proxy_write' })
        expect(event).toMatchObject({ target: '/admin/clients', detail: { prefix: 'oauth-admin', method: 'POST', status: null, outcome: 'api_key_unreadable' }, request_id: write.headers.get('x-request-id') })
        const unreadable = service.logLines.filter((line) => line.includes('"api_key_unreadable"'))
        expect(unreadable.length).toBeGreaterThanOrEqual(2)
      } finally {
        await service.stop({ keepDir: true })
      }
    }
  })
})

describe('an API key that cannot go in a header', () => {
  // A line break in a key would end the Authorization header and start another header, or a whole
  // second request on the pooled upstream connection (whose answer would go to the next caller).
  // U+010A and U+010D are there too: as latin1 they would be LF and CR on the wire.
  const hostile = ['KEY-123\r\n\r\nGET /smuggled HTTP/1.1\r\nhost: x\r\nx-pad: y', 'KEY\u010d\u010aX-Injected:yes', 'trailing-newline\n', 'with space', 'tab\there', 'nul\u0001byte', 'é-accented']

  test('is refused when stored, through the API and the settings service, naming none of it', async () => {
    markSecret(hostile[0]!, hostile[1]!)
    const cookie = `admin-session=${stack.service.sign({ sub: stack.admin.id, role: 'admin' })}`
    for (const value of hostile) {
      const response = await fetch(`${stack.service.url}/api/settings`, {
        method: 'POST',
        headers: { cookie, origin: ORIGIN, 'content-type': 'application/json' },
        body: JSON.stringify({ key: 'proxy.idp.api_key', value, encrypted: true }),
      })
      expect(response.status).toBe(400)
      expect(await response.json()).toEqual({
        error: 'bad_request',
        message: 'An API key is sent in an HTTP header: it may hold only visible ASCII characters, without spaces or line breaks.',
      })
      await expect(stack.service.services.settings.write({ key: 'proxy.oauth-admin.api_key', value, encrypted: true }, null)).rejects.toMatchObject({ code: 'bad_request' })
    }
    expect(await stack.service.services.settings.getSetting('proxy.idp.api_key')).toBeNull()
    expect(await stack.service.services.settings.apiKeyFor('oauth-admin')).toBe(ADMIN_KEY)
    // Any other setting may hold them. An empty key is refused too: removing one is a delete.
    await stack.service.services.settings.write({ key: 'notes.multiline', value: hostile[0]! }, null)
    await expect(stack.service.services.settings.write({ key: 'proxy.idp.api_key', value: '' }, null)).rejects.toMatchObject({ code: 'bad_request' })
    expect(await stack.service.services.settings.apiKeyFor('idp')).toBeNull()
  })

  test('stored before (or into the database directly): 500 proxy_error, nothing sent upstream, logged as api_key_unreadable', async () => {
    const service = await startService({ env: { IDP_PUBLIC_URL: upstream.url, OAUTH_ADMIN_URL: upstream.url, IDP_ADMIN_URL: stack.kratos.url } })
    try {
      const cipher = service.services.settings.cipher
      const write = service.db!.query('INSERT OR REPLACE INTO settings (key, value, encrypted, category, updated_at) VALUES (?, ?, ?, NULL, ?)')
      write.run('proxy.idp.api_key', hostile[0]!, 0, new Date().toISOString())
      write.run('proxy.oauth-admin.api_key', cipher.encryptSetting('proxy.oauth-admin.api_key', hostile[1]!), 1, new Date().toISOString())
      const before = upstream.received.length
      const cookie = `admin-session=${service.sign({ sub: stack.admin.id, role: 'admin' })}`
      // Twice each: a key refused is never kept in memory, so each request reads it and refuses it again.
      for (let round = 0; round < 2; round++) {
        const anonymous = await fetch(`${service.url}/api/idp/self-service/login/browser`)
        const admin = await fetch(`${service.url}/api/oauth-admin/admin/clients`, { headers: { cookie } })
        for (const response of [anonymous, admin]) {
          expect(response.status).toBe(500)
          expect(await response.json()).toEqual({ error: 'proxy_error', message: 'An unexpected error occurred.' })
        }
      }
      expect(upstream.received.length).toBe(before)
      const refused = service.logLines.filter((line) => line.includes('"event":"api_key_unreadable"'))
      expect(refused.length).toBe(4)
      for (const line of refused) expect(JSON.parse(line)).toMatchObject({ level: 'error', error_name: 'ApiKeyNotSendable' })
      expect(service.logLines.filter((line) => line.includes('"event":"request"') && line.includes('"upstream_failure":"api_key_unreadable"')).length).toBe(4)
    } finally {
      await service.stop()
    }
  })
})

describe('paths that would leave the upstream', () => {
  const tricks = [
    `//127.0.0.2:${0}/steal`,
    '//127.0.0.2/steal',
    '/\\127.0.0.2/steal',
    '/%5c%5c127.0.0.2/steal',
    '/@127.0.0.2/steal',
    '/x@127.0.0.2',
    '/..%2f..%2fsteal',
    '/%2e%2e%2f%2e%2e%2fadmin',
    '/a/..%2f..%2f..%2fadmin',
    '/%252e%252e/%252e%252e/admin',
    '/a%2fb',
    '/a%2Fb',
    '/a%5cb',
    '/a%255cb',
    '/%00',
    '/a%zz',
  ]
  for (const trick of tricks) {
    test(`GET /api/idp${trick} → 400, and no connection anywhere`, async () => {
      const path = trick.replace(':0/', `:${trap.port}/`)
      const before = upstream.received.length
      const response = await rawRequest(stack.service.url, `GET /api/idp${path} HTTP/1.1`)
      expect(response.status).toBe(400)
      expect(JSON.parse(response.body).error).toBe('bad_request')
      expect(upstream.received.length).toBe(before)
      expect(trap.connections).toBe(0)
    })
  }

  test('dot segments Bun resolves itself stay under the prefix', async () => {
    upstream.answer = () => Response.json({})
    const response = await rawRequest(stack.service.url, 'GET /api/idp/x/%2e%2e/y HTTP/1.1')
    expect(response.status).toBe(200)
    expect(upstream.last().path).toBe('/kratos-public/y')
  })

  test('the same on an admin prefix for an admin, with the key never leaving', async () => {
    const before = upstream.received.length
    const response = await rawRequest(stack.service.url, `GET /api/oauth-admin//127.0.0.2:${trap.port}/steal HTTP/1.1`, adminHeaders())
    expect(response.status).toBe(400)
    expect(upstream.received.length).toBe(before)
    expect(trap.connections).toBe(0)
  })

  test('joinUpstreamUrl keeps the origin and the base path', () => {
    const base = new URL('http://upstream.example/base/')
    const ok = joinUpstreamUrl(base, '/admin/identities/1', '?page_size=2')
    expect(ok.ok && ok.url.href).toBe('http://upstream.example/base/admin/identities/1?page_size=2')
    expect(joinUpstreamUrl(base, '//evil.example/x', '').ok).toBe(false)
    expect(joinUpstreamUrl(base, 'evil', '').ok).toBe(false)
    expect(joinUpstreamUrl(base, '', '').ok).toBe(true)
  })

  test('the plain-path fast path gives exactly the target the general one builds, queries included', () => {
    // The general construction, as it was before plain paths had their own.
    const reference = (base: URL, rest: string, search: string) => {
      const url = new URL(base.href)
      url.pathname = base.pathname.replace(/\/+$/, '') + (rest === '' ? '/' : rest)
      url.search = search
      return url
    }
    const parts = (url: UpstreamTarget) => ({ protocol: url.protocol, host: url.host, hostname: url.hostname, port: url.port, pathname: url.pathname, search: url.search, href: url.href })
    const bases = ['http://upstream.example', 'http://upstream.example/', 'http://upstream.example:4434/base', 'https://u.example/a%20b/c/'].map((b) => new URL(b))
    const pieces = ['admin', 'identities', '7f0c2a3e-1b4d-4c5e-9f6a-0b1c2d3e4f50', 'a.b', 'x~y', 'A_Z-0', 'v1.json', '']
    const searches = ['', '?', '?page_size=2', '?a=1&b=2#frag', '?q=a b', '?q=é&x=%41', "?x='\"<>", '?page_token=aB-_.~&per_page=250', '?a=(1)*,;:@/?x!$+', '?x=%zz%4', '?q=`{|}^[]', '??']
    const next = seededRandom(7)
    let checked = 0
    let written = 0
    for (let i = 0; i < 3000; i++) {
      const segments = Array.from({ length: next(5) }, () => pieces[next(pieces.length)]!)
      const rest = segments.length === 0 ? (next(2) ? '' : '/') : `/${segments.join('/')}${next(3) === 0 ? '/' : ''}`
      const base = bases[next(bases.length)]!
      const search = searches[next(searches.length)]!
      const joined = joinUpstreamUrl(base, rest, search)
      if (!joined.ok) {
        // Only what the general rules refuse (an empty segment: `//`) may be refused.
        expect(rest).toContain('//')
        continue
      }
      // Every part a client reads, whether or not the fast path built it (it builds no URL).
      expect(parts(joined.url)).toEqual(parts(reference(base, rest, search)))
      checked++
      if (!(joined.url instanceof URL)) written++
    }
    expect(checked).toBeGreaterThan(2000)
    expect(written).toBeGreaterThan(1000)
  })
})

describe('the gate in front of the admin prefixes', () => {
  for (const prefix of PROXY_PREFIXES.filter((p) => p.admin)) {
    test(`anonymous and viewer calls to ${prefix.path} → 401/403 with zero upstream calls`, async () => {
      const before = upstream.received.length + stack.kratos.calls.filter((c) => !c.path.startsWith('/admin/identities/')).length
      const anonymous = await fetch(`${stack.service.url}${prefix.path}/admin/identities`)
      expect(anonymous.status).toBe(401)
      const viewer = await fetch(`${stack.service.url}${prefix.path}/admin/identities`, { headers: { cookie: stack.freshCookie('viewer') } })
      expect(viewer.status).toBe(403)
      const viewerDelete = await fetch(`${stack.service.url}${prefix.path}/admin/identities/${stack.admin.id}`, {
        method: 'DELETE',
        headers: { cookie: stack.freshCookie('viewer'), origin: ORIGIN },
      })
      expect(viewerDelete.status).toBe(403)
      expect(upstream.received.length + stack.kratos.calls.filter((c) => !c.path.startsWith('/admin/identities/')).length).toBe(before)
      expect(stack.kratos.identities.has(stack.admin.id)).toBe(true)
    })
  }

  test('an unconfigured prefix → 503 upstream_not_configured', async () => {
    const response = await fetch(`${stack.service.url}/api/iam-idp/sessions/whoami`)
    expect(response.status).toBe(503)
    expect((await response.json()).error).toBe('upstream_not_configured')
  })
})

/**
 * The service in front of a raw TCP upstream whose every connection gets `answer` once its first
 * bytes arrive; both stop when `run` is done.
 */
async function behindRawUpstream(answer: (socket: Socket) => void, run: (service: TestService) => Promise<void>, env: Record<string, string> = {}): Promise<void> {
  const raw = await RawListener.start('127.0.0.1', (socket) => void socket.once('data', () => answer(socket)))
  markSensitive(String(raw.port))
  const service = await startService({ env: { IDP_PUBLIC_URL: `http://127.0.0.1:${raw.port}`, ...env } })
  try {
    await run(service)
  } finally {
    await service.stop()
    await raw.stop()
  }
}

describe('upstream behaviour', () => {
  test('a slow upstream → 504 gateway_timeout', async () => {
    upstream.answer = async () => {
      await Bun.sleep(5000)
      return Response.json({})
    }
    const response = await fetch(`${stack.service.url}/api/idp/slow`)
    expect(response.status).toBe(504)
    expect((await response.json()).error).toBe('gateway_timeout')
    // The cause's line names the request; its code is text or absent (a DOMException's legacy
    // number, 23 here, would give the field two types in a log store).
    const id = response.headers.get('x-request-id')
    const line = stack.service.logLines.map((entry) => JSON.parse(entry) as Record<string, unknown>).find((entry) => entry.event === 'proxy_failed' && entry.request_id === id)
    expect(line).toMatchObject({ failure: 'timeout', error_name: 'TimeoutError' })
    expect(line!.error_code).toBeUndefined()
  })

  test('a refused port → 502 bad_gateway', async () => {
    const closed = await RawListener.start('127.0.0.1')
    const port = closed.port
    await closed.stop()
    markSensitive(String(port))
    const service = await startService({ env: { IDP_PUBLIC_URL: `http://127.0.0.1:${port}` } })
    try {
      for (const method of ['GET', 'POST']) {
        const response = await fetch(`${service.url}/api/idp/x`, { method, body: method === 'POST' ? '{}' : undefined })
        expect(response.status).toBe(502)
        // Nothing left this host: said as unreachable, not as an answer lost on the way.
        expect(response.headers.get(UPSTREAM_OUTCOME_HEADER)).toBeNull()
        expect(await response.json()).toEqual({ error: 'bad_gateway', message: 'Unable to reach upstream service.' })
      }
      expect(service.logLines.join('')).not.toContain(ADMIN_KEY)
    } finally {
      await service.stop()
    }
  })

  test('an upstream that takes the request and then resets, or cuts a small answer short → 502 saying its answer was lost and a change may have been made, with either client', async () => {
    const ways: [string, (socket: Socket) => void][] = [
      ['reset after the request', (socket) => socket.resetAndDestroy()],
      ['closed after the request', (socket) => socket.end()],
      ['a 201 cut short', (socket) => socket.end('HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"client_id":')],
    ]
    for (const [way, answer] of ways) {
      for (const env of [{}, { HTTP_PROXY: 'http://127.0.0.1:9' }] as Record<string, string>[]) {
        await behindRawUpstream(
          answer,
          async (service) => {
            const response = await fetch(`${service.url}/api/idp/clients`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"client_name":"x"}' })
            expect([way, env, response.status, response.headers.get(UPSTREAM_OUTCOME_HEADER), await response.json()]).toEqual([way, env, 502, OUTCOME_UNKNOWN, { error: 'bad_gateway', message: ANSWER_LOST }])
          },
          env,
        )
      }
    }
  })

  test('an identity write through an admin prefix whose answer was lost (Kratos said 200, the body cut short): the identity is asked about again at its next request, so a deactivation holds at once; audited with the status that came, outcome answer_lost', async () => {
    const kratos = new KratosFixture().start()
    const admin = kratos.addIdentity({ email: 'lost.admin@example.test', role: 'admin' })
    const victim = kratos.addIdentity({ email: 'lost.victim@example.test', role: 'admin' })
    markSensitive(admin.id, victim.id, 'lost.admin@example.test', 'lost.victim@example.test', kratos.url)
    // The managed store is a raw upstream that takes the PATCH and cuts its answer; the admins live in the Kratos-like store.
    const raw = await RawListener.start('127.0.0.1', (socket) =>
      void socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"id":')),
    )
    markSensitive(String(raw.port))
    const service = await startService({ env: { IDP_ADMIN_URL: `http://127.0.0.1:${raw.port}`, IAM_IDP_ADMIN_URL: kratos.url } })
    try {
      const victimCookie = `admin-session=${service.sign({ sub: victim.id, role: 'admin' })}`
      expect((await fetch(`${service.url}/api/auth/session`, { headers: { cookie: victimCookie } })).status).toBe(200)
      // Deactivated in the store by then (the write was made; only its answer was lost).
      kratos.identities.get(victim.id)!.state = 'inactive'
      const response = await fetch(`${service.url}/api/idp-admin/admin/identities/${victim.id}`, {
        method: 'PATCH',
        headers: { cookie: `admin-session=${service.sign({ sub: admin.id, role: 'admin' })}`, origin: 'http://admin.test', 'content-type': 'application/json' },
        body: JSON.stringify([{ op: 'replace', path: '/state', value: 'inactive' }]),
      })
      expect(response.status).toBe(502)
      expect(response.headers.get(UPSTREAM_OUTCOME_HEADER)).toBe(OUTCOME_UNKNOWN)
      expect(await response.json()).toEqual({ error: 'bad_gateway', message: ANSWER_LOST })
      // Within the recheck window, but the store is asked again: the lock-out holds now.
      expect((await fetch(`${service.url}/api/auth/session`, { headers: { cookie: victimCookie } })).status).toBe(401)
      const [event] = await service.services.audit.list({ limit: 1, action: 'proxy_write' })
      expect(event!.detail).toEqual({ prefix: 'idp-admin', method: 'PATCH', status: 200, outcome: 'answer_lost' })
    } finally {
      await service.stop()
      await raw.stop()
      await kratos.stop()
    }
  })

  test('an answer that could not be read says so, and for a change that it may have been made; a 407 from a proxy on the way (nothing reached the upstream) says neither', async () => {
    const unreadable = (socket: Socket) => socket.end('HTTP/1.1 999 Weird\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok')
    await behindRawUpstream(unreadable, async (service) => {
      const read = await fetch(`${service.url}/api/idp/x`)
      expect([read.status, await read.json()]).toEqual([500, { error: 'proxy_error', message: ANSWER_UNREADABLE }])
      const change = await fetch(`${service.url}/api/idp/x`, { method: 'POST', body: '{}' })
      expect([change.status, change.headers.get(UPSTREAM_OUTCOME_HEADER), await change.json()]).toEqual([500, OUTCOME_UNKNOWN, { error: 'proxy_error', message: ANSWER_UNREADABLE }])
    })
    const proxyAuth = (socket: Socket) => socket.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\nContent-Length: 0\r\nConnection: close\r\n\r\n')
    await behindRawUpstream(proxyAuth, async (service) => {
      const change = await fetch(`${service.url}/api/idp/x`, { method: 'POST', body: '{}' })
      expect([change.status, change.headers.get(UPSTREAM_OUTCOME_HEADER), await change.json()]).toEqual([500, null, { error: 'proxy_error', message: 'An unexpected error occurred.' }])
    })
  })

  test('a TLS handshake the service refuses (a certificate it does not trust) never reached the upstream: 502 "unable to reach", not an answer lost', async () => {
    const { cert, key } = testCertificate()
    let requests = 0
    const tls = Bun.serve({ hostname: '127.0.0.1', port: 0, tls: { cert, key }, fetch: () => (requests++, new Response('{}')) })
    markSensitive(String(tls.port))
    const service = await startService({ env: { IDP_PUBLIC_URL: `https://127.0.0.1:${tls.port}` } })
    try {
      for (const method of ['GET', 'POST']) {
        const response = await fetch(`${service.url}/api/idp/self-service/x`, { method, body: method === 'POST' ? '{}' : undefined })
        expect(response.status).toBe(502)
        expect(await response.json()).toEqual({ error: 'bad_gateway', message: 'Unable to reach upstream service.' })
      }
      expect(requests).toBe(0)
    } finally {
      await service.stop()
      await tls.stop(true)
    }
  })

  test('an upstream that resets mid-body gives a cut stream or an error, never a hang', async () => {
    const reset = (socket: Socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 1000000\r\n\r\n')
      socket.write(Buffer.alloc(1000, 1), () => socket.resetAndDestroy())
    }
    await behindRawUpstream(
      reset,
      async (service) => {
        const started = Date.now()
        let outcome: string
        try {
          const response = await fetch(`${service.url}/api/idp/file`, { signal: AbortSignal.timeout(8000) })
          if (response.status >= 500) outcome = 'enveloped'
          else {
            const bytes = await response.arrayBuffer()
            outcome = bytes.byteLength < 1_000_000 ? 'cut' : 'complete'
          }
        } catch (error) {
          outcome = (error as Error).name === 'TimeoutError' ? 'hang' : 'cut'
        }
        expect(['enveloped', 'cut']).toContain(outcome)
        expect(Date.now() - started).toBeLessThan(8000)
      },
      { PROXY_TIMEOUT_MS: '2000' },
    )
  })

  test('an answer whose framing could be read two ways → 500 proxy_error, logged as invalid_response, nothing of it relayed', async () => {
    const smuggle = (socket: Socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nHTTP/1.1 200 OK\r\nX-Smuggled: yes\r\n\r\n')
    await behindRawUpstream(smuggle, async (service) => {
      const response = await fetch(`${service.url}/api/idp/x`)
      expect(response.status).toBe(500)
      expect(await response.json()).toMatchObject({ error: 'proxy_error' })
      expect(response.headers.get('x-smuggled')).toBeNull()
      const line = service.logLines.map((entry) => JSON.parse(entry) as Record<string, unknown>).find((entry) => entry.event === 'proxy_failed')
      expect(line).toMatchObject({ failure: 'invalid_response', error_name: 'UpstreamProtocolError', request_id: response.headers.get('x-request-id') })
    })
  })

  test('a status outside 200–599 → 500 proxy_error, logged as invalid_response, with either client', async () => {
    for (const status of ['600 Internal', '999 Weird']) {
      const answer = (socket: Socket) => socket.end(`HTTP/1.1 ${status}\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok`)
      // HTTP_PROXY in the service's configuration puts plain-HTTP upstreams on Bun's fetch; this
      // process's own environment has none, so that fetch still goes straight to the upstream.
      for (const env of [{}, { HTTP_PROXY: 'http://127.0.0.1:9' }] as Record<string, string>[]) {
        await behindRawUpstream(
          answer,
          async (service) => {
            const response = await fetch(`${service.url}/api/idp/x`)
            expect([status, env, response.status, await response.json()]).toEqual([status, env, 500, expect.objectContaining({ error: 'proxy_error' })])
            const entries = service.logLines.map((entry) => JSON.parse(entry) as Record<string, unknown>)
            expect(entries.find((entry) => entry.event === 'proxy_failed')).toMatchObject({ failure: 'invalid_response', error_name: 'UpstreamProtocolError' })
            expect(entries.filter((entry) => entry.event === 'unhandled_error')).toEqual([])
          },
          env,
        )
      }
    }
  })

  test('a 407 (a proxy on the way asking for its credentials) → 500 proxy_error, nothing of it relayed, with either client', async () => {
    markSecret('dXNlcjpwcm94eS1wYXNzd29yZA==')
    const answer = (socket: Socket) =>
      socket.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="corp"\r\nContent-Length: 28\r\nConnection: close\r\n\r\ndXNlcjpwcm94eS1wYXNzd29yZA==')
    for (const env of [{}, { HTTP_PROXY: 'http://127.0.0.1:9' }] as Record<string, string>[]) {
      await behindRawUpstream(
        answer,
        async (service) => {
          const response = await fetch(`${service.url}/api/idp/x`)
          const text = await response.text()
          expect([env, response.status, JSON.parse(text).error, response.headers.get('proxy-authenticate')]).toEqual([env, 500, 'proxy_error', null])
          expect(text).not.toContain('dXNlcjpwcm94eS1wYXNzd29yZA==')
          const entries = service.logLines.map((entry) => JSON.parse(entry) as Record<string, unknown>)
          expect(entries.find((entry) => entry.event === 'proxy_failed')).toMatchObject({ failure: 'invalid_response', error_name: 'UpstreamProtocolError' })
        },
        env,
      )
    }
  })

  test("a 401 with a challenge a browser would ask its user's name and password for (a basic-auth gate in front of Kratos): relayed without it; a Bearer challenge is relayed", async () => {
    for (const [challenge, relayed] of [
      ['Basic realm="kratos admin"', false],
      ['Digest realm="x", nonce="n", qop="auth"', false],
      ['Negotiate', false],
      ['Bearer realm="hydra", NTLM', false],
      ['Bearer error="invalid_token", error_description="The token expired"', true],
    ] as const) {
      upstream.answer = () => Response.json({ error: { code: 401 } }, { status: 401, headers: { 'www-authenticate': challenge } })
      const response = await fetch(`${stack.service.url}/api/idp/sessions/whoami`)
      expect([challenge, response.status, response.headers.get('www-authenticate')]).toEqual([challenge, 401, relayed ? challenge : null])
    }
  })

  test('headers named by any of several Connection lines of an answer are not relayed', async () => {
    const answer = (socket: Socket) => socket.end('HTTP/1.1 200 OK\r\nConnection: x-one\r\nX-One: 1\r\nX-Kept: 3\r\nconnection: X-Two\r\nX-Two: 2\r\nContent-Length: 2\r\n\r\nok')
    await behindRawUpstream(answer, async (service) => {
      const response = await fetch(`${service.url}/api/idp/x`)
      expect(response.status).toBe(200)
      expect(await response.text()).toBe('ok')
      expect([response.headers.get('x-one'), response.headers.get('x-two'), response.headers.get('x-kept')]).toEqual([null, null, '3'])
    })
  })

  test('an upstream Set-Cookie for our cookies is dropped; its own cookies pass', async () => {
    upstream.answer = () => {
      const headers = new Headers({ 'content-type': 'application/json' })
      headers.append('set-cookie', 'admin-session=planted; Path=/')
      headers.append('set-cookie', 'oauth_state=planted; Path=/api/auth')
      headers.append('set-cookie', 'oauth_verifier=planted; Path=/api/auth')
      headers.append('set-cookie', 'oauth_return_to=%2Fdashboard%2Fplanted; Path=/api/auth')
      headers.append('set-cookie', 'csrf_token=kratos; Path=/; HttpOnly')
      return new Response('{}', { headers })
    }
    const response = await fetch(`${stack.service.url}/api/idp/self-service/login/browser`)
    const cookies = response.headers.getSetCookie()
    expect(cookies).toEqual(['csrf_token=kratos; Path=/; HttpOnly'])
  })

  test('an upstream Set-Cookie that a browser would send back as one of our cookies is dropped, with either client; look-alikes pass', async () => {
    // As an upstream that wants to plant a session writes them. A nameless cookie goes back as its
    // value alone (RFC 6265bis §5.6): `=admin-session=forged` returns as `Cookie: admin-session=forged`.
    const planted = [
      '=admin-session=forged; Path=/',
      '   =admin-session=forged; Path=/',
      '= admin-session =forged; Path=/',
      '=\tadmin-session\t=forged',
      '=admin-session=',
      '=admin-session; Path=/',
      'admin-session; Path=/',
      'admin-session',
      ' admin-session\t=forged',
      '=oauth_state=forged; Path=/api/auth',
      '=oauth_verifier=forged; Path=/api/auth',
      '=oauth_return_to=%2Fdashboard%2Fplanted; Path=/api/auth',
    ]
    // Kratos's own (its session and its CSRF cookie, x/nosurfx/nosurf.go), and cookies our reader never takes for ours.
    const passing = [
      'ory_kratos_session=MTcwMDAwMDAwMHxkYXRh; Path=/; Expires=Fri, 01 Jan 2100 00:00:00 GMT; HttpOnly; SameSite=Lax',
      'csrf_token_806060ca5bf70dff3caa0e5c860002aade9d470a5a4dce73bcfa7ba10778f481=c29tZS10b2tlbg==; Path=/; Domain=admin.test; HttpOnly; SameSite=Lax',
      'Admin-Session=other; Path=/',
      'admin-session2=x',
      'xadmin-session=x',
      '="admin-session=x"',
      '"admin-session"=x',
      '=theme=dark',
      'session=admin-session=x',
      '=x=admin-session',
      'theme; admin-session=x',
      // U+00A0 is part of the name (only spaces and tabs are not): a cookie of its own, never read as ours.
      '\xa0admin-session=forged',
    ]
    const head = ['HTTP/1.1 200 OK', ...[...planted, ...passing].map((cookie) => `Set-Cookie: ${cookie}`), 'Content-Length: 2', 'Connection: close', '', 'ok'].join('\r\n')
    const answer = (socket: Socket) => socket.end(head, 'latin1')
    for (const env of [{}, { HTTP_PROXY: 'http://127.0.0.1:9' }] as Record<string, string>[]) {
      await behindRawUpstream(
        answer,
        async (service) => {
          const response = await fetch(`${service.url}/api/idp/self-service/login/browser`)
          expect(await response.text()).toBe('ok')
          expect([env, response.headers.getSetCookie()]).toEqual([env, passing])
        },
        env,
      )
    }
  })

  test('an upstream cannot loosen our headers: no-store, nosniff, DENY and a sandboxing CSP on every proxied answer, public or admin', async () => {
    upstream.answer = () =>
      new Response('<html><script>alert(1)</script></html>', {
        headers: {
          'content-type': 'text/html',
          'cache-control': 'public, max-age=86400',
          expires: 'Thu, 01 Jan 2099 00:00:00 GMT',
          'x-frame-options': 'ALLOWALL',
          'x-content-type-options': 'sniff-away',
          'content-security-policy': "default-src *; script-src 'unsafe-inline'",
          'referrer-policy': 'unsafe-url',
        },
      })
    for (const [path, headers] of [
      ['/api/idp/self-service/errors', {}],
      ['/api/oauth/oauth2/fallbacks/error', {}],
      ['/api/oauth-admin/admin/clients', adminHeaders()],
    ] as const) {
      const response = await fetch(`${stack.service.url}${path}`, { headers })
      expect(response.status).toBe(200)
      expect(response.headers.get('cache-control')).toBe('no-store')
      expect(response.headers.get('expires')).toBeNull()
      expect(response.headers.get('x-frame-options')).toBe('DENY')
      expect(response.headers.get('x-content-type-options')).toBe('nosniff')
      expect(response.headers.get('referrer-policy')).toBe('no-referrer')
      const csp = response.headers.get('content-security-policy') ?? ''
      expect(csp).toContain("default-src 'none'")
      expect(csp).toContain('sandbox')
      expect(csp).not.toContain('unsafe-inline')
      expect(await response.text()).toContain('<html>')
    }
  })

  test('gzip bodies decode for the client, with consistent headers', async () => {
    const json = JSON.stringify({ compressed: 'yes'.repeat(500) })
    const zipped = gzipSync(json)
    upstream.answer = () => new Response(zipped, { headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } })
    const response = await fetch(`${stack.service.url}/api/idp/big`, { headers: { 'accept-encoding': 'gzip' } })
    expect(response.status).toBe(200)
    expect(await response.text()).toBe(json)
    const raw = await rawRequest(stack.service.url, 'GET /api/idp/big HTTP/1.1', { 'Accept-Encoding': 'gzip' })
    expect(raw.headers['content-encoding']).toBe('gzip')
    if (raw.headers['content-length']) expect(Number(raw.headers['content-length'])).toBe(zipped.byteLength)
  })

  test('an upstream 302 reaches the client unchanged; a Location inside the upstream is mapped under the prefix', async () => {
    upstream.answer = () => new Response(null, { status: 302, headers: { location: 'https://login.example.com/ui/login?flow=1' } })
    const outside = await fetch(`${stack.service.url}/api/idp/self-service/login/browser`, { redirect: 'manual' })
    expect(outside.status).toBe(302)
    expect(outside.headers.get('location')).toBe('https://login.example.com/ui/login?flow=1')

    upstream.answer = () => new Response(null, { status: 303, headers: { location: `${upstream.url}/kratos-public/self-service/login?flow=2` } })
    const inside = await fetch(`${stack.service.url}/api/idp/self-service/login/browser`, { redirect: 'manual' })
    expect(inside.status).toBe(303)
    expect(inside.headers.get('location')).toBe('/api/idp/self-service/login?flow=2')
  })

  test('rewriteLocation leaves relative and foreign locations alone', () => {
    const base = new URL('http://kratos.internal:4433/public')
    const idp = PROXY_PREFIXES[0]!
    expect(rewriteLocation('next?x=1', base, idp)).toBe('next?x=1')
    expect(rewriteLocation('https://elsewhere.example/a', base, idp)).toBe('https://elsewhere.example/a')
    expect(rewriteLocation('http://kratos.internal:4433/public/a?b=1', base, idp)).toBe('/api/idp/a?b=1')
    expect(rewriteLocation('/public/x', base, idp)).toBe('/api/idp/x')
    expect(rewriteLocation('//kratos.internal:4433/public/x', base, idp)).toBe('/api/idp/x')
  })
})

describe('deleting an identity through an admin prefix', () => {
  test('ends that identity’s dashboard sessions at once', async () => {
    const doomed = stack.kratos.addIdentity({ email: 'erase.me@example.test', role: 'viewer' })
    markSensitive(doomed.id, 'erase.me@example.test')
    const victimCookie = `admin-session=${stack.service.sign({ sub: doomed.id, role: 'viewer' })}`
    expect((await fetch(`${stack.service.url}/api/auth/session`, { headers: { cookie: victimCookie } })).status).toBe(200)
    const response = await fetch(`${stack.service.url}/api/idp-admin/admin/identities/${doomed.id}`, { method: 'DELETE', headers: adminHeaders() })
    expect(response.status).toBe(204)
    expect(stack.kratos.identities.has(doomed.id)).toBe(false)
    // Within the recheck window, without waiting for it.
    expect((await fetch(`${stack.service.url}/api/auth/session`, { headers: { cookie: victimCookie } })).status).toBe(401)
  })

  // Kratos reads the id with gofrs/uuid, which takes other spellings of the same UUID: each of them
  // erases the identity, so each must end its sessions as the canonical one does.
  const spellings: [string, (id: string) => string][] = [
    ['in upper case', (id) => id.toUpperCase()],
    ['in braces', (id) => `{${id}}`],
    ['as a URN', (id) => `urn:uuid:${id}`],
    ['without dashes', (id) => id.replaceAll('-', '')],
    ['in braces, upper case, without dashes', (id) => `{${id.replaceAll('-', '').toUpperCase()}}`],
  ]
  for (const [name, spell] of spellings) {
    test(`the id spelled ${name} ends them too`, async () => {
      const doomed = stack.kratos.addIdentity({ email: 'erase.me@example.test', role: 'viewer' })
      markSensitive(doomed.id, spell(doomed.id))
      const victimCookie = `admin-session=${stack.service.sign({ sub: doomed.id, role: 'viewer' })}`
      expect((await fetch(`${stack.service.url}/api/auth/session`, { headers: { cookie: victimCookie } })).status).toBe(200)
      const response = await fetch(`${stack.service.url}/api/idp-admin/admin/identities/${encodeURIComponent(spell(doomed.id))}`, { method: 'DELETE', headers: adminHeaders() })
      expect(response.status).toBe(204)
      expect(stack.kratos.identities.has(doomed.id)).toBe(false)
      expect((await fetch(`${stack.service.url}/api/auth/session`, { headers: { cookie: victimCookie } })).status).toBe(401)
    })
  }
})

describe('deactivating an identity through an admin prefix', () => {
  test('its next request asks the store again, which refuses it at once, not after the recheck window; a change of anything else keeps it', async () => {
    const locked = stack.kratos.addIdentity({ email: 'lock.me@example.test', role: 'viewer' })
    markSensitive(locked.id, 'lock.me@example.test')
    const cookie = `admin-session=${stack.service.sign({ sub: locked.id, role: 'viewer' })}`
    const session = async () => (await fetch(`${stack.service.url}/api/auth/session`, { headers: { cookie } })).status
    const patch = (body: unknown, id = locked.id) =>
      fetch(`${stack.service.url}/api/idp-admin/admin/identities/${encodeURIComponent(id)}`, { method: 'PATCH', headers: adminHeaders({ 'content-type': 'application/json' }), body: JSON.stringify(body) })
    expect(await session()).toBe(200)
    expect((await patch([{ op: 'replace', path: '/metadata_public', value: { note: 'kept' } }])).status).toBe(200)
    expect(await session()).toBe(200)
    const revoked = async () => (await stack.service.storage.revocations.load()).identities.has(locked.id)
    expect(await revoked()).toBe(false)
    // Spelled as Kratos also reads it: the same identity.
    expect((await patch([{ op: 'replace', path: '/state', value: 'inactive' }], locked.id.toUpperCase())).status).toBe(200)
    expect(stack.kratos.identities.get(locked.id)!.state).toBe('inactive')
    expect(await session()).toBe(401)
    // Its sessions are ended in the database, where every other replica reads it within a second
    // (they would otherwise trust it until their own recheck window ran out).
    expect(await revoked()).toBe(true)
    // The trail tells this write from the metadata edit before it: the state it left the identity in.
    const [deactivation, edit] = await stack.service.services.audit.list({ limit: 2, action: 'proxy_write' })
    expect([deactivation!.detail!.state, edit!.detail!.state]).toEqual(['inactive', 'active'])
  })
})

describe('identity searches through an admin prefix', () => {
  test('a GET of the list by credentials_identifier is an identity search in the trail and the log, as /api/identities makes one; a list without it, or another path, is not', async () => {
    const searches = async () => (await stack.service.services.audit.list({ limit: 1000, action: 'identity_search' })).length
    const before = await searches()
    for (const path of ['/admin/identities', '/admin/identities?page_size=5', '/admin/identities/x?credentials_identifier=y']) {
      await fetch(`${stack.service.url}/api/idp-admin${path}`, { headers: adminHeaders() })
    }
    expect(await searches()).toBe(before)
    const response = await fetch(`${stack.service.url}/api/idp-admin/admin/identities?credentials_identifier=${encodeURIComponent('ada.admin@example.test')}`, { headers: adminHeaders() })
    expect(response.status).toBe(200)
    const id = response.headers.get('x-request-id')
    const [event] = await stack.service.services.audit.list({ limit: 1, action: 'identity_search' })
    expect(event).toMatchObject({ actor: stack.admin.id, target: 'ada.admin@example.test', detail: { outcome: 'ok', prefix: 'idp-admin' }, request_id: id })
    const line = stack.service.logLines.map((entry) => JSON.parse(entry) as Record<string, unknown>).find((entry) => entry.action === 'identity_search' && entry.request_id === id)
    expect(line).toMatchObject({ adminId: stack.admin.id, searchFilter: 'ada.admin@example.test', outcome: 'ok' })
    // Spelled as Kratos also reads it (a name or a path percent-encoded), or its fuzzy search: a search too.
    for (const spelled of ['/admin/identities?credentials%5Fidentifier=ada.admin%40example.test', '/admin/%69dentities?credentials_identifier=ada.admin%40example.test', '/admin/identities?preview_credentials_identifier_similar=ada']) {
      const before = await searches()
      await fetch(`${stack.service.url}/api/idp-admin${spelled}`, { headers: adminHeaders() })
      expect([spelled, await searches()]).toEqual([spelled, before + 1])
    }
    // One the identities route would refuse (a line break in it): searched by Kratos, kept as its length.
    await fetch(`${stack.service.url}/api/idp-admin/admin/identities?credentials_identifier=${encodeURIComponent('a\nb')}`, { headers: adminHeaders() })
    const [odd] = await stack.service.services.audit.list({ limit: 1, action: 'identity_search' })
    expect([odd!.target, odd!.detail]).toEqual([null, { outcome: 'ok', prefix: 'idp-admin', filter_length: 3 }])
  })
})

describe('identity searches through an admin prefix that get no answer', () => {
  test('a search whose store cannot be reached is recorded too, with how it failed', async () => {
    const kratos = new KratosFixture().start()
    const admin = kratos.addIdentity({ email: 'unanswered.search@example.test', role: 'admin' })
    markSensitive(admin.id, 'unanswered.search@example.test', kratos.url)
    // The managed store is nowhere; the admins live in the Kratos-like store.
    const service = await startService({ env: { IDP_ADMIN_URL: `http://127.0.0.1:${freePort()}`, IAM_IDP_ADMIN_URL: kratos.url } })
    try {
      const response = await fetch(`${service.url}/api/idp-admin/admin/identities?credentials_identifier=someone%40example.test`, {
        headers: { cookie: `admin-session=${service.sign({ sub: admin.id, role: 'admin' })}` },
      })
      expect(response.status).toBe(502)
      const [event] = await service.services.audit.list({ limit: 1, action: 'identity_search' })
      expect(event).toMatchObject({ actor: admin.id, target: 'someone@example.test', detail: { outcome: 'unreachable', prefix: 'idp-admin' } })
    } finally {
      await service.stop()
      await kratos.stop()
    }
  })
})

describe('changing an identity\'s role through an admin prefix', () => {
  test('a demoted admin\'s session ends at its next request (the cookie cleared), not after hours: the next sign-in carries the new role', async () => {
    const demoted = stack.kratos.addIdentity({ email: 'demote.me@example.test', role: 'admin' })
    markSensitive(demoted.id, 'demote.me@example.test')
    const cookie = `admin-session=${stack.service.sign({ sub: demoted.id, role: 'admin' })}`
    const config = async () => (await fetch(`${stack.service.url}/api/config`, { headers: { cookie } })).status
    expect(await config()).toBe(200)
    const patched = await fetch(`${stack.service.url}/api/idp-admin/admin/identities/${demoted.id}`, {
      method: 'PATCH',
      headers: adminHeaders({ 'content-type': 'application/json' }),
      body: JSON.stringify([{ op: 'replace', path: '/traits/role', value: 'viewer' }]),
    })
    expect(patched.status).toBe(200)
    const after = await fetch(`${stack.service.url}/api/config`, { headers: { cookie } })
    expect([after.status, after.headers.get('set-cookie')?.startsWith('admin-session=;')]).toEqual([401, true])
  })
})

test('an identity id is put in Kratos’s form exactly when Kratos reads it as a UUID (gofrs/uuid, as the stand-in models it)', () => {
  const id = '6fcf1226-94fe-43cb-b52d-be86036ffa27'
  const hex = id.replaceAll('-', '')
  const spellings = [
    id, id.toUpperCase(), `{${id}}`, `urn:uuid:${id}`, hex, `{${hex.toUpperCase()}}`, `urn:uuid:${hex}`,
    // Not UUIDs to Kratos: left as they are.
    `URN:UUID:${id}`, `urn:uuid:{${id}}`, `{${id}`, `${id}}`, `${hex.slice(0, 8)}-${hex.slice(8)}`, `${id}0`, id.slice(1), `${id.slice(0, -1)}g`, '', 'me',
  ]
  for (const spelling of spellings) expect(canonicalUuid(spelling)).toBe(kratosId(spelling) ?? spelling)
  expect(spellings.filter((spelling) => kratosId(spelling) !== null).length).toBe(7)
})

describe('the Cookie header sent upstream', () => {
  // Every cookie the service sets, spelled out here rather than read from the code under test.
  const OWN = new Set(['admin-session', '__Host-admin-session', 'oauth_state', 'oauth_verifier', 'oauth_return_to', '__Host-oauth_flow'])
  /** The rule as written first: every cookie, ours taken out. */
  const reference = (cookie: string): string | null => {
    const kept = cookie
      .split(';')
      .map((part) => part.trim())
      .filter((part) => part !== '' && !OWN.has(part.slice(0, Math.max(0, part.indexOf('='))).trim()))
    return kept.length > 0 ? kept.join('; ') : null
  }

  test('one cookie or many, ours are never sent and the others are: the one-cookie shortcut agrees with the rule on 5,000 random headers', () => {
    const pieces = ['admin-session=abc.def', 'admin-session', ' admin-session =x', 'oauth_state=s', 'oauth_verifier=v', 'oauth_return_to=%2Fdashboard', '__Host-oauth_flow=s.v', '__Host-admin-session=a.b', 'ory_session=o', 'theme=dark', 'admin-session2=x', 'x', '=', '', ' ', '\t', 'a=b=c', 'ADMIN-SESSION=y']
    const next = seededRandom(7)
    for (let i = 0; i < 5_000; i++) {
      const parts = Array.from({ length: 1 + next(3) }, () => pieces[next(pieces.length)]!)
      const header = parts.join(next(2) === 0 ? ';' : '; ')
      expect([header, foreignCookies(header)]).toEqual([header, reference(header)])
    }
    expect(foreignCookies('admin-session=abc')).toBeNull()
    expect(foreignCookies(' theme=dark ')).toBe('theme=dark')
  })
})

describe('a Set-Cookie from an upstream', () => {
  const OWN = ['admin-session', '__Host-admin-session', 'oauth_state', 'oauth_verifier', 'oauth_return_to', '__Host-oauth_flow']
  const wsp = (text: string) => text.replace(/^[ \t]+|[ \t]+$/g, '')
  /**
   * The Cookie header a browser sends back for one Set-Cookie: as RFC 6265bis reads it (§5.6, a
   * pair without a name is a nameless cookie, sent as its value alone), and as a parser that takes
   * a pair without `=` for a name with an empty value. Null where it keeps nothing.
   */
  const sentBack = (setCookie: string): (string | null)[] => {
    const pair = setCookie.split(';')[0]!
    const eq = pair.indexOf('=')
    const name = eq < 0 ? '' : wsp(pair.slice(0, eq))
    const value = wsp(eq < 0 ? pair : pair.slice(eq + 1))
    const nameless = name === '' && value === '' ? null : name === '' ? value : `${name}=${value}`
    return [nameless, eq < 0 && value !== '' ? `${value}=` : null]
  }

  test('none is relayed that a browser would send back as a cookie our reader takes for ours; one whose cookie never names ours is: 20,000 random lines', () => {
    const pieces = ['=', '=', ' ', '\t', '\xa0', '"', ';', 'admin-session', 'Admin-Session', 'oauth_state', 'oauth_return_to', '__Host-oauth_flow', 'ory_kratos_session', 'x', '=forged', ' Path=/']
    const next = seededRandom(11)
    let dropped = 0
    for (let i = 0; i < 20_000; i++) {
      const line = Array.from({ length: 1 + next(6) }, () => pieces[next(pieces.length)]!).join('')
      const relayed = relayedResponseHeaders(['set-cookie', line], (location) => location).getSetCookie().length === 1
      if (!relayed) dropped++
      const readAsOurs = sentBack(wsp(line)).some((cookie) => cookie !== null && OWN.some((name) => readCookieValues(cookie, name).length > 0))
      if (readAsOurs) expect([line, relayed]).toEqual([line, false])
      if (!OWN.some((name) => line.split(';')[0]!.includes(name))) expect([line, relayed]).toEqual([line, true])
    }
    // Both kinds were tried.
    expect(dropped).toBeGreaterThan(1_000)
    expect(dropped).toBeLessThan(19_000)
  })
})
