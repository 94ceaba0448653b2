// The upstreams' own health (decisions §9): `/health/alive` and `/version` of every configured
// upstream, all at once, each call bounded by the product's timeout. Answers name prefixes only;
// no host name, port or upstream text reaches the caller.

import { UPSTREAM_NAMES, type UpstreamName } from '../config.ts'
import { describeError, type Logger } from '../log.ts'
import { isUnderBase } from '../proxy/url.ts'
import { failureOf, joinUnder } from '../upstream/client.ts'

export interface ServiceHealth {
  name: UpstreamName
  configured: boolean
  healthy: boolean
  version: string | null
  /** Milliseconds until /health/alive answered; null when it did not. */
  response_ms: number | null
}

interface ServicesHealthDeps {
  upstreams: Record<UpstreamName, URL | null>
  /** The API key of an admin prefix, through the settings cache; null when none is stored. */
  apiKeyFor: (prefix: UpstreamName) => Promise<string | null>
  timeoutMs: number
  fetch: typeof fetch
  log: Logger
}

const ADMIN_PREFIXES: ReadonlySet<UpstreamName> = new Set(['idp-admin', 'iam-idp-admin', 'oauth-admin'])
const MAX_BODY_BYTES = 4096
/** What a version string may look like (`v26.2.0`, `1.3.1-pre.0+meta`); anything else is not shown. */
const VERSION_TEXT = /^[A-Za-z0-9][A-Za-z0-9.+_-]{0,63}$/
const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308])
const MAX_REDIRECTS = 3

export class ServicesHealth {
  constructor(private readonly deps: ServicesHealthDeps) {}

  all(): Promise<ServiceHealth[]> {
    return Promise.all(UPSTREAM_NAMES.map((name) => this.one(name)))
  }

  private async one(name: UpstreamName): Promise<ServiceHealth> {
    const base = this.deps.upstreams[name]
    if (!base) return { name, configured: false, healthy: false, version: null, response_ms: null }
    const headers: Record<string, string> = { accept: 'application/json' }
    if (ADMIN_PREFIXES.has(name)) {
      try {
        const key = await this.deps.apiKeyFor(name)
        if (key) headers.authorization = `Bearer ${key}`
      } catch {
        // A stored key that cannot be read: no call goes out without the key it should carry.
        return { name, configured: true, healthy: false, version: null, response_ms: null }
      }
    }
    const started = performance.now()
    const timedAlive = this.get(name, base, '/health/alive', headers).then((answer) => ({ answer, ms: Math.round(performance.now() - started) }))
    const [alive, version] = await Promise.all([timedAlive, this.get(name, base, '/version', headers)])
    return {
      name,
      configured: true,
      healthy: alive.answer?.status === 200 && isAlive(alive.answer.body),
      version: readVersion(version?.status === 200 ? version.body : null),
      response_ms: alive.answer ? alive.ms : null,
    }
  }

  private async get(name: UpstreamName, base: URL, path: string, headers: Record<string, string>): Promise<{ status: number; body: string } | null> {
    try {
      const signal = AbortSignal.timeout(this.deps.timeoutMs)
      let url = joinUnder(base, path)
      let response = await this.deps.fetch(url, { headers, redirect: 'manual', signal })
      // A self-hosted Kratos admin API answers `/health/alive` and `/version` with a 307 to the same
      // path under `/admin`. A redirect is followed only while it stays under the upstream's base
      // URL (its key goes nowhere else), a few times at most, within the same timeout.
      for (let hop = 0; hop < MAX_REDIRECTS && REDIRECT_STATUSES.has(response.status); hop++) {
        const next = insideBase(response.headers.get('location'), url, base)
        if (next === null) break
        await response.body?.cancel()
        url = next
        response = await this.deps.fetch(url, { headers, redirect: 'manual', signal })
      }
      if (response.status !== 200) {
        await response.body?.cancel()
        return { status: response.status, body: '' }
      }
      return { status: response.status, body: await readAtMost(response, MAX_BODY_BYTES) }
    } catch (error) {
      this.deps.log.warn('service_health_failed', { upstream: name, path, failure: failureOf(error), ...describeError(error) })
      return null
    }
  }
}

/** Where a redirect from `from` points, when that is on the base URL's origin and under its path; else null. */
function insideBase(location: string | null, from: URL, base: URL): URL | null {
  if (location === null) return null
  let target: URL
  try {
    target = new URL(location, from)
  } catch {
    return null
  }
  return isUnderBase(target, base) && target.username === '' && target.password === '' ? target : null
}

/** A health or version document is small: read no more than `limit` bytes of any answer. */
async function readAtMost(response: Response, limit: number): Promise<string> {
  if (!response.body) return ''
  const chunks: Uint8Array[] = []
  let total = 0
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    chunks.push(chunk)
    total += chunk.byteLength
    if (total > limit) {
      await response.body.cancel().catch(() => {})
      return ''
    }
  }
  return new TextDecoder().decode(Buffer.concat(chunks))
}

/** Kratos and Hydra answer `{"status":"ok"}`; a 200 with anything else (a login page, a proxy's notice) is not them alive. */
function isAlive(body: string): boolean {
  try {
    return (JSON.parse(body) as { status?: unknown } | null)?.status === 'ok'
  } catch {
    return false
  }
}

function readVersion(body: string | null): string | null {
  if (body === null) return null
  try {
    const parsed = JSON.parse(body) as { version?: unknown } | null
    const version = parsed?.version
    return typeof version === 'string' && VERSION_TEXT.test(version) ? version : null
  } catch {
    return null
  }
}
