// Revoked sessions are forgotten an hour (PRUNE_MARGIN_SECONDS) after their cookies have expired,
// identity revocations an hour after the longest session they refuse could have expired, by the
// running service and not only at its start, on a real SQLite file and a real PostgreSQL
// database: a test clock moves past the expiry and the pruning interval is a few milliseconds
// instead of an hour. The margin is for replicas whose clocks are behind the pruning one's. On
// PostgreSQL "after" is by the database's clock, so no replica's clock, ahead or behind, moves it.

import { expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { SQL } from 'bun'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { usePostgres } from './support/use-postgres.ts'
import { startStack } from './support/stack.ts'
import { startService, TestClock } from './support/service.ts'
import { PRUNE_MARGIN_SECONDS } from '../src/session/revocations.ts'
import { MAX_SESSION_SECONDS } from '../src/session/cookie.ts'
import { within } from './support/eventually.ts'

const PRUNE_EVERY_MS = 25

const pg = usePostgres()

/** The revoked session ids as stored, read through a connection of the test's own. */
interface RevokedRows {
  sids(): Promise<string[]>
  close(): Promise<void>
}

function sqliteRows(path: string): RevokedRows {
  const db = new Database(path, { readonly: true })
  return {
    sids: async () => db.query<{ sid: string }, []>('SELECT sid FROM revoked_sessions ORDER BY sid').all().map((row) => row.sid),
    close: async () => db.close(),
  }
}

function postgresRows(url: string): RevokedRows {
  const sql = new SQL(url, { max: 1 })
  return {
    sids: async () => (await sql`SELECT sid FROM revoked_sessions ORDER BY sid`).map((row: { sid: string }) => row.sid),
    close: () => sql.close(),
  }
}

// On SQLite (one host) the process's clock decides what is forgotten; PostgreSQL prunes by its own
// clock (tested below).

test(`sqlite: a logged-out session is forgotten an hour after its cookie has expired, while the service runs; one not yet expired stays refused; the pruning stops with the service`, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'admin-dashboard-pruning-'))
  const clock = new TestClock()
  const stack = await startStack({ dir, clock, revocationPruneEveryMs: PRUNE_EVERY_MS })
  const rows = sqliteRows(join(dir, 'admin-dashboard.db'))
  let stopped = false
  try {
    const now = Math.floor(clock.now() / 1000)
    const cookie = (sid: string, exp: number) => `admin-session=${stack.service.sign({ sub: stack.viewer.id, role: 'viewer', sid, exp })}`
    const sessionStatus = async (header: string) => (await fetch(`${stack.service.url}/api/auth/session`, { headers: { cookie: header } })).status
    const logout = async (header: string) => (await fetch(`${stack.service.url}/api/auth/logout`, { method: 'POST', headers: { cookie: header, origin: 'http://admin.test' } })).status
    const short = cookie('sid-short', now + 60)
    const long = cookie('sid-long', now + 7200)
    expect([await logout(short), await logout(long)]).toEqual([204, 204])
    expect(await rows.sids()).toEqual(['sid-long', 'sid-short'])

    clock.advance(60 + PRUNE_MARGIN_SECONDS + 1)
    // Many turns of the timer later the short one is gone; the long one is kept and still refused.
    expect(await within(5000, async () => (await rows.sids()).join() === 'sid-long')).not.toBeNull()
    expect(await sessionStatus(long)).toBe(401)

    clock.advance(7200)
    expect(await within(5000, async () => (await rows.sids()).length === 0)).not.toBeNull()

    await stack.stop()
    stopped = true
    // A timer left running would find the storage closed and say so in the log.
    await Bun.sleep(PRUNE_EVERY_MS * 10)
    expect(stack.service.logLines.filter((line) => line.includes('revocations_prune_failed'))).toEqual([])
  } finally {
    await rows.close()
    if (!stopped) await stack.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}, 30_000)

/**
 * Two replicas on one SQLite file, pruning every PRUNE_EVERY_MS: `ahead` (the stack's service)
 * with its clock 10 minutes ahead of `behind`'s; one signing key, so each takes the other's cookies.
 */
async function skewedReplicas() {
  const dir = mkdtempSync(join(tmpdir(), 'admin-dashboard-pruning-'))
  const base = Date.now()
  const aheadClock = new TestClock(base + 600_000)
  const behindClock = new TestClock(base)
  const stack = await startStack({ dir, clock: aheadClock, revocationPruneEveryMs: PRUNE_EVERY_MS })
  const ahead = stack.service
  const behind = await startService({
    dir,
    clock: behindClock,
    revocationPruneEveryMs: PRUNE_EVERY_MS,
    env: { IDP_ADMIN_URL: stack.kratos.url, SESSION_SIGNING_KEY: ahead.env.SESSION_SIGNING_KEY, ENCRYPTION_KEY: ahead.env.ENCRYPTION_KEY },
  })
  return { dir, base, aheadClock, behindClock, stack, ahead, behind }
}

