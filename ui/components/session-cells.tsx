// A Kratos session's cells, as the Sessions page and an identity's page show them: where it was
// made (device, address, place) and when (authenticated, expires).
import { useEffect, useState } from 'preact/hooks'
import { api, type KratosSession } from '../api.ts'
import { revealHidden } from '../reveal.ts'
import { placeableAddress } from '../placeable-address.ts'
import { Cell, cellText } from './data-table.tsx'
import { Time, usePassed } from './time.tsx'

/**
 * Places by IP address, asked once per address while the page is open: a table of sessions most
 * often repeats a few addresses, and each row asking again would be a request per row. A failed
 * answer is not kept, so the next row asks again. Bounded: the oldest address is forgotten first.
 * At most MOST_ASKING are asked at a time: a table of 250 addresses must not hold up, behind its
 * lookups, the Revoke a person clicks meanwhile (a browser opens a few connections per host).
 */
const places = new Map<string, Promise<string | null>>()
const MOST_PLACES = 500
const MOST_ASKING = 4
let asking = 0
const waiting: (() => void)[] = []

/** `ask` once fewer than MOST_ASKING are under way; a lookup that ends hands its turn to the next waiting. */
async function inTurn<T>(ask: () => Promise<T>): Promise<T> {
  if (asking < MOST_ASKING) asking++
  else await new Promise<void>((resolve) => waiting.push(resolve))
  try {
    return await ask()
  } finally {
    const next = waiting.shift()
    if (next) next()
    else asking--
  }
}

function placeNameOf(ip: string): Promise<string | null> {
  const known = places.get(ip)
  if (known) return known
  const asked = inTurn(() => api.geo(ip)).then((result) => {
    if (!result.ok) {
      places.delete(ip)
      return null
    }
    const { city, country_name, country } = result.data
    const text = [city, country_name ?? country].find((value) => typeof value === 'string' && value !== '')
    return text ?? null
  })
  if (places.size >= MOST_PLACES) places.delete(places.keys().next().value!)
  places.set(ip, asked)
  return asked
}

/**
 * What could be an IP address (IPv4 dotted, or IPv6 hex and colons): only such is shown on one line.
 * Kratos records what the client sent; anything else is shown as text, wrapped.
 */
const LOOKS_LIKE_IP = /^(?:\d{1,3}(?:\.\d{1,3}){3}|(?=[0-9A-Fa-f:.]*:)[0-9A-Fa-f:.]{2,45})$/
const looksLikeIp = (text: string | undefined): text is string => text !== undefined && LOOKS_LIKE_IP.test(text)

/**
 * Where an IP address is, from the geo route; a dash when unknown. A private, loopback or
 * documentation address (an office network, a proxy in front of Kratos) has no place to ask for.
 */
export function Location({ ip }: { ip: string | undefined }) {
  const [label, setLabel] = useState<string | null>(null)
  useEffect(() => {
    if (ip === undefined || !placeableAddress(ip)) return
    let current = true
    void placeNameOf(ip).then((text) => {
      if (current) setLabel(text)
    })
    return () => {
      current = false
    }
  }, [ip])
  return <>{label ?? '—'}</>
}

/**
 * Device, IP address and place of a session's first device; Kratos's own place for it when it sent
 * one. Each is what the client sent, so a right-to-left override in a user agent is shown, not obeyed.
 */
export function DeviceCells({ session }: { session: KratosSession }) {
  const device = session.devices[0]
  return (
    <>
      <Cell label="Device" class="device">
        {cellText(revealHidden(device?.user_agent ?? '')) || '—'}
      </Cell>
      <Cell label="IP address" class={looksLikeIp(device?.ip_address) ? 'mono ip' : 'mono'}>
        {cellText(revealHidden(device?.ip_address ?? '')) || '—'}
      </Cell>
      <Cell label="Location" class="place">{device?.location ? cellText(revealHidden(device.location)) : <Location ip={device?.ip_address} />}</Cell>
    </>
  )
}

/** When a session was authenticated, and when it expires: one that expired while the page was open says so (the list was of active ones). */
export function TimeCells({ session }: { session: KratosSession }) {
  const expired = usePassed(session.expires_at)
  return (
    <>
      <Cell label="Authenticated">
        <Time value={session.authenticated_at} />
      </Cell>
      <Cell label="Expires">
        <Time value={session.expires_at} />
        {expired && ' (expired)'}
      </Cell>
    </>
  )
}
