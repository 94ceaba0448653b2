import { Elysia } from 'elysia'
import type { Database } from 'bun:sqlite'
import { missingLoginVariables, type Config } from '../config.ts'
import { databaseUsable } from '../db/database.ts'
import { errorResponse } from '../http/errors.ts'

/** GET /api/health (decisions §2): 200 when login is configured and the database answers. */
export function healthRoutes(config: Config, db: Database) {
  const missing = missingLoginVariables(config)
  return new Elysia({ name: 'health' }).get('/api/health', () => {
    if (missing.length > 0) {
      return errorResponse('not_configured', { message: `Missing configuration: ${missing.join(', ')}.` })
    }
    if (!databaseUsable(db)) return errorResponse('not_configured', { message: 'The database is not usable.' })
    return { status: 'ok' }
  })
}
