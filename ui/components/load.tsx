// Loading, failure and retry for a region: aria-busy while loading, the envelope's message and a
// Retry button on failure.
import { useEffect, useState, useCallback } from 'preact/hooks'
import type { ComponentChildren } from 'preact'
import type { ApiFailure, ApiResult } from '../api.ts'

type Loaded<T> = { state: 'loading' } | { state: 'failed'; failure: ApiFailure } | { state: 'ready'; data: T }

export function useLoad<T>(load: () => Promise<ApiResult<T>>, deps: unknown[]): [Loaded<T>, () => void, (data: T) => void] {
  const [value, setValue] = useState<Loaded<T>>({ state: 'loading' })
  const [round, setRound] = useState(0)
  useEffect(() => {
    let current = true
    setValue({ state: 'loading' })
    load().then((result) => {
      if (!current) return
      setValue(result.ok ? { state: 'ready', data: result.data } : { state: 'failed', failure: result.failure })
    })
    return () => {
      current = false
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, round])
  const retry = useCallback(() => setRound((n) => n + 1), [])
  const replace = useCallback((data: T) => setValue({ state: 'ready', data }), [])
  return [value, retry, replace]
}

export function Region<T>(props: { loaded: Loaded<T>; retry: () => void; label: string; children: (data: T) => ComponentChildren; class?: string }) {
  const { loaded } = props
  return (
    <div class={props.class} aria-busy={loaded.state === 'loading' ? 'true' : 'false'}>
      {loaded.state === 'loading' && <p class="muted">Loading {props.label}…</p>}
      {loaded.state === 'failed' && <ErrorView failure={loaded.failure} retry={props.retry} />}
      {loaded.state === 'ready' && props.children(loaded.data)}
    </div>
  )
}

export function ErrorView({ failure, retry }: { failure: ApiFailure; retry?: () => void }) {
  return (
    <div class="error-view" role="alert">
      <p>{failure.message}</p>
      {retry && (
        <button type="button" onClick={retry}>
          Retry
        </button>
      )}
    </div>
  )
}
