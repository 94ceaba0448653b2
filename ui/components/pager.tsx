// Token paging whose place lives in the URL: `page_token` for this page, `trail` for the tokens of
// the pages before it (so Previous page, reload and back keep the place), `page_size`.
import { useRef, useState } from 'preact/hooks'
import { location, navigate, queryParam, withQuery } from '../router.ts'
import { focusHeadingAfterNavigation } from './heading.tsx'
import type { LinkPlace } from './load.tsx'
import { trailPaging } from './trail.ts'

export const PAGE_SIZES = [25, 50, 100, 250]

interface TokenPaging {
  size: number
  token: string
  page: number
  /** Previous page leads to the first page: the URL no longer holds the page before (trail.ts). */
  previousIsFirst: boolean
  /** Goes to the page after this one. */
  next(token: string): void
  previous(): void
  /** Query changes (filters) that start again from the first page. */
  restart(changes: Record<string, string | null>): void
  /** This place as links back to the first page and to the list without the named filters. */
  place(filters: string[]): LinkPlace
}

export function useTokenPaging(): TokenPaging {
  const requested = Number(queryParam('page_size'))
  const size = PAGE_SIZES.includes(requested) ? requested : PAGE_SIZES[0]!
  const token = queryParam('page_token') ?? ''
  const trail = trailPaging(queryParam('trail'), token)
  return {
    size,
    token,
    page: trail.page,
    previousIsFirst: trail.previous?.first === true,
    next: (nextToken) => navigate(withQuery(trail.next(nextToken))),
    previous: () => trail.previous && navigate(withQuery({ page_token: trail.previous.page_token, trail: trail.previous.trail })),
    restart: (changes) => navigate(withQuery({ ...changes, page_token: null, trail: null })),
    place: (filters) => ({
      firstPage: token ? withQuery({ page_token: null, trail: null }) : null,
      unfiltered: filters.some((name) => queryParam(name)) ? withQuery({ ...Object.fromEntries(filters.map((name) => [name, null])), page_token: null, trail: null }) : null,
    }),
  }
}

export function Pager({ paging, next }: { paging: TokenPaging; next: string | null | undefined }) {
  return (
    <div class="pager">
      <PreviousAndNumber page={paging.page} disabled={paging.page === 1} toFirst={paging.previousIsFirst} onClick={paging.previous} />
      <button type="button" disabled={!next} onClick={() => next && paging.next(next)}>
        Next page
      </button>
      <PageSizeSelect size={paging.size} onChange={(size) => paging.restart({ page_size: size })} />
    </div>
  )
}

/**
 * Previous page (ui.md's name), the page number, and where Previous page leads when the link no
 * longer holds the page before (trail.ts): to the first page, said after the number and read with
 * the button.
 */
export function PreviousAndNumber({ page, disabled, toFirst, onClick }: { page: number; disabled: boolean; toFirst: boolean; onClick: () => void }) {
  return (
    <>
      <button type="button" disabled={disabled} onClick={onClick} aria-describedby={toFirst ? 'previous-to-first' : undefined}>
        Previous page
      </button>
      <span>Page {page}</span>
      {toFirst && (
        <span id="previous-to-first" class="muted">
          (Previous page leads to the first page: the pages between are too many to keep in the address)
        </span>
      )}
    </>
  )
}

/** Keys that step a closed select to its next or previous option (Chromium, Firefox). */
const STEP_KEYS = new Set(['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Home', 'End', 'PageUp', 'PageDown'])

/**
 * The page-size choice; `onChange` gets the size for the URL (null for the default). Another size
 * reads the list again from its first page and the page goes back to its top, so focus goes to the
 * h1 with it, as after Next page: left on this select, it would stay far down the page, off screen.
 * (A filter at the top of the page keeps focus: see App.) A size stepped to with the arrow keys is
 * only shown until Enter, or leaving the select, applies it: each step would otherwise read the
 * list again and take focus away, and 100 or 250 could not be reached from the keyboard.
 */
export function PageSizeSelect({ size, onChange }: { size: number; onChange: (size: string | null) => void }) {
  const [stepped, setStepped] = useState<string | null>(null)
  const stepping = useRef(false)
  const apply = (chosen: string) => {
    setStepped(null)
    if (chosen === String(size)) return
    const before = location.peek()
    onChange(chosen === String(PAGE_SIZES[0]) ? null : chosen)
    // Not when leaving was declined (the page stays as it was).
    if (location.peek() !== before) focusHeadingAfterNavigation()
  }
  return (
    <label class="page-size">
      <span>Page size</span>
      <select
        value={stepped ?? String(size)}
        aria-describedby="page-size-keys"
        onKeyDown={(event) => {
          if (STEP_KEYS.has(event.key) && !event.altKey) {
            stepping.current = true
            setTimeout(() => (stepping.current = false), 0)
          } else if (event.key === 'Enter' && stepped !== null) {
            event.preventDefault()
            apply(stepped)
          }
        }}
        onChange={(event) => {
          const chosen = event.currentTarget.value
          if (stepping.current) setStepped(chosen)
          else apply(chosen)
        }}
        // Left (Tab, a click elsewhere): the size shown is applied, as with Enter. Not when the
        // window itself lost focus (another application): the person has not left the select.
        onBlur={() => stepped !== null && document.hasFocus() && apply(stepped)}
      >
        {PAGE_SIZES.map((n) => (
          <option key={n} value={String(n)}>
            {n}
          </option>
        ))}
      </select>
      <span id="page-size-keys" class="visually-hidden">
        With the arrow keys, Enter or leaving shows the list at the size chosen.
      </span>
    </label>
  )
}
