// Regenerates src/support/country-centres.json from the `world-countries` data (ODbL 1.0):
// ISO 3166-1 alpha-2 code → [common name, latitude, longitude]. Country-level geo databases carry
// no coordinates; this small table places a country on the map without shipping the whole data set.
//
//   bun scripts/country-centres.ts

import countries from 'world-countries'

export type CountryCentres = Record<string, [name: string, lat: number, lng: number]>

export function deriveCountryCentres(): CountryCentres {
  const table: CountryCentres = {}
  for (const country of [...countries].sort((a, b) => (a.cca2 < b.cca2 ? -1 : 1))) {
    const [lat, lng] = country.latlng
    if (lat === undefined || lng === undefined) continue
    table[country.cca2] = [country.name.common, lat, lng]
  }
  return table
}

if (import.meta.main) {
  const target = new URL('../src/support/country-centres.json', import.meta.url)
  const table = deriveCountryCentres()
  await Bun.write(target, JSON.stringify(table).replace(/\],"/g, '],\n"') + '\n')
  console.log(`wrote ${Object.keys(table).length} countries`)
}
