// The page tokens behind Previous page travel in the URL's `trail`: any token comes back as it
// went, whatever it holds, and the trails written before tokens were escaped read as they did. A
// trail stays short enough for a URL the service accepts, however deep the list is paged, and the
// page number stays right when its oldest tokens give way.
import { expect, test } from 'bun:test'
import { MOST_TRAIL_CHARACTERS, readTrail, trailPaging, writeTrail } from '../ui/components/trail.ts'

const kept = (tokens: string[]) => ({ dropped: 0, tokens })

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
    '%+3',
    '+3',
    'x.y',
    'é ü',
  ]
  expect(readTrail(writeTrail(kept(tokens)))).toEqual(kept(tokens))
  for (const token of tokens) expect(readTrail(writeTrail(kept([token])))).toEqual(kept([token]))
  expect(readTrail(writeTrail({ dropped: 12, tokens }))).toEqual({ dropped: 12, tokens })
})

test('no tokens is no trail, and no trail is no tokens', () => {
  expect(writeTrail(kept([]))).toBeNull()
  expect(readTrail(null)).toEqual(kept([]))
  expect(readTrail('')).toEqual(kept([]))
})

test('a trail written before tokens were escaped reads as before', () => {
  expect(readTrail('.~7f0c3c6e-1d3a-4b8e-9a1f-2f6c2b1e9d40~Y3JlYXRlZF9hdD0yMDI2LTAxLTAy')).toEqual(kept(['', '7f0c3c6e-1d3a-4b8e-9a1f-2f6c2b1e9d40', 'Y3JlYXRlZF9hdD0yMDI2LTAxLTAy']))
  expect(writeTrail(kept(['', 'q83vEjRWeJ-_w=']))).toBe('.~q83vEjRWeJ-_w=')
})

test('paging forward 500 times with long tokens: the trail stays under its bound, the page number counts every page, Previous walks back through what is kept and then leads to the first page', () => {
  const tokenOf = (page: number) => `${String(page).padStart(4, '0')}-${'s'.repeat(250)}`
  let trail: string | null = null
  let token = ''
  for (let page = 1; page <= 500; page++) {
    const place = trailPaging(trail, token)
    expect(place.page).toBe(page)
    const next = place.next(tokenOf(page + 1))
    expect(next.trail!.length).toBeLessThanOrEqual(MOST_TRAIL_CHARACTERS)
    trail = next.trail
    token = next.page_token
  }
  expect(trailPaging(trail, token).page).toBe(501)

  // Back, page by page, while the trail holds the page before.
  let page = 501
  for (;;) {
    const previous = trailPaging(trail, token).previous!
    if (previous.first) break
    page--
    expect(previous.page_token).toBe(tokenOf(page))
    trail = previous.trail
    token = previous.page_token!
    expect(trailPaging(trail, token).page).toBe(page)
  }
  expect(page).toBeLessThan(501 - 10)
  expect(page).toBeGreaterThan(2)
  // Then to the first page, named as such.
  expect(trailPaging(trail, token).previous).toEqual({ page_token: null, trail: null, first: true })
  expect(trailPaging(null, '').previous).toBeNull()
})

test('short tokens are all kept: every Previous page is the page before', () => {
  let trail: string | null = null
  let token = ''
  for (let page = 1; page < 100; page++) ({ trail, page_token: token } = trailPaging(trail, token).next(crypto.randomUUID()))
  expect(readTrail(trail).dropped).toBe(0)
  expect(readTrail(trail).tokens).toHaveLength(99)
})
