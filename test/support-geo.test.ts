// GET /api/geo: the embedded DB-IP country database, IPv4 and IPv6, refusal of what is not a
// public address, and a richer database through GEOIP_DATABASE_PATH.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startStack, type Stack } from './support/stack.ts'
import { writeMmdb } from './support/mmdb.ts'
import { checkAddress } from '../src/support/ip-address.ts'
import centres from '../src/support/country-centres.json' with { type: 'json' }
import { deriveCountryCentres } from '../scripts/country-centres.ts'

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
})
afterAll(async () => {
  await stack.stop()
})

async function geo(ip: string | null, cookie: string | null = stack.cookie.viewer, target = stack) {
  const query = ip === null ? '' : `?ip=${encodeURIComponent(ip)}`
  const response = await fetch(`${target.service.url}/api/geo${query}`, { headers: cookie ? { cookie } : {} })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

const centre = (code: string) => {
  const [, lat, lng] = (centres as unknown as Record<string, [string, number, number]>)[code]!
  return { lat, lng }
}

// Addresses of national research networks, registries and hosting providers whose country is
// stable in DB-IP's data (checked against the embedded release).
const KNOWN: [string, string][] = [
  ['193.0.6.139', 'NL'],
  ['129.132.0.1', 'CH'],
  ['133.242.0.1', 'JP'],
  ['200.160.0.1', 'BR'],
  ['132.230.0.1', 'DE'],
  ['196.216.2.1', 'ZA'],
  ['2001:67c:2e8::1', 'NL'],
  ['2001:620::1', 'CH'],
  ['2001:200::1', 'JP'],
  ['2001:12ff::1', 'BR'],
  ['2001:41d0::1', 'FR'],
  ['2c0f:f668::1', 'ZA'],
]

describe('happy path', () => {
  for (const [ip, country] of KNOWN) {
    test(`${ip} is in ${country}, placed at the country's centre`, async () => {
      const { status, body } = await geo(ip)
      expect(status).toBe(200)
      expect(body).toMatchObject({ ip, country, ...centre(country) })
      expect(typeof body.country_name).toBe('string')
      expect(body.city).toBeUndefined()
    })
  }

  test('an IPv4-mapped IPv6 address is read as its IPv4 address', async () => {
    const { status, body } = await geo('::ffff:193.0.6.139')
    expect(status).toBe(200)
    expect(body.country).toBe('NL')
  })

  test('upper-case IPv6 is accepted', async () => {
    const { status, body } = await geo('2001:67C:2E8::1')
    expect(status).toBe(200)
    expect(body).toMatchObject({ ip: '2001:67c:2e8::1', country: 'NL' })
  })

  test('an admin may ask too', async () => {
    expect((await geo('193.0.6.139', stack.cookie.admin)).status).toBe(200)
  })
})

describe('errors', () => {
  test('anonymous → 401', async () => {
    const { status, body } = await geo('193.0.6.139', null)
    expect(status).toBe(401)
    expect(body.error).toBe('not_authenticated')
  })

  for (const ip of ['', 'abc', '1.2.3', '256.1.1.1', '01.2.3.4', '1.2.3.4 ', '1::2::3', 'fe80::1%eth0', '2001:db8::1/64', '1'.repeat(46), 'ff:'.repeat(20)]) {
    test(`${JSON.stringify(ip.slice(0, 20))} → 400 bad_request`, async () => {
      const { status, body } = await geo(ip)
      expect(status).toBe(400)
      expect(body.error).toBe('bad_request')
    })
  }

  test('a missing or repeated ip parameter → 400', async () => {
    expect((await geo(null)).status).toBe(400)
    const repeated = await fetch(`${stack.service.url}/api/geo?ip=193.0.6.139&ip=10.0.0.1`, { headers: { cookie: stack.cookie.viewer } })
    expect(repeated.status).toBe(400)
    expect(((await repeated.json()) as { error: string }).error).toBe('bad_request')
  })

  for (const ip of ['10.0.0.1', '127.0.0.1', '169.254.1.1', '172.16.5.4', '192.168.1.1', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '203.0.113.5', '::1', '::', 'fe80::1', 'fd12:3456::1', '2001:db8::1', '3fff::1', 'ff02::1', '::ffff:10.0.0.1']) {
    test(`${ip} (not a public address) → 404 not_found`, async () => {
      const { status, body } = await geo(ip)
      expect(status).toBe(404)
      expect(body.error).toBe('not_found')
    })
  }

  test('a public address the database does not know → 404', async () => {
    // Global unicast space outside 2000::/3 that no registry has been given.
    expect(checkAddress('4000::1').kind).toBe('public')
    const { status, body } = await geo('4000::1')
    expect(status).toBe(404)
    expect(body.error).toBe('not_found')
  })
})

describe('GEOIP_DATABASE_PATH', () => {
  let dir: string
  let custom: Stack
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'admin-dashboard-geo-'))
    const path = join(dir, 'city.mmdb')
    writeFileSync(
      path,
      writeMmdb([
        {
          network: '81.2.69.0/24',
          record: {
            country: { iso_code: 'FR', names: { en: 'France' } },
            city: { names: { en: 'Lyon' } },
            subdivisions: [{ iso_code: 'ARA', names: { en: 'Auvergne-Rhone-Alpes' } }],
            location: { latitude: 45.75, longitude: 4.85, accuracy_radius: 20 },
          },
        },
        { network: '2001:67c:2e8::/48', record: { country_code: 'NL', city: 'Amsterdam', state1: 'North Holland', latitude: 52.37, longitude: 4.89 } },
        { network: '5.6.7.0/24', record: { country: { iso_code: 'IT' } } },
      ]),
    )
    custom = await startStack({ env: { GEOIP_DATABASE_PATH: path } })
  })
  afterAll(async () => {
    await custom.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  test('a city database gives coordinates, city and region (GeoIP2 records)', async () => {
    const { status, body } = await geo('81.2.69.10', custom.cookie.viewer, custom)
    expect(status).toBe(200)
    expect(body).toEqual({ ip: '81.2.69.10', country: 'FR', country_name: 'France', lat: 45.75, lng: 4.85, city: 'Lyon', region: 'Auvergne-Rhone-Alpes' })
  })

  test('flat ip-location-db city records over IPv6', async () => {
    const { status, body } = await geo('2001:67c:2e8::5', custom.cookie.viewer, custom)
    expect(status).toBe(200)
    expect(body).toMatchObject({ country: 'NL', lat: 52.37, lng: 4.89, city: 'Amsterdam', region: 'North Holland' })
  })

  test('a record without coordinates falls back to the country centre', async () => {
    const { body } = await geo('5.6.7.8', custom.cookie.viewer, custom)
    expect(body).toMatchObject({ country: 'IT', ...centre('IT') })
  })

  test('/api/config says the custom database answers', async () => {
    const answer = await fetch(`${custom.service.url}/api/config`, { headers: { cookie: custom.cookie.admin } })
    expect(((await answer.json()) as { geo_database: string }).geo_database).toBe('custom')
  })

  test('the embedded database no longer answers: what the custom one lacks is unknown', async () => {
    expect((await geo('193.0.6.139', custom.cookie.viewer, custom)).status).toBe(404)
  })

  test('an unreadable file is logged and the embedded database answers instead', async () => {
    const broken = await startStack({ env: { GEOIP_DATABASE_PATH: join(dir, 'missing.mmdb') } })
    try {
      const { status, body } = await geo('193.0.6.139', broken.cookie.viewer, broken)
      expect(status).toBe(200)
      expect(body.country).toBe('NL')
      expect(broken.service.logLines.some((line) => line.includes('"geoip_database_unreadable"'))).toBe(true)
      expect(broken.service.logLines.join('')).not.toContain('missing.mmdb')
      // And /api/config says which answers: the embedded one, not the file configured.
      const answer = await fetch(`${broken.service.url}/api/config`, { headers: { cookie: broken.cookie.admin } })
      expect(((await answer.json()) as { geo_database: string }).geo_database).toBe('embedded')
    } finally {
      await broken.stop()
    }
  })
})

test('the country-centre table is what scripts/country-centres.ts derives from world-countries', () => {
  expect(centres as unknown).toEqual(deriveCountryCentres())
})
