// JSON Patch (RFC 6902) of what an edit changed, for Kratos's and Hydra's PATCH endpoints: they
// apply it to the record as stored, so a field someone else changed since the page loaded is kept
// unless this edit changed it too (a PUT of the whole record as loaded would put the old value back).
export type PatchOp = { op: 'add'; path: string; value: unknown } | { op: 'remove'; path: string }

/** A JSON Pointer to the member `keys` (escaped: `~` as `~0`, `/` as `~1`). */
export const pointer = (...keys: string[]) => keys.map((key) => `/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('')

/** A JSON value with every object's members in one order: Kratos may store them in another (PostgreSQL's jsonb does). */
const canonical = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(canonical)
    : typeof value === 'object' && value !== null
      ? Object.fromEntries(Object.keys(value).sort().map((key) => [key, canonical((value as Record<string, unknown>)[key])]))
      : value

/** The same JSON value, whatever the order of its members; missing and null are the same. */
export const same = (a: unknown, b: unknown) => JSON.stringify(canonical(a ?? null)) === JSON.stringify(canonical(b ?? null))

/**
 * One operation per member of an object that changed: `add` sets a member whether or not it is
 * there (Ory's patch applies a `replace` of a missing member too, but `add` is the standard's
 * word for it), `remove` takes out one the edit removed.
 */
export function membersPatch(path: string[], before: Record<string, unknown>, after: Record<string, unknown>): PatchOp[] {
  const patch: PatchOp[] = []
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (!(key in after)) patch.push({ op: 'remove', path: pointer(...path, key) })
    else if (!(key in before) || !same(before[key], after[key])) patch.push({ op: 'add', path: pointer(...path, key), value: after[key] })
  }
  return patch
}

/** The value at `path`, set if the edit changed it (missing and null are the same). */
export function valuePatch(path: string[], before: unknown, after: unknown): PatchOp[] {
  return same(before, after) ? [] : [{ op: 'add', path: pointer(...path), value: after ?? null }]
}

// Kratos's PATCH takes no `test` operation (jsonx.ApplyJSONPatch allows add, replace and remove
// only), so a patch cannot be made to fail when a value changed since the page read it. Setting a
// scalar member is harmless that way; a list or an object is set whole, and whatever someone else
// added to it meanwhile would be dropped. These say which members that would be, and how to move an
// edit onto the record as it is now.

const isWhole = (value: unknown) => typeof value === 'object' && value !== null

/** The members an edit of `before` into `edited` sets or removes whole: lists and objects it changed. */
export function wholeMembers(before: Record<string, unknown>, edited: Record<string, unknown>): string[] {
  return [...new Set([...Object.keys(before), ...Object.keys(edited)])].filter((key) => !same(before[key], edited[key]) && (isWhole(before[key]) || isWhole(edited[key])))
}

/**
 * Of the members the edit sets whole, those that `now` no longer holds as `before` did: saving would
 * undo that change. One `now` holds as the edit has it is no change of someone else's (the edit's
 * own save, whose answer was lost, made it).
 */
export function staleMembers(before: Record<string, unknown>, edited: Record<string, unknown>, now: Record<string, unknown>): string[] {
  return wholeMembers(before, edited).filter((key) => !same(before[key], now[key]) && !same(edited[key], now[key]))
}

/**
 * The edit moved onto `now`: each member as `now` has it, except those the edit changed, which keep
 * the edit's value, and those in `stale`, which take `now`'s.
 */
export function rebaseMembers(before: Record<string, unknown>, edited: Record<string, unknown>, now: Record<string, unknown>, stale: string[]): Record<string, unknown> {
  const rebased = { ...now }
  for (const key of new Set([...Object.keys(before), ...Object.keys(edited)])) {
    if (stale.includes(key) || same(before[key], edited[key])) continue
    if (key in edited) rebased[key] = edited[key]
    else delete rebased[key]
  }
  return rebased
}
