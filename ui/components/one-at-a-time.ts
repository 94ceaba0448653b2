// A button's action that runs once however often it is pressed, and the button while it runs.
import { useRef, useState } from 'preact/hooks'
import { clearEarlierAnnouncement } from './status.ts'

/**
 * One request at a time: `busy` makes the buttons unavailable (unavailableWhile), and a press that
 * arrives before that render (a double click, Enter twice) is ignored, so a delete is sent once and
 * audited once.
 */
export function useOneAtATime(): [boolean, (action: () => Promise<unknown>) => Promise<void>] {
  const running = useRef(false)
  const [busy, setBusy] = useState(false)
  const run = async (action: () => Promise<unknown>) => {
    if (running.current) return
    running.current = true
    setBusy(true)
    // What an earlier action said ("Traits saved.") is not left on screen while this one is under way.
    clearEarlierAnnouncement()
    try {
      await action()
    } finally {
      running.current = false
      setBusy(false)
    }
  }
  return [busy, run]
}

/** What a button is given by unavailableWhile. */
export interface UnavailableProps {
  'aria-disabled': 'true' | undefined
  onClick: (event: MouseEvent) => void
}

/**
 * A button that cannot be used while `unavailable` (its action, or another, is under way): marked so
 * rather than disabled. A disabled button loses focus, to the page's body, outside the dialog or
 * section the person was in; this one keeps it, and a screen reader says that it changed. A press
 * meanwhile does nothing: it is refused as a click, so that a submit button sends nothing either,
 * whether pressed or reached by Enter in a field of its form (the browser submits through a click on
 * it). `onClick` runs only when it is available.
 */
export function unavailableWhile(unavailable: boolean, onClick?: (event: MouseEvent) => void): UnavailableProps {
  return {
    'aria-disabled': unavailable ? 'true' : undefined,
    onClick: (event) => (unavailable ? event.preventDefault() : onClick?.(event)),
  }
}
