// Lengths the API speaks of in characters are counted in code points (what JSON Schema's
// maxLength means), not in UTF-16 units: a letter outside the Basic Multilingual Plane is one.

export function characterCount(text: string): number {
  let count = 0
  for (const _ of text) count++
  return count
}

// Dashes in all four places or none (the backreference).
const HEX_UUID = /^([0-9a-fA-F]{8})(-?)([0-9a-fA-F]{4})\2([0-9a-fA-F]{4})\2([0-9a-fA-F]{4})\2([0-9a-fA-F]{12})$/

/**
 * A UUID in the one form Kratos gives ids in (lower case, with dashes), from any form Kratos also
 * accepts in a path (gofrs/uuid: either case, in braces or after `urn:uuid:`, dashes or none);
 * anything else as it was.
 */
export function canonicalUuid(text: string): string {
  const body = text.startsWith('urn:uuid:') ? text.slice(9) : text.startsWith('{') && text.endsWith('}') ? text.slice(1, -1) : text
  const match = HEX_UUID.exec(body)
  return match === null ? text : `${match[1]}-${match[3]}-${match[4]}-${match[5]}-${match[6]}`.toLowerCase()
}
