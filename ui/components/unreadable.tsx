// What Kratos or Hydra sent in a shape the page cannot read (see ory-records.ts), said where it
// would have been shown; the rest of the page is shown as usual.

type Upstream = 'kratos' | 'hydra'
const NAME: Record<Upstream, string> = { kratos: 'Kratos', hydra: 'Hydra' }
const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)

/** Whether any of `fields` came in a shape the page cannot read. */
export function isUnreadable(record: { unreadable?: string[] }, ...fields: string[]): boolean {
  return fields.some((field) => record.unreadable?.includes(field) ?? false)
}

/** Rows of a list that were left out. */
export function UnreadableRows({ count, noun, from }: { count: number; noun: [one: string, many: string]; from: Upstream }) {
  if (count === 0) return null
  const [one, many] = noun
  return (
    <p class="notice">
      {count === 1 ? `1 ${one}` : `${count} ${many}`} from {NAME[from]} cannot be shown: {count === 1 ? 'it' : 'they'} came in a form this page cannot read.
    </p>
  )
}

/** A part of a record that was left out: `what` in words ("the credentials"), and what follows from it. */
export function UnreadableField({ what, from, consequence }: { what: string; from: Upstream; consequence?: string }) {
  return (
    <p class="notice">
      {capitalized(NAME[from])} answered {what} in a form this page cannot show.{consequence ? ` ${consequence}` : ''}
    </p>
  )
}
