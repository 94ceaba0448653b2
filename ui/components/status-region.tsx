// The one role="status" live region, shown as a box at the foot of the screen (layout.css). It comes
// after the page's main region, where it takes room of its own, so that at the end of the page it
// is below the last control rather than over it; further up, while it stays at the foot of the
// screen, the page is scrolled so that the control that has focus is never under it (WCAG 2.4.11):
// when a message appears over that control, and when focus moves under a message shown.
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks'
import { statusMessage } from './status.ts'

/** Room left between the focused control (with its focus ring) and the box. */
const CLEARANCE_PX = 8

function keepFocusClearOf(box: HTMLElement | null): void {
  if (!box || box.textContent === '') return
  const focused = document.activeElement
  // A dialog is drawn above the page and its box.
  if (!(focused instanceof HTMLElement) || focused === document.body || focused.closest('dialog[open]')) return
  const under = box.getBoundingClientRect()
  const control = focused.getBoundingClientRect()
  const overlap = control.bottom + CLEARANCE_PX - under.top
  if (overlap <= 0 || control.top >= under.bottom || control.right <= under.left || control.left >= under.right) return
  // Something taller than the screen above the box (a table's scrolling box) keeps its top in view.
  window.scrollBy({ top: Math.min(overlap, Math.max(0, control.top)) })
}

export function StatusRegion() {
  const box = useRef<HTMLDivElement>(null)
  const message = statusMessage.value
  useLayoutEffect(() => {
    if (message) keepFocusClearOf(box.current)
  }, [message])
  useEffect(() => {
    // After the browser's own scroll to the newly focused control, which brings it only to the foot of the screen.
    const moved = () => requestAnimationFrame(() => keepFocusClearOf(box.current))
    document.addEventListener('focusin', moved)
    return () => document.removeEventListener('focusin', moved)
  }, [])
  return (
    <div role="status" class="status-region" aria-live="polite" ref={box}>
      {message}
    </div>
  )
}
