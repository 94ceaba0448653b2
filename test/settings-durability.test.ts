// Data at rest (threats.md): no plaintext of an encrypted setting in the database or its WAL,
// concurrent writers (the service and the CLI on one file) lose nothing, and every acknowledged
// write survives `kill -9` of the service (decisions §7).

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { Database } from 'bun:sqlite'
import { startStack, type Stack } from './support/stack.ts'
import { RecordingUpstream } from './support/upstream.ts'
import { ENTRY } from '../src/dashboard/assets.generated.ts'
import { KratosFixture } from './support/kratos.ts'
import { markSecret, markSensitive } from './support/leaks.ts'
import { baseEnvironment, randomKey } from './support/service.ts'
import { decodeBase64Key } from '../src/config.ts'
import { newSessionId, signSessionCookie } from '../src/session/cookie.ts'

const ROOT = join(import.meta.dir, '..')
const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

function fileContains(path: string, needle: string): boolean {
  if (!existsSync(path)) return false
  const bytes = readFileSync(path)
  return bytes.includes(Buffer.from(needle, 'utf8')) || bytes.includes(Buffer.from(needle, 'utf16le'))
}

describe('plaintext at rest', () => {
  test('an encrypted secret is in neither the database file nor its -wal; a plain value is (the search works)', async () => {
    const stack = await startStack()
    const secret = `plaintext-at-rest-${randomKey(12)}`
    const updated = `updated-at-rest-${randomKey(12)}`
    const plain = `visible-plain-${randomKey(12)}`
    markSecret(secret, updated)
    const post = (body: unknown) =>
      fetch(stack.service.url + '/api/settings', {
        method: 'POST',
        headers: { cookie: stack.cookie.admin, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    expect((await post({ key: 'smtp.password', value: secret, encrypted: true })).status).toBe(201)
    expect((await post({ key: 'smtp.password', value: updated, encrypted: true })).status).toBe(200)
    expect((await post({ key: 'site.title', value: plain })).status).toBe(201)
    const decrypted = await fetch(stack.service.url + '/api/settings/smtp.password?decrypt=true', { headers: { cookie: stack.cookie.admin } })
    expect((await decrypted.json()).value).toBe(updated)

    const db = stack.service.env.DATABASE_PATH!
    // While running: the writes sit in the WAL.
    expect(fileContains(`${db}-wal`, plain)).toBe(true)
    for (const file of [db, `${db}-wal`]) {
      expect(fileContains(file, secret)).toBe(false)
      expect(fileContains(file, updated)).toBe(false)
    }
    await stack.service.stop({ keepDir: true })
    await stack.kratos.stop()
    // After close the WAL is checkpointed into the main file.
    expect(fileContains(db, plain)).toBe(true)
    for (const file of [db, `${db}-wal`]) {
      expect(fileContains(file, secret)).toBe(false)
      expect(fileContains(file, updated)).toBe(false)
    }
    rmSync(stack.service.dir, { recursive: true, force: true })
  })
})

describe('concurrent writers', () => {
  test('the service over HTTP and several CLI processes on the same file lose no write', async () => {
    const stack = await startStack()
    try {
      const env = { PATH: process.env.PATH ?? '', ...stack.service.env } as Record<string, string>
      const HTTP_WRITES = 300
      const CLI_WRITES = 8
      const statuses: number[] = []
      let next = 0
      const httpWrite = async () => {
        const i = next++
        const body = i % 10 === 0 ? { key: 'shared.key', value: `http ${i}` } : { key: `http.key.${i}`, value: `http value ${i}`, encrypted: i % 3 === 0 }
        const response = await fetch(stack.service.url + '/api/settings', {
          method: 'POST',
          headers: { cookie: stack.cookie.admin, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
        await response.arrayBuffer()
        statuses.push(response.status)
      }
      // The HTTP writes come first, then the processes start among them, and the HTTP writes go
      // on until every process has exited, with one more after: so every command-line write lands
      // between HTTP writes however long the processes take to start or all write at once.
      await httpWrite()
      const cli = Array.from({ length: CLI_WRITES }, (_, i) =>
        Bun.spawn(['bun', 'src/main.ts', 'settings', 'set', `cli.key.${i}`, ...(i % 2 ? ['--encrypted'] : [])], {
          cwd: ROOT,
          env,
          stdin: Buffer.from(`cli value ${i}\n`),
          stdout: 'pipe',
          stderr: 'pipe',
        }),
      )
      // Also all writing one shared key, so read-modify-write races are exercised.
      const shared = Array.from({ length: 4 }, (_, i) =>
        Bun.spawn(['bun', 'src/main.ts', 'settings', 'set', 'shared.key'], { cwd: ROOT, env, stdin: Buffer.from(`cli ${i}`), stdout: 'pipe', stderr: 'pipe' }),
      )
      let processesDone = false
      const exited = Promise.all([...cli, ...shared].map((p) => p.exited)).finally(() => (processesDone = true))
      // 16 HTTP clients in parallel with the CLI processes. (The client, the service and the
      // identity-store fixture share this process and Bun's outbound connection pool, so hundreds
      // of simultaneous requests would only measure that pool.)
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < HTTP_WRITES || !processesDone) await httpWrite()
        }),
      )
      await httpWrite()
      const httpWrites = next
      const exits = await exited
      expect(exits.every((code) => code === 0)).toBe(true)
      expect(statuses.every((s) => s === 200 || s === 201)).toBe(true)

      const all = await stack.service.services.settings.list()
      const keys = new Set(all.map((s) => s.key))
      for (let i = 0; i < httpWrites; i++) if (i % 10 !== 0) expect(keys.has(`http.key.${i}`)).toBe(true)
      for (let i = 0; i < CLI_WRITES; i++) expect(await stack.service.services.settings.getDecrypted(`cli.key.${i}`)).toBe(`cli value ${i}`)
      expect(keys.has('shared.key')).toBe(true)
      // Every settings write's event, page by page (a page holds at most 1000).
      const writes = []
      for (let before: number | undefined; ; ) {
        const page = await stack.service.services.audit.list({ limit: 1000, before, action: 'settings_write' })
        writes.push(...page)
        if (page.length < 1000) break
        before = page[page.length - 1]!.id
      }
      expect(writes).toHaveLength(httpWrites + CLI_WRITES + 4)
      // Exactly one writer created the shared key; every other write to it was an update.
      const sharedEvents = writes.filter((e) => e.target === 'shared.key')
      expect(sharedEvents).toHaveLength(Math.ceil(httpWrites / 10) + 4)
      expect(sharedEvents.filter((e) => e.detail?.outcome === 'created')).toHaveLength(1)
      // The writers overlapped: every command-line write landed between HTTP writes.
      const httpIds = writes.filter((e) => e.actor !== null).map((e) => e.id)
      const interleaved = writes.filter((e) => e.actor === null && e.id > Math.min(...httpIds) && e.id < Math.max(...httpIds))
      expect(interleaved).toHaveLength(CLI_WRITES + 4)
    } finally {
      await stack.stop()
    }
  }, 30_000)
})

describe('a lock held by another process', () => {
  const post = (stack: Stack, body: unknown) =>
    fetch(stack.service.url + '/api/settings', {
      method: 'POST',
      headers: { cookie: stack.cookie.admin, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  /** `promise`, its name added to `settled` when it settles. */
  const tracked = <T>(settled: string[], name: string, promise: Promise<T>): Promise<T> =>
    promise.finally(() => void settled.push(name))
  /** What answers without the database's write lock: the health check, a dashboard asset, a proxied request, a read. */
  const unlockedRequests = async (stack: Stack) => {
    const health = await fetch(stack.service.url + '/api/health')
    const asset = await fetch(`${stack.service.url}/dashboard/assets/${ENTRY.script}`)
    const proxied = await fetch(`${stack.service.url}/api/idp/sessions/whoami`)
    const read = await fetch(stack.service.url + '/api/settings', { headers: { cookie: stack.cookie.admin } })
    for (const response of [health, asset, proxied, read]) await response.arrayBuffer()
    return [health.status, asset.status, proxied.status, read.status]
  }

  let upstream: RecordingUpstream
  beforeAll(() => {
    upstream = new RecordingUpstream()
  })
  afterAll(async () => {
    await upstream.stop()
  })

  test('a write waiting for the lock holds up nothing else (health, assets, proxied requests and reads answer meanwhile), and is made once, with its audit event, when the lock is let go', async () => {
    const stack = await startStack({ env: { IDP_PUBLIC_URL: upstream.url } })
    // A shell's `BEGIN IMMEDIATE`: the write lock, readers let in.
    const other = new Database(stack.service.env.DATABASE_PATH!)
    const value = `waited-${randomKey(9)}`
    markSecret(value)
    try {
      other.run('BEGIN IMMEDIATE')
      const settled: string[] = []
      const write = tracked(settled, 'write', post(stack, { key: 'site.waiting', value, encrypted: true }))
      // This timer fires only while the service is not stopped in the write.
      await Bun.sleep(200)
      expect(await unlockedRequests(stack)).toEqual([200, 200, 200, 200])
      expect(settled).toEqual([])
      other.run('COMMIT')

      const written = await write
      expect(written.status).toBe(201)
      const events = await stack.service.services.audit.list({ limit: 100, action: 'settings_write' })
      expect(events.filter((e) => e.target === 'site.waiting').map((e) => e.detail)).toEqual([{ outcome: 'created', encrypted: true }])
      expect(await stack.service.services.settings.getDecrypted('site.waiting')).toBe(value)
      expect(stack.service.logLines.filter((line) => line.includes('"database_busy"'))).toEqual([])
      expect(stack.service.logLines.some((line) => line.includes(value))).toBe(false)
    } finally {
      if (other.inTransaction) other.run('ROLLBACK')
      other.close()
      await stack.stop()
    }
  })

  test('a write through an admin prefix whose audit event cannot be written (the lock held past the wait) is not sent: 503, Kratos unchanged, no event; sent once the lock is gone, with one event', async () => {
    const stack = await startStack({ env: { IDP_PUBLIC_URL: upstream.url } })
    const other = new Database(stack.service.env.DATABASE_PATH!)
    const person = stack.kratos.addIdentity({ email: 'unrecorded.write@example.test' })
    markSensitive(person.id, 'unrecorded.write@example.test')
    const patch = () =>
      fetch(`${stack.service.url}/api/idp-admin/admin/identities/${person.id}`, {
        method: 'PATCH',
        headers: { cookie: stack.cookie.admin, origin: 'http://admin.test', 'content-type': 'application/json' },
        body: JSON.stringify([{ op: 'replace', path: '/metadata_public', value: { note: 'recorded' } }]),
      })
    const patches = () => stack.kratos.calls.filter((call) => call.method === 'PATCH' && call.path === `/admin/identities/${person.id}`).length
    const events = async () => (await stack.service.services.audit.list({ limit: 100, action: 'proxy_write' })).filter((event) => event.target === `/admin/identities/${person.id}`)
    try {
      // Confirmed before the lock: the session check needs nothing written.
      expect((await fetch(`${stack.service.url}/api/auth/session`, { headers: { cookie: stack.cookie.admin } })).status).toBe(200)
      other.run('BEGIN EXCLUSIVE')
      const refused = await patch()
      expect([refused.status, ((await refused.json()) as { error: string }).error]).toEqual([503, 'database_unavailable'])
      expect(patches()).toBe(0)
      expect(person.metadata_public ?? null).toBeNull()
      other.run('ROLLBACK')
      expect(await events()).toEqual([])

      expect((await patch()).status).toBe(200)
      expect(patches()).toBe(1)
      expect((await events()).map((event) => event.detail)).toEqual([{ prefix: 'idp-admin', method: 'PATCH', status: 200, outcome: 'ok', state: 'active' }])
    } finally {
      if (other.inTransaction) other.run('ROLLBACK')
      other.close()
      await stack.stop()
    }
  }, 30_000)

  test('a write through an admin prefix whose outcome cannot be added to its event (the lock taken while the upstream worked): the answer goes back, and the event says the write was sent, its outcome not recorded', async () => {
    const hydra = new RecordingUpstream()
    const stack = await startStack({ env: { IDP_PUBLIC_URL: upstream.url, OAUTH_ADMIN_URL: hydra.url } })
    const other = new Database(stack.service.env.DATABASE_PATH!)
    const { promise: answered, resolve: answer } = Promise.withResolvers<void>()
    const { promise: arrived, resolve: arrive } = Promise.withResolvers<void>()
    hydra.answer = async () => {
      arrive()
      await answered
      return new Response(null, { status: 204 })
    }
    try {
      const deleting = fetch(`${stack.service.url}/api/oauth-admin/admin/clients/pending-client`, { method: 'DELETE', headers: { cookie: stack.cookie.admin, origin: 'http://admin.test' } })
      await arrived
      other.run('BEGIN EXCLUSIVE')
      answer()
      expect((await deleting).status).toBe(204)
      other.run('ROLLBACK')
      const [event] = (await stack.service.services.audit.list({ limit: 10, action: 'proxy_write' })).filter((e) => e.target === '/admin/clients/pending-client')
      expect(event!.detail).toEqual({ prefix: 'oauth-admin', method: 'DELETE', status: null, outcome: 'pending' })
      expect(stack.service.logLines.some((line) => line.includes('"audit_write_failed"') && line.includes('"event_id"'))).toBe(true)
    } finally {
      if (other.inTransaction) other.run('ROLLBACK')
      other.close()
      await stack.stop()
      await hydra.stop()
    }
  }, 30_000)

  test('writes that wait longer than 5 s for the lock answer 503 database_unavailable and write nothing, nothing else waited meanwhile, and they work once the lock is gone', async () => {
    const stack = await startStack({ env: { IDP_PUBLIC_URL: upstream.url } })
    const other = new Database(stack.service.env.DATABASE_PATH!)
    const value = `refused-${randomKey(9)}`
    markSecret(value)
    try {
      // Another process (a shell, a second service) holds the write lock past the wait.
      other.run('BEGIN EXCLUSIVE')
      const settled: string[] = []
      const write = tracked(settled, 'write', post(stack, { key: 'site.locked', value, encrypted: true }))
      // Signing out must not claim success either: the session stays valid, and says so.
      const session = stack.freshCookie('admin')
      const logout = tracked(settled, 'logout', fetch(stack.service.url + '/api/auth/logout', { method: 'POST', headers: { cookie: session, origin: 'http://admin.test' } }))
      await Bun.sleep(200)
      expect(await unlockedRequests(stack)).toEqual([200, 200, 200, 200])
      expect(settled).toEqual([])

      for (const refused of [await write, await logout]) {
        expect(refused.status).toBe(503)
        expect(await refused.json()).toEqual({ error: 'database_unavailable', message: 'The database is unavailable; try again shortly.' })
      }
      expect((await fetch(stack.service.url + '/api/auth/session', { headers: { cookie: session } })).status).toBe(200)
      // Nothing is left half done: no transaction open on the service's connection, nothing written.
      expect(stack.service.db!.inTransaction).toBe(false)
      other.run('ROLLBACK')

      expect((await fetch(stack.service.url + '/api/settings/site.locked', { headers: { cookie: stack.cookie.admin } })).status).toBe(404)
      expect((await stack.service.services.audit.list({ limit: 100 })).filter((e) => e.target === 'site.locked' || e.action === 'logout')).toEqual([])
      expect((await post(stack, { key: 'site.locked', value, encrypted: true })).status).toBe(201)
      expect(stack.service.logLines.filter((line) => line.includes('"database_busy"'))).toHaveLength(2)
      expect(stack.service.logLines.some((line) => line.includes('unhandled_error'))).toBe(false)
      expect(stack.service.logLines.some((line) => line.includes(value))).toBe(false)
    } finally {
      if (other.inTransaction) other.run('ROLLBACK')
      other.close()
      await stack.stop()
    }
  }, 30_000)
})

describe('kill -9', () => {
  interface Child {
    process: Subprocess<'ignore', 'pipe', 'pipe'>
    url: string
  }

  async function startChild(env: Record<string, string>): Promise<Child> {
    const child = Bun.spawn(['bun', 'src/main.ts', 'serve'], { cwd: ROOT, env, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
    const reader = child.stdout.getReader()
    const decoder = new TextDecoder()
    let buffered = ''
    const deadline = Date.now() + 10_000
    while (Date.now() < deadline) {
      const { value, done } = await reader.read()
      if (done) break
      buffered += decoder.decode(value, { stream: true })
      for (const line of buffered.split('\n')) {
        if (!line.includes('"listening"')) continue
        const address = (JSON.parse(line) as { address: string }).address
        // Keep draining so the child never blocks on a full pipe.
        void (async () => {
          while (!(await reader.read()).done) {}
        })().catch(() => {})
        return { process: child, url: address }
      }
    }
    child.kill('SIGKILL')
    throw new Error(`the service did not start: ${await new Response(child.stderr).text()}`)
  }

  test('every acknowledged write is there after SIGKILL at a random moment and a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'admin-dashboard-kill-'))
    dirs.push(dir)
    const kratos = new KratosFixture().start()
    const admin = kratos.addIdentity({ email: 'kill.admin@example.test', role: 'admin' })
    markSensitive(admin.id, 'kill.admin@example.test', kratos.url, String(new URL(kratos.url).port))
    const env = {
      PATH: process.env.PATH ?? '',
      ...baseEnvironment({ DATABASE_PATH: join(dir, 'admin-dashboard.db'), IDP_ADMIN_URL: kratos.url, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' }),
    } as Record<string, string>
    markSecret(env.SESSION_SIGNING_KEY, env.ENCRYPTION_KEY)
    const now = Math.floor(Date.now() / 1000)
    const cookie = `admin-session=${signSessionCookie(decodeBase64Key(env.SESSION_SIGNING_KEY!)!, {
      v: 1,
      sid: newSessionId(),
      sub: admin.id,
      email: 'kill.admin@example.test',
      role: 'admin',
      iat: now,
      exp: now + 3600,
    })}`

    const acknowledged = new Map<string, string>()
    const ROUNDS = 3
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const child = await startChild(env)
        let stop = false
        const writer = async (id: number) => {
          for (let n = 0; !stop; n++) {
            const key = `kill.r${round}.w${id}.n${n}`
            const value = `value ${round}/${id}/${n}`
            try {
              const response = await fetch(child.url + '/api/settings', {
                method: 'POST',
                headers: { cookie, 'content-type': 'application/json' },
                body: JSON.stringify({ key, value, encrypted: n % 2 === 0 }),
              })
              if (response.status === 201) acknowledged.set(key, value)
              else await response.body?.cancel()
            } catch {
              return // the process is gone
            }
          }
        }
        const writers = Array.from({ length: 8 }, (_, id) => writer(id))
        await Bun.sleep(150 + Math.random() * 350)
        child.process.kill('SIGKILL')
        stop = true
        await Promise.all(writers)
        await child.process.exited
      }
      expect(acknowledged.size).toBeGreaterThan(ROUNDS * 10)

      // Restart on the same file and read everything back over HTTP, decrypting as we go.
      const child = await startChild(env)
      try {
        const listed = (await (await fetch(child.url + '/api/settings', { headers: { cookie } })).json()) as { key: string; encrypted: boolean; value: string }[]
        const byKey = new Map(listed.map((s) => [s.key, s]))
        const lost = [...acknowledged.keys()].filter((key) => !byKey.has(key))
        expect(lost).toEqual([])
        const sample = [...acknowledged.entries()].filter(([key]) => byKey.get(key)!.encrypted).slice(0, 20)
        for (const [key, value] of sample) {
          const read = await fetch(`${child.url}/api/settings/${key}?decrypt=true`, { headers: { cookie } })
          expect(((await read.json()) as { value: string }).value).toBe(value)
        }
        for (const [key, value] of acknowledged) if (!byKey.get(key)!.encrypted) expect(byKey.get(key)!.value).toBe(value)
      } finally {
        child.process.kill('SIGTERM')
        await child.process.exited
      }
    } finally {
      await kratos.stop()
    }
  }, 30_000)
})
