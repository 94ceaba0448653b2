// A widget that stays current while the overview is on screen (a wall display): loaded once, then
// again every `everyMs` while the page is visible, and at once when it becomes visible again.
// One request at a time: the next is scheduled only when the last has answered, so a slow upstream
// never piles requests up. A later answer changes what is shown in place (never back to "Loading…"),
// so nothing flickers, nothing that has focus is rebuilt, and nothing is announced by itself.
// The checks the page makes by itself say so (`Caller`): when one finds the session gone, checking
// stops and the app shows that the session has ended, rather than sending an unattended browser to
// the sign-in, which a provider that remembers the operator would answer with a new session.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import type { ApiFailure, ApiResult, Caller } from '../../api.ts'

export type LiveLoaded<T> =
  | { state: 'loading' }
  | { state: 'failed'; failure: ApiFailure }
  /** `stale`: the last check failed, and what is shown is from `checkedAt`; `refreshing`: a person asked to check again, and it runs. */
  | { state: 'ready'; data: T; checkedAt: string; stale: ApiFailure | null; refreshing?: boolean }

/**
 * `load` and `onChange` are read once, when the widget appears. `onChange` hears of every answer
 * after the first, with the one before it. The second value checks again now (a Retry button),
 * unless a check is already under way.
 */
export function useLiveLoad<T>(load: (caller: Caller) => Promise<ApiResult<T>>, everyMs: number, onChange?: (before: T, after: T) => void): [LiveLoaded<T>, () => void] {
  const [loaded, setLoaded] = useState<LiveLoaded<T>>({ state: 'loading' })
  const checkNow = useRef<() => void>(() => {})
  useEffect(() => {
    let mounted = true
    let running = false
    let last: { data: T } | null = null
    let timer: ReturnType<typeof setTimeout> | undefined
    const schedule = () => {
      clearTimeout(timer)
      // A hidden page is not checked: the check resumes when it is shown again.
      timer = document.hidden ? undefined : setTimeout(() => void check('page'), everyMs)
    }
    const check = async (caller: Caller) => {
      if (running) return
      running = true
      clearTimeout(timer)
      // A person's Retry is answered at once with a busy region (a failure gives way to "Loading…",
      // a stale answer stays, marked as refreshing), as in every other region; the timed checks
      // change nothing until they have answered.
      if (caller === 'person') setLoaded((previous) => (previous.state === 'failed' ? { state: 'loading' } : previous.state === 'ready' ? { ...previous, refreshing: true } : previous))
      const result = await load(caller)
      running = false
      if (!mounted) return
      // The session is gone: nothing more to check until someone signs in again.
      if (!result.ok && result.failure.status === 401) return
      if (result.ok) {
        if (last) onChange?.(last.data, result.data)
        last = { data: result.data }
        setLoaded({ state: 'ready', data: result.data, checkedAt: new Date().toISOString(), stale: null })
      } else {
        setLoaded((previous) => (previous.state === 'ready' ? { ...previous, stale: result.failure, refreshing: false } : { state: 'failed', failure: result.failure }))
      }
      schedule()
    }
    const onVisibility = () => {
      if (document.hidden) clearTimeout(timer)
      else void check('page')
    }
    checkNow.current = () => void check('person')
    document.addEventListener('visibilitychange', onVisibility)
    // The first check comes with the page the person opened.
    void check('person')
    return () => {
      mounted = false
      clearTimeout(timer)
      document.removeEventListener('visibilitychange', onVisibility)
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [])
  const retry = useCallback(() => checkNow.current(), [])
  return [loaded, retry]
}
