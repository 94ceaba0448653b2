// Client for a Kratos-compatible admin API (the managed and the login identity stores), on the
// one upstream client. Answers are values: callers map them to envelopes.

import { UpstreamClient, type UpstreamFailure } from '../upstream/client.ts'
import { isKratosError } from '../upstream/ory-error.ts'
import type { IdentityPresence } from '../session/verifier.ts'

export type IdentityLookup = { ok: true; identity: Record<string, unknown> } | { ok: false; failure: 'not_found' | UpstreamFailure; status?: number }

// The contract's code for an upstream failure (502 `bad_gateway`), with words that fit when the
// store was reached: it answered, but with an error or with something that is not what was asked.
// Nothing of the answer is echoed (its status goes to the log: admin-api.md, details of a 502).
export const UNREADABLE_ANSWER = 'The identity store answered with data that cannot be read.'
const ANSWERED_WITH_ERROR = 'The identity store answered with an error.'
const KEY_REFUSED = "The identity store did not accept this service's credentials: check its API key under Settings."

/** Our words for a failed call to the store, by what happened: which store, and what to look at. */
export function storeFailureSays(failure: UpstreamFailure | 'not_found', status?: number): string | undefined {
  switch (failure) {
    case 'rejected':
      return status === 401 || status === 403 ? KEY_REFUSED : ANSWERED_WITH_ERROR
    case 'invalid_response':
      return UNREADABLE_ANSWER
    case 'unreachable':
      return 'The identity store cannot be reached from this service.'
    case 'timeout':
      return 'The identity store did not answer in time.'
    default:
      return undefined
  }
}

/** The identity's `traits.role` as the dashboard reads it; null when it has none. */
export const roleOf = (identity: Record<string, unknown>): string | null => {
  const role = (identity.traits as Record<string, unknown> | undefined)?.role
  return typeof role === 'string' ? role : null
}

/** Deactivated in Kratos: it can no longer sign in there, nor hold a dashboard session. */
export const isInactive = (identity: Record<string, unknown>) => identity.state === 'inactive'

export class IdentityStoreClient extends UpstreamClient {
  /**
   * Whether an identity can hold a session: 200 → present, with its role (roleOf), unless Kratos
   * has it deactivated (`state: inactive`, how an operator locks an account out), which is gone
   * like a 404; anything else → unavailable.
   */
  async presence(identityId: string): Promise<IdentityPresence> {
    const found = await this.getIdentity(identityId)
    if (found.ok) return isInactive(found.identity) ? 'gone' : { role: roleOf(found.identity) }
    return found.failure === 'not_found' ? 'gone' : 'unavailable'
  }

  /**
   * The identity, or why not. Only Kratos's own 404 (its JSON error) says the identity is not
   * there: a 404 page of something in front of it (an ingress, a wrong base path) is an answer we
   * cannot read, or every session would end and every sign-in be refused as of an unknown account.
   */
  async getIdentity(identityId: string): Promise<IdentityLookup> {
    const answer = await this.json(`/admin/identities/${encodeURIComponent(identityId)}`)
    if (!answer.ok) {
      if (answer.status !== 404) return { ok: false, failure: answer.failure, status: answer.status }
      if (isKratosNotFound(answer.text)) return { ok: false, failure: 'not_found' }
      this.options.log.warn('upstream_body', { upstream: this.options.name, status: 404, reason: 'not an Ory error' })
      return { ok: false, failure: 'invalid_response' }
    }
    const identity = answer.body
    if (typeof identity !== 'object' || identity === null || Array.isArray(identity)) {
      this.options.log.warn('upstream_body', { upstream: this.options.name, reason: 'not an object' })
      return { ok: false, failure: 'invalid_response' }
    }
    return { ok: true, identity: identity as Record<string, unknown> }
  }
}

/** Kratos's own 404 (ory-error.ts), not any JSON with an `error` (a gateway's own 404 often has one). */
function isKratosNotFound(text: string | undefined): boolean {
  if (text === undefined) return false
  try {
    return isKratosError(JSON.parse(text), 404)
  } catch {
    return false
  }
}
