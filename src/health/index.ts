import { Elysia } from 'elysia'
import { missingLoginVariables, type Config } from '../config.ts'
import type { Storage } from '../db/storage.ts'
import { errorResponse } from '../http/errors.ts'

/** GET /api/health (decisions §2): 200 when login is configured and the database answers. */
export function healthRoutes(config: Config, storage: Storage) {
  const missing = missingLoginVariables(config)
  return new Elysia({ name: 'health' }).get('/api/health', async () => {
    if (missing.length > 0) {
      return errorResponse('not_configured', { message: `Missing configuration: ${missing.join(', ')}.` })
    }
    if (!(await storage.ping())) return errorResponse('not_configured', { message: 'The database is not usable.' })
    return { status: 'ok' }
  })
}
