// GET /api/connections/social (public, read-only).

import { Elysia } from 'elysia'
import type { Services } from '../services.ts'
import { SocialConnections } from './social.ts'

export function socialRoutes(services: Pick<Services, 'clock' | 'config' | 'settings'>) {
  const social = new SocialConnections(services.settings, services.clock, services.config.settingsCacheTtlSeconds)
  return new Elysia({ name: 'support-social' }).get('/api/connections/social', async () => ({ providers: await social.providers() }))
}
