// The service on PostgreSQL, seen from outside: real HTTP on loopback, a real throw-away cluster,
// and a second connection of our own that does what another replica or an operator's command
// would (hold a lock, look at the rows).

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { usePostgres } from './support/use-postgres.ts'
import { startStack, type Stack } from './support/stack.ts'
import { within } from './support/eventually.ts'
import { randomKey } from './support/service.ts'
import { runToEnd } from './support/process.ts'
import { PostgresStorage } from '../src/db/postgres-storage.ts'
import { join } from 'node:path'
import { RecordingUpstream } from './support/upstream.ts'
import { markSecret } from './support/leaks.ts'
import { startFreezableProxy, type FreezableProxy } from './support/freezable-proxy.ts'

const pg = usePostgres()

async function call(stack: Stack, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = { origin: 'http://admin.test', cookie: stack.cookie.admin }
  if (body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(stack.service.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await response.text()
  return { status: response.status, text, json: text ? JSON.parse(text) : undefined }
}

describe('a write answered 503 is not committed later', () => {
  let stack: Stack
  let url: string
  let other: InstanceType<typeof SQL>
  beforeAll(async () => {
    url = await pg.createDatabase()
    stack = await startStack({ env: { DATABASE_URL: url } })
    other = new SQL(url, { max: 2 })
  })
  afterAll(async () => {
    await other?.close()
    await stack?.stop()
  })

  test('settings locked elsewhere past the deadline: every POST answers 503, and after the lock neither a row nor an audit event exists; reads are served meanwhile', async () => {
    const prefix = `locked.${Date.now()}`
    const { promise: release, resolve: letGo } = Promise.withResolvers<void>()
    const { promise: held, resolve: holds } = Promise.withResolvers<void>()
    const holding = other.begin(async (tx) => {
      // What `settings reencrypt` takes.
      await tx`LOCK TABLE settings IN SHARE ROW EXCLUSIVE MODE`
      holds()
      await release
    })
    await Promise.race([held, holding])
    let readsServed: number | null = null
    try {
      // More writes than the pool has connections (10): the last ones wait for a connection.
      const started = performance.now()
      const writes = await Promise.all(Array.from({ length: 12 }, (_, i) => call(stack, 'POST', '/api/settings', { key: `${prefix}.${i}`, value: 'v' })))
      expect(writes.map((w) => w.status)).toEqual(Array(12).fill(503))
      expect(writes.every((w) => w.json.error === 'database_unavailable')).toBe(true)
      expect(performance.now() - started).toBeLessThan(7500)
      // The queries given up on are not left holding the pool: reads are answered again while the lock stays.
      readsServed = await within(2000, async () => (await call(stack, 'GET', '/api/settings')).status === 200)
    } finally {
      letGo()
      await holding
    }
    await Bun.sleep(500)
    const rows = await other`SELECT count(*)::int AS n FROM settings WHERE key LIKE ${prefix + '%'}`
    const events = await other`SELECT count(*)::int AS n FROM audit_events WHERE target LIKE ${prefix + '%'}`
    expect({ rows: rows[0].n, events: events[0].n, readsServedWhileLocked: readsServed !== null }).toEqual({ rows: 0, events: 0, readsServedWhileLocked: true })
    // And the service writes again once the lock is gone.
    expect((await call(stack, 'POST', '/api/settings', { key: `${prefix}.after`, value: 'v' })).status).toBe(201)
  }, 30_000)
})

describe('requests that exhaust the pool do not starve the gate', () => {
  let stack: Stack
  let other: InstanceType<typeof SQL>
  let replica: PostgresStorage
  beforeAll(async () => {
    const url = await pg.createDatabase()
    stack = await startStack({ env: { DATABASE_URL: url } })
    other = new SQL(url, { max: 2 })
    // Another replica on the same database.
    const opened = await PostgresStorage.open(url)
    if (!opened.ok) throw new Error(opened.error)
    replica = opened.storage
  })
  afterAll(async () => {
    await replica?.close()
    await other?.close()
    await stack?.stop()
  })

  test('settings locked elsewhere and every pooled connection held by a stuck write: past the freshness window a valid session is still accepted, and a logout on another replica is honoured within 1 s', async () => {
    const sid = `pool-full-${Date.now()}`
    const exp = Math.floor(stack.service.clock.now() / 1000) + 3600
    const cookie = `admin-session=${stack.service.sign({ sub: stack.viewer.id, role: 'viewer', sid, exp })}`
    const session = async (cookieHeader: string) => (await fetch(`${stack.service.url}/api/auth/session`, { headers: { cookie: cookieHeader } })).status
    expect(await session(cookie)).toBe(200)
    // The service's connections that wait for the lock: writes that hold a connection of the pool.
    const stuckWrites = async () =>
      (await other`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'admin-dashboard' AND datname = current_database() AND wait_event_type = 'Lock'`)[0].n as number

    const { promise: release, resolve: letGo } = Promise.withResolvers<void>()
    const holding = other.begin(async (tx) => {
      await tx`LOCK TABLE settings IN SHARE ROW EXCLUSIVE MODE`
      await release
    })
    // More writers than the pool has connections (10), each sending its next write when the last is answered 503.
    let writing = true
    const writers = Array.from({ length: 14 }, async (_, w) => {
      for (let n = 0; writing; n++) await call(stack, 'POST', '/api/settings', { key: `pool.full.${w}.${n}`, value: 'v' })
    })
    let seen: { poolFull: boolean; accepted: number; otherAccepted: number; logoutHonoured: boolean } | null = null
    try {
      const poolFull = (await within(3000, async () => (await stuckWrites()) >= 10)) !== null
      await Bun.sleep(1500) // past the 1 s in which the gate trusts what it knew
      const accepted = await session(cookie)
      const otherAccepted = await session(stack.cookie.admin)
      // A logout on the other replica: its row, its version, its notification.
      await replica.revocations.revokeSession(sid, exp)
      const logoutHonoured = (await within(1000, async () => (await session(cookie)) === 401)) !== null
      // Still full: writes given up at their deadline are sent again, so sample until ten wait again.
      const stillFull = (await within(3000, async () => (await stuckWrites()) >= 10)) !== null
      seen = { poolFull: poolFull && stillFull, accepted, otherAccepted, logoutHonoured }
    } finally {
      writing = false
      letGo()
      await holding
      await Promise.all(writers)
    }
    expect(seen).toEqual({ poolFull: true, accepted: 200, otherAccepted: 200, logoutHonoured: true })
    expect((await call(stack, 'POST', '/api/settings', { key: 'pool.full.after', value: 'v' })).status).toBe(201)
  }, 60_000)
})

describe('connections ended by the server', () => {
  let stack: Stack
  let other: InstanceType<typeof SQL>
  beforeAll(async () => {
    const url = await pg.createDatabase()
    stack = await startStack({ env: { DATABASE_URL: url } })
    other = new SQL(url, { max: 1 })
  })
  afterAll(async () => {
    await other?.close()
    await stack?.stop()
  })

  test('every backend of the service ended with pg_terminate_backend (as in a failover): the next reads, session checks and writes are answered, none 503; each write is made once', async () => {
    const unanswered: string[] = []
    // Several pooled connections open, then all of them (and the poll's, and the listening one) ended.
    const endEveryConnection = async () => {
      const reads = await Promise.all(Array.from({ length: 12 }, () => call(stack, 'GET', '/api/settings')))
      for (const r of reads) if (r.status !== 200) unanswered.push(`GET /api/settings → ${r.status}`)
      const ended = await other`
        SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE application_name = 'admin-dashboard' AND datname = current_database() AND pid <> pg_backend_pid()`
      expect(ended.length).toBeGreaterThan(0)
    }
    for (let round = 0; round < 5; round++) {
      await endEveryConnection()
      const write = await call(stack, 'POST', '/api/settings', { key: `ended.round.${round}`, value: 'v' })
      if (write.status !== 201) unanswered.push(`round ${round}: POST /api/settings → ${write.status}`)
      await endEveryConnection()
      const answers = await Promise.all([
        ...Array.from({ length: 12 }, () => call(stack, 'GET', '/api/settings').then((r) => ['GET /api/settings', r.status] as const)),
        call(stack, 'GET', '/api/security/audit').then((r) => ['GET /api/security/audit', r.status] as const),
        call(stack, 'GET', '/api/dashboard/layout').then((r) => ['GET /api/dashboard/layout', r.status] as const),
        call(stack, 'GET', '/api/auth/session').then((r) => ['GET /api/auth/session', r.status] as const),
      ])
      for (const [what, status] of answers) if (status !== 200) unanswered.push(`round ${round}: ${what} → ${status}`)
      // Past the freshness window: the poll has its connection back.
      await Bun.sleep(1200)
      const session = await call(stack, 'GET', '/api/auth/session')
      if (session.status !== 200) unanswered.push(`round ${round}: GET /api/auth/session later → ${session.status}`)
    }
    expect(unanswered).toEqual([])
    const rows = await other`SELECT key FROM settings WHERE key LIKE 'ended.round.%' ORDER BY key`
    const events = await other`SELECT target FROM audit_events WHERE action = 'settings_write' AND target LIKE 'ended.round.%' ORDER BY target`
    const expected = Array.from({ length: 5 }, (_, round) => `ended.round.${round}`)
    expect({ rows: rows.map((r: { key: string }) => r.key), events: events.map((e: { target: string }) => e.target) }).toEqual({ rows: expected, events: expected })
  }, 60_000)
})

/**
 * The service on a new database reached through a freezable proxy, for the tests of one describe;
 * `sql` reaches the database directly. Stopped after them: the service, then the proxy.
 */
function useStackBehindProxy(): { stack: Stack; proxy: FreezableProxy; sql: InstanceType<typeof SQL> } {
  const behind = {} as { stack: Stack; proxy: FreezableProxy; sql: InstanceType<typeof SQL> }
  beforeAll(async () => {
    const url = await pg.createDatabase()
    const target = new URL(url)
    behind.proxy = startFreezableProxy({ hostname: target.hostname, port: Number(target.port) })
    const through = new URL(url)
    through.port = String(behind.proxy.port)
    behind.stack = await startStack({ env: { DATABASE_URL: through.href } })
    behind.sql = new SQL(url, { max: 2 })
  })
  afterAll(async () => {
    await behind.sql?.close()
    await behind.stack?.stop()
    behind.proxy?.stop()
  })
  return behind
}

describe('the poll connection stops answering without breaking', () => {
  const behind = useStackBehindProxy()

  test('every open connection frozen (half-open, as after a failover without a reset), new ones pass: a valid session is never refused; asked while the gate cannot vouch for it, it waits for the poll on a new connection and is answered', async () => {
    const session = async () => {
      const started = performance.now()
      const response = await fetch(`${behind.stack.service.url}/api/auth/session`, { headers: { cookie: behind.stack.cookie.viewer } })
      return { status: response.status, error: response.status === 200 ? undefined : ((await response.json()) as { error: string }).error, ms: performance.now() - started }
    }
    expect((await session()).status).toBe(200)
    const reopened = () => behind.stack.service.logLines.filter((line) => line.includes('"database_watch_reopened"')).length
    const before = reopened()
    expect(behind.proxy.freeze()).toBeGreaterThan(0)
    // One request after the other for 4 s: past the 1 s in which the gate trusts what it knew, no
    // poll is answered until the hung one is given up on (2 s) and the next runs on a new
    // connection. Each request sent meanwhile waits for that poll instead of being refused.
    const answers: { status: number; error?: string; ms: number }[] = []
    const until = performance.now() + 4000
    while (performance.now() < until) {
      answers.push(await session())
      await Bun.sleep(50)
    }
    expect(reopened()).toBe(before + 1)
    expect(answers.filter((a) => a.status !== 200)).toEqual([])
    // Some waited (the gate could not vouch for them at once), none for long.
    expect(answers.some((a) => a.ms > 200)).toBe(true)
    expect(answers.filter((a) => a.ms > 3000)).toEqual([])
    // And it stays fresh.
    await Bun.sleep(1500)
    expect((await session()).status).toBe(200)
  }, 30_000)
})

describe('pooled connections stop answering without breaking', () => {
  const behind = useStackBehindProxy()

  test('every open connection frozen (half-open, as after a partition or a firewall that dropped the flows), new ones pass: the requests that meet a frozen connection answer 503 within the deadline, then every request is answered again within seconds while the frozen connections stay frozen; a write is made once or not at all', async () => {
    const timed = async (request: Promise<{ status: number; json: { error?: string } | undefined }>) => {
      const started = performance.now()
      const { status, json } = await request
      return { status, error: json?.error, ms: performance.now() - started }
    }
    // More reads at once than the pool has connections (10): every one of them is open.
    const warm = await Promise.all(Array.from({ length: 12 }, () => call(behind.stack, 'GET', '/api/settings')))
    expect(warm.map((w) => w.status)).toEqual(Array(12).fill(200))
    const frozen = behind.proxy.freeze()
    expect(frozen).toBeGreaterThan(2)

    const key = `frozen.write.${Date.now()}`
    const during = await Promise.all([
      ...Array.from({ length: 12 }, () => timed(call(behind.stack, 'GET', '/api/settings'))),
      timed(call(behind.stack, 'POST', '/api/settings', { key, value: 'v' })),
    ])
    const write = during.at(-1)!
    // Answered, not hung: the storage gives up after 5 s.
    expect(during.filter((r) => r.ms > 7000)).toEqual([])
    expect(during.filter((r) => r.status !== 200 && r.status !== 201 && !(r.status === 503 && r.error === 'database_unavailable'))).toEqual([])
    expect(during.some((r) => r.status === 503)).toBe(true)

    // Then answered again within seconds, and for good: more requests one after the other than the
    // pool has connections, so none is left to meet a frozen one.
    const recovered = await within(3000, async () => (await call(behind.stack, 'GET', '/api/settings')).status === 200)
    expect(recovered).not.toBeNull()
    const after: string[] = []
    for (let n = 0; n < 15; n++) {
      const read = await timed(call(behind.stack, 'GET', '/api/settings'))
      if (read.status !== 200 || read.ms > 2500) after.push(`GET /api/settings → ${read.status} in ${Math.round(read.ms)} ms`)
    }
    const audit = await call(behind.stack, 'GET', '/api/security/audit')
    if (audit.status !== 200) after.push(`GET /api/security/audit → ${audit.status}`)
    const second = `${key}.after`
    const written = await call(behind.stack, 'POST', '/api/settings', { key: second, value: 'v' })
    if (written.status !== 201) after.push(`POST /api/settings → ${written.status}`)
    expect(after).toEqual([])

    // The frozen connections never came back: the service let go of those of its pool (the
    // listening connection may stay, its notifications are only a shortcut for the poll).
    expect(behind.proxy.frozen()).toBeLessThanOrEqual(1)
    expect(behind.stack.service.logLines.some((line) => line.includes('"database_pool_reopened"'))).toBe(true)
    for (const line of behind.stack.service.logLines) {
      expect(line).not.toContain(pg.password)
      expect(line).not.toContain('postgres://')
    }

    // The write met a frozen connection (503) and was not made, or was made once: never twice.
    const rows = await behind.sql`SELECT key FROM settings WHERE key LIKE ${key + '%'} ORDER BY key`
    const events = await behind.sql`SELECT target FROM audit_events WHERE action = 'settings_write' AND target LIKE ${key + '%'} ORDER BY target`
    const expected = write.status === 201 ? [key, second] : [second]
    expect({ write: write.status === 201 || write.status === 503, rows: rows.map((r: { key: string }) => r.key), events: events.map((e: { target: string }) => e.target) }).toEqual({
      write: true,
      rows: expected,
      events: expected,
    })
  }, 60_000)

  test('every open connection frozen, then one request alone: it answers 503, and every request after it is answered at once (the whole pool was replaced, not only the connection it met)', async () => {
    const warm = await Promise.all(Array.from({ length: 12 }, () => call(behind.stack, 'GET', '/api/settings')))
    expect(warm.map((w) => w.status)).toEqual(Array(12).fill(200))
    const reopened = () => behind.stack.service.logLines.filter((line) => line.includes('"database_pool_reopened"')).length
    const before = reopened()
    expect(behind.proxy.freeze()).toBeGreaterThan(2)
    const first = await call(behind.stack, 'GET', '/api/settings')
    expect([first.status, first.json?.error]).toEqual([503, 'database_unavailable'])
    expect(reopened()).toBe(before + 1)
    // One after the other: had only the connection it met been closed, the next nine would each
    // meet another frozen one and wait out the deadline.
    const after: string[] = []
    for (let n = 0; n < 12; n++) {
      const started = performance.now()
      const read = await call(behind.stack, 'GET', '/api/settings')
      const ms = performance.now() - started
      if (read.status !== 200 || ms > 2500) after.push(`GET /api/settings → ${read.status} in ${Math.round(ms)} ms`)
    }
    expect(after).toEqual([])
  }, 60_000)
})

describe('a write cut off while its transaction is open', () => {
  const behind = useStackBehindProxy()

  test('its connection frozen after a row was written (the network gone, the server unaware): 503, and the row lock is released by its deadline, so the same key is written within seconds, once', async () => {
    const key = `cut.off.${Date.now()}`
    const stuckWrites = async () =>
      (await behind.sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'admin-dashboard' AND datname = current_database() AND wait_event_type = 'Lock'`)[0].n as number
    const openTransactions = async () =>
      (await behind.sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'admin-dashboard' AND datname = current_database() AND state LIKE 'idle in transaction%'`)[0].n as number

    // The write waits for the same key, written but not committed elsewhere; once it holds the
    // row, nothing more reaches the service.
    const { promise: release, resolve: letGo } = Promise.withResolvers<void>()
    const { promise: held, resolve: holds } = Promise.withResolvers<void>()
    const holding = behind.sql
      .begin(async (tx) => {
        await tx`INSERT INTO settings (key, value, encrypted, updated_at) VALUES (${key}, 'elsewhere', false, now())`
        holds()
        await release
        throw new Error('rolled back')
      })
      .catch(() => {})
    await Promise.race([held, holding])
    const started = performance.now()
    const first = call(behind.stack, 'POST', '/api/settings', { key, value: 'first' })
    let waited: number | null = null
    try {
      waited = await within(3000, async () => (await stuckWrites()) > 0)
      behind.proxy.freeze()
    } finally {
      letGo()
      await holding
    }
    expect(waited).not.toBeNull()
    // The server ran the INSERT and holds its row until the transaction ends.
    expect(await within(1000, async () => (await openTransactions()) > 0)).not.toBeNull()
    const cut = await first
    expect({ status: cut.status, error: cut.json.error }).toEqual({ status: 503, error: 'database_unavailable' })
    expect(performance.now() - started).toBeLessThan(7000)

    // The same key again, on a new connection: not kept waiting by the transaction left open.
    const statuses: number[] = []
    const written = await within(4000, async () => {
      const r = await call(behind.stack, 'POST', '/api/settings', { key, value: 'second' })
      statuses.push(r.status)
      return r.status === 201
    })
    expect({ written: written !== null, statuses: statuses.filter((s) => s !== 201 && s !== 503) }).toEqual({ written: true, statuses: [] })
    expect(await openTransactions()).toBe(0)
    const rows = await behind.sql`SELECT value FROM settings WHERE key = ${key}`
    const events = await behind.sql`SELECT count(*)::int AS n FROM audit_events WHERE action = 'settings_write' AND target = ${key}`
    expect({ rows: rows.map((r: { value: string }) => r.value), events: events[0].n }).toEqual({ rows: ['second'], events: 1 })
  }, 30_000)
})

/**
 * A fresh database whose schema its owner has created, and the URL of a new role there that has
 * only what `grant` (run as the owner, given the role's name) gives it.
 */
async function databaseWithRole(prefix: string, grant: (owner: SQL, role: string) => Promise<void>): Promise<URL> {
  const url = await pg.createDatabase()
  const first = await PostgresStorage.open(url)
  if (!first.ok) throw new Error(first.error)
  await first.storage.close()
  const role = `${prefix}_${Date.now().toString(36)}`
  const password = randomKey(18).replace(/[^A-Za-z0-9]/g, 'x')
  const owner = new SQL(url, { max: 1 })
  try {
    await owner.unsafe(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`)
    await grant(owner, role)
  } finally {
    await owner.close()
  }
  const limited = new URL(url)
  limited.username = role
  limited.password = password
  return limited
}

test('once the owner has created the schema, a user that can only read and write the tables runs check-config and the service', async () => {
  const limited = await databaseWithRole('rw', async (owner, role) => {
    await owner.unsafe(`REVOKE CREATE ON SCHEMA public FROM PUBLIC`)
    await owner.unsafe(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role}`)
    await owner.unsafe(`GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ${role}`)
    const [{ can }] = await owner.unsafe(`SELECT has_schema_privilege('${role}', 'public', 'CREATE') AS can`)
    expect(can).toBe(false)
  })
  const env = { SESSION_SIGNING_KEY: randomKey(), ENCRYPTION_KEY: randomKey(), HOME: process.env.HOME, DATABASE_URL: limited.href }
  const checked = await runToEnd(['bun', join(import.meta.dir, '..', 'src', 'main.ts'), 'check-config'], env)
  expect({ code: checked.code, stderr: checked.stderr }).toEqual({ code: 0, stderr: '' })
  const stack = await startStack({ env: { DATABASE_URL: limited.href } })
  try {
    expect((await call(stack, 'POST', '/api/settings', { key: 'limited.user', value: 'v', encrypted: true })).status).toBe(201)
    expect((await call(stack, 'POST', '/api/security/sessions/revoke', { identity_id: stack.viewer.id })).status).toBe(204)
    expect((await call(stack, 'GET', '/api/security/audit')).json.events.map((e: { action: string }) => e.action)).toEqual(['sessions_revoke', 'settings_write'])
  } finally {
    await stack.stop()
  }
}, 30_000)

