// Settings (admin): the settings store grouped by category; create, edit, delete; encrypted values
// masked, revealed through the audited decrypt read and masked again after 30 s or on leaving;
// upstream API keys write-only.
import type { ComponentChildren } from 'preact'
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import { api, deleteOutcome, type ApiFailure, type ApiResult, type Setting, type UpstreamName } from '../../api.ts'
import { Heading, focusHeading } from '../../components/heading.tsx'
import { ErrorView, FailureDetails, Region, toReport, useLoad } from '../../components/load.tsx'
import { ActionsCell, Cell, DataTable, RowHeader, Row } from '../../components/data-table.tsx'
import { ConfirmDialog, Dialog } from '../../components/dialog.tsx'
import { unavailableWhile, useOneAtATime } from '../../components/one-at-a-time.ts'
import { useFocusFirstInvalid } from '../../components/focus.ts'
import { Time } from '../../components/time.tsx'
import { announce } from '../../components/status.ts'
import { config } from '../../session.ts'
import { useUnsavedChanges } from '../../components/unsaved.ts'
import { takeDraft, type Draft } from '../../drafts.ts'
import { API_KEY_REFUSED, SENDABLE_API_KEY } from '../../../src/settings/api-key-value.ts'
import { MAX_CATEGORY_LENGTH, MAX_VALUE_BYTES, SETTING_KEY_PATTERN } from '../../../src/settings/limits.ts'

const REVEAL_MS = 30_000
const MASK = '••••••••'
const PREFIXES: { name: UpstreamName; label: string }[] = [
  { name: 'idp', label: 'Kratos public API' },
  { name: 'idp-admin', label: 'Kratos admin API' },
  { name: 'iam-idp', label: 'Admins’ Kratos public API' },
  { name: 'iam-idp-admin', label: 'Admins’ Kratos admin API' },
  { name: 'oauth', label: 'Hydra public API' },
  { name: 'oauth-admin', label: 'Hydra admin API' },
]
const API_KEY = /^proxy\.([a-z-]+)\.api_key$/
const KEY_PATTERN = new RegExp(SETTING_KEY_PATTERN)
const NO_CATEGORY = 'Uncategorized'
/** A value longer than this (characters, or lines) is shown cut, with Show all: a 64 KiB value would fill pages of the table. */
const SHOWN_CHARACTERS = 300
const SHOWN_LINES = 6
const SETTING_EXISTS = 'A setting with this key exists; edit it instead.'
const DELETED_MEANWHILE = 'Not saved: this setting was deleted since the page loaded. To keep it, add it again with Add setting.'

/**
 * A setting's key with a line break allowed after each `.` and `:` (`mail.|from_name`): where the
 * column is too narrow for it, it breaks between its parts rather than inside one. The text is the
 * same (a `<wbr>` adds none).
 */
function brokenAfterSeparators(key: string): ComponentChildren {
  const parts = key.split(/(?<=[.:])/)
  return parts.flatMap((part, index) => (index === 0 ? [part] : [<wbr key={index} />, part]))
}

/** An upstream API key: `proxy.<prefix>.api_key` for a prefix of the service (another name is an ordinary setting). */
const isApiKey = (key: string) => PREFIXES.some((prefix) => API_KEY.exec(key)?.[1] === prefix.name)

/** What Add and Edit setting keep through the sign-in (drafts.ts): never a value to be encrypted. */
interface SettingDraft {
  /** The key of the setting edited; null for Add setting. */
  editing: string | null
  key: string
  value: string
  category: string
}
const keptSetting = (data: unknown): SettingDraft | null => {
  const draft = data as Partial<SettingDraft> | null
  return draft && (draft.editing === null || typeof draft.editing === 'string') && typeof draft.key === 'string' && typeof draft.value === 'string' && typeof draft.category === 'string'
    ? (draft as SettingDraft)
    : null
}

