// GET /api/config (admin only, enforced by the gate).

import { Elysia } from 'elysia'
import type { Services } from '../services.ts'
import { describeConfig } from './runtime-config.ts'

export function configRoutes(services: Pick<Services, 'config'>) {
  const described = describeConfig(services.config)
  return new Elysia({ name: 'support-config' }).get('/api/config', () => described)
}
