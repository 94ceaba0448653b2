// Where a proxied request goes: the rest of the path after the prefix, appended to the upstream
// base URL's path, query unchanged. Anything that could move the request to another host or
// another place than under the base path is refused before any connection is made.

const MAX_DECODE_ROUNDS = 4

/** Why a rest path is refused, or null when it is acceptable. */
function refusal(rest: string): string | null {
  if (rest.includes('\\') || rest.includes('@')) return 'host_change'
  if (/%(2f|5c|40)/i.test(rest)) return 'encoded_separator'
  if (rest.includes('//')) return 'host_change'
  if (/[\u0000-\u0020\u007f]/.test(rest)) return 'control_character'
  let decoded = rest
  for (let round = 0; round < MAX_DECODE_ROUNDS && decoded.includes('%'); round++) {
    try {
      decoded = decodeURIComponent(decoded)
    } catch {
      return 'malformed_encoding'
    }
  }
  if (decoded.includes('%')) return 'malformed_encoding'
  // Double-encoded separators and dot segments show up once fully decoded.
  if (decoded.includes('\\') || decoded.split('/').length !== rest.split('/').length) return 'encoded_separator'
  if (decoded.split('/').some((segment) => segment === '.' || segment === '..')) return 'traversal'
  if (/[\u0000-\u001f\u007f]/.test(decoded)) return 'control_character'
  return null
}

type JoinResult = { ok: true; url: URL } | { ok: false; reason: string }

/**
 * The common case: segments of unreserved characters that do not start with a dot (so no dot
 * segment, no encoding, no separator trick, nothing to decode). Such a path is accepted as it is
 * by every rule of `refusal`, and can be written into a URL string without any escaping.
 */
const PLAIN_REST = /^(?:\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*\/?$/

/** `rest` is the raw path after the prefix ('' or starting with '/'); `search` is the raw query ('' or '?…'). */
export function joinUpstreamUrl(base: URL, rest: string, search: string): JoinResult {
  if (rest !== '' && !rest.startsWith('/')) return { ok: false, reason: 'host_change' }
  const basePath = base.pathname.replace(/\/+$/, '')
  let url: URL
  if (PLAIN_REST.test(rest)) {
    url = new URL(`${base.origin}${basePath}${rest === '' ? '/' : rest}`)
    if (search !== '') url.search = search
  } else {
    const why = refusal(rest)
    if (why) return { ok: false, reason: why }
    url = new URL(base.href)
    url.pathname = basePath + (rest === '' ? '/' : rest)
    url.search = search
  }
  // Belt and braces: the result must still be the configured upstream, under its path.
  if (url.origin !== base.origin || !(url.pathname === basePath || url.pathname.startsWith(basePath + '/'))) {
    return { ok: false, reason: 'host_change' }
  }
  return { ok: true, url }
}