export function SettingsPage() {
  const [loaded, retry] = useLoad(() => api.settings(), [])
  const encryption = config.value?.encryption_available === true
  // Back from the sign-in after the session ended at a Save: its dialog opens again with the draft
  // (an Edit once the list shows the setting; not one that is now stored encrypted).
  const [kept, setKept] = useState(() => keptSetting(takeDraft('setting')))
  const [editing, setEditing] = useState<Setting | 'new' | null>(kept?.editing === null ? 'new' : null)
  useEffect(() => {
    if (kept?.editing == null || loaded.state !== 'ready') return
    const setting = loaded.data.find((s) => s.key === kept.editing && !s.encrypted)
    if (setting) setEditing(setting)
    else setKept(null)
  }, [loaded.state])
  // A save's failure to report, answered after its dialog was closed (see answeredLate).
  const [lateFailure, setLateFailure] = useState<ApiFailure | null>(null)
  return (
    <>
      <Heading>Settings</Heading>
      {!encryption && (
        <p class="notice" role="note">
          Encryption is not available: <code>ENCRYPTION_KEY</code> is not set on the server. Settings can only be stored in plain text, encrypted
          values cannot be revealed, and upstream API keys cannot be stored.
        </p>
      )}
      <div class="toolbar">
        <span />
        <button type="button" class="primary" onClick={() => setEditing('new')}>
          Add setting
        </button>
      </div>
      {lateFailure && <LateFailure failure={lateFailure} onDismiss={() => setLateFailure(null)} />}
      <Region loaded={loaded} retry={retry} label="settings">
        {(settings) => (
          <div class="sections">
            <ApiKeys settings={settings} encryption={encryption} reload={retry} onLateFailure={setLateFailure} />
            <Groups settings={settings.filter((s) => !isApiKey(s.key))} onEdit={setEditing} reload={retry} />
          </div>
        )}
      </Region>
      <SettingDialog
        editing={editing}
        draft={kept}
        onDraftUsed={() => setKept(null)}
        encryption={encryption}
        keys={loaded.state === 'ready' ? loaded.data.map((setting) => setting.key) : []}
        onClose={() => setEditing(null)}
        onSaved={retry}
        onLateFailure={setLateFailure}
      />
    </>
  )
}

function Groups({ settings, onEdit, reload }: { settings: Setting[]; onEdit: (setting: Setting) => void; reload: () => void }) {
  const [deleting, setDeleting] = useState<Setting | null>(null)
  const [failure, setFailure] = useState<ApiFailure | null>(null)
  const [busy, oneAtATime] = useOneAtATime()
  if (settings.length === 0) return <p class="empty">No settings yet.</p>
  const groups = new Map<string, Setting[]>()
  for (const setting of settings) {
    const name = setting.category ?? NO_CATEGORY
    groups.set(name, [...(groups.get(name) ?? []), setting])
  }
  const names = [...groups.keys()].sort((a, b) => (a === NO_CATEGORY ? 1 : b === NO_CATEGORY ? -1 : a.localeCompare(b)))
  const remove = async () => {
    if (!deleting) return
    const result = deleteOutcome(await api.deleteSetting(deleting.key))
    if (!result.ok) return setFailure(result.failure)
    setDeleting(null)
    announce(result.already ? `Setting ${deleting.key} had already been deleted.` : `Setting ${deleting.key} deleted.`)
    reload()
  }
  // Revealed after it was deleted elsewhere: its row goes, and with it the button that had focus.
  const gone = (key: string) => {
    focusHeading()
    announce(`Setting ${key} was deleted since the page loaded.`)
    reload()
  }
  return (
    <>
      {names.map((name, index) => (
        <section key={name} class="card" aria-labelledby={`category-${index}`}>
          <h2 id={`category-${index}`}>{name}</h2>
          <DataTable caption={`Settings in ${name}`} class="settings" columns={['Key', 'Value', 'Updated', { hidden: 'Actions' }]}>
            {groups.get(name)!.map((setting) => (
              <Row key={setting.key}>
                <RowHeader label="Key" class="mono setting-key">
                  <span class="setting-key-text">{brokenAfterSeparators(setting.key)}</span>
                </RowHeader>
                <Cell label="Value" class="mono value">
                  {/* Every write makes a new ciphertext: what was revealed of the value before it goes. */}
                  {setting.encrypted ? <Masked key={setting.value} setting={setting} onGone={gone} /> : <LongValue name={setting.key} value={setting.value} />}
                </Cell>
                <Cell label="Updated" class="setting-time">
                  <Time value={setting.updated_at} />
                </Cell>
                <ActionsCell class="row-actions">
                  <button type="button" aria-label={`Edit ${setting.key}`} onClick={() => onEdit(setting)}>
                    Edit
                  </button>
                  <button type="button" class="danger" aria-label={`Delete ${setting.key}`} onClick={() => (setFailure(null), setDeleting(setting))}>
                    Delete
                  </button>
                </ActionsCell>
              </Row>
            ))}
          </DataTable>
        </section>
      ))}
      <ConfirmDialog open={deleting !== null} title="Delete setting?" action="Delete" busy={busy} failure={failure} onConfirm={() => oneAtATime(remove)} onClose={() => setDeleting(null)}>
        <p>
          The setting <strong class="mono">{deleting?.key}</strong> will be removed. Services reading it see the change within the settings cache time.
        </p>
      </ConfirmDialog>
    </>
  )
}

