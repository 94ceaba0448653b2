// The one way the UI calls the service: our own /api/** routes only. Every failure comes back as
// our envelope's { error, message }; a page never parses or shows an upstream body.
import type { PatchOp } from './components/json-patch.ts'

export interface ApiFailure {
  error: string
  message: string
  status: number
}
export type ApiResult<T> = { ok: true; data: T } | { ok: false; failure: ApiFailure }

export type Role = 'admin' | 'viewer'
export interface SessionUser {
  identityId: string
  email: string
  role: Role
}
export type UpstreamName = 'idp' | 'idp-admin' | 'iam-idp' | 'iam-idp-admin' | 'oauth' | 'oauth-admin'
export interface PublicConfig {
  upstreams: Record<UpstreamName, boolean>
  [key: string]: unknown
}
export interface ServiceHealth {
  name: UpstreamName
  configured: boolean
  healthy: boolean
  version: string | null
  response_ms: number | null
}
export interface LocationPoint {
  lat: number
  lng: number
  label: string
  count: number
}
export interface AuditEvent {
  id: number
  at: string
  action: string
  actor: string | null
  target: string | null
  detail?: Record<string, string | number | boolean | null> | null
}
export interface Setting {
  key: string
  value: string
  encrypted: boolean
  category: string | null
  updated_at?: string
}
export interface PostureCheck {
  id: string
  status: 'pass' | 'warn' | 'fail'
  message: string
  remedy?: string
}
export type Layout = Record<string, unknown>

// Kratos's admin shapes (Ory's API reference), as far as the pages read them.
interface VerifiableAddress {
  id?: string
  value: string
  via: string
  verified: boolean
  status: string
}
interface RecoveryAddress {
  id?: string
  value: string
  via: string
}
interface Credential {
  type: string
  identifiers?: string[]
  version?: number
  created_at?: string
}
export interface Identity {
  id: string
  schema_id: string
  state?: 'active' | 'inactive'
  traits: Record<string, unknown>
  metadata_public?: unknown
  metadata_admin?: unknown
  verifiable_addresses?: VerifiableAddress[]
  recovery_addresses?: RecoveryAddress[]
  credentials?: Record<string, Credential>
  created_at?: string
  updated_at?: string
}
export interface IdentityPage {
  identities: Identity[]
  next_page_token: string | null
  has_more: boolean
}
export interface KratosSession {
  id: string
  active?: boolean
  authenticated_at?: string
  issued_at?: string
  expires_at?: string
  devices?: { id: string; ip_address?: string; user_agent?: string; location?: string }[]
  identity?: Identity
}
interface MessageDispatch {
  id: string
  status: 'failed' | 'success' | string
  error?: unknown
  created_at?: string
}
export interface CourierMessage {
  id: string
  status: 'queued' | 'sent' | 'processing' | 'abandoned' | string
  type?: string
  channel?: string
  recipient: string
  subject?: string
  body?: string
  template_type?: string
  send_count?: number
  created_at?: string
  updated_at?: string
  dispatches?: MessageDispatch[]
}
export const CLIENT_LIFESPANS = [
  'authorization_code_grant_access_token_lifespan',
  'authorization_code_grant_id_token_lifespan',
  'authorization_code_grant_refresh_token_lifespan',
  'client_credentials_grant_access_token_lifespan',
  'implicit_grant_access_token_lifespan',
  'implicit_grant_id_token_lifespan',
  'refresh_token_grant_access_token_lifespan',
  'refresh_token_grant_id_token_lifespan',
  'refresh_token_grant_refresh_token_lifespan',
] as const
export type ClientLifespan = (typeof CLIENT_LIFESPANS)[number]
export interface OAuthClient extends Partial<Record<ClientLifespan, string | null>> {
  client_id: string
  client_name?: string
  client_secret?: string
  redirect_uris?: string[] | null
  post_logout_redirect_uris?: string[] | null
  grant_types?: string[] | null
  response_types?: string[] | null
  scope?: string
  audience?: string[] | null
  token_endpoint_auth_method?: string
  skip_consent?: boolean
  owner?: string
  created_at?: string
  updated_at?: string
}
/** A page of an Ory list: the rows and the token of the next page (from the `Link` header). */
interface Paged<T> {
  items: T[]
  next: string | null
}
interface IdentitySchema {
  id: string
  schema: JsonSchema
}
export interface JsonSchema {
  type?: string | string[]
  title?: string
  format?: string
  enum?: unknown[]
  properties?: Record<string, JsonSchema>
  required?: string[]
  minLength?: number
  maxLength?: number
  minimum?: number
  maximum?: number
  pattern?: string
  'ory.sh/kratos'?: { credentials?: { password?: { identifier?: boolean }; code?: { identifier?: boolean } }; verification?: unknown; recovery?: unknown }
}
interface RecoveryLink {
  recovery_link: string
  expires_at?: string
}
interface RecoveryCode {
  recovery_link: string
  recovery_code: string
  expires_at?: string
}
export interface GeoAnswer {
  country?: string | null
  label?: string | null
  [key: string]: unknown
}

