// The pages, in the order of the Main navigation, which operators see each, and which upstream a
// page needs (Kratos-only mode hides the Hydra pages; likewise without a Kratos admin API).
// Every page but the Overview is its own chunk (lazy-page.tsx): the first load is the shell and
// the Overview, which every operator sees.
import type { ComponentType } from 'preact'
import { Overview } from './pages/overview/index.tsx'
import { lazyPage } from './components/lazy-page.tsx'

export type Upstream = 'kratos' | 'hydra'

export interface Route {
  /** Matches a path under /dashboard; returns the parameters or null. */
  match: (path: string) => Record<string, string> | null
  title: string
  admin: boolean
  /** The upstream admin API the page works on. */
  needs?: Upstream
  component: ComponentType<{ params: Record<string, string> }>
  /** Fetches a lazily loaded page's code ahead of its first showing. */
  preload?: () => Promise<unknown>
}

const exact = (path: string) => (p: string) => (p === path ? {} : null)
const withId = (prefix: string) => (p: string) => {
  if (!p.startsWith(`${prefix}/`)) return null
  const rest = p.slice(prefix.length + 1)
  if (rest === '' || rest.includes('/')) return null
  try {
    return { id: decodeURIComponent(rest) }
  } catch {
    return null
  }
}

// The order is ui.md's.
export const NAV: { label: string; href: string; admin: boolean; needs?: Upstream }[] = [
  { label: 'Overview', href: '/dashboard', admin: false },
  { label: 'Identities', href: '/dashboard/identities', admin: true, needs: 'kratos' },
  { label: 'Sessions', href: '/dashboard/sessions', admin: true, needs: 'kratos' },
  { label: 'Messages', href: '/dashboard/messages', admin: true, needs: 'kratos' },
  { label: 'OAuth clients', href: '/dashboard/oauth-clients', admin: true, needs: 'hydra' },
  { label: 'Settings', href: '/dashboard/settings', admin: true },
  { label: 'Audit log', href: '/dashboard/audit', admin: true },
  { label: 'Security', href: '/dashboard/security', admin: true },
]

const ROUTES: Route[] = [
  { match: exact('/dashboard'), title: 'Overview', admin: false, component: Overview },
  { match: exact('/dashboard/identities'), admin: true, needs: 'kratos', ...lazyPage('Identities', () => import('./pages/identities/index.tsx').then((m) => m.IdentitiesPage)) },
  { match: withId('/dashboard/identities'), admin: true, needs: 'kratos', ...lazyPage('Identity', () => import('./pages/identities/detail.tsx').then((m) => m.IdentityPage)) },
  { match: exact('/dashboard/sessions'), admin: true, needs: 'kratos', ...lazyPage('Sessions', () => import('./pages/sessions/index.tsx').then((m) => m.SessionsPage)) },
  { match: exact('/dashboard/messages'), admin: true, needs: 'kratos', ...lazyPage('Messages', () => import('./pages/messages/index.tsx').then((m) => m.MessagesPage)) },
  { match: withId('/dashboard/messages'), admin: true, needs: 'kratos', ...lazyPage('Message', () => import('./pages/messages/index.tsx').then((m) => m.MessagePage)) },
  { match: exact('/dashboard/oauth-clients'), admin: true, needs: 'hydra', ...lazyPage('OAuth clients', () => import('./pages/oauth-clients/index.tsx').then((m) => m.OAuthClientsPage)) },
  { match: withId('/dashboard/oauth-clients'), admin: true, needs: 'hydra', ...lazyPage('OAuth client', () => import('./pages/oauth-clients/index.tsx').then((m) => m.OAuthClientPage)) },
  { match: exact('/dashboard/settings'), admin: true, ...lazyPage('Settings', () => import('./pages/settings/index.tsx').then((m) => m.SettingsPage)) },
  { match: exact('/dashboard/audit'), admin: true, ...lazyPage('Audit log', () => import('./pages/audit/index.tsx').then((m) => m.AuditPage)) },
  { match: exact('/dashboard/security'), admin: true, ...lazyPage('Security', () => import('./pages/security/index.tsx').then((m) => m.SecurityPage)) },
]

/** A path as routes are matched: without trailing slashes (but `/` itself). */
export const normalPath = (path: string) => (path.length > 1 ? path.replace(/\/+$/, '') : path)

export function findRoute(path: string): { route: Route; params: Record<string, string> } | null {
  const normal = normalPath(path)
  for (const route of ROUTES) {
    const params = route.match(normal)
    if (params) return { route, params }
  }
  return null
}

/** Fetches the code of every page `opens` says this operator can open, where not fetched yet. */
export function preloadPages(opens: (route: Route) => boolean): void {
  // A page that fails to arrive now is fetched again when it is opened.
  for (const route of ROUTES) if (opens(route)) route.preload?.().catch(() => {})
}
