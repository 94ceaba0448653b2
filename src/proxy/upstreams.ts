// The six proxy prefixes (spec "Proxy routes", decisions §6).

import type { UpstreamName } from '../config.ts'

export interface ProxyPrefix {
  name: UpstreamName
  /** `/api/<name>`; everything under it is forwarded. */
  path: string
  /** The `*-admin` prefixes need an admin session (the gate enforces it) and never pass a client's Authorization. */
  admin: boolean
}

export const PROXY_PREFIXES: readonly ProxyPrefix[] = (
  ['idp', 'idp-admin', 'iam-idp', 'iam-idp-admin', 'oauth', 'oauth-admin'] as const
).map((name) => ({ name, path: `/api/${name}`, admin: name.endsWith('-admin') }))

/** The prefix a literal request path is routed to, if any. */
export function proxyPrefixOf(path: string): ProxyPrefix | null {
  for (const prefix of PROXY_PREFIXES) if (path.startsWith(prefix.path + '/')) return prefix
  return null
}
