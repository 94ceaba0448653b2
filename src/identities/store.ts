// Client for a Kratos-compatible admin API (the managed and the login identity stores), on the
// one upstream client. Answers are values: callers map them to envelopes.

import { UpstreamClient, type UpstreamFailure } from '../upstream/client.ts'

export type IdentityLookup = { ok: true; identity: Record<string, unknown> } | { ok: false; failure: 'not_found' | UpstreamFailure }

export class IdentityStoreClient extends UpstreamClient {
  /** Whether an identity exists: 200 → present, 404 → gone, anything else → unavailable. */
  async presence(identityId: string): Promise<'present' | 'gone' | 'unavailable'> {
    const found = await this.getIdentity(identityId)
    if (found.ok) return 'present'
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
