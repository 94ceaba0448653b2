// Lengths the API speaks of in characters are counted in code points (what JSON Schema's
// maxLength means), not in UTF-16 units: a letter outside the Basic Multilingual Plane is one.

export function characterCount(text: string): number {
  let count = 0
  for (const _ of text) count++
  return count
}

const UUID_FORMS = /^(?:urn:uuid:)?(\{)?([0-9a-f]{8})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{12})(\})?$/

/**
 * A UUID in the one form Kratos gives ids in (lower case, with dashes), from any form Kratos also
 * accepts in a path (upper case, braces, `urn:uuid:`, no dashes); anything else as it was.
 */
export function canonicalUuid(text: string): string {
  const match = UUID_FORMS.exec(text.toLowerCase())
  if (match === null || (match[1] === undefined) !== (match[7] === undefined)) return text
  return `${match[2]}-${match[3]}-${match[4]}-${match[5]}-${match[6]}`
}
