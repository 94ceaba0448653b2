// Client-side routes are real paths under /dashboard; the URL (path and query) is the state of
// navigation, so reload, back and forward keep the place.
import { signal } from '@preact/signals'
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import type { Draft } from './drafts.ts'

export const location = signal({ path: window.location.pathname, search: window.location.search })

/**
 * Something on screen that leaving the page loses for good (a client secret or a recovery link,
 * shown once; edits typed into a form and not saved): while a page holds one, leaving it asks
 * first, whichever way it is left (a link, Back or Forward within the app, a reload, closing the
 * tab). `loss` says what would be lost, as a sentence.
 */
type LeaveGuardKind = 'shown-once' | 'unsaved'
/** A form's unsaved edits: `what` they are to ("the traits"), and its draft when it can keep one. */
export interface UnsavedForm {
  what: string
  keep?: () => (Draft & { form: string }) | null
}
interface LeaveGuard {
  loss: string
  kind: LeaveGuardKind
  form?: UnsavedForm
}
const leaveGuards = new Set<LeaveGuard>()

/**
 * While `loss` is not null, leaving the page asks first (a confirmation that says it); null lets go.
 * Returns what lets go at once, for a page about to be left by its own action (a form that has just
 * saved and opens what it made), before the render that would let go.
 */
export function useLeaveGuard(loss: string | null, kind: LeaveGuardKind = 'shown-once', form?: UnsavedForm): () => void {
  const held = useRef<LeaveGuard | null>(null)
  // Held from the render that shows the change: a link clicked right after typing already asks.
  useLayoutEffect(() => {
    if (loss === null) return
    const guard = { loss, kind, form }
    leaveGuards.add(guard)
    held.current = guard
    return () => {
      leaveGuards.delete(guard)
      if (held.current === guard) held.current = null
    }
  }, [loss, kind])
  return useCallback(() => {
    if (held.current) leaveGuards.delete(held.current)
  }, [])
}

/**
 * Lets go of every unsaved form at once: the page gives way to "Session ended", and what becomes of
 * those edits is said there and when the person is back (the lost-write notice).
 */
export function releaseUnsavedChanges(): void {
  for (const guard of leaveGuards) if (guard.kind === 'unsaved') leaveGuards.delete(guard)
}

/** The forms holding unsaved edits now. */
export function unsavedForms(): UnsavedForm[] {
  return [...leaveGuards].flatMap((guard) => (guard.form ? [guard.form] : []))
}

/** The question leaving asks: everything it would lose, each said once, then `proceed`. */
function leaveQuestion(proceed: string): string | null {
  if (leaveGuards.size === 0) return null
  const losses = [...new Set([...leaveGuards].map((guard) => guard.loss))]
  return `${losses.join(' ')} ${proceed}`
}

/**
 * Whether the page may be left: yes when nothing guards it, or when the person confirms. `proceed`
 * ends the question with what leaving is ("Sign out anyway?" when Sign out takes the page away).
 */
export function mayLeave(proceed = 'Leave anyway?'): boolean {
  const question = leaveQuestion(proceed)
  if (question === null) return true
  if (!window.confirm(question)) return false
  // Asked once: the page going away drops its guards, and nothing asks again on the way.
  leaveGuards.clear()
  return true
}

/**
 * Whether the page may be left for the sign-in after the session ended at a change: yes unless it
 * shows something once (a recovery link) and the person declines. Unsaved edits are not asked
 * about: their drafts are kept (drafts.ts). Confirmed, nothing asks again on the way (the browser's
 * own question on unload would otherwise come after the drafts were written, and Stay would leave
 * them behind).
 */
export function mayLeaveForSignIn(proceed: string): boolean {
  const shownOnce = [...leaveGuards].filter((guard) => guard.kind === 'shown-once')
  if (shownOnce.length > 0 && !window.confirm(`${[...new Set(shownOnce.map((guard) => guard.loss))].join(' ')} ${proceed}`)) return false
  leaveGuards.clear()
  return true
}

// A reload or closing the tab: the browser's own question (it shows its own words).
window.addEventListener('beforeunload', (event) => {
  if (leaveGuards.size === 0) return
  event.preventDefault()
  event.returnValue = ''
})

/**
 * Where each entry of this app stands in the tab's history, kept in its history.state: a step Back
 * or Forward the person declines is undone in its own direction, so the history stays as it was.
 */
const indexOf = (state: unknown): number | null =>
  typeof state === 'object' && state !== null && typeof (state as { index?: unknown }).index === 'number' ? (state as { index: number }).index : null
let shownIndex = indexOf(history.state) ?? 0
if (indexOf(history.state) === null) history.replaceState({ index: shownIndex }, '')
/** The step that undoes a declined one is under way: its popstate is not a step of the person's. */
let undoing = false

