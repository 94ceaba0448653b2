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
 * A failure is being shown: an earlier outcome still on screen ("Traits saved.") no longer
 * describes the page, and beside the failure it would read as if the failed change had been made.
 */
export function clearEarlierAnnouncement(): void {
  if (saidThisTurn) return
  clearTimeout(hide)
  statusMessage.value = ''
}

/**
 * Another page or list is shown (a link, Back, another page of the list): what was said about the
 * one left (an outcome there, how many rows its list showed) does not describe it, and would stay
 * over it for seconds. An announcement made with the navigation itself stays: the identity just
 * created, whose page it opens, or the one just deleted, on the list it goes back to.
 */
export function clearAnnouncementOfPageLeft(): void {
  clearEarlierAnnouncement()
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
