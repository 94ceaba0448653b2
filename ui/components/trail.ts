// The tokens of the pages before this one travel in the URL (`trail`), so Previous page, reload
// and back keep the place. A page token is opaque: the trail separates tokens with `~` and writes
// the first page's empty token as `.`, so a token's own `%` and `~`, and a token that is `.`
// alone, are escaped; whatever a service hands out comes back as it went.
// A trail is kept under MOST_TRAIL_CHARACTERS: a URL grows with every page, and past about 16 KiB
// the service refuses the request head (431), so a reload or a bookmark of a deep page would end
// on the browser's error page. The oldest tokens give way first, counted (`%+N` before the rest,
// which no escaped token can be), so the page number stays right; from the oldest page the trail
// still holds, Previous page leads to the first page, and says so (pager.tsx PreviousPage).
const SEPARATOR = '~'
const FIRST = '.'
const DROPPED = '%+'
export const MOST_TRAIL_CHARACTERS = 6000

const escapeToken = (token: string) => (token === FIRST ? '%2E' : token.replaceAll('%', '%25').replaceAll(SEPARATOR, '%7E'))
const unescapeToken = (text: string) => text.replace(/%(25|7E|2E)/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))

export interface Trail {
  /** How many pages before the oldest token kept are no longer in the trail. */
  dropped: number
  /** The tokens of the pages before this one that are kept, oldest first ('' for the first page). */
  tokens: string[]
}

export function readTrail(text: string | null): Trail {
  if (text === null || text === '') return { dropped: 0, tokens: [] }
  const parts = text.split(SEPARATOR)
  let dropped = 0
  if (parts[0]!.startsWith(DROPPED)) {
    const count = Number(parts.shift()!.slice(DROPPED.length))
    if (Number.isSafeInteger(count) && count > 0) dropped = count
  }
  return { dropped, tokens: parts.map((part) => (part === FIRST ? '' : unescapeToken(part))) }
}

/** The trail as the URL carries it; null (no parameter) for none. */
export function writeTrail(trail: Trail): string | null {
  const parts = trail.tokens.map((token) => (token === '' ? FIRST : escapeToken(token)))
  if (trail.dropped > 0) parts.unshift(`${DROPPED}${trail.dropped}`)
  return parts.length === 0 ? null : parts.join(SEPARATOR)
}

/** The trail once the page of `token` is left for the next: the oldest tokens give way beyond MOST_TRAIL_CHARACTERS. */
export function trailAfter(trail: Trail, token: string): Trail {
  const tokens = [...trail.tokens, token]
  let dropped = trail.dropped
  while (tokens.length > 1 && (writeTrail({ dropped, tokens })?.length ?? 0) > MOST_TRAIL_CHARACTERS) {
    tokens.shift()
    dropped++
  }
  return { dropped, tokens }
}

/** A list's place, read from its URL: the page number, and the query of the page after and the page before. */
export function trailPaging(text: string | null, token: string) {
  const trail = readTrail(text)
  const { dropped, tokens } = trail
  return {
    page: dropped + tokens.length + 1,
    /** The query of the page after this one, whose token is `next`. */
    next: (next: string) => ({ page_token: next, trail: writeTrail(trailAfter(trail, token)) }),
    /**
     * The query Previous page leads to; null on the first page. `first`: the trail no longer holds
     * the page before, so it leads to the first page (and says so).
     */
    previous:
      tokens.length > 0
        ? { page_token: tokens[tokens.length - 1] || null, trail: writeTrail({ dropped, tokens: tokens.slice(0, -1) }), first: false }
        : dropped > 0
          ? { page_token: null, trail: null, first: true }
          : null,
  }
}
