// An audit event in words, the same on the Audit log and the Overview's latest events.
import type { AuditEvent } from './api.ts'
import { isOwnIdentity, user } from './session.ts'

/** How it ended: the detail's outcome ("refused"), ok/failed, or a status; "ok" when it says none. */
export function outcomeOf(event: AuditEvent): string {
  const detail = event.detail ?? {}
  if (typeof detail.outcome === 'string') return detail.outcome.replace(/_/g, ' ')
  if (typeof detail.ok === 'boolean') return detail.ok ? 'ok' : 'failed'
  if (typeof detail.status === 'number') return detail.status < 400 ? `ok (${detail.status})` : `failed (${detail.status})`
  return 'ok'
}

/**
 * An identity by what a person knows it by, when the page knows that without asking (the trail
 * keeps ids only, and a lookup per row is not worth it): the identity signed in here, by its
 * e-mail. Else by its id, which all sound alike read out one after the other.
 */
export const knownIdentifier = (id: string): string | null => (isOwnIdentity(id) && user.value?.email) || null
