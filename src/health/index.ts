import { Elysia } from 'elysia'
import { missingLoginVariables, type Config } from '../config.ts'
import { FRESHNESS_WINDOW_MS, type Storage } from '../db/storage.ts'
import type { DirectHandler } from '../http/direct.ts'
import { errorResponse } from '../http/errors.ts'
import { prepared } from '../http/plain-answer.ts'
import type { RevocationStore } from '../session/revocations.ts'
import { NEWS_WAIT_MS } from '../session/verifier.ts'

/** The answer while all is well: always the same, so its JSON text is made once. */
const HEALTHY = prepared({ status: 'ok' })

/**
 * GET /api/health (decisions §2): 200 when login is configured and the database is usable: it
 * answers, and this process has read every change made to it (another replica's sign-out, say)
 * within FRESHNESS_WINDOW_MS. Without the second the gate refuses every signed-in request (503):
 * a replica whose change feed cannot reach the database (its own connections refused, all slots
 * taken) answers a balancer's probe 503 too, rather than being kept in the rotation. A balancer may
 * probe thousands of times a second: a database that answered within the last FRESHNESS_WINDOW_MS
 * is not asked again (a failed answer is never remembered).
 */
export function healthAnswer(config: Config, storage: Storage, revocations: Pick<RevocationStore, 'vouches' | 'nextNews'>): DirectHandler {
  const missing = missingLoginVariables(config)
  let answeredAt = Number.NEGATIVE_INFINITY
  const fresh = () => performance.now() - answeredAt < FRESHNESS_WINDOW_MS
  const askDatabase = async () => {
    if (!(await storage.ping())) return errorResponse('not_configured', { message: 'The database is not usable.' })
    // As the gate does: the feed's next check (due within a fifth of a second) is waited for.
    if (!revocations.vouches()) await revocations.nextNews(NEWS_WAIT_MS)
    if (!revocations.vouches()) return errorResponse('not_configured', { message: CHANGES_UNREAD })
    answeredAt = performance.now()
    return HEALTHY
  }
  // Answered without a promise while the last answer is fresh: nearly every probe.
  return () => {
    if (missing.length > 0) {
      return errorResponse('not_configured', { message: `Missing configuration: ${missing.join(', ')}.` })
    }
    return fresh() && revocations.vouches() ? HEALTHY : askDatabase()
  }
}

const CHANGES_UNREAD = 'The database is not usable: the changes made to it cannot be read, so signed-in requests are refused.'

/** The route in Elysia (HEAD, the trailing slash, the OpenAPI document); GET is answered by the direct lane first (app.ts). */
export function healthRoutes(answer: DirectHandler) {
  return new Elysia({ name: 'health' }).get('/api/health', ({ request }) => answer(request))
}
