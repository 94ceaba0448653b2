// "At most once per key in a window", and a bounded memory of keys.
import { expect, test } from 'bun:test'
import { oncePerWindow } from '../src/throttle.ts'

test('a key goes once, then again only when the window has passed since it last went; keys are apart', () => {
  let now = 0
  const go = oncePerWindow(1000, () => now)
  expect([go('a'), go('a'), go('b')]).toEqual([true, false, true])
  now = 999
  expect(go('a')).toBe(false)
  now = 1000
  expect([go('a'), go('a')]).toEqual([true, false])
})

test('at most `most` keys are remembered, the oldest forgotten first (it may go again at once)', () => {
  const go = oncePerWindow(60_000, () => 0, 2)
  expect([go('a'), go('b'), go('c')]).toEqual([true, true, true])
  // `a` was forgotten to make room for `c`; `b` and `c` are still held.
  expect([go('b'), go('c'), go('a')]).toEqual([false, false, true])
})

test('a clock stepped back (a wall clock corrected by NTP) does not hold a key for the window and the step: a last time after now has passed', () => {
  let now = 3_600_000
  const go = oncePerWindow(1000, () => now)
  expect(go('a')).toBe(true)
  now = 0
  expect(go('a')).toBe(true)
  expect(go('a')).toBe(false)
})
