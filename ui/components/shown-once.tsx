// A value shown once (a client secret, a recovery link or code), with its Copy button beside it in
// the page. It sits in a read-only text box, not in a live region (an <output> is one): a screen
// reader would read the secret aloud as it appears, and the page would have a second status region.
// The one status region says in words that it was made; the box can be focused, read, selected and
// copied from.
import { copyText } from './clipboard.ts'

export function ShownOnceValue({ id, value, labelledBy, describedBy }: { id: string; value: string; labelledBy?: string; describedBy?: string }) {
  return (
    <textarea
      id={id}
      class="mono secret shown-once"
      readOnly
      rows={1}
      spellcheck={false}
      autocomplete="off"
      value={value}
      aria-labelledby={labelledBy}
      aria-describedby={describedBy}
    />
  )
}

/** Copy, for a value shown once. */
export function CopyButton({ value }: { value: string }) {
  return (
    <button type="button" onClick={() => copyText(value)}>
      Copy
    </button>
  )
}
