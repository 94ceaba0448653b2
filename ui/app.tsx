// The shell (ui.md "Shell"): header, Main navigation, the page, one status region.
import { useEffect, useRef, useState } from 'preact/hooks'
import { signal } from '@preact/signals'
import { api, takeSaidAfterSignIn, whenForbidden, whenUnauthenticated } from './api.ts'
import { location, mayLeave, mayLeaveForSignIn, navigate, releaseUnsavedChanges, unsavedForms } from './router.ts'
import { config, hasUpstream, isAdmin, user } from './session.ts'
import { dismissLostWrite, draftsFor, dropDrafts, keepDrafts, listed, lostWrite, type KeptDrafts } from './drafts.ts'
import { theme, type ThemeChoice } from './theme.ts'
import { useMenuDismissal } from './menu.ts'
import { announce, clearEarlierAnnouncement } from './components/status.ts'
import { StatusRegion } from './components/status-region.tsx'
import { ErrorView } from './components/load.tsx'
import { Heading, focusHeading, focusHeadingAfterNavigation } from './components/heading.tsx'
import { findRoute, NAV, normalPath, preloadPages, type Upstream } from './routes.tsx'
import type { ApiFailure } from './api.ts'
import { revealHidden } from './reveal.ts'

/** The page shown now, as the sign-in's return_to (the server keeps it only when it is a plain /dashboard path). */
const currentPage = () => window.location.pathname + window.location.search
/** `asSomeone`: after Sign out, the provider asks who signs in (`prompt=login`) even when it remembers the browser: another person at the same computer is not signed in as the last one. */
const signInHref = (returnTo: string, asSomeone = false) => `/api/auth/login?return_to=${encodeURIComponent(returnTo)}${asSomeone ? '&prompt=login' : ''}`

function signIn(): void {
  window.location.assign(signInHref(currentPage()))
}

/**
 * The session was found gone by a request the page made by itself (the overview's timed check): the
 * page it was found on (Sign in again comes back there); null while signed in.
 */
const sessionEnded = signal<{ from: string; kept: KeptDrafts | null } | null>(null)

whenUnauthenticated(({ lostWrite: refusedChange, caller }) => {
  // Only a person's action leads to the sign-in. A provider that remembers the operator would sign
  // an unattended browser straight back in: past a sign-out made in another window, and past the
  // session's time limit on a wall screen.
  if (caller === 'page') {
    // The page goes: the drafts of its unsaved forms are kept for Sign in again (written as it is chosen).
    if (sessionEnded.peek() === null) sessionEnded.value = { from: currentPage(), kept: keepDrafts(false) }
    releaseUnsavedChanges()
    user.value = null
    return
  }
  // Signed out in another window of this browser (its message missed): signed out here too.
  if (signedOutHere()) {
    dropDrafts()
    user.value = null
    signOut.value = { from: currentPage(), state: 'done' }
    return
  }
  // The page is about to be left for the sign-in: say afterwards that the change was not made,
  // rather than come back to the same page as if it had been.
  if (refusedChange) {
    const kept = keepDrafts(true)
    // Something shown once is asked about first. Staying keeps the page as it is (the form says its
    // change failed), and nothing is written for a way back that is not taken.
    if (!mayLeaveForSignIn('Your session has ended: go to the sign-in anyway?')) return
    // Left without asking about the edits: the notice says afterwards what became of them.
    kept?.write()
  }
  signIn()
})

// An admin page refused for the role: ask again who is signed in. A role changed to viewer shows
// the "No access" view and the viewer's navigation instead of an error that Retry cannot mend.
whenForbidden(async () => {
  const session = await api.session()
  if (session.ok && session.data.user.role !== user.value?.role) user.value = session.data.user
})

function dismissNotice(): void {
  dismissLostWrite()
  focusHeading()
}

/**
 * Signing out, from the page `from` (Sign in again and Back to the dashboard come back there); null
 * while signed in. "Signed out" is shown only once the service has confirmed it: while it has not,
 * the session is still valid, and someone leaving a shared computer must not be told otherwise.
 */
type SignOut =
  | { from: string; state: 'pending' }
  | { from: string; state: 'failed'; failure: ApiFailure }
  /** `lost`: what this tab's forms held unsaved when a sign-out in another window took the page away. */
  | { from: string; state: 'done'; lost?: string[] }
