// How an identity is named in tables and headings.
import type { Identity } from '../../api.ts'

export function primaryIdentifier(identity: Identity): string {
  const traits = identity.traits ?? {}
  for (const key of ['email', 'username', 'phone']) {
    const value = traits[key]
    if (typeof value === 'string' && value) return value
  }
  const fromCredentials = identity.credentials?.password?.identifiers?.[0]
  return fromCredentials ?? identity.id
}

export function displayName(identity: Identity): string {
  const name = identity.traits?.name
  if (typeof name === 'string') return name
  if (name && typeof name === 'object') {
    const parts = name as Record<string, unknown>
    return [parts.first, parts.last].filter((part) => typeof part === 'string' && part).join(' ')
  }
  return ''
}
