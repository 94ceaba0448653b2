// Lengths the API speaks of in characters are counted in code points (what JSON Schema's
// maxLength means), not in UTF-16 units: a letter outside the Basic Multilingual Plane is one.

export function characterCount(text: string): number {
  let count = 0
  for (const _ of text) count++
  return count
}
