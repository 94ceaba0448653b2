// Where the managed identity store's active sessions come from (decisions §3, §9): the store's
// sessions are read page by page (keyset paging, the cursor taken from the `Link` header), those
// authenticated within the window are placed with the geo database, and equal places are counted.
// The cursor is opaque (Kratos's is a base64 map of the last row's id and created_at) and is passed
// on as the rel="next" link gave it. Kratos lists sessions newest first (`created_at` descending),
// so a walk the page or session bound cuts short has the newest sessions, as the map's caption says.
// The whole walk takes at most one upstream timeout (`walkMs`, PROXY_TIMEOUT_MS): a page still
// under way then is given up and the map answered with the pages read, marked truncated, before
// the connection's idle limit (server.ts) would close it unanswered. A caller gone stops it.

import type { Clock } from '../clock.ts'
import type { ErrorCode } from '../http/errors.ts'
import { errorCodeFor } from '../upstream/client.ts'
import { nextPageToken } from '../upstream/link.ts'
import { storeFailureSays, UNREADABLE_ANSWER, type IdentityStoreClient } from '../identities/store.ts'
import type { Logger } from '../log.ts'
import type { GeoLocation, GeoLocator } from './geo.ts'

export interface LocationPoint {
  lat: number
  lng: number
  label: string
  count: number
}

interface LocationsAnswer {
  points: LocationPoint[]
  /** True when the page, session or time bound stopped the walk before the store's last page (the oldest sessions are left out). */
  truncated: boolean
}

/** `message`: the store was reached, and answered with an error or with something that is no list of sessions. */
type LocationsOutcome = { ok: true; answer: LocationsAnswer } | { ok: false; code: ErrorCode; message?: string }

export const PAGE_SIZE = 250
export const MAX_PAGES = 20
const MAX_SESSIONS = 5000
const DAY_MS = 86_400_000

interface SessionLocationsDeps {
  /** The managed identity store (`IDP_ADMIN_URL`); null when it is not configured. */
  store: IdentityStoreClient | null
  geo: GeoLocator
  clock: Clock
  log: Logger
  /** How long the whole walk may take (PROXY_TIMEOUT_MS); the first page has the upstream's own timeout. */
  walkMs: number
}

export class SessionLocationsService {
  constructor(private readonly deps: SessionLocationsDeps) {}

  /** `gone`: aborts when the caller no longer waits for the answer (its connection closed). */
  async points(days: number, gone?: AbortSignal): Promise<LocationsOutcome> {
    const { store, geo, clock, log } = this.deps
    if (!store) return { ok: false, code: 'upstream_not_configured' }
    const locate = await geo.locator()
    const since = clock.now() - days * DAY_MS
    const groups = new Map<string, LocationPoint>()
    let seen = 0
    let token: string | undefined
    const tokensUsed = new Set<string>()
    const overdue = AbortSignal.timeout(this.deps.walkMs)
    const stop = gone ? AbortSignal.any([overdue, gone]) : overdue

    for (let page = 0; page < MAX_PAGES; page++) {
      const query = new URLSearchParams({ active: 'true', expand: 'devices', page_size: String(PAGE_SIZE) })
      if (token !== undefined) query.set('page_token', token)
      // The first page is the answer's least: it has the upstream's own timeout, and only the caller's leaving stops it.
      const fetched = await this.page(store, query, page === 0 ? gone : stop)
      if (!fetched.ok) {
        if (page > 0 && overdue.aborted) {
          log.warn('session_locations_cut', { reason: 'time', pages: page })
          return { ok: true, answer: { points: sorted(groups), truncated: true } }
        }
        return fetched
      }

      for (const session of fetched.sessions) {
        if (seen >= MAX_SESSIONS) return { ok: true, answer: { points: sorted(groups), truncated: true } }
        seen++
        if (!authenticatedSince(session, since)) continue
        // A session is counted once per place, however many of its devices are there.
        const places = new Map<string, { location: GeoLocation; label: string }>()
        for (const ip of deviceAddresses(session)) {
          const location = locate(ip)
          if (!location) continue
          const label = labelOf(location)
          places.set(`${label}\u0000${location.lat}\u0000${location.lng}`, { location, label })
        }
        for (const [key, { location, label }] of places) {
          const point = groups.get(key)
          if (point) point.count++
          else groups.set(key, { lat: location.lat, lng: location.lng, label, count: 1 })
        }
      }

      const next = nextPageToken(fetched.link)
      if (next === undefined) return { ok: true, answer: { points: sorted(groups), truncated: false } }
      if (next === null || tokensUsed.has(next)) {
        log.warn('session_locations_link', { reason: next === null ? 'next link without a page token' : 'repeated page token' })
        return { ok: true, answer: { points: sorted(groups), truncated: true } }
      }
      tokensUsed.add(next)
      token = next
    }
    return { ok: true, answer: { points: sorted(groups), truncated: true } }
  }

  private async page(
    store: IdentityStoreClient,
    query: URLSearchParams,
    signal: AbortSignal | undefined,
  ): Promise<{ ok: true; sessions: Record<string, unknown>[]; link: string | null } | { ok: false; code: ErrorCode; message?: string }> {
    const { log } = this.deps
    const answer = await store.json('/admin/sessions', { query, signal })
    if (!answer.ok) {
      return { ok: false, code: errorCodeFor(answer.failure), message: storeFailureSays(answer.failure, answer.status) }
    }
    const rows = answer.body
    if (!Array.isArray(rows)) {
      log.warn('session_list_body', { reason: 'not an array' })
      return { ok: false, code: 'bad_gateway', message: UNREADABLE_ANSWER }
    }
    const sessions = rows.filter((row): row is Record<string, unknown> => typeof row === 'object' && row !== null && !Array.isArray(row))
    return { ok: true, sessions, link: answer.headers.get('link') }
  }
}

/** `authenticated_at`, else `issued_at`, at or after `since` (ms). */
function authenticatedSince(session: Record<string, unknown>, since: number): boolean {
  const stamp = typeof session.authenticated_at === 'string' ? session.authenticated_at : session.issued_at
  if (typeof stamp !== 'string') return false
  const at = Date.parse(stamp)
  return Number.isFinite(at) && at >= since
}

function deviceAddresses(session: Record<string, unknown>): string[] {
  if (!Array.isArray(session.devices)) return []
  const addresses: string[] = []
  for (const device of session.devices) {
    const ip = typeof device === 'object' && device !== null ? (device as Record<string, unknown>).ip_address : undefined
    if (typeof ip === 'string') addresses.push(ip)
  }
  return addresses
}

function labelOf(location: GeoLocation): string {
  const country = location.countryName ?? location.country
  return location.city ? `${location.city}, ${country}` : country
}

/** Most sessions first; equal counts by label, so the answer is stable. */
function sorted(groups: Map<string, LocationPoint>): LocationPoint[] {
  return [...groups.values()].sort((a, b) => b.count - a.count || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0))
}
