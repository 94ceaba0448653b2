// The page tokens behind Previous page travel in the URL's `trail`: any token comes back as it
// went, whatever it holds, and the trails written before tokens were escaped read as they did.
import { expect, test } from 'bun:test'
import { readTrail, writeTrail } from '../ui/components/trail.ts'

test('any tokens come back as they went, the first page (empty) included', () => {
  const tokens = [
    '',
    '7f0c3c6e-1d3a-4b8e-9a1f-2f6c2b1e9d40',
    'Y3JlYXRlZF9hdD0yMDI2LTAxLTAy',
    'q83vEjRWeJq83vEjRWeJq83vEjRWeJq83vEjRWeJq83vEjRWeJq83vEjRWeJ-_w=',
    'a~b',
    '~',
    '.',
    '..',
    '%7E',
    '%2E',
    '%25',
    '%',
    'x.y',
    'é ü',
  ]
  expect(readTrail(writeTrail(tokens))).toEqual(tokens)
  for (const token of tokens) expect(readTrail(writeTrail([token]))).toEqual([token])
})

test('no tokens is no trail, and no trail is no tokens', () => {
  expect(writeTrail([])).toBeNull()
  expect(readTrail(null)).toEqual([])
  expect(readTrail('')).toEqual([])
})

test('a trail written before tokens were escaped reads as before', () => {
  expect(readTrail('.~7f0c3c6e-1d3a-4b8e-9a1f-2f6c2b1e9d40~Y3JlYXRlZF9hdD0yMDI2LTAxLTAy')).toEqual(['', '7f0c3c6e-1d3a-4b8e-9a1f-2f6c2b1e9d40', 'Y3JlYXRlZF9hdD0yMDI2LTAxLTAy'])
  expect(writeTrail(['', 'q83vEjRWeJ-_w='])).toBe('.~q83vEjRWeJ-_w=')
})
