// Request bodies of our own routes: JSON only, and at most JSON_BODY_LIMIT bytes whether or not
// the client announced a length. Proxy routes never come here: they stream the body through.

import { ApiError } from './errors.ts'

export const JSON_BODY_LIMIT = 256 * 1024

export async function readJsonBody(request: Request, contentType: string): Promise<unknown> {
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) > JSON_BODY_LIMIT) throw new ApiError('payload_too_large')
  const bytes = await readLimited(request, JSON_BODY_LIMIT)
  if (bytes.length === 0) return undefined
  if (!/^application\/([a-z0-9.+-]+\+)?json\b/i.test(contentType)) {
    throw new ApiError('bad_request', { message: 'Content-Type must be application/json.' })
  }
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes))
  } catch {
    throw new ApiError('bad_request', { message: 'The request body is not valid JSON.' })
  }
}

async function readLimited(request: Request, limit: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array()
  const chunks: Uint8Array[] = []
  let total = 0
  for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength
    if (total > limit) throw new ApiError('payload_too_large')
    chunks.push(chunk)
  }
  return Buffer.concat(chunks)
}
