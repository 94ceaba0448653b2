// What an address given to the geo lookup is: invalid, not on the public internet, or a public
// IPv4/IPv6 address ready for the database. IPv4-mapped IPv6 (`::ffff:a.b.c.d`) is read as IPv4.

import { BlockList, isIP } from 'node:net'
import { NOT_PUBLIC_IPV4, NOT_PUBLIC_IPV6 } from './special-addresses.ts'

type AddressCheck =
  | { kind: 'public'; family: 4 | 6; /** The form to look up (mapped addresses unwrapped). */ lookup: string }
  | { kind: 'not_public' }
  | { kind: 'invalid' }

/** The longest textual IPv6 address (with an embedded IPv4 part) is 45 characters. */
const MAX_ADDRESS_LENGTH = 45

// Special-purpose ranges: nothing to place on a map (special-addresses.ts, shared with the UI).
const NOT_PUBLIC = new BlockList()
for (const [network, prefix] of NOT_PUBLIC_IPV4) NOT_PUBLIC.addSubnet(network, prefix, 'ipv4')
for (const [network, prefix] of NOT_PUBLIC_IPV6) NOT_PUBLIC.addSubnet(network, prefix, 'ipv6')

export function checkAddress(text: string): AddressCheck {
  // Zone identifiers (`fe80::1%eth0`) name a local interface: not an address to locate.
  if (text.length === 0 || text.length > MAX_ADDRESS_LENGTH || text.includes('%')) return { kind: 'invalid' }
  const family = isIP(text)
  if (family === 4) {
    return NOT_PUBLIC.check(text, 'ipv4') ? { kind: 'not_public' } : { kind: 'public', family: 4, lookup: text }
  }
  if (family !== 6) return { kind: 'invalid' }
  const mapped = mappedIpv4(text)
  if (mapped !== null) return checkAddress(mapped)
  return NOT_PUBLIC.check(text, 'ipv6') ? { kind: 'not_public' } : { kind: 'public', family: 6, lookup: text.toLowerCase() }
}

/** The IPv4 address inside `::ffff:0:0/96`, or null. The text is a valid IPv6 address. */
function mappedIpv4(text: string): string | null {
  const bytes = ipv6Bytes(text)
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return null
  if (bytes[10] !== 0xff || bytes[11] !== 0xff) return null
  return `${bytes[12]}.${bytes[13]}.${bytes[14]}.${bytes[15]}`
}

/** The 16 bytes of a valid IPv6 address (the caller has checked it with isIP). */
function ipv6Bytes(text: string): Uint8Array {
  const bytes = new Uint8Array(16)
  let groups = text.toLowerCase()
  const tail: number[] = []
  const dotted = groups.match(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/)
  if (dotted) {
    tail.push(...dotted.slice(1, 5).map(Number))
    groups = groups.slice(0, dotted.index) + '0:0' // placeholder groups, replaced below
  }
  const [head = '', rest] = groups.split('::')
  const left = head === '' ? [] : head.split(':')
  const right = rest === undefined || rest === '' ? [] : rest.split(':')
  const words = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
  words.forEach((word, index) => {
    const value = parseInt(word, 16)
    bytes[index * 2] = value >> 8
    bytes[index * 2 + 1] = value & 0xff
  })
  if (tail.length === 4) bytes.set(tail, 12)
  return bytes
}
