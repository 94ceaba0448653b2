// GET /api/security/audit parameters: `limit` 1–200 (default 50), `before` (an event id, the
// previous page's `next_before`), `action` (one of the audit actions), `actor` (an identity id,
// printable ASCII), `request_id` (a request's X-Request-Id), `about` (an identity id, a client id or
// a setting key, as the events record it). Numbers are digits only; a parameter given twice or out
// of range is refused.

import type { AuditAction, AuditQuery } from '../audit/audit.ts'

export const DEFAULT_AUDIT_LIMIT = 50
export const REQUEST_ID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/
export const MAX_AUDIT_LIMIT = 200
/** What `about` takes: an id or a key as the events record it, 1–255 characters, no control character (a Hydra client id may hold spaces or letters of any script). */
export const ABOUT_PATTERN = /^[^\p{Cc}]{1,255}$/u

// Typed as a record so a new AuditAction that is not listed here fails to compile. The Audit log's
// Action filter offers them in this order (ui/pages/audit).
export const ACTIONS: Record<AuditAction, true> = {
  login: true,
  logout: true,
  identity_search: true,
  sessions_revoke: true,
  proxy_write: true,
  settings_write: true,
  settings_delete: true,
  settings_decrypt_read: true,
  settings_reencrypt: true,
  audit_prune: true,
}

type AuditQueryResult = { ok: true; query: AuditQuery & { limit: number } } | { ok: false; field: 'limit' | 'before' | 'action' | 'actor' | 'request_id' | 'about' }

export function parseAuditQuery(params: URLSearchParams): AuditQueryResult {
  const single = (name: string): string | null | false => {
    const values = params.getAll(name)
    return values.length > 1 ? false : (values[0] ?? null)
  }

  const limitText = single('limit')
  if (limitText === false) return { ok: false, field: 'limit' }
  let limit = DEFAULT_AUDIT_LIMIT
  if (limitText !== null) {
    if (!/^[0-9]{1,4}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > MAX_AUDIT_LIMIT) return { ok: false, field: 'limit' }
    limit = Number(limitText)
  }

  const beforeText = single('before')
  if (beforeText === false) return { ok: false, field: 'before' }
  let before: number | undefined
  if (beforeText !== null) {
    if (!/^[0-9]{1,15}$/.test(beforeText) || Number(beforeText) < 1) return { ok: false, field: 'before' }
    before = Number(beforeText)
  }

  const actionText = single('action')
  if (actionText === false) return { ok: false, field: 'action' }
  let action: AuditAction | undefined
  if (actionText !== null) {
    if (!Object.hasOwn(ACTIONS, actionText)) return { ok: false, field: 'action' }
    action = actionText as AuditAction
  }

  // An identity id as the events record it; 1–128 printable characters.
  const actorText = single('actor')
  if (actorText === false) return { ok: false, field: 'actor' }
  let actor: string | undefined
  if (actorText !== null) {
    if (!/^[\x21-\x7e]{1,128}$/.test(actorText)) return { ok: false, field: 'actor' }
    actor = actorText
  }

  // The id the service gives every request (a UUID), as the answer's X-Request-Id says it.
  const requestIdText = single('request_id')
  if (requestIdText === false) return { ok: false, field: 'request_id' }
  let requestId: string | undefined
  if (requestIdText !== null) {
    if (!REQUEST_ID_PATTERN.test(requestIdText)) return { ok: false, field: 'request_id' }
    requestId = requestIdText.toLowerCase()
  }

  const aboutText = single('about')
  if (aboutText === false) return { ok: false, field: 'about' }
  let about: string | undefined
  if (aboutText !== null) {
    if (!ABOUT_PATTERN.test(aboutText)) return { ok: false, field: 'about' }
    about = aboutText
  }

  return { ok: true, query: { limit, before, action, actor, requestId, about } }
}
