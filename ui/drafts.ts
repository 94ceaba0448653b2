// Drafts kept through the sign-in. When the session has ended at a change, the app goes to the
// sign-in and back; the drafts of the forms holding unsaved edits are kept in sessionStorage (this
// tab only), under the signed-in identity, and those forms on the same page open with them again.
// Never a secret: what must not be stored (a password, a value to be encrypted) is left out, and
// the lost-write notice says so. The notice belongs to the same identity and page, and goes once
// the drafts it speaks of have been used (saved, discarded), on Sign out, or when someone else
// signs in.
import { signal } from '@preact/signals'
import { location, unsavedForms } from './router.ts'
import { user } from './session.ts'

const PREFIX = 'admin-dashboard.draft:'
const NOTICE = 'admin-dashboard.lost-write'

/**
 * What a form would lose if its change were refused: `data` to open with again (null: nothing can
 * be kept), and `unkept` naming what is left out because it is never stored ("the initial password").
 */
export interface Draft {
  data: unknown
  unkept?: string
}

/** The drafts of one identity, for one page: form → data. */
interface Stored {
  page: string
  forms: Record<string, unknown>
}

/** The lost-write notice as it travels through the sign-in. */
interface StoredNotice {
  owner: string
  page: string
  said: string
  /** The forms whose drafts were kept: the notice goes once each has been used. */
  kept: string[]
  /** Said instead when the sign-in lands on another page, where no form opens with them (null: nothing). */
  elsewhere: string | null
}

/** The lost-write notice shown now (on its page, to its identity), and the kept drafts not yet used. */
export const lostWrite = signal<{ said: string; page: string; awaiting: string[] } | null>(null)

const LOST_WRITE_SAID = 'Your session ended before your last change reached the server: it was not saved.'

/** The form whose change is being sent now, with its draft. */
let sending: { form: string; page: string; draft: Draft } | null = null

/**
 * Sends a form's change (`send`, every request of it: a read before the write too). Should the
 * session be found gone meanwhile, the app keeps `draft` for the way back (`keepDrafts`).
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

/** Drafts ready to be written as the page is left for the sign-in (`write`), and what the notice says. */
export interface KeptDrafts {
  said: string
  /** What the kept drafts are of ("the traits"), besides the form that sent the change. */
  kept: string[]
  write: () => void
}

/**
 * The drafts of the page's forms as the session is found gone: the form that sent the refused change
 * (`refused`), and every other form holding unsaved edits. Nothing is written until `write`, as the
 * page is really left.
 */