export function navigate(href: string, options: { replace?: boolean; unguarded?: boolean } = {}): void {
  const url = new URL(href, window.location.href)
  if (url.origin !== window.location.origin) {
    window.location.assign(url.href)
    return
  }
  const here = location.peek()
  const leaving = url.pathname !== here.path || url.search !== here.search
  if (leaving && !options.unguarded && !mayLeave()) return
  // A link to the page already shown makes no new entry (as a browser does for a plain link to
  // the URL shown): Back then leaves the page, however often its link was pressed.
  if (options.replace || !leaving) history.replaceState({ index: shownIndex }, '', url.pathname + url.search)
  else history.pushState({ index: ++shownIndex }, '', url.pathname + url.search)
  location.value = { path: url.pathname, search: url.search }
}

/**
 * Leaves the page at `from` for `href` once an action there has finished, unless the person has
 * gone elsewhere meanwhile: a late answer never pulls them off the page they are on now. The
 * action (a delete) has ended the record, and with it anything shown once about it: no question.
 */
export function navigateFrom(from: string, href: string): void {
  if (location.peek().path === from) navigate(href, { unguarded: true })
}

// Registered before any dialog's listener (see components/dialog.tsx), so that a Back the person
// takes back leaves an open dialog open.
window.addEventListener('popstate', (event) => {
  const to = indexOf(event.state)
  if (undoing) {
    // Back on the entry still shown, after a declined step: nothing has changed.
    undoing = false
    event.stopImmediatePropagation()
    if (to !== null) shownIndex = to
    return
  }
  if (!mayLeave()) {
    // The browser has already moved: the step is undone in its own direction (Forward after a
    // declined Back), so the entries before and after stay where they were.
    event.stopImmediatePropagation()
    if (to !== null && to !== shownIndex) {
      undoing = true
      history.go(shownIndex - to)
    } else {
      const shown = location.peek()
      history.pushState({ index: ++shownIndex }, '', shown.path + shown.search)
    }
    return
  }
  if (to !== null) shownIndex = to
  location.value = { path: window.location.pathname, search: window.location.search }
})

// Plain links inside the app navigate without a reload.
document.addEventListener('click', (event) => {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
  const anchor = (event.target as Element | null)?.closest?.('a')
  if (!anchor || anchor.target || anchor.hasAttribute('download')) return
  const url = new URL(anchor.href, window.location.href)
  if (url.origin !== window.location.origin || !url.pathname.startsWith('/dashboard')) return
  event.preventDefault()
  navigate(url.pathname + url.search)
})

/**
 * The query each page was last shown with in this tab: a record's breadcrumb leads back to its list
 * as the person left it (its filter and page), as Back does, not to the list's first page unfiltered.
 */
const lastQueries = new Map<string, string>()
location.subscribe(({ path, search }) => lastQueries.set(path, search))
export const asLastShown = (path: string): string => path + (lastQueries.get(path) ?? '')

export function queryParam(name: string): string | null {
  return new URLSearchParams(location.value.search).get(name)
}

/** The current path with some query parameters changed (null removes one). */
export function withQuery(changes: Record<string, string | null>): string {
  const params = new URLSearchParams(location.value.search)
  for (const [key, value] of Object.entries(changes)) {
    if (value === null || value === '') params.delete(key)
    else params.set(key, value)
  }
  const text = params.toString()
  return location.value.path + (text ? `?${text}` : '')
}

/**
 * An editable copy of a query value (a search box's text): it follows the URL when the URL
 * changes (back, forward, a link), and is left alone otherwise, so text typed right after the page
 * appeared is never reset to what the URL said at the start.
 */
export function useQueryText(value: string): [string, (text: string) => void] {
  const [text, setText] = useState(value)
  const followed = useRef(value)
  useEffect(() => {
    if (followed.current === value) return
    followed.current = value
    setText(value)
  }, [value])
  return [text, setText]
}

/**
 * State about the list as it was read for the query it was set on (a notice about that list, a
 * row's failure): another search or page, Back, Forward included, lets go of it. Hidden from the
 * render that shows the other list, and dropped for good, so coming back does not bring it back.
 */
export function useQueryState<T extends object>(): [T | null, (value: T | null) => void] {
  const [held, setHeld] = useState<{ value: T; search: string } | null>(null)
  const current = held !== null && held.search === location.value.search ? held.value : null
  useEffect(() => {
    if (held !== null && current === null) setHeld(null)
  }, [held, current])
  const set = useCallback((value: T | null) => setHeld(value === null ? null : { value, search: location.peek().search }), [])
  return [current, set]
}
