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
 *   deleted, on the list it goes back to.
 */
export function clearEarlierAnnouncement(): void {
  if (saidThisTurn) return
  clearTimeout(hide)
  statusMessage.value = ''
}

export function announce(message: string): void {
  if (!saidThisTurn) {
    saidThisTurn = true
    setTimeout(() => (saidThisTurn = false), 0)
  }
  // Cleared first so that the same sentence twice is announced twice.
  statusMessage.value = ''
  clearTimeout(hide)
  queueMicrotask(() => {
    statusMessage.value = message
    hide = setTimeout(() => (statusMessage.value = ''), SHOWN_MS)
  })
}
