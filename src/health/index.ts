import { Elysia } from 'elysia'
import { missingLoginVariables, type Config } from '../config.ts'
import { FRESHNESS_WINDOW_MS, type Storage } from '../db/storage.ts'
import type { DirectHandler } from '../http/direct.ts'
import { errorResponse } from '../http/errors.ts'
import { prepared } from '../http/plain-answer.ts'

/** The answer while all is well: always the same, so its JSON text is made once. */
const HEALTHY = prepared({ status: 'ok' })

/**
 * GET /api/health (decisions §2): 200 when login is configured and the database answers. A
 * balancer may probe it thousands of times a second: a database that answered within the last
 * FRESHNESS_WINDOW_MS is not asked again (a failed answer is never remembered).
 */
export function healthAnswer(config: Config, storage: Storage): DirectHandler {
  const missing = missingLoginVariables(config)
  let answeredAt = Number.NEGATIVE_INFINITY
  const fresh = () => performance.now() - answeredAt < FRESHNESS_WINDOW_MS
  const askDatabase = async () => {
    if (!(await storage.ping())) return errorResponse('not_configured', { message: 'The database is not usable.' })
    answeredAt = performance.now()
    return HEALTHY
  }
  // Answered without a promise while the last answer is fresh: nearly every probe.
  return () => {
    if (missing.length > 0) {
      return errorResponse('not_configured', { message: `Missing configuration: ${missing.join(', ')}.` })
    }
    return fresh() ? HEALTHY : askDatabase()
  }
}

/** The route in Elysia (HEAD, the trailing slash, the OpenAPI document); GET is answered by the direct lane first (app.ts). */
export function healthRoutes(answer: DirectHandler) {
  return new Elysia({ name: 'health' }).get('/api/health', ({ request }) => answer(request))
}
