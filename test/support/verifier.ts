// The session check as the gate runs it, over a real SQLite file: the revocation store on that
// file, a signed session of one identity, and the identity store's answers as the test gives them.

import { openSqliteStorage } from '../../src/db/sqlite-storage.ts'
import type { Logger } from '../../src/log.ts'
import { signSessionCookie, type SessionPayload } from '../../src/session/cookie.ts'
import { RevocationStore } from '../../src/session/revocations.ts'
import { SessionVerifier, type PresenceLookup } from '../../src/session/verifier.ts'
import { temporaryDir } from './temp.ts'
import { join } from 'node:path'

/** Everything made here, closed by `close()` (the caller's afterEach). */
export async function verifierOnFile(options: { lookup: PresenceLookup; log?: Logger }) {
  const path = join(temporaryDir('verifier-'), 'db.sqlite')
  const opened = openSqliteStorage(path, { log: options.log })
  if (!opened.ok) throw new Error(opened.error)
  const storage = opened.storage
  const revocations = new RevocationStore(storage, { clock: { now: () => Date.now() } })
  await revocations.ready
  const key = crypto.getRandomValues(new Uint8Array(32))
  const verifier = new SessionVerifier(key, { now: () => Date.now() }, revocations, options.lookup, 60)
  const iat = Math.floor(Date.now() / 1000)
  const payload: SessionPayload = { v: 1, sid: crypto.randomUUID(), sub: crypto.randomUUID(), email: 'a@example.test', role: 'admin', iat, exp: iat + 3600 }
  return {
    path,
    verifier,
    payload,
    cookie: `admin-session=${signSessionCookie(key, payload)}`,
    async close() {
      revocations.close()
      await storage.close()
    },
  }
}