/**
 * An encrypted value: masked; Reveal reads the plaintext (audited) and masks it again after 30 s or
 * when the page goes. The read answers with the setting as it is now: saved again since the list was
 * read (another administrator, another replica, the command line), the row says so beside the value,
 * as its other cells are older; deleted meanwhile, `onGone` takes the row away.
 */
function Masked({ setting, onGone }: { setting: Setting; onGone: (key: string) => void }) {
  const [plain, setPlain] = useState<string | null>(null)
  const [savedSince, setSavedSince] = useState<Setting | null>(null)
  const [failure, setFailure] = useState<ApiFailure | null>(null)
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null)
  // Pressed again before the answer (a double click): one read, audited once. The button is not
  // disabled meanwhile, which would take the keyboard's focus from it.
  const [, oneAtATime] = useOneAtATime()
  useEffect(() => () => void (timer.current && clearTimeout(timer.current)), [])
  const hide = () => {
    if (timer.current) clearTimeout(timer.current)
    timer.current = null
    setPlain(null)
  }
  const reveal = () =>
    oneAtATime(async () => {
      const result = await api.revealSetting(setting.key)
      if (!result.ok && result.failure.status === 404) return onGone(setting.key)
      if (!result.ok) return setFailure(result.failure)
      setFailure(null)
      setPlain(result.data.value)
      setSavedSince(result.data.updated_at === setting.updated_at && result.data.encrypted ? null : result.data)
      // Masked by the page rather than by the person: said, or the value would vanish unannounced.
      timer.current = setTimeout(() => (hide(), announce(`${setting.key} masked again.`)), REVEAL_MS)
    })
  return (
    <div class="masked">
      {plain === null ? (
        <span aria-label="Encrypted value, hidden">{MASK}</span>
      ) : (
        <span class="revealed" data-testid="revealed">
          <LongValue name={setting.key} value={plain} />
        </span>
      )}{' '}
      {plain === null ? (
        <button type="button" aria-label={`Reveal ${setting.key}`} onClick={reveal}>
          Reveal
        </button>
      ) : (
        <button type="button" aria-label={`Hide ${setting.key}`} onClick={hide}>
          Hide
        </button>
      )}
      {savedSince && (
        <p class="notice">
          Saved again on <Time value={savedSince.updated_at ?? null} />, since the list was read{savedSince.encrypted ? '' : ', and now stored in plain text'}: Reveal shows
          the value as it is now.
        </p>
      )}
      {failure && <ErrorView failure={failure} />}
    </div>
  )
}

