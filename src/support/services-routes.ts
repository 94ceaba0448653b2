// GET /api/services/health (any signed-in role). Other paths under /api/services/ are the
// router's 404.

import { Elysia } from 'elysia'
import type { Services } from '../services.ts'
import { ServicesHealth } from './services-health.ts'

export function servicesRoutes(services: Pick<Services, 'config' | 'fetch' | 'log' | 'settings'>) {
  const health = new ServicesHealth({
    upstreams: services.config.upstreams,
    apiKeyFor: (prefix) => services.settings.apiKeyFor(prefix),
    timeoutMs: services.config.proxyTimeoutMs,
    fetch: services.fetch,
    log: services.log,
  })
  return new Elysia({ name: 'support-services' }).get('/api/services/health', async () => ({ services: await health.all() }))
}
