// The one role="status" live region: outcomes of actions are announced here.
import { signal } from '@preact/signals'

export const statusMessage = signal('')

/** How long an announcement stays on screen (it has been read out by then). */
const SHOWN_MS = 10_000
let hide: ReturnType<typeof setTimeout> | undefined

export function announce(message: string): void {
  // Cleared first so that the same sentence twice is announced twice.
  statusMessage.value = ''
  clearTimeout(hide)
  queueMicrotask(() => {
    statusMessage.value = message
    hide = setTimeout(() => (statusMessage.value = ''), SHOWN_MS)
  })
}
