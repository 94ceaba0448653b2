// GET /api/openapi.json (admin only, enforced by the gate): an OpenAPI 3.1 document built from the
// registered routes and their schemas, completed by ROUTE_DOCUMENTATION below for what the route
// schemas do not say (hand-checked parameters and bodies, success statuses, answers). Built here
// rather than with @elysiajs/openapi so no page, script or extra route is mounted; only this one
// JSON document.

import { Elysia } from 'elysia'
import { Type, type Static, type TBoolean, type TSchema } from '@sinclair/typebox'
import { VERSION } from '../version.ts'
import { accessOfRoute, requirementOf } from './access.ts'
import { codeToStatus, ERROR_CODES, type ErrorCode } from './errors.ts'
import type { AuditAction, AuditEvent as AuditEventRecord } from '../audit/audit.ts'
import { UPSTREAM_NAMES, type UpstreamName } from '../config.ts'
import type { Setting as StoredSetting } from '../db/storage.ts'
import {
  DEFAULT_PAGE_SIZE,
  MAX_IDENTIFIER_LENGTH,
  MAX_PAGE_SIZE,
  MAX_PAGE_TOKEN_LENGTH,
  MIN_PAGE_SIZE,
  type IdentityPage as IdentityPageAnswer,
} from '../identities/model.ts'
import { ACTIONS as AUDIT_ACTIONS, DEFAULT_AUDIT_LIMIT, MAX_AUDIT_LIMIT, REQUEST_ID_PATTERN } from '../security/audit-query.ts'
import type { PostureCheck as PostureCheckAnswer } from '../security/posture.ts'
import type { Role } from '../session/cookie.ts'
import { MAX_CATEGORY_LENGTH, MAX_VALUE_BYTES, SETTING_KEY_PATTERN } from '../settings/service.ts'
import { MAX_LAYOUT_BYTES } from '../support/layout.ts'
import type { PublicConfig as PublicConfigAnswer } from '../support/runtime-config.ts'
import type { ServiceHealth as ServiceHealthAnswer } from '../support/services-health.ts'
import type { SessionLocationsService } from '../support/session-locations.ts'
import { DAYS_PARAMETER } from '../support/session-locations-routes.ts'
import type { SocialConnections } from '../support/social.ts'

type SocialProviderAnswer = Awaited<ReturnType<SocialConnections['providers']>>[number]

interface RouteLike {
  method: string
  path: string
  hooks?: Record<string, unknown>
}

type Json = Record<string, unknown>

