// Traits edited as JSON, for an identity schema a form cannot show (ory-records.ts `readTraits`):
// the whole traits object in one text box, so nothing is left out or guessed; Kratos checks it
// against the schema when it is saved.

export const TRAITS_JSON_ERROR = 'Enter the traits as a JSON object, like {"email": "name@example.com"}.'

/** The text box's traits: a JSON object, or null when the text is not one. */
export function parseTraits(text: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(text)
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null
  } catch {
    return null
  }
}

export const traitsText = (traits: Record<string, unknown>) => JSON.stringify(traits, null, 2)

/** Why the traits are a text box: the schema (`schema`), or this identity's stored traits (`traits`). */
export type AsJsonReason = 'schema' | 'traits'

/** Why the form is a text box, naming the schema; `id` is what the text box is described by. */
export function TraitsJsonNote({ id, schemaId, reason }: { id: string; schemaId: string; reason: AsJsonReason }) {
  return (
    <p class="muted" id={id}>
      {reason === 'schema'
        ? `The identity schema “${schemaId}” has fields a form cannot show (a list, a field of several types, a free-form object or a part defined in another document), so the traits are edited here as JSON.`
        : `This identity's traits hold values of another kind than the identity schema “${schemaId}” gives them (a list where it says text, say), so they are edited here as JSON rather than changed by a form.`}{' '}
      Kratos checks them against the schema when they are saved.
    </p>
  )
}

export function TraitsJsonField(props: { id: string; value: string; error: string | null; onInput: (text: string) => void; describedBy: string }) {
  const { id, value, error } = props
  const rows = Math.min(Math.max(value.split('\n').length + 1, 4), 16)
  return (
    <div class="field">
      <label for={id}>Traits (JSON)</label>
      <textarea
        id={id}
        rows={rows}
        class="mono"
        spellcheck={false}
        autocomplete="off"
        value={value}
        onInput={(e) => props.onInput(e.currentTarget.value)}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error ? `${props.describedBy} ${id}-error` : props.describedBy}
      />
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  )
}
