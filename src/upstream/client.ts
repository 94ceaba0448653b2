// The one way the service calls an upstream's HTTP API (Kratos, Hydra): a path joined under the
// configured base URL (its own path kept), the prefix's API key, the product's timeout, redirects
// never followed; a failure is one of a few classes, and each class one error code. Ory's `Link`
// paging header is read here too. Answers are values; nothing upstream-specific travels further.

import type { ErrorCode } from '../http/errors.ts'
import { describeError, type Logger } from '../log.ts'

/**
 * timeout: no answer in time; unreachable: no connection (refused, reset, DNS); invalid_response:
 * an answer we cannot read; rejected: the upstream answered with an error status;
 * local_resources: this process could not open a socket (out of descriptors).
 */
export type UpstreamFailure = 'timeout' | 'unreachable' | 'invalid_response' | 'rejected' | 'local_resources'

const LOCAL_EXHAUSTION = new Set(['EMFILE', 'ENFILE'])

/** The class of a thrown fetch or body-read error. */
export function failureOf(error: unknown, aborted = false): UpstreamFailure {
  const name = (error as { name?: string } | null)?.name
  const code = (error as { code?: string } | null)?.code ?? ''
  if (aborted || name === 'TimeoutError' || name === 'AbortError') return 'timeout'
  if (LOCAL_EXHAUSTION.has(code)) return 'local_resources'
  if (error instanceof TypeError || /^(E[A-Z]+|Connection|FailedToOpenSocket)/.test(code)) return 'unreachable'
  return 'invalid_response'
}

/** The envelope code for a failed upstream call (decisions §6, §8). */
export function errorCodeFor(failure: UpstreamFailure): ErrorCode {
  switch (failure) {
    case 'timeout':
      return 'gateway_timeout'
    case 'local_resources':
      return 'service_unavailable'
    default:
      return 'bad_gateway'
  }
}

/** `{base}{path}?{query}`: the base URL's own path is kept, `path` starts with `/`. */
export function joinUnder(base: URL, path: string, query?: URLSearchParams): URL {
  const url = new URL(base.href)
  url.pathname = url.pathname.replace(/\/+$/, '') + path
  url.search = query && [...query.keys()].length > 0 ? query.toString() : ''
  return url
}

interface UpstreamClientOptions {
  baseUrl: URL
  /** The API key for this upstream's prefix, read through the settings cache; null when none is stored. */
  apiKey?: () => Promise<string | null>
  timeoutMs: number
  fetch: typeof fetch
  log: Logger
  /** The prefix name, for logs (never the host). */
  name: string
}

export type Sent = { ok: true; response: Response } | { ok: false; failure: UpstreamFailure }
type JsonAnswer = { ok: true; body: unknown; headers: Headers } | { ok: false; failure: UpstreamFailure; status?: number; text?: string }

export class UpstreamClient {
  constructor(protected readonly options: UpstreamClientOptions) {}

  url(path: string, query?: URLSearchParams): URL {
    return joinUnder(this.options.baseUrl, path, query)
  }

  /**
   * Sends one request; the timeout covers the answer's head, the caller reads the body within its
   * own. `signal`: the caller's own end (its deadline, its client gone), answered as a timeout and
   * not logged as the upstream's failure.
   */
  async send(path: string, init: { method?: string; query?: URLSearchParams; accept?: string; signal?: AbortSignal } = {}): Promise<Sent> {
    const headers: Record<string, string> = { accept: init.accept ?? 'application/json' }
    try {
      const key = await this.options.apiKey?.()
      if (key) headers.authorization = `Bearer ${key}`
    } catch (error) {
      // A stored key that cannot be read: no call goes out without the key it should carry.
      this.options.log.error('upstream_key_unreadable', { upstream: this.options.name, ...describeError(error) })
      return { ok: false, failure: 'invalid_response' }
    }
    try {
      const response = await this.options.fetch(this.url(path, init.query), {
        method: init.method ?? 'GET',
        headers,
        redirect: 'manual',
        signal: init.signal ? AbortSignal.any([AbortSignal.timeout(this.options.timeoutMs), init.signal]) : AbortSignal.timeout(this.options.timeoutMs),
      })
      return { ok: true, response }
    } catch (error) {
      if (init.signal?.aborted) return { ok: false, failure: 'timeout' }
      const failure = failureOf(error)
      this.options.log.warn('upstream_failed', { upstream: this.options.name, failure, ...describeError(error) })
      return { ok: false, failure }
    }
  }

  /** A 200 with a JSON body; any other status is `rejected` (with the status and the body's text for the caller's own reading). */
  async json(path: string, init: { method?: string; query?: URLSearchParams; signal?: AbortSignal } = {}): Promise<JsonAnswer> {
    const sent = await this.send(path, init)
    if (!sent.ok) return sent
    const { response } = sent
    if (response.status !== 200) {
      let text = ''
      try {
        text = await response.text()
      } catch (error) {
        return this.bodyFailure(error, response.status, init.signal)
      }
      this.options.log.warn('upstream_status', { upstream: this.options.name, status: response.status })
      return { ok: false, failure: 'rejected', status: response.status, text }
    }
    try {
      return { ok: true, body: await response.json(), headers: response.headers }
    } catch (error) {
      return this.bodyFailure(error, response.status, init.signal)
    }
  }

  private bodyFailure(error: unknown, status: number, signal: AbortSignal | undefined): JsonAnswer {
    if (signal?.aborted) return { ok: false, failure: 'timeout', status }
    const failure = failureOf(error)
    // A body that does not parse is the answer's fault, not the connection's.
    const cls: UpstreamFailure = failure === 'timeout' || failure === 'unreachable' ? failure : 'invalid_response'
    this.options.log.warn('upstream_body', { upstream: this.options.name, status, failure: cls, ...describeError(error) })
    return { ok: false, failure: cls, status }
  }
}

interface LinkValue {
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
