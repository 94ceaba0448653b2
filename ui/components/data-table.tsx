// A list shown as a table: on a wide screen a plain table that scrolls sideways inside its box if
// it must; on a phone (data-table.css) each row is a card, every cell on its own line beside its
// column's name, and the row's actions across the card's width.
//
// The name a card shows beside a value comes from an empty, aria-hidden element (its text is drawn
// from an attribute), so a screen reader hears the column's name once, from the header, and a
// cell's accessible name and text stay its value alone. The table roles are spelled out because a
// phone's card layout changes the elements' display, and some browsers (Safari with VoiceOver among
// them) stop exposing a table as one when its rows and cells are no longer laid out as a table.
import { Fragment, type ComponentChildren, type Ref } from 'preact'
import { useLayoutEffect, useRef, useState } from 'preact/hooks'
import { signal } from '@preact/signals'

/**
 * A column's header: its name, or `{ hidden }` for a column named for screen readers only (a selection
 * box, the row's actions); a selection column's header may hold a `control` (SelectAll).
 */
export type Column = string | { hidden: string; control?: ComponentChildren }

interface DataTableProps {
  columns: Column[]
  /**
   * The table's name, for screen readers (it is not shown): its caption, and the name of the box
   * that scrolls it sideways, which is a tab stop while it has something to scroll (so that a
   * keyboard can scroll it), so that the stop says what it is.
   */
  caption: string
  /** Classes besides `data`. */
  class?: string
  bodyRef?: Ref<HTMLTableSectionElement>
  children: ComponentChildren
}

export function DataTable({ columns, caption, class: extra, bodyRef, children }: DataTableProps) {
  // A tab stop only while the table is wider than its box: one that scrolls nothing is a stop
  // that does nothing.
  const wrap = useRef<HTMLDivElement>(null)
  const [scrolls, setScrolls] = useState(false)
  useLayoutEffect(() => {
    const box = wrap.current
    if (!box) return
    const measure = () => setScrolls(box.scrollWidth > box.clientWidth)
    measure()
    const observer = new ResizeObserver(measure)
    observer.observe(box)
    if (box.firstElementChild) observer.observe(box.firstElementChild)
    return () => observer.disconnect()
  }, [])
  return (
    <div class="table-wrap" ref={wrap} tabIndex={scrolls ? 0 : undefined} role="group" aria-label={caption}>
      <table class={extra ? `data ${extra}` : 'data'} role="table">
        <caption class="visually-hidden">{caption}</caption>
        <thead role="rowgroup">
          <tr role="row">
            {columns.map((column) =>
              typeof column === 'string' ? (
                <th key={column} scope="col" role="columnheader">
                  {column}
                </th>
              ) : column.control ? (
                // Named as a column still; the control in it has its own name.
                <th key={column.hidden} scope="col" role="columnheader" class="head-control" aria-label={column.hidden}>
                  {column.control}
                </th>
              ) : (
                <th key={column.hidden} scope="col" role="columnheader">
                  <span class="visually-hidden">{column.hidden}</span>
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody role="rowgroup" ref={bodyRef}>
          {children}
        </tbody>
      </table>
    </div>
  )
}

export function Row({ children }: { children: ComponentChildren }) {
  return <tr role="row">{children}</tr>
}

/**
 * The most characters of a value a cell shows; a longer one is cut, with an ellipsis. The values
 * come from the upstreams (a name or a user agent any end user sets for themselves, a message's
 * subject, a client's name), and a browser lays a table out around a long unbroken value at a cost
 * that grows faster than its length: one of 50,000 characters held the Messages page for 19 seconds,
 * and one of a few hundred thousand held it for minutes. Far more than a real identifier (an e-mail
 * address has at most 254 characters), name or user agent; a record's own page shows it whole.
 */
export const MOST_CELL_CHARACTERS = 500

/** `text` as a cell shows it: whole, or its first MOST_CELL_CHARACTERS characters and an ellipsis. */
export function cellText(text: string): string {
  if (text.length <= MOST_CELL_CHARACTERS) return text
  // Never between the two halves of a character outside the Basic Multilingual Plane (an emoji).
  const end = /[\uD800-\uDBFF]/.test(text.charAt(MOST_CELL_CHARACTERS - 1)) ? MOST_CELL_CHARACTERS - 1 : MOST_CELL_CHARACTERS
  return `${text.slice(0, end)}…`
}

/** The name a phone shows beside a cell's value: its column's, repeated for sight only. */
function CellLabel({ label }: { label: string }) {
  return <span class="cell-label" aria-hidden="true" data-label={label} />
}

/** A cell; `label` is its column's name, as in the header. */
export function Cell({ label, class: extra, children }: { label: string; class?: string; children?: ComponentChildren }) {
  return (
    <td role="cell" class={extra}>
      <CellLabel label={label} />
      {children}
    </td>
  )
}

/** The cell that names its row (`th scope="row"`). */
export function RowHeader({ label, class: extra, children }: { label: string; class?: string; children?: ComponentChildren }) {
  return (
    <th scope="row" role="rowheader" class={extra}>
      <CellLabel label={label} />
      {children}
    </th>
  )
}

/** The row's buttons, under a header-less column: on a phone they span the card's foot. */
export function ActionsCell({ class: extra, children }: { class?: string; children: ComponentChildren }) {
  return (
    <td role="cell" class={extra ? `cell-actions ${extra}` : 'cell-actions'}>
      {children}
    </td>
  )
}

/** The row's selection box: on a phone it sits at the card's top corner. */
export function SelectCell({ children }: { children: ComponentChildren }) {
  return (
    <td role="cell" class="cell-select">
      {children}
    </td>
  )
}

/**
 * The box in a selection column's header that selects every row shown, or none: checked when all
 * are, mixed when some are. Its name is said on a wide screen and shown on a phone, where the header
 * row is out of sight but this box stands above the cards.
 */
export function SelectAll({ label, all, some, onChange }: { label: string; all: boolean; some: boolean; onChange: (checked: boolean) => void }) {
  return (
    <label class="select-all">
      <input type="checkbox" checked={all} indeterminate={some && !all} onChange={(event) => onChange(event.currentTarget.checked)} />
      <span class="select-all-name">{label}</span>
    </label>
  )
}

/** Whether the cards are shown: the phone breakpoint of layout.css and data-table.css. */
const phoneWidth = globalThis.matchMedia?.('(max-width: 760px)')
const onPhone = signal(phoneWidth?.matches ?? false)
phoneWidth?.addEventListener('change', (event) => (onPhone.value = event.matches))

/**
 * An address with a place to wrap after its "@" (and any "/"), so a card too narrow for
 * "someone@example.test" breaks it between the name and the domain rather than inside either.
 * Only on phones: a wide table keeps one text, so it measures and wraps as it always has. The
 * `<wbr>` is aria-hidden because Chromium otherwise reads it as a space inside the address.
 */
export function Wrappable({ text }: { text: string }) {
  if (!onPhone.value) return <>{text}</>
  return (
    <>
      {text.split(/(?<=[@/])/).map((part, index) => (
        <Fragment key={index}>
          {index > 0 && <wbr aria-hidden="true" />}
          {part}
        </Fragment>
      ))}
    </>
  )
}
