// Raw HTTP/1.1 over a socket: the path is sent exactly as written (fetch and curl normalize it).

import { connect } from 'node:net'

export interface RawResponse {
  status: number
  headers: Record<string, string>
  body: string
}

/** `encoding`: how the request's text becomes bytes (`latin1`: each character below U+0100 one byte, as a browser may send a header). */
export function rawRequest(base: string, requestLine: string, headers: Record<string, string> = {}, body = '', encoding: BufferEncoding = 'utf8'): Promise<RawResponse> {
  const url = new URL(base)
  const named = new Set(Object.keys(headers).map((name) => name.toLowerCase()))
  const lines = [requestLine]
  if (!named.has('host')) lines.push(`Host: ${url.host}`)
  if (!named.has('connection')) lines.push('Connection: close')
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`)
  if (body) lines.push(`Content-Length: ${Buffer.byteLength(body)}`)
  return rawSend(base, lines.join('\r\n') + '\r\n\r\n' + body, encoding)
}

/** Sends the bytes exactly as given (request line, headers, body) and reads the answer to the end. */
export function rawSend(base: string, payload: string, encoding: BufferEncoding = 'utf8'): Promise<RawResponse> {
  const url = new URL(base)
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port) }, () => socket.write(payload, encoding))
    const chunks: Buffer[] = []
    socket.setTimeout(10_000, () => socket.destroy(new Error('raw request timed out')))
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('error', reject)
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1')
      const split = text.indexOf('\r\n\r\n')
      const head = split < 0 ? text : text.slice(0, split)
      const [statusLine = '', ...headerLines] = head.split('\r\n')
      const parsed: Record<string, string> = {}
      for (const line of headerLines) {
        const colon = line.indexOf(':')
        if (colon > 0) parsed[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
      }
      let rest = split < 0 ? '' : text.slice(split + 4)
      if (parsed['transfer-encoding'] === 'chunked') rest = dechunk(rest)
      resolve({ status: Number(statusLine.split(' ')[1]), headers: parsed, body: Buffer.from(rest, 'latin1').toString('utf8') })
    })
  })
}

function dechunk(text: string): string {
  let out = ''
  let at = 0
  for (;;) {
    const lineEnd = text.indexOf('\r\n', at)
    if (lineEnd < 0) return out
    const size = parseInt(text.slice(at, lineEnd), 16)
    if (!size) return out
    out += text.slice(lineEnd + 2, lineEnd + 2 + size)
    at = lineEnd + 2 + size + 2
  }
}
