// An audit event's outcome in words, as the Audit log and the Overview say it: a proxied write whose
// answer did not come back (a timeout, an answer lost on the way) may have been done, and says so.
import { expect, test } from 'bun:test'
import { actionWords, outcomeOf } from '../ui/audit-words.ts'

const event = (detail: Record<string, string | number | boolean | null>) => ({ id: 1, at: '2026-11-28T00:00:00.000Z', action: 'proxy_write', actor: null, target: null, detail })

test('done, refused, and of unknown outcome', () => {
  expect(outcomeOf(event({ outcome: 'ok', status: 201 }))).toEqual({ said: 'ok', done: true })
  expect(outcomeOf(event({ outcome: 'upstream_refused', status: 409 }))).toEqual({ said: 'upstream refused', done: false })
  expect(outcomeOf(event({ outcome: 'unreachable', status: null }))).toEqual({ said: 'unreachable', done: false })
  expect(outcomeOf(event({ outcome: 'timeout', status: null }))).toEqual({ said: 'timeout (may have been done)', done: false })
  expect(outcomeOf(event({ outcome: 'answer_lost', status: null }))).toEqual({ said: 'answer lost (may have been done)', done: false })
  expect(outcomeOf(event({ outcome: 'answer_unreadable', status: 201 }))).toEqual({ said: 'answer unreadable (may have been done)', done: false })
})

test('an upstream error (a gateway in front of it) may have been done; a refused sign-in says why; End dashboard sessions is not taken for a Kratos session revoked', () => {
  expect(outcomeOf(event({ outcome: 'upstream_error', status: 504 }))).toEqual({ said: 'upstream error (may have been done)', done: false })
  expect(outcomeOf(event({ outcome: 'pending', status: null }))).toEqual({ said: 'sent, no outcome recorded (may have been done)', done: false })
  const login = (reason: string) => ({ ...event({ outcome: 'refused', reason }), action: 'login' })
  expect(outcomeOf(login('no_role'))).toEqual({ said: 'refused (no role)', done: false })
  expect(outcomeOf(login('inactive'))).toEqual({ said: 'refused (deactivated)', done: false })
  expect(outcomeOf(login('unknown_identity'))).toEqual({ said: 'refused (not an identity in the store)', done: false })
  expect(actionWords('sessions_revoke')).toBe('end dashboard sessions')
  expect(actionWords('proxy_write')).toBe('proxy write')
})
