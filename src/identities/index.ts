// GET /api/identities (admin-api.md "Identities"). The gate has already required an admin
// session; this plugin only reads the query and maps the service's answer to HTTP.

import { Elysia } from 'elysia'
import type { Services } from '../services.ts'
import { ApiError } from '../http/errors.ts'
import { requestIdOf, sessionOf } from '../http/request-context.ts'
import { IdentitiesService } from './service.ts'

export function identitiesRoutes(services: Pick<Services, 'log' | 'clock' | 'audit' | 'managedStore'>) {
  const { log, clock, audit } = services
  const store = services.managedStore
  const identities = new IdentitiesService({ store, log, clock, audit })

  return new Elysia({ name: 'identities' }).get('/api/identities', async ({ request }) => {
    const admin = sessionOf(request)
    // The raw query, not Elysia's parsed one: repeated parameters must be seen to be refused.
    const outcome = await identities.search(new URL(request.url).searchParams, admin.sub, requestIdOf(request))
    if (!outcome.ok) throw new ApiError(outcome.code, outcome.message === undefined ? {} : { message: outcome.message })
    return outcome.page
  })
}
