// Another process on the same SQLite file revokes a session, and this process sees that something
// changed but cannot read what (its read fails). Its gate must not go on trusting the revocations
// it knew; once the read works again, it reads them and refuses the session. In WAL mode no lock
// of another connection keeps a read out, so the failure is made by taking the table away for a
// moment. Real files, two connections, the real revocation store and session check.

import { Database } from 'bun:sqlite'
import { afterEach, expect, test } from 'bun:test'
import { createLogger } from '../src/log.ts'
import { verifierOnFile } from './support/verifier.ts'

const cleanups: (() => void | Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function setUp() {
  const lines: string[] = []
  const made = await verifierOnFile({ lookup: async () => ({ role: 'admin' }), log: createLogger('info', (line) => lines.push(line)) })
  cleanups.push(made.close)
  return { ...made, lines }
}

test('a revocation another process made that cannot be read: refused as unknowable (503) until it can, then as revoked', async () => {
  const { path, verifier, payload, lines, cookie } = await setUp()
  expect(await verifier.check(cookie)).toMatchObject({ ok: true })

  const other = new Database(path)
  cleanups.push(() => other.close())
  other.transaction(() => {
    other.run('INSERT INTO revoked_sessions (sid, expires_at) VALUES (?, ?)', [payload.sid, payload.exp])
    other.run('ALTER TABLE revoked_sessions RENAME TO revoked_sessions_away')
  })()

  // Past the gate's freshness window (1 s) and a poll (250 ms).
  await Bun.sleep(1600)
  expect(await verifier.check(cookie)).toEqual({ ok: false, code: 'database_unavailable', clearCookie: false })
  expect(lines.filter((line) => line.includes('"database_changes_unread"'))).toHaveLength(1)

  other.run('ALTER TABLE revoked_sessions_away RENAME TO revoked_sessions')
  let answer = await verifier.check(cookie)
  for (let waited = 0; answer.ok === false && answer.code === 'database_unavailable' && waited < 5000; waited += 100) {
    await Bun.sleep(100)
    answer = await verifier.check(cookie)
  }
  expect(answer).toEqual({ ok: false, code: 'not_authenticated', clearCookie: true })
  expect(lines.filter((line) => line.includes('"database_changes_read"'))).toHaveLength(1)
  expect(lines.join('\n')).not.toContain(payload.sid)
}, 20_000)

test('a change from another process is read within a poll, and nothing is said in the log', async () => {
  const { path, verifier, payload, lines, cookie } = await setUp()
  expect(await verifier.check(cookie)).toMatchObject({ ok: true })
  const other = new Database(path)
  cleanups.push(() => other.close())
  other.run('INSERT INTO revoked_sessions (sid, expires_at) VALUES (?, ?)', [payload.sid, payload.exp])
  await Bun.sleep(600)
  expect(await verifier.check(cookie)).toEqual({ ok: false, code: 'not_authenticated', clearCookie: true })
  expect(lines.filter((line) => line.includes('database_changes'))).toEqual([])
})
