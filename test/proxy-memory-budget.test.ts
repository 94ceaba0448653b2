// The proxy's memory budget for streamed bodies (src/proxy/memory-budget.ts): a full collection
// when the process is over its budget, looked at every few MiB relayed, at most once per interval.

import { describe, expect, test } from 'bun:test'
import { MAX_INTERVAL_MS, RelayMemoryBudget, relayMemory } from '../src/proxy/memory-budget.ts'
import { Http1Pool } from '../src/proxy/http1.ts'

const MiB = 1024 * 1024

/** A process at `resident` whose collections bring it to `afterCollection` (by default, free the garbage of reads down to 90 MiB). */
function budgetWith(resident: number, afterCollection = 90 * MiB) {
  const state = { resident, afterCollection, now: 0, collected: 0, looked: 0 }
  const budget = new RelayMemoryBudget({
    budgetBytes: 100 * MiB,
    residentBytes: () => (state.looked++, state.resident),
    collect: () => {
      state.collected++
      state.resident = state.afterCollection
    },
    now: () => state.now,
  })
  return { budget, state }
}

describe('the memory budget for streamed bodies', () => {
  test('under the budget nothing is collected, however much is relayed', () => {
    const { budget, state } = budgetWith(99 * MiB)
    for (let i = 0; i < 1000; i++) budget.relayed(512 * 1024)
    expect(state.collected).toBe(0)
    // Looked at once per 4 MiB, not per chunk.
    expect(state.looked).toBe(125)
  })

  test('over the budget, one full collection, then none until the interval has passed', () => {
    const { budget, state } = budgetWith(101 * MiB)
    budget.relayed(3 * MiB)
    expect(state.collected).toBe(0)
    budget.relayed(1 * MiB)
    expect(state.collected).toBe(1)
    // Streaming grows it again at once.
    state.resident = 140 * MiB
    state.now = 119
    for (let i = 0; i < 10; i++) budget.relayed(4 * MiB)
    expect(state.collected).toBe(1)
    state.now = 120
    budget.relayed(4 * MiB)
    expect(state.collected).toBe(2)
    expect(budget.collections).toBe(2)
  })

  test('a process living above the budget is not collected every interval for nothing: collections that free little wait twice as long each time, up to two seconds, and one that frees enough brings the interval back', () => {
    // A large heap of its own: its collections free nothing.
    const { budget, state } = budgetWith(300 * MiB, 300 * MiB)
    const collectedAt: number[] = []
    for (let at = 0; at <= 10_000; at += 10) {
      state.now = at
      const before = state.collected
      budget.relayed(4 * MiB)
      if (state.collected > before) collectedAt.push(at)
    }
    expect(collectedAt).toEqual([0, 240, 720, 1680, 3600, 5600, 7600, 9600])
    expect(MAX_INTERVAL_MS).toBe(2000)
    // Garbage of reads again: the next collection frees it, and the one after waits the minimum.
    state.afterCollection = 200 * MiB
    state.now = 11_600
    budget.relayed(4 * MiB)
    expect(state.collected).toBe(9)
    state.resident = 300 * MiB
    state.now = 11_720
    budget.relayed(4 * MiB)
    expect(state.collected).toBe(10)
  })

  test('a real collection runs by default and the process goes on', () => {
    const budget = new RelayMemoryBudget({ budgetBytes: 0 })
    budget.relayed(4 * MiB)
    expect(budget.collections).toBe(1)
  })

  test('every byte a streamed body passes on through the proxy\'s client is counted against it; a small answer taken whole as it arrived is not', async () => {
    const large = new Uint8Array(3 * MiB + 5)
    const upstream = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request) => new Response(request.url.endsWith('/small') ? 'small' : large) })
    const pool = new Http1Pool()
    try {
      const target = (path: string) => new URL(`http://127.0.0.1:${upstream.port}${path}`)
      const before = relayMemory.total
      const answer = await pool.request(target('/large'), { method: 'GET', headers: [], signal: new AbortController().signal })
      expect((await new Response(answer.body!.stream()).arrayBuffer()).byteLength).toBe(large.byteLength)
      expect(relayMemory.total - before).toBe(large.byteLength)
      const small = await pool.request(target('/small'), { method: 'GET', headers: [], signal: new AbortController().signal })
      expect(new TextDecoder().decode(await small.body!.bytes())).toBe('small')
      expect(relayMemory.total - before).toBe(large.byteLength)
    } finally {
      pool.closeIdle()
      upstream.stop(true)
    }
  })
})
