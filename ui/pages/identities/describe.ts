// How an identity is named in tables and headings.
import type { ApiFailure, Identity } from '../../api.ts'
import { revealHidden } from '../../reveal.ts'

/** The traits that name an identity, in this order; a list of them (a schema with several addresses) is named by its first. */
const NAMING_TRAITS = ['email', 'username', 'phone', 'emails', 'usernames', 'phones']

/** The identifier that names an identity, with any character that would hide or disguise it made visible (reveal.ts). */
export function primaryIdentifier(identity: Identity): string {
  return revealHidden(rawIdentifier(identity))
}

function rawIdentifier(identity: Identity): string {
  const traits = identity.traits ?? {}
  for (const key of NAMING_TRAITS) {
    const value = traits[key]
    const first = Array.isArray(value) ? value.find((item) => typeof item === 'string' && item) : value
    if (typeof first === 'string' && first) return first
  }
  const fromCredentials = identity.credentials?.password?.identifiers?.[0]
  return fromCredentials ?? identity.id
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

/** What Kratos's refusal of a create or an edit means, in words (its own body is never shown). */
export function identityWriteFailure(failure: ApiFailure): ApiFailure {
  if (failure.status === 409) return { ...failure, message: 'Another identity already uses this e-mail address or identifier.' }
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