const GENERIC: Record<number, string> = {
  0: 'The service cannot be reached. Check your connection and try again.',
  404: 'That was not found.',
}

/** Set by the app: what to do when the session is gone (sign in again, back to this page). */
let onUnauthenticated: (lostWrite: boolean) => void = () => {}
/** A 401 from our API: the session is gone. `lostWrite` when the refused request was a change. */
export function whenUnauthenticated(handler: (lostWrite: boolean) => void): void {
  onUnauthenticated = handler
}
let onForbidden: () => void = () => {}
/** Our API's 403 `forbidden`: the role may have changed since the page learnt it. */
export function whenForbidden(handler: () => void): void {
  onForbidden = handler
}

async function request<T>(method: string, path: string, body?: unknown): Promise<ApiResult<T>> {
  return (await send<T>(method, path, body)).result
}

/** Ory's lists page with a `Link` header whose rel="next" URL carries the next `page_token`. */
export function nextPageToken(link: string | null): string | null {
  if (!link) return null
  for (const part of link.split(',')) {
    const match = /<([^>]*)>\s*;\s*rel="?next"?/.exec(part)
    if (match) return new URL(match[1]!, 'http://link.invalid').searchParams.get('page_token')
  }
  return null
}

async function requestPage<T>(path: string): Promise<ApiResult<Paged<T>>> {
  const { result, headers } = await send<T[]>('GET', path)
  if (!result.ok) return result
  if (!Array.isArray(result.data)) return { ok: false, failure: { error: 'invalid_response', message: 'The service sent an answer the page cannot read.', status: 200 } }
  return { ok: true, data: { items: result.data, next: nextPageToken(headers?.get('link') ?? null) } }
}

/**
 * Kratos serves identity schemas on its public API. A self-hosted Kratos's admin API only redirects
 * there, to an address the page may not reach (and its policy forbids): the public prefix is asked
 * when it is configured, else the admin one (enough on Ory Network: one URL serves both). A
 * redirect is never followed.
 */
async function identitySchemas(from: 'idp' | 'idp-admin'): Promise<ApiResult<IdentitySchema[]>> {
  const { result } = await send<IdentitySchema[]>('GET', `/api/${from}/schemas`, undefined, 'manual')
  if (result.ok || result.failure.error !== 'redirected') return result
  return { ok: false, failure: { ...result.failure, message: 'Kratos sends the identity schemas to its public API. Set IDP_PUBLIC_URL to the address of Kratos’s public API.' } }
}

async function send<T>(method: string, path: string, body?: unknown, redirect: RequestRedirect = 'follow'): Promise<{ result: ApiResult<T>; headers?: Headers }> {
  let response: Response
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      cache: 'no-store',
      redirect,
      headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  } catch {
    return { result: { ok: false, failure: { error: 'unreachable', message: GENERIC[0]!, status: 0 } } }
  }
  if (response.type === 'opaqueredirect') return { result: { ok: false, failure: { error: 'redirected', message: 'The service answered with a redirect.', status: 0 } } }
  if (response.status === 401 && !path.startsWith('/api/auth/')) onUnauthenticated(method !== 'GET' && method !== 'HEAD')
  const headers = response.headers
  if (response.ok) {
    if (response.status === 204) return { result: { ok: true, data: undefined as T }, headers }
    try {
      return { result: { ok: true, data: (await response.json()) as T }, headers }
    } catch {
      return { result: { ok: false, failure: { error: 'invalid_response', message: 'The service sent an answer the page cannot read.', status: response.status } }, headers }
    }
  }
  const failure = await envelopeOf(response)
  if (failure.status === 403 && failure.error === 'forbidden') onForbidden()
  return { result: { ok: false, failure }, headers }
}

/** Our envelope's error and message; anything else (an upstream body) is replaced by a generic sentence. */
async function envelopeOf(response: Response): Promise<ApiFailure> {
  const fallback = { error: 'request_failed', message: GENERIC[response.status] ?? `The request failed (HTTP ${response.status}).`, status: response.status }
  try {
    const body = (await response.json()) as Record<string, unknown>
    // Proxied Kratos errors are { error: { … } }: not ours, never shown.
    if (typeof body.error === 'string' && typeof body.message === 'string') return { error: body.error, message: body.message, status: response.status }
  } catch {
    // not JSON
  }
  return fallback
}

const q = (params: Record<string, string | number | undefined | null>) => {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== '') search.set(key, String(value))
  const text = search.toString()
  return text ? `?${text}` : ''
}
const id = (value: string) => encodeURIComponent(value)
const KRATOS = '/api/idp-admin/admin'
const HYDRA = '/api/oauth-admin/admin'

