// A modal dialog on the native <dialog>: labelled by its heading, focus kept inside while open,
// Escape and Back close it, and focus returns to what opened it (or, when that is gone, to where it was).
// While the action it asks about is under way, Escape does nothing: the action is not stopped by it.
// A form in it with unsaved edits (useDialogEdits) makes Escape ask first.
import { useContext, useLayoutEffect, useRef, useState } from 'preact/hooks'
import { createContext, type ComponentChildren } from 'preact'
import { focusables, placeOf, returnFocusTo, type Place } from './focus.ts'
import type { ApiFailure } from '../api.ts'
import { ErrorView } from './load.tsx'
import { unavailableWhile } from './one-at-a-time.ts'

let counter = 0

/** What the form inside a dialog holds unsaved ("the new client"), told by useDialogEdits; null when nothing. */
type Pending = () => string | null
const DialogEdits = createContext<{ current: Pending | null } | null>(null)

/**
 * A form in a dialog tells the dialog what it holds unsaved (`pending`: null when nothing): Escape
 * then asks before it closes the dialog and drops it, as leaving the page does. Outside a dialog it
 * does nothing.
 */
export function useDialogEdits(pending: Pending): void {
  const edits = useContext(DialogEdits)
  useLayoutEffect(() => {
    if (!edits) return
    edits.current = pending
    return () => {
      edits.current = null
    }
  }, [edits, pending])
}

export function Dialog(props: {
  open: boolean
  title: string
  onClose: () => void
  /** The action it asks about is under way: Escape does nothing until it is done, and the question says it waits. */
  underway?: boolean
  /**
   * What its form holds unsaved ("the new client"; unsaved.ts `pending`), when the owner keeps the
   * form's state (a form of its own inside it tells it through useDialogEdits): Escape asks before
   * it drops it.
   */
  unsaved?: Pending
  children: ComponentChildren
}) {
  const ref = useRef<HTMLDialogElement>(null)
  const opener = useRef<Place | null>(null)
  const titleId = useRef(`dialog-title-${++counter}`)
  // Opened (and its opener noted) in the render that asks for it, not a frame later: keys pressed
  // meanwhile would go to the page behind it, and the opener noted then could be another control.
  // A form in a dialog that resets itself when opened does so in a layout effect too (below this
  // one in its owner, so after it), before any key can reach it.
  useLayoutEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    if (props.open && !dialog.open) {
      opener.current = placeOf(document.activeElement)
      dialog.showModal()
    } else if (!props.open && dialog.open) {
      dialog.close()
    }
  }, [props.open])
  // Its listeners too, so that Escape or Back pressed as soon as it is open reach them. They stay
  // the same ones while it is open: a listener replaced by a render that an event causes (Back
  // renders the page again) would miss that very event. They call the owner's latest onClose.
  const onClose = useRef(props.onClose)
  onClose.current = props.onClose
  const underway = useRef(props.underway)
  underway.current = props.underway
  useLayoutEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    // Escape: the owner learns at once (the close event comes a moment later, and by then the
    // dialog may have been opened again). While its action is under way the dialog stays, unless
    // the browser closes it anyway (a cancel it does not let the page refuse), which the owner learns.
    const cancelled = (event: Event) => {
      if (underway.current && event.cancelable) return event.preventDefault()
      onClose.current()
    }
    // The close event of a dialog that is open again by now is stale; so is one that comes after
    // focus has gone elsewhere (the event comes a moment after the close), which stays there.
    const closed = () => {
      if (dialog.open) return
      const active = document.activeElement
      const elsewhere = active !== null && active !== document.body && !dialog.contains(active) && active !== opener.current?.element
      if (!elsewhere) returnFocusTo(opener.current)
    }
    dialog.addEventListener('cancel', cancelled)
    dialog.addEventListener('close', closed)
    return () => {
      dialog.removeEventListener('cancel', cancelled)
      dialog.removeEventListener('close', closed)
    }
  }, [])
  // Escape, refused as a key wherever focus is, while its action is under way (refusing the cancel
  // event alone is not enough: Chromium lets a page refuse it once per user activation, and Escape is
  // none, so a second Escape would close it), and while its form holds edits, until the person says
  // to drop them ("Close anyway?", as leaving the page asks); then closed through the owner.
  const edits = useRef<{ current: Pending | null }>({ current: null })
  const unsaved = useRef(props.unsaved)
  unsaved.current = props.unsaved
  useLayoutEffect(() => {
    if (!props.open) return
    const escape = (event: KeyboardEvent) => {
      if (event.key !== 'Escape' || event.defaultPrevented) return
      if (underway.current) return event.preventDefault()
      const what = (unsaved.current ?? edits.current.current)?.() ?? null
      if (what === null) return
      event.preventDefault()
      if (window.confirm(`Your changes to ${what} are not saved. Close anyway?`)) onClose.current()
    }
    window.addEventListener('keydown', escape, true)
    return () => window.removeEventListener('keydown', escape, true)
  }, [props.open])
  // Back or Forward while it is open: what it asks about belongs to the page being left.
  useLayoutEffect(() => {
    if (!props.open) return
    const moved = () => onClose.current()
    window.addEventListener('popstate', moved)
    return () => window.removeEventListener('popstate', moved)
  }, [props.open])
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
    <dialog ref={ref} aria-labelledby={titleId.current} aria-busy={props.underway ? 'true' : undefined} class="dialog" onKeyDown={trap}>
      {props.open && (
        <DialogEdits.Provider value={edits.current}>
          <h2 id={titleId.current}>{props.title}</h2>
          {props.children}
          {props.underway && <p class="muted">Waiting for the answer: this question closes when it comes.</p>}
        </DialogEdits.Provider>
      )}
    </dialog>
  )
}

/**
 * A question before a change that cannot be undone: what it does (`children`), the change's button
 * (`action`, busy while it runs) and Cancel. It opens with focus on Cancel, so that Enter pressed
 * once more than meant (on the button that asked, then again) does not make the change. A refusal of
 * the change is shown inside it, where the person is, and the question stays open for another try.
 * Once the change is asked for, Cancel and Escape do nothing until it is done: they would close the
 * question while the change goes on.
 */
export function ConfirmDialog(props: {
  open: boolean
  title: string
  action: string
  busy: boolean
  failure?: ApiFailure | null
  onConfirm: () => void
  onClose: () => void
  children: ComponentChildren
}) {
  // `busy` is the owner's: it may be another of the page's actions (a Save that runs while Delete
  // client is asked), which leaves this question free to be cancelled. Its own is under way from
  // the press (the owner's busy comes in the same render) until busy ends.
  const [pressed, setPressed] = useState(false)
  useLayoutEffect(() => {
    if (pressed && (!props.busy || !props.open)) setPressed(false)
  }, [pressed, props.busy, props.open])
  const underway = pressed && props.busy && props.open
  const confirm = () => {
    setPressed(true)
    props.onConfirm()
  }
  return (
    <Dialog open={props.open} title={props.title} onClose={props.onClose} underway={underway}>
      {props.children}
      {props.failure && <ErrorView failure={props.failure} />}
      <div class="actions">
        <button type="button" class="danger" {...unavailableWhile(props.busy, confirm)}>
          {props.action}
        </button>
        <button type="button" autofocus {...unavailableWhile(underway, props.onClose)}>
          Cancel
        </button>
      </div>
    </Dialog>
  )
}
