// Writes small MaxMind DB (MMDB v2) files for tests: an IPv6 search tree with 24-bit records,
// IPv4 networks placed under ::/96 as the format expects, and the data types a GeoIP2 city
// record uses (maps, strings, doubles, unsigned integers, arrays).

import { isIP } from 'node:net'

export type MmdbValue = string | number | boolean | MmdbValue[] | { [key: string]: MmdbValue }

export interface MmdbNetwork {
  /** `a.b.c.d/len` or `ipv6::/len`. */
  network: string
  record: { [key: string]: MmdbValue }
}

const EMPTY = -1
type Slot = { node: number } | { data: number } | typeof EMPTY

export function writeMmdb(networks: MmdbNetwork[], databaseType = 'Test-City'): Uint8Array {
  const nodes: [Slot, Slot][] = [[EMPTY, EMPTY]]
  const data: number[] = []
  for (const { network, record } of networks) {
    const bits = networkBits(network)
    const offset = data.length
    data.push(...encode(record))
    let node = 0
    bits.forEach((bit, depth) => {
      const slots = nodes[node]!
      if (depth === bits.length - 1) {
        slots[bit] = { data: offset }
        return
      }
      const next = slots[bit]!
      if (next !== EMPTY && 'node' in next) {
        node = next.node
      } else {
        nodes.push([EMPTY, EMPTY])
        slots[bit] = { node: nodes.length - 1 }
        node = nodes.length - 1
      }
    })
  }
  const nodeCount = nodes.length
  const value = (slot: Slot) => (slot === EMPTY ? nodeCount : 'node' in slot ? slot.node : nodeCount + 16 + slot.data)
  const tree: number[] = []
  for (const [left, right] of nodes) for (const slot of [left, right]) tree.push(...uintBytes(value(slot), 3))
  const metadata = encode({
    node_count: nodeCount,
    record_size: 24,
    ip_version: 6,
    database_type: databaseType,
    languages: ['en'],
    binary_format_major_version: 2,
    binary_format_minor_version: 0,
    build_epoch: 1_700_000_000,
    description: { en: 'test database' },
  })
  const marker = [0xab, 0xcd, 0xef, ...new TextEncoder().encode('MaxMind.com')]
  return new Uint8Array([...tree, ...new Array<number>(16).fill(0), ...data, ...marker, ...metadata])
}

function networkBits(network: string): number[] {
  const [address = '', lengthText = ''] = network.split('/')
  const length = Number(lengthText)
  const family = isIP(address)
  let bytes: number[]
  if (family === 4) bytes = [...new Array<number>(12).fill(0), ...address.split('.').map(Number)]
  else if (family === 6) bytes = ipv6Bytes(address)
  else throw new Error(`not a network: ${network}`)
  const prefix = family === 4 ? 96 + length : length
  const bits: number[] = []
  for (let i = 0; i < prefix; i++) bits.push((bytes[i >> 3]! >> (7 - (i & 7))) & 1)
  return bits
}

function ipv6Bytes(address: string): number[] {
  const [head = '', tail] = address.split('::')
  const left = head === '' ? [] : head.split(':')
  const right = tail === undefined || tail === '' ? [] : tail.split(':')
  const words = [...left, ...new Array<string>(8 - left.length - right.length).fill('0'), ...right]
  return words.flatMap((word) => {
    const value = parseInt(word, 16)
    return [value >> 8, value & 0xff]
  })
}

function uintBytes(value: number, width?: number): number[] {
  const bytes: number[] = []
  let rest = value
  while (rest > 0) {
    bytes.unshift(rest % 256)
    rest = Math.floor(rest / 256)
  }
  while (width !== undefined && bytes.length < width) bytes.unshift(0)
  return bytes
}

function control(type: number, size: number): number[] {
  const sizeBytes = size < 29 ? [] : size < 285 ? [size - 29] : uintBytes(size - 285, 2)
  const sizeBits = size < 29 ? size : size < 285 ? 29 : 30
  if (size >= 65_821) throw new Error('value too large for this writer')
  return type <= 7 ? [(type << 5) | sizeBits, ...sizeBytes] : [sizeBits, type - 7, ...sizeBytes]
}

function encode(value: MmdbValue): number[] {
  if (typeof value === 'string') {
    const bytes = [...new TextEncoder().encode(value)]
    return [...control(2, bytes.length), ...bytes]
  }
  if (typeof value === 'boolean') return control(14, value ? 1 : 0)
  if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= 0 && value < 2 ** 32) {
      const bytes = uintBytes(value)
      return [...control(value < 2 ** 16 ? 5 : 6, bytes.length), ...bytes]
    }
    const view = new DataView(new ArrayBuffer(8))
    view.setFloat64(0, value)
    return [...control(3, 8), ...new Uint8Array(view.buffer)]
  }
  if (Array.isArray(value)) return [...control(11, value.length), ...value.flatMap(encode)]
  const entries = Object.entries(value)
  return [...control(7, entries.length), ...entries.flatMap(([key, inner]) => [...encode(key), ...encode(inner)])]
}
