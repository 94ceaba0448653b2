// Special-purpose ranges (IANA IPv4/IPv6 special-purpose registries): private, loopback,
// link-local, documentation, multicast… Nothing in them can be placed on a map. The geo lookup
// refuses them (ip-address.ts), and the UI asks it about none of them. Plain data, so that the
// browser bundle can read it too.

export const NOT_PUBLIC_IPV4: readonly (readonly [network: string, prefix: number])[] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
]

export const NOT_PUBLIC_IPV6: readonly (readonly [network: string, prefix: number])[] = [
  ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible block
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['3fff::', 20], // documentation (RFC 9637)
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
]
