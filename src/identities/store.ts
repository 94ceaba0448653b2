// Client for a Kratos-compatible admin API (the managed and the login identity stores), on the
// one upstream client. Answers are values: callers map them to envelopes.

import { UpstreamClient, type UpstreamFailure } from '../upstream/client.ts'

export type IdentityLookup = { ok: true; identity: Record<string, unknown> } | { ok: false; failure: 'not_found' | UpstreamFailure }

/** Deactivated in Kratos: it can no longer sign in there, nor hold a dashboard session. */
export const isInactive = (identity: Record<string, unknown>) => identity.state === 'inactive'

export class IdentityStoreClient extends UpstreamClient {
  /**
   * Whether an identity can hold a session: 200 → present, unless Kratos has it deactivated
   * (`state: inactive`, how an operator locks an account out), which is gone like a 404; anything
   * else → unavailable.
   */
  async presence(identityId: string): Promise<'present' | 'gone' | 'unavailable'> {
    const found = await this.getIdentity(identityId)
    if (found.ok) return isInactive(found.identity) ? 'gone' : 'present'
    return found.failure === 'not_found' ? 'gone' : 'unavailable'
  }

  async getIdentity(identityId: string): Promise<IdentityLookup> {
    const answer = await this.json(`/admin/identities/${encodeURIComponent(identityId)}`)
    if (!answer.ok) return answer.status === 404 ? { ok: false, failure: 'not_found' } : { ok: false, failure: answer.failure }
    const identity = answer.body
    if (typeof identity !== 'object' || identity === null || Array.isArray(identity)) {
      this.options.log.warn('upstream_body', { upstream: this.options.name, reason: 'not an object' })
      return { ok: false, failure: 'invalid_response' }
    }
    return { ok: true, identity: identity as Record<string, unknown> }
  }
}