test('a user granted the tables but not signing_key (a grant from before schema 4): check-config says the check was refused, with the code, and passes', async () => {
  const limited = await databaseWithRole('nokey', async (owner, role) => {
    await owner.unsafe(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role}`)
    await owner.unsafe(`GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ${role}`)
    await owner.unsafe(`REVOKE ALL ON signing_key FROM ${role}`)
  })
  const env = { SESSION_SIGNING_KEY: randomKey(), ENCRYPTION_KEY: randomKey(), HOME: process.env.HOME, DATABASE_URL: limited.href }
  const checked = await runToEnd(['bun', join(import.meta.dir, '..', 'src', 'main.ts'), 'check-config'], env)
  expect({ code: checked.code, stderr: checked.stderr }).toEqual({ code: 0, stderr: '' })
  expect(checked.stdout).toContain('note: whether SESSION_SIGNING_KEY is the key the last start used could not be checked: the database refused (42501)\n')
}, 30_000)

test('the settings command run as a user that may only read: one line with the database\'s code, exit 1, no dump of the error and no value', async () => {
  const limited = await databaseWithRole('ro', (owner, role) => owner.unsafe(`GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${role}`))
  const env = { SESSION_SIGNING_KEY: randomKey(), ENCRYPTION_KEY: randomKey(), HOME: process.env.HOME, DATABASE_URL: limited.href }
  const main = join(import.meta.dir, '..', 'src', 'main.ts')
  const listed = await runToEnd(['bun', main, 'settings', 'list'], env)
  expect({ code: listed.code, stderr: listed.stderr }).toEqual({ code: 0, stderr: '' })
  for (const args of [['set', 'readonly.probe'], ['set', 'readonly.probe', '--encrypted'], ['delete', 'readonly.probe']]) {
    const result = await runToEnd(['bun', main, 'settings', ...args], env, { stdin: 'value-NEVER-SHOWN' })
    expect({ args, code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({ args, code: 1, stdout: '', stderr: 'admin-dashboard: the settings store refused the operation (SQLSTATE 42501)\n' })
  }
}, 30_000)

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`U+0000, which PostgreSQL's text cannot hold, is refused alike on ${engine}`, () => {
    let stack: Stack
    beforeAll(async () => {
      stack = await startStack({ env: engine === 'postgres' ? { DATABASE_URL: await pg.createDatabase() } : {} })
    })
    afterAll(async () => {
      await stack?.stop()
    })

    test('U+0000 in a setting value (encrypted or not), category or key → 400 bad_request naming the field, never the value; nothing stored; such a key in the path → 404', async () => {
      const writes: [Record<string, unknown>, string][] = [
        [{ key: 'nul.value', value: 'before\u0000SECRET-AFTER' }, 'Invalid field: value (U+0000 is not allowed).'],
        [{ key: 'nul.encrypted', value: 'before\u0000SECRET-AFTER', encrypted: true }, 'Invalid field: value (U+0000 is not allowed).'],
        [{ key: 'nul.category', value: 'v', category: 'mail\u0000SECRET-AFTER' }, 'Invalid field: category (U+0000 is not allowed).'],
        [
          { key: 'nul\u0000key', value: 'v' },
          'Invalid or missing field: key. A setting key is 1 to 255 characters: ASCII letters, digits, dots, underscores, colons and hyphens, beginning with a letter or a digit.',
        ],
      ]
      for (const [body, message] of writes) {
        const r = await call(stack, 'POST', '/api/settings', body)
        expect({ key: body.key, status: r.status, json: r.json }).toEqual({ key: body.key, status: 400, json: { error: 'bad_request', message } })
        expect(r.text).not.toContain('SECRET-AFTER')
      }
      expect((await call(stack, 'GET', '/api/settings')).json.filter((s: { key: string }) => s.key.startsWith('nul'))).toEqual([])
      expect((await call(stack, 'GET', '/api/security/audit?action=settings_write')).json.events).toEqual([])
      expect((await call(stack, 'GET', '/api/settings/nul%00key')).status).toBe(404)
      expect((await call(stack, 'DELETE', '/api/settings/nul%00key')).status).toBe(404)
    })

    test('revoking the sessions of an identity id with U+0000 → 400 bad_request naming identity_id; nothing recorded', async () => {
      const r = await call(stack, 'POST', '/api/security/sessions/revoke', { identity_id: `${stack.viewer.id}\u0000x` })
      expect({ status: r.status, json: r.json }).toEqual({ status: 400, json: { error: 'bad_request', message: 'Invalid or missing field: identity_id.' } })
      const events = (await call(stack, 'GET', '/api/security/audit?action=sessions_revoke')).json.events
      expect(events).toEqual([])
    })

    test('an audit event whose target holds U+0000 is kept, with U+FFFD in its place', async () => {
      await stack.service.services.audit.record({ action: 'identity_search', actor: stack.admin.id, target: 'who\u0000ever' })
      const events = (await call(stack, 'GET', '/api/security/audit?action=identity_search')).json.events
      expect(events.map((e: { target: string }) => e.target)).toEqual(['who\uFFFDever'])
    })
  })
}

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`a revocation and its audit event are committed together on ${engine}`, () => {
    let stack: Stack
    let url: string | null = null
    let other: InstanceType<typeof SQL> | null = null
    beforeAll(async () => {
      url = engine === 'postgres' ? await pg.createDatabase() : null
      stack = await startStack({ env: url ? { DATABASE_URL: url } : {} })
      if (url) other = new SQL(url, { max: 1 })
    })
    afterAll(async () => {
      await other?.close()
      await stack?.stop()
    })

    // The audit insert of one action fails for real, inside the database: on PostgreSQL as a lost
    // database would (SQLSTATE class 53, answered 503), on SQLite as a refused statement (500).
    const refuseAudit = async (action: string) => {
      if (other) {
        await other.unsafe(`CREATE OR REPLACE FUNCTION refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN RAISE EXCEPTION 'audit refused' USING ERRCODE = '53300'; END $$`)
        await other.unsafe(`CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_events FOR EACH ROW WHEN (NEW.action = '${action}') EXECUTE FUNCTION refuse_audit()`)
      } else {
        stack.service.db!.run(`CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_events WHEN NEW.action = '${action}' BEGIN SELECT RAISE(ABORT, 'audit refused'); END`)
      }
    }
    const allowAudit = async () => {
      if (other) await other.unsafe('DROP TRIGGER refuse_audit ON audit_events')
      else stack.service.db!.run('DROP TRIGGER refuse_audit')
    }
    const rows = async (query: string): Promise<string[]> =>
      other
        ? (await other.unsafe(query)).map((row: { v: string }) => row.v)
        : stack.service.db!.query<{ v: string }, []>(query).all().map((row) => row.v)
    const failedStatus = engine === 'postgres' ? 503 : 500
    const session = async (cookie: string) => (await fetch(`${stack.service.url}/api/auth/session`, { headers: { cookie } })).status

    test('logout whose audit event cannot be written: an error, the cookie kept, no revocation, the session still valid; then 204 with both', async () => {
      const sid = `logout-audit-${Date.now()}`
      const cookie = `admin-session=${stack.service.sign({ sub: stack.viewer.id, role: 'viewer', sid })}`
      const logout = () => fetch(`${stack.service.url}/api/auth/logout`, { method: 'POST', headers: { cookie, origin: 'http://admin.test' } })
      const revoked = () => rows(`SELECT sid AS v FROM revoked_sessions WHERE sid = '${sid}'`)
      const events = () => rows(`SELECT actor AS v FROM audit_events WHERE action = 'logout'`)
      await refuseAudit('logout')
      try {
        const refused = await logout()
        expect({ status: refused.status, cookieCleared: refused.headers.get('set-cookie') !== null }).toEqual({ status: failedStatus, cookieCleared: false })
        expect({ revoked: await revoked(), events: await events(), session: await session(cookie) }).toEqual({ revoked: [], events: [], session: 200 })
      } finally {
        await allowAudit()
      }
      const done = await logout()
      expect(done.status).toBe(204)
      expect({ revoked: await revoked(), events: await events(), session: await session(cookie) }).toEqual({ revoked: [sid], events: [stack.viewer.id], session: 401 })
    }, 30_000)

    test('"end dashboard sessions" whose audit event cannot be written: an error, no revocation, the sessions still valid; then 204 with both', async () => {
      const victim = stack.freshCookie('viewer')
      const revoke = () => call(stack, 'POST', '/api/security/sessions/revoke', { identity_id: stack.viewer.id })
      const revoked = () => rows(`SELECT identity_id AS v FROM identity_revocations`)
      const events = () => rows(`SELECT target AS v FROM audit_events WHERE action = 'sessions_revoke'`)
      await refuseAudit('sessions_revoke')
      try {
        expect((await revoke()).status).toBe(failedStatus)
        expect({ revoked: await revoked(), events: await events(), session: await session(victim) }).toEqual({ revoked: [], events: [], session: 200 })
      } finally {
        await allowAudit()
      }
      expect((await revoke()).status).toBe(204)
      expect({ revoked: await revoked(), events: await events(), session: await session(victim) }).toEqual({
        revoked: [stack.viewer.id],
        events: [stack.viewer.id],
        session: 401,
      })
    }, 30_000)
  })
}

