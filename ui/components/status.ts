// The one role="status" live region: outcomes of actions are announced here.
import { signal } from '@preact/signals'

export const statusMessage = signal('')

/** How long an announcement stays on screen (it has been read out by then). */
const SHOWN_MS = 10_000
let hide: ReturnType<typeof setTimeout> | undefined

/**
 * An announcement was made in this very turn of the event loop: the outcome of the action that is
 * showing a failure now ("0 identities deactivated. 2 could not be changed." beside the reasons),
 * which that failure must not clear.
 */
let saidThisTurn = false

/**
 * What was said earlier no longer describes the page, and goes, unless it was said in this very turn:
 * - a failure is being shown: an earlier outcome still on screen ("Traits saved.") would read, beside
 *   it, as if the failed change had been made;
 * - another page or list is shown (a link, Back, another page of the list): an outcome on the one
 *   left, or how many rows its list showed, would stay over it for seconds. What was said with the
 *   navigation itself stays: the identity just created, whose page it opens, or the one just
 *   deleted, on the list it goes back to;
 * - another action starts (useOneAtATime, a row's Revoke or Extend): "Traits saved." would read,
 *   while the next save is under way, as its outcome.
 */
export function clearEarlierAnnouncement(): void {
  if (saidThisTurn) return
  clearTimeout(hide)
  clearTimeout(repeat)
  statusMessage.value = ''
}

/**
 * How long the region stays empty before the sentence it holds is said again: a screen reader
 * notices a change of its text, and the region emptied and filled in one frame is no change to it.
 */
const REPEAT_GAP_MS = 150
let repeat: ReturnType<typeof setTimeout> | undefined
/** The last sentence said: said again, it comes after the gap even when the region was emptied meanwhile (an action's start empties it). */
let lastSaid = ''

export function announce(message: string): void {
  if (!saidThisTurn) {
    saidThisTurn = true
    setTimeout(() => (saidThisTurn = false), 0)
  }
  const again = message === lastSaid
  lastSaid = message
  // Cleared first; the same sentence again comes after REPEAT_GAP_MS, so that it is announced again.
  statusMessage.value = ''
  clearTimeout(hide)
  clearTimeout(repeat)
  const show = () => {
    statusMessage.value = message
    hide = setTimeout(() => (statusMessage.value = ''), SHOWN_MS)
  }
  if (again) repeat = setTimeout(show, REPEAT_GAP_MS)
  else queueMicrotask(show)
}
