import { useEffect, useState } from 'preact/hooks'

// A moment in the viewer's own time zone, with the exact ISO time for machines and tooltips. The
// text carries seconds and the zone (CEST, GMT+13:45): two retries a few seconds apart, or the two
// 02:30s of a night the clocks go back, read as different moments.
const FORMAT = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'long' })

/** Go's zero time, which Kratos and Hydra send for a time never set. */
const GO_ZERO_TIME = new Date('0001-01-01T00:00:00Z').getTime()

/** A moment as `Time` shows it, for a sentence (a valid date). */
export const momentText = (date: Date): string => FORMAT.format(date)

export function Time({ value }: { value: string | null | undefined }) {
  if (!value) return <span>—</span>
  const date = new Date(value)
  if (Number.isNaN(date.getTime())) return <span>—</span>
  // Unset, as Go writes it: not a moment in year 1.
  if (date.getTime() === GO_ZERO_TIME) return <span>—</span>
  const iso = date.toISOString()
  return (
    <time dateTime={iso} title={iso}>
      {FORMAT.format(date)}
    </time>
  )
}

/** How often usePassed looks at the clock at least: a timer waits out a computer's sleep, and the clock may be set meanwhile. */
const LOOK_AGAIN_MS = 60_000

/**
 * Whether the moment `value` has passed, by this browser's clock: it turns true when it does on a
 * page left open (checked again when the page is shown again, and at least each minute).
 */
export function usePassed(value: string | null | undefined): boolean {
  const at = value ? Date.parse(value) : Number.NaN
  const [passed, setPassed] = useState(() => Date.now() >= at)
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const look = () => {
      clearTimeout(timer)
      const left = at - Date.now()
      setPassed(left <= 0)
      if (left > 0) timer = setTimeout(look, Math.min(left, LOOK_AGAIN_MS))
    }
    if (!Number.isFinite(at)) return setPassed(false)
    look()
    document.addEventListener('visibilitychange', look)
    return () => {
      clearTimeout(timer)
      document.removeEventListener('visibilitychange', look)
    }
  }, [at])
  return passed
}
