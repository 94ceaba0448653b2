// An audit event in words, the same on the Audit log and the Overview's latest events.
import type { AuditEvent } from './api.ts'
import { isOwnIdentity, user } from './session.ts'

/**
 * The recorded outcomes of what was done (a search or a proxied write answered, a setting created
 * or updated); the others say why it was not (refused, upstream_refused, an error code).
 */
const DONE = new Set(['ok', 'created', 'updated'])
/**
 * A proxied write whose request reached the upstream but whose answer did not come back, or came
 * back as a server error (a gateway's 502 or 504 in front of it): it may have been done.
 */
const UNKNOWN = new Set(['timeout', 'answer_lost', 'answer_unreadable', 'upstream_error'])
/** Why a sign-in was refused, as the failure page said it to the person. */
const REFUSAL_REASONS: Record<string, string> = { no_role: 'no role', inactive: 'deactivated', unknown_identity: 'not an identity in the store' }
/** Actions whose name alone would be taken for another (a Kratos session revoked is a proxy write). */
const ACTION_WORDS: Record<string, string> = { sessions_revoke: 'end dashboard sessions' }

/** An audit action in words, as the Audit log's filter and rows and the Overview say it. */
export const actionWords = (action: string): string => ACTION_WORDS[action] ?? action.replace(/_/g, ' ')

/**
 * How it ended, in words (the detail's outcome, "refused"; ok/failed; a status; "ok" when it says
 * none), and whether what it records was done.
 */
export function outcomeOf(event: AuditEvent): { said: string; done: boolean } {
  const detail = event.detail ?? {}
  // A write whose event was written before it was sent, and whose outcome could not be added to it.
  if (detail.outcome === 'pending') return { said: 'sent, no outcome recorded (may have been done)', done: false }
  if (typeof detail.outcome === 'string') {
    const said = detail.outcome.replace(/_/g, ' ')
    const reason = typeof detail.reason === 'string' ? (REFUSAL_REASONS[detail.reason] ?? detail.reason.replace(/_/g, ' ')) : null
    if (reason !== null) return { said: `${said} (${reason})`, done: DONE.has(detail.outcome) }
    return { said: UNKNOWN.has(detail.outcome) ? `${said} (may have been done)` : said, done: DONE.has(detail.outcome) }
  }
  if (typeof detail.ok === 'boolean') return { said: detail.ok ? 'ok' : 'failed', done: detail.ok }
  if (typeof detail.status === 'number') return detail.status < 400 ? { said: `ok (${detail.status})`, done: true } : { said: `failed (${detail.status})`, done: false }
  return { said: 'ok', done: true }
}

/**
 * An identity by what a person knows it by, when the page knows that without asking (the trail
 * keeps ids only, and a lookup per row is not worth it): the identity signed in here, by its
 * e-mail. Else by its id, which all sound alike read out one after the other.
 */
export const knownIdentifier = (id: string): string | null => (isOwnIdentity(id) && user.value?.email) || null

/** The Audit log filtered to the events about an identity, an OAuth client or a setting. */
export const auditAbout = (id: string): string => `/dashboard/audit?about=${encodeURIComponent(id)}`
