// Create identity: pick a schema, fill the form generated from its traits, optionally a password.
import { useState } from 'preact/hooks'
import { api, type Identity } from '../../api.ts'
import { Region, useLoad, ErrorView } from '../../components/load.tsx'
import { revalidated, SchemaFields, toTraits, validate, type Errors, type Values } from '../../components/schema-form.tsx'
import { schemasFrom } from '../../session.ts'
import { useFocusFirstInvalid } from '../../components/focus.ts'
import { parseTraits, TRAITS_JSON_ERROR, TraitsJsonField, TraitsJsonNote } from '../../components/traits-json.tsx'
import { identifierLabels, identityWriteFailure, unshowableSchema } from './describe.ts'
import { holdsInput, useUnsavedChanges } from '../../components/unsaved.ts'
import { unavailableWhile, useOneAtATime } from '../../components/one-at-a-time.ts'
import type { ApiFailure } from '../../api.ts'

/** What Create identity keeps through the sign-in (drafts.ts): never the initial password. */
export interface CreateIdentityDraft {
  schemaId: string
  values: Values
  traitsJson: string
}
export const keptCreateIdentity = (data: unknown): CreateIdentityDraft | null => {
  const draft = data as Partial<CreateIdentityDraft> | null
  return draft && typeof draft.schemaId === 'string' && typeof draft.values === 'object' && draft.values !== null && typeof draft.traitsJson === 'string' ? (draft as CreateIdentityDraft) : null
}

export function CreateIdentity(props: {
  /** The form as it was when the session ended at its Create (drafts.ts). */
  draft?: CreateIdentityDraft | null
  onCreated: (identity: Identity) => void
  /**
   * No readable answer came from Kratos (not in time, or lost): the identity may have been created
   * (see api.ts `maybeDone`). `draft`: the form as sent (without its password), for Create identity
   * to open with should it not have been.
   */
  onUnknown: (failure: ApiFailure, draft: CreateIdentityDraft) => void
  onCancel: () => void
}) {
  const [loaded, retry] = useLoad(() => api.schemas(schemasFrom()), [])
  const [schemaId, setSchemaId] = useState<string | null>(props.draft?.schemaId ?? null)
  const [values, setValues] = useState<Values>(props.draft?.values ?? {})
  // For a schema a form cannot show: the traits as JSON (components/traits-json.tsx).
  const [traitsJson, setTraitsJson] = useState(props.draft?.traitsJson ?? '{}')
  const [jsonError, setJsonError] = useState<string | null>(null)
  const [errors, setErrors] = useState<Errors>({})
  const [password, setPassword] = useState('')
  const [failure, setFailure] = useState<ApiFailure | null>(null)
  const [busy, oneAtATime] = useOneAtATime()
  const focusFirstInvalid = useFocusFirstInvalid()
  // Kept through the sign-in should the session end meanwhile, all but the password.
  const unsaved = useUnsavedChanges(holdsInput(values) || password !== '' || traitsJson.trim() !== '{}' ? 'the new identity' : null, {
    form: 'create-identity',
    data: { schemaId: schemaId ?? '', values, traitsJson } satisfies CreateIdentityDraft,
    unkept: password ? 'the initial password' : undefined,
  })
  // Until the form is there (loading, a failure, no schema), a way out that needs no Escape key.
  const formShown = loaded.state === 'ready' && loaded.data.length > 0
  return (
    <>
      <Region loaded={loaded} retry={retry} label="identity schemas">
        {(schemas) => {
          if (schemas.length === 0) return <p class="empty">Kratos has no identity schema.</p>
          // The first schema that can be shown, until the person chooses.
          const chosen = schemas.find((s) => s.id === schemaId) ?? schemas.find((s) => s.traits !== null) ?? schemas[0]!
          const traits = chosen.traits
          const editable = traits !== null || chosen.asJson
          const submit = (event: Event) => {
            event.preventDefault()
            // What the service said about the last attempt is not about this one.
            setFailure(null)
            let sent: Values
            if (traits) {
              const found = validate(traits, values)
              setErrors(found)
              if (Object.keys(found).length > 0) return focusFirstInvalid(event.currentTarget as HTMLFormElement)
              sent = toTraits(traits, values)
            } else if (chosen.asJson) {
              const parsed = parseTraits(traitsJson)
              setJsonError(parsed ? null : TRAITS_JSON_ERROR)
              if (!parsed) return focusFirstInvalid(event.currentTarget as HTMLFormElement)
              sent = parsed
            } else {
              // No form, nothing to send: traits guessed from a schema that cannot be read are not sent.
              return
            }
            return oneAtATime(async () => {
              const result = await unsaved.send(() =>
                api.createIdentity({
                  schema_id: chosen.id,
                  traits: sent,
                  ...(password ? { credentials: { password: { config: { password } } } } : {}),
                }),
              )
              if (result.ok) {
                // Saved: opening the identity loses nothing.
                unsaved.release()
                props.onCreated(result.data)
              } else if (result.failure.maybeDone) props.onUnknown(result.failure, { schemaId: chosen.id, values, traitsJson })
              else setFailure(identityWriteFailure(result.failure, identifierLabels(chosen)))
            })
          }
          return (
            <form onSubmit={submit} noValidate class="form" aria-busy={busy ? 'true' : undefined}>
              {schemas.length > 1 && (
                <div class="field">
                  <label for="create-schema">Identity schema</label>
                  <select id="create-schema" value={chosen.id} onChange={(e) => (setSchemaId(e.currentTarget.value), setValues({}), setErrors({}), setTraitsJson('{}'), setJsonError(null))}>
                    {schemas.map((s) => (
                      <option key={s.id} value={s.id}>
                        {s.title ? `${s.title} (${s.id})` : s.id}
                      </option>
                    ))}
                  </select>
                </div>
              )}
              {editable ? (
                <>
                  {traits ? (
                    <SchemaFields schema={traits} values={values} errors={errors} onChange={(next) => (setValues(next), setErrors((shown) => revalidated(traits, shown, next)))} idPrefix="create" />
                  ) : (
                    <>
                      <TraitsJsonNote id="create-traits-json-note" schemaId={chosen.id} reason="schema" />
                      <TraitsJsonField id="create-traits-json" value={traitsJson} error={jsonError} onInput={setTraitsJson} describedBy="create-traits-json-note" />
                    </>
                  )}
                  <div class="field">
                    <label for="create-password">Initial password (optional)</label>
                    <input id="create-password" type="password" autocomplete="new-password" value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
                  </div>
                </>
              ) : (
                <ErrorView failure={unshowableSchema(chosen.id, 'no identity can be created with it here')} retry={retry} loading />
              )}
              {failure && <ErrorView failure={failure} />}
              <div class="actions">
                {editable && (
                  <button type="submit" class="primary" {...unavailableWhile(busy)}>
                    Create identity
                  </button>
                )}
                <button type="button" onClick={props.onCancel}>
                  Cancel
                </button>
              </div>
            </form>
          )
        }}
      </Region>
      {!formShown && (
        <div class="actions">
          <button type="button" onClick={props.onCancel}>
            Cancel
          </button>
        </div>
      )}
    </>
  )
}
