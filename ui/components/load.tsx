// Loading, failure and retry for a region: aria-busy while loading; on failure the envelope's
// message with a Retry button, and for a list whose link names a page or a filter its service
// refuses, the way back to the first page or the unfiltered list before it.
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import type { ComponentChildren } from 'preact'
import type { ApiFailure, ApiResult } from '../api.ts'
import { announce, clearEarlierAnnouncement } from './status.ts'
import { copyText } from './clipboard.ts'
import { unavailableWhile } from './one-at-a-time.ts'

export type Loaded<T> = { state: 'loading' } | { state: 'failed'; failure: ApiFailure } | { state: 'ready'; data: T; refreshing?: boolean }

const sameDeps = (a: readonly unknown[], b: readonly unknown[]) => a.length === b.length && a.every((value, i) => Object.is(value, b[i]))

/**
 * What `load` gave for the current `deps`. When `deps` change, the very render that shows the new
 * place (a page number from the URL, another id) already says loading: the previous place's data
 * is never shown under the new one, not even for the frame before the effect runs. A retry of the
 * same place (after a change was saved) keeps showing what was there, marked as refreshing, so
 * nothing on it is torn down and rebuilt under the person's focus.
 */
export function useLoad<T extends object | null>(load: () => Promise<ApiResult<T>>, deps: unknown[]): [Loaded<T>, () => void, (change: T | ((data: T) => T)) => void] {
  const [round, setRound] = useState(0)
  const key = [...deps, round]
  const [value, setValue] = useState<{ key: unknown[]; loaded: Loaded<T> }>({ key, loaded: { state: 'loading' } })
  useEffect(() => {
    let current = true
    setValue((previous) => ({ key, loaded: refreshed(previous, deps) ?? { state: 'loading' } }))
    load()
      .catch((error: unknown): ApiResult<T> => {
        // A page's own reading that threw: a failure with its Retry, never a region busy for good.
        console.error(error)
        return { ok: false, failure: { error: 'page_error', message: 'This page could not read the answer. Try again, or reload the page.', status: 0 } }
      })
      .then((result) => {
        if (!current) return
        setValue({ key, loaded: result.ok ? { state: 'ready', data: result.data } : { state: 'failed', failure: result.failure } })
      })
    return () => {
      current = false
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, key)
  const retry = useCallback(() => setRound((n) => n + 1), [])
  // The new data, or a change to make to the data as it is by then (an answer that arrives while
  // another change is under way keeps what the other did). Made for these `deps`: once the page
  // shows another place (another id), a late answer about the one before changes nothing.
  const replace = useCallback(
    (change: T | ((data: T) => T)) =>
      setValue((previous) => {
        if (!sameDeps(previous.key.slice(0, -1), deps)) return previous
        // Loaded data is never a function (T is a record, a list or null).
        if (typeof change !== 'function') return { key: previous.key, loaded: { state: 'ready', data: change } }
        if (previous.loaded.state !== 'ready') return previous
        return { key: previous.key, loaded: { state: 'ready', data: (change as (data: T) => T)(previous.loaded.data) } }
      }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    deps,
  )
  const shown = sameDeps(value.key, key) ? value.loaded : (refreshed(value, deps) ?? { state: 'loading' })
  return [shown, retry, replace]
}

/**
 * A list read for another query on the same page (a filter, a search, another page) says what it
 * found in the status region: after a filter or a search focus stays in its control, and nothing
 * else would tell a person who cannot see the list. The list of the query the page opened with is
 * read out with its heading, and a list read again for the same query (after a change) is not said
 * again, unless it failed before (a Retry that worked). A search made before that first list
 * arrived is said: it is another query.
 */
export function useResultsAnnounced<T>(loaded: Loaded<T>, query: string, describe: (data: T) => string): void {
  const said = useRef<string | null>(null)
  const opened = useRef(query)
  // A list that failed and then came (Retry): said, as its failure was.
  const failedBefore = useRef(false)
  useEffect(() => {
    if (loaded.state === 'failed') failedBefore.current = true
    if (loaded.state !== 'ready' || loaded.refreshing) return
    const afterFailure = failedBefore.current
    failedBefore.current = false
    if (said.current === query && !afterFailure) return
    const first = said.current === null && query === opened.current && !afterFailure
    said.current = query
    if (!first) announce(describe(loaded.data))
  }, [loaded, query])
}

/** The data shown for the same place while it loads again; null when there is none to keep. */
function refreshed<T>(value: { key: unknown[]; loaded: Loaded<T> }, deps: unknown[]): Loaded<T> | null {
  if (value.loaded.state !== 'ready' || !sameDeps(value.key.slice(0, -1), deps)) return null
  return { state: 'ready', data: value.loaded.data, refreshing: true }
}

/**
 * Where a list's link has taken it (a page token or cursor, a filter), as the links back to safe
 * ground: the same list from its first page with the filter kept, and the list without the filter.
 */
export interface LinkPlace {
  /** null when the link names no page beyond the first. */
  firstPage: string | null
  /** null when the link has no filter. */
  unfiltered: string | null
}

/**
 * The list's service refused the request itself as malformed (Kratos, Hydra and our routes answer
 * 400): when the link carries a page token or a filter, those are what it refused, as the page
 * sends nothing else that could be wrong.
 */
function refusedTheLink(failure: ApiFailure, place: LinkPlace | undefined): place is LinkPlace {
  return place !== undefined && (failure.status === 400 || failure.status === 422) && (place.firstPage !== null || place.unfiltered !== null)
}

/** A record's page: what its 404 says ("No identity has this ID"), and the way back to its list. */
export interface MissingRecord {
  said: string
  /** What may have happened; by default that it was deleted, or the link is old. */
  why?: string
  list: { href: string; name: string }
  /** Found gone while the person was acting on it: the way back takes the focus, which had been on what went. */
  takeFocus?: boolean
}

export function Region<T>(props: {
  loaded: Loaded<T>
  retry: () => void
  label: string
  children: (data: T) => ComponentChildren
  class?: string
  place?: LinkPlace
  missing?: MissingRecord
}) {
  const { loaded, place, missing } = props
  return (
    <div class={props.class} aria-busy={loaded.state === 'loading' || (loaded.state === 'ready' && loaded.refreshing) ? 'true' : 'false'}>
      {loaded.state === 'loading' && <p class="muted">Loading {props.label}…</p>}
      {loaded.state === 'failed' &&
        (refusedTheLink(loaded.failure, place) ? (
          <LinkRefused place={place} retry={props.retry} />
        ) : missing && loaded.failure.status === 404 ? (
          <RecordMissing missing={missing} retry={props.retry} />
        ) : (
          <ErrorView failure={loaded.failure} retry={props.retry} loading />
        ))}
      {loaded.state === 'ready' && props.children(loaded.data)}
    </div>
  )
}

/**
 * A list with nothing to show, in words; on a later page (its rows deleted meanwhile, a link kept
 * too long, one without the trail that Previous page follows) with the way to the first page.
 */
export function EmptyList({ text, firstPage }: { text: string; firstPage: string | null }) {
  return (
    <p class="empty">
      {text}
      {firstPage && (
        <>
          {' '}
          <a href={firstPage}>Go to the first page</a>
        </>
      )}
    </p>
  )
}

/**
 * A link whose page or filter the service refused: the ways out first, as the same link fails
 * again; Retry stays (every error offers it, ui.md), for a service that refused by mistake.
 */
function LinkRefused({ place, retry }: { place: LinkPlace; retry: () => void }) {
  const what = place.firstPage && place.unfiltered ? 'The page or the filter' : place.firstPage ? 'The page' : 'The filter'
  return (
    <div class="error-view" role="alert">
      <p>{what} in this link is not valid: the link may be old or changed by hand.</p>
      <p class="actions">
        {place.firstPage && <a href={place.firstPage}>Go to the first page</a>}
        {place.unfiltered && <a href={place.unfiltered}>Clear the filter</a>}
        <button type="button" onClick={retry}>
          Retry
        </button>
      </p>
    </div>
  )
}

/**
 * A record that is not there (deleted, or a link kept too long): said so, with the way back to its
 * list first; Retry stays (every error offers it, ui.md), for a record that comes back.
 */
function RecordMissing({ missing, retry }: { missing: MissingRecord; retry: () => void }) {
  const link = useRef<HTMLAnchorElement>(null)
  useLayoutEffect(() => {
    if (missing.takeFocus) link.current?.focus()
  }, [missing.takeFocus])
  return (
    <div class="error-view" role="alert">
      <p>
        {missing.said} {missing.why ?? 'It may have been deleted, or the link is old.'}
      </p>
      <p class="actions">
        <a href={missing.list.href} ref={link}>{`Go to ${missing.list.name}`}</a>
        <button type="button" onClick={retry}>
          Retry
        </button>
      </p>
    </div>
  )
}

/**
 * A failure the person cannot mend by changing what they sent (a 5xx: the service, Kratos or Hydra
 * failed; an answer the page cannot read): one to report, with its request ID. A refusal of what was
 * sent (4xx) says what to change instead.
 */
export const toReport = (failure: ApiFailure) => failure.status >= 500 || failure.error === 'invalid_response'

/**
 * A failure's request ID, when it is one to report (`toReport`): for whoever reads the service's
 * log (and its audit trail, for a change). Closed, so that it is not read out with the message, and
 * closed again for the next failure.
 */
export function FailureDetails({ failure }: { failure: ApiFailure }) {
  if (!failure.requestId || !toReport(failure)) return null
  return <RequestIdDetails key={failure.requestId} requestId={failure.requestId} />
}

function RequestIdDetails({ requestId }: { requestId: string }) {
  return (
    <details class="failure-details">
      <summary>Details</summary>
      <p>
        Request ID: <code class="request-id">{requestId}</code>{' '}
        <button type="button" aria-label="Copy the request ID" onClick={() => copyText(requestId)}>
          Copy
        </button>
      </p>
      <p class="hint">The service's log line for this request carries it; so does its audit event, for a change.</p>
    </details>
  )
}

export function ErrorView({
  failure,
  retry,
  loading = false,
  busy = false,
}: {
  failure: ApiFailure
  retry?: () => void
  /** A region's failure to load. */
  loading?: boolean
  /** The retry is under way: Retry waits for its answer. */
  busy?: boolean
}) {
  const ref = useRef<HTMLDivElement>(null)
  // An action's failure takes the place of an earlier action's outcome in the status region (in
  // the render that shows it, so that both are never on screen together).
  useLayoutEffect(() => {
    if (!retry && !loading) clearEarlierAnnouncement()
  }, [failure])
  // An action's failure (the person acts again) is brought into view where it appears, in the
  // page or in a dialog that scrolls; a region that failed to load stays where it is.
  useEffect(() => {
    if (!retry && !loading) ref.current?.scrollIntoView({ block: 'nearest' })
  }, [failure])
  return (
    <div class="error-view" role="alert" ref={ref}>
      <p>{failure.message}</p>
      <FailureDetails failure={failure} />
      {retry && (
        <button type="button" {...unavailableWhile(busy, retry)}>
          Retry
        </button>
      )}
    </div>
  )
}