/** Mutual assignability: a documented schema and the code's own type must describe the same values. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false

// Response schemas (components.schemas), written from the types the handlers return; most are tied
// to that type by a compile-time check below (the answers built inline in their handlers are not),
// and test/openapi.test.ts validates real answers against every one of them.
// Plain TypeBox, not Elysia's `t`: its Integer also accepts numeric strings (for query coercion).

const Setting = Type.Object(
  {
    key: Type.String({ pattern: SETTING_KEY_PATTERN }),
    value: Type.String({ description: 'The value as stored: ciphertext when `encrypted` is true, unless `?decrypt=true` asked for the plaintext.' }),
    encrypted: Type.Boolean(),
    category: Type.Union([Type.String(), Type.Null()]),
    updated_at: Type.String({ format: 'date-time', description: 'ISO 8601 in UTC with milliseconds.' }),
  },
  { additionalProperties: false },
)
const settingMatches: Same<Static<typeof Setting>, StoredSetting> = true

const IdentitySummary = Type.Object(
  {
    id: Type.String({ description: 'Identity id (a UUID in Kratos).' }),
    schema_id: Type.Unknown({ description: 'As the identity store gives it (a string in Kratos); null when absent.' }),
    state: Type.Unknown({ description: 'As the identity store gives it (`active` or `inactive` in Kratos); null when absent.' }),
    traits: Type.Unknown({ description: 'As the identity store gives it (an object with `email` in Kratos); null when absent.' }),
    created_at: Type.Unknown({ description: 'As the identity store gives it (an ISO 8601 date-time in Kratos); null when absent.' }),
    updated_at: Type.Unknown({ description: 'As the identity store gives it (an ISO 8601 date-time in Kratos); null when absent.' }),
  },
  { additionalProperties: false },
)
const IdentityPage = Type.Object(
  {
    identities: Type.Array(IdentitySummary),
    next_page_token: Type.Union([Type.String(), Type.Null()], { description: 'The `page_token` of the next page; null on the last page.' }),
    has_more: Type.Boolean(),
  },
  { additionalProperties: false },
)
const identityPageMatches: Same<Static<typeof IdentityPage>, IdentityPageAnswer> = true

const SessionInfo = Type.Object(
  {
    user: Type.Object(
      { identityId: Type.String(), email: Type.String(), role: Type.Union([Type.Literal('admin'), Type.Literal('viewer')]) },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
)
const sessionInfoMatches: Same<Static<typeof SessionInfo>['user']['role'], Role> = true

const AuditEvent = Type.Object(
  {
    id: Type.Integer({ minimum: 1 }),
    at: Type.String({ format: 'date-time', description: 'ISO 8601 in UTC with milliseconds.' }),
    action: Type.Union(Object.keys(AUDIT_ACTIONS).map((action) => Type.Literal(action as AuditAction))),
    actor: Type.Union([Type.String(), Type.Null()], { description: 'The identity id of whoever acted; null for the command line or the service itself.' }),
    target: Type.Union([Type.String(), Type.Null()], { description: 'A setting key, an identity id or a proxied path; never a value.' }),
    detail: Type.Union([Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()])), Type.Null()]),
    request_id: Type.Union([Type.String(), Type.Null()], {
      description: 'The request the event came in: its `X-Request-Id` answer header and its log line\'s `request_id`. Null for the command line and for events recorded before it was kept.',
    }),
  },
  { additionalProperties: false },
)
const auditEventMatches: Same<Static<typeof AuditEvent>, AuditEventRecord> = true
const AuditPage = Type.Object(
  {
    events: Type.Array(AuditEvent, { description: 'Newest first.' }),
    next_before: Type.Union([Type.Integer(), Type.Null()], { description: 'The `before` of the next (older) page; null on the last page.' }),
  },
  { additionalProperties: false },
)

const Health = Type.Object({ status: Type.Literal('ok') }, { additionalProperties: false })

const upstreamName = Type.Union(UPSTREAM_NAMES.map((name) => Type.Literal(name)))
const nullableString = Type.Union([Type.String(), Type.Null()])

const ServiceHealth = Type.Object(
  {
    name: upstreamName,
    configured: Type.Boolean(),
    healthy: Type.Boolean(),
    version: nullableString,
    response_ms: Type.Union([Type.Number(), Type.Null()], { description: 'Milliseconds until /health/alive answered; null when it did not.' }),
  },
  { additionalProperties: false },
)
const serviceHealthMatches: Same<Static<typeof ServiceHealth>, ServiceHealthAnswer> = true

const PostureCheck = Type.Object(
  {
    id: Type.String(),
    status: Type.Union([Type.Literal('pass'), Type.Literal('warn'), Type.Literal('fail')]),
    message: Type.String(),
    remedy: Type.Optional(Type.String({ description: 'What to do about a warning or failure; absent on a pass.' })),
  },
  { additionalProperties: false },
)
const postureCheckMatches: Same<Static<typeof PostureCheck>, PostureCheckAnswer> = true

const PublicConfig = Type.Object(
  {
    version: Type.String(),
    environment: Type.Union([Type.Literal('production'), Type.Literal('development')]),
    login_configured: Type.Boolean(),
    encryption_available: Type.Boolean(),
    previous_encryption_key_set: Type.Boolean(),
    upstreams: Type.Object(Object.fromEntries(UPSTREAM_NAMES.map((name) => [name, Type.Boolean()])) as Record<UpstreamName, TBoolean>, {
      additionalProperties: false,
    }),
    geo_database: Type.Union([Type.Literal('embedded'), Type.Literal('custom')], { description: 'The database that answers: custom only when GEOIP_DATABASE_PATH could be read.' }),
    session_max_age_seconds: Type.Integer(),
    settings_cache_ttl_seconds: Type.Number(),
    identity_recheck_seconds: Type.Number(),
    proxy_timeout_ms: Type.Number(),
    log_level: Type.Union([Type.Literal('debug'), Type.Literal('info'), Type.Literal('warn'), Type.Literal('error')]),
  },
  { additionalProperties: false },
)
const publicConfigMatches: Same<Static<typeof PublicConfig>, PublicConfigAnswer> = true

const LocationPoint = Type.Object({ lat: Type.Number(), lng: Type.Number(), label: Type.String(), count: Type.Integer({ minimum: 1 }) }, { additionalProperties: false })
const SessionLocations = Type.Object(
  {
    points: Type.Array(LocationPoint, { description: 'Sorted by count, most first.' }),
    truncated: Type.Boolean({ description: 'True when the walk stopped before the oldest sessions (a page or session bound, or the walk took PROXY_TIMEOUT_MS).' }),
  },
  { additionalProperties: false },
)
const sessionLocationsMatches: Same<Static<typeof SessionLocations>, Extract<Awaited<ReturnType<SessionLocationsService['points']>>, { ok: true }>['answer']> = true

const GeoAnswer = Type.Object(
  {
    ip: Type.String(),
    country: Type.String({ description: 'ISO 3166-1 alpha-2.' }),
    country_name: Type.Optional(Type.String()),
    lat: Type.Number(),
    lng: Type.Number(),
    city: Type.Optional(Type.String()),
    region: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
)

const SocialProvider = Type.Object({ id: Type.String(), display_name: Type.String() }, { additionalProperties: false })
const socialProviderMatches: Same<Static<typeof SocialProvider>, SocialProviderAnswer> = true

// The compile-time checks above, used here so none is an unused local.
void [
  settingMatches,
  identityPageMatches,
  sessionInfoMatches,
  auditEventMatches,
  serviceHealthMatches,
  postureCheckMatches,
  publicConfigMatches,
  sessionLocationsMatches,
  socialProviderMatches,
]

const SCHEMAS = {
  Setting,
  IdentityPage,
  SessionInfo,
  AuditPage,
  Health,
  ServiceHealth,
  PostureCheck,
  PublicConfig,
  SessionLocations,
  GeoAnswer,
  SocialProvider,
} satisfies Record<string, TSchema>

const ref = (name: keyof typeof SCHEMAS): Json => ({ $ref: `#/components/schemas/${name}` })
const object = (properties: Record<string, Json>): Json => ({ type: 'object', required: Object.keys(properties), additionalProperties: false, properties })

interface QueryParameter {
  name: string
  required?: boolean
  description: string
  schema: Json
  /** The error code a value outside the schema is refused with (always a 400). */
  refusedWith?: ErrorCode
  example?: string
}

