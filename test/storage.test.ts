// The storage interface's behaviour, one set of tests run against both engines: SQLite (a real
// file) and PostgreSQL (a real throw-away cluster). Then what only one engine has: migrations
// under the advisory lock, a schema newer than the executable, an outage and the recovery.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { SQL } from 'bun'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startPostgres } from './support/postgres.ts'
import { usePostgres } from './support/use-postgres.ts'
import { MIGRATION_LOCK_KEY } from '../src/db/postgres-migrations.ts'
import { openStorage } from '../src/db/open.ts'
import { openDatabase } from '../src/db/database.ts'
import { SqliteStorage } from '../src/db/sqlite-storage.ts'
import { PostgresStorage } from '../src/db/postgres-storage.ts'
import { DUMP_PAGE_SIZE, StorageUnavailableError, type AuditRecord, type Change, type Storage } from '../src/db/storage.ts'
import { wholeDump } from './support/dump.ts'
import { PRUNE_MARGIN_SECONDS, RevocationStore } from '../src/session/revocations.ts'
import { within } from './support/eventually.ts'
import { freePort } from './support/ports.ts'
import { TestClock } from './support/service.ts'
import { MAX_SESSION_SECONDS } from '../src/session/cookie.ts'
import { createLogger } from '../src/log.ts'
import { startFreezableProxy, type FreezableProxy } from './support/freezable-proxy.ts'

const dir = mkdtempSync(join(tmpdir(), 'admin-dashboard-storage-'))
const opened: Storage[] = []
let counter = 0

// Registered before usePostgres(): afterAll hooks run in that order, and the storages are closed
// while their database is still there.
afterAll(async () => {
  for (const storage of opened) await storage.close()
  rmSync(dir, { recursive: true, force: true })
})

const pg = usePostgres()

interface Engine {
  name: 'sqlite' | 'postgres'
  /** A new, empty database; `open` may be called more than once (two processes on it). */
  fresh(): Promise<{ open(): Promise<Storage>; location: string }>
}

async function track(result: Promise<{ ok: true; storage: Storage } | { ok: false; error: string }>): Promise<Storage> {
  const outcome = await result
  if (!outcome.ok) throw new Error(outcome.error)
  opened.push(outcome.storage)
  return outcome.storage
}

const engines: Engine[] = [
  {
    name: 'sqlite',
    async fresh() {
      const path = join(dir, `db-${++counter}`, 'admin-dashboard.db')
      return { location: path, open: () => track(openStorage({ databaseUrl: null, databasePath: path })) }
    },
  },
  {
    name: 'postgres',
    async fresh() {
      const url = await pg.createDatabase()
      return { location: url, open: () => track(openStorage({ databaseUrl: url, databasePath: 'unused' })) }
    },
  },
]

/**
 * Forgets what is past the service's margins now (the real clock: PostgreSQL's own is used there).
 * These tests' old revocations are from 1970, their kept ones from 2128.
 */
const MARGINS = { sessionsSeconds: PRUNE_MARGIN_SECONDS, identitiesSeconds: MAX_SESSION_SECONDS + PRUNE_MARGIN_SECONDS }
const forgetNow = (storage: Storage) => storage.revocations.forgetExpired(MARGINS, Math.floor(Date.now() / 1000))

const at = (ms: number) => new Date(Date.UTC(2026, 0, 2, 3, 4, 5) + ms).toISOString()
const event = (action: string, overrides: Partial<AuditRecord> = {}): AuditRecord => ({
  at: at(0),
  action,
  actor: 'actor-1',
  target: null,
  detail: null,
  request_id: null,
  ...overrides,
})