test(`sqlite: a replica whose clock is behind the pruning one's still refuses a logged-out cookie that has expired by the pruning one's clock; the row goes once the margin has passed`, async () => {
  const { dir, base, aheadClock, behindClock, stack, ahead, behind } = await skewedReplicas()
  const rows = sqliteRows(join(dir, 'admin-dashboard.db'))
  try {
    const now = Math.floor(base / 1000)
    // Both replicas take these cookies (issued by `behind`'s clock, not expired by `ahead`'s).
    const cookie = (sid: string, exp: number) => `admin-session=${behind.sign({ sub: stack.viewer.id, role: 'viewer', sid, iat: now, exp })}`
    const sessionStatus = async (url: string, header: string) => (await fetch(`${url}/api/auth/session`, { headers: { cookie: header } })).status
    const logout = async (url: string, header: string) =>
      (await fetch(`${url}/api/auth/logout`, { method: 'POST', headers: { cookie: header, origin: 'http://admin.test' } })).status
    // Expired on `ahead`'s clock (5 minutes ago), not on `behind`'s (in 5 minutes).
    const skewed = cookie('sid-skewed', now + 300)
    const other = cookie('sid-other', now + 3600)
    expect(await logout(behind.url, skewed)).toBe(204)
    expect(await sessionStatus(behind.url, skewed)).toBe(401)
    expect(await sessionStatus(behind.url, other)).toBe(200)

    await Bun.sleep(PRUNE_EVERY_MS * 10) // many turns of `ahead`'s pruning
    expect(await rows.sids()).toEqual(['sid-skewed'])
    // Another revocation makes `behind` reload what the database holds: the row is still there.
    expect(await logout(ahead.url, other)).toBe(204)
    expect(await within(2000, async () => (await sessionStatus(behind.url, other)) === 401)).not.toBeNull()
    expect(await sessionStatus(behind.url, skewed)).toBe(401)

    // An hour later by both clocks, `ahead` forgets it; by then it has expired on `behind` too.
    aheadClock.advance(PRUNE_MARGIN_SECONDS)
    behindClock.advance(PRUNE_MARGIN_SECONDS)
    expect(await within(5000, async () => (await rows.sids()).join() === 'sid-other')).not.toBeNull()
    expect(await sessionStatus(behind.url, skewed)).toBe(401)
  } finally {
    await rows.close()
    await behind.stop()
    await stack.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}, 30_000)

/** The identity revocations as stored, read through a connection of the test's own. */
async function identityRows(path: string): Promise<string[]> {
  const db = new Database(path, { readonly: true })
  try {
    return db.query<{ identity_id: string }, []>('SELECT identity_id FROM identity_revocations ORDER BY identity_id').all().map((row) => row.identity_id)
  } finally {
    db.close()
  }
}

test(`sqlite: after "end dashboard sessions", a session issued before stays refused until its own expiry, on a replica whose clock is behind too; the revocation is forgotten 8 hours and the margin after it, the audit event stays`, async () => {
  const { dir, base, aheadClock, behindClock, stack, ahead, behind } = await skewedReplicas()
  const stored = () => identityRows(join(dir, 'admin-dashboard.db'))
  try {
    const sessionStatus = async (url: string, header: string) => (await fetch(`${url}/api/auth/session`, { headers: { cookie: header } })).status
    const statuses = async (header: string) => [await sessionStatus(ahead.url, header), await sessionStatus(behind.url, header)]
    const viewerCookie = (iat: number) =>
      `admin-session=${behind.sign({ sub: stack.viewer.id, role: 'viewer', iat, iatMs: iat * 1000, exp: iat + MAX_SESSION_SECONDS })}`
    const now = Math.floor(base / 1000)
    // The longest session there can be, issued just before the revocation (both by `behind`'s clock).
    const before = viewerCookie(now)
    expect(await statuses(before)).toEqual([200, 200])

    const admin = `admin-session=${behind.sign({ sub: stack.admin.id, role: 'admin' })}`
    const revoke = await fetch(`${behind.url}/api/security/sessions/revoke`, {
      method: 'POST',
      headers: { cookie: admin, origin: 'http://admin.test', 'content-type': 'application/json' },
      body: JSON.stringify({ identity_id: stack.viewer.id }),
    })
    expect(revoke.status).toBe(204)
    expect(await within(2000, async () => (await statuses(before)).join() === '401,401')).not.toBeNull()
    expect(await stored()).toEqual([stack.viewer.id])

    // 8 hours on: `ahead`'s clock is past the session's expiry (and the revocation's 8 hours),
    // `behind`'s is not (5 minutes to go).
    aheadClock.advance(MAX_SESSION_SECONDS - 300)
    behindClock.advance(MAX_SESSION_SECONDS - 300)
    await Bun.sleep(PRUNE_EVERY_MS * 10) // many turns of both replicas' pruning
    expect(await stored()).toEqual([stack.viewer.id])
    // Another revocation makes `behind` reload what the database holds: the row is still there.
    const other = viewerCookie(now + MAX_SESSION_SECONDS - 300)
    expect(await sessionStatus(behind.url, other)).toBe(200)
    const logout = await fetch(`${ahead.url}/api/auth/logout`, { method: 'POST', headers: { cookie: other, origin: 'http://admin.test' } })
    expect(logout.status).toBe(204)
    expect(await within(2000, async () => (await sessionStatus(behind.url, other)) === 401)).not.toBeNull()
    expect(await sessionStatus(behind.url, before)).toBe(401)

    // The margin later, `ahead` forgets it; by then the session has expired everywhere.
    aheadClock.advance(PRUNE_MARGIN_SECONDS)
    behindClock.advance(PRUNE_MARGIN_SECONDS)
    expect(await within(5000, async () => (await stored()).length === 0)).not.toBeNull()
    expect(await statuses(before)).toEqual([401, 401])
    // The audit trail is another table: the revocation is still listed there.
    const events = await ahead.storage.audit.list({ limit: 10, action: 'sessions_revoke' })
    expect(events.map((event) => event.target)).toEqual([stack.viewer.id])
  } finally {
    await behind.stop()
    await stack.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}, 30_000)

test('postgres: pruning follows the database clock: a replica whose clock is 10 days ahead keeps a logged-out session whose cookie is still live (the other replica refuses it after reloading), and forgets, while it runs, rows past the margin by the database clock; the pruning stops with the service', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'admin-dashboard-pruning-'))
  const databaseUrl = await pg.createDatabase()
  const database = { DATABASE_URL: databaseUrl }
  const base = Date.now()
  const stack = await startStack({ dir, clock: new TestClock(base + 10 * 86_400_000), revocationPruneEveryMs: PRUNE_EVERY_MS, env: database })
  const ahead = stack.service
  const behind = await startService({
    dir,
    clock: new TestClock(base),
    env: { ...database, IDP_ADMIN_URL: stack.kratos.url, SESSION_SIGNING_KEY: ahead.env.SESSION_SIGNING_KEY, ENCRYPTION_KEY: ahead.env.ENCRYPTION_KEY },
  })
  const rows = postgresRows(databaseUrl)
  let stopped = false
  try {
    const now = Math.floor(base / 1000)
    const cookie = (sid: string) => `admin-session=${behind.sign({ sub: stack.viewer.id, role: 'viewer', sid, iat: now, exp: now + 3600 })}`
    const sessionStatus = async (url: string, header: string) => (await fetch(`${url}/api/auth/session`, { headers: { cookie: header } })).status
    const logout = async (url: string, header: string) =>
      (await fetch(`${url}/api/auth/logout`, { method: 'POST', headers: { cookie: header, origin: 'http://admin.test' } })).status
    const live = cookie('sid-live')
    expect(await logout(behind.url, live)).toBe(204)
    // Revoked long ago, by a process now gone: past the margin by the database's clock.
    await behind.storage.revocations.revokeSession('sid-old', now - PRUNE_MARGIN_SECONDS - 600)
    expect(await within(5000, async () => (await rows.sids()).join() === 'sid-live')).not.toBeNull()
    await Bun.sleep(PRUNE_EVERY_MS * 10) // many more turns of `ahead`'s pruning
    expect(await rows.sids()).toEqual(['sid-live'])
    // Another revocation makes `behind` reload what the database holds: the row is still there.
    const other = cookie('sid-other')
    expect(await logout(behind.url, other)).toBe(204)
    expect(await sessionStatus(behind.url, live)).toBe(401)

    await stack.stop()
    stopped = true
    await Bun.sleep(PRUNE_EVERY_MS * 10)
    expect(ahead.logLines.filter((line) => line.includes('revocations_prune_failed'))).toEqual([])
  } finally {
    await rows.close()
    await behind.stop()
    if (!stopped) await stack.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}, 30_000)

