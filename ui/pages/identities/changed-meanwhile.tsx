// A save that would set a list or an object whole (see json-patch.ts `wholeMembers`) first reads the
// identity again, and sends nothing when that part changed since the page loaded: another operator,
// or the person in their account settings, may have added an address to the list meanwhile, and
// Kratos's PATCH has no `test` operation to refuse the overwrite itself. The notice says so, shows
// what is stored, and offers Reload, which loads it while keeping the operator's own version.
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, type ApiFailure, type Identity } from '../../api.ts'
import { staleMembers, wholeMembers } from '../../components/json-patch.ts'

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

/**
 * The identity read again, and the members an edit is of (`pick`: its traits, or its metadata).
 * Nothing is saved when it cannot be read: whether the save would overwrite a change is unknown.
 */
export async function readAgain(
  identityId: string,
  pick: (identity: Identity) => Members | undefined,
  doing: 'save' | 'reload',
): Promise<{ ok: true; identity: Identity; now: Members } | { ok: false; failure: ApiFailure }> {
  const read = await api.identity(identityId)
  const before = doing === 'save' ? 'Nothing was saved: the identity could not be read again to check that it has not changed since the page loaded.' : 'The identity could not be read again.'
  if (!read.ok) {
    const message = read.failure.status === 404 ? 'The identity store no longer has this identity: it was deleted since the page loaded.' : read.failure.message
    return { ok: false, failure: { ...read.failure, message: `${before} ${message}` } }
  }
  const now = pick(read.data)
  if (now === undefined) return { ok: false, failure: { error: 'invalid_response', message: `${before} The identity store answered it without its traits.`, status: 200 } }
  return { ok: true, identity: read.data, now }
}

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
 * or nothing it sets whole changed meanwhile); else what stops it: the failure to read the identity
 * again, or the members that changed meanwhile as the notice shows them (`what` names them,
 * `storedLabel` labels each one's stored value). Nothing is awaited after the read, so the window
 * left before the save is one round trip.
 */
export async function whatStopsSave(
  identityId: string,
  pick: (identity: Identity) => Members | undefined,
  before: Members,
  edited: Members,
  names: { what: (keys: string[]) => string; storedLabel: (key: string) => string },
): Promise<null | { failure: ApiFailure } | { changed: Changed }> {
  if (wholeMembers(before, edited).length === 0) return null
  const read = await readAgain(identityId, pick, 'save')
  if (!read.ok) return { failure: read.failure }
  const stale = staleMembers(before, edited, read.now)
  if (stale.length === 0) return null
  return { changed: { stale, what: names.what(stale), stored: stale.map((key) => ({ label: names.storedLabel(key), text: valueText(read.now[key]) })), yours: null } }
}

/**
 * Where the notice stands: refused (Reload takes focus, the message is an alert), then reloaded
 * (the operator's version kept; focus goes to the field that was reloaded, by `focusField`).
 */
export function ChangedNotice(props: {
  id: string
  changed: Changed
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
  useEffect(() => {
    if (!pendingFocus.current || busy) return
    pendingFocus.current = false
    if (changed.yours) props.focusField()
    else reloadButton.current?.focus()
  }, [changed, busy])
  const several = changed.stale.length > 1
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
          <strong>Not saved: this identity changed since the page loaded.</strong>
        </p>
        <p>
          {changed.what} {several ? 'were' : 'was'} changed meanwhile, by another operator or by the person in their account settings. Saving would have replaced{' '}
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
        <button type="button" ref={reloadButton} onClick={props.onReload} disabled={busy}>
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
