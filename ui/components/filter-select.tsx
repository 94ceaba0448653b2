// A list's filter by one of a few known values, its value in the URL. A value the link carries
// that is none of them (an old or edited link) stays chosen, as an option that says it is not
// known, rather than leaving the box blank as if nothing were filtered: the list's service refuses
// it and the page says the link's filter is not valid. Choosing any other option, "all" included,
// is then a change, and the unknown option goes once the link no longer has it.

export interface FilterOption {
  value: string
  label: string
}

export function FilterSelect(props: {
  label: string
  /** The value in the URL; '' for none. */
  value: string
  /** The option for no filter ("All statuses"). */
  all: string
  options: FilterOption[]
  /** The option for a value that is none of `options` ("Unknown status"). */
  unknown: string
  /** The chosen value; null for no filter. */
  onChange: (value: string | null) => void
}) {
  const { value, options } = props
  const known = value === '' || options.some((option) => option.value === value)
  return (
    <label class="page-size">
      <span>{props.label}</span>
      <select value={value} onChange={(e) => props.onChange(e.currentTarget.value || null)}>
        <option value="">{props.all}</option>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
        {!known && <option value={value}>{props.unknown}</option>}
      </select>
    </label>
  )
}
