// The identities list contract (admin-api.md "Identities", decisions §8): what a caller may ask
// for, and what an identity looks like on the way out. Plain data and pure functions.

import type { ErrorCode } from '../http/errors.ts'
import { characterCount } from '../text.ts'

export const DEFAULT_PAGE_SIZE = 25
export const MIN_PAGE_SIZE = 1
export const MAX_PAGE_SIZE = 250
export const MAX_PAGE_TOKEN_LENGTH = 2048
export const MAX_IDENTIFIER_LENGTH = 255

export interface ListQuery {
  pageSize: number
  /** Opaque and passed through as given; null for the first page. */
  pageToken: string | null
  /** Exact-match login identifier; null when not filtering. */
  credentialsIdentifier: string | null
}

/** The fields an identity keeps on its way to the dashboard; credentials and admin metadata never do. */
export interface IdentitySummary {
  id: string
  schema_id: unknown
  state: unknown
  traits: unknown
  created_at: unknown
  updated_at: unknown
}

export interface IdentityPage {
  identities: IdentitySummary[]
  next_page_token: string | null
  has_more: boolean
}

type QueryResult = { ok: true; query: ListQuery } | { ok: false; code: ErrorCode }

const DIGITS = /^[0-9]+$/
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/

/** Whether an identifier (a login identifier, an id) is plain text this service takes: at most 255 characters, no control character. */
export function isPlainIdentifier(value: string): boolean {
  return characterCount(value) <= MAX_IDENTIFIER_LENGTH && !CONTROL_CHARACTER.test(value)
}

/**
 * Reads the three parameters from the raw query string. A parameter given more than once is
 * refused rather than resolved by picking one of its values; other parameters are ignored and
 * never forwarded.
 */
export function parseListQuery(params: URLSearchParams): QueryResult {
  const single = (name: string): { ok: true; value: string | null } | { ok: false } => {
    const values = params.getAll(name)
    if (values.length > 1) return { ok: false }
    return { ok: true, value: values[0] ?? null }
  }

  const size = single('page_size')
  if (!size.ok) return { ok: false, code: 'invalid_page_size' }
  let pageSize = DEFAULT_PAGE_SIZE
  if (size.value !== null) {
    // Digits only: `+5`, `2.5`, `1e2`, ` 25` and the empty value are all refused.
    if (!DIGITS.test(size.value)) return { ok: false, code: 'invalid_page_size' }
    const parsed = Number(size.value)
    if (parsed < MIN_PAGE_SIZE || parsed > MAX_PAGE_SIZE) return { ok: false, code: 'invalid_page_size' }
    pageSize = parsed
  }

  const token = single('page_token')
  if (!token.ok) return { ok: false, code: 'invalid_page_token' }
  if (token.value !== null && characterCount(token.value) > MAX_PAGE_TOKEN_LENGTH) return { ok: false, code: 'invalid_page_token' }

  const identifier = single('credentials_identifier')
  if (!identifier.ok) return { ok: false, code: 'invalid_credentials_identifier' }
  if (identifier.value !== null) {
    if (!isPlainIdentifier(identifier.value)) return { ok: false, code: 'invalid_credentials_identifier' }
  }

  return {
    ok: true,
    query: {
      pageSize,
      // An empty token means the first page; an empty identifier means no filter.
      pageToken: token.value === null || token.value === '' ? null : token.value,
      credentialsIdentifier: identifier.value === null || identifier.value === '' ? null : identifier.value,
    },
  }
}

/** The raw `credentials_identifier` as the caller sent it (first value), for the audit trail. */
export function requestedFilter(params: URLSearchParams): string | null {
  const value = params.get('credentials_identifier')
  return value === null || value === '' ? null : value
}

/** Keeps exactly the listed fields; null when the upstream row is not an identity object. */
export function summarizeIdentity(row: unknown): IdentitySummary | null {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) return null
  const source = row as Record<string, unknown>
  if (typeof source.id !== 'string' || source.id === '') return null
  return {
    id: source.id,
    schema_id: source.schema_id ?? null,
    state: source.state ?? null,
    traits: source.traits ?? null,
    created_at: source.created_at ?? null,
    updated_at: source.updated_at ?? null,
  }
}