test('PostgreSQL down: a public proxy prefix is forwarded with the API key read last (or none); one never read, and the admin prefixes, answer 503 database_unavailable', async () => {
  const upstream = new RecordingUpstream()
  const stack = await startStack({
    env: { DATABASE_URL: await pg.createDatabase(), IDP_PUBLIC_URL: upstream.url, OAUTH_PUBLIC_URL: upstream.url, OAUTH_ADMIN_URL: upstream.url, IAM_IDP_PUBLIC_URL: upstream.url },
  })
  const key = `public-key-${randomKey(9)}`
  markSecret(key)
  const forwarded = async (path: string) => {
    const response = await fetch(stack.service.url + path)
    const text = await response.text()
    return { status: response.status, error: response.status >= 400 ? JSON.parse(text).error : undefined, authorization: response.status === 200 ? (upstream.last().headers.authorization ?? null) : undefined }
  }
  try {
    expect((await call(stack, 'POST', '/api/settings', { key: 'proxy.oauth.api_key', value: key, encrypted: true })).status).toBe(201)
    expect(await forwarded('/api/idp/self-service/login/browser')).toEqual({ status: 200, error: undefined, authorization: null })
    expect(await forwarded('/api/oauth/.well-known/openid-configuration')).toEqual({ status: 200, error: undefined, authorization: `Bearer ${key}` })
    // The write's own notification, and the polls after it, have come and been read (each makes the
    // key be read again): the database is stopped after that, not while such a read is under way.
    await stack.service.storage.changes.nextPoll()
    await stack.service.storage.changes.nextPoll()
    expect(await forwarded('/api/oauth/.well-known/openid-configuration')).toEqual({ status: 200, error: undefined, authorization: `Bearer ${key}` })
    await pg.stop()
    try {
      await Bun.sleep(1500) // past the window in which the settings cache is trusted
      expect(await forwarded('/api/idp/self-service/login/browser')).toEqual({ status: 200, error: undefined, authorization: null })
      expect(await forwarded('/api/oauth/.well-known/openid-configuration')).toEqual({ status: 200, error: undefined, authorization: `Bearer ${key}` })
      // Never looked up since the start: what its key is cannot be known.
      expect(await forwarded('/api/iam-idp/self-service/login/browser')).toEqual({ status: 503, error: 'database_unavailable', authorization: undefined })
      const admin = await fetch(`${stack.service.url}/api/oauth-admin/admin/clients`, { headers: { cookie: stack.cookie.admin } })
      expect({ status: admin.status, error: ((await admin.json()) as { error: string }).error }).toEqual({ status: 503, error: 'database_unavailable' })
    } finally {
      await pg.start()
    }
    // A key deleted (say because it leaked) is forgotten with it and read again: while the database
    // is away again, the prefix goes on without the deleted key, and the other prefixes keep theirs.
    expect(await within(10_000, async () => (await call(stack, 'DELETE', '/api/settings/proxy.oauth.api_key')).status === 204, 200)).not.toBeNull()
    // No request between: the key is read again on its own (one read, well within this wait, even
    // on a loaded machine).
    await Bun.sleep(1500)
    await pg.stop()
    try {
      await Bun.sleep(1500)
      expect(await forwarded('/api/oauth/.well-known/openid-configuration')).toEqual({ status: 200, error: undefined, authorization: null })
      expect(await forwarded('/api/idp/self-service/login/browser')).toEqual({ status: 200, error: undefined, authorization: null })
    } finally {
      await pg.start()
    }
  } finally {
    await stack.stop()
    await upstream.stop()
  }
}, 30_000)

