// A button's action that runs once however often it is pressed.
import { useRef, useState } from 'preact/hooks'

/**
 * One request at a time: `busy` disables the buttons, and a press that arrives before that render
 * (a double click, Enter twice) is ignored, so a delete is sent once and audited once.
 */
export function useOneAtATime(): [boolean, (action: () => Promise<unknown>) => Promise<void>] {
  const running = useRef(false)
  const [busy, setBusy] = useState(false)
  const run = async (action: () => Promise<unknown>) => {
    if (running.current) return
    running.current = true
    setBusy(true)
    try {
      await action()
    } finally {
      running.current = false
      setBusy(false)
    }
  }
  return [busy, run]
}
