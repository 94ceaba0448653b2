// THE access table: every path the service answers, and who may call it.
// The gate (gate.ts) decides by it; the direct lane, the route rule, the proxy's path checks and the
// OpenAPI document read it too. A test walks `app.routes` and fails when a route is not covered by
// an explicit rule here.

export type Access = 'public' | 'session' | 'admin' | 'proxy-public' | 'proxy-admin'

interface AccessRule {
  /** `/exact`, `/prefix/**` (the prefix itself and everything under it) or `/path/:param` (one segment). */
  pattern: string
  access: Access
}

export const ACCESS_TABLE: readonly AccessRule[] = [
  { pattern: '/api/health', access: 'public' },
  { pattern: '/api/auth/**', access: 'public' },
  { pattern: '/api/connections/social', access: 'public' },
  { pattern: '/api/settings', access: 'admin' },
  { pattern: '/api/settings/:key', access: 'admin' },
  { pattern: '/api/encrypt', access: 'admin' },
  { pattern: '/api/config', access: 'admin' },
  { pattern: '/api/openapi.json', access: 'admin' },
  { pattern: '/api/security/**', access: 'admin' },
  { pattern: '/api/identities', access: 'admin' },
  { pattern: '/api/dashboard/layout', access: 'session' },
  { pattern: '/api/session-locations', access: 'session' },
  { pattern: '/api/geo', access: 'session' },
  { pattern: '/api/services/**', access: 'session' },
  { pattern: '/api/idp/**', access: 'proxy-public' },
  { pattern: '/api/iam-idp/**', access: 'proxy-public' },
  { pattern: '/api/oauth/**', access: 'proxy-public' },
  { pattern: '/api/idp-admin/**', access: 'proxy-admin' },
  { pattern: '/api/iam-idp-admin/**', access: 'proxy-admin' },
  { pattern: '/api/oauth-admin/**', access: 'proxy-admin' },
  // The operator UI's shell and assets (ui.md "Serving"). They hold no data; it comes from /api/**.
  { pattern: '/dashboard/**', access: 'public' },
  { pattern: '/', access: 'public' },
]

/** Unknown paths under /api/ need a session (401 before 404); anything else is a public 404. */
const API_FALLBACK: Access = 'session'
const OTHER_FALLBACK: Access = 'public'

export type Requirement = 'none' | 'session' | 'admin'

export function requirementOf(access: Access): Requirement {
  switch (access) {
    case 'public':
    case 'proxy-public':
      return 'none'
    case 'session':
      return 'session'
    case 'admin':
    case 'proxy-admin':
      return 'admin'
  }
}

const STRICTNESS: Record<Access, number> = {
  public: 0,
  'proxy-public': 1,
  session: 2,
  admin: 3,
  'proxy-admin': 3,
}

function stricter(a: Access, b: Access): Access {
  return STRICTNESS[b] > STRICTNESS[a] ? b : a
}

function ruleMatches(pattern: string, path: string): boolean {
  if (pattern.endsWith('/**')) {
    const prefix = pattern.slice(0, -3)
    return path === prefix || path.startsWith(prefix + '/')
  }
  const colon = pattern.indexOf('/:')
  if (colon >= 0) {
    const prefix = pattern.slice(0, colon + 1)
    if (!path.startsWith(prefix)) return false
    const rest = path.slice(prefix.length)
    return rest.length > 0 && !rest.includes('/')
  }
  return path === pattern
}

/** A concrete path for a route pattern: `:param` and `*` filled with a sample segment. */
export function samplePathOf(routePattern: string): string {
  return routePattern.replace(/:[^/]+/g, 'sample').replace(/\*$/, 'sample/path')
}

/** How the route a request was dispatched to is protected, judged from the route's own pattern. */
export function accessOfRoute(routePattern: string): Access {
  return classifyPath(samplePathOf(routePattern))
}

/** The rule for a path, or null when only the fallback applies. */
export function findRule(path: string): AccessRule | null {
  for (const rule of ACCESS_TABLE) if (ruleMatches(rule.pattern, path)) return rule
  return null
}

function classifyLiteral(path: string): Access {
  const rule = findRule(path)
  if (rule) return rule.access
  return path === '/api' || path.startsWith('/api/') ? API_FALLBACK : OTHER_FALLBACK
}

function stripTrailingSlashes(path: string): string {
  const stripped = withoutTrailing(path, '/')
  return stripped === '' ? '/' : stripped
}

