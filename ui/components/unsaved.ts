// A form that holds edits the person typed and has not saved: leaving the page asks first (the
// router's leave guard), naming what would be lost. Saving, Cancel or closing the form lets go.
import { useLeaveGuard } from '../router.ts'

/**
 * While the form holds unsaved changes to `what` ("the traits", "the new client"), leaving the page
 * asks "Your changes to <what> are not saved. Leave anyway?"; null when it holds none. Returns what
 * lets go at once: call it before a save that opens another page (the record just created).
 */
export function useUnsavedChanges(what: string | null): () => void {
  return useLeaveGuard(what === null ? null : `Your changes to ${what} are not saved.`, 'unsaved')
}

/** Whether a form's values hold anything typed or chosen: a non-empty text, a ticked box, at any depth. */
export function holdsInput(value: unknown): boolean {
  if (value === undefined || value === null || value === '' || value === false) return false
  if (Array.isArray(value)) return value.some(holdsInput)
  if (typeof value === 'object') return Object.values(value).some(holdsInput)
  return true
}