function ApiKeys({
  settings,
  encryption,
  reload,
  onLateFailure,
}: {
  settings: Setting[]
  encryption: boolean
  reload: () => void
  onLateFailure: (failure: ApiFailure) => void
}) {
  const [setting, setSetting] = useState<{ name: UpstreamName; label: string } | null>(null)
  const [removing, setRemoving] = useState<{ name: UpstreamName; label: string } | null>(null)
  const [failure, setFailure] = useState<ApiFailure | null>(null)
  const [busy, oneAtATime] = useOneAtATime()
  // Each prefix's stored key. One set on the host with `settings set` without --encrypted is said
  // to be in plain text, for Replace key to mend.
  const stored = new Map(settings.flatMap((s) => {
    const name = API_KEY.exec(s.key)?.[1]
    return name ? [[name, s] as const] : []
  }))
  // A key removed: its Remove goes, so focus goes to the row's Set key (its Replace key until the
  // list is read again), not back to the Remove the question would return to. Moved as the
  // question closes, in the render that closes it.
  const removed = useRef<UpstreamName | null>(null)
  useLayoutEffect(() => {
    if (removing !== null || removed.current === null) return
    document.getElementById(`api-key-set-${removed.current}`)?.focus()
    removed.current = null
  }, [removing])
  const remove = async () => {
    if (!removing) return
    const result = deleteOutcome(await api.deleteSetting(`proxy.${removing.name}.api_key`))
    if (!result.ok) return setFailure(result.failure)
    removed.current = removing.name
    setRemoving(null)
    announce(result.already ? `API key for ${removing.name} had already been removed.` : `API key for ${removing.name} removed.`)
    reload()
  }
  return (
    <section class="card" aria-labelledby="api-keys-h">
      <h2 id="api-keys-h">Upstream API keys</h2>
      <p class="muted">
        Sent as <code>Authorization: Bearer …</code> on every call through that prefix. Saved here, a key is stored encrypted and never shown
        again. One set on the host without <code>--encrypted</code> is stored in plain text: Replace key stores it encrypted.
      </p>
      <DataTable caption="Upstream API keys" columns={['Prefix', 'Upstream', 'Key', { hidden: 'Actions' }]}>
        {PREFIXES.map((prefix) => {
          const key = stored.get(prefix.name)
          const has = key !== undefined
          return (
            <Row key={prefix.name}>
              <RowHeader label="Prefix" class="mono">
                /api/{prefix.name}
              </RowHeader>
              <Cell label="Upstream">
                {/* One element: on a phone a cell's value is one item beside its label (data-table.css). */}
                <span>
                  {prefix.label}
                  {/* A key can be set ahead of the address; until then nothing is called through it. */}
                  {config.value?.upstreams[prefix.name] === false && <span class="muted"> (not configured on this service)</span>}
                </span>
              </Cell>
              <Cell label="Key">
                {!key ? (
                  <span class="muted">No key</span>
                ) : !key.encrypted ? (
                  <span class="state state-warn">Key set, stored in plain text</span>
                ) : (
                  <span class="state state-active">Key set</span>
                )}
              </Cell>
              <ActionsCell class="row-actions">
                <button
                  type="button"
                  id={`api-key-set-${prefix.name}`}
                  disabled={!encryption}
                  aria-label={`${has ? 'Replace key' : 'Set key'} for ${prefix.name}`}
                  onClick={() => setSetting(prefix)}
                >
                  {has ? 'Replace key' : 'Set key'}
                </button>
                {has && (
                  <button type="button" class="danger" aria-label={`Remove key for ${prefix.name}`} onClick={() => (setFailure(null), setRemoving(prefix))}>
                    Remove
                  </button>
                )}
              </ActionsCell>
            </Row>
          )
        })}
      </DataTable>
      <ApiKeyDialog prefix={setting} onClose={() => setSetting(null)} onSaved={reload} onLateFailure={onLateFailure} />
      <ConfirmDialog open={removing !== null} title="Remove API key?" action="Remove" busy={busy} failure={failure} onConfirm={() => oneAtATime(remove)} onClose={() => setRemoving(null)}>
        <p>Calls through /api/{removing?.name} will no longer carry a key.</p>
      </ConfirmDialog>
    </section>
  )
}