for (const engine of engines) {
  describe(`${engine.name} storage`, () => {
    /** A test that moves the process's clock to make pruning happen: only SQLite prunes by it. */
    const onProcessClock = (name: string, body: () => Promise<void>) => {
      if (engine.name === 'sqlite') test(name, body)
    }
    let storage: Storage
    beforeAll(async () => {
      storage = await (await engine.fresh()).open()
    })

    test('settings: a missing key is null; create, then update, each with its audit event in the same unit', async () => {
      expect(await storage.settings.get('site.title')).toBeNull()
      const first = await storage.settings.upsert(
        { key: 'site.title', value: 'One', encrypted: false, category: 'site', updated_at: at(1) },
        (outcome) => event('settings_write', { target: 'site.title', detail: JSON.stringify({ outcome }) }),
      )
      expect(first).toBe('created')
      const second = await storage.settings.upsert(
        { key: 'site.title', value: 'v1.two', encrypted: true, category: null, updated_at: at(2) },
        (outcome) => event('settings_write', { target: 'site.title', detail: JSON.stringify({ outcome }) }),
      )
      expect(second).toBe('updated')
      expect(await storage.settings.get('site.title')).toEqual({ key: 'site.title', value: 'v1.two', encrypted: true, category: null, updated_at: at(2) })
      const events = await storage.audit.list({ limit: 10, action: 'settings_write' })
      expect(events.map((e) => e.detail)).toEqual(['{"outcome":"updated"}', '{"outcome":"created"}'])
    })

    test('settings: a create-only write leaves an existing key as it is, an update-only one creates nothing; neither is audited then', async () => {
      const write = (key: string, value: string, condition: 'absent' | 'present') =>
        storage.settings.upsert({ key, value, encrypted: false, category: null, updated_at: at(7) }, (outcome) =>
          event('settings_write', { target: key, detail: JSON.stringify({ outcome, condition }) }),
        condition)
      const audited = async () => (await storage.audit.list({ limit: 100, action: 'settings_write' })).filter((e) => e.target?.startsWith('conditional.'))
      expect(await write('conditional.a', 'first', 'absent')).toBe('created')
      expect(await write('conditional.a', 'second', 'absent')).toBe('refused')
      expect((await storage.settings.get('conditional.a'))?.value).toBe('first')
      expect(await write('conditional.a', 'third', 'present')).toBe('updated')
      expect((await storage.settings.get('conditional.a'))?.value).toBe('third')
      expect(await write('conditional.b', 'never', 'present')).toBe('refused')
      expect(await storage.settings.get('conditional.b')).toBeNull()
      expect((await audited()).map((e) => [e.target, e.detail])).toEqual([
        ['conditional.a', '{"outcome":"updated","condition":"present"}'],
        ['conditional.a', '{"outcome":"created","condition":"absent"}'],
      ])
    })

    test('settings: of two processes creating one key at once, exactly one creates it', async () => {
      const database = await engine.fresh()
      const [one, two] = [await database.open(), await database.open()]
      for (let round = 0; round < 10; round++) {
        const key = `race.${round}`
        const create = (storage: Storage, value: string) =>
          storage.settings.upsert({ key, value, encrypted: false, category: null, updated_at: at(8) }, () => event('settings_write', { target: key }), 'absent')
        const outcomes = await Promise.all([create(one, 'one'), create(two, 'two')])
        expect([...outcomes].sort()).toEqual(['created', 'refused'])
        const stored = await one.settings.get(key)
        expect(stored?.value).toBe(outcomes[0] === 'created' ? 'one' : 'two')
        expect((await one.audit.list({ limit: 100, action: 'settings_write' })).filter((e) => e.target === key).length).toBe(1)
      }
    })

    test('settings: listed in byte order of the key, values and flags as stored', async () => {
      for (const key of ['b.key', 'B.key', 'a.key', 'a-key', 'a.key.z', '_x', 'Z']) {
        await storage.settings.upsert({ key, value: `value of ${key}`, encrypted: false, category: 'order', updated_at: at(3) }, () =>
          event('settings_write', { target: key }),
        )
      }
      const keys = (await storage.settings.list()).filter((s) => s.category === 'order').map((s) => s.key)
      expect(keys).toEqual(['B.key', 'Z', '_x', 'a-key', 'a.key', 'a.key.z', 'b.key'])
    })

    test('settings: delete answers whether the key existed and audits only a real deletion', async () => {
      await storage.settings.upsert({ key: 'to.delete', value: 'x', encrypted: false, category: null, updated_at: at(4) }, () => event('settings_write'))
      expect(await storage.settings.delete('to.delete', event('settings_delete', { target: 'to.delete' }))).toBe(true)
      expect(await storage.settings.delete('to.delete', event('settings_delete', { target: 'to.delete' }))).toBe(false)
      expect(await storage.settings.get('to.delete')).toBeNull()
      expect((await storage.audit.list({ limit: 10, action: 'settings_delete' })).length).toBe(1)
    })

    test('settings: rewriting the encrypted values is all or nothing, keeps updated_at, and is audited once', async () => {
      const fresh = await (await engine.fresh()).open()
      for (const [key, encrypted] of [['enc.a', true], ['enc.b', true], ['plain.c', false]] as const) {
        await fresh.settings.upsert({ key, value: `old-${key}`, encrypted, category: null, updated_at: at(5) }, () => event('settings_write'))
      }
      const refused = await fresh.settings.rewriteEncrypted((s) => (s.key === 'enc.b' ? null : `new-${s.key}`), (count) => event('settings_reencrypt', { detail: String(count) }))
      expect(refused).toEqual({ ok: false, keys: ['enc.b'] })
      expect((await fresh.settings.get('enc.a'))!.value).toBe('old-enc.a')
      const done = await fresh.settings.rewriteEncrypted((s) => `new-${s.key}`, (count) => event('settings_reencrypt', { detail: String(count) }))
      expect(done).toEqual({ ok: true, count: 2 })
      const all = await fresh.settings.list()
      expect(all.map((s) => [s.key, s.value, s.updated_at])).toEqual([
        ['enc.a', 'new-enc.a', at(5)],
        ['enc.b', 'new-enc.b', at(5)],
        ['plain.c', 'old-plain.c', at(5)],
      ])
      const audited = await fresh.audit.list({ limit: 10, action: 'settings_reencrypt' })
      expect(audited.map((e) => e.detail)).toEqual(['2'])
    })

    test('audit: newest first, paged by id, filtered by action and actor, every field as written', async () => {
      const fresh = await (await engine.fresh()).open()
      for (let i = 0; i < 7; i++) {
        await fresh.audit.append(event(i % 2 ? 'login' : 'logout', { at: at(i * 1000 + 7), actor: i < 4 ? 'alice' : 'bob', target: `t${i}`, detail: JSON.stringify({ i }), request_id: i === 0 ? 'request-0' : null }))
      }
      const all = await fresh.audit.list({ limit: 100 })
      expect(all.map((e) => e.target)).toEqual(['t6', 't5', 't4', 't3', 't2', 't1', 't0'])
      expect(all[6]).toEqual({ id: all[6]!.id, at: at(7), action: 'logout', actor: 'alice', target: 't0', detail: '{"i":0}', request_id: 'request-0' })
      expect(all[5]!.request_id).toBeNull()
      expect(typeof all[0]!.id).toBe('number')
      const page = await fresh.audit.list({ limit: 2, before: all[1]!.id })
      expect(page.map((e) => e.target)).toEqual(['t4', 't3'])
      expect((await fresh.audit.list({ limit: 100, action: 'login' })).map((e) => e.target)).toEqual(['t5', 't3', 't1'])
      expect((await fresh.audit.list({ limit: 100, actor: 'bob', action: 'logout' })).map((e) => e.target)).toEqual(['t6', 't4'])
      expect(await fresh.audit.list({ limit: 100, actor: 'nobody' })).toEqual([])
    })

    test('layouts: none, then stored as given (key order kept), then replaced', async () => {
      expect(await storage.layouts.get('identity-1')).toBeNull()
      await storage.layouts.put('identity-1', '{"z":1,"a":[1,2]}', at(8))
      expect(await storage.layouts.get('identity-1')).toBe('{"z":1,"a":[1,2]}')
      await storage.layouts.put('identity-1', '{"b":true}', at(9))
      expect(await storage.layouts.get('identity-1')).toBe('{"b":true}')
      expect(await storage.layouts.get('identity-2')).toBeNull()
    })

    test('revocations: sessions with their expiry, identities to the millisecond; expired sessions are forgotten', async () => {
      const fresh = await (await engine.fresh()).open()
      await fresh.revocations.revokeSession('sid-old', 1000)
      await fresh.revocations.revokeSession('sid-new', 5_000_000_000)
      await fresh.revocations.revokeSession('sid-new', 5_000_000_001)
      await fresh.revocations.revokeIdentity('identity-x', { seconds: 1_800_000_000, ms: 1_800_000_000_123 })
      let snapshot = await fresh.revocations.load()
      expect([...snapshot.sessions.entries()].sort()).toEqual([
        ['sid-new', 5_000_000_001],
        ['sid-old', 1000],
      ])
      expect(snapshot.identities.get('identity-x')).toEqual({ seconds: 1_800_000_000, ms: 1_800_000_000_123 })
      await forgetNow(fresh)
      snapshot = await fresh.revocations.load()
      expect([...snapshot.sessions.keys()]).toEqual(['sid-new'])
    })

    test('revocations: an older revocation written after a newer one never weakens it (identities and sessions)', async () => {
      const database = await engine.fresh()
      const storage = await database.open()
      const newer = 1_800_000_005_500
      const older = 1_800_000_001_200
      await storage.revocations.revokeIdentity('identity-r', { seconds: Math.floor(newer / 1000), ms: newer })
      await storage.revocations.revokeIdentity('identity-r', { seconds: Math.floor(older / 1000), ms: older })
      expect((await storage.revocations.load()).identities.get('identity-r')).toEqual({ seconds: Math.floor(newer / 1000), ms: newer })
      // A later time still moves it forward.
      await storage.revocations.revokeIdentity('identity-r', { seconds: Math.floor((newer + 1) / 1000), ms: newer + 1 })
      expect((await storage.revocations.load()).identities.get('identity-r')).toEqual({ seconds: Math.floor(newer / 1000), ms: newer + 1 })
      // A second revocation of a session with an earlier expiry does not make it forgotten sooner.
      await storage.revocations.revokeSession('sid-twice', 5_000_000_000)
      await storage.revocations.revokeSession('sid-twice', 1000)
      await forgetNow(storage)
      expect((await storage.revocations.load()).sessions.get('sid-twice')).toBe(5_000_000_000)
    })

    test('revocations: several processes forgetting expired sessions at once all succeed, keep the rest, and lose no revocation written meanwhile', async () => {
      const database = await engine.fresh()
      const processes = await Promise.all(Array.from({ length: 4 }, () => database.open()))
      const writer = processes[0]!
      for (let i = 0; i < 60; i++) await writer.revocations.revokeSession(`sid-${String(i).padStart(2, '0')}`, i < 40 ? 1000 + i : 5_000_000_000)
      await Promise.all([
        ...processes.flatMap((process) => [forgetNow(process), forgetNow(process)]),
        // An expired one revoked again, for longer, while they prune.
        writer.revocations.revokeSession('sid-00', 5_000_000_001),
      ])
      const left = (await writer.revocations.load()).sessions
      expect([...left.keys()].sort()).toEqual(['sid-00', ...Array.from({ length: 20 }, (_, i) => `sid-${i + 40}`)])
      expect(left.get('sid-00')).toBe(5_000_000_001)
    })

    test('revocations: identity revocations made by the cutoff are forgotten (one from before millisecond times too), later ones kept, one moved forward meanwhile kept, by several processes at once', async () => {
      const database = await engine.fresh()
      const processes = await Promise.all(Array.from({ length: 4 }, () => database.open()))
      const writer = processes[0]!
      const legacy = new Map([['identity-legacy', { seconds: 1000, ms: null }]])
      await writer.restore({ settings: [], audit: (async function* () {})(), layouts: [], revocations: { sessions: new Map(), identities: legacy } })
      const id = (i: number) => `identity-${String(i).padStart(2, '0')}`
      for (let i = 0; i < 40; i++) {
        const seconds = i < 30 ? 1000 + i : 5_000_000_000
        await writer.revocations.revokeIdentity(id(i), { seconds, ms: seconds * 1000 + 7 })
      }
      await Promise.all([
        ...processes.flatMap((process) => [forgetNow(process), forgetNow(process)]),
        // An old one revoked again, now, while they prune.
        writer.revocations.revokeIdentity(id(0), { seconds: 5_000_000_001, ms: 5_000_000_001_000 }),
      ])
      const left = (await writer.revocations.load()).identities
      expect([...left.keys()].sort()).toEqual([id(0), ...Array.from({ length: 10 }, (_, i) => id(i + 30))])
      expect(left.get(id(0))).toEqual({ seconds: 5_000_000_001, ms: 5_000_000_001_000 })
      expect(left.get(id(30))).toEqual({ seconds: 5_000_000_000, ms: 5_000_000_000_007 })
      // Connections are for the tests after this one (the server's are limited).
      await Promise.all(processes.map((process) => process.close()))
    })

    test('revocations: a session issued between a newer revocation (one process) and an older one committed later (another) stays refused on both', async () => {
      const database = await engine.fresh()
      const [first, second] = [await database.open(), await database.open()]
      const now = Date.now()
      const clock = { now: () => now }
      const storeA = new RevocationStore(first, { clock })
      const storeB = new RevocationStore(second, { clock })
      await Promise.all([storeA.ready, storeB.ready, first.changes.ready(), second.changes.ready()])
      const olderMs = now - 2000
      const between = { sid: 'sid-between', sub: 'identity-between', iat: Math.floor((now - 1000) / 1000), iatMs: now - 1000 }
      await storeB.revokeIdentity('identity-between', now)
      expect(storeB.revocationOf(between)).toBe('revoked')
      expect(await within(1000, () => storeA.revocationOf(between) === 'revoked')).not.toBeNull()
      // A's own revocation, timed before the session was issued, commits last.
      await storeA.revokeIdentity('identity-between', olderMs)
      expect(storeA.revocationOf(between)).toBe('revoked')
      expect((await first.revocations.load()).identities.get('identity-between')!.ms).toBe(now)
      await Bun.sleep(600) // both have reloaded since
      expect(storeA.revocationOf(between)).toBe('revoked')
      expect(storeB.revocationOf(between)).toBe('revoked')
      const storeC = new RevocationStore(await database.open(), { clock })
      await storeC.ready
      expect(storeC.revocationOf(between)).toBe('revoked')
    })

    test('revocations: a first load that fails is tried again until it succeeds; until then the answer is "unknown"', async () => {
      const storage = await (await engine.fresh()).open()
      const expiresAt = Math.floor(Date.now() / 1000) + 3600
      await storage.revocations.revokeSession('sid-retry', expiresAt)
      // The storage as it is, but its first three loads fail (a disk error, a dropped connection);
      // on PostgreSQL the change feed's first reload is one of them.
      let failures = 3
      const failing: Storage = Object.create(storage)
      Object.defineProperty(failing, 'revocations', {
        value: { ...storage.revocations, load: () => (failures-- > 0 ? Promise.reject(new Error('load failed')) : storage.revocations.load()) },
      })
      const lines: string[] = []
      const store = new RevocationStore(failing, { clock: new TestClock(), log: createLogger('debug', (line) => lines.push(line)) })
      try {
        await store.ready
        const session = { sid: 'sid-retry', sub: 'identity-retry', iat: expiresAt - 600 }
        expect(store.revocationOf(session)).toBe('unknown')
        expect(await within(6000, () => store.revocationOf(session) === 'revoked')).not.toBeNull()
        expect(failures).toBeLessThan(0)
        // One error for the outage, one line when it is over; not one per try.
        expect(lines.filter((line) => line.includes('"revocations_load_failed"'))).toHaveLength(1)
        expect(lines.filter((line) => line.includes('"revocations_loaded"'))).toHaveLength(1)
      } finally {
        store.close()
      }
    })

    // Moves the process's clock, which only SQLite prunes by; PostgreSQL's own clock: see below.
    onProcessClock('revocations: a revoked session is kept for PRUNE_MARGIN_SECONDS past its expiry, at start and while running, in the database and in memory', async () => {
      const database = await engine.fresh()
      const storage = await database.open()
      const base = 1_800_000_000
      const expiresAt = base + 300
      await storage.revocations.revokeSession('sid-skew', expiresAt)
      const session = { sid: 'sid-skew', sub: 'identity-skew', iat: base }
      const stores: RevocationStore[] = []
      const storeAt = async (clock: TestClock) => {
        const store = new RevocationStore(storage, { clock, pruneEveryMs: 10 })
        stores.push(store)
        await Promise.all([store.ready, storage.changes.ready()])
        return store
      }
      const stored = async () => (await storage.revocations.load()).sessions.has('sid-skew')
      try {
        // A process starting with its clock past the expiry, but within the margin, keeps the row.
        await storeAt(new TestClock((expiresAt + PRUNE_MARGIN_SECONDS - 1) * 1000))
        expect(await stored()).toBe(true)

        // One running since before the expiry keeps it in memory and in the database past the expiry…
        const clock = new TestClock(base * 1000)
        const running = await storeAt(clock)
        expect(running.revocationOf(session)).toBe('revoked')
        clock.advance(300 + PRUNE_MARGIN_SECONDS - 1)
        await Bun.sleep(200) // many turns of the pruning
        expect(running.revocationOf(session)).toBe('revoked')
        expect(await stored()).toBe(true)
        // …and forgets it once the margin has passed too.
        clock.advance(1)
        expect(await within(2000, async () => running.revocationOf(session) === 'not_revoked' && !(await stored()))).not.toBeNull()
        running.close()

        // A process starting past the margin forgets it at once.
        await storage.revocations.revokeSession('sid-skew', expiresAt)
        await storeAt(new TestClock((expiresAt + PRUNE_MARGIN_SECONDS) * 1000))
        expect(await stored()).toBe(false)
      } finally {
        for (const store of stores) store.close()
        await storage.close()
      }
    })

    // Moves the process's clock, which only SQLite prunes by; PostgreSQL's own clock: see below.
    onProcessClock('revocations: an identity revocation refuses a session issued before it until that session expires; it is forgotten MAX_SESSION_SECONDS + PRUNE_MARGIN_SECONDS after it, at start and while running', async () => {
      const database = await engine.fresh()
      const storage = await database.open()
      const revokedMs = 1_800_000_000_500
      const revokedAt = Math.floor(revokedMs / 1000)
      const forgetAt = revokedAt + MAX_SESSION_SECONDS + PRUNE_MARGIN_SECONDS
      // The longest session it refuses: issued a moment before, expiring MAX_SESSION_SECONDS later.
      const before = { sid: 'sid-before', sub: 'identity-gone', iat: revokedAt, iatMs: revokedMs - 1 }
      const after = { sid: 'sid-after', sub: 'identity-gone', iat: revokedAt, iatMs: revokedMs + 1 }
      const stores: RevocationStore[] = []
      const storeAt = async (clock: TestClock) => {
        const store = new RevocationStore(storage, { clock, pruneEveryMs: 10 })
        stores.push(store)
        await Promise.all([store.ready, storage.changes.ready()])
        return store
      }
      const stored = async () => (await storage.revocations.load()).identities.has('identity-gone')
      try {
        const clock = new TestClock(revokedMs)
        const running = await storeAt(clock)
        await running.revokeIdentity('identity-gone', revokedMs)
        expect([running.revocationOf(before), running.revocationOf(after)]).toEqual(['revoked', 'not_revoked'])

        // Until the session's own expiry, and for the margin after it, nothing is forgotten.
        clock.advance(MAX_SESSION_SECONDS - 1)
        await Bun.sleep(200) // many turns of the pruning
        expect(running.revocationOf(before)).toBe('revoked')
        clock.advance(PRUNE_MARGIN_SECONDS)
        await Bun.sleep(200)
        expect(running.revocationOf(before)).toBe('revoked')
        expect(await stored()).toBe(true)
        // A process starting now keeps it too.
        await storeAt(new TestClock((forgetAt - 1) * 1000))
        expect(await stored()).toBe(true)

        clock.advance(1)
        expect(await within(2000, async () => running.revocationOf(before) === 'not_revoked' && !(await stored()))).not.toBeNull()
        running.close()

        // A process starting past it forgets it at once.
        await storage.revocations.revokeIdentity('identity-gone', { seconds: revokedAt, ms: revokedMs })
        await storeAt(new TestClock(forgetAt * 1000))
        expect(await stored()).toBe(false)
      } finally {
        for (const store of stores) store.close()
        await storage.close()
      }
    })

    test('changes made through another connection reach a subscriber within 1 s (settings and revocations)', async () => {
      const database = await engine.fresh()
      const writer = await database.open()
      const reader = await database.open()
      const seen: Change[] = []
      const unsubscribe = reader.changes.subscribe((change) => void seen.push(change))
      await reader.changes.ready()
      seen.length = 0
      await writer.settings.upsert({ key: 'proxy.idp-admin.api_key', value: 'v1.x', encrypted: true, category: null, updated_at: at(10) }, () =>
        event('settings_write'),
      )
      expect(await within(1000, () => seen.some((c) => c.topic === 'settings' && (c.key === null || c.key === 'proxy.idp-admin.api_key')))).not.toBeNull()
      await writer.revocations.revokeSession('sid-shared', 5_000_000_000)
      expect(await within(1000, () => seen.some((c) => c.topic === 'revocations'))).not.toBeNull()
      expect((await reader.revocations.load()).sessions.has('sid-shared')).toBe(true)
      // Whatever the engine, it claims to be fresh up to a moment within the last second.
      expect(performance.now() - reader.changes.freshAt()).toBeLessThan(1000)
      // And its next check brings news from after the question (SQLite is never behind).
      const asked = performance.now()
      await reader.changes.nextPoll()
      expect(reader.changes.freshAt()).toBeGreaterThanOrEqual(asked)
      unsubscribe()
      // Closed: nothing is kept waiting.
      await reader.close()
      expect(await Promise.race([reader.changes.nextPoll().then(() => 'settled'), Bun.sleep(1000).then(() => 'waiting')])).toBe('settled')
    })

    test('an audit event begun, then completed: one row, its detail replaced, its time and id kept', async () => {
      const begun = await storage.audit.begin(event('proxy_write', { at: at(70), target: '/admin/clients/x', detail: '{"outcome":"pending"}' }))
      const [before] = await storage.audit.list({ limit: 1 })
      expect([before!.id, before!.detail]).toEqual([begun, '{"outcome":"pending"}'])
      await storage.audit.complete(begun, '{"outcome":"ok","status":204}')
      const [after] = await storage.audit.list({ limit: 1 })
      expect([after!.id, after!.at, after!.target, after!.detail]).toEqual([begun, before!.at, '/admin/clients/x', '{"outcome":"ok","status":204}'])
    })

    test('dump and restore: everything moves, the audit trail over several pages; a database with rows refuses', async () => {
      const source = await (await engine.fresh()).open()
      await source.settings.upsert({ key: 'k', value: 'v', encrypted: false, category: 'c', updated_at: at(11) }, () => event('settings_write'))
      await source.audit.append(event('login', { at: at(12), target: 'x "quoted" \\ back\\slash é 😀 \u2028', detail: '{"role":"admin"}' }))
      for (let i = 0; i < DUMP_PAGE_SIZE * 2 + 5; i++) await source.audit.append(event('identity_search', { at: at(i % 50), target: `user${i}@example.test` }))
      await source.layouts.put('identity-1', '{"a":1}', at(13))
      await source.revocations.revokeSession('sid', 5_000_000_000)
      await source.revocations.revokeIdentity('identity-2', { seconds: 1_800_000_000, ms: 1_800_000_000_456 })
      const expected = await wholeDump(source)
      // The settings write's event, the login, the searches.
      expect(expected.audit.length).toBe(DUMP_PAGE_SIZE * 2 + 7)
      expect(new Set(expected.audit.map((e) => e.id)).size).toBe(expected.audit.length)
      const target = await (await engine.fresh()).open()
      expect(await target.restore(await source.dump())).toEqual({ ok: true })
      expect(await wholeDump(target)).toEqual(expected)
      expect(await target.restore(await source.dump())).toEqual({ ok: false, reason: 'not_empty' })
      expect(await wholeDump(target)).toEqual(expected)
      // New events continue after the copied ones.
      await target.audit.append(event('logout'))
      const [newest] = await target.audit.list({ limit: 1 })
      expect(newest!.id).toBeGreaterThan(Math.max(...expected.audit.map((e) => e.id)))
    })

    test('the signing key fingerprint: none at first; each exchange records its own and returns the one before', async () => {
      const fresh = await (await engine.fresh()).open()
      try {
        expect(await fresh.signingKey.get()).toBeNull()
        expect(await fresh.signingKey.exchange('first-fingerprint', at(0))).toBeNull()
        expect(await fresh.signingKey.exchange('first-fingerprint', at(1))).toBe('first-fingerprint')
        expect(await fresh.signingKey.exchange('other-fingerprint', at(2))).toBe('first-fingerprint')
        expect(await fresh.signingKey.get()).toBe('other-fingerprint')
      } finally {
        await fresh.close()
      }
    })

    test('opening again applies no migration twice', async () => {
      const database = await engine.fresh()
      await database.open()
      await database.open()
      const versions =
        engine.name === 'sqlite'
          ? new Database(database.location).query<{ version: number }, []>('SELECT version FROM schema_migrations ORDER BY version').all()
          : await withSql(database.location, (sql) => sql`SELECT version FROM schema_migrations ORDER BY version`)
      expect(versions.map((row: { version: number }) => Number(row.version))).toEqual([1, 2, 3, 4, 5, 6])
    })

    test('a schema newer than this executable is refused with a message that says so', async () => {
      const database = await engine.fresh()
      await (await database.open()).close()
      if (engine.name === 'sqlite') {
        const db = new Database(database.location)
        db.run("INSERT INTO schema_migrations (version, applied_at) VALUES (99, '2030-01-01T00:00:00.000Z')")
        db.close()
      } else {
        await withSql(database.location, (sql) => sql`INSERT INTO schema_migrations (version, applied_at) VALUES (99, now())`)
      }
      const result = await openStorage(engine.name === 'sqlite' ? { databaseUrl: null, databasePath: database.location } : { databaseUrl: database.location, databasePath: 'unused' })
      expect(result.ok).toBe(false)
      if (!result.ok) {
        expect(result.error).toContain('newer than this executable')
        expect(result.error).toContain('99')
        expect(result.error).not.toContain(pg.password)
      }
    })
  })
}

