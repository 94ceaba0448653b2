// What the handling of one request learned that its log line should carry (the session subject,
// an error code, an upstream failure class), and, for streamed answers, when the body really ended.
// Handlers note; the server writes the one line per request (server.ts).

import type { BodyEnd } from '../log.ts'
import { recorded, stateOf } from './request-context.ts'

export interface RequestNotes {
  /** The session's identity id, when the request had one. */
  subject?: string
  /** The envelope's error code, when the answer was an error. */
  error?: string
  /** How an upstream call failed: timeout | unreachable | invalid_response | rejected. */
  upstream_failure?: string
  /** For a proxied answer read whole before it was sent: it is complete, with this many bytes. */
  body?: 'complete'
  body_bytes?: number
  /**
   * For an answer whose body is still streaming when the handler returns (the proxy): settles when
   * the body has been sent or has failed, with fields that correct the line (e.g. `body: 'incomplete'`).
   * The request's log line waits for it, so its status and duration tell what really happened.
   */
  completion?: Promise<BodyEnd>
}

export function noteOn(request: Request, fields: RequestNotes): void {
  const state = stateOf(request)
  if (state.notes) Object.assign(state.notes, fields)
  else state.notes = { ...fields }
}

export function notesOf(request: Request): RequestNotes | undefined {
  return recorded(request)?.notes
}
