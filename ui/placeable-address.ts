// Whether the geo route could place an address: an IPv4 or IPv6 address outside the special-purpose
// ranges it refuses (private, loopback, link-local, documentation…). Real sessions come from such
// addresses all the time; asking about them only earns a 404, which the browser reports as an error.
import { NOT_PUBLIC_IPV4, NOT_PUBLIC_IPV6 } from '../src/support/special-addresses.ts'

/** The four bytes of a dotted IPv4 address (no leading zeros, as the service reads it), or null. */
function ipv4Bytes(text: string): number[] | null {
  const parts = text.split('.')
  if (parts.length !== 4 || !parts.every((part) => /^(?:0|[1-9]\d{0,2})$/.test(part))) return null
  const bytes = parts.map(Number)
  return bytes.every((byte) => byte <= 255) ? bytes : null
}

/** The sixteen bytes of an IPv6 address (with `::` and a dotted IPv4 end), or null. */
function ipv6Bytes(text: string): number[] | null {
  let groups = text
  let ipv4: number[] = []
  const lastColon = text.lastIndexOf(':')
  if (text.slice(lastColon + 1).includes('.')) {
    const tail = ipv4Bytes(text.slice(lastColon + 1))
    if (!tail) return null
    ipv4 = tail
    groups = `${text.slice(0, lastColon + 1)}0:0`
  }
  const halves = groups.split('::')
  if (halves.length > 2) return null
  const left = halves[0] ? halves[0].split(':') : []
  const right = halves[1] ? halves[1].split(':') : []
  if (![...left, ...right].every((group) => /^[0-9a-f]{1,4}$/i.test(group))) return null
  const missing = 8 - left.length - right.length
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null
  const words = [...left, ...Array<string>(missing).fill('0'), ...right].map((group) => parseInt(group, 16))
  const bytes = words.flatMap((word) => [word >> 8, word & 0xff])
  if (ipv4.length === 4) bytes.splice(12, 4, ...ipv4)
  return bytes
}

/** Whether the first `prefix` bits of `bytes` are those of `network`. */
function within(bytes: number[], network: number[], prefix: number): boolean {
  for (let bit = 0; bit < prefix; bit += 8) {
    const mask = prefix - bit >= 8 ? 0xff : (0xff << (8 - (prefix - bit))) & 0xff
    if ((bytes[bit / 8]! & mask) !== (network[bit / 8]! & mask)) return false
  }
  return true
}

const IPV4_RANGES = NOT_PUBLIC_IPV4.map(([network, prefix]) => ({ network: ipv4Bytes(network)!, prefix }))
const IPV6_RANGES = NOT_PUBLIC_IPV6.map(([network, prefix]) => ({ network: ipv6Bytes(network)!, prefix }))

export function placeableAddress(text: string): boolean {
  const ipv4 = ipv4Bytes(text)
  if (ipv4) return !IPV4_RANGES.some(({ network, prefix }) => within(ipv4, network, prefix))
  // A zone (`fe80::1%eth0`) names a local interface.
  const ipv6 = text.includes('%') ? null : ipv6Bytes(text)
  if (!ipv6) return false
  // An IPv4-mapped address (`::ffff:a.b.c.d`) is its IPv4 address.
  if (ipv6.slice(0, 10).every((byte) => byte === 0) && ipv6[10] === 0xff && ipv6[11] === 0xff) return placeableAddress(ipv6.slice(12).join('.'))
  return !IPV6_RANGES.some(({ network, prefix }) => within(ipv6, network, prefix))
}
