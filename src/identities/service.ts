// Listing identities from the managed identity store (decisions §3, §8): one upstream call per
// page, the cursor taken from Kratos's `Link` header, every search written to the audit trail.
// Knows nothing of HTTP routing; answers are values the route maps to envelopes.

import type { AuditLog } from '../audit/audit.ts'
import type { Clock } from '../clock.ts'
import type { ErrorCode } from '../http/errors.ts'
import { describeError, type Logger } from '../log.ts'
import type { IdentityStoreClient } from './store.ts'
import { parseListQuery, requestedFilter, summarizeIdentity, type IdentityPage, type IdentitySummary, type ListQuery } from './model.ts'

export type ListOutcome = { ok: true; page: IdentityPage } | { ok: false; code: ErrorCode }

export interface LinkValue {
  url: string
  /** Lower-cased relation types (`rel="next last"` gives two). */
  rels: string[]
}

/**
 * RFC 8288 `Link` header: comma-separated `<url>; param=value` entries, values quoted or bare.
 * Commas inside `<…>` or quotes do not split entries; malformed entries are skipped.
 */
export function parseLinkHeader(header: string): LinkValue[] {
  const links: LinkValue[] = []
  const length = header.length
  let i = 0
  const isSpace = (c: string | undefined) => c === ' ' || c === '\t'
  const skipSpaces = () => {
    while (i < length && isSpace(header[i])) i++
  }
  /** Moves past the rest of a malformed entry, honouring quotes. */
  const skipEntry = () => {
    let quoted = false
    while (i < length) {
      const c = header[i]!
      if (quoted && c === '\\') i++
      else if (c === '"') quoted = !quoted
      else if (c === ',' && !quoted) return
      i++
    }
  }

  while (i < length) {
    while (i < length && (isSpace(header[i]) || header[i] === ',')) i++
    if (i >= length) break
    if (header[i] !== '<') {
      skipEntry()
      continue
    }
    const close = header.indexOf('>', i + 1)
    if (close < 0) break
    const url = header.slice(i + 1, close).trim()
    i = close + 1
    const params = new Map<string, string>()
    for (;;) {
      skipSpaces()
      if (header[i] !== ';') break
      i++
      skipSpaces()
      let name = ''
      while (i < length && !'=;,'.includes(header[i]!) && !isSpace(header[i])) name += header[i++]
      skipSpaces()
      let value = ''
      if (header[i] === '=') {
        i++
        skipSpaces()
        if (header[i] === '"') {
          i++
          while (i < length && header[i] !== '"') {
            if (header[i] === '\\' && i + 1 < length) i++
            value += header[i++]
          }
          i++ // the closing quote
        } else {
          while (i < length && !';,'.includes(header[i]!) && !isSpace(header[i])) value += header[i++]
        }
      }
      // The first occurrence of a parameter wins (RFC 8288 §3).
      const key = name.toLowerCase()
      if (key !== '' && !params.has(key)) params.set(key, value)
    }
    skipEntry() // anything left before the next comma is not ours to guess at
    const rel = params.get('rel')
    links.push({ url, rels: rel ? rel.toLowerCase().split(/[ \t]+/).filter(Boolean) : [] })
  }
  return links
}

/**
 * The `page_token` of the `rel="next"` link: undefined when there is no next link, null when a
 * next link carries no usable token. Only the token is kept; the URL is the store's own.
 */
export function nextPageToken(header: string | null): string | null | undefined {
  if (header === null) return undefined
  const next = parseLinkHeader(header).find((link) => link.rels.includes('next'))
  if (!next) return undefined
  try {
    const token = new URL(next.url, 'http://upstream.invalid/').searchParams.get('page_token')
    return token === null || token === '' ? null : token
  } catch {
    return null
  }
}

const PAGE_TOKEN_COMPLAINT = /page[ _-]?token/i

export interface IdentitiesServiceDeps {
  /** The managed identity store (`IDP_ADMIN_URL`); null when it is not configured. */
  store: IdentityStoreClient | null
  log: Logger
  clock: Clock
  audit: AuditLog
}

export class IdentitiesService {
  constructor(private readonly deps: IdentitiesServiceDeps) {}

