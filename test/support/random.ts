// A seeded pseudo-random sequence for tests that try many generated inputs: the same inputs on
// every run, so a failure can be repeated. Integer arithmetic only (mulberry32): an LCG written with
// doubles, `seed * 1103515245 + 12345`, loses its low bits past 2^53 and soon repeats one value.

/** `next(limit)` gives an integer from 0 to limit - 1. */
export function seededRandom(seed: number): (limit: number) => number {
  let state = seed >>> 0
  return (limit) => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) % limit
  }
}