function ApiKeyDialog({
  prefix,
  onClose,
  onSaved,
  onLateFailure,
}: {
  prefix: { name: UpstreamName; label: string } | null
  onClose: () => void
  onSaved: () => void
  onLateFailure: (failure: ApiFailure) => void
}) {
  const [value, setValue] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [failure, setFailure] = useState<ApiFailure | null>(null)
  const [busy, oneAtATime] = useOneAtATime()
  const opening = useRef(0)
  const focusFirstInvalid = useFocusFirstInvalid()
  // Never kept in the browser: a Save refused because the session ended asks for it again.
  const unsaved = useUnsavedChanges(prefix !== null && value !== '' ? `the API key for /api/${prefix.name}` : null, { form: 'api-key', data: null, unkept: 'the API key' })
  // As the dialog opens, in the same render (see Dialog).
  useLayoutEffect(() => {
    opening.current++
    setValue('')
    setError(null)
    setFailure(null)
  }, [prefix?.name])
  const save = (event: Event) => {
    event.preventDefault()
    if (!prefix) return
    // A key holds no white space: what a paste brought around it goes.
    const key = value.trim()
    const problem = key === '' ? 'Enter the API key.' : SENDABLE_API_KEY.test(key) ? null : `${API_KEY_REFUSED} Check what was pasted.`
    if (problem) {
      setError(problem)
      return focusFirstInvalid(event.currentTarget as HTMLFormElement)
    }
    setError(null)
    const asked = opening.current
    return oneAtATime(async () => {
      // Setting or replacing, the key typed here is the one wanted, whatever was stored meanwhile.
      const result = await unsaved.send(() => api.saveSetting({ key: `proxy.${prefix.name}.api_key`, value: key, encrypted: true, category: 'proxy' }, 'either'))
      if (opening.current !== asked) return answeredLate(`API key for ${prefix.name}`, result, onSaved, onLateFailure)
      // The key leaves the page's memory whatever happened.
      setValue('')
      if (!result.ok) return setFailure(result.failure)
      onClose()
      announce(`API key for ${prefix.name} saved.`)
      onSaved()
    })
  }
  // A public prefix needs no sign-in: whoever can reach the service calls through it with this key.
  const open = prefix !== null && !prefix.name.endsWith('-admin')
  const described = [open ? 'api-key-open' : null, error ? 'api-key-error' : null].filter(Boolean).join(' ')
  return (
    <Dialog open={prefix !== null} title={`API key for /api/${prefix?.name ?? ''}`} onClose={onClose} unsaved={unsaved.pending}>
      <form class="form" onSubmit={save} noValidate aria-busy={busy ? 'true' : undefined}>
        <div class="field">
          <label for="api-key-value">API key</label>
          {open && (
            <p class="notice" id="api-key-open">
              Calls through /api/{prefix.name} need no sign-in: anyone who can reach this service makes them with this key. Set one only if the
              public API itself asks for a key, never a key with admin rights (such as an Ory Network project API key): the admin API is reached
              through /api/{prefix.name}-admin, by administrators only. It goes only with the paths of Kratos's and Hydra's public APIs
              (self-service flows, sessions, schemas, OAuth 2.0 and OpenID Connect, health).
            </p>
          )}
          <input
            id="api-key-value"
            type="password"
            autocomplete="off"
            autocapitalize="none"
            autocorrect="off"
            spellcheck={false}
            value={value}
            aria-invalid={error ? 'true' : undefined}
            aria-describedby={described || undefined}
            onInput={(e) => setValue(e.currentTarget.value)}
          />
          {error && (
            <p class="field-error" id="api-key-error">
              {error}
            </p>
          )}
        </div>
        {failure && <ErrorView failure={failure} />}
        <div class="actions">
          <button type="submit" class="primary" {...unavailableWhile(busy)}>
            Save
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  )
}

/**
 * A save answered after its dialog was closed (Escape) and perhaps opened again, for this or
 * another setting: the dialog as it is now is left alone, and the outcome is announced. A failure
 * to report (toReport) also goes to `onLateFailure`, for its request ID: the status region says the
 * outcome and holds nothing to press.
 */
