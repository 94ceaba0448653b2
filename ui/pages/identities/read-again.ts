// The identity read again before a save that sets a list or an object whole, and on Reload (see
// components/changed-meanwhile.tsx).
import { api, unreadable, type ApiFailure, type Identity } from '../../api.ts'
import type { Members } from '../../components/changed-meanwhile.tsx'

/**
 * The identity read again, and the members an edit is of (`pick`: its traits, or its metadata).
 * Nothing is saved when it cannot be read: whether the save would overwrite a change is unknown.
 */
export async function readAgain(
  identityId: string,
  pick: (identity: Identity) => Members | undefined,
  doing: 'save' | 'reload',
): Promise<{ ok: true; identity: Identity; now: Members } | { ok: false; failure: ApiFailure }> {
  // Before a save, the read is part of the change: a session found gone here loses that change.
  const read = await api.identity(identityId, doing === 'save' ? 'change' : 'show')
  const before = doing === 'save' ? 'Nothing was saved: the identity could not be read again to check that it has not changed since the page loaded.' : 'The identity could not be read again.'
  if (!read.ok) {
    const message = read.failure.status === 404 ? 'Kratos no longer has this identity: it was deleted since the page loaded.' : read.failure.message
    return { ok: false, failure: { ...read.failure, message: `${before} ${message}` } }
  }
  const now = pick(read.data)
  if (now === undefined) return unreadable('Kratos', read.requestId, `${before} Kratos answered it without its traits.`)
  return { ok: true, identity: read.data, now }
}
