// /api/security/** (admin only, enforced by the gate).

import { Elysia, t } from 'elysia'
import type { Services } from '../app.ts'
import { sessionOf } from '../http/request-context.ts'

export function securityRoutes(services: Services) {
  return new Elysia({ name: 'security' }).post(
    '/api/security/sessions/revoke',
    ({ body, request }) => {
      const actor = sessionOf(request).sub
      services.endSessionsOf(body.identity_id)
      services.audit.record('sessions_revoke', actor, body.identity_id)
      return new Response(null, { status: 204 })
    },
    { body: t.Object({ identity_id: t.String({ minLength: 1, maxLength: 128 }) }) },
  )
}