test('a database that takes no writes (a standby after a failover, default_transaction_read_only): health 503; a sign-out, a setting, a revocation answer 503 database_unavailable, nothing done, the session kept; its code in the log; all well once it takes writes again', async () => {
  const url = await pg.createDatabase()
  const stack = await startStack({ env: { DATABASE_URL: url } })
  // Opened before the change: this session stays read-write, to undo it.
  const owner = new SQL(url, { max: 1 })
  const database = new URL(url).pathname.slice(1)
  const endConnections = () => owner`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${database} AND pid <> pg_backend_pid()`
  try {
    expect((await fetch(`${stack.service.url}/api/health`)).status).toBe(200)
    await owner.unsafe(`ALTER DATABASE "${database}" SET default_transaction_read_only = on`)
    await endConnections()
    expect(await within(5000, async () => (await fetch(`${stack.service.url}/api/health`)).status === 503, 100)).not.toBeNull()
    const setting = await call(stack, 'POST', '/api/settings', { key: 'site.title', value: 'x' })
    expect([setting.status, setting.json.error]).toEqual([503, 'database_unavailable'])
    const revoke = await call(stack, 'POST', '/api/security/sessions/revoke', { identity_id: stack.viewer.id })
    expect([revoke.status, revoke.json.error]).toEqual([503, 'database_unavailable'])
    const logout = await fetch(`${stack.service.url}/api/auth/logout`, { method: 'POST', headers: { cookie: stack.cookie.admin, origin: 'http://admin.test' } })
    expect([logout.status, ((await logout.json()) as { error: string }).error, logout.headers.get('set-cookie')]).toEqual([503, 'database_unavailable', null])
    expect((await call(stack, 'GET', '/api/auth/session')).status).toBe(200)
    expect(stack.service.logLines.filter((line) => line.includes('"unhandled_error"'))).toEqual([])
    // Why, said once (not once per request): the database's own code for "read-only".
    const said = stack.service.logLines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.event === 'database_unavailable')
    expect(said.map((entry) => entry.reason)).toEqual(['25006'])

    await owner.unsafe(`ALTER DATABASE "${database}" RESET default_transaction_read_only`)
    await endConnections()
    expect(await within(5000, async () => (await fetch(`${stack.service.url}/api/health`)).status === 200, 100)).not.toBeNull()
    expect((await call(stack, 'POST', '/api/settings', { key: 'site.title', value: 'x' })).status).toBe(201)
    // Nothing of what was refused was done.
    const [revoked] = await owner`SELECT (SELECT count(*) FROM revoked_sessions)::int AS sessions, (SELECT count(*) FROM identity_revocations)::int AS identities`
    expect(revoked).toEqual({ sessions: 0, identities: 0 })
  } finally {
    await owner.close()
    await stack.stop()
  }
}, 30_000)
