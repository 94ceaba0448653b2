// A modal dialog on the native <dialog>: labelled by its heading, focus kept inside while open,
// Escape and Back close it, and focus returns to what opened it (or, when that is gone, to where it was).
import { useEffect, useRef } from 'preact/hooks'
import type { ComponentChildren } from 'preact'
import { focusables, placeOf, returnFocusTo, type Place } from './focus.ts'

let counter = 0

export function Dialog(props: { open: boolean; title: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null)
  const opener = useRef<Place | null>(null)
  const titleId = useRef(`dialog-title-${++counter}`)
  useEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    if (props.open && !dialog.open) {
      opener.current = placeOf(document.activeElement)
      dialog.showModal()
    } else if (!props.open && dialog.open) {
      dialog.close()
    }
  }, [props.open])
  useEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    // Escape: the owner learns at once (the close event comes a moment later, and by then the
    // dialog may have been opened again).
    const cancelled = () => props.onClose()
    // The close event of a dialog that is open again by now is stale.
    const closed = () => {
      if (!dialog.open) returnFocusTo(opener.current)
    }
    dialog.addEventListener('cancel', cancelled)
    dialog.addEventListener('close', closed)
    return () => {
      dialog.removeEventListener('cancel', cancelled)
      dialog.removeEventListener('close', closed)
    }
  })
  // Back or Forward while it is open: what it asks about belongs to the page being left.
  useEffect(() => {
    if (!props.open) return
    const moved = () => props.onClose()
    window.addEventListener('popstate', moved)
    return () => window.removeEventListener('popstate', moved)
  })
  // showModal makes the page inert, but Tab can still leave for the browser's own controls: cycle instead.
  const trap = (event: KeyboardEvent) => {
    if (event.key !== 'Tab' || !ref.current) return
    const focusable = focusables(ref.current)
    const first = focusable[0]
    const last = focusable[focusable.length - 1]
    if (!first || !last) return
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault()
      last.focus()
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault()
      first.focus()
    }
  }
  return (
    <dialog ref={ref} aria-labelledby={titleId.current} class="dialog" onKeyDown={trap}>
      {props.open && (
        <>
          <h2 id={titleId.current}>{props.title}</h2>
          {props.children}
        </>
      )}
    </dialog>
  )
}
