// The identity page's sessions list in words: whether there are more to show, and what the count
// line says, including past Kratos's largest page and without a total.
import { describe, expect, test } from 'bun:test'
import { MOST_IDENTITY_SESSIONS, sessionCount, shownFrom } from '../ui/identity-sessions.ts'
import type { KratosSession } from '../ui/api.ts'

const sessions = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `s${i}`, devices: [] }) as unknown as KratosSession)

describe('the sessions shown and their count', () => {
  test('fewer than asked for: all of them, counted', () => {
    const shown = shownFrom({ items: sessions(7), skipped: 0, total: 7, end: true }, 25)
    expect(shown.more).toBe(false)
    expect(sessionCount(shown, true)).toBe('7 active sessions.')
    expect(sessionCount(shownFrom({ items: sessions(1), skipped: 0, total: 1, end: true }, 25), true)).toBe('1 active session.')
    expect(sessionCount(shownFrom({ items: [], skipped: 0, total: 0, end: true }, 25), true)).toBeNull()
  })

  test('more than shown: Show more is offered, and the count says of how many', () => {
    const shown = shownFrom({ items: sessions(25), skipped: 0, total: 30, end: false }, 25)
    expect(shown.more).toBe(true)
    expect(sessionCount(shown, true)).toBe('Showing the 25 newest of 30 active sessions.')
    // An inactive identity's sessions are not called active.
    expect(sessionCount(shown, false)).toBe('Showing the 25 newest of 30 sessions.')
  })

  test('rows that could not be read count as shown: nothing more to read', () => {
    const shown = shownFrom({ items: sessions(24), skipped: 1, total: 25, end: true }, 25)
    expect(shown.more).toBe(false)
    expect(sessionCount(shown, true)).toBe('24 active sessions.')
  })

  test('at Kratos’s largest page: no Show more, and the count points to Revoke all for the rest', () => {
    const shown = shownFrom({ items: sessions(MOST_IDENTITY_SESSIONS), skipped: 0, total: 5000, end: false }, MOST_IDENTITY_SESSIONS)
    expect(shown.more).toBe(false)
    expect(sessionCount(shown, true)).toBe('Showing the 1000 newest of 5000 active sessions; Revoke all sessions ends every one of them.')
  })

  test('without a total (a Kratos that sends none): more while the page came back full', () => {
    const full = shownFrom({ items: sessions(25), skipped: 0, total: null, end: false }, 25)
    expect(full.more).toBe(true)
    expect(sessionCount(full, true)).toBe('Showing the 25 newest active sessions.')
    const short = shownFrom({ items: sessions(20), skipped: 0, total: null, end: true }, 25)
    expect(short.more).toBe(false)
    expect(sessionCount(short, true)).toBe('20 active sessions.')
    // Full at Kratos's largest page: not told as though these were all.
    const most = shownFrom({ items: sessions(MOST_IDENTITY_SESSIONS), skipped: 0, total: null, end: false }, MOST_IDENTITY_SESSIONS)
    expect(sessionCount(most, true)).toBe('Showing the 1000 newest active sessions; Revoke all sessions ends every one of them.')
  })
})
