// /api/security/** (admin only, enforced by the gate).

import { Elysia, t } from 'elysia'
import type { Services } from '../services.ts'
import { refuseUnknownFields } from '../http/body.ts'
import { ApiError } from '../http/errors.ts'
import { requestIdOf, sessionOf } from '../http/request-context.ts'
import { parseAuditQuery } from './audit-query.ts'
import { postureChecks } from './posture.ts'

// Another field (a misspelt `identity_id`) is refused, not dropped: the document says the body has no other.
const revokeBody = t.Object(
  // No control characters: no identity id has them, and PostgreSQL's text cannot hold U+0000.
  { identity_id: t.String({ minLength: 1, maxLength: 128, pattern: '^[^\\u0000-\\u001f\\u007f-\\u009f]+$' }) },
  { additionalProperties: false },
)

export function securityRoutes(services: Pick<Services, 'audit' | 'config' | 'endSessionsOf'>) {
  const checks = postureChecks(services.config)
  return new Elysia({ name: 'security' })
    .post(
      '/api/security/sessions/revoke',
      async ({ body, request }) => {
        const actor = sessionOf(request).sub
        // The revocation and its audit event are one transaction: a 503 means neither was done.
        await services.endSessionsOf(body.identity_id, { actor, requestId: requestIdOf(request) })
        return new Response(null, { status: 204 })
      },
      { body: revokeBody, transform: ({ body }) => refuseUnknownFields(body, revokeBody.properties) },
    )
    // Newest first; `next_before` is the cursor for the next (older) page, null on the last one.
    .get('/api/security/audit', async ({ request }) => {
      const parsed = parseAuditQuery(new URL(request.url).searchParams)
      if (!parsed.ok) throw new ApiError('bad_request', { message: `Invalid query parameter: ${parsed.field}.` })
      const { limit } = parsed.query
      // One more than asked tells whether an older page exists.
      const rows = await services.audit.list({ ...parsed.query, limit: limit + 1 })
      const events = rows.slice(0, limit)
      return { events, next_before: rows.length > limit ? events[events.length - 1]!.id : null }
    })
    .get('/api/security/posture', () => ({ checks }))
}
