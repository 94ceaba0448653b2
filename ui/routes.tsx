// The pages, in the order of the Main navigation, which operators see each, and which upstream a
// page needs (Kratos-only mode hides the Hydra pages; likewise without a Kratos admin API).
import type { ComponentType } from 'preact'
import { Overview } from './pages/overview/index.tsx'
import { IdentitiesPage } from './pages/identities/index.tsx'
import { IdentityPage } from './pages/identities/detail.tsx'
import { SessionsPage } from './pages/sessions/index.tsx'
import { MessagePage, MessagesPage } from './pages/messages/index.tsx'
import { OAuthClientPage, OAuthClientsPage } from './pages/oauth-clients/index.tsx'
import { AuditPage } from './pages/audit/index.tsx'
import { SettingsPage } from './pages/settings/index.tsx'
import { SecurityPage } from './pages/security/index.tsx'

export type Upstream = 'kratos' | 'hydra'

export interface Route {
  /** Matches a path under /dashboard; returns the parameters or null. */
  match: (path: string) => Record<string, string> | null
  title: string
  admin: boolean
  /** The upstream admin API the page works on. */
  needs?: Upstream
  component: ComponentType<{ params: Record<string, string> }>
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
  { match: exact('/dashboard/identities'), title: 'Identities', admin: true, needs: 'kratos', component: IdentitiesPage },
  { match: withId('/dashboard/identities'), title: 'Identity', admin: true, needs: 'kratos', component: IdentityPage },
  { match: exact('/dashboard/sessions'), title: 'Sessions', admin: true, needs: 'kratos', component: SessionsPage },
  { match: exact('/dashboard/messages'), title: 'Messages', admin: true, needs: 'kratos', component: MessagesPage },
  { match: withId('/dashboard/messages'), title: 'Message', admin: true, needs: 'kratos', component: MessagePage },
  { match: exact('/dashboard/oauth-clients'), title: 'OAuth clients', admin: true, needs: 'hydra', component: OAuthClientsPage },
  { match: withId('/dashboard/oauth-clients'), title: 'OAuth client', admin: true, needs: 'hydra', component: OAuthClientPage },
  { match: exact('/dashboard/settings'), title: 'Settings', admin: true, component: SettingsPage },
  { match: exact('/dashboard/audit'), title: 'Audit log', admin: true, component: AuditPage },
  { match: exact('/dashboard/security'), title: 'Security', admin: true, component: SecurityPage },
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