function answeredLate(what: string, result: ApiResult<Setting>, onSaved: () => void, onLateFailure: (failure: ApiFailure) => void): void {
  if (!result.ok) {
    const message = `${what} was not saved. ${result.failure.message}`
    announce(message)
    if (toReport(result.failure) && result.failure.requestId) onLateFailure({ ...result.failure, message })
    return
  }
  announce(`${what} saved.`)
  onSaved()
}

/**
 * A late save's failure to report, kept on the page with its request ID under Details after the
 * status region has said it (and let it go): not live, so it is not read out a second time.
 */
function LateFailure({ failure, onDismiss }: { failure: ApiFailure; onDismiss: () => void }) {
  const dismiss = () => {
    onDismiss()
    // The button goes with the notice: focus goes where a page's focus starts.
    focusHeading()
  }
  return (
    <div class="notice page-notice" role="note">
      <p>{failure.message}</p>
      <FailureDetails failure={failure} />
      <button type="button" onClick={dismiss}>
        Dismiss
      </button>
    </div>
  )
}

function SettingDialog(props: {
  editing: Setting | 'new' | null
  /** What the dialog opens with instead, when it is this setting's (or Add's). */
  draft: SettingDraft | null
  onDraftUsed: () => void
  encryption: boolean
  keys: string[]
  onClose: () => void
  onSaved: () => void
  /** A failure to report, of a save answered after the dialog was closed. */
  onLateFailure: (failure: ApiFailure) => void
}) {
  const existing = props.editing === 'new' ? null : props.editing
  const [key, setKey] = useState('')
  const [value, setValue] = useState('')
  const [category, setCategory] = useState('')
  const [encrypted, setEncrypted] = useState(false)
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [failure, setFailure] = useState<ApiFailure | null>(null)
  // An Edit's Save is checked against the setting as the dialog opened it, or as it was read again
  // when a change saved meanwhile stopped a Save (`changed`): the next Save then replaces it knowingly.
  const [base, setBase] = useState<Setting | null>(null)
  const [changed, setChanged] = useState<Setting | null>(null)
  const [busy, oneAtATime] = useOneAtATime()
  const focusFirstInvalid = useFocusFirstInvalid()
  const opening = useRef(0)
  // What the dialog opened with. An encrypted value is never put into the form: editing it means typing a new one.
  const opened = { key: existing?.key ?? '', value: existing && !existing.encrypted ? existing.value : '', category: existing?.category ?? '', encrypted: existing ? existing.encrypted : false }
  const edited = key !== opened.key || value !== opened.value || category !== opened.category || encrypted !== opened.encrypted
  // Kept through the sign-in should the session end meanwhile, unless the value is a secret: one to
  // be encrypted, or the new value of a setting stored encrypted (the page never opens that draft).
  const draft: Draft = encrypted
    ? { data: null, unkept: 'a value to be encrypted' }
    : existing?.encrypted
      ? { data: null, unkept: 'the new value of an encrypted setting' }
      : { data: { editing: existing?.key ?? null, key, value, category } satisfies SettingDraft }
  const unsaved = useUnsavedChanges(props.editing !== null && edited ? (existing ? `the setting ${existing.key}` : 'the new setting') : null, { form: 'setting', ...draft })
  // As the dialog opens, in the same render (see Dialog).
  useLayoutEffect(() => {
    opening.current++
    const draft = props.editing !== null && props.draft?.editing === (existing?.key ?? null) ? props.draft : null
    if (draft) props.onDraftUsed()
    setKey(draft?.key ?? opened.key)
    setValue(draft?.value ?? opened.value)
    setCategory(draft?.category ?? opened.category)
    setEncrypted(draft ? false : opened.encrypted)
    setErrors({})
    setFailure(null)
    setBase(existing)
    setChanged(null)
  }, [props.editing])
  const save = (event: Event) => {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    const found: Record<string, string> = {}
    if (!KEY_PATTERN.test(key)) found.key = 'Use letters, digits and . _ : - (starting with a letter or digit), at most 255 characters.'
    else if (!existing && isApiKey(key)) found.key = 'Upstream API keys are set in their own section above.'
    // Said at once for a key the page lists; the service refuses the others (added since, or while the list was not there).
    else if (!existing && props.keys.includes(key)) found.key = SETTING_EXISTS
    if (existing?.encrypted && value === '') found.value = 'Type the new value: an encrypted value is not shown here.'
    if (new TextEncoder().encode(value).length > MAX_VALUE_BYTES) found.value = 'The value is larger than 64 KiB.'
    if ([...category].length > MAX_CATEGORY_LENGTH) found.category = `At most ${MAX_CATEGORY_LENGTH} characters.`
    if (encrypted && !props.encryption) found.encrypted = 'Encryption is not available on this server.'
    setErrors(found)
    if (Object.keys(found).length > 0) return focusFirstInvalid(form)
    const asked = opening.current
    const body = { key, value, encrypted, category: category.trim() === '' ? null : category.trim() }
    return oneAtATime(async () => {
      // Add never overwrites a setting, and Edit never brings back one deleted since the page
      // loaded, nor undoes a change saved meanwhile (see editOutcome).
      const outcome = await unsaved.send(() => (existing ? editOutcome(base ?? existing, body) : saved(api.saveSetting(body, 'create'))))
      if ('changed' in outcome) {
        if (opening.current !== asked) return announce(`Setting ${key} was not saved: it was changed meanwhile.`)
        setFailure(null)
        setBase(outcome.changed)
        setChanged(outcome.changed)
        // The list is read again, so that it shows the setting as it is now.
        return props.onSaved()
      }
      const result = outcome.saved
      if (opening.current !== asked) return answeredLate(`Setting ${key}`, result, props.onSaved, props.onLateFailure)
      setChanged(null)
      if (!result.ok && result.failure.status === 412) {
        // The list is read again, so that it shows the setting as it is now.
        props.onSaved()
        if (existing) return setFailure({ ...result.failure, message: DELETED_MEANWHILE })
        setErrors({ key: SETTING_EXISTS })
        return focusFirstInvalid(form)
      }
      if (!result.ok) return setFailure(result.failure)
      props.onClose()
      announce(`Setting ${key} saved.`)
      props.onSaved()
    })
  }
  const field = (name: string) => ({
    'aria-invalid': errors[name] ? ('true' as const) : undefined,
    'aria-describedby': errors[name] ? `setting-${name}-error` : undefined,
  })
  const message = (name: string) =>
    errors[name] && (
      <p class="field-error" id={`setting-${name}-error`}>
        {errors[name]}
      </p>
    )
  return (
    <Dialog open={props.editing !== null} title={existing ? `Edit ${existing.key}` : 'Add setting'} onClose={props.onClose} unsaved={unsaved.pending}>
      <form class="form" onSubmit={save} noValidate aria-busy={busy ? 'true' : undefined}>
        <div class="field">
          <label for="setting-key">Key</label>
          <input id="setting-key" class="mono" value={key} readOnly={existing !== null} autocomplete="off" autocapitalize="none" autocorrect="off" spellcheck={false} onInput={(e) => setKey(e.currentTarget.value)} {...field('key')} />
          {message('key')}
        </div>
        <div class="field">
          <label for="setting-value">Value</label>
          <textarea
            id="setting-value"
            class="mono"
            rows={3}
            value={value}
            spellcheck={false}
            // Editing, the key cannot change: the value is what the dialog is for.
            autofocus={existing !== null}
            placeholder={existing?.encrypted ? 'Type a new value' : undefined}
            onInput={(e) => setValue(e.currentTarget.value)}
            {...field('value')}
          />
          {message('value')}
        </div>
        <div class="field">
          <label for="setting-category">Category</label>
          <input id="setting-category" value={category} autocomplete="off" onInput={(e) => setCategory(e.currentTarget.value)} {...field('category')} />
          {message('category')}
        </div>
        <div class="field checkbox">
          <input id="setting-encrypted" type="checkbox" checked={encrypted} disabled={!props.encryption} onChange={(e) => setEncrypted(e.currentTarget.checked)} {...field('encrypted')} />
          <label for="setting-encrypted">Encrypt the value</label>
          {message('encrypted')}
        </div>
        {changed && <ChangedMeanwhile setting={changed} />}
        {failure && <ErrorView failure={failure} />}
        <div class="actions">
          <button type="submit" class="primary" {...unavailableWhile(busy)}>
            Save
          </button>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  )
}