/**
 * `text` without the run of `char` at its end. Not `/x+$/`: the regex engine tries that run from
 * each of its characters when something follows it, quadratic in its length (a 16 KiB path of
 * slashes or dots, which anyone may send, cost 140 ms of CPU).
 */
function withoutTrailing(text: string, char: string): string {
  let end = text.length
  while (end > 0 && text[end - 1] === char) end--
  return end === text.length ? text : text.slice(0, end)
}

const MAX_DECODE_ROUNDS = 4

/**
 * The canonical form used to judge a path: percent-decoded until stable, cut at a decoded `#` or
 * `?`, Unicode look-alikes folded (NFKC), lower-cased, backslashes as slashes, matrix parameters,
 * control and space characters and trailing dots removed, dot segments resolved, empty segments
 * dropped. `suspicious` is true when an encoding could not be decoded, or when decoding produced
 * slashes or dot segments: Bun resolves the plain ones, so those only come from encodings.
 */
export function normalizePath(raw: string): { path: string; suspicious: boolean } {
  let path = raw
  let suspicious = false
  for (let round = 0; round < MAX_DECODE_ROUNDS && path.includes('%'); round++) {
    try {
      path = decodeURIComponent(path)
    } catch {
      suspicious = true
      break
    }
  }
  if (path.includes('%')) suspicious = true
  path = path.replace(/[#?].*$/s, '').normalize('NFKC').toLowerCase().replace(/\\/g, '/')
  if (path.split('/').length !== raw.split('/').length || /(^|\/)\.\.?(\/|$)/.test(path)) suspicious = true
  path = path.replace(/[\u0000-\u0020\u007f-\u00a0\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\ufeff]/g, '')
  const segments: string[] = []
  for (const segment of path.split('/')) {
    const bare = segment.split(';')[0] ?? ''
    if (bare === '' || bare === '.') continue
    if (bare === '..') segments.pop()
    else segments.push(withoutTrailing(bare, '.') || bare)
  }
  return { path: '/' + segments.join('/'), suspicious }
}

/**
 * How a request path is protected. The literal path (what the router sees) and the canonical
 * path are both classified and the stricter answer wins, so no spelling of a path can be more
 * public than the route it reaches. Malformed or traversing encodings are never public.
 */
export function classifyPath(rawPath: string): Access {
  let access = recentClassifications.get(rawPath)
  if (access === undefined) {
    access = PLAIN_PATH.test(rawPath) ? classifyLiteral(stripTrailingSlashes(rawPath)) : classifyUnusualPath(rawPath)
    // Bounded: a flood of distinct paths costs a clear, never memory.
    if (rawPath.length > RECENT_PATH_LENGTH) return access
    if (recentClassifications.size >= RECENT_LIMIT) recentClassifications.clear()
    recentClassifications.set(rawPath, access)
  }
  return access
}

/**
 * A path whose canonical form is itself minus trailing slashes: lower-case ASCII letters, digits,
 * `-`, `_` and `.` inside segments, single slashes, no dot segment. Nothing can decode, fold or
 * resolve in it (no segment ends with a dot, so no dot segment and no trailing dots to strip), so
 * the literal rule is the whole answer. Anything else takes the full road.
 */
const PLAIN_PATH = /^(?:\/[a-z0-9_.-]*[a-z0-9_-])*\/?$/

/** Whether `path` is plain as above: what normalizePath would make of it is itself, less a trailing slash. */
export function isPlainPath(path: string): boolean {
  return PLAIN_PATH.test(path)
}

/** Classification is a pure function of the path: recent answers are kept (by exact path). */
const recentClassifications = new Map<string, Access>()
const RECENT_LIMIT = 4096
/**
 * Longer paths are judged anew each time: no route's path is near this long, and kept, 4,096
 * distinct paths of the 16 KiB Bun takes would hold 64 MB.
 */
const RECENT_PATH_LENGTH = 256

/** The full road for any path: the definition the fast path and the cache must agree with. */
export function classifyUnusualPath(rawPath: string): Access {
  const literal = classifyLiteral(stripTrailingSlashes(rawPath))
  // A literal path under a proxy prefix can only be routed to the proxy, whose own rules
  // (proxy/url.ts) refuse any encoded separator or dot segment with 400 before connecting.
  if (literal === 'proxy-public' || literal === 'proxy-admin') return literal
  const { path, suspicious } = normalizePath(rawPath)
  let access = stricter(literal, classifyLiteral(path))
  if (suspicious) access = stricter(access, 'session')
  return access
}
