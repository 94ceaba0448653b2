// What the gate learned about a request, for the handlers that run after it.

import type { SessionPayload } from '../session/cookie.ts'
import { ApiError } from './errors.ts'

const sessions = new WeakMap<Request, SessionPayload>()

export function attachSession(request: Request, session: SessionPayload): void {
  sessions.set(request, session)
}

/** The session the gate verified. A handler behind a session rule that finds none is a bug: fail closed. */
export function sessionOf(request: Request): SessionPayload {
  const session = sessions.get(request)
  if (!session) throw new ApiError('not_authenticated')
  return session
}

/** The path as sent (after Bun's own dot-segment resolution); Elysia's ctx.path is wrong for short Host headers. */
export function pathnameOf(request: Request): string {
  const url = request.url
  const start = url.indexOf('/', url.indexOf('//') + 2)
  if (start < 0) return '/'
  const end = url.indexOf('?', start)
  return end < 0 ? url.slice(start) : url.slice(start, end)
}