export const api = {
  session: () => request<{ user: SessionUser }>('GET', '/api/auth/session'),
  logout: () => request<void>('POST', '/api/auth/logout'),
  config: () => request<PublicConfig>('GET', '/api/config'),
  servicesHealth: () => request<{ services: ServiceHealth[] }>('GET', '/api/services/health'),
  sessionLocations: () => request<{ points: LocationPoint[]; truncated: boolean }>('GET', '/api/session-locations'),
  auditPage: (params: { limit: number; before?: string; action?: string; actor?: string }) =>
    request<{ events: AuditEvent[]; next_before: number | null }>('GET', `/api/security/audit${q(params)}`),
  audit: (limit: number) => request<{ events: AuditEvent[]; next_before: number | null }>('GET', `/api/security/audit${q({ limit })}`),
  settings: () => request<Setting[]>('GET', '/api/settings'),
  revealSetting: (key: string) => request<Setting>('GET', `/api/settings/${id(key)}?decrypt=true`),
  saveSetting: (body: { key: string; value: string; encrypted: boolean; category: string | null }) => request<Setting>('POST', '/api/settings', body),
  deleteSetting: (key: string) => request<void>('DELETE', `/api/settings/${id(key)}`),
  posture: () => request<{ checks: PostureCheck[] }>('GET', '/api/security/posture'),
  layout: () => request<{ layout: Layout | null }>('GET', '/api/dashboard/layout'),
  saveLayout: (layout: Layout) => request<{ layout: Layout }>('PUT', '/api/dashboard/layout', { layout }),
  geo: (ip: string) => request<GeoAnswer>('GET', `/api/geo${q({ ip })}`),
  endDashboardSessions: (identityId: string) => request<void>('POST', '/api/security/sessions/revoke', { identity_id: identityId }),

  identities: (params: { page_size: number; page_token?: string; credentials_identifier?: string }) =>
    request<IdentityPage>('GET', `/api/identities${q(params)}`),
  identity: (identityId: string) => request<Identity>('GET', `${KRATOS}/identities/${id(identityId)}?include_credential=password&include_credential=oidc&include_credential=webauthn&include_credential=totp&include_credential=lookup_secret&include_credential=code&include_credential=passkey`),
  createIdentity: (body: { schema_id: string; traits: Record<string, unknown>; credentials?: unknown; state?: string }) =>
    request<Identity>('POST', `${KRATOS}/identities`, body),
  patchIdentity: (identityId: string, patch: PatchOp[]) => request<Identity>('PATCH', `${KRATOS}/identities/${id(identityId)}`, patch),
  setState: (identityId: string, state: 'active' | 'inactive') =>
    request<Identity>('PATCH', `${KRATOS}/identities/${id(identityId)}`, [{ op: 'replace', path: '/state', value: state }]),
  deleteIdentity: (identityId: string) => request<void>('DELETE', `${KRATOS}/identities/${id(identityId)}`),
  deleteCredential: (identityId: string, type: string) => request<void>('DELETE', `${KRATOS}/identities/${id(identityId)}/credentials/${id(type)}`),
  identitySessions: (identityId: string) => request<KratosSession[]>('GET', `${KRATOS}/identities/${id(identityId)}/sessions`),
  revokeSession: (sessionId: string) => request<void>('DELETE', `${KRATOS}/sessions/${id(sessionId)}`),
  revokeAllSessions: (identityId: string) => request<void>('DELETE', `${KRATOS}/identities/${id(identityId)}/sessions`),
  schemas: identitySchemas,
  recoveryLink: (identityId: string) => request<RecoveryLink>('POST', `${KRATOS}/recovery/link`, { identity_id: identityId }),
  sessions: (params: { page_size: number; page_token?: string }) =>
    requestPage<KratosSession>(`${KRATOS}/sessions${q({ ...params, active: 'true' })}&expand=identity&expand=devices`),
  extendSession: (sessionId: string) => request<KratosSession | undefined>('PATCH', `${KRATOS}/sessions/${id(sessionId)}/extend`),
  messages: (params: { page_size: number; page_token?: string; status?: string; recipient?: string }) =>
    requestPage<CourierMessage>(`${KRATOS}/courier/messages${q(params)}`),
  message: (messageId: string) => request<CourierMessage>('GET', `${KRATOS}/courier/messages/${id(messageId)}`),
  clients: (params: { page_size: number; page_token?: string; client_name?: string }) => requestPage<OAuthClient>(`${HYDRA}/clients${q(params)}`),
  client: (clientId: string) => request<OAuthClient>('GET', `${HYDRA}/clients/${id(clientId)}`),
  createClient: (client: Partial<OAuthClient>) => request<OAuthClient>('POST', `${HYDRA}/clients`, client),
  patchClient: (clientId: string, patch: PatchOp[]) => request<OAuthClient>('PATCH', `${HYDRA}/clients/${id(clientId)}`, patch),
  setClientLifespans: (clientId: string, lifespans: Partial<Record<ClientLifespan, string | null>>) =>
    request<OAuthClient>('PUT', `${HYDRA}/clients/${id(clientId)}/lifespans`, lifespans),
  deleteClient: (clientId: string) => request<void>('DELETE', `${HYDRA}/clients/${id(clientId)}`),
  revokeClientTokens: (clientId: string) => request<void>('DELETE', `${HYDRA}/oauth2/tokens${q({ client_id: clientId })}`),
  recoveryCode: (identityId: string) => request<RecoveryCode>('POST', `${KRATOS}/recovery/code`, { identity_id: identityId }),
}
