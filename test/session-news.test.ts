// The session check when the change feed has had no news from the database for longer than the
// gate trusts what it knew (revocations made on another replica may be missing): it waits for the
// feed's next check instead of refusing at once, and fails closed when that check brings nothing.
// The storage is a real SQLite file; only its change feed is driven by the test, as PostgreSQL's
// poll would drive it (test/postgres-service.test.ts has the same over a real connection frozen).

import { afterEach, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../src/db/database.ts'
import { SqliteStorage } from '../src/db/sqlite-storage.ts'
import type { ChangeListener, Storage } from '../src/db/storage.ts'
import { RevocationStore } from '../src/session/revocations.ts'
import { signSessionCookie, type SessionPayload } from '../src/session/cookie.ts'
import { NEWS_WAIT_MS, SessionVerifier, type SessionCheck } from '../src/session/verifier.ts'

const cleanups: (() => void | Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A storage on a real file whose change feed reports what the test says, as a poll would. */
function storageWithFeed() {
  const dir = mkdtempSync(join(tmpdir(), 'session-news-'))
  const opened = openDatabase(join(dir, 'db.sqlite'))
  if (!opened.ok) throw new Error(opened.error)
  const real = new SqliteStorage(opened.db)
  cleanups.push(async () => {
    await real.close()
    rmSync(dir, { recursive: true, force: true })
  })
  const listeners = new Set<ChangeListener>()
  let fresh = performance.now()
  let waiters: (() => void)[] = []
  const storage: Storage = Object.create(real)
  Object.defineProperty(storage, 'changes', {
    value: {
      subscribe: (listener: ChangeListener) => (listeners.add(listener), () => void listeners.delete(listener)),
      freshAt: () => fresh,
      ready: () => Promise.resolve(),
      nextPoll: () => new Promise<void>((resolve) => waiters.push(resolve)),
    },
  })
  const feed = {
    /** The last news is older than the window. */
    stale() {
      fresh = performance.now() - 5000
    },
    waiting: () => waiters.length,
    /** A check that reached the database: revocations reloaded, then fresh, then the waiters told. */
    async polled() {
      const started = performance.now()
      await Promise.all([...listeners].map(async (listener) => listener({ topic: 'revocations' })))
      fresh = started
      for (const settle of waiters.splice(0)) settle()
    },
    /** A check that failed: the waiters are told, nothing is fresher. */
    failed() {
      for (const settle of waiters.splice(0)) settle()
    },
  }
  return { storage, real, feed }
}

async function setUp() {
  const { storage, real, feed } = storageWithFeed()
  const key = crypto.getRandomValues(new Uint8Array(32))
  const revocations = new RevocationStore(storage, { clock: { now: () => Date.now() } })
  cleanups.push(() => revocations.close())
  await revocations.ready
  const verifier = new SessionVerifier(key, { now: () => Date.now() }, revocations, async () => ({ role: 'admin' }), 60)
  const iat = Math.floor(Date.now() / 1000)
  const payload: SessionPayload = { v: 1, sid: crypto.randomUUID(), sub: crypto.randomUUID(), email: 'a@example.test', role: 'admin', iat, exp: iat + 3600 }
  const cookie = `admin-session=${signSessionCookie(key, payload)}`
  return { real, feed, verifier, payload, cookie }
}

/** The check's answer, and whether it came before `before` settled. */
async function answered(check: SessionCheck | Promise<SessionCheck>, before: () => Promise<void>) {
  let early = false
  void Promise.resolve(check).then(() => (early = true))
  await Bun.sleep(50)
  const waited = !early
  await before()
  return { waited, answer: await check }
}

test('fresh news: the session is answered at once, without waiting', async () => {
  const { verifier, cookie } = await setUp()
  // The first asks the identity store whether the identity still exists; the next is from memory.
  expect((await verifier.check(cookie)).ok).toBe(true)
  const check = verifier.check(cookie)
  expect(check instanceof Promise ? 'a promise' : check.ok).toBe(true)
})

test('no news for a while: the check waits for the next poll, and is answered when it reaches the database', async () => {
  const { feed, verifier, cookie, payload } = await setUp()
  expect((await verifier.check(cookie)).ok).toBe(true)
  feed.stale()
  const { waited, answer } = await answered(verifier.check(cookie), () => feed.polled())
  expect(waited).toBe(true)
  expect(answer).toEqual({ ok: true, session: payload })
})

test('no news for a while, and a revocation made elsewhere meanwhile: the poll brings it, and the session is refused', async () => {
  const { real, feed, verifier, cookie, payload } = await setUp()
  expect((await verifier.check(cookie)).ok).toBe(true)
  feed.stale()
  // Another replica ends the session; this process has not heard of it.
  await real.revocations.revokeSession(payload.sid, payload.exp)
  const { waited, answer } = await answered(verifier.check(cookie), () => feed.polled())
  expect(waited).toBe(true)
  expect(answer).toEqual({ ok: false, code: 'not_authenticated', clearCookie: true })
})

test('no news for a while, and the next poll fails: refused as unknowable at once (fail closed), the cookie kept', async () => {
  const { feed, verifier, cookie } = await setUp()
  feed.stale()
  const { waited, answer } = await answered(verifier.check(cookie), async () => feed.failed())
  expect(waited).toBe(true)
  expect(answer).toEqual({ ok: false, code: 'database_unavailable', clearCookie: false })
})

test('no news for a while, and no poll ends: refused as unknowable once the wait is over, not kept waiting', async () => {
  const { feed, verifier, cookie } = await setUp()
  feed.stale()
  const started = performance.now()
  const answer = await verifier.check(cookie)
  expect(answer).toEqual({ ok: false, code: 'database_unavailable', clearCookie: false })
  expect(performance.now() - started).toBeGreaterThanOrEqual(NEWS_WAIT_MS - 5)
  expect(performance.now() - started).toBeLessThan(NEWS_WAIT_MS + 2000)
  // Those that waited are not kept by the feed beyond its next check.
  expect(feed.waiting()).toBe(1)
  feed.failed()
  expect(feed.waiting()).toBe(0)
})

test('a revoked session is refused at once, news or not: nothing to wait for', async () => {
  const { real, feed, verifier, cookie, payload } = await setUp()
  await real.revocations.revokeSession(payload.sid, payload.exp)
  await feed.polled()
  feed.stale()
  const check = verifier.check(cookie)
  expect(check instanceof Promise ? 'a promise' : check).toEqual({ ok: false, code: 'not_authenticated', clearCookie: true })
})
