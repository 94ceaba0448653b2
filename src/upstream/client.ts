// The one way the service calls an upstream's HTTP API (Kratos, Hydra): a path joined under the
// configured base URL (its own path kept), the prefix's API key, the product's timeout, redirects
// never followed; a failure is one of a few classes, and each class one error code. Ory's `Link`
// paging header is read by link.ts. Answers are values; nothing upstream-specific travels further.

import { cappedStream, readCapped } from '../http/body.ts'
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

/**
 * The most of an answer's body that `json` reads. A page of Kratos's (250 identities or sessions at
 * most) is far smaller; an answer without end (a broken or hostile upstream) would otherwise be
 * held whole, and parsed: one of 400 MB, to a viewer's presence check, took the process to 900 MB.
 */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024

/** An answer's body grew past MAX_ANSWER_BYTES: not read further. */
export class AnswerTooLarge extends Error {
  override name = 'AnswerTooLarge'
}

/** The body as text, read to its end unless it would pass `limit` bytes (AnswerTooLarge, the rest cancelled). */
export async function readAnswerText(response: Response, limit = MAX_ANSWER_BYTES): Promise<string> {
  refuseAnnouncedTooLarge(response, limit)
  // TextDecoder, as response.json() does: a byte order mark is dropped, not given to JSON.parse.
  return new TextDecoder().decode(await readCapped(response.body, limit, () => new AnswerTooLarge()))
}

/**
 * `fetch` whose answers carry at most `limit` bytes of body: a longer one is refused (announced) or
 * ends with AnswerTooLarge there. For a library that reads answers whole itself (oauth4webapi, the
 * provider's discovery document, token and userinfo answers).
 */
export function withBoundedAnswers(send: typeof fetch, limit = MAX_ANSWER_BYTES): typeof fetch {
  const bounded = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await send(input, init)
    if (response.body === null) return response
    refuseAnnouncedTooLarge(response, limit)
    const body = cappedStream(response.body, limit, () => new AnswerTooLarge())
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
  }
  return bounded as typeof fetch
}

/** An answer whose Content-Length is over `limit`: its body cancelled unread, AnswerTooLarge thrown. */
function refuseAnnouncedTooLarge(response: Response, limit: number): void {
  if (!(Number(response.headers.get('content-length')) > limit)) return
  void response.body?.cancel().catch(() => {})
  throw new AnswerTooLarge()
}

export type Sent = { ok: true; response: Response } | { ok: false; failure: UpstreamFailure }
type JsonAnswer = { ok: true; body: unknown; headers: Headers } | { ok: false; failure: UpstreamFailure; status?: number; text?: string }

export class UpstreamClient {
  constructor(protected readonly options: UpstreamClientOptions) {}

  /** The prefix whose URL and API key it uses: where an operator mends what it was refused. */
  get prefix(): string {
    return this.options.name
  }

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
        text = await readAnswerText(response)
      } catch (error) {
        return this.bodyFailure(error, response.status, init.signal)
      }
      this.options.log.warn('upstream_status', { upstream: this.options.name, status: response.status })
      return { ok: false, failure: 'rejected', status: response.status, text }
    }
    try {
      return { ok: true, body: JSON.parse(await readAnswerText(response)), headers: response.headers }
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

