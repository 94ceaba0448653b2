// Whether a session's identity still exists (decisions §5): an answer the identity store gave before
// the identity was changed or erased through the dashboard (forgetIdentity) must not vouch for it
// afterwards, even when the lookup was already under way. The revocations are a real SQLite file;
// the identity store is a lookup the test answers when it chooses.

import { afterEach, expect, test } from 'bun:test'
import { verifierOnFile } from './support/verifier.ts'
import type { IdentityPresence, SessionCheck } from '../src/session/verifier.ts'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

type Presence = IdentityPresence
/** The identity there, with the role its session was signed in with (verifierOnFile's: admin). */
const PRESENT: Presence = { role: 'admin' }

async function setUp() {
  /** Each lookup the verifier starts, answered by the test. */
  const lookups: ((presence: Presence) => void)[] = []
  const made = await verifierOnFile({ lookup: () => new Promise<Presence>((resolve) => lookups.push(resolve)) })
  cleanups.push(made.close)
  return { ...made, lookups }
}

/** Lets the verifier's promise callbacks run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0))

test('an identity confirmed a moment ago is answered from memory, without asking the store', async () => {
  const { verifier, lookups, cookie } = await setUp()
  const first = verifier.check(cookie)
  expect(first).toBeInstanceOf(Promise)
  await settle()
  lookups[0]!(PRESENT)
  expect(await first).toMatchObject({ ok: true })
  expect(verifier.check(cookie)).toMatchObject({ ok: true })
  expect(lookups).toHaveLength(1)
})

test('a lookup under way when the identity is forgotten vouches for the requests that waited for it, not for the next one', async () => {
  const { verifier, lookups, payload, cookie } = await setUp()
  const before = verifier.check(cookie)
  await settle()
  expect(lookups).toHaveLength(1)

  // Deactivated through an admin prefix while the store was being asked.
  verifier.forgetIdentity(payload.sub)
  lookups[0]!(PRESENT)
  expect(await before).toMatchObject({ ok: true })

  // The store's answer was read before the change: the next request asks again, and is refused.
  const after = verifier.check(cookie)
  expect(after).toBeInstanceOf(Promise)
  await settle()
  expect(lookups).toHaveLength(2)
  lookups[1]!('gone')
  expect(await after).toEqual({ ok: false, code: 'not_authenticated', clearCookie: true })
})

test('a request arriving after the identity was forgotten does not join the lookup started before', async () => {
  const { verifier, lookups, payload, cookie } = await setUp()
  const before = verifier.check(cookie)
  await settle()
  verifier.forgetIdentity(payload.sub)

  const after = verifier.check(cookie)
  await settle()
  expect(lookups).toHaveLength(2)
  lookups[1]!('gone')
  lookups[0]!(PRESENT)
  expect(await after).toMatchObject({ ok: false, code: 'not_authenticated' })
  expect(await before).toMatchObject({ ok: true })

  // Neither answer is kept as a confirmation: the newer said gone, the older came from before the change.
  const next = verifier.check(cookie)
  expect(next).toBeInstanceOf(Promise)
  await settle()
  expect(lookups).toHaveLength(3)
  lookups[2]!(PRESENT)
  expect(await next).toMatchObject({ ok: true })
  expect(verifier.check(cookie)).toMatchObject({ ok: true })
})

test('a sign-in that read the identity before it was forgotten does not confirm it', async () => {
  const { verifier, lookups, payload, cookie } = await setUp()
  const mark = verifier.confirmationMark()
  verifier.forgetIdentity(payload.sub)
  verifier.confirmIdentity(payload.sub, mark, 'admin')
  const check: SessionCheck | Promise<SessionCheck> = verifier.check(cookie)
  expect(check).toBeInstanceOf(Promise)
  await settle()
  expect(lookups).toHaveLength(1)
  lookups[0]!('gone')
  expect(await check).toMatchObject({ ok: false, code: 'not_authenticated' })

  // Read after the change, it does.
  verifier.confirmIdentity(payload.sub, verifier.confirmationMark(), 'admin')
  expect(verifier.check(cookie)).toMatchObject({ ok: true })
})

test('an identity whose role in the store is no longer the one its session was signed in with: the session ends (its cookie cleared), asked of the store or known from memory', async () => {
  for (const role of ['viewer', null]) {
    const { verifier, lookups, cookie, payload } = await setUp()
    const check = verifier.check(cookie)
    await settle()
    lookups[0]!({ role })
    expect([role, await check]).toEqual([role, { ok: false, code: 'not_authenticated', clearCookie: true }])
    // Confirmed a moment ago with that role: answered from memory, the same.
    expect(verifier.check(cookie)).toEqual({ ok: false, code: 'not_authenticated', clearCookie: true })
    expect(lookups).toHaveLength(1)
    // A sign-in that read the new role confirms it with that role: this session still ends.
    verifier.confirmIdentity(payload.sub, verifier.confirmationMark(), role)
    expect(verifier.check(cookie)).toEqual({ ok: false, code: 'not_authenticated', clearCookie: true })
  }
})
