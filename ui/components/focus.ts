// Focus is never left on nothing. When the focused control goes away (its row was revoked, its
// section re-rendered) focus moves to the nearest place that is still there: the first control of
// an open dialog it was in, else the heading of its section, else the page's h1. When the control is
// only disabled for a moment (busy while its request runs), focus comes back to it once it is
// enabled again. A person who clicks on empty page is left alone: only a loss caused by the page
// itself is mended.

import { useCallback, useLayoutEffect, useState } from 'preact/hooks'
import { clearEarlierAnnouncement } from './status.ts'

const FOCUSABLE = 'button, [href], input, select, textarea, [tabindex]:not([tabindex="-1"])'

/** A control and the elements around it when it had focus: where to go if it is gone later. */
export interface Place {
  element: HTMLElement
  ancestors: HTMLElement[]
}

export function placeOf(element: Element | null): Place | null {
  if (!(element instanceof HTMLElement) || element === document.body) return null
  const ancestors: HTMLElement[] = []
  for (let node = element.parentElement; node; node = node.parentElement) ancestors.push(node)
  return { element, ancestors }
}

let remembered: Place | null = null
/** The remembered control lost focus because it was disabled: give it back when it is enabled. */
let waitingForEnable = false

const focusLost = () => document.activeElement === null || document.activeElement === document.body

const usable = (element: HTMLElement) => element.isConnected && !element.hasAttribute('disabled') && element.getClientRects().length > 0

/** The controls inside `container` that can take focus now, in document order. */
export function focusables(container: Element): HTMLElement[] {
  return [...container.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(usable)
}

function focusHeadingOf(container: Element | null): void {
  const heading = container?.querySelector<HTMLElement>('h2, h1') ?? document.querySelector<HTMLElement>('main h1')
  if (!heading) return
  if (!heading.hasAttribute('tabindex')) heading.tabIndex = -1
  heading.focus()
}

/** Where focus goes when the control of `place` is gone. */
function focusNearest(place: Place): void {
  for (const ancestor of place.ancestors) {
    if (!ancestor.isConnected) continue
    if (ancestor instanceof HTMLDialogElement) {
      // A dialog that is closing returns focus itself (see Dialog); one that stays open keeps it.
      if (!ancestor.open) return
      focusables(ancestor)[0]?.focus()
      return
    }
    if (ancestor.matches('section, [role="region"], main')) return focusHeadingOf(ancestor)
  }
  focusHeadingOf(null)
}

/**
 * Gives focus to the control of `place`; when it is disabled and `wait`, once it is enabled again;
 * otherwise (gone, or disabled for good) to the nearest place still there.
 */
function settle(place: Place, wait: boolean): void {
  remembered = place
  waitingForEnable = false
  const { element } = place
  // A control enabled again gets focus back where it is: the page does not scroll to it (away
  // from an error just brought into view).
  if (usable(element)) element.focus(wait ? { preventScroll: true } : undefined)
  else if (wait && element.isConnected && element.hasAttribute('disabled')) waitingForEnable = true
  else {
    remembered = null
    focusNearest(place)
  }
}

function mend(): void {
  if (!remembered) return
  const { element } = remembered
  // The browser lets go of a disabled control's focus a moment later, without an event: note it now.
  if (element.isConnected && element.hasAttribute('disabled')) {
    waitingForEnable = true
    return
  }
  if (!focusLost()) return
  if (!element.isConnected || waitingForEnable) settle(remembered, true)
}

/**
 * Focus back to what opened a dialog, or, when it is gone or disabled (a bulk action whose
 * selection the dialog's action cleared), to the nearest place still there.
 */
export function returnFocusTo(place: Place | null): void {
  if (place) settle(place, false)
}

export function keepFocus(): void {
  document.addEventListener('focusin', (event) => {
    const place = placeOf(event.target as Element | null)
    if (place) {
      remembered = place
      waitingForEnable = false
    }
  })
  new MutationObserver(mend).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['disabled'] })
}

/**
 * After a refused submit, focus goes to the first field of the form that says what is wrong, in the
 * render that says so: not a frame later, when the person may already have moved on (to Save again,
 * with Enter pressed there) and would be pulled back. The function returned is what the submit calls
 * with its form, in the same handler that sets the errors. What the status region said before goes.
 */
export function useFocusFirstInvalid(): (form: Element) => void {
  const [refused, setRefused] = useState<{ form: Element } | null>(null)
  useLayoutEffect(() => {
    const field = refused?.form.querySelector<HTMLElement>('[aria-invalid="true"]')
    if (!field) return
    // Its label and message in view with it: a field scrolled to from below would sit at the top
    // of a phone's screen with its label above it, out of sight.
    field.focus({ preventScroll: true })
    ;(field.closest('.field') ?? field).scrollIntoView({ block: 'nearest' })
  }, [refused])
  // A refusal is a failure shown: an earlier outcome ("Metadata saved.") goes, or it would read
  // beside it as if this change had been made.
  return useCallback((form: Element) => (clearEarlierAnnouncement(), setRefused({ form })), [])
}