/** `promise`, its name added to `settled` when it settles (with " failed" when it rejects). */
function tracked<T>(settled: string[], name: string, promise: Promise<T>): Promise<T> {
  promise.then(
    () => settled.push(name),
    () => settled.push(`${name} failed`),
  )
  return promise
}

describe('sqlite only: a lock held by another connection', () => {
  const sqlite = engines.find((engine) => engine.name === 'sqlite')!

  test('every write waits for the write lock without holding up the process (reads go on), then is made once, in the order asked, with its audit event', async () => {
    const database = await sqlite.fresh()
    const storage = await database.open()
    const seed = (key: string, value: string, encrypted: boolean) =>
      storage.settings.upsert({ key, value, encrypted, category: null, updated_at: at(0) }, () => event('seed'))
    await seed('gone.key', 'there', false)
    await seed('secret.key', 'v1.old', true)
    await storage.revocations.revokeSession('sid-expired', 1000)
    const write = (value: string) =>
      storage.settings.upsert({ key: 'order.key', value, encrypted: false, category: null, updated_at: at(1) }, (outcome) =>
        event('settings_write', { target: 'order.key', detail: JSON.stringify({ outcome, value }) }),
      )

    const holder = new Database(database.location)
    holder.run('BEGIN IMMEDIATE')
    const settled: string[] = []
    let writes: Promise<unknown>[] = []
    try {
      writes = [
        tracked(settled, 'upsert first', write('first')),
        tracked(settled, 'upsert second', write('second')),
        tracked(settled, 'delete', storage.settings.delete('gone.key', event('settings_delete', { target: 'gone.key' }))),
        tracked(
          settled,
          'rewriteEncrypted',
          storage.settings.rewriteEncrypted(
            () => 'v1.new',
            (count) => event('settings_reencrypt', { detail: JSON.stringify({ count }) }),
          ),
        ),
        tracked(settled, 'append', storage.audit.append(event('login'))),
        tracked(settled, 'layouts.put', storage.layouts.put('identity-1', '{"a":1}', at(2))),
        tracked(settled, 'revokeSession', storage.revocations.revokeSession('sid-1', 5_000_000_000, event('logout', { target: 'sid-1' }))),
        tracked(
          settled,
          'revokeIdentity',
          storage.revocations.revokeIdentity('identity-2', { seconds: 1_800_000_000, ms: 1_800_000_000_456 }, event('sessions_revoke', { target: 'identity-2' })),
        ),
        tracked(settled, 'forgetExpired', forgetNow(storage)),
      ]
      // A timer set after them fires while every one of them still waits: none held the process up.
      await Bun.sleep(50)
      expect(settled).toEqual([])
      // Reads are not kept out by a writer (WAL): they see what was committed before.
      expect((await storage.settings.get('gone.key'))?.value).toBe('there')
      expect(settled).toEqual([])
    } finally {
      holder.run('ROLLBACK')
      holder.close()
    }
    const [first, second, deleted, rewritten] = await Promise.all(writes)
    expect([first, second, deleted, rewritten]).toEqual(['created', 'updated', true, { ok: true, count: 1 }])
    expect(settled).toEqual(['upsert first', 'upsert second', 'delete', 'rewriteEncrypted', 'append', 'layouts.put', 'revokeSession', 'revokeIdentity', 'forgetExpired'])
    const events = (await storage.audit.list({ limit: 100 })).reverse().filter((e) => e.action !== 'seed')
    expect(events.map((e) => [e.action, e.target, e.detail])).toEqual([
      ['settings_write', 'order.key', '{"outcome":"created","value":"first"}'],
      ['settings_write', 'order.key', '{"outcome":"updated","value":"second"}'],
      ['settings_delete', 'gone.key', null],
      ['settings_reencrypt', null, '{"count":1}'],
      ['login', null, null],
      ['logout', 'sid-1', null],
      ['sessions_revoke', 'identity-2', null],
    ])
    expect((await storage.settings.list()).map((s) => [s.key, s.value])).toEqual([
      ['order.key', 'second'],
      ['secret.key', 'v1.new'],
    ])
    expect(await storage.layouts.get('identity-1')).toBe('{"a":1}')
    const revocations = await storage.revocations.load()
    expect([...revocations.sessions.keys()]).toEqual(['sid-1'])
    expect(revocations.identities.get('identity-2')).toEqual({ seconds: 1_800_000_000, ms: 1_800_000_000_456 })
  })

  test('a file in rollback-journal mode, where a writer keeps readers out: reads wait without holding up the process and answer once the lock is gone; a write whose COMMIT a reader refused is made once', async () => {
    const path = join(dir, `db-${++counter}`, 'admin-dashboard.db')
    const db = openDatabase(path)
    if (!db.ok) throw new Error(db.error)
    db.db.run('PRAGMA journal_mode = DELETE')
    const storage = new SqliteStorage(db.db)
    opened.push(storage)
    await storage.settings.upsert({ key: 'site.title', value: 'Ops', encrypted: false, category: null, updated_at: at(0) }, () => event('settings_write'))
    await storage.layouts.put('identity-1', '{"a":1}', at(1))
    await storage.revocations.revokeSession('sid-1', 5_000_000_000)
    const expected = await wholeDump(storage)

    const holder = new Database(path)
    holder.run('BEGIN EXCLUSIVE')
    const settled: string[] = []
    let reads: Promise<unknown>[] = []
    try {
      reads = [
        tracked(settled, 'get', storage.settings.get('site.title')),
        tracked(settled, 'list', storage.settings.list()),
        tracked(settled, 'audit', storage.audit.list({ limit: 10 })),
        tracked(settled, 'layout', storage.layouts.get('identity-1')),
        tracked(settled, 'revocations', storage.revocations.load()),
        tracked(settled, 'dump', wholeDump(storage)),
      ]
      await Bun.sleep(50)
      expect(settled).toEqual([])
    } finally {
      holder.run('ROLLBACK')
    }
    const [setting, list, audit, layout, revocations, dump] = await Promise.all(reads)
    expect(setting).toEqual(expected.settings[0]!)
    expect(list).toEqual(expected.settings)
    expect(audit).toEqual(expected.audit)
    expect(layout).toBe('{"a":1}')
    expect(revocations).toEqual(expected.revocations)
    expect(dump).toEqual(expected)

    // A reader's shared lock: the write takes its own lock, but its COMMIT cannot, and is rolled back until it can.
    holder.run('BEGIN')
    holder.query('SELECT count(*) FROM settings').get()
    try {
      const write = tracked(
        settled,
        'write',
        storage.settings.upsert({ key: 'site.other', value: 'x', encrypted: false, category: null, updated_at: at(2) }, () =>
          event('settings_write', { target: 'site.other' }),
        ),
      )
      await Bun.sleep(50)
      expect(settled).not.toContain('write')
      holder.run('COMMIT')
      expect(await write).toBe('created')
    } finally {
      holder.close()
    }
    expect((await storage.audit.list({ limit: 10, action: 'settings_write' })).map((e) => e.target)).toEqual(['site.other', null])
  })

  test('restore waits for the write lock as any write does; a write asked meanwhile is made after it, not inside its transaction', async () => {
    const source = await (await sqlite.fresh()).open()
    await source.settings.upsert({ key: 'k', value: 'v', encrypted: false, category: 'c', updated_at: at(0) }, () => event('settings_write', { target: 'k' }))
    await source.audit.append(event('login'))
    await source.layouts.put('identity-1', '{"a":1}', at(1))
    await source.revocations.revokeSession('sid', 5_000_000_000)
    const expected = await wholeDump(source)
    const database = await sqlite.fresh()
    const target = await database.open()
    const dump = await source.dump()

    const holder = new Database(database.location)
    holder.run('BEGIN IMMEDIATE')
    const settled: string[] = []
    let restoring: Promise<unknown> = Promise.resolve()
    let later: Promise<unknown> = Promise.resolve()
    try {
      restoring = tracked(settled, 'restore', target.restore(dump))
      later = tracked(
        settled,
        'upsert',
        target.settings.upsert({ key: 'after', value: 'x', encrypted: false, category: null, updated_at: at(2) }, () =>
          event('settings_write', { target: 'after' }),
        ),
      )
      await Bun.sleep(50)
      expect(settled).toEqual([])
    } finally {
      holder.run('ROLLBACK')
      holder.close()
    }
    expect(await restoring).toEqual({ ok: true })
    expect(await later).toBe('created')
    expect(settled).toEqual(['restore', 'upsert'])
    const after = await wholeDump(target)
    // Newest first: the later write's event, then the restored trail as it was.
    expect(after.audit[0]!.target).toBe('after')
    expect(after.audit.slice(1)).toEqual(expected.audit)
    expect(after.settings.map((s) => s.key)).toEqual(['after', 'k'])
  })
})

