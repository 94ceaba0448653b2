// The proxy's shared deadline clock: a deadline passes no sooner than its time limit and at most
// SHARED_TIMER_MS later, a stopped one never passes, and whoever waits on it is told once, with
// the clock's reason. End to end (a silent upstream answered with 504) is in upstream-failures.test.ts.
import { describe, expect, test } from 'bun:test'
import { DeadlineClock, SHARED_TIMER_MS } from '../src/proxy/deadline.ts'
import { Http1Pool } from '../src/proxy/http1.ts'
import { within } from './support/eventually.ts'
import { RawListener } from './support/upstream.ts'

const LIMIT_MS = 60

/** Settles once the deadline has passed, also when it passed before this was asked (a loaded machine's sleeps run long). */
const passed = (deadline: { aborted: boolean; addEventListener(type: 'abort', listener: () => void): void }) =>
  new Promise<void>((resolve) => (deadline.aborted ? resolve() : deadline.addEventListener('abort', () => resolve())))
const timeout = () => new DOMException('upstream timeout', 'TimeoutError')

describe('DeadlineClock', () => {
  test('a deadline passes between its limit and the shared timer’s window after it, with the clock’s reason', async () => {
    const clock = new DeadlineClock(LIMIT_MS, timeout)
    const started = performance.now()
    const deadline = clock.start()
    const passed = new Promise<number>((resolve) => deadline.addEventListener('abort', () => resolve(performance.now() - started)))
    const elapsed = await passed
    expect(elapsed).toBeGreaterThanOrEqual(LIMIT_MS)
    // Timers fire late on a loaded machine, so this bound is loose: the deadline passes on its own
    // timer, not at some much later event.
    expect(elapsed).toBeLessThan(LIMIT_MS + SHARED_TIMER_MS + 1000)
    expect(deadline.aborted).toBe(true)
    expect(deadline.reason).toMatchObject({ name: 'TimeoutError' })
    expect(() => deadline.throwIfAborted()).toThrow('upstream timeout')
    // A signal asked for afterwards (Bun's fetch) is already aborted, with the same reason.
    expect(deadline.signal.aborted).toBe(true)
    expect(deadline.signal.reason).toBe(deadline.reason)
  })

  test('in one batch, a stopped deadline never passes and the others still do', async () => {
    const clock = new DeadlineClock(LIMIT_MS, timeout)
    const stopped = clock.start()
    const running = clock.start()
    let stoppedHeard = 0
    stopped.addEventListener('abort', () => stoppedHeard++)
    const signal = running.signal
    const heard: string[] = []
    running.addEventListener('abort', () => heard.push('first'))
    running.addEventListener('abort', () => heard.push('second'))
    stopped.stop()
    await Bun.sleep(LIMIT_MS + SHARED_TIMER_MS + 100)
    expect(stopped.aborted).toBe(false)
    expect(stoppedHeard).toBe(0)
    expect(running.aborted).toBe(true)
    expect(heard).toEqual(['first', 'second'])
    // A signal taken before the deadline passed is aborted with it.
    expect(signal.aborted).toBe(true)
    expect(signal.reason).toMatchObject({ name: 'TimeoutError' })
  })

  test('a listener removed before the deadline passes is not called; a deadline passes once', async () => {
    const clock = new DeadlineClock(LIMIT_MS, timeout)
    const deadline = clock.start()
    let removed = 0
    let kept = 0
    const listener = () => removed++
    deadline.addEventListener('abort', listener)
    deadline.addEventListener('abort', () => kept++)
    deadline.removeEventListener('abort', listener)
    await Bun.sleep(LIMIT_MS + SHARED_TIMER_MS + 100)
    deadline.abort(new Error('again'))
    expect([removed, kept]).toEqual([0, 1])
    expect(deadline.reason).toMatchObject({ name: 'TimeoutError' })
  })

  test('a deadline that joins a batch late still gets its whole limit; one started after the batch closed gets a timer of its own', async () => {
    const clock = new DeadlineClock(LIMIT_MS, timeout)
    const early = clock.start()
    await Bun.sleep(SHARED_TIMER_MS / 2)
    const joined = clock.start()
    const joinedStarted = performance.now()
    const joinedPassed = new Promise<number>((resolve) => joined.addEventListener('abort', () => resolve(performance.now() - joinedStarted)))
    await Bun.sleep(SHARED_TIMER_MS)
    const late = clock.start()
    const lateStarted = performance.now()
    // When each passed, taken as it passes (not when the test looks: a loaded machine looks late).
    const latePassed = new Promise<number>((resolve) => late.addEventListener('abort', () => resolve(performance.now() - lateStarted)))
    await passed(early)
    // Neither the one that joined the early batch nor the later one is ended by the early batch's timer.
    expect(await joinedPassed).toBeGreaterThanOrEqual(LIMIT_MS)
    expect(await latePassed).toBeGreaterThanOrEqual(LIMIT_MS)
  })

  test('our HTTP/1.1 client gives up a silent exchange at the deadline and closes the connection', async () => {
    let closed = false
    const listener = await RawListener.start('127.0.0.1', (socket) => void socket.on('close', () => (closed = true)))
    const pool = new Http1Pool()
    try {
      const deadline = new DeadlineClock(LIMIT_MS, timeout).start()
      const started = performance.now()
      await expect(pool.request(new URL(`http://127.0.0.1:${listener.port}/`), { method: 'GET', headers: [], signal: deadline })).rejects.toMatchObject({ name: 'TimeoutError' })
      expect(performance.now() - started).toBeGreaterThanOrEqual(LIMIT_MS)
      expect(await within(2000, () => closed)).not.toBeNull()
    } finally {
      pool.closeIdle()
      await listener.stop()
    }
  })
})
