// A form generated from an identity schema's traits (JSON Schema): strings with formats, numbers,
// booleans, enums, nested objects and required fields, each with its validation message beside it.
// It shows a schema only as ory-records.ts has read it (`readTraitsSchema`): every keyword it uses
// is there in its own shape, so nothing here second-guesses the schema.
import type { FormSchema } from '../api.ts'
import { revealIdentifier } from '../reveal.ts'

export type Values = Record<string, unknown>
export type Errors = Record<string, string>

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/**
 * What a number field holds when the browser cannot read what was typed in it ("1e", "-"): its
 * value reads as empty then, and the field would be left out of the traits without a word.
 */
export const UNREADABLE_NUMBER = Symbol('unreadable number')

const isEmpty = (value: unknown) => value === undefined || value === '' || value === null

/** Nothing filled in: every field empty, a checkbox unticked, and so on in nested objects. */
function isBlank(schema: FormSchema, value: unknown): boolean {
  if (!isValues(value)) return true
  return Object.entries(schema.properties ?? {}).every(([key, field]) =>
    field.type === 'object' ? isBlank(field, value[key]) : field.type === 'boolean' ? !value[key] : isEmpty(value[key]),
  )
}

/**
 * An optional object left blank is absent, as JSON Schema has it: the fields it requires are
 * required only when it is there (a customer without a company).
 */
const absent = (parent: FormSchema, key: string, field: FormSchema, value: unknown) => !(parent.required?.includes(key) ?? false) && isBlank(field, value)

/** A field's label: its title, or its key in words. */
export function labelOf(key: string, schema: FormSchema): string {
  return schema.title ?? key.replace(/[_-]/g, ' ').replace(/^./, (c) => c.toUpperCase())
}

/** Messages for every invalid field, keyed by the field's path ("name.first"). */
export function validate(schema: FormSchema, values: Values, prefix = ''): Errors {
  const errors: Errors = {}
  for (const [key, field] of Object.entries(schema.properties ?? {})) {
    const path = prefix + key
    const value = values[key]
    const type = field.type
    const required = schema.required?.includes(key) ?? false
    const empty = isEmpty(value)
    if (type === 'object') {
      if (!absent(schema, key, field, value)) Object.assign(errors, validate(field, (value as Values) ?? {}, path + '.'))
      continue
    }
    if (value === UNREADABLE_NUMBER) {
      errors[path] = type === 'integer' ? 'Enter a whole number.' : 'Enter a number.'
      continue
    }
    if (empty) {
      if (required && type !== 'boolean') errors[path] = `${labelOf(key, field)} is required.`
      continue
    }
    if (type === 'string') {
      const text = String(value)
      if (field.format === 'email' && text.trim() !== text && EMAIL.test(text.trim())) errors[path] = 'Remove the spaces before or after the address.'
      else if (field.format === 'email' && !EMAIL.test(text)) errors[path] = 'Enter an e-mail address like name@example.com.'
      else if (field.format === 'uri' && !/^[a-z][a-z0-9+.-]*:/i.test(text)) errors[path] = 'Enter a full URL.'
      else if (field.format === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(text)) errors[path] = 'Enter a date.'
      else if (field.minLength !== undefined && text.length < field.minLength) errors[path] = `Use at least ${field.minLength} characters.`
      else if (field.maxLength !== undefined && text.length > field.maxLength) errors[path] = `Use at most ${field.maxLength} characters.`
      else if (field.pattern && !new RegExp(field.pattern, 'u').test(text)) errors[path] = `Enter a value of the form the identity schema asks for (pattern: ${field.pattern}).`
      else if (field.enum && !field.enum.includes(text)) errors[path] = 'Choose one of the options.'
    } else if (type === 'number' || type === 'integer') {
      const number = Number(value)
      if (!Number.isFinite(number) || (type === 'integer' && !Number.isInteger(number))) errors[path] = type === 'integer' ? 'Enter a whole number.' : 'Enter a number.'
      else if (field.minimum !== undefined && number < field.minimum) errors[path] = `Enter at least ${field.minimum}.`
      else if (field.maximum !== undefined && number > field.maximum) errors[path] = `Enter at most ${field.maximum}.`
    }
  }
  return errors
}

/**
 * The messages after an edit: none until a save was refused; after it, they follow the edits (one
 * goes once its field is put right), as a save now would say them.
 */
export function revalidated(schema: FormSchema, shown: Errors, values: Values): Errors {
  return Object.keys(shown).length > 0 ? validate(schema, values) : shown
}

/** The form's values as traits: numbers as numbers, empty optional fields left out. */
export function toTraits(schema: FormSchema, values: Values): Values {
  const traits: Values = {}
  for (const [key, field] of Object.entries(schema.properties ?? {})) {
    const value = values[key]
    const type = field.type
    if (type === 'object') {
      if (absent(schema, key, field, value)) continue
      const nested = toTraits(field, (value as Values) ?? {})
      if (Object.keys(nested).length > 0) traits[key] = nested
    } else if (type === 'boolean') {
      if (value !== undefined) traits[key] = Boolean(value)
    } else if (value !== undefined && value !== '' && value !== null) {
      traits[key] = type === 'number' || type === 'integer' ? Number(value) : value
    }
  }
  return traits
}