/** What a setting holds, as an Edit compares it: the value as stored (ciphertext when encrypted), its encryption and category. */
const sameStored = (a: Setting, b: Setting) => a.value === b.value && a.encrypted === b.encrypted && a.category === b.category

type EditOutcome = { saved: ApiResult<Setting> } | { changed: Setting }
const saved = async (result: Promise<ApiResult<Setting>>): Promise<EditOutcome> => ({ saved: await result })

/**
 * An Edit's Save. It replaces the whole setting, and settings carry no version the service could
 * check, so a change someone else saved since the dialog opened (another administrator, on this
 * replica or another, or the command line) would be undone unseen: the setting is read again first,
 * and nothing is sent when it is no longer as `base`. Nothing is awaited between the read and the
 * write, so the window left is one round trip. Deleted meanwhile: as the service's 412 says it.
 */
async function editOutcome(base: Setting, body: { key: string; value: string; encrypted: boolean; category: string | null }): Promise<EditOutcome> {
  const now = await api.setting(base.key, 'change')
  if (!now.ok) return { saved: now.failure.status === 404 ? { ok: false, failure: { ...now.failure, status: 412 } } : now }
  if (!sameStored(now.data, base)) return { changed: now.data }
  return saved(api.saveSetting(body, 'replace'))
}

