// The settings routes over HTTP: admin-api.md "Settings" (both tables) and decisions §7, §9.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startStack, type Stack } from './support/stack.ts'
import { markSecret } from './support/leaks.ts'
import { randomKey, type TestClock } from './support/service.ts'
import { SettingsCipher, UNBOUND_AAD } from '../src/settings/cipher.ts'
import { decodeBase64Key } from '../src/config.ts'

const CIPHERTEXT = /^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22,}$/

type Caller = 'admin' | 'viewer' | 'anonymous'

function client(stack: Stack) {
  return async (method: string, path: string, options: { as?: Caller; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {}) => {
    const as = options.as ?? 'admin'
    const headers: Record<string, string> = { origin: 'http://admin.test', ...options.headers }
    if (as !== 'anonymous') headers.cookie = stack.cookie[as]
    let body: string | undefined
    if (options.rawBody !== undefined || options.body !== undefined) {
      headers['content-type'] = 'application/json'
      body = options.rawBody ?? JSON.stringify(options.body)
    }
    const response = await fetch(stack.service.url + path, { method, headers, body })
    const text = await response.text()
    return { status: response.status, headers: response.headers, text, json: text ? JSON.parse(text) : undefined }
  }
}

function insertRow(stack: Stack, key: string, value: string, encrypted: boolean): void {
  stack.service.db!
    .query('INSERT OR REPLACE INTO settings (key, value, encrypted, category, updated_at) VALUES (?, ?, ?, NULL, ?)')
    .run(key, value, encrypted ? 1 : 0, new Date().toISOString())
}

describe('settings routes', () => {
  let stack: Stack
  let api: ReturnType<typeof client>
  beforeAll(async () => {
    stack = await startStack()
    api = client(stack)
  })
  afterAll(async () => {
    await stack.stop()
  })

  describe('who may call them (spec "Route requirements")', () => {
    const routes: [string, string, unknown?][] = [
      ['GET', '/api/settings'],
      ['POST', '/api/settings', { key: 'role.probe', value: 'v' }],
      ['GET', '/api/settings/role.probe'],
      ['GET', '/api/settings/role.probe?decrypt=true'],
      ['DELETE', '/api/settings/role.probe'],
      ['POST', '/api/encrypt', { value: 'v' }],
    ]
    for (const [method, path, body] of routes) {
      test(`anonymous ${method} ${path} → 401 not_authenticated`, async () => {
        const r = await api(method, path, { as: 'anonymous', body })
        expect(r.status).toBe(401)
        expect(r.json.error).toBe('not_authenticated')
      })
      test(`a viewer gets 403 on ${method} ${path}`, async () => {
        const r = await api(method, path, { as: 'viewer', body })
        expect(r.status).toBe(403)
        expect(r.json.error).toBe('forbidden')
      })
    }
    test('a viewer\'s refused write changes nothing', async () => {
      await api('POST', '/api/settings', { as: 'viewer', body: { key: 'viewer.write', value: 'v' } })
      expect((await api('GET', '/api/settings/viewer.write')).status).toBe(404)
    })
  })

  describe('state transitions (spec "Settings" states)', () => {
    test('key absent + POST with a valid body → 201 with the Setting as stored', async () => {
      const r = await api('POST', '/api/settings', { body: { key: 'site.title', value: 'Console', category: 'ui' } })
      expect(r.status).toBe(201)
      expect(r.json).toEqual({ key: 'site.title', value: 'Console', encrypted: false, category: 'ui', updated_at: expect.any(String) })
      expect(r.json.updated_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
      expect((await api('GET', '/api/settings/site.title')).json).toEqual(r.json)
    })

    test('key present + POST with the same key → 200; value, encrypted and category replaced; omitted category → null', async () => {
      await api('POST', '/api/settings', { body: { key: 'site.replace', value: 'one', category: 'ui' } })
      ;(stack.service.clock as TestClock).advance(1)
      const r = await api('POST', '/api/settings', { body: { key: 'site.replace', value: 'two-secret', encrypted: true } })
      markSecret('two-secret')
      expect(r.status).toBe(200)
      expect(r.json.encrypted).toBe(true)
      expect(r.json.category).toBeNull()
      expect(r.json.value).toMatch(CIPHERTEXT)
      expect(r.json.value).not.toContain('two-secret')
      const back = await api('POST', '/api/settings', { body: { key: 'site.replace', value: 'three', category: null } })
      expect(back.status).toBe(200)
      expect(back.json).toMatchObject({ value: 'three', encrypted: false, category: null })
    })

    test('key present + DELETE → 204 with no body, then the key is absent', async () => {
      await api('POST', '/api/settings', { body: { key: 'site.delete', value: 'x' } })
      const r = await api('DELETE', '/api/settings/site.delete')
      expect(r.status).toBe(204)
      expect(r.text).toBe('')
      const again = await api('GET', '/api/settings/site.delete')
      expect(again.status).toBe(404)
    })

    test('DELETE of an absent key → 404 not_found saying no setting has this key', async () => {
      const r = await api('DELETE', '/api/settings/site.never')
      expect(r.status).toBe(404)
      expect(r.json).toEqual({ error: 'not_found', message: 'No setting with this key.' })
    })
  })

  describe('conditional writes: If-None-Match: * creates only, If-Match: * replaces only', () => {
    const createOnly = { 'if-none-match': '*' }
    const replaceOnly = { 'if-match': '*' }

    test('create only, key absent → 201 and stored', async () => {
      const r = await api('POST', '/api/settings', { body: { key: 'cond.new', value: 'fresh' }, headers: createOnly })
      expect(r.status).toBe(201)
      expect((await api('GET', '/api/settings/cond.new')).json.value).toBe('fresh')
    })

    test('create only, key present → 412 precondition_failed; the stored value, its encryption and category unchanged, no event', async () => {
      markSecret('kept-secret-value', 'plain-overwrite-attempt')
      const first = await api('POST', '/api/settings', { body: { key: 'cond.kept', value: 'kept-secret-value', encrypted: true, category: 'keys' } })
      const before = (await stack.service.services.audit.list({ limit: 1000 })).filter((e) => e.target === 'cond.kept').length
      const r = await api('POST', '/api/settings', { body: { key: 'cond.kept', value: 'plain-overwrite-attempt' }, headers: createOnly })
      expect(r.status).toBe(412)
      expect(r.json).toEqual({ error: 'precondition_failed', message: 'A setting with this key exists.' })
      expect((await api('GET', '/api/settings/cond.kept')).json).toEqual(first.json)
      expect((await stack.service.services.audit.list({ limit: 1000 })).filter((e) => e.target === 'cond.kept').length).toBe(before)
    })

    test('replace only, key present → 200; key absent → 412 and nothing is created', async () => {
      await api('POST', '/api/settings', { body: { key: 'cond.edit', value: 'one' } })
      const r = await api('POST', '/api/settings', { body: { key: 'cond.edit', value: 'two' }, headers: replaceOnly })
      expect(r.status).toBe(200)
      expect(r.json.value).toBe('two')
      const gone = await api('POST', '/api/settings', { body: { key: 'cond.deleted', value: 'again' }, headers: replaceOnly })
      expect(gone.status).toBe(412)
      expect(gone.json).toEqual({ error: 'precondition_failed', message: 'No setting with this key.' })
      expect((await api('GET', '/api/settings/cond.deleted')).status).toBe(404)
    })

    const unclear: [string, Record<string, string>][] = [
      ['an entity tag in If-None-Match', { 'if-none-match': '"v1"' }],
      ['an entity tag in If-Match', { 'if-match': 'W/"v1"' }],
      ['both headers', { 'if-none-match': '*', 'if-match': '*' }],
      ['an empty If-None-Match', { 'if-none-match': '' }],
    ]
    for (const [name, headers] of unclear) {
      test(`${name} → 400 bad_request, and nothing is written`, async () => {
        await api('POST', '/api/settings', { body: { key: 'cond.unclear', value: 'stored' } })
        const r = await api('POST', '/api/settings', { body: { key: 'cond.unclear', value: 'replaced' }, headers })
        expect(r.status).toBe(400)
        expect(r.json).toEqual({ error: 'bad_request', message: 'Only If-None-Match: * (create only) or If-Match: * (replace only) is understood here.' })
        expect((await api('GET', '/api/settings/cond.unclear')).json.value).toBe('stored')
      })
    }

    test('of 20 create-only writes of one key at once, exactly one creates it', async () => {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => api('POST', '/api/settings', { body: { key: 'cond.race', value: `writer ${i}` }, headers: createOnly })),
      )
      expect(answers.filter((r) => r.status === 201)).toHaveLength(1)
      expect(answers.filter((r) => r.status === 412)).toHaveLength(19)
      const winner = answers.find((r) => r.status === 201)!
      expect((await api('GET', '/api/settings/cond.race')).json.value).toBe(winner.json.value)
    })
  })

  describe('reading', () => {
    test('GET /api/settings/:key of an absent key → 404 whose message differs from the router\'s own 404', async () => {
      const r = await api('GET', '/api/settings/no.such.key')
      expect(r.status).toBe(404)
      expect(r.json).toEqual({ error: 'not_found', message: 'No setting with this key.' })
      expect(r.json.message).not.toBe('Not found.')
    })

    test('GET /api/settings → an array sorted by key; encrypted values stay ciphertext', async () => {
      for (const key of ['sort.c', 'sort.a', 'sort.B', 'sort.b']) {
        await api('POST', '/api/settings', { body: { key, value: `value of ${key}`, category: 'sorting' } })
      }
      await api('POST', '/api/settings', { body: { key: 'sort.secret', value: 'listed-plaintext', encrypted: true, category: 'sorting' } })
      markSecret('listed-plaintext')
      const r = await api('GET', '/api/settings')
      expect(r.status).toBe(200)
      expect(Array.isArray(r.json)).toBe(true)
      const keys = r.json.map((s: { key: string }) => s.key)
      expect(keys).toEqual([...keys].sort())
      expect(keys.filter((k: string) => k.startsWith('sort.'))).toEqual(['sort.B', 'sort.a', 'sort.b', 'sort.c', 'sort.secret'])
      const secret = r.json.find((s: { key: string }) => s.key === 'sort.secret')
      expect(secret.encrypted).toBe(true)
      expect(secret.value).toMatch(CIPHERTEXT)
      expect(r.text).not.toContain('listed-plaintext')
    })

    test('the category filter returns only that category, and an empty array when none match', async () => {
      await api('POST', '/api/settings', { body: { key: 'cat.one', value: '1', category: 'mail' } })
      await api('POST', '/api/settings', { body: { key: 'cat.two', value: '2', category: 'mail' } })
      await api('POST', '/api/settings', { body: { key: 'cat.three', value: '3', category: 'captcha' } })
      const mail = await api('GET', '/api/settings?category=mail')
      expect(mail.json.map((s: { key: string }) => s.key)).toEqual(['cat.one', 'cat.two'])
      const none = await api('GET', '/api/settings?category=nothing-here')
      expect(none.status).toBe(200)
      expect(none.json).toEqual([])
    })

    test('a repeated category filter → 400 bad_request, not one of its values picked', async () => {
      const r = await api('GET', '/api/settings?category=mail&category=captcha')
      expect(r.status).toBe(400)
      expect(r.json).toEqual({ error: 'bad_request', message: 'Query parameter category must be given once.' })
    })

    test('?decrypt=true answers the plaintext, keeps encrypted: true, and carries Cache-Control: no-store', async () => {
      markSecret('smtp-password-123')
      await api('POST', '/api/settings', { body: { key: 'smtp.password', value: 'smtp-password-123', encrypted: true, category: 'mail' } })
      const r = await api('GET', '/api/settings/smtp.password?decrypt=true')
      expect(r.status).toBe(200)
      expect(r.json).toMatchObject({ key: 'smtp.password', value: 'smtp-password-123', encrypted: true, category: 'mail' })
      expect(r.headers.get('cache-control')).toBe('no-store')
      const plain = await api('GET', '/api/settings/smtp.password?decrypt=false')
      expect(plain.json.value).toMatch(CIPHERTEXT)
      const bare = await api('GET', '/api/settings/smtp.password')
      expect(bare.json.value).toBe(plain.json.value)
    })

    test('the decrypted value never reaches the log', async () => {
      markSecret('never-logged-value')
      await api('POST', '/api/settings', { body: { key: 'log.secret', value: 'never-logged-value', encrypted: true } })
      await api('GET', '/api/settings/log.secret?decrypt=true')
      expect(stack.service.logLines.join('')).not.toContain('never-logged-value')
      expect(stack.service.logLines.join('')).not.toContain('decrypt=')
    })

    test('?decrypt=true on a plain setting answers its value', async () => {
      await api('POST', '/api/settings', { body: { key: 'plain.value', value: 'shown' } })
      const r = await api('GET', '/api/settings/plain.value?decrypt=true')
      expect(r.json).toMatchObject({ value: 'shown', encrypted: false })
    })

    for (const bad of ['yes', '1', 'TRUE', '', 'true&decrypt=false']) {
      test(`?decrypt=${bad} → 400 bad_request naming decrypt`, async () => {
        await api('POST', '/api/settings', { body: { key: 'decrypt.probe', value: 'x' } })
        const r = await api('GET', `/api/settings/decrypt.probe?decrypt=${bad}`)
        expect(r.status).toBe(400)
        expect(r.json.error).toBe('bad_request')
        // A repeated one is called repeated, as every other query parameter is.
        expect(r.json.message).toBe(bad.includes('&') ? 'Query parameter decrypt must be given once.' : 'Invalid or missing query parameter: decrypt.')
      })
    }

    test('a stored ciphertext that does not authenticate → 500 decryption_failed', async () => {
      const created = await api('POST', '/api/settings', { body: { key: 'tampered.secret', value: 'tamper-me-please', encrypted: true } })
      markSecret('tamper-me-please')
      const value: string = created.json.value
      const last = value.at(-1) === 'A' ? 'B' : 'A'
      insertRow(stack, 'tampered.secret', value.slice(0, -1) + last, true)
      const r = await api('GET', '/api/settings/tampered.secret?decrypt=true')
      expect(r.status).toBe(500)
      expect(r.json.error).toBe('decryption_failed')
    })

    test('a ciphertext copied to another key does not decrypt there', async () => {
      const created = await api('POST', '/api/settings', { body: { key: 'origin.secret', value: 'bound-to-origin', encrypted: true } })
      markSecret('bound-to-origin')
      insertRow(stack, 'copied.secret', created.json.value, true)
      const r = await api('GET', '/api/settings/copied.secret?decrypt=true')
      expect(r.status).toBe(500)
      expect(r.json.error).toBe('decryption_failed')
    })
  })

  describe('validation (decisions §7)', () => {
    // The field is named with its rule (a pattern or a limit the caller cannot guess), never with what was sent.
    const RULES: Record<string, string> = {
      key: 'Invalid or missing field: key. A setting key is 1 to 255 characters: ASCII letters, digits, dots, underscores, colons and hyphens, beginning with a letter or a digit.',
      value: 'Invalid or missing field: value. A value is a string of at most 64 KiB (65536 bytes of UTF-8).',
      encrypted: 'Invalid or missing field: encrypted. encrypted is true or false.',
      category: 'Invalid or missing field: category. A category is a string of at most 64 characters, or null.',
    }
    const cases: [string, unknown, string][] = [
      ['missing key', { value: 'v' }, 'key'],
      ['missing value', { key: 'v.k' }, 'value'],
      ['key of the wrong type', { key: 5, value: 'v' }, 'key'],
      ['empty key', { key: '', value: 'v' }, 'key'],
      ['key starting with a dot', { key: '.hidden', value: 'v' }, 'key'],
      ['key with a slash', { key: 'a/b', value: 'v' }, 'key'],
      ['key with a space', { key: 'a b', value: 'v' }, 'key'],
      ['key with letters outside ASCII', { key: 'clé.ü', value: 'v' }, 'key'],
      ['key with a newline at the end', { key: 'ab\n', value: 'v' }, 'key'],
      ['key of 256 characters', { key: 'k'.repeat(256), value: 'v' }, 'key'],
      ['value of the wrong type', { key: 'v.k', value: 42 }, 'value'],
      ['value null', { key: 'v.k', value: null }, 'value'],
      ['value over 64 KiB', { key: 'v.k', value: 'x'.repeat(64 * 1024 + 1) }, 'value'],
      ['value over 64 KiB in UTF-8 but not in characters', { key: 'v.k', value: 'é'.repeat(32 * 1024 + 1) }, 'value'],
      ['encrypted as a string', { key: 'v.k', value: 'v', encrypted: 'true' }, 'encrypted'],
      ['category of the wrong type', { key: 'v.k', value: 'v', category: 7 }, 'category'],
      ['category of 65 characters', { key: 'v.k', value: 'v', category: 'c'.repeat(65) }, 'category'],
      ['category of 65 characters outside the BMP', { key: 'v.k', value: 'v', category: '😀'.repeat(65) }, 'category'],
    ]
    for (const [name, body, field] of cases) {
      test(`${name} → 400 bad_request naming ${field} and its rule`, async () => {
        const r = await api('POST', '/api/settings', { body })
        expect(r.status).toBe(400)
        expect(r.json).toEqual({ error: 'bad_request', message: RULES[field] })
      })
    }

    test('a field the route does not take → 400 naming it, and nothing stored (a typo must not store a secret in plaintext)', async () => {
      const fields = 'The fields are: key, value, encrypted, category.'
      for (const [field, extra, meant] of [['encrypt', true, 'encrypted'], ['Encrypted', true, 'encrypted'], ['catgory', 'x', 'category'], ['updated_at', '2026-01-01', null], ['sk_live_made_up_name', 1, null]] as const) {
        markSecret('typo-secret-value')
        const r = await api('POST', '/api/settings', { body: { key: 'typo.secret', value: 'typo-secret-value', [field]: extra } })
        expect(r.status).toBe(400)
        // Only the route's own field names: nothing the client sent is repeated (decisions §10).
        expect(r.json).toEqual({ error: 'bad_request', message: `The request body has a field this route does not take${meant ? ` (did you mean ${meant}?)` : ''}. ${fields}` })
      }
      expect((await api('GET', '/api/settings/typo.secret')).status).toBe(404)
      const encrypt = await api('POST', '/api/encrypt', { body: { value: 'v', encrypted: true } })
      expect(encrypt.status).toBe(400)
      expect(encrypt.json.message).toBe('The request body has a field this route does not take. The fields are: value.')
    })

    test('nothing is stored by a rejected write', async () => {
      await api('POST', '/api/settings', { body: { key: 'rejected.write', value: 'v', category: 'c'.repeat(65) } })
      expect((await api('GET', '/api/settings/rejected.write')).status).toBe(404)
    })

    test('a body that is not JSON → 400 bad_request', async () => {
      const r = await api('POST', '/api/settings', { rawBody: '{"key": "x", ' })
      expect(r.status).toBe(400)
      expect(r.json.error).toBe('bad_request')
    })

    const limits: [string, Record<string, unknown>][] = [
      ['a key of 255 characters', { key: 'k'.repeat(255), value: 'v' }],
      ['a key with every allowed sign', { key: 'A0._:-z', value: 'v' }],
      ['a value of exactly 64 KiB', { key: 'limit.value', value: 'x'.repeat(64 * 1024) }],
      ['an empty value', { key: 'limit.empty', value: '' }],
      ['a category of 64 characters', { key: 'limit.category', value: 'v', category: 'c'.repeat(64) }],
      // 128 UTF-16 units: a character is a code point, not a unit.
      ['a category of 64 characters outside the BMP', { key: 'limit.category.emoji', value: 'v', category: '😀'.repeat(64) }],
      ['an encrypted value of exactly 64 KiB', { key: 'limit.encrypted', value: 'y'.repeat(64 * 1024), encrypted: true }],
    ]
    for (const [name, body] of limits) {
      test(`${name} is accepted`, async () => {
        const r = await api('POST', '/api/settings', { body })
        expect([200, 201]).toContain(r.status)
        expect(r.json.key).toBe(body.key as string)
      })
    }

    test('a key with a colon can be read and deleted by path', async () => {
      await api('POST', '/api/settings', { body: { key: 'ns:item', value: 'v' } })
      expect((await api('GET', '/api/settings/ns:item')).json.value).toBe('v')
      expect((await api('DELETE', '/api/settings/ns:item')).status).toBe(204)
    })
  })

  describe('POST /api/encrypt (decisions §9)', () => {
    test('answers a v1 ciphertext bound to no setting key', async () => {
      markSecret('unbound-plaintext')
      const r = await api('POST', '/api/encrypt', { body: { value: 'unbound-plaintext' } })
      expect(r.status).toBe(200)
      expect(Object.keys(r.json)).toEqual(['ciphertext'])
      expect(r.json.ciphertext).toMatch(CIPHERTEXT)
      const cipher = new SettingsCipher(decodeBase64Key(stack.service.env.ENCRYPTION_KEY!), null)
      expect(cipher.decrypt(r.json.ciphertext, UNBOUND_AAD)).toBe('unbound-plaintext')
      // Not usable as a stored setting: the additional data differs.
      insertRow(stack, 'from.encrypt', r.json.ciphertext, true)
      expect((await api('GET', '/api/settings/from.encrypt?decrypt=true')).json.error).toBe('decryption_failed')
    })

    test('a missing or non-string value → 400 naming value', async () => {
      for (const body of [{}, { value: 1 }]) {
        const r = await api('POST', '/api/encrypt', { body })
        expect(r.status).toBe(400)
        expect(r.json.message).toBe('Invalid or missing field: value. A value is a string of at most 64 KiB (65536 bytes of UTF-8).')
      }
    })
  })

  describe('audit (decisions §9: key names, never values)', () => {
    test('writes, deletes and decrypted reads are recorded with the admin as actor', async () => {
      markSecret('audited-secret-value')
      await api('POST', '/api/settings', { body: { key: 'audit.secret', value: 'audited-secret-value', encrypted: true } })
      await api('POST', '/api/settings', { body: { key: 'audit.secret', value: 'audited-secret-value', encrypted: true } })
      await api('GET', '/api/settings/audit.secret?decrypt=true')
      await api('GET', '/api/settings/audit.secret')
      await api('DELETE', '/api/settings/audit.secret')
      const events = (await stack.service.services.audit.list({ limit: 1000 })).filter((e) => e.target === 'audit.secret')
      expect(events.map((e) => e.action)).toEqual(['settings_delete', 'settings_decrypt_read', 'settings_write', 'settings_write'])
      expect(events.every((e) => e.actor === stack.admin.id)).toBe(true)
      expect(events.map((e) => e.detail?.outcome ?? null)).toEqual([null, null, 'updated', 'created'])
      const everything = JSON.stringify(await stack.service.services.audit.list({ limit: 1000 }))
      expect(everything).not.toContain('audited-secret-value')
    })

    test('refused and failed requests leave no write event', async () => {
      await api('POST', '/api/settings', { as: 'viewer', body: { key: 'audit.refused', value: 'v' } })
      await api('POST', '/api/settings', { body: { key: 'audit.refused', value: 5 } })
      await api('DELETE', '/api/settings/audit.refused')
      expect((await stack.service.services.audit.list({ limit: 1000 })).some((e) => e.target === 'audit.refused')).toBe(false)
    })

    test('list pages newest first and filters by action', async () => {
      const audit = stack.service.services.audit
      const page = await audit.list({ limit: 2, action: 'settings_write' })
      expect(page).toHaveLength(2)
      expect(page[0]!.id).toBeGreaterThan(page[1]!.id)
      const next = await audit.list({ limit: 2, action: 'settings_write', before: page[1]!.id })
      expect(next[0]!.id).toBeLessThan(page[1]!.id)
      expect(next.every((e) => e.action === 'settings_write')).toBe(true)
    })
  })

  describe('the settings layer other features read through', () => {
    test('the service\'s own writes invalidate the cache at once; other writers are seen after the TTL', async () => {
      const settings = stack.service.services.settings
      markSecret('first-api-key', 'second-api-key', 'third-api-key')
      // The proxy asks memory first (cachedApiKey) and apiKeyFor only when memory cannot answer:
      // memory answers nothing, or exactly what apiKeyFor answers, and answers once apiKeyFor has read.
      const apiKey = async () => {
        const cached = settings.cachedApiKey('oauth-admin')
        const read = await settings.apiKeyFor('oauth-admin')
        if (cached !== undefined) expect(cached).toBe(read)
        expect(settings.cachedApiKey('oauth-admin')).toBe(read)
        return read
      }
      expect(await apiKey()).toBeNull()
      // A key that had been read is forgotten at once and read again: memory holds nothing, or the new key.
      await api('POST', '/api/settings', { body: { key: 'proxy.oauth-admin.api_key', value: 'first-api-key', encrypted: true } })
      expect([undefined, 'first-api-key'] as (string | null | undefined)[]).toContain(settings.cachedApiKey('oauth-admin'))
      expect(await apiKey()).toBe('first-api-key')
      await api('POST', '/api/settings', { body: { key: 'proxy.oauth-admin.api_key', value: 'second-api-key', encrypted: true } })
      expect([undefined, 'second-api-key'] as (string | null | undefined)[]).toContain(settings.cachedApiKey('oauth-admin'))
      expect(await apiKey()).toBe('second-api-key')
      // Another process (the command line) writes the file directly.
      const other = new SettingsCipher(decodeBase64Key(stack.service.env.ENCRYPTION_KEY!), null)
      insertRow(stack, 'proxy.oauth-admin.api_key', other.encryptSetting('proxy.oauth-admin.api_key', 'third-api-key'), true)
      expect(await apiKey()).toBe('second-api-key')
      ;(stack.service.clock as TestClock).advance(61)
      expect(settings.cachedApiKey('oauth-admin')).toBeUndefined()
      expect(await apiKey()).toBe('third-api-key')
      await api('POST', '/api/settings', { body: { key: 'proxy.oauth-admin.api_key', value: 'plain-api-key' } })
      expect(await apiKey()).toBe('plain-api-key')
      // An empty key is refused (removing one is a delete), and the key stays as it was.
      const empty = await api('POST', '/api/settings', { body: { key: 'proxy.oauth-admin.api_key', value: '', encrypted: true } })
      expect({ status: empty.status, json: empty.json }).toEqual({
        status: 400,
        json: {
          error: 'bad_request',
          message: 'An API key cannot be empty. To remove one, use Remove under Upstream API keys on the Settings page, or `admin-dashboard settings delete <key>`.',
        },
      })
      expect(await apiKey()).toBe('plain-api-key')
      await api('DELETE', '/api/settings/proxy.oauth-admin.api_key')
      expect(await apiKey()).toBeNull()
    })

    test('the login identity store is called with the stored API key', async () => {
      const apiKey = 'login-store-' + randomKey(16)
      markSecret(apiKey)
      const created = await api('POST', '/api/settings', { body: { key: 'proxy.idp-admin.api_key', value: apiKey, encrypted: true } })
      expect(created.status).toBe(201)
      stack.kratos.apiKey = apiKey
      try {
        // Past the identity recheck window, so the gate asks the store again.
        ;(stack.service.clock as TestClock).advance(61)
        const r = await api('GET', '/api/settings/proxy.idp-admin.api_key')
        expect(r.status).toBe(200)
        const lookup = stack.kratos.calls.filter((c) => c.path.startsWith('/admin/identities/')).at(-1)
        expect(lookup?.headers.get('authorization')).toBe(`Bearer ${apiKey}`)
      } finally {
        stack.kratos.apiKey = undefined
        await api('DELETE', '/api/settings/proxy.idp-admin.api_key')
      }
    })
  })
})

