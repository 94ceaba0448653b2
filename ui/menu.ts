// The phone menu (ui.md "Shell": at 390 px the Main navigation collapses behind Menu). Once open it
// closes on Escape, which gives focus back to the Menu button, and when a click or the focus goes
// outside the top bar and the menu. The top bar counts as inside: its account controls come between
// the Menu button and the menu in the tab order, and the keyboard passes them to reach the links.
// (Choosing a link closes it too: the shell keeps it open for one location only.)
import type { RefObject } from 'preact'
import { useLayoutEffect } from 'preact/hooks'

export function useMenuDismissal(open: boolean, close: () => void, button: RefObject<HTMLElement | null>, inside: RefObject<HTMLElement | null>[]): void {
  // A layout effect: the listeners are in place in the very render that shows the menu (an effect
  // runs a frame later, and an Escape pressed at once would be missed).
  useLayoutEffect(() => {
    if (!open) return
    const within = (target: EventTarget | null) => target instanceof Node && inside.some((area) => area.current?.contains(target))
    // A click rather than a pointerdown: a finger that scrolls the page leaves the menu open.
    const onClick = (event: MouseEvent) => {
      if (!within(event.target)) close()
    }
    const onFocusIn = (event: FocusEvent) => {
      if (!within(event.target)) close()
    }
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'Escape' || event.defaultPrevented) return
      if (!within(event.target) && event.target !== document.body) return
      close()
      // On a wide screen the menu is the sidebar and the button is not shown: focus stays put.
      if (button.current && button.current.getClientRects().length > 0) button.current.focus()
    }
    document.addEventListener('click', onClick)
    document.addEventListener('focusin', onFocusIn)
    document.addEventListener('keydown', onKeyDown)
    return () => {
      document.removeEventListener('click', onClick)
      document.removeEventListener('focusin', onFocusIn)
      document.removeEventListener('keydown', onKeyDown)
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open])
}
