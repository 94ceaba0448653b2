// How an identity is named in tables, headings and the questions about it.
import type { ApiFailure, FormSchema, Identity, IdentitySchema } from '../../api.ts'
import { labelOf } from '../../components/schema-form.tsx'
import { EACH_ITEM, type TraitPath } from '../../ory-records.ts'
import { revealHidden, revealIdentifier } from '../../reveal.ts'

/** The traits that name an identity when nothing says which are its identifiers, in this order; a list of them (a schema with several addresses) is named by its first. */
const NAMING_TRAITS = ['email', 'username', 'phone', 'emails', 'usernames', 'phones']
/**
 * The credentials whose identifiers Kratos takes from the traits the schema marks, in this order
 * (identity/extension_credentials.go); an oidc or saml identifier is a provider's subject, TOTP's
 * and lookup secrets' the identity's id, a passkey's its user handle: no names.
 */
const NAMING_CREDENTIALS = ['password', 'code', 'webauthn']

/**
 * The identifier that names an identity, with any character that would hide or disguise it made
 * visible (reveal.ts). `schemas`: the identity schemas as read (null when they could not be), whose
 * markings say which traits are the identity's login identifiers.
 */
export function primaryIdentifier(identity: Identity, schemas: readonly IdentitySchema[] | null = null): string {
  return revealIdentifier(rawIdentifier(identity, schemas?.find((schema) => schema.id === identity.schema_id)?.identifiers ?? []))
}

/**
 * The first of these that the identity has: a trait its schema marks as a login identifier, in the
 * schema's order (an e-mail address may be a mere contact field, and a customer number the
 * identifier); the identifiers of its credentials, when the record carries them (as Kratos stores
 * them: lower-cased); a trait named like an identifier; its id.
 */
function rawIdentifier(identity: Identity, marked: readonly TraitPath[]): string {
  const traits = identity.traits ?? {}
  for (const path of marked) {
    const value = firstText(traits, path)
    if (value !== undefined) return value
  }
  for (const type of NAMING_CREDENTIALS) {
    const identifier = identity.credentials?.[type]?.identifiers.find((text) => text !== '')
    if (identifier !== undefined) return identifier
  }
  for (const key of NAMING_TRAITS) {
    const value = firstText(traits, [key])
    if (value !== undefined) return value
  }
  return identity.id
}

/** The first non-empty text at `path`; a list on the way, or at its end, is read item by item. */
function firstText(value: unknown, path: TraitPath): string | undefined {
  if (Array.isArray(value) && (path.length === 0 || path[0] === EACH_ITEM)) {
    for (const item of value) {
      const found = firstText(item, path.slice(1))
      if (found !== undefined) return found
    }
    return undefined
  }
  if (path.length === 0) return typeof value === 'string' && value !== '' ? value : undefined
  const [step, ...rest] = path
  if (typeof step !== 'string' || typeof value !== 'object' || value === null || !Object.hasOwn(value, step)) return undefined
  return firstText((value as Record<string, unknown>)[step], rest)
}

export function displayName(identity: Identity): string {
  const name = identity.traits?.name
  if (typeof name === 'string') return revealHidden(name)
  if (name && typeof name === 'object') {
    const parts = name as Record<string, unknown>
    return revealHidden([parts.first, parts.last].filter((part) => typeof part === 'string' && part).join(' '))
  }
  return ''
}

/**
 * The labels of the traits an identity schema marks as sign-in identifiers, as its form names them
 * (none when the schema is not known or marks none).
 */
export function identifierLabels(schema: IdentitySchema | undefined): string[] {
  const labels: string[] = []
  for (const path of schema?.identifiers ?? []) {
    let node: FormSchema | undefined = schema?.traits ?? undefined
    let label: string | undefined
    for (const step of path) {
      if (step === EACH_ITEM) continue
      const field: FormSchema | undefined = node?.properties?.[step]
      label = field ? labelOf(step, field) : step
      node = field
    }
    if (label !== undefined && !labels.includes(label)) labels.push(label)
  }
  return labels
}

/** "this customer number": a label as the object of a sentence (an acronym keeps its capitals). */
const asObject = (label: string) => (/^[A-Z]{2}/.test(label) ? label : label.charAt(0).toLowerCase() + label.slice(1))

/**
 * What Kratos's refusal of a create or an edit means, in words (its own body is never shown).
 * `identifiers`: the labels of the schema's sign-in identifiers (`identifierLabels`), which a 409 is about.
 */
export function identityWriteFailure(failure: ApiFailure, identifiers: readonly string[] = []): ApiFailure {
  if (failure.status === 409) {
    const message =
      identifiers.length === 1
        ? `Another identity already uses this ${asObject(identifiers[0]!)}: it is a sign-in identifier, which no two identities can share.`
        : identifiers.length > 1
          ? `Another identity already uses one of these sign-in identifiers, which no two identities can share: ${identifiers.join(', ')}.`
          : 'Another identity already uses this e-mail address or identifier.'
    return { ...failure, message }
  }
  if (failure.status === 400) return { ...failure, message: 'Kratos refused these values. Check them against the identity schema; if they look right, reload the page: the identity may have changed since it was loaded.' }
  return failure
}

/**
 * An identity schema whose traits cannot be read as a form (see ory-records.ts): a failure to
 * show with Retry, as Kratos may answer it well next time. `consequence` says what it withholds.
 */
export function unshowableSchema(schemaId: string, consequence: string): ApiFailure {
  return { error: 'invalid_response', message: `The identity schema “${schemaId}” cannot be shown as a form, so ${consequence}.`, status: 200 }
}
