// The proxy's client for https upstreams (and every upstream when HTTP_PROXY is set): Bun's fetch,
// its answer put behind the same face as our own client's (http1.ts).

import { describeError, type BodyEnd } from '../log.ts'
import { headersOf, UpstreamProtocolError, type HeaderFields, type RelayedBody, type UpstreamAnswer, type UpstreamRequest } from './http1.ts'
import type { UpstreamTarget } from './url.ts'
import { relayMemory } from './memory-budget.ts'

export async function fetchUpstream(fetcher: typeof fetch, url: UpstreamTarget, request: UpstreamRequest & { signal: AbortSignal }): Promise<UpstreamAnswer> {
  const headers = headersOf(request.headers)
  // fetch would offer gzip, br and zstd on the client's behalf; a client that offered none gets none.
  if (!headers.has('accept-encoding')) headers.set('accept-encoding', 'identity')
  const init: RequestInit & { decompress: boolean; duplex: 'half' } = {
    method: request.method,
    headers,
    body: request.body,
    // Redirects go back to the client; bytes go on as they came, with their own Content-Encoding.
    redirect: 'manual',
    decompress: false,
    signal: request.signal,
    duplex: 'half',
  }
  const response = await fetcher(url.href, init)
  // fetch hands over any three digits; an answer can carry on only HTTP's own (RFC 9110 §15), as
  // our own client's status line allows.
  if (response.status < 200 || response.status > 599) {
    await response.body?.cancel().catch(() => undefined)
    throw new UpstreamProtocolError('the status is outside 200–599')
  }
  const length = Number(response.headers.get('content-length') ?? Number.NaN)
  const body = response.body === null ? null : new FetchedBody(response.body, Number.isNaN(length) ? null : length)
  return { status: response.status, statusText: response.statusText, fields: fieldsOf(response.headers), body }
}

/** A `Headers` as a field list, each Set-Cookie line on its own. */
function fieldsOf(headers: Headers): HeaderFields {
  const fields: HeaderFields = []
  for (const [name, value] of headers) if (name !== 'set-cookie') fields.push(name, value)
  for (const line of headers.getSetCookie()) fields.push('set-cookie', line)
  return fields
}

/**
 * A fetch body. Streamed, it is pumped through a stream of ours so that its end is known: all
 * sent (`complete`), or stopped early (`incomplete`: the upstream cut it or the client left).
 */
class FetchedBody implements RelayedBody {
  private delivered = 0
  private settle!: (end: BodyEnd) => void
  readonly ended = new Promise<BodyEnd>((resolve) => (this.settle = resolve))

  constructor(
    private readonly body: ReadableStream<Uint8Array>,
    readonly length: number | null,
  ) {}

  /** Known only once read: `bytes()` reads it. */
  arrived(): null {
    return null
  }

  async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    const bytes = await new Response(this.body).bytes()
    this.settle({ body: 'complete', body_bytes: bytes.byteLength })
    return bytes
  }

  stream(): ReadableStream<Uint8Array> {
    const reader = this.body.getReader()
    return new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          try {
            const { value, done } = await reader.read()
            if (done) {
              controller.close()
              this.settle({ body: 'complete', body_bytes: this.delivered })
              return
            }
            this.delivered += value.byteLength
            relayMemory.relayed(value.byteLength)
            controller.enqueue(value)
          } catch (error) {
            this.settle({ body: 'incomplete', body_bytes: this.delivered, ...describeError(error) })
            controller.error(error)
          }
        },
        cancel: (reason) => {
          this.settle({ body: 'incomplete', body_bytes: this.delivered })
          return reader.cancel(reason)
        },
      },
      { highWaterMark: 0 },
    )
  }

  cancel(): Promise<void> {
    this.settle({ body: 'incomplete', body_bytes: this.delivered })
    return this.body.cancel()
  }
}
