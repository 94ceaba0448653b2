// The Host-header regression corpus: every Host variant × every protected route × path prefixes
// that would shift a router reading the path from a fixed offset of the URL, sent on raw sockets.
// Shared by the in-process suite (test/gate-host.test.ts) and the compiled executable's.

import { rawSend, type RawResponse } from './raw-http.ts'
import { SPEC_ROUTES, type SpecRoute } from './routes.ts'

export interface HostVariant {
  name: string
  /** The Host header lines to send (none, one, or several). */
  hostLines: string[]
  /** Absolute-form request target with this authority instead of origin-form. */
  absoluteAuthority?: string
  httpVersion?: '1.0' | '1.1'
  /** Whether the service may route the request at all. */
  valid: boolean
}

export const HOST_VARIANTS: readonly HostVariant[] = [
  { name: 'absent (HTTP/1.1)', hostLines: [], valid: false },
  { name: 'absent (HTTP/1.0)', hostLines: [], httpVersion: '1.0', valid: false },
  { name: 'empty', hostLines: ['Host:'], valid: false },
  { name: 'blank', hostLines: ['Host:    '], valid: false },
  { name: '1 character', hostLines: ['Host: a'], valid: true },
  { name: '2 characters', hostLines: ['Host: ab'], valid: true },
  { name: '3 characters', hostLines: ['Host: abc'], valid: true },
  { name: '4 characters', hostLines: ['Host: abcd'], valid: true },
  { name: 'short with a port', hostLines: ['Host: a:1'], valid: true },
  { name: 'IPv4 with a port', hostLines: ['Host: 127.0.0.1:1'], valid: true },
  { name: 'IPv6 literal', hostLines: ['Host: [::1]'], valid: true },
  { name: 'IPv6 literal with a port', hostLines: ['Host: [::1]:8080'], valid: true },
  { name: 'path-like', hostLines: ['Host: 127.0.0.1:1/api'], valid: false },
  { name: 'with a query', hostLines: ['Host: a?b'], valid: false },
  { name: 'with a fragment', hostLines: ['Host: a#b'], valid: false },
  { name: 'with userinfo', hostLines: ['Host: u@a'], valid: false },
  { name: 'with a space', hostLines: ['Host: a b'], valid: false },
  { name: 'with a backslash', hostLines: ['Host: a\\b'], valid: false },
  { name: 'port out of range', hostLines: ['Host: a:99999'], valid: false },
  { name: 'very long', hostLines: [`Host: ${'a'.repeat(300)}`], valid: false },
  { name: 'duplicated', hostLines: ['Host: a', 'Host: b'], valid: false },
  { name: 'absolute-form target, short authority', hostLines: ['Host: a'], absoluteAuthority: 'a', valid: true },
  { name: 'absolute-form target, other authority', hostLines: ['Host: abc'], absoluteAuthority: 'evil.example', valid: true },
  { name: 'absolute-form target, empty authority', hostLines: ['Host: a'], absoluteAuthority: '', valid: true },
]

export const SHIFT_PREFIXES = ['', '/x', '/xy', '/xyz', '/wxyz', '/dashboard', '/api/health', '/api/auth/x'] as const

/** The protected routes of the spec table (every rule of the access table that is not public). */
export const PROTECTED_ROUTES: readonly SpecRoute[] = SPEC_ROUTES.filter((route) => route.expected !== 'public')

export function requestText(variant: HostVariant, method: string, path: string, extraHeaders: string[] = [], body = ''): string {
  const target = variant.absoluteAuthority === undefined ? path : `http://${variant.absoluteAuthority}${path}`
  const lines = [`${method} ${target} HTTP/${variant.httpVersion ?? '1.1'}`, ...variant.hostLines, 'Connection: close', ...extraHeaders]
  if (body) lines.push('Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`)
  return lines.join('\r\n') + '\r\n\r\n' + body
}

export const NORMAL_HOST: HostVariant = { name: 'normal', hostLines: [], valid: true }

export interface CorpusCase {
  variant: HostVariant
  prefix: string
  route: SpecRoute
  caller: 'anonymous' | 'viewer'
}

export function corpusCases(): CorpusCase[] {
  const cases: CorpusCase[] = []
  for (const variant of HOST_VARIANTS)
    for (const prefix of SHIFT_PREFIXES)
      for (const route of PROTECTED_ROUTES) for (const caller of ['anonymous', 'viewer'] as const) cases.push({ variant, prefix, route, caller })
  return cases
}

export interface CorpusOutcome {
  problem: string | null
  response: RawResponse
}

/**
 * Sends one case and judges it. An invalid Host is refused with 400 (our envelope, or Bun's own
 * bodiless refusal when HTTP/1.1 has no Host at all). A valid Host changes nothing: the answer is
 * the one the same request gets with the service's own Host (`baseline`), and no prefixed path is
 * ever answered with data.
 */
export async function runCase(
  base: string,
  item: CorpusCase,
  cookie: { viewer: string },
  baseline: (method: string, path: string, caller: 'anonymous' | 'viewer', body: string) => Promise<RawResponse>,
): Promise<CorpusOutcome> {
  const path = item.prefix + item.route.path
  const headers = item.caller === 'viewer' ? [`Cookie: ${cookie.viewer}`] : []
  const body = item.route.body === undefined ? '' : JSON.stringify(item.route.body)
  const response = await rawSend(base, requestText(item.variant, item.route.method, path, headers, body))
  const judge = (): string | null => {
    if (!item.variant.valid) {
      if (response.status !== 400) return `expected 400, got ${response.status}`
      if (response.body === '') return null
      const parsed = safeJson(response.body)
      return parsed?.error === 'bad_request' ? null : `400 without our envelope: ${response.body.slice(0, 120)}`
    }
    if (item.prefix !== '' && response.status < 300 && !(response.headers['content-type'] ?? '').startsWith('text/html')) {
      return `a shifted path answered ${response.status} with data`
    }
    if (item.prefix === '' && item.caller === 'anonymous' && response.status !== 401) return `anonymous got ${response.status}`
    if (item.prefix === '' && item.caller === 'viewer' && item.route.expected === 'admin' && response.status !== 403) return `viewer got ${response.status}`
    return null
  }
  const problem = judge()
  if (problem || !item.variant.valid) return { problem, response }
  const reference = await baseline(item.route.method, path, item.caller, body)
  if (reference.status !== response.status) return { problem: `Host changed the answer: ${reference.status} vs ${response.status}`, response }
  return { problem: null, response }
}

function safeJson(text: string): Record<string, unknown> | null {
  try {
    return JSON.parse(text) as Record<string, unknown>
  } catch {
    return null
  }
}

/** Runs tasks with bounded concurrency (raw sockets, one connection each). */
export async function inPool<T, R>(items: readonly T[], width: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length)
  let next = 0
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const index = next++
        results[index] = await task(items[index]!)
      }
    }),
  )
  return results
}
