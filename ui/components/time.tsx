// A moment in the viewer's own time zone, with the exact ISO time for machines and tooltips.
const FORMAT = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })

export function Time({ value }: { value: string | null | undefined }) {
  if (!value) return <span>—</span>
  const date = new Date(value)
  if (Number.isNaN(date.getTime())) return <span>—</span>
  const iso = date.toISOString()
  return (
    <time dateTime={iso} title={iso}>
      {FORMAT.format(date)}
    </time>
  )
}
