// A form that holds edits the person typed and has not saved: leaving the page asks first (the
// router's leave guard), naming what would be lost. Saving, Cancel or closing the form lets go.
import { useCallback, useLayoutEffect, useRef } from 'preact/hooks'
import { useLeaveGuard, type UnsavedForm } from '../router.ts'
import { draftUsed, sendingDraft, type Draft } from '../drafts.ts'
import { useDialogEdits } from './dialog.tsx'

export interface UnsavedChanges {
  /** Lets go at once: call it before a save that opens another page (the record just created). */
  release: () => void
  /**
   * Sends the form's change (`change`, every request of it: a read before the write too) with the
   * form's draft as it is now, kept for the way back should the session be found gone meanwhile
   * (drafts.ts `sendingDraft`). A form without a draft just sends.
   */
  send: <T>(change: () => Promise<T>) => Promise<T>
  /**
   * What Escape in the form's dialog asks about: the unsaved edits, unless they are being saved
   * (a dialog closed by Escape then lets its Save go on and says its outcome). For Dialog's `unsaved`.
   */
  pending: () => string | null
}

/**
 * While the form holds unsaved changes to `what` ("the traits", "the new client"), leaving the page
 * asks "Your changes to <what> are not saved. Leave anyway?"; null when it holds none. `draft`, for
 * a form that can be drafted (drafts.ts), is kept through the sign-in should the session end
 * meanwhile: the same draft whether the page is left or its Save is refused (`send`).
 */
export function useUnsavedChanges(what: string | null, draft?: Draft & { form: string }): UnsavedChanges {
  const latest = useRef(draft)
  latest.current = draft
  const form = useRef<UnsavedForm | null>(null)
  if (what !== null && form.current?.what !== what) form.current = { what, keep: () => latest.current ?? null }
  const release = useLeaveGuard(what === null ? null : `Your changes to ${what} are not saved.`, 'unsaved', form.current ?? undefined)
  const whatNow = useRef(what)
  whatNow.current = what
  const sending = useRef(0)
  const pending = useCallback(() => (sending.current > 0 ? null : whatNow.current), [])
  // In a dialog, Escape asks too.
  useDialogEdits(pending)
  // A form opened with its kept draft: letting go of its edits (saved, discarded) uses the draft up.
  const name = draft?.form
  useLayoutEffect(() => {
    if (what === null || name === undefined) return
    return () => draftUsed(name)
  }, [what === null, name])
  const send = async <T>(change: () => Promise<T>): Promise<T> => {
    const now = latest.current
    sending.current++
    try {
      return await (now ? sendingDraft(now.form, now, change) : change())
    } finally {
      sending.current--
    }
  }
  return { release, send, pending }
}

/** Whether a form's values hold anything typed or chosen: a non-empty text, a ticked box, at any depth. */
export function holdsInput(value: unknown): boolean {
  if (value === undefined || value === null || value === '' || value === false) return false
  if (Array.isArray(value)) return value.some(holdsInput)
  if (typeof value === 'object') return Object.values(value).some(holdsInput)
  return true
}