interface Answer {
  description: string
  /** A JSON body's schema; see `content` for other media types. */
  schema?: Json
  content?: Json
  /** Where a redirect points. */
  location?: string
}

interface RouteDocumentation {
  /** Query parameters the handler reads itself (route schemas describe the others). */
  query?: QueryParameter[]
  /** A request body the handler checks itself. */
  body?: Json
  /** Every success status the handler can answer; errors are the `default` envelope. */
  answers: Record<string, Answer>
}

const ONCE = 'Given at most once (a repeated parameter is refused).'
const HTML = { 'text/html': { schema: { type: 'string' } } }
const BROWSER_FAILURE =
  'A failure is the error envelope; to a browser opening the address (`Sec-Fetch-Mode: navigate`, or without that header an `Accept` naming `text/html`) it is a page with the same status that says so in words and links to sign in again.'

/**
 * What the route schemas do not say, one entry per route (`METHOD path` as in app.routes): the
 * parameters and bodies the handlers check by hand, and every success status. The numbers come
 * from the routes' own constants where they have one; the rest (the audit filters' patterns, a
 * page token's characters) are written here and held to the handlers by the bounds test.
 */
export const ROUTE_DOCUMENTATION: Record<string, RouteDocumentation> = {
  'GET /api/health': { answers: { '200': { description: 'Configured and the database answers (else 503 `not_configured`).', schema: ref('Health') } } },
  'GET /api/auth/login': {
    query: [
      {
        name: 'return_to',
        description:
          'Where to land after sign-in: a plain path under `/dashboard`, with an optional query. Anything else is ignored (never refused) and the sign-in lands on `/dashboard`.',
        schema: { type: 'string' },
      },
      {
        name: 'prompt',
        description:
          'Only `login`: the provider is asked to let the person sign in anew (OpenID Connect `prompt=login`), as another account, even when it remembers one; the way back after an account was refused. Any other value is ignored.',
        schema: { type: 'string', enum: ['login'] },
      },
    ],
    answers: {
      '302': {
        description: `To the provider's authorization endpoint; the \`oauth_state\`, \`oauth_verifier\` and \`oauth_return_to\` flow cookies are set. ${BROWSER_FAILURE}`,
        location: 'The authorization endpoint with `client_id`, `response_type=code`, `scope`, `redirect_uri`, `state`, `code_challenge` and `code_challenge_method=S256` (and `prompt=login` when asked for).',
      },
    },
  },
  'GET /api/auth/callback': {
    query: [
      { name: 'state', description: 'Must equal the `oauth_state` cookie; when it is missing or different the answer is a 302 to `/api/auth/login` and nothing else is looked at.', schema: { type: 'string' } },
      { name: 'code', description: 'The authorization code; missing (without `error`) → 401 `login_failed`.', schema: { type: 'string' } },
      { name: 'error', description: 'The provider refused the sign-in → 401 `login_failed` (its text is never echoed).', schema: { type: 'string' } },
      { name: 'error_description', description: 'Read with `error`; never echoed.', schema: { type: 'string' } },
      { name: 'iss', description: 'The issuer (RFC 9207); checked when the provider announces it.', schema: { type: 'string' } },
    ],
    answers: {
      '302': {
        description:
          `Signed in: to the remembered page under \`/dashboard\` (else \`/dashboard\`) with the \`admin-session\` cookie set. Or, when \`state\` does not match the flow cookie, to \`/api/auth/login\` with no session cookie. The flow cookies are cleared either way. ${BROWSER_FAILURE}`,
        location: 'A path under `/dashboard`, or `/api/auth/login`.',
      },
    },
  },
  'GET /api/auth/session': { answers: { '200': { description: 'Who is signed in (401 `not_authenticated` without a valid session).', schema: ref('SessionInfo') } } },
  'POST /api/auth/logout': { answers: { '204': { description: 'Signed out; the session cookie is cleared and the session revoked.' } } },
  'GET /dashboard/assets/*': {
    answers: { '200': { description: 'A bundled script or stylesheet, cached as immutable.', content: { 'text/javascript': { schema: { type: 'string' } }, 'text/css': { schema: { type: 'string' } } } } },
  },
  'GET /dashboard': { answers: { '200': { description: 'The operator UI\'s page.', content: HTML } } },
  'GET /dashboard/*': { answers: { '200': { description: 'The operator UI\'s page (the UI routes the path).', content: HTML } } },
  'GET /': { answers: { '302': { description: 'To the dashboard.', location: '`/dashboard`' } } },
  'POST /api/security/sessions/revoke': { answers: { '204': { description: 'Every session of the identity has ended.' } } },
  'GET /api/security/audit': {
    query: [
      {
        name: 'limit',
        description: `Events per page, digits only. ${ONCE}`,
        schema: { type: 'integer', minimum: 1, maximum: MAX_AUDIT_LIMIT, default: DEFAULT_AUDIT_LIMIT },
        refusedWith: 'bad_request',
      },
      {
        name: 'before',
        description: `Only events older than this id: the previous page's \`next_before\`. Digits only. ${ONCE}`,
        schema: { type: 'integer', minimum: 1, maximum: 999_999_999_999_999 },
        refusedWith: 'bad_request',
      },
      { name: 'action', description: `Only events of this action. ${ONCE}`, schema: { type: 'string', enum: Object.keys(AUDIT_ACTIONS) }, refusedWith: 'bad_request' },
      {
        name: 'actor',
        description: `Only events by this identity id (printable ASCII). ${ONCE}`,
        schema: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[!-~]+$' },
        refusedWith: 'bad_request',
      },
      {
        name: 'request_id',
        description: `Only the events of this request: the \`X-Request-Id\` its answer carried (and its log line's \`request_id\`). ${ONCE}`,
        schema: { type: 'string', pattern: REQUEST_ID_PATTERN.source },
        refusedWith: 'bad_request',
        example: '0f6b2a4e-6c1d-4e8f-9a3b-5d7c1e2f3a4b',
      },
      {
        name: 'about',
        description:
          'Only the events about this identity, OAuth client or setting, as the events record it: the sign-ins and sign-outs of an identity, the ending of its dashboard sessions, ' +
          'the writes to a setting, and the writes through an admin prefix that created it, revoked its tokens, asked for a recovery link or code for it, or went to a path under `/admin/identities/<id>` or `/admin/clients/<id>` ' +
          `(recorded as the upstream reads the path: percent-decoded, a Kratos id in lower case whatever its spelling; a write recorded before schema 6 under the id through encodeURIComponent, as the dashboard's UI sends it, is found by the id too). 1–255 characters, no control characters. ${ONCE}`,
        schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[^\\x00-\\x1f\\x7f-\\x9f]+$' },
        refusedWith: 'bad_request',
      },
    ],
    answers: { '200': { description: 'One page of the audit trail, newest first.', schema: ref('AuditPage') } },
  },
  'GET /api/security/posture': {
    answers: { '200': { description: 'The deployment\'s checks.', schema: object({ checks: { type: 'array', items: ref('PostureCheck') } }) } },
  },
  'GET /api/settings': { answers: { '200': { description: 'Every setting (of the category, when given), sorted by key; values as stored.', schema: { type: 'array', items: ref('Setting') } } } },
  'GET /api/settings/:key': { answers: { '200': { description: 'The setting (404 `not_found` when the key is not set).', schema: ref('Setting') } } },
  'POST /api/settings': {
    answers: {
      '201': { description: 'Created; the setting as stored.', schema: ref('Setting') },
      '200': { description: 'Replaced (value, `encrypted` and `category`); the setting as stored.', schema: ref('Setting') },
    },
  },
  'DELETE /api/settings/:key': { answers: { '204': { description: 'The setting is deleted (404 `not_found` when the key is not set).' } } },
  'POST /api/encrypt': { answers: { '200': { description: 'The value encrypted, bound to no setting key.', schema: object({ ciphertext: { type: 'string' } }) } } },
  'GET /api/identities': {
    query: [
      {
        name: 'page_size',
        description: `Identities per page, digits only. ${ONCE}`,
        schema: { type: 'integer', minimum: MIN_PAGE_SIZE, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE },
        refusedWith: 'invalid_page_size',
      },
      {
        name: 'page_token',
        description: `Opaque cursor: the previous page's \`next_page_token\`, passed through unchanged. Omitted or empty: the first page. ${ONCE}`,
        schema: { type: 'string', maxLength: MAX_PAGE_TOKEN_LENGTH },
        refusedWith: 'invalid_page_token',
      },
      {
        name: 'credentials_identifier',
        description: `Exact match on the login identifier (e-mail or username); no control characters. Empty: no filter. ${ONCE}`,
        schema: { type: 'string', maxLength: MAX_IDENTIFIER_LENGTH, pattern: '^[^\\u0000-\\u001f\\u007f-\\u009f]*$' },
        refusedWith: 'invalid_credentials_identifier',
      },
    ],
    answers: { '200': { description: 'One page of identities (one identity store call).', schema: ref('IdentityPage') } },
  },
  'GET /api/dashboard/layout': {
    answers: { '200': { description: 'The signed-in identity\'s layout; null when it has none.', schema: object({ layout: { type: ['object', 'null'] } }) } },
  },
  'PUT /api/dashboard/layout': {
    body: object({
      layout: { type: 'object', description: `Any JSON object of at most ${MAX_LAYOUT_BYTES} bytes (64 KiB) of UTF-8 as JSON text; larger → 413 \`payload_too_large\`.` },
    }),
    answers: { '200': { description: 'Stored; the layout as stored.', schema: object({ layout: { type: 'object' } }) } },
  },
  'GET /api/geo': {
    query: [
      { name: 'ip', required: true, description: `An IPv4 or IPv6 address; not an address → 400, private or unknown → 404. ${ONCE}`, schema: { type: 'string', minLength: 1 }, refusedWith: 'bad_request', example: '8.8.8.8' },
    ],
    answers: { '200': { description: 'Where the address is (city and region when the database has them).', schema: ref('GeoAnswer') } },
  },
  'GET /api/session-locations': {
    query: [
      {
        name: 'days',
        description: `How many days back, digits only. ${ONCE}`,
        schema: { type: 'integer', minimum: DAYS_PARAMETER.min, maximum: DAYS_PARAMETER.max, default: DAYS_PARAMETER.fallback },
        refusedWith: 'bad_request',
      },
    ],
    answers: { '200': { description: 'Where active sessions of the managed store come from, grouped.', schema: ref('SessionLocations') } },
  },
  'GET /api/services/health': {
    answers: { '200': { description: 'Each upstream, by prefix name.', schema: object({ services: { type: 'array', items: ref('ServiceHealth') } }) } },
  },
  'GET /api/connections/social': {
    answers: { '200': { description: 'The enabled social sign-in providers, in display order.', schema: object({ providers: { type: 'array', items: ref('SocialProvider') } }) } },
  },
  'GET /api/config': { answers: { '200': { description: 'The non-secret effective configuration.', schema: ref('PublicConfig') } } },
  'GET /api/openapi.json': { answers: { '200': { description: 'This document.', schema: { type: 'object' } } } },
}

