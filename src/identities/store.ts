// Client for a Kratos-compatible admin API (the managed and the login identity stores).
// Answers are values: callers map them to envelopes; nothing upstream-specific travels further.

import { describeError, type Logger } from '../log.ts'

export type UpstreamFailure = { ok: false; failure: 'timeout' | 'unreachable' | 'upstream_error' }

export interface IdentityStoreOptions {
  baseUrl: URL
  /** The API key for this store's prefix, read through the settings cache; null when none is stored. */
  apiKey: () => Promise<string | null>
  timeoutMs: number
  fetch: typeof fetch
  log: Logger
  /** The prefix name, for logs (never the host). */
  name: string
}

export class IdentityStoreClient {
  constructor(private readonly options: IdentityStoreOptions) {}

  /** `{base}{path}` where path starts with `/admin/...`; the base URL's own path is kept. */
  url(path: string, query?: URLSearchParams): URL {
    const url = new URL(this.options.baseUrl.href)
    url.pathname = url.pathname.replace(/\/+$/, '') + path
    if (query && [...query.keys()].length > 0) url.search = query.toString()
    return url
  }

  async request(path: string, init: { method?: string; query?: URLSearchParams } = {}): Promise<{ ok: true; response: Response } | UpstreamFailure> {
    const headers: Record<string, string> = { accept: 'application/json' }
    const key = await this.options.apiKey()
    if (key) headers.authorization = `Bearer ${key}`
    try {
      const response = await this.options.fetch(this.url(path, init.query), {
        method: init.method ?? 'GET',
        headers,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.options.timeoutMs),
      })
      return { ok: true, response }
    } catch (error) {
      const name = (error as { name?: string }).name
      const failure = name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'unreachable'
      this.options.log.warn('identity_store_failed', { store: this.options.name, failure, ...describeError(error) })
      return { ok: false, failure }
    }
  }

  /** Whether an identity exists: 200 → present, 404 → gone, anything else → unavailable. */
  async presence(identityId: string): Promise<'present' | 'gone' | 'unavailable'> {
    const found = await this.getIdentity(identityId)
    if (found.ok) return 'present'
    return found.failure === 'not_found' ? 'gone' : 'unavailable'
  }

  async getIdentity(
    identityId: string,
  ): Promise<{ ok: true; identity: Record<string, unknown> } | { ok: false; failure: 'not_found' | UpstreamFailure['failure'] }> {
    const result = await this.request(`/admin/identities/${encodeURIComponent(identityId)}`)
    if (!result.ok) return result
    const { response } = result
    if (response.status === 404) {
      await response.body?.cancel()
      return { ok: false, failure: 'not_found' }
    }
    if (response.status !== 200) {
      await response.body?.cancel()
      this.options.log.warn('identity_store_status', { store: this.options.name, status: response.status })
      return { ok: false, failure: 'upstream_error' }
    }
    try {
      const identity = (await response.json()) as unknown
      if (typeof identity !== 'object' || identity === null || Array.isArray(identity)) throw new TypeError('not an object')
      return { ok: true, identity: identity as Record<string, unknown> }
    } catch (error) {
      this.options.log.warn('identity_store_body', { store: this.options.name, ...describeError(error) })
      return { ok: false, failure: 'upstream_error' }
    }
  }
}
