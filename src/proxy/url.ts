// Where a proxied request goes: the rest of the path after the prefix, appended to the upstream
// base URL's path, query unchanged. Anything that could move the request to another host or
// another place than under the base path is refused before any connection is made.

import { isPlainPath, normalizePath } from '../http/access.ts'
import { pathRefusal } from './path-refusal.ts'
import { canonicalUuid } from '../text.ts'

/** Where a proxied request goes: the parts of a URL the proxy's clients read. A `URL` is one. */
export interface UpstreamTarget {
  readonly protocol: string
  readonly host: string
  readonly hostname: string
  readonly port: string
  readonly pathname: string
  /** '' or '?…', as `URL.search` gives it. */
  readonly search: string
  readonly href: string
}

type JoinResult = { ok: true; url: UpstreamTarget } | { ok: false; reason: string }

/**
 * The common case: segments of unreserved characters that do not start with a dot (so no dot
 * segment, no encoding, no separator trick, nothing to decode). Such a path is accepted as it is
 * by every rule of `pathRefusal`, and can be written into a URL string without any escaping.
 */
const PLAIN_REST = /^(?:\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*\/?$/
/** A query the URL parser leaves exactly as it is: RFC 3986 query characters, without the quote it would escape. */
const PLAIN_SEARCH = /^\?[A-Za-z0-9._~!$&()*+,;=:@/?%-]+$/

/** A base URL's parts, read once: each read of a URL's part makes a new string. */
interface BaseParts {
  protocol: string
  host: string
  hostname: string
  port: string
  origin: string
  /** The base path without its trailing slashes. */
  path: string
}
// Keyed by the configured URL objects, which are never changed once the configuration is read.
const baseParts = new WeakMap<URL, BaseParts>()

function partsOf(base: URL): BaseParts {
  let parts = baseParts.get(base)
  if (parts === undefined) {
    const { protocol, host, hostname, port, origin } = base
    parts = { protocol, host, hostname, port, origin, path: base.pathname.replace(/\/+$/, '') }
    baseParts.set(base, parts)
  }
  return parts
}

/** The base URL's path without its trailing slashes: what every upstream path starts with. */
export function basePathOf(base: URL): string {
  return partsOf(base).path
}

/** Whether a URL is on the base URL's origin, at its path or under it. */
export function isUnderBase(target: URL, base: URL): boolean {
  const { origin, path } = partsOf(base)
  return target.origin === origin && (target.pathname === path || target.pathname.startsWith(`${path}/`))
}

/** A target's path under the base URL's path, without the query ('/' for the base itself). */
export function pathUnderBase(target: UpstreamTarget, base: URL): string {
  return target.pathname.slice(partsOf(base).path.length) || '/'
}

/** A Kratos identity or session path and its id segment, in whatever spelling the request used. */
const KRATOS_RECORD_PATH = /^(\/admin\/(?:identities|sessions)\/)([^/]+)/

/**
 * A path under the base as the upstream reads it, for the audit trail: each segment percent-decoded
 * once, as Go's routers match the decoded path (`/admin/identities/%34f…` is the identity `4f…`),
 * and a Kratos identity or session id in the one spelling of it Kratos gives (a UUID it also takes
 * in capitals, in braces or after `urn:uuid:`). So the trail, and what its events are about, name
 * what was acted on however the request spelt it. `pathRefusal` has already refused encoded
 * separators and control characters.
 */
export function auditedPath(path: string): string {
  const decoded = path.includes('%') ? path.split('/').map(decodedSegment).join('/') : path
  return decoded.replace(KRATOS_RECORD_PATH, (_, start: string, id: string) => start + canonicalUuid(id))
}

function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/** `rest` is the raw path after the prefix ('' or starting with '/'); `search` is the raw query ('' or '?…'). */
export function joinUpstreamUrl(base: URL, rest: string, search: string): JoinResult {
  if (rest !== '' && !rest.startsWith('/')) return { ok: false, reason: 'host_change' }
  const parts = partsOf(base)
  const basePath = parts.path
  const plain = PLAIN_REST.test(rest)
  if (plain && (search === '' || PLAIN_SEARCH.test(search))) {
    // Nothing for a parser to change: the parts are written as they are, without building a URL
    // (a native object per proxied request). Under the base path and on its origin by construction.
    const pathname = basePath + (rest === '' ? '/' : rest)
    const { protocol, host, hostname, port, origin } = parts
    return { ok: true, url: { protocol, host, hostname, port, pathname, search, href: origin + pathname + search } }
  }
  let url: URL
  if (plain) {
    url = new URL(`${parts.origin}${basePath}${rest === '' ? '/' : rest}`)
    if (search !== '') url.search = search
  } else {
    const why = pathRefusal(rest)
    if (why) return { ok: false, reason: why }
    url = new URL(base.href)
    url.pathname = basePath + (rest === '' ? '/' : rest)
    url.search = search
  }
  // Belt and braces: the result must still be the configured upstream, under its path.
  if (url.origin !== parts.origin || !(url.pathname === basePath || url.pathname.startsWith(basePath + '/'))) {
    return { ok: false, reason: 'host_change' }
  }
  return { ok: true, url }
}

/**
 * The public APIs of Kratos and Hydra (their API references: self-service flows, sessions, schemas,
 * OAuth 2.0 and OpenID Connect, health and version): the only paths a public prefix adds its API
 * key to. On Ory Network one address serves other APIs too, some outside `/admin` that the project
 * key opens (the permission reads, `/relation-tuples`): anything else on a public prefix goes
 * without the key, as it would with none stored, and the upstream judges the client's own.
 */
const PUBLIC_API = /^\/(?:self-service|sessions|schemas|oauth2|userinfo|credentials|\.well-known|health|version)(?:\/|$)/

/** Whether a public prefix adds its API key to this rest path (`PUBLIC_API`), read as the gate reads paths. */
export function keyedPublicPath(rest: string): boolean {
  if (isPlainPath(rest)) return PUBLIC_API.test(rest)
  return PUBLIC_API.test(normalizePath(rest).path)
}

/**
 * Whether a rest path reaches an upstream's admin API: `/admin` and everything under it, in any
 * spelling the upstream or a proxy in front of it might read as that (encoded, in another case,
 * with matrix parameters or dot segments), judged as the gate judges paths. On Ory Network one URL
 * serves the public and the admin API, and the project API key opens the admin one: a public
 * prefix, which anyone who can reach the service may call, must never lead there with its key.
 */
export function reachesAdminApi(rest: string): boolean {
  // The common case, on every public prefix's request, without decoding or normalizing anything.
  if (isPlainPath(rest)) return rest === '/admin' || rest.startsWith('/admin/')
  const { path } = normalizePath(rest)
  return path === '/admin' || path.startsWith('/admin/')
}