export function keepDrafts(refused: boolean): KeptDrafts | null {
  const owner = user.peek()?.identityId
  if (!owner) return null
  const page = window.location.pathname
  const forms: Record<string, unknown> = {}
  const sentences: string[] = []
  const sent = refused && sending?.page === page ? sending : null
  if (refused) sentences.push(LOST_WRITE_SAID)
  if (sent) {
    const { draft } = sent
    if (draft.data === null) sentences.push(draft.unkept ? `${capital(draft.unkept)} is never kept in the browser, so the draft was not kept: make the change again.` : 'Make it again.')
    else {
      forms[sent.form] = draft.data
      sentences.push(
        draft.unkept
          ? `Your draft was kept, except ${draft.unkept}, which is never kept in the browser: type it again, check the rest and save again.`
          : 'Your draft was kept; check it and save again.',
      )
    }
  } else if (refused) sentences.push('Make it again.')
  const kept: string[] = []
  const partly: string[] = []
  const lost: string[] = []
  for (const { what, keep } of unsavedForms()) {
    const draft = keep?.()
    if (draft && draft.form === sent?.form) continue
    if (!draft || draft.data === null) lost.push(what)
    else {
      forms[draft.form] = draft.data
      if (draft.unkept) partly.push(`${what} (all but ${draft.unkept}, which is never kept in the browser)`)
      else kept.push(what)
    }
  }
  const also = [...kept, ...partly]
  if (also.length > 0) sentences.push(`Your unsaved changes to ${listed(also)} were kept${sent && sent.draft.data !== null ? ' too' : ''}: check them and save.`)
  if (lost.length > 0) sentences.push(`Your unsaved changes to ${listed(lost)} were not kept: make them again.`)
  if (!refused && also.length === 0 && lost.length === 0) return null
  if (!refused) sentences.unshift('Your session ended while changes were not saved.')
  const said = sentences.join(' ')
  return {
    said,
    kept: also,
    write: () => {
      try {
        if (Object.keys(forms).length > 0) sessionStorage.setItem(PREFIX + owner, JSON.stringify({ page, forms } satisfies Stored))
        const elsewhere = refused ? `${LOST_WRITE_SAID} Make it again.` : null
        sessionStorage.setItem(NOTICE, JSON.stringify({ owner, page, said, kept: Object.keys(forms), elsewhere } satisfies StoredNotice))
      } catch {
        // Storage full or refused: nothing is said on the way back rather than something untrue.
        sessionStorage.removeItem(PREFIX + owner)
        sessionStorage.removeItem(NOTICE)
      }
    },
  }
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)
export const listed = (items: string[]) => (items.length === 1 ? items[0]! : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`)

/** The forms that opened with their kept draft: when one lets go of its edits, that draft is used. */
const taken = new Set<string>()

/**
 * The draft kept for `form` on the page shown, for the identity signed in; taken (dropped from the
 * storage) as it is returned. Call it once, as the form is first drawn.
 */
export function takeDraft(form: string): unknown {
  const owner = user.peek()?.identityId
  if (!owner) return null
  const stored = read(owner)
  if (!stored || stored.page !== window.location.pathname || !(form in stored.forms)) return null
  const data = stored.forms[form]
  delete stored.forms[form]
  if (Object.keys(stored.forms).length === 0) sessionStorage.removeItem(PREFIX + owner)
  else sessionStorage.setItem(PREFIX + owner, JSON.stringify(stored))
  taken.add(form)
  return data
}

/**
 * A form that opened with its kept draft has let go of it (saved it, discarded it, closed): once
 * every kept draft has gone that way, the notice about them has said all it had to.
 */
export function draftUsed(form: string): void {
  if (!taken.delete(form)) return
  const notice = lostWrite.peek()
  if (!notice || !notice.awaiting.includes(form)) return
  const awaiting = notice.awaiting.filter((name) => name !== form)
  lostWrite.value = awaiting.length === 0 ? null : { ...notice, awaiting }
}

function read(owner: string): Stored | null {
  try {
    const stored = JSON.parse(sessionStorage.getItem(PREFIX + owner) ?? 'null') as Stored | null
    return stored && typeof stored.page === 'string' && typeof stored.forms === 'object' && stored.forms !== null ? stored : null
  } catch {
    return null
  }
}

function readNotice(): StoredNotice | null {
  try {
    const notice = JSON.parse(sessionStorage.getItem(NOTICE) ?? 'null') as StoredNotice | null
    return notice && typeof notice.owner === 'string' && typeof notice.page === 'string' && typeof notice.said === 'string' && Array.isArray(notice.kept) && (typeof notice.elsewhere === 'string' || notice.elsewhere === null)
      ? notice
      : null
  } catch {
    return null
  }
}

/** Drops every kept draft and the notice (signed out). */
export function dropDrafts(): void {
  for (let i = sessionStorage.length - 1; i >= 0; i--) {
    const key = sessionStorage.key(i)
    if (key?.startsWith(PREFIX) || key === NOTICE) sessionStorage.removeItem(key)
  }
  taken.clear()
  lostWrite.value = null
}

/**
 * As `owner` is found signed in: another identity's drafts and notice are dropped (they never reach
 * another person's session), and so are `owner`'s own when the sign-in has landed on another page
 * than theirs. The notice is shown from here on, and no longer stored: a reload does not bring it back.
 */
export function draftsFor(owner: string): void {
  const own = read(owner)
  const notice = readNotice()
  dropDrafts()
  const here = window.location.pathname
  if (own && own.page === here) sessionStorage.setItem(PREFIX + owner, JSON.stringify(own))
  if (!notice || notice.owner !== owner) return
  if (notice.page === here) lostWrite.value = { said: notice.said, page: here, awaiting: own ? notice.kept.filter((form) => form in own.forms) : [] }
  else if (notice.elsewhere) lostWrite.value = { said: notice.elsewhere, page: here, awaiting: [] }
}

/** The notice is dismissed. */
export function dismissLostWrite(): void {
  lostWrite.value = null
}

// A draft and its notice are for their page: leaving that page drops them.
location.subscribe(({ path }) => {
  const notice = lostWrite.peek()
  if (notice && notice.page !== path) lostWrite.value = null
  const owner = user.peek()?.identityId
  if (!owner) return
  const stored = read(owner)
  if (stored && stored.page !== path) sessionStorage.removeItem(PREFIX + owner)
})
