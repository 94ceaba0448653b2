// The page's one h1: it names the page and the tab's <title>, and takes focus after a navigation.
import { useEffect, useRef } from 'preact/hooks'

let focusOnNextHeading = false
/** Called by the router on every navigation (not on first load: the skip link comes first there). */
export function focusHeadingAfterNavigation(): void {
  focusOnNextHeading = true
}

export function Heading({ children }: { children: string }) {
  const ref = useRef<HTMLHeadingElement>(null)
  useEffect(() => {
    document.title = `${children} · admin-dashboard`
  }, [children])
  useEffect(() => {
    if (focusOnNextHeading && ref.current) {
      focusOnNextHeading = false
      ref.current.focus()
    }
  })
  return (
    <h1 ref={ref} tabIndex={-1} id="page-title">
      {children}
    </h1>
  )
}