/** A proxied route answers whatever the upstream answered; these are its success classes. */
const PROXIED_ANSWERS: Record<string, Answer> = {
  '2XX': { description: 'The upstream\'s answer, passed through (status, end-to-end headers, body).' },
  '3XX': { description: 'The upstream\'s redirect, not followed; a Location inside the upstream is rewritten under this prefix.' },
}

/**
 * Body fields whose route schema cannot say the real limit (JSON Schema's maxLength counts code
 * points): the settings value is limited in UTF-8 bytes, and the category in code points.
 */
const valueInBytes = (schema: Json): Json => ({
  ...schema,
  description: `At most ${MAX_VALUE_BYTES} bytes (64 KiB) of UTF-8; \`maxLength\` is only the bound in characters that follows from it. No U+0000.`,
  'x-max-utf8-bytes': MAX_VALUE_BYTES,
})
const categoryInCharacters = (schema: Json): Json => ({
  ...schema,
  anyOf: ((schema.anyOf as Json[] | undefined) ?? []).map((branch) =>
    branch.type === 'string' ? { ...branch, maxLength: MAX_CATEGORY_LENGTH, description: `At most ${MAX_CATEGORY_LENGTH} characters (code points). No U+0000.` } : branch,
  ),
})
const BODY_FIELDS: Record<string, Record<string, (schema: Json) => Json>> = {
  'POST /api/settings': { value: valueInBytes, category: categoryInCharacters },
  'POST /api/encrypt': { value: valueInBytes },
}

