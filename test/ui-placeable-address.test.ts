// The UI asks the geo route only about addresses it could place: it judges an address as the
// service does (src/support/ip-address.ts), so that a private or documentation address earns no 404.
import { expect, test } from 'bun:test'
import { placeableAddress } from '../ui/placeable-address.ts'
import { checkAddress } from '../src/support/ip-address.ts'
import { NOT_PUBLIC_IPV4, NOT_PUBLIC_IPV6 } from '../src/support/special-addresses.ts'

const PRIVATE_AND_DOCUMENTATION = [
  '10.0.0.1', '10.255.255.254', '192.168.1.20', '172.16.0.1', '172.31.255.255', '127.0.0.1', '169.254.10.1', '100.64.0.1',
  '192.0.2.44', '198.51.100.7', '203.0.113.9', '224.0.0.251', '255.255.255.255', '0.0.0.0',
  '::1', '::', 'fc00::1', 'fd12:3456:789a::1', 'fe80::1', 'febf:ffff::1', '2001:db8::1', '2001:DB8:0:0:0:0:0:7', 'ff02::fb', '3fff::1',
  '::ffff:10.0.0.1', '::ffff:192.168.0.1', '::ffff:7f00:1',
]
const PUBLIC = ['193.0.6.139', '8.8.8.8', '81.2.69.160', '172.15.255.255', '172.32.0.1', '192.169.0.1', '100.128.0.1', '2001:67c:2e8::1', '2001:620::1', '2c0f:f668::1', '::ffff:193.0.6.139', '2001:db9::1', 'fbff::1', '2a00:1450:4001::1']
const NOT_ADDRESSES = ['', 'unknown', '1.2.3', '1.2.3.4.5', '256.1.1.1', '01.2.3.4', '1.2.3.04', '1::2::3', ':1::2', '1:2:3:4:5:6:7:8:9', '12345::1', 'fe80::1%eth0', '::ffff:1.2.3.256', 'g::1', '1.2.3.4 ']

test('private, loopback, link-local, documentation and multicast addresses are not placeable; public ones are', () => {
  for (const address of PRIVATE_AND_DOCUMENTATION) expect([address, placeableAddress(address)]).toEqual([address, false])
  for (const address of PUBLIC) expect([address, placeableAddress(address)]).toEqual([address, true])
  for (const text of NOT_ADDRESSES) expect([text, placeableAddress(text)]).toEqual([text, false])
})

test('the UI judges every address as the service does, at the edges of each special-purpose range too', () => {
  const edges = (network: string, prefix: number, family: 4 | 6): string[] => {
    if (family === 4) {
      const start = network.split('.').reduce((value, byte) => value * 256 + Number(byte), 0)
      const size = 2 ** (32 - prefix)
      return [start - 1, start, start + size - 1, start + size].filter((value) => value >= 0 && value < 2 ** 32).map((value) => [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.'))
    }
    const words = ipv6Words(network)
    const start = words.reduce((value, word) => (value << 16n) | BigInt(word), 0n)
    const size = 1n << BigInt(128 - prefix)
    return [start - 1n, start, start + size - 1n, start + size].filter((value) => value >= 0n && value < 1n << 128n).map((value) => Array.from({ length: 8 }, (_, index) => ((value >> BigInt(112 - index * 16)) & 0xffffn).toString(16)).join(':'))
  }
  const samples = [
    ...PRIVATE_AND_DOCUMENTATION, ...PUBLIC, ...NOT_ADDRESSES,
    ...NOT_PUBLIC_IPV4.flatMap(([network, prefix]) => edges(network, prefix, 4)),
    ...NOT_PUBLIC_IPV6.flatMap(([network, prefix]) => edges(network, prefix, 6)),
  ]
  expect(samples.length).toBeGreaterThan(100)
  for (const sample of samples) expect([sample, placeableAddress(sample)]).toEqual([sample, checkAddress(sample).kind === 'public'])
})

/** The eight 16-bit words of an IPv6 network written with `::`. */
function ipv6Words(network: string): number[] {
  const [head = '', tail = ''] = network.split('::')
  const left = head ? head.split(':') : []
  const right = tail ? tail.split(':') : []
  return [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right].map((word) => parseInt(word, 16))
}