const signOut = signal<SignOut | null>(null)

/**
 * This browser signed out, and nobody has signed in since: a page loaded now (Back to a page of
 * before, a bookmark, a new tab) says "Signed out" rather than going to the sign-in, which a
 * provider that still remembers the operator would complete without asking anyone.
 */
const SIGNED_OUT_MARK = 'admin-dashboard.signed-out'
const markSignedOut = () => localStorage.setItem(SIGNED_OUT_MARK, '1')
const signedOutHere = () => localStorage.getItem(SIGNED_OUT_MARK) !== null

/**
 * The other tabs of this browser hear of a sign-out and show "Signed out" at once, with no data and
 * no timer left running. The message names the event only: nothing of the session or its cookie.
 */
const SIGNED_OUT = 'signed-out'
const signOuts = typeof BroadcastChannel === 'function' ? new BroadcastChannel('admin-dashboard.session') : null
signOuts?.addEventListener('message', (event: MessageEvent) => {
  if (event.data !== SIGNED_OUT || signOut.peek()?.state === 'done') return
  // Signing out means leaving: nothing is kept past it, but this tab says what it let go.
  const lost = unsavedForms().map((form) => form.what)
  releaseUnsavedChanges()
  markSignedOut()
  dropDrafts()
  user.value = null
  sessionEnded.value = null
  signOut.value = { from: currentPage(), state: 'done', lost }
})

async function signOutFrom(from: string): Promise<void> {
  if (signOut.peek()?.state === 'pending') return
  signOut.value = { from, state: 'pending' }
  const result = await api.logout()
  // A 401 means there was no session to end (it had expired, or ended in another tab).
  if (result.ok || result.failure.status === 401) {
    markSignedOut()
    dropDrafts()
    user.value = null
    signOut.value = { from, state: 'done' }
    signOuts?.postMessage(SIGNED_OUT)
  } else {
    signOut.value = { from, state: 'failed', failure: result.failure }
  }
}

/**
 * Sign out, as the person chose it: it takes the page away like leaving it, so what leaving would
 * lose (a secret shown once, unsaved edits) is asked about first, and declining keeps the page and
 * the session.
 */
function signOutChosen(): void {
  if (!mayLeave('Sign out anyway?')) return
  void signOutFrom(currentPage())
}

/** Back to the page the sign-out was tried from, as it was: the session is still there. */
function backToDashboard(event: MouseEvent): void {
  event.preventDefault()
  signOut.value = null
}

/** The skip link moves focus to the page's h1, without a history entry of its own. */
function skipToContent(event: MouseEvent): void {
  event.preventDefault()
  focusHeading()
}

export function App() {
  const [failure, setFailure] = useState<ApiFailure | null>(null)
  const [round, setRound] = useState(0)
  useEffect(() => {
    let current = true
    ;(async () => {
      const session = await api.session()
      if (!current) return
      if (!session.ok) {
        // A tab told of a sign-out while it was still asking stays signed out; so does a page
        // loaded after this browser signed out, until someone chooses Sign in again.
        if (session.failure.status === 401) {
          if (signOut.peek() === null && signedOutHere()) signOut.value = { from: currentPage(), state: 'done' }
          else if (signOut.peek() === null) signIn()
        } else setFailure(session.failure)
        return
      }
      localStorage.removeItem(SIGNED_OUT_MARK)
      draftsFor(session.data.user.identityId)
      // Viewers never call admin routes, not even to find out what is configured.
      if (session.data.user.role === 'admin') {
        const described = await api.config()
        if (!current) return
        if (!described.ok) {
          setFailure(described.failure)
          return
        }
        config.value = described.data
      }
      setFailure(null)
      user.value = session.data.user
      // Back from a sign-in that ending one's own dashboard sessions led to: said now, once the page is there.
      const said = takeSaidAfterSignIn(session.data.user.identityId)
      if (said) setTimeout(() => announce(said), 0)
    })()
    return () => {
      current = false
    }
  }, [round])

  useEffect(() => {
    // A navigation takes focus to the page's h1, except a new query on the same page made from a
    // form control (a filter, a search box): focus stays there, so a select can be stepped through
    // with the arrow keys. The page size, below the list, sends focus to the h1 itself (Pager).
    let shown: { path: string; search: string } | null = null
    return location.subscribe(({ path, search }) => {
      const control = document.activeElement
      const fromControl = control instanceof HTMLSelectElement || control instanceof HTMLInputElement
      if (shown !== null && !(path === shown.path && fromControl)) focusHeadingAfterNavigation()
      // The status region speaks of the page shown (a link to the page already shown changes nothing).
      if (shown !== null && (path !== shown.path || search !== shown.search)) clearEarlierAnnouncement()
      shown = { path, search }
    })
  }, [])

  if (signOut.value !== null) return <SignOutView progress={signOut.value} />
  if (sessionEnded.value !== null) return <SessionEndedView from={sessionEnded.value.from} kept={sessionEnded.value.kept} />
  if (failure) {
    return (
      <main id="main" class="page page-alone">
        <Heading>Dashboard unavailable</Heading>
        <ErrorView failure={failure} retry={() => setRound((n) => n + 1)} />
      </main>
    )
  }
  if (!user.value) {
    return (
      <main id="main" class="page page-alone" aria-busy="true">
        <p class="muted">Checking your session…</p>
      </main>
    )
  }
  return <Shell />
}

