// GET /api/config (admin only, enforced by the gate).

import { Elysia } from 'elysia'
import type { Services } from '../services.ts'
import type { GeoLocator } from './geo.ts'
import { describeConfig } from './runtime-config.ts'

export function configRoutes(services: Pick<Services, 'config'>, geo: GeoLocator) {
  return new Elysia({ name: 'support-config' }).get('/api/config', async () => describeConfig(services.config, await geo.source()))
}
