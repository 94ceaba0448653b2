// Identity (admin): traits, state, metadata, addresses, credentials, sessions, recovery, deletion.
import { createContext } from 'preact'
import { useCallback, useContext, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks'
import { isRecord, traitsFitForm } from '../../ory-records.ts'
import { api, deleteOutcome, sessionGone, settledDelete, unknownOutcomeSaid, type ApiFailure, type FormSchema, type Identity, type IdentitySchema, type KratosSession } from '../../api.ts'
import { SESSIONS_AT_A_TIME, sessionCount, shownFrom, type ShownSessions } from '../../identity-sessions.ts'
import { DeviceCells, TimeCells } from '../../components/session-cells.tsx'
import { Heading } from '../../components/heading.tsx'
import { ErrorView, Region, useLoad, type Loaded } from '../../components/load.tsx'
import { ActionsCell, DataTable, Row } from '../../components/data-table.tsx'
import { ConfirmDialog, Dialog } from '../../components/dialog.tsx'
import { Guarded } from '../../components/guarded.tsx'
import { revealHidden } from '../../reveal.ts'
import { unavailableWhile, useOneAtATime } from '../../components/one-at-a-time.ts'
import { useFocusFirstInvalid } from '../../components/focus.ts'
import { membersPatch, rebaseMembers, same, staleMembers, valuePatch } from '../../components/json-patch.ts'
import { Time, usePassed } from '../../components/time.tsx'
import { announce, clearEarlierAnnouncement } from '../../components/status.ts'
import { CopyButton, ShownOnceValue } from '../../components/shown-once.tsx'
import { mergeTraits, revalidated, SchemaFields, validate, type Errors, type Values } from '../../components/schema-form.tsx'
import { useUnsavedChanges } from '../../components/unsaved.ts'
import { takeDraft } from '../../drafts.ts'
import { isOwnIdentity, OWN_SESSIONS_ENDED, OWN_SESSIONS_NOTE, schemasFrom, user } from '../../session.ts'
import { auditAbout } from '../../audit-words.ts'
import { asLastShown, location, navigateFrom, useLeaveGuard } from '../../router.ts'
import { isUnreadable, UnreadableField, UnreadableRows } from '../../components/unreadable.tsx'
import { parseTraits, TRAITS_JSON_ERROR, TraitsJsonField, TraitsJsonNote, traitsText, type AsJsonReason } from '../../components/traits-json.tsx'
import { identifierLabels, identityWriteFailure, primaryIdentifier, unshowableSchema } from './describe.ts'
import { ChangedNotice, useChangedNotice, valueText, whatStopsSave, type Members } from '../../components/changed-meanwhile.tsx'
import { readAgain } from './read-again.ts'

/**
 * What Kratos's DELETE /admin/identities/{id}/credentials/{type} does with each type
 * (identity/handler.go deleteIdentityCredentials): `whole` removes the credential; `password`
 * empties it (the credential stays, with its identifiers); `link` removes one oidc or saml
 * identifier per call, named by `?identifier=` (400 without it); `second-factor-keys` removes the
 * webauthn keys that are not passwordless, and the credential only when no key is left. The
 * password and a link go only while the identity keeps another first factor (400 otherwise), which
 * Kratos counts from what this page cannot see (key types, hashes, passwordless login by code), so
 * their Delete is offered and a refusal said. Kratos deletes no other type (passkey, code: 400).
 */
type Deletion = 'whole' | 'password' | 'link' | 'second-factor-keys'
const DELETION: Partial<Record<string, Deletion>> = { totp: 'whole', lookup_secret: 'whole', password: 'password', oidc: 'link', saml: 'link', webauthn: 'second-factor-keys' }
/** What each of Kratos's credential types is, in words, beside its name. */
const CREDENTIAL_WORDS: Partial<Record<string, string>> = {
  oidc: 'sign-in with another provider',
  saml: 'sign-in with a SAML provider',
  totp: 'authenticator app',
  lookup_secret: 'backup codes',
  webauthn: 'security keys',
  passkey: 'passkeys',
  code: 'one-time codes by e-mail or SMS',
}
/** Types Kratos's admin API never deletes: the page says so beside them. */
const NOT_DELETED = new Set(['passkey', 'code'])

/**
 * Asked by a section whose action Kratos refused as if the identity were not there (404, or 400 for
 * a recovery link or code): the page reads the identity, and when Kratos no longer has it, says so
 * once for the whole page instead of each section guessing in its own words.
 */
const FoundGone = createContext<() => void>(() => {})

/** A section's failure, checked for an identity deleted meanwhile (see `FoundGone`). */
function ActionFailure({ failure }: { failure: ApiFailure }) {
  const check = useContext(FoundGone)
  useEffect(() => {
    if (failure.status === 404 || failure.status === 400) check()
  }, [failure])
  return <ErrorView failure={failure} />
}

const GONE_SAID = 'Kratos no longer has this identity: it was deleted after this page was opened.'
const GONE: ApiFailure = { error: 'not_found', message: GONE_SAID, status: 404 }

export function IdentityPage({ params }: { params: Record<string, string> }) {
  const identityId = params.id!
  const [loaded, retry, replace] = useLoad(() => api.identity(identityId), [identityId])
  const [goneId, setGoneId] = useState<string | null>(null)
  const gone = goneId === identityId
  const checkGone = useCallback(() => {
    void api.identity(identityId).then((read) => {
      if (read.ok || read.failure.status !== 404) return
      setGoneId(identityId)
      announce(GONE_SAID)
    })
  }, [identityId])
  // Asked for beside the identity: its traits form comes from its schema, and so does its name.
  const [schemas, retrySchemas] = useLoad(() => api.schemas(schemasFrom()), [])
  const known = schemas.state === 'ready' ? schemas.data : null
  // Named once the schemas are read (or known to be unreadable), so that the heading does not
  // change from one identifier to another.
  const title = loaded.state === 'ready' && schemas.state !== 'loading' ? primaryIdentifier(loaded.data, known) : 'Identity'
  return (
    <>
      <p class="breadcrumb">
        <a href={asLastShown('/dashboard/identities')}>Identities</a>
      </p>
      <Heading>{title}</Heading>
      <Region
        loaded={gone ? { state: 'failed', failure: GONE } : loaded}
        retry={() => (setGoneId(null), retry())}
        label="the identity"
        missing={
          gone
            ? { said: GONE_SAID, why: 'What was not saved on it before cannot be saved.', list: { href: asLastShown('/dashboard/identities'), name: 'Identities' }, takeFocus: true }
            : { said: 'Kratos has no identity with this ID.', list: { href: asLastShown('/dashboard/identities'), name: 'Identities' } }
        }
      >
        {(identity) => (
          <FoundGone.Provider value={checkGone}>
            <IdentityDetail identity={identity} identifier={primaryIdentifier(identity, known)} schemas={schemas} retrySchemas={retrySchemas} onChange={replace} />
          </FoundGone.Provider>
        )}
      </Region>
    </>
  )
}

/**
 * A change to the identity shown, made to it as it is when an answer arrives: a write's answer that
 * comes after another change (a credential deleted meanwhile) keeps that change.
 */
type IdentityChange = (change: (identity: Identity) => Identity) => void

/**
 * The identity after a write: Kratos's answer, with the credentials as shown (a write's answer
 * carries none), and whether they could be read.
 */
function afterWrite(identity: Identity, answer: Identity): Identity {
  const unreadable = [...(answer.unreadable ?? []).filter((field) => field !== 'credentials'), ...(identity.unreadable ?? []).filter((field) => field === 'credentials')]
  return { ...identity, ...answer, credentials: identity.credentials, unreadable: unreadable.length > 0 ? unreadable : undefined }
}

function IdentityDetail(props: {
  identity: Identity
  /** What names it (describe.ts primaryIdentifier). */
  identifier: string
  schemas: Loaded<IdentitySchema[]>
  retrySchemas: () => void
  onChange: IdentityChange
}) {
  const { identity, identifier, schemas, retrySchemas, onChange } = props
  const entry = schemas.state === 'ready' ? schemas.data.find((s) => s.id === identity.schema_id) : undefined
  const schema: FormSchema | null = entry?.traits ?? null
  const schemaFailure: ApiFailure | null =
    schemas.state === 'failed'
      ? { ...schemas.failure, message: `The identity schemas cannot be read, so the traits cannot be edited here. ${schemas.failure.message}` }
      : schemas.state !== 'ready'
        ? null
        : !entry
          ? {
              error: 'not_found',
              message:
                identity.schema_id === undefined
                  ? 'Kratos answered this identity without its schema, so the traits cannot be edited here.'
                  : `Kratos has no schema “${identity.schema_id}”, so the traits cannot be edited here.`,
              status: 404,
            }
          : // A form from a schema it cannot read would send traits that overwrite what it did not show.
            !schema && !entry.asJson
            ? unshowableSchema(entry.id, 'the traits cannot be edited here')
            : null
  // Traits stored in another shape than the form's (a list where the schema now says text) are
  // edited as JSON: the form would send them back as text.
  const misfit = schema !== null && identity.traits !== undefined && !traitsFitForm(schema, identity.traits)
  const asJson: { schemaId: string; reason: AsJsonReason } | null = !entry ? null : entry.asJson ? { schemaId: entry.id, reason: 'schema' } : misfit ? { schemaId: entry.id, reason: 'traits' } : null
  const [stateBusy, oneAtATime] = useOneAtATime()
  const [failure, setFailure] = useState<ApiFailure | null>(null)
  const inactive = identity.state === 'inactive'
  // Deactivating oneself locks oneself out (the gate refuses a deactivated identity): asked first.
  const [askingOwn, setAskingOwn] = useState(false)

  const toggleState = () =>
    oneAtATime(async () => {
      const wanted = inactive ? 'active' : 'inactive'
      const done = inactive ? 'Identity activated.' : 'Identity deactivated.'
      const result = await api.setState(identity.id, wanted)
      if (!result.ok) {
        if (!result.failure.maybeDone) return setFailure(result.failure)
        // Of unknown outcome: what Kratos has now is read, so that the state shown (and the button
        // beside it) is not the one from before a change that may have been made.
        const read = await api.identity(identity.id)
        if (!read.ok) return setFailure(unknownOutcomeSaid(result.failure, `The identity may have been ${inactive ? 'activated' : 'deactivated'}: reload the page to see its state before trying again.`))
        onChange((current) => afterWrite(current, read.data))
        if ((read.data.state ?? 'active') !== wanted) {
          return setFailure(unknownOutcomeSaid(result.failure, `Read again afterwards, the identity is still ${inactive ? 'inactive' : 'active'}: the change was not made, or is still under way.`))
        }
        setFailure(null)
        return announce(done)
      }
      setFailure(null)
      onChange((current) => afterWrite(current, result.data))
      announce(done)
    })

  return (
    <div class="sections">
      <section aria-labelledby="overview-h" class="card">
        <h2 id="overview-h">Summary</h2>
        <dl class="facts">
          <dt>ID</dt>
          <dd class="mono">{identity.id}</dd>
          <dt>Schema</dt>
          <dd>{revealHidden(identity.schema_id ?? '') || '—'}</dd>
          <dt>State</dt>
          <dd aria-busy={stateBusy ? 'true' : undefined}>
            <span class={`state state-${identity.state ?? 'active'}`}>{inactive ? 'Inactive' : 'Active'}</span>{' '}
            <button type="button" {...unavailableWhile(stateBusy, () => (!inactive && isOwnIdentity(identity.id) ? setAskingOwn(true) : toggleState()))}>
              {inactive ? 'Activate' : 'Deactivate'}
            </button>
          </dd>
          <dt>Created</dt>
          <dd>
            <Time value={identity.created_at} />
          </dd>
          <dt>Updated</dt>
          <dd>
            <Time value={identity.updated_at} />
          </dd>
          <dt>Audit</dt>
          <dd>
            <a href={auditAbout(identity.id)}>Audit events about this identity</a>
          </dd>
        </dl>
        {failure && <ActionFailure failure={failure} />}
        <ConfirmDialog
          open={askingOwn}
          title="Deactivate your own identity?"
          action="Deactivate"
          busy={stateBusy}
          onConfirm={() => (setAskingOwn(false), toggleState())}
          onClose={() => setAskingOwn(false)}
        >
          <p>It signs you out of the dashboard at once, and you cannot sign in again until another administrator activates it.</p>
        </ConfirmDialog>
      </section>
      <Guarded title="Traits">
        <TraitsSection identity={identity} schema={misfit ? null : schema} identifiers={identifierLabels(entry)} asJson={asJson} schemaFailure={schemaFailure} retry={retrySchemas} onChange={onChange} />
      </Guarded>
      <Guarded title="Metadata">
        <MetadataSection identity={identity} onChange={onChange} />
      </Guarded>
      <Guarded title="Addresses">
        <AddressesSection identity={identity} />
      </Guarded>
      <Guarded title="Credentials">
        <CredentialsSection identity={identity} onChange={onChange} />
      </Guarded>
      <SessionsSection identity={identity} identifier={identifier} />
      <RecoverySection identity={identity} />
      <DangerSection identity={identity} identifier={identifier} />
    </div>
  )
}


/**
 * The traits: a form from the schema, or, for a schema a form cannot show or traits that do not fit it (`asJson`),
 * all of them as JSON, which Kratos checks against the schema on save.
 */
function TraitsSection(props: {
  identity: Identity
  schema: FormSchema | null
  asJson: { schemaId: string; reason: AsJsonReason } | null
  schemaFailure: ApiFailure | null
  retry: () => void
  onChange: IdentityChange
  /** The labels of the schema's sign-in identifiers, which a refusal as taken is about. */
  identifiers: string[]
}) {
  const { identity, schema: traits, asJson, onChange } = props
  // Back from the sign-in after the session ended at a Save: the edit as it was, measured against
  // the traits it was made on (a change made meanwhile is found by Save, as before).
  const [kept] = useState(() => (identity.traits === undefined ? null : keptTraits(takeDraft('traits'))))
  const [values, setValues] = useState<Values>(kept?.values ?? identity.traits ?? {})
  const [text, setText] = useState(kept?.text ?? traitsText(identity.traits ?? {}))
  // The traits this form was filled from: what its edit is measured against.
  const [base, setBase] = useState<Values>(kept?.base ?? identity.traits ?? {})
  const [errors, setErrors] = useState<Errors>({})
  const [failure, setFailure] = useState<ApiFailure | null>(null)
  const [changed, setChanged, stopped] = useChangedNotice(setFailure)
  const [busy, oneAtATime] = useOneAtATime()
  const form = useRef<HTMLFormElement>(null)
  const saveButton = useRef<HTMLButtonElement>(null)
  const focusFirstInvalid = useFocusFirstInvalid()
  const unsaved = useUnsavedChanges(identity.traits !== undefined && traitsEdited(traits, asJson !== null, base, values, text) ? 'the traits' : null, {
    form: 'traits',
    data: { base, values, text } satisfies TraitsDraft,
  })
  /** The traits the form holds, or null (its fields then say what is wrong). */
  const edited = (): Values | null => {
    if (traits) {
      const found = validate(traits, values)
      setErrors(found)
      return Object.keys(found).length > 0 ? null : mergeTraits(traits, base, values)
    }
    const parsed = parseTraits(text)
    setErrors(parsed ? {} : { json: TRAITS_JSON_ERROR })
    return parsed
  }
  const save = (event: Event) => {
    event.preventDefault()
    if (!traits && asJson === null) return
    const next = edited()
    if (!next) return focusFirstInvalid(event.currentTarget as HTMLFormElement)
    return oneAtATime(() =>
      unsaved.send(async () => {
        // Only the traits this form changed: a change made elsewhere since the form was filled
        // (another trait, the state, the metadata) is kept.
        const patch = membersPatch(['traits'], base, next)
        if (patch.length === 0) return announce('Nothing was changed.')
        // A list or an object is set whole: first make sure nobody changed it since the form was filled.
        const stop = await whatStopsSave(() => readAgain(identity.id, traitsOf, 'save'), base, next, { what: traitNames, storedLabel: (key) => `Stored “${key}”` })
        if (stop) return stopped(stop)
        const result = await api.patchIdentity(identity.id, patch)
        if (!result.ok) return setFailure(identityWriteFailure(result.failure, props.identifiers))
        setFailure(null)
        setChanged(null)
        setBase(result.data.traits ?? {})
        setValues(result.data.traits ?? {})
        setText(traitsText(result.data.traits ?? {}))
        onChange((current) => afterWrite(current, result.data))
        announce('Traits saved.')
        // The credentials' identifiers follow the traits (a changed e-mail is the password's
        // identifier now), and a write's answer carries none: read them again. Unread, they stay.
        const read = await api.identity(identity.id)
        if (read.ok) onChange((current) => withCredentialsOf(current, read.data))
      }),
    )
  }
  // Reload: the traits as stored now, with the edit's other changes kept (the stale members take the
  // stored value); the operator's own version of what changed is kept in the notice.
  const reload = () =>
    oneAtATime(async () => {
      if (!changed) return
      const edited = traits ? mergeTraits(traits, base, values) : parseTraits(text)
      const read = await readAgain(identity.id, traitsOf, 'reload')
      if (!read.ok) return setFailure(read.failure)
      setFailure(null)
      const stale = [...new Set([...changed.stale, ...(edited ? staleMembers(base, edited, read.now) : [])])]
      const now = edited ? rebaseMembers(base, edited, read.now, stale) : read.now
      // The box's text as typed (it may not even be JSON any more); the form's values as JSON.
      const yours = traits && edited ? stale.map((key) => ({ label: `Your “${key}”, not saved`, text: valueText(edited[key]) })) : [{ label: 'Your text, not saved', text }]
      setBase(read.now)
      setValues(now)
      setText(traitsText(now))
      setErrors({})
      setChanged({ ...changed, stale, what: traitNames(stale), yours })
      onChange((current) => afterWrite(current, read.identity))
      announce(`Reloaded ${stale.length > 1 ? 'the stored traits' : `the stored “${stale[0]}”`}; your version is kept below to copy from.`)
    })
  /** After Reload: the first field of the first trait that changed meanwhile (the text box, for JSON). */
  const focusChangedField = () => {
    const key = changed?.stale[0]
    const fields = [...(form.current?.querySelectorAll<HTMLElement>('input, select, textarea') ?? [])]
    const field = traits && key !== undefined ? fields.find((element) => element.id === `traits-${key}` || element.id.startsWith(`traits-${key}-`)) : undefined
    const target = field ?? fields[0]
    target?.focus()
  }
  const dismiss = () => {
    setChanged(null)
    saveButton.current?.focus()
  }
  // The role the dashboard reads is `traits.role` (decisions §4): taken from oneself, it is said first.
  const ownRoleDropped = traits !== null && isOwnIdentity(identity.id) && base.role === 'admin' && values.role !== 'admin'
  return (
    <section aria-labelledby="traits-h" class="card">
      <h2 id="traits-h">Traits</h2>
      {identity.traits === undefined ? (
        // An empty form here would invite a Save that overwrites traits this page never saw.
        <UnreadableField what="this identity's traits" from="kratos" consequence="They cannot be edited here." />
      ) : props.schemaFailure ? (
        <ErrorView failure={props.schemaFailure} retry={props.retry} />
      ) : !traits && asJson === null ? (
        <p class="muted" aria-busy="true">Loading the identity schema…</p>
      ) : (
        <>
          {asJson !== null && <TraitsJsonNote id="traits-json-note" schemaId={asJson.schemaId} reason={asJson.reason} />}
          <form onSubmit={save} noValidate class="form" ref={form}>
            {traits ? (
              <SchemaFields schema={traits} values={values} errors={errors} onChange={(next) => (setValues(next), setErrors((shown) => revalidated(traits, shown, next)))} idPrefix="traits" />
            ) : (
              <TraitsJsonField id="traits-json" value={text} error={errors.json ?? null} onInput={setText} describedBy="traits-json-note" />
            )}
            {changed && <ChangedNotice id="traits-changed" changed={changed} record="identity" by={CHANGED_BY} where={traits ? 'form' : 'box'} busy={busy} onReload={reload} onDismiss={dismiss} focusField={focusChangedField} />}
            {failure && <ActionFailure failure={failure} />}
            {ownRoleDropped && (
              <p class="notice" id="own-role-note">
                This is your own identity: without the admin role, the dashboard's admin pages close to you from your next sign-in.
              </p>
            )}
            <div class="actions">
              {/* Described by its section: the page has two buttons named Save (ui.md's name for both). */}
              <button type="submit" class="primary" {...unavailableWhile(busy)} ref={saveButton} aria-describedby={ownRoleDropped ? 'traits-h own-role-note' : 'traits-h'}>
                Save
              </button>
            </div>
          </form>
        </>
      )}
    </section>
  )
}

interface TraitsDraft {
  base: Values
  values: Values
  text: string
}
const keptTraits = (data: unknown): TraitsDraft | null => {
  const draft = data as Partial<TraitsDraft> | null
  return draft && isRecord(draft.base) && isRecord(draft.values) && typeof draft.text === 'string' ? (draft as TraitsDraft) : null
}

/** Whether the traits form holds an edit of `base`: what Save would send differs from it (or the JSON typed is not even JSON). */
function traitsEdited(schema: FormSchema | null, asJson: boolean, base: Values, values: Values, text: string): boolean {
  if (schema) return !same(mergeTraits(schema, base, values), mergeTraits(schema, base, base))
  if (!asJson) return false
  const parsed = parseTraits(text)
  return parsed === null || !same(parsed, base)
}

const CHANGED_BY = 'by another operator or by the person in their account settings'
const traitsOf = (identity: Identity): Members | undefined => identity.traits
const traitNames = (keys: string[]) => (keys.length === 1 ? `The trait “${keys[0]}”` : `The traits ${keys.map((key) => `“${key}”`).join(', ').replace(/, ([^,]*)$/, ' and $1')}`)

function MetadataSection({ identity, onChange }: { identity: Identity; onChange: IdentityChange }) {
  const text = (value: unknown) => (value === null || value === undefined ? '' : JSON.stringify(value, null, 2))
  // Back from the sign-in after the session ended at a Save: the boxes as typed, and what they were filled from.
  const [kept] = useState(() => keptMetadata(takeDraft('metadata')))
  const [pub, setPub] = useState(kept?.pub ?? text(identity.metadata_public))
  const [adm, setAdm] = useState(kept?.adm ?? text(identity.metadata_admin))
  // The metadata this form was filled from: what its edit is measured against.
  const [base, setBase] = useState(kept?.base ?? { public: identity.metadata_public, admin: identity.metadata_admin })
  const [errors, setErrors] = useState<Errors>({})
  const [failure, setFailure] = useState<ApiFailure | null>(null)
  const [changed, setChanged, stopped] = useChangedNotice(setFailure)
  const [busy, oneAtATime] = useOneAtATime()
  const saveButton = useRef<HTMLButtonElement>(null)
  const typed = { metadata_public: pub, metadata_admin: adm }
  const before: Members = { metadata_public: base.public, metadata_admin: base.admin }
  const focusFirstInvalid = useFocusFirstInvalid()
  const parse = (value: string): { ok: true; value: unknown } | { ok: false } => {
    if (value.trim() === '') return { ok: true, value: null }
    try {
      const parsed = JSON.parse(value)
      return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? { ok: true, value: parsed } : { ok: false }
    } catch {
      return { ok: false }
    }
  }
  // A box edited: its text is not what was filled in, nor the same JSON written otherwise.
  const boxEdited = (typedText: string, stored: unknown) => {
    if (typedText === text(stored)) return false
    const parsed = parse(typedText)
    return !parsed.ok || !same(parsed.value, stored)
  }
  const unsaved = useUnsavedChanges(boxEdited(pub, base.public) || boxEdited(adm, base.admin) ? 'the metadata' : null, { form: 'metadata', data: { base, pub, adm } satisfies MetadataDraft })
  const save = (event: Event) => {
    event.preventDefault()
    const a = parse(pub)
    const b = parse(adm)
    const found: Errors = {}
    if (!a.ok) found.public = 'Enter a JSON object, like {"plan": "team"}, or leave it empty.'
    if (!b.ok) found.admin = 'Enter a JSON object, like {"note": "vip"}, or leave it empty.'
    setErrors(found)
    if (!a.ok || !b.ok) return focusFirstInvalid(event.currentTarget as HTMLFormElement)
    return oneAtATime(() =>
      unsaved.send(async () => {
        const patch = [...valuePatch(['metadata_public'], base.public, a.value), ...valuePatch(['metadata_admin'], base.admin, b.value)]
        if (patch.length === 0) return announce('Nothing was changed.')
        // Each field is set whole: first make sure nobody changed it since the form was filled (as for the traits).
        const edited: Members = { metadata_public: a.value, metadata_admin: b.value }
        const stop = await whatStopsSave(() => readAgain(identity.id, metadataOf, 'save'), before, edited, { what: metadataNames, storedLabel: (key) => `Stored ${METADATA[key]}` })
        if (stop) return stopped(stop)
        const result = await api.patchIdentity(identity.id, patch)
        if (!result.ok) return setFailure(identityWriteFailure(result.failure))
        setFailure(null)
        setChanged(null)
        // The form now shows the metadata as stored, a change made elsewhere to the other field included.
        setBase({ public: result.data.metadata_public, admin: result.data.metadata_admin })
        setPub(text(result.data.metadata_public))
        setAdm(text(result.data.metadata_admin))
        onChange((current) => afterWrite(current, result.data))
        announce('Metadata saved.')
      }),
    )
  }
  // Reload: each box as stored now, except one edited here that did not change meanwhile, which
  // keeps its text; the operator's own text of a box that changed is kept in the notice.
  const reload = () =>
    oneAtATime(async () => {
      if (!changed) return
      const read = await readAgain(identity.id, metadataOf, 'reload')
      if (!read.ok) return setFailure(read.failure)
      setFailure(null)
      const editedHere = (key: 'metadata_public' | 'metadata_admin') => {
        const parsed = parse(typed[key])
        return !parsed.ok || !same(parsed.value, before[key])
      }
      const stale = (['metadata_public', 'metadata_admin'] as const).filter(
        (key) => changed.stale.includes(key) || (editedHere(key) && !same(read.now[key], before[key])),
      )
      const next = (key: 'metadata_public' | 'metadata_admin') => (stale.includes(key) || !editedHere(key) ? text(read.now[key]) : typed[key])
      setBase({ public: read.now.metadata_public, admin: read.now.metadata_admin })
      setPub(next('metadata_public'))
      setAdm(next('metadata_admin'))
      setErrors({})
      setChanged({ ...changed, stale, what: metadataNames(stale), yours: stale.map((key) => ({ label: `Your ${METADATA[key]}, not saved`, text: typed[key] === '' ? '(not set)' : typed[key] })) })
      onChange((current) => afterWrite(current, read.identity))
      announce(`Reloaded the stored ${stale.length > 1 ? 'metadata' : METADATA[stale[0]!]}; your version is kept below to copy from.`)
    })
  // A box holding large stored metadata stays closed until Edit: the browser takes seconds to lay
  // out such a text box, and as long again for each key typed in it. One with an edit or an error
  // to show is open.
  const [opened, setOpened] = useState<{ public?: boolean; admin?: boolean }>({})
  const storedText = useMemo(() => ({ public: text(base.public), admin: text(base.admin) }), [base])
  const closed = (key: 'public' | 'admin', value: string) => !opened[key] && !errors[key] && value.length > LARGE_METADATA && value === storedText[key]
  const openedNow = useRef<'public' | 'admin' | null>(null)
  useLayoutEffect(() => {
    if (openedNow.current) document.getElementById(`metadata-${openedNow.current}`)?.focus()
    openedNow.current = null
  }, [opened])
  const open = (key: 'public' | 'admin') => {
    openedNow.current = key
    setOpened((now) => ({ ...now, [key]: true }))
  }
  const focusChangedField = () => document.getElementById(changed?.stale[0] === 'metadata_admin' ? 'metadata-admin' : 'metadata-public')?.focus()
  const dismiss = () => {
    setChanged(null)
    saveButton.current?.focus()
  }
  return (
    <section aria-labelledby="metadata-h" class="card">
      <h2 id="metadata-h">Metadata</h2>
      <form onSubmit={save} noValidate class="form">
        {(
          [
            ['public', 'Public metadata', pub, setPub],
            ['admin', 'Admin metadata', adm, setAdm],
          ] as const
        ).map(([key, label, value, set]) =>
          closed(key, value) ? (
            <div class="field" key={key}>
              <p class="metadata-closed" id={`metadata-${key}-size`}>
                <strong>{label}</strong>: {sizeOf(value)} of JSON, not shown. A text this large makes the page slow to type in.
              </p>
              <div>
                <button type="button" aria-describedby={`metadata-${key}-size`} onClick={() => open(key)}>
                  Edit {label.toLowerCase()}
                </button>
              </div>
            </div>
          ) : (
            <div class="field" key={key}>
              <label for={`metadata-${key}`}>{label}</label>
              <textarea
                id={`metadata-${key}`}
                rows={4}
                class="mono"
                value={value}
                onInput={(e) => set(e.currentTarget.value)}
                aria-invalid={errors[key] ? 'true' : undefined}
                aria-describedby={errors[key] ? `metadata-${key}-error` : undefined}
              />
              {errors[key] && (
                <p class="field-error" id={`metadata-${key}-error`}>
                  {errors[key]}
                </p>
              )}
            </div>
          ),
        )}
        {changed && (
          <ChangedNotice id="metadata-changed" changed={changed} record="identity" by={CHANGED_BY} where={changed.stale.length > 1 ? 'boxes' : 'box'} busy={busy} onReload={reload} onDismiss={dismiss} focusField={focusChangedField} />
        )}
        {failure && <ActionFailure failure={failure} />}
        <div class="actions">
          <button type="submit" class="primary" {...unavailableWhile(busy)} ref={saveButton} aria-describedby="metadata-h">
            Save
          </button>
        </div>
      </form>
    </section>
  )
}

interface MetadataDraft {
  base: { public: unknown; admin: unknown }
  pub: string
  adm: string
}
const keptMetadata = (data: unknown): MetadataDraft | null => {
  const draft = data as Partial<MetadataDraft> | null
  return draft && isRecord(draft.base) && typeof draft.pub === 'string' && typeof draft.adm === 'string' ? (draft as MetadataDraft) : null
}

/** Characters of JSON above which a metadata box is closed until Edit. */
const LARGE_METADATA = 100_000
/** A text's size in UTF-8, as it travels: "412 KB", "3.6 MB". */
function sizeOf(text: string): string {
  const bytes = new TextEncoder().encode(text).length
  return bytes >= 1_000_000 ? `${(bytes / 1_000_000).toFixed(1)} MB` : `${Math.round(bytes / 1000)} KB`
}

const METADATA: Record<string, string> = { metadata_public: 'public metadata', metadata_admin: 'admin metadata' }
const metadataOf = (identity: Identity): Members => ({ metadata_public: identity.metadata_public, metadata_admin: identity.metadata_admin })
const metadataNames = (keys: string[]) => (keys.length > 1 ? 'The public and the admin metadata' : `The ${METADATA[keys[0]!]}`)

function AddressesSection({ identity }: { identity: Identity }) {
  const verifiable = identity.verifiable_addresses
  const recovery = identity.recovery_addresses
  return (
    <section aria-labelledby="addresses-h" class="card">
      <h2 id="addresses-h">Addresses</h2>
      <h3>Verifiable addresses</h3>
      {isUnreadable(identity, 'verifiable_addresses') && <UnreadableField what="some verifiable addresses" from="kratos" />}
      {verifiable.length === 0 ? (
        !isUnreadable(identity, 'verifiable_addresses') && <p class="empty">No verifiable address.</p>
      ) : (
        <ul class="plain">
          {verifiable.map((address) => (
            <li key={address.value}>
              {revealHidden(address.value)} <span class={address.verified ? 'state state-active' : 'state state-inactive'}>{address.verified ? 'Verified' : 'Not verified'}</span>
            </li>
          ))}
        </ul>
      )}
      <h3>Recovery addresses</h3>
      {isUnreadable(identity, 'recovery_addresses') && <UnreadableField what="some recovery addresses" from="kratos" />}
      {recovery.length === 0 ? (
        !isUnreadable(identity, 'recovery_addresses') && <p class="empty">No recovery address.</p>
      ) : (
        <ul class="plain">
          {recovery.map((address) => (
            <li key={address.value}>
              {revealHidden(address.value)} <span class="muted">({address.via})</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}

function CredentialsSection({ identity, onChange }: { identity: Identity; onChange: IdentityChange }) {
  const [failure, setFailure] = useState<ApiFailure | null>(null)
  const [pending, setPending] = useState<CredentialDelete | null>(null)
  const [busy, oneAtATime] = useOneAtATime()
  // Kratos keeps a deleted password's credential, emptied, with its identifiers, and sends nothing
  // that tells it from a password in use: one deleted from this page is not offered again.
  const [passwordDeleted, setPasswordDeleted] = useState(false)
  const credentials = Object.values(identity.credentials ?? {})
  const remove = async (asked: CredentialDelete) => {
    const result = deleteOutcome(await api.deleteCredential(identity.id, asked.type, asked.identifier))
    if (!result.ok && result.failure.maybeDone) {
      // Of unknown outcome: the credentials are read again, so that what is shown is what Kratos has.
      const read = await api.identity(identity.id)
      setPending(null)
      if (!read.ok) return setFailure(unknownOutcomeSaid(result.failure, `Kratos may have deleted ${deletedWhat(asked)}: reload the page to see the credentials before trying again.`))
      onChange((current) => withCredentialsOf(current, read.data))
      const now = read.data.credentials ?? {}
      const still = stillThere(now, asked)
      if (still === false) {
        setFailure(null)
        return announce(deletedSaid(asked, false, now))
      }
      return setFailure(
        unknownOutcomeSaid(
          result.failure,
          still ? `Read again afterwards, ${deletedWhat(asked)} is still there: it was not deleted, or its deletion is still under way.` : `Kratos may have deleted ${deletedWhat(asked)}: the credentials below were read again afterwards.`,
        ),
      )
    }
    if (!result.ok) {
      setPending(null)
      return setFailure(refusalSaid(asked, result.failure))
    }
    if (asked.deletion === 'password') setPasswordDeleted(true)
    // What Kratos has now: a webauthn delete keeps the passwordless keys, a password delete the
    // credential, and someone else may have changed the list meanwhile. Only this list changes: the
    // rest of the page (unsaved edits, a recovery link shown once) stays.
    const read = await api.identity(identity.id)
    setPending(null)
    if (!read.ok) {
      onChange((current) => ({ ...current, credentials: withoutDeleted(current.credentials ?? {}, asked) }))
      const message = read.failure.status === 404 ? 'Kratos no longer has this identity.' : read.failure.message
      return setFailure({ ...read.failure, message: `${deletedSaid(asked, result.already, null)} The credentials could not be read again to show what Kratos has now. ${message}` })
    }
    setFailure(null)
    onChange((current) => withCredentialsOf(current, read.data))
    announce(deletedSaid(asked, result.already, read.data.credentials ?? null))
  }
  return (
    <section aria-labelledby="credentials-h" class="card">
      <h2 id="credentials-h">Credentials</h2>
      {isUnreadable(identity, 'credentials') && <UnreadableField what="the credentials" from="kratos" consequence={credentials.length > 0 ? 'Those below could be read.' : undefined} />}
      {credentials.length === 0 ? (
        !isUnreadable(identity, 'credentials') && <p class="empty">No credentials.</p>
      ) : (
        <ul class="plain">
          {credentials.map((credential) => {
            const { type } = credential
            const identifiers = credential.identifiers ?? []
            const deletion = DELETION[type]
            const button = (asked: CredentialDelete) => (
              <button type="button" class="danger" aria-label={`Delete ${deletedWhat(asked).slice('the '.length)}`} onClick={() => setPending(asked)}>
                Delete
              </button>
            )
            return (
              <li key={type}>
                <strong>{type}</strong>
                {CREDENTIAL_WORDS[type] && <span class="muted"> ({CREDENTIAL_WORDS[type]})</span>}:{' '}
                {deletion === 'link' && identifiers.length > 0 ? (
                  // One link per call: each identifier (`<provider>:<subject>`) has its own Delete.
                  <ul class="plain credential-links">
                    {identifiers.map((identifier) => (
                      <li key={identifier}>
                        {revealHidden(identifier)} {button({ type, deletion, identifier })}
                      </li>
                    ))}
                  </ul>
                ) : (
                  <>
                    {identifiers.map(revealHidden).join(', ') || <span class="muted">no identifier</span>}{' '}
                    {deletion !== undefined && deletion !== 'link' && !(deletion === 'password' && passwordDeleted) && button({ type, deletion })}
                    {NOT_DELETED.has(type) && <span class="muted">Kratos’s admin API cannot delete {type} credentials.</span>}
                  </>
                )}
              </li>
            )
          })}
        </ul>
      )}
      {failure && <ActionFailure failure={failure} />}
      <ConfirmDialog
        open={pending !== null}
        title={pending ? `Delete ${deletedWhat(pending)}?` : ''}
        action="Delete"
        busy={busy}
        onConfirm={() => pending && oneAtATime(() => remove(pending))}
        onClose={() => setPending(null)}
      >
        <p>{pending && DELETION_SAID[pending.deletion](pending.type)}</p>
      </ConfirmDialog>
    </section>
  )
}

/** A delete asked for: a credential type, how Kratos deletes it, and for an oidc or saml link, its identifier. */
interface CredentialDelete {
  type: string
  deletion: Deletion
  identifier?: string
}

/** What a delete is of, as a sentence names it ("the totp credential", "the oidc identifier google:1234"). */
function deletedWhat({ type, deletion, identifier }: CredentialDelete): string {
  switch (deletion) {
    case 'whole':
      return `the ${type} credential`
    case 'password':
      return 'the password'
    case 'link':
      return `the ${type} identifier ${revealHidden(identifier ?? '')}`
    case 'second-factor-keys':
      return `the ${type} second-factor keys`
  }
}

const FIRST_FACTOR_KEPT = 'Kratos refuses if the identity would be left with no other way to sign in.'
/** What the dialog says a delete does. */
const DELETION_SAID: Record<Deletion, (type: string) => string> = {
  whole: () => 'The identity can no longer sign in with it.',
  password: () => `The identity can no longer sign in with a password; Kratos keeps the credential and its identifiers. ${FIRST_FACTOR_KEPT}`,
  link: (type) => `The identity can no longer sign in with this account; its other ${type} identifiers stay. ${FIRST_FACTOR_KEPT}`,
  'second-factor-keys': () => 'Kratos deletes the security keys used as a second factor, and the credential when no other key is left. Passwordless keys stay: Kratos does not delete them here.',
}

/** What a delete did, said once Kratos's credentials have been read again (`now`; null when they could not be read). */
function deletedSaid(asked: CredentialDelete, already: boolean, now: Record<string, unknown> | null): string {
  const what = deletedWhat(asked)
  const What = what.charAt(0).toUpperCase() + what.slice(1)
  if (already) return `${What} had already been deleted.`
  if (asked.deletion === 'second-factor-keys') {
    if (now === null) return `Kratos deleted the ${asked.type} second-factor keys, if there were any.`
    return now[asked.type] === undefined
      ? `The ${asked.type} credential was deleted: it had no passwordless keys.`
      : `Kratos deleted the ${asked.type} second-factor keys, if there were any. The ${asked.type} credential stays with its passwordless keys, which Kratos does not delete here.`
  }
  if (asked.deletion === 'password' && now?.password !== undefined) return 'The password was deleted. Kratos keeps the password credential, with its identifiers and no password.'
  return `${What} was deleted.`
}

/** A refused delete in words: Kratos's 400 for a first factor is its rule that one must be left (its body is never shown). */
function refusalSaid(asked: CredentialDelete, failure: ApiFailure): ApiFailure {
  if (failure.status !== 400 || (asked.deletion !== 'password' && asked.deletion !== 'link')) return failure
  // Kratos keeps an identity's last first factor; before v25 it deleted no password at all, and
  // before v1.3 no social sign-in link either (identity/handler.go deleteIdentityCredentials).
  return {
    ...failure,
    message: `Kratos refused to delete ${deletedWhat(asked)} (HTTP 400): it keeps an identity’s last way to sign in${asked.deletion === 'password' ? ', and a password it has already emptied, or any password before Kratos v25, cannot be deleted' : ''}.`,
  }
}

/**
 * Whether what a delete asked to remove is in the credentials read again: a whole credential or a
 * link can be looked for; a password (Kratos keeps the credential, emptied) and second-factor keys
 * (the credential stays with its passwordless keys) cannot be told apart from what is left.
 */
function stillThere(credentials: Record<string, { identifiers?: string[] }>, asked: CredentialDelete): boolean | undefined {
  const credential = credentials[asked.type]
  if (asked.deletion === 'whole') return credential !== undefined
  if (asked.deletion === 'link') return (credential?.identifiers ?? []).includes(asked.identifier ?? '')
  return undefined
}

/** The credentials without what a delete is known to remove, for when they cannot be read again (webauthn's outcome is unknown then). */
function withoutDeleted(credentials: NonNullable<Identity['credentials']>, asked: CredentialDelete): NonNullable<Identity['credentials']> {
  const { [asked.type]: credential, ...rest } = credentials
  if (!credential || asked.deletion === 'password' || asked.deletion === 'second-factor-keys') return credentials
  if (asked.deletion === 'whole') return rest
  return { ...credentials, [asked.type]: { ...credential, identifiers: (credential.identifiers ?? []).filter((identifier) => identifier !== asked.identifier) } }
}

/** The identity with its credentials as read again (and whether they could be), the rest of the page as it was. */
function withCredentialsOf(identity: Identity, now: Identity): Identity {
  const unreadable = [...(identity.unreadable ?? []).filter((field) => field !== 'credentials'), ...(now.unreadable ?? []).filter((field) => field === 'credentials')]
  return { ...identity, credentials: now.credentials, unreadable: unreadable.length > 0 ? unreadable : undefined }
}

/** Kratos has no active session of the identity: nothing to revoke. */
const noSession = ({ items, skipped, more }: ShownSessions) => items.length === 0 && skipped === 0 && !more

function SessionsSection({ identity, identifier }: { identity: Identity; identifier: string }) {
  const [loaded, retry, replace] = useLoad(async () => {
    const result = await api.identitySessions(identity.id, SESSIONS_AT_A_TIME)
    return result.ok ? { ok: true as const, data: shownFrom(result.data, SESSIONS_AT_A_TIME) } : result
  }, [identity.id])
  const latest = useRef(loaded)
  latest.current = loaded
  const identityActive = identity.state !== 'inactive'
  const [failure, setFailure] = useState<ApiFailure | null>(null)
  const [confirmAll, setConfirmAll] = useState(false)
  const [busy, setBusy] = useState<string | null>(null)
  // Show more, Revoke and Revoke all change the same list: one at a time, each on the list as the
  // one before left it, and their buttons disabled meanwhile (a press is never silently dropped).
  const [listBusy, listAction] = useOneAtATime()
  const tbody = useRef<HTMLTableSectionElement>(null)
  const showMoreButton = useRef<HTMLButtonElement>(null)
  // The row whose Revoke button takes focus once the list has changed: the one that took the place
  // of a revoked session, or the first of those just shown.
  const [focusRow, setFocusRow] = useState<number | null>(null)
  // It moves once the action has ended: until then every Revoke is disabled and cannot take focus.
  useLayoutEffect(() => {
    if (focusRow === null || listBusy || loaded.state !== 'ready' || loaded.refreshing) return
    setFocusRow(null)
    const buttons = tbody.current?.querySelectorAll<HTMLButtonElement>('button') ?? []
    const target = buttons[Math.min(focusRow, buttons.length - 1)] ?? showMoreButton.current ?? document.getElementById('sessions-h')
    target?.focus()
  }, [focusRow, loaded, listBusy])

  /** The list as shown, when nothing is loading it. */
  const shownNow = (): ShownSessions | null => (latest.current.state === 'ready' && !latest.current.refreshing ? latest.current.data : null)
  /** Reads the newest `wanted` sessions again and shows them; null when that failed (said in the section). */
  const reread = async (wanted: number): Promise<ShownSessions | null> => {
    const result = await api.identitySessions(identity.id, wanted)
    if (!result.ok) {
      setFailure(result.failure)
      return null
    }
    setFailure(null)
    const next = shownFrom(result.data, wanted)
    replace(next)
    return next
  }
  const showMore = () =>
    listAction(async () => {
      const shown = shownNow()
      if (!shown) return
      const next = await reread(shown.wanted + SESSIONS_AT_A_TIME)
      if (!next) return
      const before = new Set(shown.items.map((session) => session.id))
      const firstNew = next.items.findIndex((session) => !before.has(session.id))
      setFocusRow(firstNew >= 0 ? firstNew : next.items.length - 1)
      announce(sessionCount(next, identityActive) ?? 'This identity has no active session.')
    })

  const revoke = (session: KratosSession, index: number) =>
    listAction(async () => {
      setBusy(session.id)
      // A 404: Kratos no longer has it (revoked elsewhere first: Revoke all sessions deletes them).
      const result = deleteOutcome(await api.revokeSession(session.id))
      setBusy(null)
      if (!result.ok) return setFailure(result.failure)
      setFailure(null)
      announce(result.already ? 'Session had already been revoked.' : 'Session revoked.')
      const shown = shownNow()
      if (!shown) return
      const left = { ...shown, items: shown.items.filter((s) => s.id !== session.id), total: shown.total === null ? null : Math.max(0, shown.total - 1) }
      replace(left)
      setFocusRow(index)
      // The last session shown is gone while Kratos has more: they take its place.
      if (left.items.length === 0 && left.skipped === 0 && left.more && (await reread(left.wanted))) setFocusRow(0)
    })

  const revokeAll = () =>
    listAction(async () => {
      // Kratos deletes the identity's sessions, and answers 404 when it had none (session/handler.go
      // deleteIdentitySessions, DeleteSessionsByIdentity): nothing was left to revoke.
      const result = deleteOutcome(await api.revokeAllSessions(identity.id))
      setConfirmAll(false)
      if (!result.ok) return setFailure(result.failure)
      setFailure(null)
      announce(result.already ? 'This identity had no session left to revoke.' : 'All sessions of this identity were revoked.')
      // Read again within this action: until the list is back, its buttons stay unavailable.
      const next = await reread(SESSIONS_AT_A_TIME)
      // Revoke all goes with the last session: focus to the section, not to the page's body.
      if (next && noSession(next)) document.getElementById('sessions-h')?.focus()
    })
  const [dashboardBusy, oneAtATime] = useOneAtATime()
  const [confirmDashboard, setConfirmDashboard] = useState(false)
  const [dashboardFailure, setDashboardFailure] = useState<ApiFailure | null>(null)
  const own = isOwnIdentity(identity.id)
  const endDashboard = () =>
    oneAtATime(async () => {
      const result = await api.endDashboardSessions(identity.id)
      if (!result.ok) return setDashboardFailure(result.failure)
      setConfirmDashboard(false)
      announce('Dashboard sessions of this identity ended.')
      // Said in the dialog: the way on is the sign-in, as it would be at the next click.
      if (own) sessionGone({ identityId: user.value!.identityId, said: OWN_SESSIONS_ENDED })
    })
  return (
    <section aria-labelledby="sessions-h" class="card">
      <h2 id="sessions-h" tabIndex={-1}>
        Sessions
      </h2>
      {loaded.state === 'ready' && <UnreadableRows count={loaded.data.skipped} noun={['session', 'sessions']} from="kratos" />}
      <Region loaded={loaded} retry={retry} label="sessions">
        {(shown) => {
          const { items, more } = shown
          const count = sessionCount(shown, identityActive)
          return (
            <>
              {noSession(shown) && <p class="empty">This identity has no active session.</p>}
              {items.length > 0 && identity.state === 'inactive' && (
                <p class="notice">The identity is inactive, so none of these sessions can be used; they work again if it is activated.</p>
              )}
              {count && <p class="muted">{count}</p>}
              {items.length > 0 && (
                <DataTable caption={identityActive ? 'Active sessions' : 'Sessions'} columns={['Device', 'IP address', 'Location', 'Authenticated', 'Expires', { hidden: 'Actions' }]} bodyRef={tbody}>
                  {items.map((session, index) => {
                    return (
                      <Row key={session.id}>
                        <DeviceCells session={session} />
                        <TimeCells session={session} />
                        <ActionsCell>
                          <button type="button" aria-label={`Revoke session ${index + 1}`} aria-busy={busy === session.id ? 'true' : undefined} {...unavailableWhile(listBusy, () => revoke(session, index))}>
                            Revoke
                          </button>
                        </ActionsCell>
                      </Row>
                    )
                  })}
                </DataTable>
              )}
              {more && (
                <div class="pager">
                  <button type="button" ref={showMoreButton} {...unavailableWhile(listBusy, showMore)}>
                    Show more sessions
                  </button>
                </div>
              )}
            </>
          )
        }}
      </Region>
      {failure && <ActionFailure failure={failure} />}
      <div class="actions">
        {!(loaded.state === 'ready' && noSession(loaded.data)) && (
          <button type="button" class="danger" onClick={() => setConfirmAll(true)}>
            Revoke all sessions
          </button>
        )}
        <button type="button" onClick={() => (setDashboardFailure(null), setConfirmDashboard(true))}>
          End dashboard sessions
        </button>
      </div>
      <ConfirmDialog
        open={confirmDashboard}
        title="End dashboard sessions?"
        action="End dashboard sessions"
        busy={dashboardBusy}
        failure={dashboardFailure}
        onConfirm={endDashboard}
        onClose={() => setConfirmDashboard(false)}
      >
        <p>
          Every dashboard session of <strong>{identifier}</strong> stops working now. Its Kratos sessions are not touched.
        </p>
        {own && <p>{OWN_SESSIONS_NOTE}</p>}
      </ConfirmDialog>
      <ConfirmDialog open={confirmAll} title="Revoke all sessions?" action="Revoke" busy={listBusy} onConfirm={revokeAll} onClose={() => setConfirmAll(false)}>
        <p>The identity is signed out everywhere.</p>
      </ConfirmDialog>
    </section>
  )
}

function RecoverySection({ identity }: { identity: Identity }) {
  const [result, setResult] = useState<{ kind: 'link' | 'code'; value: string; link?: string; expires?: string } | null>(null)
  const [failure, setFailure] = useState<ApiFailure | null>(null)
  const shownOnce = result ? (result.kind === 'link' ? 'recovery link' : 'recovery code') : null
  // Past its expiry Kratos no longer takes it: nothing is lost by leaving or replacing it.
  const expired = usePassed(result?.expires)
  const worthKeeping = shownOnce !== null && !expired
  useLeaveGuard(worthKeeping ? `The ${shownOnce} is shown only once: leaving this page loses it for good.` : null)
  // Expired while shown: said, as its creation was, and no longer offered to Copy. Focus that was on
  // Copy goes to Dismiss, the one thing left to do with it, rather than to the page's start.
  const lastFocused = useRef<Element | null>(null)
  const dismissButton = useRef<HTMLButtonElement>(null)
  const wasExpired = useRef(expired)
  useLayoutEffect(() => {
    const turned = expired && !wasExpired.current
    wasExpired.current = expired
    if (!turned || shownOnce === null) return
    if (lastFocused.current?.isConnected === false && (document.activeElement === null || document.activeElement === document.body)) dismissButton.current?.focus()
    announce(`The ${shownOnce} expired: Kratos no longer accepts it. Create a new one.`)
  }, [expired])
  const dismiss = () => {
    // "…shown once, below" would stay on screen for its seconds with nothing below.
    clearEarlierAnnouncement()
    setResult(null)
    document.getElementById('recovery-h')?.focus()
  }
  // A new one made: focus on its Copy, the next step (the value itself is not read out, see
  // ShownOnceValue), which also brings it clear of the status box saying it was made.
  const shown = useRef<HTMLDivElement>(null)
  useLayoutEffect(() => {
    if (result) shown.current?.querySelector<HTMLButtonElement>('.actions button')?.focus()
  }, [result])
  // A 404: the method is turned off in Kratos's configuration (its admin route then answers 404:
  // selfservice/strategy/handler.go IsDisabled), or, for a code, the identity is gone (the link
  // route answers an unknown identity 400).
  const refused = (kind: 'link' | 'code', failure: ApiFailure) => {
    if (failure.status !== 404) return setFailure(failure)
    const off = `the ${kind} recovery method is turned off in Kratos's configuration (selfservice.methods.${kind}.enabled${kind === 'link' ? ', off by default' : ''})`
    const why = kind === 'link' ? `${off}. A recovery code may still be created.` : `${off}, or the identity was deleted meanwhile.`
    setFailure({ ...failure, message: `Kratos did not create a recovery ${kind}: ${why}` })
  }
  // One shown already still works, but once replaced it cannot be copied again: asked first.
  const [replacing, setReplacing] = useState<'link' | 'code' | null>(null)
  const create = (kind: 'link' | 'code') => (worthKeeping ? setReplacing(kind) : make(kind))
  const make = async (kind: 'link' | 'code') => {
    setResult(null)
    if (kind === 'link') {
      const r = await api.recoveryLink(identity.id)
      if (!r.ok) return refused(kind, r.failure)
      setResult({ kind, value: r.data.recovery_link, expires: r.data.expires_at })
    } else {
      const r = await api.recoveryCode(identity.id)
      if (!r.ok) return refused(kind, r.failure)
      setResult({ kind, value: r.data.recovery_code, link: r.data.recovery_link, expires: r.data.expires_at })
    }
    setFailure(null)
    // Said in words: the link or code itself is not read out (see ShownOnceValue).
    announce(kind === 'link' ? 'Recovery link created; it is shown once, below.' : 'Recovery code created; it is shown once, below.')
  }
  return (
    <section aria-labelledby="recovery-h" class="card">
      <h2 id="recovery-h" tabIndex={-1}>
        Account recovery
      </h2>
      <div class="actions">
        <button type="button" onClick={() => create('link')}>
          Create recovery link
        </button>
        <button type="button" onClick={() => create('code')}>
          Create recovery code
        </button>
      </div>
      {failure && <ActionFailure failure={failure} />}
      <ConfirmDialog
        open={replacing !== null}
        title={`Replace the ${shownOnce ?? 'recovery value'}?`}
        action={`Create recovery ${replacing ?? 'link'}`}
        busy={false}
        onConfirm={() => {
          const kind = replacing!
          setReplacing(null)
          void make(kind)
        }}
        onClose={() => setReplacing(null)}
      >
        <p>The {shownOnce} shown below is lost when a new one is created: it still works, but cannot be copied again.</p>
      </ConfirmDialog>
      {result && (
        <div class="one-time" ref={shown} onFocusIn={(event) => (lastFocused.current = event.target as Element)}>
          <p>
            <label for="recovery-value">{result.kind === 'link' ? 'Recovery link' : 'Recovery code'}</label>{' '}
            <span id="recovery-expiry">
              {expired ? (
                <>
                  (expired <Time value={result.expires} />: Kratos no longer accepts it; create a new one)
                </>
              ) : (
                <>
                  (shown once
                  {result.expires && (
                    <>
                      , expires <Time value={result.expires} />
                    </>
                  )}
                  )
                </>
              )}
            </span>
          </p>
          <ShownOnceValue id="recovery-value" value={result.value} describedBy="recovery-expiry" />
          {result.link && <p class="mono secret">Enter it at {result.link}</p>}
          <div class="actions">
            {!expired && <CopyButton value={result.value} />}
            <button type="button" ref={dismissButton} aria-label={`Dismiss the ${shownOnce}`} onClick={dismiss}>
              Dismiss
            </button>
          </div>
        </div>
      )}
    </section>
  )
}

function DangerSection({ identity, identifier }: { identity: Identity; identifier: string }) {
  const [open, setOpen] = useState(false)
  const [typed, setTyped] = useState('')
  const [failure, setFailure] = useState<ApiFailure | null>(null)
  const [busy, oneAtATime] = useOneAtATime()
  const remove = (event: Event) => {
    event.preventDefault()
    if (typed.trim() !== identifier) return
    const from = location.peek().path
    return oneAtATime(async () => {
      const result = await settledDelete(await api.deleteIdentity(identity.id), () => api.identity(identity.id), 'the identity')
      if (!result.ok) return setFailure(result.failure)
      setOpen(false)
      navigateFrom(from, '/dashboard/identities')
      announce(result.already ? `Identity ${identifier} had already been deleted.` : `Identity ${identifier} deleted.`)
    })
  }
  return (
    <section aria-labelledby="danger-h" class="card danger-zone">
      <h2 id="danger-h">Delete</h2>
      <p>Deleting an identity removes its credentials and sessions for good.</p>
      <button type="button" class="danger" onClick={() => (setTyped(''), setFailure(null), setOpen(true))}>
        Delete identity
      </button>
      {/* Not a ConfirmDialog: its Delete is a form's submit, enabled by what is typed. Its only
          action is the Delete, so while busy that is under way: Cancel and Escape would close the
          question while the identity is deleted anyway. */}
      <Dialog open={open} title="Delete identity?" onClose={() => setOpen(false)} underway={busy}>
        <form onSubmit={remove} class="form">
          <div class="field">
            <label for="delete-confirm">Type {identifier} to confirm</label>
            <input id="delete-confirm" value={typed} onInput={(e) => setTyped(e.currentTarget.value)} autocomplete="off" autocapitalize="none" autocorrect="off" spellcheck={false} aria-describedby="delete-confirm-note" />
            <p class="muted" id="delete-confirm-note">
              Delete is available once it is typed exactly as shown, letter case included (spaces around it do not count).
            </p>
          </div>
          {failure && <ActionFailure failure={failure} />}
          <div class="actions">
            <button type="submit" class="danger" disabled={typed.trim() !== identifier} {...unavailableWhile(busy)}>
              Delete
            </button>
            <button type="button" {...unavailableWhile(busy, () => setOpen(false))}>
              Cancel
            </button>
          </div>
        </form>
      </Dialog>
    </section>
  )
}
