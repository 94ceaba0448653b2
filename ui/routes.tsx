// The pages, in the order of the Main navigation, and which of them each operator sees.
import type { ComponentType } from 'preact'
import { Overview } from './pages/overview/index.tsx'
import { IdentitiesPage } from './pages/identities/index.tsx'
import { IdentityPage } from './pages/identities/detail.tsx'
import { AuditPage } from './pages/audit/index.tsx'
import { SettingsPage } from './pages/settings/index.tsx'
import { SecurityPage } from './pages/security/index.tsx'

export interface Route {
  /** Matches a path under /dashboard; returns the parameters or null. */
  match: (path: string) => Record<string, string> | null
  title: string
  admin: boolean
  component: ComponentType<{ params: Record<string, string> }>
}

const exact = (path: string) => (p: string) => (p === path ? {} : null)

// Only pages that exist are linked; the order is ui.md's.
export const NAV = [
  { label: 'Overview', href: '/dashboard', admin: false, kratos: false },
  { label: 'Identities', href: '/dashboard/identities', admin: true, kratos: true },
  { label: 'Settings', href: '/dashboard/settings', admin: true, kratos: false },
  { label: 'Audit log', href: '/dashboard/audit', admin: true, kratos: false },
  { label: 'Security', href: '/dashboard/security', admin: true, kratos: false },
]

const ROUTES: Route[] = [
  { match: exact('/dashboard'), title: 'Overview', admin: false, component: Overview },
  { match: exact('/dashboard/identities'), title: 'Identities', admin: true, component: IdentitiesPage },
  { match: exact('/dashboard/settings'), title: 'Settings', admin: true, component: SettingsPage },
  { match: exact('/dashboard/audit'), title: 'Audit log', admin: true, component: AuditPage },
  { match: exact('/dashboard/security'), title: 'Security', admin: true, component: SecurityPage },
  {
    match: (p) => {
      const m = /^\/dashboard\/identities\/([^/]+)$/.exec(p)
      return m ? { id: decodeURIComponent(m[1]!) } : null
    },
    title: 'Identity',
    admin: true,
    component: IdentityPage,
  },
]

export function findRoute(path: string): { route: Route; params: Record<string, string> } | null {
  const normal = path.length > 1 ? path.replace(/\/+$/, '') : path
  for (const route of ROUTES) {
    const params = route.match(normal)
    if (params) return { route, params }
  }
  return null
}
