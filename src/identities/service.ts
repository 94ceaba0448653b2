// Listing identities from the managed identity store (decisions §3, §8): one upstream call per
// page, the cursor taken from Kratos's `Link` header, every search written to the audit trail.
// Knows nothing of HTTP routing; answers are values the route maps to envelopes.

import type { AuditLog } from '../audit/audit.ts'
import type { Clock } from '../clock.ts'
import type { ErrorCode } from '../http/errors.ts'
import type { Logger } from '../log.ts'
import { storeFailureSays, UNREADABLE_ANSWER, type IdentityStoreClient } from './store.ts'
import { errorCodeFor, type UpstreamFailure } from '../upstream/client.ts'
import { nextPageToken } from '../upstream/link.ts'
import { parseListQuery, requestedFilter, summarizeIdentity, type IdentityPage, type IdentitySummary, type ListQuery } from './model.ts'

/**
 * A failure, with the upstream failure class for the log; `message` when the store was reached and
 * answered with an error or with something that is not a page of identities ("unreachable" would mislead).
 */
type ListOutcome = { ok: true; page: IdentityPage } | { ok: false; code: ErrorCode; failure?: UpstreamFailure; message?: string }

const UNREADABLE: ListOutcome = { ok: false, code: 'bad_gateway', failure: 'invalid_response', message: UNREADABLE_ANSWER }

const PAGE_TOKEN_COMPLAINT = /page[ _-]?token/i

interface IdentitiesServiceDeps {
  /** The managed identity store (`IDP_ADMIN_URL`); null when it is not configured. */
  store: IdentityStoreClient | null
  log: Logger
  clock: Clock
  audit: AuditLog
}

export class IdentitiesService {
  constructor(private readonly deps: IdentitiesServiceDeps) {}

  /** One page for an admin, validated, fetched and audited (exactly one audit event per call). */
  async search(params: URLSearchParams, adminId: string, requestId?: string): Promise<ListOutcome> {
    let outcome: ListOutcome = { ok: false, code: 'internal_error' }
    try {
      const parsed = parseListQuery(params)
      outcome = parsed.ok ? await this.list(parsed.query) : parsed
      return outcome
    } finally {
      await this.audit(adminId, requestedFilter(params), outcome.ok ? 'ok' : outcome.code, requestId)
    }
  }

  async list(query: ListQuery): Promise<ListOutcome> {
    const { store, log } = this.deps
    if (!store) return { ok: false, code: 'upstream_not_configured' }

    const upstreamQuery = new URLSearchParams({ page_size: String(query.pageSize) })
    if (query.pageToken !== null) upstreamQuery.set('page_token', query.pageToken)
    if (query.credentialsIdentifier !== null) upstreamQuery.set('credentials_identifier', query.credentialsIdentifier)

    const answer = await store.json('/admin/identities', { query: upstreamQuery })
    // A 200 whose body is no JSON.
    if (!answer.ok && answer.failure === 'invalid_response' && answer.status === 200) return UNREADABLE
    if (!answer.ok) {
      const code = answer.failure === 'rejected' ? refusalCode(answer.status ?? 0, answer.text ?? '', query) : errorCodeFor(answer.failure)
      if (code === 'invalid_page_token') return { ok: false, code }
      // Said as what happened (reached and refused, not readable, not reached, late), naming the store.
      return { ok: false, code, failure: answer.failure, message: storeFailureSays(answer.failure, answer.status) }
    }
    const rows = answer.body
    if (!Array.isArray(rows)) {
      log.warn('identity_list_body', { reason: 'not an array' })
      return UNREADABLE
    }
    const identities: IdentitySummary[] = []
    for (const row of rows) {
      const identity = summarizeIdentity(row)
      if (!identity) {
        log.warn('identity_list_body', { reason: 'row is not an identity' })
        return UNREADABLE
      }
      identities.push(identity)
    }

    const token = nextPageToken(answer.headers.get('link'))
    if (token === null) {
      // A next page we could not ask for would strand the caller: treat it as a broken answer.
      log.warn('identity_list_link', { reason: 'next link without a page token' })
      return UNREADABLE
    }
    return { ok: true, page: { identities, next_page_token: token ?? null, has_more: token !== undefined } }
  }

  /**
   * The audit trail (spec rule 6): one JSON line on stdout and one row in `audit_events`. The
   * filter may be an e-mail; it belongs in the server-side trail and never in a response.
   */
  private async audit(adminId: string, searchFilter: string | null, outcome: string, requestId: string | undefined): Promise<void> {
    const timestamp = new Date(this.deps.clock.now()).toISOString()
    // The JSON line holds it as sent, escaped (decisions §8).
    this.deps.log.audit({ action: 'identity_search', adminId, searchFilter, timestamp, outcome, request_id: requestId })
    // A filter refused for what it holds (control characters, over 255 characters) was not searched
    // for: in the table it is kept as its length, not as text that a reader of the trail outside the
    // page (sqlite3, an export) would see raw, line breaks and escape sequences included.
    const refused = outcome === 'invalid_credentials_identifier' && searchFilter !== null
    const target = refused ? null : searchFilter
    const detail: Record<string, string | number> = refused ? { outcome, refused_filter_length: searchFilter.length } : { outcome }
    await this.deps.audit.recordOrLog(this.deps.log, { action: 'identity_search', actor: adminId, target, detail, requestId })
  }
}

/** A 400 about the cursor we passed on is the caller's stale token; anything else is the store's fault. */
function refusalCode(status: number, text: string, query: ListQuery): ErrorCode {
  if (status !== 400 || query.pageToken === null) return 'bad_gateway'
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
