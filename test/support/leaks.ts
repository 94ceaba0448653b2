// One leak check for every error body and every log line the suite produces. The service
// harnesses hand every response they send to `inspectResponse` and every log line they write to
// `inspectLogLine`; the preload fails the running test on any finding.

const sensitive = new Set<string>()
/** What no log line may hold either: keys, cookie values, tokens, setting values (decisions §11). */
const secrets = new Set<string>()
const pending: Promise<void>[] = []
const findings: string[] = []
let inspected = 0

/** Values that must never appear in a response we produce: tokens, keys, e-mails, ids, host names… */
export function markSensitive(...values: (string | undefined | null)[]): void {
  for (const value of values) if (value && value.length >= 4) sensitive.add(value)
}

/** Values that must appear in no response we produce and in no log line: keys, cookie values, tokens, setting values. */
export function markSecret(...values: (string | undefined | null)[]): void {
  markSensitive(...values)
  for (const value of values) if (value && value.length >= 4) secrets.add(value)
}

/** What a log line must never carry, whatever was marked: a session cookie's value, a bearer token, a private key. */
const FORBIDDEN_IN_LOGS: [RegExp, string][] = [
  [/admin-session=[^;\s"]{8,}/, 'a session cookie'],
  [/\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/i, 'a bearer token'],
  [/-----BEGIN [A-Z ]*PRIVATE KEY/, 'a private key'],
]

export function logLineProblems(line: string): string[] {
  const problems: string[] = []
  for (const [pattern, what] of FORBIDDEN_IN_LOGS) if (pattern.test(line)) problems.push(`contains ${what}`)
  for (const value of secrets) if (line.includes(value)) problems.push('contains a secret value')
  return problems
}

/** Called by the harnesses for every log line the service writes (in process, or read from a child's output). */
export function inspectLogLine(line: string, where = 'log line'): void {
  const problems = logLineProblems(line)
  if (problems.length > 0) findings.push(`${where}: ${problems.join('; ')}: ${line.slice(0, 300)}`)
}

const FORBIDDEN: [RegExp, string][] = [
  [/[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/, 'an e-mail address'],
  [/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i, 'an identity id'],
  [/\b\d{1,3}(\.\d{1,3}){3}\b/, 'an IP address'],
  [/localhost|\[::1?\]/i, 'a host name'],
  [/:\d{2,5}\b/, 'a port'],
  [/\b(kratos|hydra|ory|oidc|sqlite|elysia|bun|typebox|undici)\b/i, 'an internal service or library name'],
  [/ECONN|ENOTFOUND|EAI_AGAIN|getaddrinfo|socket|fetch failed/i, 'a network error text'],
  [/\bat\s+\S+\s+\(|\.ts:\d+|\.js:\d+|node_modules|\bstack\b/i, 'a stack trace'],
  [/\b(TypeError|RangeError|SyntaxError|ReferenceError)\b|Error:/, 'exception text'],
  [/<html|<!doctype/i, 'an HTML page'],
  [/"(found|expected|schema|errors|summary|property)"/i, 'a validation dump'],
]

export function leakProblems(status: number, contentType: string | null, body: string): string[] {
  const problems: string[] = []
  if (!contentType?.startsWith('application/json')) problems.push(`content-type is ${contentType}`)
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    return [...problems, 'body is not JSON']
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return [...problems, 'body is not an object']
  const keys = Object.keys(parsed)
  const envelope = parsed as Record<string, unknown>
  if (typeof envelope.error !== 'string' || !/^[a-z_]+$/.test(envelope.error)) problems.push('no error code')
  if (typeof envelope.message !== 'string') problems.push('no message')
  if ('hint' in envelope && typeof envelope.hint !== 'string') problems.push('hint is not a string')
  if (keys.some((key) => !['error', 'message', 'hint'].includes(key))) problems.push(`extra fields: ${keys.join(',')}`)
  for (const [pattern, what] of FORBIDDEN) if (pattern.test(body)) problems.push(`contains ${what}`)
  for (const value of sensitive) if (body.includes(value)) problems.push('contains a sensitive value')
  if (status < 400) problems.push('not an error status')
  return problems
}

/**
 * A sign-in that failed in a browser's navigation ends on a page (src/auth/failure-page.ts), not on
 * the envelope: the same rules, on the text a person reads (its title and body, without the tags,
 * whose only value not written in the codebase is the sign-in link's return_to, the browser's own
 * path sent back).
 */
export function pageProblems(status: number, contentType: string | null, body: string): string[] {
  const problems: string[] = []
  if (!contentType?.startsWith('text/html')) problems.push(`content-type is ${contentType}`)
  if (!/<h1>[^<]+<\/h1>/.test(body)) problems.push('no h1')
  if (!/<a href="\/api\/auth\/login(\?(return_to=%2Fdashboard[^"&]*)?(&amp;)?(prompt=login)?)?">(Sign in again|Try again)<\/a>/.test(body)) problems.push('no way to sign in again')
  const text = body.replace(/<[^>]*>/g, ' ')
  // A page, so an HTML page is what it is; every other pattern holds.
  for (const [pattern, what] of FORBIDDEN) if (what !== 'an HTML page' && pattern.test(text)) problems.push(`contains ${what}`)
  for (const value of sensitive) if (body.includes(value)) problems.push('contains a sensitive value')
  if (status < 400) problems.push('not an error status')
  return problems
}

/** The check an error answer gets: a page for a sign-in route's HTML answer, the envelope's otherwise. */
export function answerProblems(path: string, status: number, contentType: string | null, body: string): string[] {
  if (path.startsWith('/api/auth/') && contentType?.startsWith('text/html')) return pageProblems(status, contentType, body)
  return leakProblems(status, contentType, body)
}

/** A problem found outside a response (e.g. a log line that only a bug writes); fails the running test. */
export function recordFinding(text: string): void {
  findings.push(text)
}

/** Called by the harness for every response the service sends. */
export function inspectResponse(request: Request, response: Response, isPassthrough: (r: Request) => boolean): void {
  if (response.status < 400 || isPassthrough(request)) return
  const copy = response.clone()
  const path = request.url.replace(/^[a-z]+:\/\/[^/]*/, '').split('?')[0]!
  const where = `${request.method} ${path} → ${response.status}`
  pending.push(
    copy.text().then(
      (body) => {
        inspected++
        if (request.method === 'HEAD' && body === '') return
        const problems = answerProblems(path, response.status, response.headers.get('content-type'), body)
        if (problems.length > 0) findings.push(`${where}: ${problems.join('; ')}: ${body.slice(0, 300)}`)
      },
      () => void findings.push(`${where}: body could not be read`),
    ),
  )
}

/** A check that ends later (a body the browser is still reading); the findings wait for it. */
export function inspectLater(check: Promise<void>): void {
  pending.push(check)
}

/** Waits for outstanding checks and returns (and clears) what they found. */
export async function drainFindings(): Promise<string[]> {
  while (pending.length > 0) await Promise.all(pending.splice(0))
  return findings.splice(0)
}

/**
 * Throws what the checks found since they were last read. The preload calls it after every test;
 * a hook that stops a process after the last test (afterAll) calls it too, for the lines written
 * as the process stopped.
 */
export async function throwFindings(): Promise<void> {
  const findings = await drainFindings()
  if (findings.length > 0) throw new Error(`error bodies or log lines failed the leak check:\n${findings.join('\n')}`)
}

export function inspectedCount(): number {
  return inspected
}
