// A form's draft kept through the sign-in. When the session has ended, a Save goes to the sign-in
// and back; the draft of the form that sent it is kept in sessionStorage (this tab only), under the
// signed-in identity, and the form on the same page opens with it again. Never a secret: what
// must not be stored (a password, a value to be encrypted) is left out, and the notice says so.
import { location } from './router.ts'
import { user } from './session.ts'

const PREFIX = 'admin-dashboard.draft:'

/**
 * What a form would lose if its change were refused: `data` to open with again (null: nothing can
 * be kept), and `unkept` naming what is left out because it is never stored ("the initial password").
 */
export interface Draft {
  data: unknown
  unkept?: string
}

interface Stored {
  /** The page's path: the form opens with it only there. */
  page: string
  form: string
  data: unknown
}

/** The form whose change is being sent now, with its draft. */
let sending: { form: string; page: string; draft: Draft } | null = null

/**
 * Sends a form's change (`send`, every request of it: a read before the write too). Should the
 * session be found gone meanwhile, the app keeps `draft` for the way back (`keepSendingDraft`).
 */
export async function sendingDraft<T>(form: string, draft: Draft, send: () => Promise<T>): Promise<T> {
  const mine = { form, page: window.location.pathname, draft }
  sending = mine
  try {
    return await send()
  } finally {
    if (sending === mine) sending = null
  }
}

/**
 * On the way to the sign-in after a change was refused: keeps the draft of the form that sent it.
 * What the lost-write notice adds about it: a sentence, or null when no form of these sent it.
 */
export function keepSendingDraft(): string | null {
  const owner = user.peek()?.identityId
  if (!sending || !owner) return null
  const { form, page, draft } = sending
  if (draft.data === null) return draft.unkept ? `${capital(draft.unkept)} is never kept in the browser, so the draft was not kept: make the change again.` : null
  try {
    sessionStorage.setItem(PREFIX + owner, JSON.stringify({ page, form, data: draft.data } satisfies Stored))
  } catch {
    // Storage full or refused: said as not kept.
    return null
  }
  return draft.unkept
    ? `Your draft was kept, except ${draft.unkept}, which is never kept in the browser: type it again, check the rest and save again.`
    : 'Your draft was kept; check it and save again.'
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)

/**
 * The draft kept for `form` on the page shown, for the identity signed in; taken (dropped from the
 * storage) as it is returned. Call it once, as the form is first drawn.
 */
export function takeDraft(form: string): unknown {
  const owner = user.peek()?.identityId
  if (!owner) return null
  const stored = read(owner)
  if (!stored || stored.page !== window.location.pathname || stored.form !== form) return null
  sessionStorage.removeItem(PREFIX + owner)
  return stored.data
}

function read(owner: string): Stored | null {
  try {
    const stored = JSON.parse(sessionStorage.getItem(PREFIX + owner) ?? 'null') as Stored | null
    return stored && typeof stored.page === 'string' && typeof stored.form === 'string' ? stored : null
  } catch {
    return null
  }
}

/** Drops every kept draft (signed out). */
export function dropDrafts(): void {
  for (let i = sessionStorage.length - 1; i >= 0; i--) {
    const key = sessionStorage.key(i)
    if (key?.startsWith(PREFIX)) sessionStorage.removeItem(key)
  }
}

/**
 * As `owner` is found signed in: another identity's drafts are dropped (they never reach another
 * person's session), and so is `owner`'s own when the sign-in has landed on another page than its.
 */
export function draftsFor(owner: string): void {
  const own = read(owner)
  dropDrafts()
  if (own && own.page === window.location.pathname) sessionStorage.setItem(PREFIX + owner, JSON.stringify(own))
}

// A draft is for its page: leaving that page without it being opened drops it.
location.subscribe(({ path }) => {
  const owner = user.peek()?.identityId
  if (!owner) return
  const stored = read(owner)
  if (stored && stored.page !== path) sessionStorage.removeItem(PREFIX + owner)
})