function refineBody(key: string, body: Json): Json {
  const fields = BODY_FIELDS[key]
  const properties = body.properties as Record<string, Json> | undefined
  if (!fields || !properties) return body
  const refined = { ...properties }
  for (const [name, refine] of Object.entries(fields)) if (refined[name]) refined[name] = refine(refined[name])
  return { ...body, properties: refined }
}

const ANY_METHOD = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const

/** `:key` → `{key}`; a trailing `*` (a proxied prefix) → `{path}`. */
function openApiPath(path: string): string {
  return path.replace(/:([^/]+)/g, '{$1}').replace(/\*$/, '{path}')
}

/** TypeBox schemas are JSON Schema; the JSON round trip drops TypeBox's symbol keys. */
function plain(schema: unknown): Json | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined
  return JSON.parse(JSON.stringify(schema)) as Json
}

function parametersOf(hooks: Record<string, unknown>, pathParams: string[], documented: RouteDocumentation | undefined): Json[] {
  const out: Json[] = []
  const params = plain(hooks.params)?.properties as Record<string, Json> | undefined
  for (const name of pathParams) {
    out.push({ name, in: 'path', required: true, schema: params?.[name] ?? { type: 'string' } })
  }
  const query = plain(hooks.query)
  const required = new Set((query?.required as string[] | undefined) ?? [])
  for (const [name, schema] of Object.entries((query?.properties as Record<string, Json> | undefined) ?? {})) {
    out.push({ name, in: 'query', required: required.has(name), schema })
  }
  for (const { name, required = false, description, schema, refusedWith, example } of documented?.query ?? []) {
    out.push({ name, in: 'query', required, description, schema, ...(example ? { example } : {}), ...(refusedWith ? { 'x-error-code': refusedWith } : {}) })
  }
  const headers = plain(hooks.headers)
  const requiredHeaders = new Set((headers?.required as string[] | undefined) ?? [])
  for (const [name, schema] of Object.entries((headers?.properties as Record<string, Json> | undefined) ?? {})) {
    const { description, ...rest } = schema
    out.push({ name, in: 'header', required: requiredHeaders.has(name), ...(description === undefined ? {} : { description }), schema: rest })
  }
  return out
}