describe('without ENCRYPTION_KEY', () => {
  let stack: Stack
  let api: ReturnType<typeof client>
  beforeAll(async () => {
    stack = await startStack({ env: { ENCRYPTION_KEY: undefined } })
    api = client(stack)
  })
  afterAll(async () => {
    await stack.stop()
  })

  test('an encrypted write → 503 encryption_unavailable and nothing is stored', async () => {
    const r = await api('POST', '/api/settings', { body: { key: 'nokey.secret', value: 'v', encrypted: true } })
    expect(r.status).toBe(503)
    expect(r.json.error).toBe('encryption_unavailable')
    expect((await api('GET', '/api/settings/nokey.secret')).status).toBe(404)
  })

  test('a decrypted read of an encrypted value → 503 encryption_unavailable; the ciphertext is still listed', async () => {
    const elsewhere = new SettingsCipher(decodeBase64Key(randomKey()), null)
    insertRow(stack, 'nokey.stored', elsewhere.encryptSetting('nokey.stored', 'value'), true)
    const r = await api('GET', '/api/settings/nokey.stored?decrypt=true')
    expect(r.status).toBe(503)
    expect(r.json.error).toBe('encryption_unavailable')
    expect((await api('GET', '/api/settings/nokey.stored')).json.value).toMatch(CIPHERTEXT)
  })

  test('plain settings work as usual', async () => {
    expect((await api('POST', '/api/settings', { body: { key: 'nokey.plain', value: 'v' } })).status).toBe(201)
  })

  test('POST /api/encrypt → 503 encryption_unavailable', async () => {
    const r = await api('POST', '/api/encrypt', { body: { value: 'v' } })
    expect(r.status).toBe(503)
    expect(r.json.error).toBe('encryption_unavailable')
  })
})
