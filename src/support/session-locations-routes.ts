// GET /api/session-locations?days=N (any signed-in role).

import { Elysia } from 'elysia'
import type { Services } from '../services.ts'
import { ApiError } from '../http/errors.ts'
import type { GeoLocator } from './geo.ts'
import { integerParam } from '../http/query.ts'
import { SessionLocationsService } from './session-locations.ts'

/** `days`: how far back the map looks (decisions §9). */
export const DAYS_PARAMETER = { min: 1, max: 365, fallback: 30 } as const

export function sessionLocationsRoutes(services: Pick<Services, 'log' | 'clock' | 'managedStore' | 'config'>, geo: GeoLocator) {
  const { log, clock } = services
  const store = services.managedStore
  const locations = new SessionLocationsService({ store, geo, clock, log, walkMs: services.config.proxyTimeoutMs })

  return new Elysia({ name: 'support-session-locations' }).get('/api/session-locations', async ({ request }) => {
    const days = integerParam(request, 'days', DAYS_PARAMETER)
    const outcome = await locations.points(days, request.signal)
    if (!outcome.ok) throw new ApiError(outcome.code, outcome.message === undefined ? {} : { message: outcome.message })
    return outcome.answer
  })
}
