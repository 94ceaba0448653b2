// Which paths the proxy does not pass on to an upstream (`url.ts`): anything that could move a
// request to another host or out from under the upstream's base path. Without imports, so that the
// UI can tell a record whose ID no path can carry (an OAuth client named "a/b") before it asks.

const MAX_DECODE_ROUNDS = 4

/** Why a rest path is refused, or null when it is acceptable. */
export function pathRefusal(rest: string): string | null {
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