function Shell() {
  const current = user.value!
  const here = location.value
  const path = here.path
  // The menu belongs to the location it was opened at: it is closed in the very render that shows
  // the next one (an effect would close it only after that page had been drawn under it), also when
  // the link chosen is the page already shown.
  const [menuOpenAt, setMenuOpenAt] = useState<typeof here | null>(null)
  const menuOpen = menuOpenAt === here
  const closeMenu = () => setMenuOpenAt(null)
  const topBar = useRef<HTMLElement>(null)
  const menuButton = useRef<HTMLButtonElement>(null)
  const nav = useRef<HTMLElement>(null)
  useMenuDismissal(menuOpen, closeMenu, menuButton, [topBar, nav])
  const found = findRoute(path)
  const opens = (page: { admin: boolean; needs?: Upstream }) => (!page.admin || isAdmin()) && (!page.needs || hasUpstream(page.needs))
  const links = NAV.filter(opens)
  // Once the first page is drawn, the code of the other pages this operator can open is fetched
  // while the browser is idle: a link followed later shows its page without waiting for it.
  useEffect(() => {
    const idle = window.requestIdleCallback ?? ((run: () => void) => window.setTimeout(run, 200))
    idle(() => preloadPages(opens))
  }, [current.role, hasUpstream('kratos'), hasUpstream('hydra')])
  let content
  let activeHref: string | undefined
  if (!found) content = <NotFound />
  else if (found.route.admin && !isAdmin()) content = <NoAccess title={found.route.title} />
  else if (found.route.needs && !hasUpstream(found.route.needs)) content = <NotConfigured title={found.route.title} upstream={found.route.needs} />
  else {
    const Page = found.route.component
    content = <Page params={found.params} />
    // The page shown, or a page under it (an identity under Identities); Overview only itself. A
    // view that is no page of the menu (not found, no access, not configured) marks none.
    const normal = normalPath(path)
    activeHref = links.find((link) => normal === link.href || (link.href !== '/dashboard' && normal.startsWith(link.href + '/')))?.href
  }

  return (
    <div class="layout">
      <a class="skip-link" href="#main" onClick={skipToContent}>
        Skip to content
      </a>
      <header class="topbar" ref={topBar}>
        <a class="brand" href="/dashboard">
          admin-dashboard
        </a>
        <button type="button" class="menu-button" ref={menuButton} aria-expanded={menuOpen ? 'true' : 'false'} aria-controls="main-nav" onClick={() => setMenuOpenAt(menuOpen ? null : here)}>
          Menu
        </button>
        <div class="account">
          <span class="email">{revealHidden(current.email)}</span>
          <span class={`badge badge-${current.role}`}>{current.role === 'admin' ? 'Admin' : 'Viewer'}</span>
          <label class="theme-choice">
            <span>Theme</span>
            <select value={theme.value} onChange={(event) => (theme.value = (event.currentTarget as HTMLSelectElement).value as ThemeChoice)}>
              <option value="system">System</option>
              <option value="light">Light</option>
              <option value="dark">Dark</option>
            </select>
          </label>
          <button type="button" onClick={signOutChosen}>
            Sign out
          </button>
        </div>
      </header>
      <nav id="main-nav" aria-label="Main" class={menuOpen ? 'nav open' : 'nav'} ref={nav}>
        <ul>
          {links.map((link) => (
            <li key={link.href}>
              <a href={link.href} aria-current={link.href === activeHref ? 'page' : undefined}>
                {link.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {/* The page and, after it, the status box, which takes room of its own there (StatusRegion). */}
      <div class="page-area">
        <main id="main" class="page" tabIndex={-1}>
          {lostWrite.value !== null && lostWrite.value.page === path && (
            <div class="notice page-notice" role="alert">
              <p>{lostWrite.value.said}</p>
              <button type="button" onClick={dismissNotice}>
                Dismiss
              </button>
            </div>
          )}
          {content}
        </main>
        <StatusRegion />
      </div>
      <footer class="footer">
        <a href="https://db-ip.com" rel="noreferrer">
          IP Geolocation by DB-IP
        </a>
      </footer>
    </div>
  )
}

/**
 * Each state is a view of its own (keyed), so the heading that appears takes focus and is read out
 * in place of the one that went.
 */
function SignOutView({ progress }: { progress: SignOut }) {
  if (progress.state === 'pending') {
    return (
      <main id="main" key="pending" class="page page-alone" aria-busy="true">
        <Heading>Signing out</Heading>
        <p class="muted">Signing out…</p>
      </main>
    )
  }
  if (progress.state === 'failed') {
    return (
      <main id="main" key="failed" class="page page-alone">
        <Heading>Sign-out failed</Heading>
        <p>You are still signed in: the service did not end your session.</p>
        <ErrorView failure={progress.failure} retry={() => void signOutFrom(progress.from)} />
        <p>
          <a href={progress.from} onClick={backToDashboard}>
            Back to the dashboard
          </a>
        </p>
      </main>
    )
  }
  return (
    <main id="main" key="done" class="page page-alone">
      <Heading>Signed out</Heading>
      <p>You are signed out of the dashboard.</p>
      {progress.lost && progress.lost.length > 0 && <p>{`You signed out in another window: your unsaved changes to ${listed(progress.lost)} in this tab were not kept.`}</p>}
      <p>
        <a href={signInHref(progress.from, true)}>Sign in again</a>
      </p>
    </main>
  )
}

/** What is left of a page whose session ended while nobody asked for anything: no data, and the way back. */
function SessionEndedView({ from, kept }: { from: string; kept: KeptDrafts | null }) {
  return (
    <main id="main" class="page page-alone">
      <Heading>Session ended</Heading>
      <p>
        Your dashboard session has ended: it expired, you signed out in another window, or an administrator ended it. Nothing more is shown or checked until you
        sign in again.
      </p>
      {kept && kept.kept.length > 0 && <p>{`Your unsaved changes to ${listed(kept.kept)} are kept in this tab: they open again when you sign in again here.`}</p>}
      <p>
        <a href={signInHref(from)} onClick={() => kept?.write()}>
          Sign in again
        </a>
      </p>
    </main>
  )
}

function NotFound() {
  return (
    <>
      <Heading>Page not found</Heading>
      <p>There is no page at this address.</p>
      <p>
        <a href="/dashboard" onClick={(event) => (event.preventDefault(), navigate('/dashboard'))}>
          Go to the overview
        </a>
      </p>
    </>
  )
}

function NoAccess({ title }: { title: string }) {
  return (
    <>
      <Heading>No access</Heading>
      <p>The {title} page is for administrators. Your account has the viewer role.</p>
      <p>
        <a href="/dashboard">Go to the overview</a>
      </p>
    </>
  )
}

const UPSTREAM_SETUP: Record<Upstream, { name: string; variable: string }> = {
  kratos: { name: 'Ory Kratos', variable: 'IDP_ADMIN_URL' },
  hydra: { name: 'Ory Hydra', variable: 'OAUTH_ADMIN_URL' },
}

function NotConfigured({ title, upstream }: { title: string; upstream: Upstream }) {
  const { name, variable } = UPSTREAM_SETUP[upstream]
  return (
    <>
      <Heading>{`${title}: not configured`}</Heading>
      <p>
        The {title} page works on the {name} admin API, and this service has none configured. Set <code>{variable}</code> to the admin API's URL
        and restart the service to use it.
      </p>
      <p>
        <a href="/dashboard">Go to the overview</a>
      </p>
    </>
  )
}
