// "At most once per key in a window": an audit event or a log line that anyone can cause again and
// again (a refused sign-in, a database that stays unavailable) is written once per window per key.

/**
 * A function that says whether `key` may go now: true at its first call and then once `windowMs`
 * has passed since the last true, by `now()`. At most `most` keys are remembered (the oldest go
 * first), so that keys anyone can choose do not grow it without bound.
 */
export function oncePerWindow(windowMs: number, now: () => number, most = 10_000): (key: string) => boolean {
  /** key → when it last went, the oldest first. */
  const went = new Map<string, number>()
  return (key) => {
    const at = now()
    const last = went.get(key)
    // A last time after now is a clock stepped back (the wall clock, corrected): the window counts as passed.
    if (last !== undefined && at >= last && at - last < windowMs) return false
    went.delete(key)
    if (went.size >= most) went.delete(went.keys().next().value!)
    went.set(key, at)
    return true
  }
}
