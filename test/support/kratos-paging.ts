// Keyset paging as Kratos v26.2 does it, list by list (ory/x `pagination/keysetpagination` and
// `keysetpagination_v2`, vendored in Kratos as `oryx/`):
//
// - identities: ordered by id; the token is the last id (a UUID), the first page's the nil UUID.
// - sessions (`persister_session.go` ListSessions): ordered by `created_at DESC, id ASC`; the token
//   is a `MapPageToken`: `id=<uuid>/created_at=<2006-01-02 15:04:05.99999>` in Go's random map
//   order, base64 without padding. A token without `created_at` pages by id alone.
// - courier messages (`persister_courier.go` ListMessages): ordered by `created_at DESC, id ASC`;
//   the token is sealed (a nonce, then the sealed JSON `{"e": expiry, "c": columns}`, URL-safe
//   base64 with padding), differs on every answer and expires after an hour.
//
// Every list answers a `Link` header built from the request's own URL (`u := *r.URL`) with
// `page_token` and `page_size` set and the query re-encoded as Go's `url.Values.Encode` does (keys
// sorted): `rel="first"` with the default token, `rel="next"` only when more rows exist.
//
// An identity's sessions are the exception: offset pages (at the end of this file), whose `Link`
// header is off by one page from the rows answered.

import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'

export const NIL_UUID = '00000000-0000-0000-0000-000000000000'
/** Where Kratos's default tokens (`DefaultPageToken`) put the first page's boundary: 2200-12-31 23:59:59 UTC. */
const FAR_FUTURE_MS = Date.UTC(2200, 11, 31, 23, 59, 59)

/** Go's `url.QueryEscape`: all but letters, digits and `-_.~` percent-encoded, a space as `+`. */
function goQueryEscape(text: string): string {
  return encodeURIComponent(text)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replaceAll('%20', '+')
}

/** Go's `url.QueryUnescape`; null where Go fails (a `%` without two hex digits after it). */
function goQueryUnescape(text: string): string | null {
  if (/%(?![0-9A-Fa-f]{2})/.test(text)) return null
  try {
    return decodeURIComponent(text.replaceAll('+', ' '))
  } catch {
    // Bytes that are no UTF-8: Go keeps them, and no token decodes from them either.
    return null
  }
}

/** `cmp.Or(q["name"]...)`: the first value that is not empty, as keysetpagination reads its parameters. */
export function firstNonEmpty(query: URLSearchParams, name: string): string | null {
  return query.getAll(name).find((value) => value !== '') ?? null
}

/** Go's `strconv.Atoi`: an optional sign and decimal digits within int64; null otherwise. */
export function goAtoi(text: string): number | null {
  if (!/^[+-]?[0-9]+$/.test(text)) return null
  const value = BigInt(text)
  return value > 9223372036854775807n || value < -9223372036854775808n ? null : Number(value)
}

/** Go's `strconv.ParseBool`; undefined where it fails. */
export function goParseBool(text: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false
  return undefined
}

/** The paginator's size: the default for none or ≤ 0, at most the list's maximum. */
export function pageSizeOf(requested: number | null, defaultSize: number, maxSize: number): number {
  const size = requested === null || requested <= 0 ? defaultSize : requested
  return Math.min(size, maxSize)
}

/** The `Link` header of a keyset list: the request's URL with each page's token and the size. */
export function keysetLink(url: URL, size: number, first: string, next: string | null): string {
  const part = (rel: string, token: string) => {
    const query = new URLSearchParams(url.searchParams)
    query.set('page_token', token)
    query.set('page_size', String(size))
    const keys = [...new Set(query.keys())].sort()
    const encoded = keys.flatMap((key) => query.getAll(key).map((value) => `${goQueryEscape(key)}=${goQueryEscape(value)}`)).join('&')
    return `<${url.pathname}?${encoded}>; rel="${rel}"`
  }
  return next === null ? part('first', first) : [part('first', first), part('next', next)].join(',')
}

/** Microseconds since the epoch of a stored RFC 3339 time (the database keeps microseconds). */
export function microsOf(iso: string): number {
  return Date.parse(iso) * 1000
}

/** A row of a list ordered `created_at DESC, id ASC`. */
export interface Dated {
  id: string
  created_at: string
}

