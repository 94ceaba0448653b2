// The page's one h1: it names the page and the tab's <title>, and takes focus after a navigation.
import { useLayoutEffect, useRef } from 'preact/hooks'

let focusOnNextHeading = false
/** Called by the router on every navigation (not on first load: the skip link comes first there). */
export function focusHeadingAfterNavigation(): void {
  focusOnNextHeading = true
}

const HEADING_ID = 'page-title'

/** Focus to the page's h1: after an action whose control went away, or from the skip link. */
export function focusHeading(): void {
  document.getElementById(HEADING_ID)?.focus()
}

/** Whether the page's h1 has focus (as a navigation leaves it). */
export function headingHasFocus(): boolean {
  return document.activeElement?.id === HEADING_ID
}

export function Heading({ children }: { children: string }) {
  const ref = useRef<HTMLHeadingElement>(null)
  // The tab's title changes in the render that shows the heading, not after the next frame: a
  // screen reader, a tab strip or a test reading the title once the h1 is there reads this page's.
  useLayoutEffect(() => {
    document.title = `${children} · admin-dashboard`
  }, [children])
  // Focus moves in the render that shows the page, not after its next frame: a key pressed as the
  // page appears (on a slow device, before that frame) acts from the h1, and the move to the h1
  // never comes later to take focus from where those keys put it (an effect still waiting for
  // that frame also runs when the page renders again, as when a button there opens a dialog).
  useLayoutEffect(() => {
    if (focusOnNextHeading && ref.current) {
      focusOnNextHeading = false
      ref.current.focus()
    }
  })
  return (
    <h1 ref={ref} tabIndex={-1} id={HEADING_ID}>
      {children}
    </h1>
  )
}
