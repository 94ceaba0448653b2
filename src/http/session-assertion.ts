// Defence in depth behind the gate: every handler of a session or admin route asserts that the
// gate attached a session fit for that route. The route is judged from the pattern the router
// dispatched to, not from the request path, so a future disagreement between the gate's path and
// the router's path fails closed (500) instead of serving data.

import { accessOfRoute, requirementOf, type Requirement } from './access.ts'
import { ApiError } from './errors.ts'
import { attachedSession, requestIdOf } from './request-context.ts'
import type { Logger } from '../log.ts'

export function createSessionAssertion(log: Logger) {
  const requirements = new Map<string, Requirement>()
  const requirementFor = (route: string): Requirement => {
    let requirement = requirements.get(route)
    if (requirement === undefined) {
      requirement = requirementOf(accessOfRoute(route))
      requirements.set(route, requirement)
    }
    return requirement
  }
  return ({ request, route }: { request: Request; route: string }): void => {
    const requirement = requirementFor(route)
    if (requirement === 'none') return
    const session = attachedSession(request)
    if (session && (requirement === 'session' || session.role === 'admin')) return
    // A bug, never an expected outcome: the suite fails on this line (test/support/service.ts).
    log.error('handler_without_session', { request_id: requestIdOf(request), route, method: request.method })
    throw new ApiError('internal_error')
  }
}
