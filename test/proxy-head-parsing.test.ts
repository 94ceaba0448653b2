// The answer head parser of the proxy's HTTP/1.1 client (src/proxy/http1.ts) validates the whole
// field section with one expression and reads it into a field list. Held here to the parser it
// replaced, which split the head into lines and checked each name and value on its own and kept
// the fields in a Headers: on thousands of random heads made of ordinary and hostile lines, both
// refuse the same heads and read the same fields, framing and connection rules from the others.

import { describe, expect, test } from 'bun:test'
import { headersOf, parseHead, UpstreamProtocolError } from '../src/proxy/http1.ts'
import { seededRandom } from './support/random.ts'

const STATUS_LINE = /^HTTP\/1\.([01]) ([1-5]\d\d)(?: ([^\r\n]*))?$/
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const BAD_VALUE = /[\x00-\x08\x0a-\x1f\x7f]/
const KEEP_ALIVE_TIMEOUT = /(?:^|,)\s*timeout\s*=\s*(\d{1,6})\s*(?:,|$)/i

/** The parser as it was, line by line into a Headers. */
function referenceParse(text: string) {
  const lines = text.split('\r\n')
  const status = STATUS_LINE.exec(lines[0]!)
  if (status === null) throw new UpstreamProtocolError('the status line does not parse')
  const code = Number(status[2])
  if (code === 101) throw new UpstreamProtocolError('an upgrade that was not asked for')
  const headers = new Headers()
  let connection = ''
  let keepAliveMs: number | null = null
  let transferEncoding: string | null = null
  const contentLengths: string[] = []
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!
    const colon = line.indexOf(':')
    if (colon <= 0) throw new UpstreamProtocolError('a header line does not parse')
    const name = line.slice(0, colon)
    const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '')
    if (!TOKEN.test(name) || BAD_VALUE.test(value)) throw new UpstreamProtocolError('a header line does not parse')
    const lower = name.toLowerCase()
    if (lower === 'content-length') contentLengths.push(value)
    else if (lower === 'transfer-encoding') transferEncoding = transferEncoding === null ? value : `${transferEncoding}, ${value}`
    else if (lower === 'connection') connection += `,${value.toLowerCase()}`
    else if (lower === 'keep-alive') {
      const timeout = KEEP_ALIVE_TIMEOUT.exec(value)
      if (timeout !== null) keepAliveMs = Math.min(keepAliveMs ?? Number.POSITIVE_INFINITY, Number(timeout[1]) * 1000)
    }
    headers.append(name, value)
  }
  const keepAlive = status[1] === '1' && !connection.split(',').some((token) => token.trim() === 'close')
  return { status: code, reason: status[3] ?? '', headers: [...headers], keepAlive, keepAliveMs, transferEncoding, contentLengths }
}

function parsed(text: string) {
  try {
    const head = parseHead(text)
    return { status: head.status, reason: head.reason, headers: [...headersOf(head.fields)], keepAlive: head.keepAlive, keepAliveMs: head.keepAliveMs, transferEncoding: head.transferEncoding, contentLengths: head.contentLengths }
  } catch (error) {
    return { refused: error instanceof UpstreamProtocolError }
  }
}

function reference(text: string) {
  try {
    return referenceParse(text)
  } catch (error) {
    return { refused: error instanceof UpstreamProtocolError }
  }
}

const STATUS_LINES = ['HTTP/1.1 200 OK', 'HTTP/1.0 200 OK', 'HTTP/1.1 404 Not Found', 'HTTP/1.1 204', 'HTTP/1.1 302 ', 'HTTP/1.1 101 Switching', 'HTTP/2 200 OK', 'HTTP/1.1 99 OK', 'HTTP/1.1 200 OK\x01', 'HTTP/1.1 500 Ünïcode ok', 'http/1.1 200 OK', '', 'HTTP/1.1 099 OK', 'HTTP/1.1 2000 OK', 'HTTP/1.1 200\tOK', 'HTTP/1.12 200 OK', 'HTTP/1.1  200 OK', 'HTTP/1.1 200 OK\r', 'HTTP/1.1 200 O\nK', 'HTTP/1.1 20', 'HTTP/1.2 200 OK', 'HTTP/1.1 2x0 OK', 'HTTP/1.1 200  two  spaces ', 'HTTP/1.1 200 OK\r\r', 'HTTP/1.1 599 Last', 'HTTP/1.1 600 Internal', 'HTTP/1.1 999 Weird']
const LINES = [
  'Content-Type: application/json',
  'content-length: 5',
  'Content-Length:5',
  'Content-Length: 5, 5',
  'Transfer-Encoding: chunked',
  'Connection: close',
  'Connection: keep-alive, Upgrade',
  'Connection: Close',
  'connection:',
  'Keep-Alive: timeout=5, max=100',
  'Keep-Alive: max=3',
  'Set-Cookie: a=1; Path=/',
  'Set-Cookie: admin-session=x',
  'X-Spaces:   inner  space   ',
  'X-Tabs:\tvalue\t',
  'X-Empty:',
  'X-Empty-Spaces:    ',
  'X-Obs: caf\xe9 \xff',
  'X-Nbsp: \xa0kept\xa0',
  'X-Ctl: a\x01b',
  'X-Del: a\x7fb',
  'X-Cr: a\rb',
  'X-Lf: a\nb',
  'X-Colon: a:b:c',
  ': no name',
  'no colon at all',
  ' folded continuation',
  '\tfolded with a tab',
  'Bad Name: space inside',
  'Name : space before colon',
  'X-Quote": a',
  'X-Token!#$%&\'*+-.^_`|~09: odd but legal',
  'Location: /next?x=1',
  '',
]

describe('the answer head parser agrees with the line-by-line parser it replaced', () => {
  test('on every line alone, after each status line', () => {
    for (const status of STATUS_LINES) {
      for (const line of LINES) {
        const text = `${status}\r\n${line}`
        expect([JSON.stringify(text), parsed(text)]).toEqual([JSON.stringify(text), reference(text)])
      }
      expect(parsed(status)).toEqual(reference(status))
    }
  })

  test('on 20,000 random heads of up to eight lines', () => {
    const next = seededRandom(1)
    let refused = 0
    for (let i = 0; i < 20_000; i++) {
      const lines = [STATUS_LINES[next(next(3) === 0 ? STATUS_LINES.length : 3)]!]
      for (let count = next(9); count > 0; count--) lines.push(LINES[next(LINES.length)]!)
      // Now and then a line is cut or joined to the next at a random place.
      let text = lines.join('\r\n')
      if (next(10) === 0) text = text.slice(0, next(text.length + 1))
      const ours = parsed(text)
      if ('refused' in ours) refused++
      expect([JSON.stringify(text), ours]).toEqual([JSON.stringify(text), reference(text)])
    }
    // Both kinds were tried.
    expect(refused).toBeGreaterThan(2_000)
    expect(refused).toBeLessThan(18_000)
  })
})
