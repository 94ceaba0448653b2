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
  return (
    <dialog ref={ref} aria-labelledby={titleId.current} class="dialog">
      {props.open && (
        <>
          <h2 id={titleId.current}>{props.title}</h2>
          {props.children}
        </>
      )}
    </dialog>
  )
}
