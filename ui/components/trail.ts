// The tokens of the pages before this one travel in the URL (`trail`), so Previous page, reload
// and back keep the place. A page token is opaque: the trail separates tokens with `~` and writes
// the first page's empty token as `.`, so a token's own `%` and `~`, and a token that is `.`
// alone, are escaped; whatever a service hands out comes back as it went.
const SEPARATOR = '~'
const FIRST = '.'

const escapeToken = (token: string) => (token === FIRST ? '%2E' : token.replaceAll('%', '%25').replaceAll(SEPARATOR, '%7E'))
const unescapeToken = (text: string) => text.replace(/%(25|7E|2E)/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))

/** The tokens of the pages before this one, oldest first ('' for the first page). */
export function readTrail(text: string | null): string[] {
  return text === null || text === '' ? [] : text.split(SEPARATOR).map((part) => (part === FIRST ? '' : unescapeToken(part)))
}

/** The trail of these tokens; null (no parameter) for none. */
export function writeTrail(tokens: string[]): string | null {
  return tokens.length === 0 ? null : tokens.map((token) => (token === '' ? FIRST : escapeToken(token))).join(SEPARATOR)
}
