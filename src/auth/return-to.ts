// Deep links survive sign-in (ui.md "Serving"): the login keeps where the operator was going in a
// flow cookie (never in `state`), and the callback lands there. Only a plain path under
// /dashboard qualifies; anything else lands on /dashboard.

export const RETURN_TO_COOKIE = 'oauth_return_to'
export const DEFAULT_RETURN_TO = '/dashboard'
const MAX_LENGTH = 1024

// Unreserved and sub-delimiter characters only; a percent sign must start an escape checked below.
const PATH_CHARACTERS = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*$/
const QUERY_CHARACTERS = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]*$/
const ESCAPE = /%([0-9A-Fa-f]{2})/g

/** The path to land on, or null when `raw` is not an acceptable return path. */
export function safeReturnTo(raw: string | null | undefined): string | null {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_LENGTH) return null
  const queryAt = raw.indexOf('?')
  const path = queryAt < 0 ? raw : raw.slice(0, queryAt)
  const query = queryAt < 0 ? '' : raw.slice(queryAt + 1)
  if (path !== '/dashboard' && !path.startsWith('/dashboard/')) return null
  if (!PATH_CHARACTERS.test(path) || !QUERY_CHARACTERS.test(query)) return null
  if (path.includes('//')) return null
  if (path.split('/').some((segment) => segment === '.' || segment === '..')) return null
  // Every escape must be well formed; in the path none may hide a separator, a dot, a control
  // character or white space.
  if (/%(?![0-9A-Fa-f]{2})/.test(raw)) return null
  for (const [, hex] of path.matchAll(ESCAPE)) {
    const code = parseInt(hex!, 16)
    if (code <= 0x20 || code >= 0x7f || code === 0x2f || code === 0x5c || code === 0x2e || code === 0x25) return null
  }
  return raw
}