/** Where the next page starts: after this row. Without `createdAt` the list is read by id alone. */
export interface Position {
  id: string
  /** Microseconds since the epoch. */
  createdAt?: number
}

/** Where a list ordered `created_at DESC, id ASC` starts without a token: its default token's place. */
export const FIRST_POSITION: Position = { id: NIL_UUID, createdAt: FAR_FUTURE_MS * 1000 }

/** The rows after `position`, in the list's order: `created_at DESC, id ASC`, or by id alone. */
export function rowsAfter<T extends Dated>(rows: T[], position: Position): T[] {
  const byId = (a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  const at = position.createdAt
  if (at === undefined) return rows.filter((row) => row.id > position.id).sort(byId)
  return rows
    .filter((row) => microsOf(row.created_at) < at || (microsOf(row.created_at) === at && row.id > position.id))
    .sort((a, b) => microsOf(b.created_at) - microsOf(a.created_at) || byId(a, b))
}

// --- The session list's map tokens -----------------------------------------------------------

/** `x.MapPaginationDateFormat` ("2006-01-02 15:04:05.99999") in UTC: up to five fractional digits, trailing zeros dropped. */
function mapTokenTime(micros: number): string {
  const iso = new Date(Math.floor(micros / 1000)).toISOString()
  const fraction = String(micros % 1_000_000).padStart(6, '0').slice(0, 5).replace(/0+$/, '')
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction ? `.${fraction}` : ''}`
}

/** The database's reading of a token's `created_at` (a timestamp without zone); null where it would fail. */
function mapTokenMicros(text: string): number | null {
  const match = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?$/.exec(text)
  if (!match) return null
  const seconds = Date.parse(`${match[1]}T${match[2]}Z`)
  if (!Number.isFinite(seconds)) return null
  return seconds * 1000 + Number((match[3] ?? '').padEnd(6, '0').slice(0, 6))
}

/** `MapPageToken.Encode`: `key=value` joined by `/` in Go's (random) map order, base64 without padding. */
function encodeMapToken(entries: [string, string][]): string {
  const pairs = entries.map(([key, value]) => `${key}=${value}`)
  for (let i = pairs.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    ;[pairs[i], pairs[j]] = [pairs[j]!, pairs[i]!]
  }
  return Buffer.from(pairs.join('/'), 'latin1').toString('base64').replace(/=+$/, '')
}

/** A session's token: its id and its `created_at` (`Session.PageToken`). */
export function sessionToken(row: Dated): string {
  return encodeMapToken([
    ['id', row.id],
    ['created_at', mapTokenTime(microsOf(row.created_at))],
  ])
}

/** The first page's token (`Session.DefaultPageToken`). */
export function firstSessionToken(): string {
  return encodeMapToken([
    ['id', NIL_UUID],
    ['created_at', mapTokenTime(FAR_FUTURE_MS * 1000)],
  ])
}

/**
 * `NewMapPageToken` after `url.QueryUnescape`: base64 without padding (line breaks ignored), then
 * `key=value` parts split at `/`. Null where Go fails, which Kratos answers as a bad page size.
 */
export function readSessionToken(raw: string): Map<string, string> | null {
  const unescaped = goQueryUnescape(raw)
  if (unescaped === null) return null
  const text = unescaped.replace(/[\r\n]/g, '')
  if (!/^[A-Za-z0-9+/]*$/.test(text) || text.length % 4 === 1) return null
  const parts = new Map<string, string>()
  for (const part of Buffer.from(text, 'base64').toString('latin1').split('/')) {
    const at = part.indexOf('=')
    if (at >= 0) parts.set(part.slice(0, at), part.slice(at + 1))
  }
  return parts
}

/** Where a read session token starts; `createdAt` null when the database could not read it. */
export function sessionPosition(id: string, parts: Map<string, string>): Position | { createdAt: null } {
  const createdAt = parts.get('created_at')
  if (createdAt === undefined) return { id }
  const micros = mapTokenMicros(createdAt)
  return micros === null ? { createdAt: null } : { id, createdAt: micros }
}

// --- The courier's sealed tokens ---------------------------------------------------------------

/** How long a sealed token is accepted (`jsonPageToken.ExpiresAt`: an hour after it was made). */
export const SEALED_TOKEN_LIFETIME_MS = 3_600_000

export type SealedRead = { ok: true; position: Position } | { ok: false; reason: 'invalid' | 'expired' }

/**
 * Kratos seals its courier tokens with NaCl secretbox under its pagination secret (nonce ‖ tag ‖
 * ciphertext); here AES-256-GCM with a 24-byte nonce gives the same layout and lengths.
 */
export class SealedTokens {
  private readonly key = randomBytes(32)

  constructor(private readonly lifetimeMs: () => number) {}

  /** A message's token: its `created_at` (descending) and its id (`Message.PageToken`). */
  seal(row: Dated): string {
    const json = JSON.stringify({
      e: new Date(Date.now() + this.lifetimeMs()).toISOString(),
      c: [
        { n: 'created_at', o: 1, vt: new Date(row.created_at).toISOString() },
        { n: 'id', vu: row.id },
      ],
    })
    const nonce = randomBytes(24)
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce)
    const sealed = Buffer.concat([cipher.update(json, 'utf8'), cipher.final()])
    const base64 = Buffer.concat([nonce, cipher.getAuthTag(), sealed]).toString('base64url')
    return base64.padEnd(Math.ceil(base64.length / 4) * 4, '=')
  }

  /** The first page's token (`Message.DefaultPageToken`). */
  first(): string {
    return this.seal({ id: NIL_UUID, created_at: new Date(FAR_FUTURE_MS).toISOString() })
  }

  /** `ParseQueryParams` and the paginator's check that the columns are the list's own. */
  read(raw: string): SealedRead {
    const text = goQueryUnescape(raw)
    if (text === null || !/^[A-Za-z0-9_-]*={0,2}$/.test(text) || text.length % 4 !== 0) return { ok: false, reason: 'invalid' }
    const bytes = Buffer.from(text, 'base64url')
    if (bytes.length < 24 + 16) return { ok: false, reason: 'invalid' }
    let json: unknown
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, 24))
      decipher.setAuthTag(bytes.subarray(24, 40))
      json = JSON.parse(Buffer.concat([decipher.update(bytes.subarray(40)), decipher.final()]).toString('utf8'))
    } catch {
      return { ok: false, reason: 'invalid' }
    }
    const token = json as { e?: unknown; c?: { n?: unknown; o?: unknown; vt?: unknown; vu?: unknown }[] }
    if (typeof token.e !== 'string' || Date.parse(token.e) < Date.now()) return { ok: false, reason: 'expired' }
    const [created, id] = token.c ?? []
    if (token.c?.length !== 2 || created?.n !== 'created_at' || created.o !== 1 || id?.n !== 'id' || id.o !== undefined) return { ok: false, reason: 'invalid' }
    if (typeof created.vt !== 'string' || typeof id.vu !== 'string') return { ok: false, reason: 'invalid' }
    return { ok: true, position: { id: id.vu, createdAt: microsOf(created.vt) } }
  }
}

// --- Offset pages (an identity's sessions) ------------------------------------------------------
//
// `GET /admin/identities/{id}/sessions` still pages by offset (`x.ParsePagination`, ory/x
// `migrationpagination`), and hands the page to pop's `Paginate`, which counts pages from 1.

/** A query as Go's `url.ParseQuery` reads it: pairs in order; one with a `;` or a bad escape is dropped. */
export function goParseQuery(raw: string): [string, string][] {
  const pairs: [string, string][] = []
  for (const part of raw.split('&')) {
    if (part === '' || part.includes(';')) continue
    const at = part.indexOf('=')
    const key = goQueryUnescape(at < 0 ? part : part.slice(0, at))
    const value = goQueryUnescape(at < 0 ? '' : part.slice(at + 1))
    if (key !== null && value !== null) pairs.push([key, value])
  }
  return pairs
}

/** `url.Values.Get`: the first value, or '' for none. */
const goGet = (query: [string, string][], key: string) => query.find(([name]) => name === key)?.[1] ?? ''
const goHas = (query: [string, string][], key: string) => query.some(([name]) => name === key)

/** `url.Values.Encode`: keys sorted (each key's values in their order), both query-escaped. */
function goEncodeQuery(query: [string, string][]): string {
  const keys = [...new Set(query.map(([key]) => key))].sort()
  return keys.flatMap((key) => query.filter(([name]) => name === key).map(([, value]) => `${goQueryEscape(key)}=${goQueryEscape(value)}`)).join('&')
}

/** `tokenpagination.Encode`: `{"offset":"N","v":2}`, URL-safe base64 without padding. */
export function offsetToken(offset: number): string {
  return Buffer.from(`{"offset":"${offset}","v":2}`).toString('base64url')
}

/**
 * `tokenpagination`'s decode: the token's `offset` (a string or a number, as gjson's `Int` reads
 * either); 0 where the token is no unpadded URL-safe base64 or holds no offset (the error is dropped).
 */
function tokenOffset(token: string): number {
  const text = token.replace(/[\r\n]/g, '')
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return 0
  let json: unknown
  try {
    json = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'))
  } catch {
    return 0
  }
  const offset = (json as { offset?: unknown } | null)?.offset
  if (offset === true) return 1
  if (typeof offset === 'number') return Math.trunc(offset)
  return typeof offset === 'string' && /^-?[0-9]+$/.test(offset) ? Number(offset) : 0
}

/** A page (from 0, as the paginator counts) and its size. */
export interface OffsetPage {
  page: number
  perPage: number
}

/** The paginators' size rule: the default (250) where unreadable, at most 1000, at least 1. */
function offsetPageSize(raw: string): number {
  const size = goAtoi(raw) ?? 250
  return Math.max(1, Math.min(size, 1000))
}

/**
 * `migrationpagination.ParsePagination`: `page_token` (an offset token) and `page_size` when either
 * is in the query, even empty; else `page` and `per_page`. Nothing is refused: what cannot be
 * read is the first page, or the default size.
 */
export function parseOffsetPaging(query: [string, string][]): OffsetPage {
  if (goHas(query, 'page_token') || goHas(query, 'page_size')) {
    const token = goGet(query, 'page_token')
    const offset = token === '' ? 0 : tokenOffset(token)
    const perPage = offsetPageSize(goGet(query, 'page_size'))
    return { page: offset > 0 ? Math.floor(offset / perPage) : 0, perPage }
  }
  const page = goAtoi(goGet(query, 'page')) ?? 0
  return { page: Math.max(0, page), perPage: offsetPageSize(goGet(query, 'per_page')) }
}

/**
 * The rows pop's `Paginate(page, perPage)` reads: its pages start at 1 and a page below 1 is the
 * first, so page 0 and page 1 are both the first `perPage` rows and page n starts at row (n-1) × perPage.
 */
export function popPage<T>(rows: T[], { page, perPage }: OffsetPage): T[] {
  const start = (Math.max(page, 1) - 1) * perPage
  return rows.slice(start, start + perPage)
}

/**
 * `migrationpagination.PaginationHeader` (ory/x `pagination.HeaderWithFormatter`): `X-Total-Count`,
 * and a `Link` computed as if `page` started at row page × perPage, each URL the request's own with
 * `page`, `page_size`, `page_token` and `per_page` set. An empty list links first, next and prev; a
 * list that fits one page only first (sized to the list); the rest first and prev on the last page,
 * next and last on the first, all four between.
 */
export function offsetPagingHeaders(url: URL, total: number, { page, perPage }: OffsetPage): Record<string, string> {
  const offset = page * perPage
  const lastOffset = total % perPage === 0 ? total - perPage : Math.floor(total / perPage) * perPage
  const query = goParseQuery(url.search.slice(1))
  const link = (rel: string, size: number, at: number) => {
    const set: [string, string][] = [
      ['page', String(Math.trunc(at / size))],
      ['page_size', String(size)],
      ['page_token', offsetToken(at)],
      ['per_page', String(size)],
    ]
    const kept = query.filter(([key]) => !set.some(([name]) => name === key))
    return `<${url.pathname}?${goEncodeQuery([...kept, ...set])}>; rel="${rel}"`
  }
  const links =
    offset >= lastOffset
      ? total === 0
        ? [link('first', perPage, 0), link('next', perPage, (page + 1) * perPage), link('prev', perPage, (page - 1) * perPage)]
        : total <= perPage
          ? [link('first', total, 0)]
          : [link('first', perPage, 0), link('prev', perPage, lastOffset - perPage)]
      : offset < perPage
        ? [link('next', perPage, perPage), link('last', perPage, lastOffset)]
        : [link('first', perPage, 0), link('next', perPage, (page + 1) * perPage), link('prev', perPage, (page - 1) * perPage), link('last', perPage, lastOffset)]
  return { link: links.join(','), 'x-total-count': String(total) }
}
