// GET/PUT /api/dashboard/layout (any signed-in role). The gate has verified the session; the spec
// asks this route to verify the cookie again itself, so a gate rule changed by mistake cannot
// expose or overwrite someone's layout.

import { Elysia } from 'elysia'
import type { Services } from '../services.ts'
import { refuseUnknownFields } from '../http/body.ts'
import { ApiError } from '../http/errors.ts'
import { sessionOf } from '../http/request-context.ts'
import { secureCookies, sessionClearHeaders } from '../session/cookie.ts'
import { checkLayout, LayoutStore } from './layout.ts'

/** The PUT body's one field: another is refused, as the OpenAPI document says. */
const LAYOUT_BODY_FIELDS = { layout: true } as const

export function layoutRoutes(services: Pick<Services, 'clock' | 'storage' | 'verifier' | 'config'>) {
  const layouts = new LayoutStore(services.storage, services.clock)
  const secure = secureCookies(services.config)

  /** The identity of this request, confirmed by the gate's record and by a fresh check of the cookie. */
  const identityOf = async (request: Request): Promise<string> => {
    const fromGate = sessionOf(request)
    const check = await services.verifier.check(request.headers.get('cookie'))
    // A cookie found dead here (revoked since the gate looked) is cleared, as the gate clears one (decisions §5).
    if (!check.ok) throw new ApiError(check.code, check.clearCookie ? { headers: sessionClearHeaders(secure) } : {})
    if (check.session.sub !== fromGate.sub || check.session.sid !== fromGate.sid) throw new ApiError('not_authenticated')
    return check.session.sub
  }

  return new Elysia({ name: 'support-layout' })
    .get('/api/dashboard/layout', async ({ request }) => ({ layout: await layouts.get(await identityOf(request)) }))
    .put('/api/dashboard/layout', async ({ request, body }) => {
      const identityId = await identityOf(request)
      refuseUnknownFields(body, LAYOUT_BODY_FIELDS)
      const layout = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>).layout : undefined
      const checked = checkLayout(layout)
      if (!checked.ok) {
        if (checked.reason === 'too_large') throw new ApiError('payload_too_large', { message: 'The layout is larger than 64 KiB.' })
        throw new ApiError('bad_request', { message: 'Invalid or missing field: layout (must be an object).' })
      }
      await layouts.put(identityId, checked.serialized)
      return { layout: checked.layout }
    })
}