/** An Edit's Save stopped by a change saved meanwhile: what is stored now; the edit stays in the form for a second Save. */
function ChangedMeanwhile({ setting }: { setting: Setting }) {
  return (
    <div class="notice changed-meanwhile">
      <div role="alert">
        <p>
          <strong>Not saved: this setting changed since the page loaded.</strong>
        </p>
        <p>
          It was saved again on <Time value={setting.updated_at ?? null} /> elsewhere (by another administrator, in another window or from the command line),
          and saving would have undone that change. Your edit is still in the form: Save again to replace what is stored now with it.
        </p>
      </div>
      {setting.encrypted ? (
        <p>The value stored now is encrypted: close this dialog and use Reveal to read it.</p>
      ) : (
        <>
          <p id="setting-stored-value">Stored value:</p>
          <pre class="json-block" tabIndex={0} aria-labelledby="setting-stored-value">
            {setting.value}
          </pre>
        </>
      )}
      <p>Stored category: {setting.category ?? 'none'}</p>
    </div>
  )
}

/**
 * A value as stored, its lines kept; a long one cut after its first lines (or characters), with a
 * button that shows all of it and then less again.
 */
function LongValue({ name, value }: { name: string; value: string }) {
  const [whole, setWhole] = useState(false)
  // By code points: a cut never splits a character in two.
  const characters = Array.from(value)
  const lines = value.split('\n')
  if (characters.length <= SHOWN_CHARACTERS && lines.length <= SHOWN_LINES) return <span class="multiline">{value}</span>
  const cut = Array.from(lines.slice(0, SHOWN_LINES).join('\n')).slice(0, SHOWN_CHARACTERS).join('')
  const size = `${characters.length.toLocaleString('en')} characters`
  // One element: in a phone's card each child of the cell takes a column of its own (data-table.css).
  return (
    <div>
      <span class="multiline">{whole ? value : `${cut}…`}</span>{' '}
      <button type="button" aria-expanded={whole} aria-label={whole ? `Show less of ${name}` : `Show all of ${name} (${size})`} onClick={() => setWhole(!whole)}>
        {whole ? 'Show less' : `Show all (${size})`}
      </button>
    </div>
  )
}
