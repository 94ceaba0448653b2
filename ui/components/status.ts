// The one role="status" live region: outcomes of actions are announced here.
import { signal } from '@preact/signals'

export const statusMessage = signal('')

export function announce(message: string): void {
  // Cleared first so that the same sentence twice is announced twice.
  statusMessage.value = ''
  queueMicrotask(() => {
    statusMessage.value = message
  })
}