test('sqlite: a start whose prune finds the file locked by another process still loads the revocations; sessions are not refused once the lock is gone', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'admin-dashboard-pruning-'))
  const first = await startStack({ dir })
  const sid = crypto.randomUUID()
  const loggedOut = `admin-session=${first.service.sign({ sub: first.admin.id, role: 'admin', email: 'ada.admin@example.test', sid })}`
  expect((await fetch(`${first.service.url}/api/auth/logout`, { method: 'POST', headers: { cookie: loggedOut, origin: 'http://admin.test' } })).status).toBe(204)
  await first.service.stop({ keepDir: true })
  await first.kratos.stop()

  // Another process holds the write lock for longer than the service waits (5 s) while it starts.
  const holder = new Database(join(dir, 'admin-dashboard.db'))
  holder.run('BEGIN EXCLUSIVE')
  let locked = true
  const stack = await startStack({ dir }).finally(() => {
    holder.run('ROLLBACK')
    locked = false
  })
  try {
    const session = async (cookie: string) => (await fetch(`${stack.service.url}/api/auth/session`, { headers: { cookie } })).status
    expect(await session(stack.freshCookie('admin'))).toBe(200)
    // The session logged out before the restart is still refused: the revocations were loaded.
    expect(await session(`admin-session=${stack.service.sign({ sub: stack.admin.id, role: 'admin', email: 'ada.admin@example.test', sid })}`)).toBe(401)
    expect(stack.service.logLines.some((line) => line.includes('"revocations_prune_failed"'))).toBe(true)
  } finally {
    if (locked) holder.run('ROLLBACK')
    holder.close()
    await stack.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}, 30_000)