  /** One page for an admin, validated, fetched and audited (exactly one audit event per call). */
  async search(params: URLSearchParams, adminId: string): Promise<ListOutcome> {
    let outcome: ListOutcome = { ok: false, code: 'internal_error' }
    try {
      const parsed = parseListQuery(params)
      outcome = parsed.ok ? await this.list(parsed.query) : parsed
      return outcome
    } finally {
      this.audit(adminId, requestedFilter(params), outcome.ok ? 'ok' : outcome.code)
    }
  }

  async list(query: ListQuery): Promise<ListOutcome> {
    const { store, log } = this.deps
    if (!store) return { ok: false, code: 'upstream_not_configured' }

    const upstreamQuery = new URLSearchParams({ page_size: String(query.pageSize) })
    if (query.pageToken !== null) upstreamQuery.set('page_token', query.pageToken)
    if (query.credentialsIdentifier !== null) upstreamQuery.set('credentials_identifier', query.credentialsIdentifier)

    const result = await store.request('/admin/identities', { query: upstreamQuery })
    if (!result.ok) return { ok: false, code: result.failure === 'timeout' ? 'gateway_timeout' : 'bad_gateway' }
    const { response } = result

    if (response.status !== 200) {
      const code = await this.classifyRefusal(response, query)
      log.warn('identity_list_status', { status: response.status, code })
      return { ok: false, code }
    }

    let rows: unknown
    try {
      rows = await response.json()
    } catch (error) {
      const timedOut = isTimeout(error)
      log.warn('identity_list_body', { ...describeError(error), timed_out: timedOut })
      return { ok: false, code: timedOut ? 'gateway_timeout' : 'bad_gateway' }
    }
    if (!Array.isArray(rows)) {
      log.warn('identity_list_body', { reason: 'not an array' })
      return { ok: false, code: 'bad_gateway' }
    }
    const identities: IdentitySummary[] = []
    for (const row of rows) {
      const identity = summarizeIdentity(row)
      if (!identity) {
        log.warn('identity_list_body', { reason: 'row is not an identity' })
        return { ok: false, code: 'bad_gateway' }
      }
      identities.push(identity)
    }

    const token = nextPageToken(response.headers.get('link'))
    if (token === null) {
      // A next page we could not ask for would strand the caller: treat it as a broken answer.
      log.warn('identity_list_link', { reason: 'next link without a page token' })
      return { ok: false, code: 'bad_gateway' }
    }
    return { ok: true, page: { identities, next_page_token: token ?? null, has_more: token !== undefined } }
  }

  /** A 400 about the cursor we passed on is the caller's stale token; anything else is the store's fault. */
  private async classifyRefusal(response: Response, query: ListQuery): Promise<ErrorCode> {
    let text = ''
    try {
      text = await response.text()
    } catch (error) {
      if (isTimeout(error)) return 'gateway_timeout'
    }
    if (response.status !== 400 || query.pageToken === null) return 'bad_gateway'
    try {
      const body = JSON.parse(text) as { error?: unknown }
      if (body && typeof body.error === 'object' && body.error !== null) {
        const { reason, message, details } = body.error as Record<string, unknown>
        const about = [reason, message, typeof details === 'object' ? JSON.stringify(details) : details]
        if (about.some((part) => typeof part === 'string' && PAGE_TOKEN_COMPLAINT.test(part))) return 'invalid_page_token'
      }
    } catch {
      // Not a Kratos error body: nothing tells us the token was at fault.
    }
    return 'bad_gateway'
  }

  /**
   * The audit trail (spec rule 6): one JSON line on stdout and one row in `audit_events`. The
   * filter may be an e-mail; it belongs in the server-side trail and never in a response.
   */
  private audit(adminId: string, searchFilter: string | null, outcome: string): void {
    const timestamp = new Date(this.deps.clock.now()).toISOString()
    this.deps.log.audit({ action: 'identity_search', adminId, searchFilter, timestamp, outcome })
    try {
      this.deps.audit.record('identity_search', adminId, searchFilter, { outcome })
    } catch (error) {
      this.deps.log.error('audit_write_failed', { action: 'identity_search', ...describeError(error) })
    }
  }
}

function isTimeout(error: unknown): boolean {
  const name = (error as { name?: string } | null)?.name
  return name === 'TimeoutError' || name === 'AbortError'
}
