// A modal dialog on the native <dialog>: labelled by its heading, focus kept inside while open,
// Escape closes, and focus returns to what opened it.
import { useEffect, useRef } from 'preact/hooks'
import type { ComponentChildren } from 'preact'

let counter = 0

export function Dialog(props: { open: boolean; title: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null)
  const opener = useRef<Element | null>(null)
  const titleId = useRef(`dialog-title-${++counter}`)
  useEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    if (props.open && !dialog.open) {
      opener.current = document.activeElement
      dialog.showModal()
    } else if (!props.open && dialog.open) {
      dialog.close()
    }
  }, [props.open])
  useEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    const closed = () => {
      const back = opener.current as HTMLElement | null
      if (back && document.contains(back)) back.focus()
      if (props.open) props.onClose()
    }
    dialog.addEventListener('close', closed)
    return () => dialog.removeEventListener('close', closed)
  })
  // showModal makes the page inert, but Tab can still leave for the browser's own controls: cycle instead.
  const trap = (event: KeyboardEvent) => {
    if (event.key !== 'Tab' || !ref.current) return
    const focusable = [...ref.current.querySelectorAll<HTMLElement>('button, [href], input, select, textarea, [tabindex]:not([tabindex="-1"])')].filter(
      (element) => !element.hasAttribute('disabled') && element.getClientRects().length > 0,
    )
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
