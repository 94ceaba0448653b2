// An identity's active sessions as its page shows them: the newest first, 25 more with each
// "Show more sessions", counted in words. No rendering here.
import type { KratosSession, SessionStretch } from './api.ts'

/** The most sessions of one identity the page reads: Kratos's largest page (`per_page` at most 1000). */
export const MOST_IDENTITY_SESSIONS = 1000

/** How many sessions the section shows at first, and how many more each "Show more sessions" adds. */
export const SESSIONS_AT_A_TIME = 25

/** The sessions shown: the newest `wanted` of Kratos's list, as it was when last read. */
export interface ShownSessions {
  items: KratosSession[]
  skipped: number
  total: number | null
  /** Kratos has sessions after these, and "Show more sessions" can read them. */
  more: boolean
  /** How many of the newest were asked for: 25 more with each "Show more sessions". */
  wanted: number
  /** Kratos has sessions after these that no read of its list reaches (past its largest page). */
  beyondReach: boolean
}

export function shownFrom(stretch: SessionStretch, wanted: number): ShownSessions {
  const read = stretch.items.length + stretch.skipped
  const after = stretch.total === null ? !stretch.end : read < stretch.total
  const more = after && wanted < MOST_IDENTITY_SESSIONS
  return { items: stretch.items, skipped: stretch.skipped, total: stretch.total, more, wanted, beyondReach: after && !more }
}

/**
 * What the list holds, in words: null when there is nothing to count. The sessions of an inactive
 * identity are not revoked or expired, but not active either: they are just sessions then.
 */
export function sessionCount({ items, skipped, total, more, beyondReach }: ShownSessions, identityActive: boolean): string | null {
  const [one, many] = identityActive ? ['active session', 'active sessions'] : ['session', 'sessions']
  if (items.length === 0) return null
  if (!more && !beyondReach) return items.length === 1 ? `1 ${one}.` : `${items.length} ${many}.`
  const shown = total !== null && total > items.length + skipped ? `Showing the ${items.length} newest of ${total} ${many}` : `Showing the ${items.length} newest ${many}`
  // Beyond what one read of Kratos's list holds, Revoke all is the way to the rest.
  return beyondReach ? `${shown}; Revoke all sessions ends every one of them.` : `${shown}.`
}