async function withSql<T>(url: string, work: (sql: InstanceType<typeof SQL>) => Promise<T>): Promise<T> {
  const sql = new SQL(url, { max: 1 })
  try {
    return await work(sql)
  } finally {
    await sql.close()
  }
}

describe('postgres only', () => {
  test('replicas starting at once on an empty database: one applies the migrations, all open', async () => {
    const url = await pg.createDatabase()
    const results = await Promise.all(Array.from({ length: 5 }, () => PostgresStorage.open(url)))
    for (const result of results) {
      expect(result.ok).toBe(true)
      if (result.ok) opened.push(result.storage)
    }
    const rows = await withSql(url, (sql) => sql`SELECT version FROM schema_migrations ORDER BY version`)
    expect(rows.map((row: { version: number }) => Number(row.version))).toEqual([1, 2, 3, 4, 5, 6])
  })

  test('settings written by this replica or another, each heard of by its notification: only the key changed is forgotten, never every key; a raise nobody notified of forgets every key', async () => {
    const url = await pg.createDatabase()
    const reader = await track(PostgresStorage.open(url))
    const writer = await track(PostgresStorage.open(url))
    const seen: (string | null)[] = []
    reader.changes.subscribe((change) => void (change.topic === 'settings' && seen.push(change.key)))
    await reader.changes.ready()
    // LISTENing once a write arrives by notification (the first poll may come before the LISTEN).
    let n = 0
    const write = (storage: Storage, key: string) =>
      storage.settings.upsert({ key, value: 'v', encrypted: false, category: null, updated_at: at(0) }, () => event('settings_write', { target: key }))
    expect(await within(3000, async () => (await write(writer, `warm.${++n}`), seen.some((key) => key?.startsWith('warm.'))), 100)).not.toBeNull()
    await Bun.sleep(600)
    seen.length = 0
    await write(writer, 'other.replica')
    await write(reader, 'this.replica')
    await writer.settings.delete('other.replica', event('settings_delete'))
    // Several polls (every 200 ms) read the raised version meanwhile.
    await Bun.sleep(1000)
    expect(seen).toEqual(['other.replica', 'this.replica', 'other.replica'])
    // A raise no notification tells of (a write whose notification was lost): every key.
    await withSql(url, (sql) => sql`UPDATE storage_versions SET version = version + 1 WHERE topic = 'settings'`)
    expect(await within(1000, () => seen.includes(null))).not.toBeNull()
    expect(seen).toEqual(['other.replica', 'this.replica', 'other.replica', null])
    // A notification heard late, of a version already polled, is no credit against a later raise
    // nobody notified of: that raise still forgets every key.
    await Bun.sleep(400)
    seen.length = 0
    await withSql(url, async (sql) => {
      const [{ version }] = await sql`SELECT version::text AS version FROM storage_versions WHERE topic = 'settings'`
      await sql`SELECT pg_notify('admin_dashboard_changes', ${`settings@${version}:late.one`})`
    })
    expect(await within(1000, () => seen.includes('late.one'))).not.toBeNull()
    await withSql(url, (sql) => sql`UPDATE storage_versions SET version = version + 1 WHERE topic = 'settings'`)
    expect(await within(1000, () => seen.includes(null))).not.toBeNull()
  })

  test('a start whose migrations wait for a lock held elsewhere says so in the log after 2 s, then opens once the lock is let go', async () => {
    const url = await pg.createDatabase()
    const holder = new SQL(url, { max: 1 })
    try {
      await holder`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY.toString()}::bigint)`
      const lines: string[] = []
      const opening = PostgresStorage.open(url, { log: createLogger('info', (line) => void lines.push(line)) })
      expect(await within(5000, () => lines.some((line) => line.includes('"database_migrations_waiting"')), 100)).not.toBeNull()
      await holder`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY.toString()}::bigint)`
      const opened = await opening
      expect(opened.ok).toBe(true)
      if (opened.ok) await opened.storage.close()
      expect(lines.filter((line) => line.includes('"database_migrations_waiting"'))).toHaveLength(1)
    } finally {
      await holder.close()
    }
  })

  test('a wrong password or an unreachable server is refused with a message that names DATABASE_URL, never the password', async () => {
    const wrong = await PostgresStorage.open(`postgres://${pg.user}:not-the-password@127.0.0.1:${pg.port}/postgres`)
    expect(wrong.ok).toBe(false)
    if (!wrong.ok) {
      expect(wrong.error).toBe('DATABASE_URL: the server refused the password of the user in the URL (28P01)')
      expect(wrong.error).not.toContain('not-the-password')
    }
    const nowhere = await PostgresStorage.open(`postgres://${pg.user}:${pg.password}@127.0.0.1:${pg.port}/no_such_database_here`)
    expect(nowhere.ok ? null : nowhere.error).toBe('DATABASE_URL: the database the URL names does not exist on the server (3D000)')
    const closedPort = freePort()
    const started = performance.now()
    const down = await PostgresStorage.open(`postgres://${pg.user}:${pg.password}@127.0.0.1:${closedPort}/postgres`)
    expect(down.ok).toBe(false)
    if (!down.ok) expect(down.error).not.toContain(pg.password)
    expect(performance.now() - started).toBeLessThan(10_000)
  })

  test('a healthy database, busy: reads that waited for a free connection and pass their deadline while the server still works on them get 503, and the pool is kept (their connections are given back when the server answers)', async () => {
    const url = await pg.createDatabase()
    const lines: string[] = []
    const storage = await track(PostgresStorage.open(url, { max: 2, log: createLogger('debug', (line) => lines.push(line)) }))
    await storage.settings.get('warm')
    const { promise: release, resolve: letGo } = Promise.withResolvers<void>()
    const { promise: held, resolve: holds } = Promise.withResolvers<void>()
    const holding = withSql(url, (sql) =>
      sql.begin(async (tx) => {
        await tx`LOCK TABLE settings IN ACCESS EXCLUSIVE MODE`
        holds()
        await release
      }),
    )
    await Promise.race([held, holding])
    // Four reads on two connections: two wait for a connection, then for the lock, past their deadline.
    const reads = await Promise.all(Array.from({ length: 4 }, () => storage.settings.get('k').then(() => 'read', (error: unknown) => (error instanceof StorageUnavailableError ? 'unavailable' : String(error)))))
    letGo()
    await holding
    expect(reads).toEqual(Array(4).fill('unavailable'))
    expect(lines.filter((line) => line.includes('database_pool_reopened'))).toEqual([])
    // And the pool serves at once.
    expect(await storage.settings.get('k')).toBeNull()
  }, 30_000)

  test('the server stopped: operations fail fast as unavailable, freshness stops; started again: it recovers by itself', async () => {
    const url = await pg.createDatabase()
    const storage = await track(openStorage({ databaseUrl: url, databasePath: 'unused' }))
    const unsubscribe = storage.changes.subscribe(() => {})
    await storage.changes.ready()
    expect(performance.now() - storage.changes.freshAt()).toBeLessThan(1000)
    await pg.stop()
    try {
      const started = performance.now()
      const failure = await storage.settings.get('x').then(
        () => null,
        (error: unknown) => error,
      )
      expect(failure).toBeInstanceOf(StorageUnavailableError)
      expect(performance.now() - started).toBeLessThan(6000)
      expect(await storage.ping()).toBe(false)
      await Bun.sleep(1200)
      expect(performance.now() - storage.changes.freshAt()).toBeGreaterThan(1000)
      // The next check ends (refused at once), without news: nobody waiting on it waits for long.
      const asked = performance.now()
      await storage.changes.nextPoll()
      expect(performance.now() - asked).toBeLessThan(2500)
      expect(storage.changes.freshAt()).toBeLessThan(asked)
    } finally {
      await pg.start()
    }
    expect(await within(10_000, () => performance.now() - storage.changes.freshAt() < 1000)).not.toBeNull()
    // Once it answers again, the next check to start brings news from after the question.
    const asked = performance.now()
    await storage.changes.nextPoll()
    expect(storage.changes.freshAt()).toBeGreaterThanOrEqual(asked)
    expect(await storage.settings.get('x')).toBeNull()
    expect(await storage.ping()).toBe(true)
    unsubscribe()
  }, 30_000)

  describe('the LISTENing connection stops answering without breaking (half-open)', () => {
    /** A reader through a freezable proxy (its log kept), a writer straight to the database. */
    async function pair(arm?: (proxy: FreezableProxy) => void) {
      const url = new URL(await pg.createDatabase())
      const proxy = startFreezableProxy({ hostname: url.hostname, port: Number(url.port) })
      arm?.(proxy)
      const through = new URL(url.href)
      through.port = String(proxy.port)
      const lines: string[] = []
      const reader = await track(PostgresStorage.open(through.href, { log: createLogger('debug', (line) => void lines.push(line)) }))
      const writer = await track(openStorage({ databaseUrl: url.href, databasePath: 'unused' }))
      // Only a notification names the setting that changed; the poll says "settings" alone.
      const notified: string[] = []
      reader.changes.subscribe((change) => void (change.topic === 'settings' && change.key !== null && notified.push(change.key)))
      await reader.changes.ready()
      const write = (key: string) =>
        writer.settings.upsert({ key, value: 'v', encrypted: false, category: null, updated_at: at(0) }, () => event('settings_write', { target: key }))
      /** Writes `prefix.1`, `prefix.2`… every 100 ms until one of them arrives by notification (a new LISTEN may not be acknowledged yet). */
      const notifiedAgain = async (prefix: string) => {
        let n = 0
        return (await within(3000, async () => (await write(`${prefix}.${++n}`), notified.some((key) => key.startsWith(`${prefix}.`))), 100)) !== null
      }
      const reopened = () => lines.filter((line) => line.includes('"database_listen_reopened"')).map((line) => JSON.parse(line) as Record<string, unknown>)
      const stop = async () => {
        await reader.close()
        proxy.stop()
      }
      return { proxy, reader, write, notifiedAgain, notified, reopened, lines, stop }
    }

    test('after it froze: notifications stop (the poll keeps the reader fresh), then within seconds it is closed, a new one LISTENs (one log line, no values) and a change arrives by notification again, for good', async () => {
      const { proxy, reader, write, notifiedAgain, notified, reopened, lines, stop } = await pair()
      try {
        // Once LISTENing (the first poll may come before it), changes arrive by notification.
        expect(await notifiedAgain('listen.before')).toBe(true)
        expect(proxy.freeze('LISTEN "admin_dashboard_changes"')).toBe(1)
        const frozenAt = performance.now()
        await write('listen.frozen')
        await Bun.sleep(300)
        expect(performance.now() - reader.changes.freshAt()).toBeLessThan(1000)
        expect(await within(8000, () => reopened().length > 0)).not.toBeNull()
        expect(performance.now() - frozenAt).toBeLessThan(7000)
        // The frozen connection is closed, not kept.
        expect(await within(1000, () => proxy.frozen() === 0)).not.toBeNull()
        expect(await notifiedAgain('listen.after')).toBe(true)
        // The new connection keeps proving itself alive: no other line.
        await Bun.sleep(4500)
        expect(reopened().map(({ level, event, reason }) => ({ level, event, reason }))).toEqual([{ level: 'warn', event: 'database_listen_reopened', reason: 'timeout' }])
        expect(Object.keys(reopened()[0]!).sort()).toEqual(['event', 'level', 'reason', 'time'])
        expect(notified.filter((key) => key.startsWith('listen.frozen'))).toEqual([])
        expect(lines.some((line) => line.includes(pg.password) || line.includes(String(proxy.port)))).toBe(false)
      } finally {
        await stop()
      }
    }, 30_000)

    test('as it subscribed, before the LISTEN was acknowledged: within seconds it is closed, and a new one LISTENs', async () => {
      const { proxy, write, notifiedAgain, notified, reopened, stop } = await pair((proxy) => proxy.freezeOnSend('LISTEN "admin_dashboard_changes"', 1))
      try {
        expect(await within(2000, () => proxy.frozen() === 1)).not.toBeNull()
        await write('unacknowledged.before')
        expect(await within(8000, () => reopened().length > 0)).not.toBeNull()
        expect(await notifiedAgain('unacknowledged.after')).toBe(true)
        expect(await within(1000, () => proxy.frozen() === 0)).not.toBeNull()
        expect({ before: notified.filter((key) => key === 'unacknowledged.before'), reopened: reopened().length }).toEqual({ before: [], reopened: 1 })
      } finally {
        await stop()
      }
    }, 30_000)
  })

  test('revocations are forgotten by the database clock, not the process clock: a process 10 days ahead keeps the rows still needed; one 10 days behind forgets what is past the margin, in the database and in memory', async () => {
    const url = await pg.createDatabase()
    const storage = await track(openStorage({ databaseUrl: url, databasePath: 'unused' }))
    const [{ now }] = await withSql(url, (sql) => sql`SELECT floor(extract(epoch FROM now()))::bigint::text AS now`)
    const dbNow = Number(now)
    const identityMargin = MAX_SESSION_SECONDS + PRUNE_MARGIN_SECONDS
    // Within their margins by the database's clock, and 10 minutes past them.
    await storage.revocations.revokeSession('sid-needed', dbNow - PRUNE_MARGIN_SECONDS + 600)
    await storage.revocations.revokeSession('sid-past', dbNow - PRUNE_MARGIN_SECONDS - 600)
    await storage.revocations.revokeIdentity('identity-needed', { seconds: dbNow - identityMargin + 600, ms: (dbNow - identityMargin + 600) * 1000 })
    await storage.revocations.revokeIdentity('identity-past', { seconds: dbNow - identityMargin - 600, ms: (dbNow - identityMargin - 600) * 1000 })
    const stored = async () => {
      const snapshot = await storage.revocations.load()
      return { sessions: [...snapshot.sessions.keys()].sort(), identities: [...snapshot.identities.keys()].sort() }
    }
    const storeAt = async (seconds: number) => {
      const store = new RevocationStore(storage, { clock: new TestClock(seconds * 1000), pruneEveryMs: 10 })
      await Promise.all([store.ready, storage.changes.ready()])
      return store
    }
    const days = 86_400

    const ahead = await storeAt(dbNow + 10 * days)
    await Bun.sleep(200) // many turns of the pruning
    ahead.close()
    expect(await stored()).toEqual({ sessions: ['sid-needed'], identities: ['identity-needed'] })

    const behind = await storeAt(dbNow - 10 * days)
    try {
      const session = { sid: 'sid-past', sub: 'identity-other', iat: dbNow - 10 * days }
      // Revoked again by this process: in memory and in the database until its next prune.
      await behind.revokeSession('sid-past', dbNow - PRUNE_MARGIN_SECONDS - 600)
      expect(await within(2000, async () => behind.revocationOf(session) === 'not_revoked' && !(await stored()).sessions.includes('sid-past'))).not.toBeNull()
      expect(await stored()).toEqual({ sessions: ['sid-needed'], identities: ['identity-needed'] })
      expect(behind.revocationOf({ sid: 'sid-needed', sub: 'identity-other', iat: dbNow - 10 * days })).toBe('revoked')
    } finally {
      behind.close()
    }
  })

  test('TLS parameters in DATABASE_URL reach the connection: required and verified against the CA, refused where the server has none', async () => {
    const tls = await startPostgres({ tls: true })
    try {
      const base = `postgres://${tls.user}:${tls.password}@127.0.0.1:${tls.port}/postgres`
      for (const query of ['sslmode=require', `sslmode=verify-full&sslrootcert=${encodeURIComponent(tls.certificatePath!)}`]) {
        const storage = await track(openStorage({ databaseUrl: `${base}?${query}`, databasePath: 'unused' }))
        expect(await storage.ping()).toBe(true)
        const encrypted = await withSql(`${base}?${query}`, (sql) => sql`SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()`)
        expect(encrypted[0].ssl).toBe(true)
      }
      // The certificate is self-signed: verifying it without its CA fails, and says why.
      const unverified = await openStorage({ databaseUrl: `${base}?sslmode=verify-full`, databasePath: 'unused' })
      expect(unverified.ok).toBe(false)
      if (!unverified.ok) expect(unverified.error).toContain('cannot be reached')
    } finally {
      await tls.destroy()
    }
    const plain = await openStorage({ databaseUrl: `postgres://${pg.user}:${pg.password}@127.0.0.1:${pg.port}/postgres?sslmode=require`, databasePath: 'unused' })
    expect(plain.ok).toBe(false)
  }, 60_000)
})

describe('DATABASE_URL naming TLS files', () => {
  test('a sslrootcert, sslcert or sslkey this user cannot read is said by name before any connection, without the path', async () => {
    const missing = join(mkdtempSync(join(tmpdir(), 'admin-dashboard-tls-')), 'db-ca.pem')
    for (const name of ['sslrootcert', 'sslcert', 'sslkey']) {
      const started = Date.now()
      // Nothing listens on port 1: a connection attempt would fail otherwise, and differently.
      const opened = await openStorage({ databaseUrl: `postgres://u:secret-pw@127.0.0.1:1/db?sslmode=verify-full&${name}=${encodeURIComponent(missing)}`, databasePath: 'unused' })
      expect(opened).toEqual({ ok: false, error: `DATABASE_URL: ${name} names a file this user cannot read (ENOENT); put it where the service's user can read it` })
      expect(Date.now() - started).toBeLessThan(1000)
    }
  })
})
