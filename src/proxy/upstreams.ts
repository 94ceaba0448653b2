// The six proxy prefixes (spec "Proxy routes", decisions §6).

import { UPSTREAM_NAMES, type UpstreamName } from '../config.ts'

export interface ProxyPrefix {
  name: UpstreamName
  /** `/api/<name>`; everything under it is forwarded. */
  path: string
  /** The route pattern it is mounted at: `/api/<name>/*`. */
  route: string
  /** The `*-admin` prefixes need an admin session (the gate enforces it) and never pass a client's Authorization. */
  admin: boolean
}

export const PROXY_PREFIXES: readonly ProxyPrefix[] = UPSTREAM_NAMES.map((name) => ({ name, path: `/api/${name}`, route: `/api/${name}/*`, admin: name.endsWith('-admin') }))

/** Each prefix with the slash that must follow it (none is the start of another: each ends with the slash). */
const PREFIX_PATHS: readonly (readonly [string, ProxyPrefix])[] = PROXY_PREFIXES.map((prefix) => [`${prefix.path}/`, prefix] as const)
/** The characters a prefix path has after `/api/` (`i` and `o`): any other path is told apart there. */
const PREFIX_SIXTH: ReadonlySet<number> = new Set(PROXY_PREFIXES.map((prefix) => prefix.path.charCodeAt(5)))

/** The prefix a literal request path is routed to, if any. Asked for every request: most are no proxy path, and say so at their sixth character. */
export function proxyPrefixOf(path: string): ProxyPrefix | null {
  if (!PREFIX_SIXTH.has(path.charCodeAt(5)) || !path.startsWith('/api/')) return null
  for (const [start, prefix] of PREFIX_PATHS) if (path.startsWith(start)) return prefix
  return null
}
