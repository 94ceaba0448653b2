// Ory's paging header (RFC 8288 `Link`), read the same way by the service (the identities list,
// the session map) and by the UI's lists through the proxy. Without imports, so that the UI can
// bundle it.

interface LinkValue {
  url: string
  /** Lower-cased relation types (`rel="next last"` gives two). */
  rels: string[]
}

/**
 * RFC 8288 `Link` header: comma-separated `<url>; param=value` entries, values quoted or bare.
 * Commas inside `<…>` or quotes do not split entries; malformed entries are skipped.
 */
export function parseLinkHeader(header: string): LinkValue[] {
  const links: LinkValue[] = []
  const length = header.length
  let i = 0
  const isSpace = (c: string | undefined) => c === ' ' || c === '\t'
  const skipSpaces = () => {
    while (i < length && isSpace(header[i])) i++
  }
  /** Moves past the rest of a malformed entry, honouring quotes. */
  const skipEntry = () => {
    let quoted = false
    while (i < length) {
      const c = header[i]!
      if (quoted && c === '\\') i++
      else if (c === '"') quoted = !quoted
      else if (c === ',' && !quoted) return
      i++
    }
  }

  while (i < length) {
    while (i < length && (isSpace(header[i]) || header[i] === ',')) i++
    if (i >= length) break
    if (header[i] !== '<') {
      skipEntry()
      continue
    }
    const close = header.indexOf('>', i + 1)
    if (close < 0) break
    const url = header.slice(i + 1, close).trim()
    i = close + 1
    const params = new Map<string, string>()
    for (;;) {
      skipSpaces()
      if (header[i] !== ';') break
      i++
      skipSpaces()
      let name = ''
      while (i < length && !'=;,'.includes(header[i]!) && !isSpace(header[i])) name += header[i++]
      skipSpaces()
      let value = ''
      if (header[i] === '=') {
        i++
        skipSpaces()
        if (header[i] === '"') {
          i++
          while (i < length && header[i] !== '"') {
            if (header[i] === '\\' && i + 1 < length) i++
            value += header[i++]
          }
          i++ // the closing quote
        } else {
          while (i < length && !';,'.includes(header[i]!) && !isSpace(header[i])) value += header[i++]
        }
      }
      // The first occurrence of a parameter wins (RFC 8288 §3).
      const key = name.toLowerCase()
      if (key !== '' && !params.has(key)) params.set(key, value)
    }
    skipEntry() // anything left before the next comma is not ours to guess at
    const rel = params.get('rel')
    links.push({ url, rels: rel ? rel.toLowerCase().split(/[ \t]+/).filter(Boolean) : [] })
  }
  return links
}

/**
 * The `page_token` of the `rel="next"` link: undefined when there is no next link, null when a
 * next link carries no usable token. Only the token is kept; the URL is the store's own.
 */
export function nextPageToken(header: string | null): string | null | undefined {
  if (header === null) return undefined
  const next = parseLinkHeader(header).find((link) => link.rels.includes('next'))
  if (!next) return undefined
  try {
    const token = new URL(next.url, 'http://upstream.invalid/').searchParams.get('page_token')
    return token === null || token === '' ? null : token
  } catch {
    return null
  }
}
