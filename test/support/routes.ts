// The spec's route table (admin-api.md "Route requirements", decisions §6 for the admin prefixes),
// as data the access tests loop over.

export type Expected = 'public' | 'session' | 'admin'

export interface SpecRoute {
  method: string
  path: string
  expected: Expected
  body?: unknown
}

export const SPEC_ROUTES: readonly SpecRoute[] = [
  { method: 'GET', path: '/api/health', expected: 'public' },
  { method: 'GET', path: '/api/auth/login', expected: 'public' },
  { method: 'GET', path: '/api/auth/callback', expected: 'public' },
  { method: 'POST', path: '/api/auth/logout', expected: 'public' },
  { method: 'GET', path: '/api/connections/social', expected: 'public' },
  { method: 'GET', path: '/api/settings', expected: 'admin' },
  { method: 'POST', path: '/api/settings', expected: 'admin', body: { key: 'gate.probe', value: 'v' } },
  { method: 'GET', path: '/api/settings/gate.probe', expected: 'admin' },
  { method: 'GET', path: '/api/settings/gate.probe?decrypt=true', expected: 'admin' },
  { method: 'DELETE', path: '/api/settings/gate.absent', expected: 'admin' },
  { method: 'POST', path: '/api/encrypt', expected: 'admin', body: { value: 'v' } },
  { method: 'GET', path: '/api/config', expected: 'admin' },
  { method: 'GET', path: '/api/openapi.json', expected: 'admin' },
  { method: 'GET', path: '/api/security/audit', expected: 'admin' },
  { method: 'GET', path: '/api/security/posture', expected: 'admin' },
  { method: 'POST', path: '/api/security/sessions/revoke', expected: 'admin', body: { identity_id: 'nobody' } },
  { method: 'PATCH', path: '/api/security/anything', expected: 'admin' },
  { method: 'GET', path: '/api/identities', expected: 'admin' },
  { method: 'GET', path: '/api/dashboard/layout', expected: 'session' },
  { method: 'PUT', path: '/api/dashboard/layout', expected: 'session', body: { layout: { widgets: [] } } },
  { method: 'GET', path: '/api/session-locations', expected: 'session' },
  { method: 'GET', path: '/api/geo?ip=8.8.8.8', expected: 'session' },
  { method: 'GET', path: '/api/services/health', expected: 'session' },
  { method: 'POST', path: '/api/services/anything', expected: 'session' },
  { method: 'GET', path: '/api/idp/sessions/whoami', expected: 'public' },
  { method: 'GET', path: '/api/iam-idp/sessions/whoami', expected: 'public' },
  { method: 'GET', path: '/api/oauth/.well-known/jwks.json', expected: 'public' },
  { method: 'GET', path: '/api/idp-admin/admin/identities', expected: 'admin' },
  { method: 'DELETE', path: '/api/iam-idp-admin/admin/identities/none', expected: 'admin' },
  { method: 'GET', path: '/api/oauth-admin/admin/clients', expected: 'admin' },
  // Not routes: unknown paths under /api/ need a session first (401 before 404).
  { method: 'GET', path: '/api/healthcheck', expected: 'session' },
  { method: 'GET', path: '/api/no-such-route', expected: 'session' },
]