/**
 * The traits an edit sends: the identity's own, with every field the form shows replaced by what
 * the form holds, so a field emptied in the form is removed rather than kept by the merge. Traits
 * the schema does not show are kept as they are.
 */
export function mergeTraits(schema: FormSchema, existing: Values, values: Values): Values {
  const merged: Values = { ...existing }
  const edited = toTraits(schema, values)
  for (const [key, field] of Object.entries(schema.properties ?? {})) {
    if (field.type === 'object') {
      const inner = existing[key]
      // Emptied in the form: every field it shows is removed (what the schema does not show stays).
      const shown = absent(schema, key, field, values[key]) ? {} : ((values[key] as Values) ?? {})
      const nested = mergeTraits(field, isValues(inner) ? inner : {}, shown)
      if (Object.keys(nested).length > 0) merged[key] = nested
      else delete merged[key]
    } else if (key in edited) merged[key] = edited[key]
    else delete merged[key]
  }
  return merged
}

const isValues = (value: unknown): value is Values => typeof value === 'object' && value !== null && !Array.isArray(value)

function inputType(type: string, format: string | undefined): string {
  if (type === 'number' || type === 'integer') return 'number'
  return ({ email: 'email', date: 'date', uri: 'url', tel: 'tel' } as Record<string, string>)[format ?? ''] ?? 'text'
}

export function SchemaFields(props: { schema: FormSchema; values: Values; errors: Errors; onChange: (values: Values) => void; idPrefix: string; pathPrefix?: string }) {
  const { schema, values, errors, onChange, idPrefix } = props
  const prefix = props.pathPrefix ?? ''
  return (
    <>
      {Object.entries(schema.properties ?? {}).map(([key, field]) => {
        const path = prefix + key
        const id = `${idPrefix}-${path.replace(/\./g, '-')}`
        const type = field.type
        const label = labelOf(key, field)
        const required = schema.required?.includes(key) ?? false
        const set = (value: unknown) => onChange({ ...values, [key]: value })
        if (type === 'object') {
          return (
            <fieldset key={path} class="nested">
              <legend>{label}</legend>
              <SchemaFields schema={field} values={(values[key] as Values) ?? {}} errors={errors} onChange={set} idPrefix={idPrefix} pathPrefix={path + '.'} />
            </fieldset>
          )
        }
        const error = errors[path]
        // Text with characters that do not show, or that turn it around or pass for other letters,
        // shown beside the box as the dashboard shows it elsewhere: the box itself obeys them.
        const raw = values[key]
        const marked = typeof raw === 'string' && !field.enum ? revealIdentifier(raw.trim()) : null
        const hidden = marked !== null && marked !== (raw as string).trim()
        const describedBy = [error ? `${id}-error` : '', hidden ? `${id}-marked` : ''].filter(Boolean).join(' ') || undefined
        const hint = field.identifier ? <span class="hint"> (sign-in identifier)</span> : null
        if (type === 'boolean') {
          return (
            <div key={path} class="field checkbox">
              <input id={id} type="checkbox" checked={Boolean(values[key])} onChange={(e) => set(e.currentTarget.checked)} />
              <label for={id}>{label}</label>
            </div>
          )
        }
        const common = {
          id,
          required,
          'aria-invalid': error ? ('true' as const) : undefined,
          'aria-describedby': describedBy,
        }
        return (
          <div key={path} class="field">
            <label for={id}>
              {label}
              {required && <span aria-hidden="true"> *</span>}
              {hint}
            </label>
            {field.enum ? (
              <select {...common} value={String(values[key] ?? '')} onChange={(e) => set(e.currentTarget.value)}>
                <option value="">Choose…</option>
                {field.enum.map((option) => (
                  <option key={String(option)} value={String(option)}>
                    {String(option)}
                  </option>
                ))}
              </select>
            ) : (
              <input
                {...common}
                type={inputType(type, field.format) as 'text'}
                value={isEmpty(values[key]) || values[key] === UNREADABLE_NUMBER ? '' : String(values[key])}
                onInput={(e) => set(e.currentTarget.validity.badInput ? UNREADABLE_NUMBER : e.currentTarget.value)}
                autocomplete="off"
              />
            )}
            {hidden && (
              <p class="hint marked-value" id={`${id}-marked`}>
                With the characters that do not show or could pass for others marked: <span class="mono">{marked}</span>
              </p>
            )}
            {error && (
              <p class="field-error" id={`${id}-error`}>
                {error}
              </p>
            )}
          </div>
        )
      })}
    </>
  )
}