function answerOf({ description, schema, content, location }: Answer): Json {
  return {
    description,
    ...(location ? { headers: { Location: { description: location, schema: { type: 'string' } } } } : {}),
    ...(schema ? { content: { 'application/json': { schema } } } : content ? { content } : {}),
  }
}

function responsesOf(route: RouteLike, hooks: Record<string, unknown>, documented: RouteDocumentation | undefined): Json {
  const responses: Json = {}
  const answers = route.method === 'ALL' ? PROXIED_ANSWERS : documented?.answers
  for (const [status, answer] of Object.entries(answers ?? {})) responses[status] = answerOf(answer)
  const declared = plain(hooks.response)
  if (declared && (declared.type !== undefined || declared.anyOf !== undefined || declared.$ref !== undefined)) {
    responses['200'] = { description: 'Success.', content: { 'application/json': { schema: declared } } }
  } else if (declared) {
    for (const [status, schema] of Object.entries(declared)) {
      responses[status] = { description: 'Success.', content: { 'application/json': { schema } } }
    }
  }
  if (Object.keys(responses).length === 0) responses['200'] = { description: 'Success.' }
  responses.default = { $ref: '#/components/responses/Error' }
  return responses
}

function operation(route: RouteLike): Json {
  const hooks = route.hooks ?? {}
  const key = `${route.method} ${route.path}`
  const documented = ROUTE_DOCUMENTATION[key]
  const pathParams = [...openApiPath(route.path).matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!)
  // What the gate decides for a request routed here (the same judgment as the route rule's).
  const requirement = requirementOf(accessOfRoute(route.path))
  const op: Json = {
    operationId: `${route.method.toLowerCase()}${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
    'x-access': requirement,
    security: requirement === 'none' ? [] : [{ sessionCookie: [] }],
    parameters: parametersOf(hooks, pathParams, documented),
    responses: responsesOf(route, hooks, documented),
  }
  if (route.method === 'ALL') {
    op.description =
      'Proxied to the upstream unchanged; the API key is added server-side. The upstream\'s own answers, its errors included, pass through as they are; `default` is this service\'s own refusals (the gate, a bad path, an upstream that cannot be reached).'
  }
  const routeBody = plain(hooks.body)
  const body = routeBody ? refineBody(key, routeBody) : documented?.body
  if (body) op.requestBody = { required: true, content: { 'application/json': { schema: body } } }
  return op
}

function buildOpenApiDocument(routes: readonly RouteLike[]): Json {
  const paths: Record<string, Json> = {}
  for (const route of routes) {
    const path = openApiPath(route.path)
    const item = (paths[path] ??= {})
    const methods = route.method === 'ALL' ? ANY_METHOD : [route.method.toLowerCase()]
    for (const method of methods) {
      const op = operation(route)
      if (route.method === 'ALL') op.operationId = `${op.operationId as string}_${method}`
      item[method] = op
    }
  }
  const statuses = [...new Set(ERROR_CODES.map(codeToStatus))].sort((a, b) => a - b)
  return {
    openapi: '3.1.0',
    info: { title: 'admin-dashboard', version: VERSION },
    paths,
    components: {
      securitySchemes: {
        sessionCookie: { type: 'apiKey', in: 'cookie', name: 'admin-session', description: 'The dashboard session cookie set by the sign-in. The role a route needs is its `x-access`: `session` (admin or viewer) or `admin`.' },
      },
      schemas: {
        ...Object.fromEntries(Object.entries(SCHEMAS).map(([name, schema]) => [name, plain(schema)])),
        ErrorEnvelope: {
          type: 'object',
          required: ['error', 'message'],
          additionalProperties: false,
          properties: {
            error: { type: 'string', enum: [...ERROR_CODES] },
            message: { type: 'string' },
            hint: { type: 'string' },
          },
        },
      },
      responses: {
        Error: {
          description: `An error; the HTTP status follows the code: ${statuses
            .map((status) => `${status}: ${ERROR_CODES.filter((code) => codeToStatus(code) === status).join(', ')}`)
            .join('; ')}.`,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
        },
      },
    },
    'x-error-statuses': Object.fromEntries(ERROR_CODES.map((code) => [code, codeToStatus(code)])),
  }
}

export function openApiRoutes(routes: () => readonly RouteLike[]) {
  let document: Json | null = null
  // Built on first use, once every route is registered.
  return new Elysia({ name: 'openapi' }).get('/api/openapi.json', () => (document ??= buildOpenApiDocument(routes())))
}
