// A save that would set a list or an object whole (see json-patch.ts `wholeMembers`) first reads the
// record again (an identity, an OAuth client), and sends nothing when that part changed since the
// page loaded: someone else may have added an address or a redirect URI to the list meanwhile, and
// neither Kratos's nor Hydra's PATCH has a `test` operation to refuse the overwrite itself. The
// notice says so, shows what is stored, and offers Reload, which loads it while keeping the
// operator's own version.
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import { clearEarlierAnnouncement } from './status.ts'
import type { ApiFailure } from '../api.ts'
import { staleMembers, wholeMembers } from './json-patch.ts'
import { unavailableWhile } from './one-at-a-time.ts'

export type Members = Record<string, unknown>

/** A value shown in the notice: what is stored, or the operator's own version. */
export interface Shown {
  label: string
  text: string
}

export interface Changed {
  /** The members (of the traits, or the two metadata fields) that changed meanwhile. */
  stale: string[]
  /** The sentence that names them, as the subject of "was changed meanwhile". */
  what: string
  /** What is stored in them now. */
  stored: Shown[]
  /** After Reload: the operator's version, kept to copy from; null until then. */
  yours: Shown[] | null
}

/** The record read again: the members an edit is of, or why it could not be read. */
export type ReadAgain = () => Promise<{ ok: true; now: Members } | { ok: false; failure: ApiFailure }>

/** A stored or typed value as the notice shows it. */
export const valueText = (value: unknown) => (value === undefined || value === null ? '(not set)' : JSON.stringify(value, null, 2))

/**
 * The notice's state, and `stopped`, which shows what `whatStopsSave` found: the failure (through
 * the form's `setFailure`, the notice left as it was), or the notice in place of any failure.
 */
export function useChangedNotice(setFailure: (failure: ApiFailure | null) => void) {
  const [changed, setChanged] = useState<Changed | null>(null)
  const stopped = (stop: { failure: ApiFailure } | { changed: Changed }) => {
    if ('failure' in stop) return setFailure(stop.failure)
    setFailure(null)
    setChanged(stop.changed)
  }
  return [changed, setChanged, stopped] as const
}

/**
 * Before a save from `before` to `edited`: null when it may be sent as it is (it sets nothing whole,
 * or nothing it sets whole changed meanwhile); else what stops it: the failure to read the record
 * again, or the members that changed meanwhile as the notice shows them (`what` names them,
 * `storedLabel` labels each one's stored value, `text` writes it, JSON unless said otherwise).
 * Nothing is awaited after the read, so the window left before the save is one round trip.
 */
export async function whatStopsSave(
  readNow: ReadAgain,
  before: Members,
  edited: Members,
  names: { what: (keys: string[]) => string; storedLabel: (key: string) => string; text?: (key: string, value: unknown) => string },
): Promise<null | { failure: ApiFailure } | { changed: Changed }> {
  if (wholeMembers(before, edited).length === 0) return null
  const read = await readNow()
  if (!read.ok) return { failure: read.failure }
  const stale = staleMembers(before, edited, read.now)
  if (stale.length === 0) return null
  const text = names.text ?? ((_key: string, value: unknown) => valueText(value))
  return { changed: { stale, what: names.what(stale), stored: stale.map((key) => ({ label: names.storedLabel(key), text: text(key, read.now[key]) })), yours: null } }
}

/**
 * Where the notice stands: refused (Reload takes focus, the message is an alert), then reloaded
 * (the operator's version kept; focus goes to the field that was reloaded, by `focusField`).
 */
export function ChangedNotice(props: {
  id: string
  changed: Changed
  /** The record, as in "this identity changed since the page loaded". */
  record: string
  /** Who may have changed it, as in "changed meanwhile, by another operator". */
  by: string
  /** `what` is plural ("The redirect URIs were…"); by default when it names more than one member. */
  plural?: boolean
  /** Where the operator's edit is: "box", "boxes" or "form". */
  where: string
  busy: boolean
  onReload: () => void
  onDismiss: () => void
  focusField: () => void
}) {
  const { id, changed, where, busy } = props
  const reloadButton = useRef<HTMLButtonElement>(null)
  // Focus moves once per new state, when its control is enabled (Save and Reload are disabled while either runs).
  const pendingFocus = useRef(true)
  useEffect(() => {
    pendingFocus.current = true
  }, [changed])
  // "Not saved" takes the place of an earlier "… saved." in the status region, as a failure does.
  useLayoutEffect(() => {
    if (!changed.yours) clearEarlierAnnouncement()
  }, [changed])
  useEffect(() => {
    if (!pendingFocus.current || busy) return
    pendingFocus.current = false
    if (changed.yours) props.focusField()
    else reloadButton.current?.focus()
  }, [changed, busy])
  const several = props.plural ?? changed.stale.length > 1
  if (changed.yours) {
    return (
      <div class="notice changed-meanwhile kept">
        <p>
          Reloaded: {lowerFirst(changed.what)} {several ? 'are' : 'is'} now as stored in the {where}, and any other change of yours is still there. Your version, which
          was not saved, is kept here to copy from.
        </p>
        {changed.yours.map((shown, index) => (
          <ShownValue key={shown.label} id={`${id}-yours-${index}`} shown={shown} />
        ))}
        <div class="actions">
          <button type="button" onClick={props.onDismiss}>
            Dismiss
          </button>
        </div>
      </div>
    )
  }
  return (
    <div class="notice changed-meanwhile">
      <div role="alert">
        <p>
          <strong>Not saved: this {props.record} changed since the page loaded.</strong>
        </p>
        <p>
          {changed.what} {several ? 'were' : 'was'} changed meanwhile, {props.by}. Saving would have replaced{' '}
          {several ? 'them' : 'it'} whole and undone that change. Your edit is still in the {where}.
        </p>
      </div>
      {changed.stored.map((shown, index) => (
        <ShownValue key={shown.label} id={`${id}-stored-${index}`} shown={shown} />
      ))}
      <p class="hint">
        Reload puts what is stored for {several ? 'them' : 'it'} in the {where}; your version is kept here to copy from.
      </p>
      <div class="actions">
        <button type="button" ref={reloadButton} {...unavailableWhile(busy, props.onReload)}>
          Reload
        </button>
      </div>
    </div>
  )
}

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1)

/** A JSON value under its label; it scrolls within a set height and can be reached with the keyboard to do so. */
function ShownValue({ id, shown }: { id: string; shown: Shown }) {
  return (
    <>
      <p id={id}>{shown.label}:</p>
      <pre class="json-block" tabIndex={0} aria-labelledby={id}>
        {shown.text}
      </pre>
    </>
  )
}
