// GET /api/geo?ip=ADDR (any signed-in role; the gate has checked the session).

import { Elysia } from 'elysia'
import { ApiError } from '../http/errors.ts'
import type { GeoLocator } from './geo.ts'
import { singleParam } from '../http/query.ts'

export function geoRoutes(geo: GeoLocator) {
  return new Elysia({ name: 'support-geo' }).get('/api/geo', async ({ request }) => {
    const ip = singleParam(request, 'ip')
    if (ip === null || ip === '') throw new ApiError('bad_request', { message: 'Query parameter ip is required.' })
    const answer = await geo.locate(ip)
    if (!answer.ok) {
      if (answer.reason === 'invalid') throw new ApiError('bad_request', { message: 'Query parameter ip is not an IP address.' })
      // Private, loopback, link-local, documentation… and addresses the database does not know.
      throw new ApiError('not_found', { message: 'No location is known for this address.' })
    }
    const { location } = answer
    return {
      ip: answer.ip,
      country: location.country,
      ...(location.countryName === null ? {} : { country_name: location.countryName }),
      lat: location.lat,
      lng: location.lng,
      ...(location.city === undefined ? {} : { city: location.city }),
      ...(location.region === undefined ? {} : { region: location.region }),
    }
  })
}
