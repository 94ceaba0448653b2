// The create and edit form of an OAuth 2.0 client (Hydra's client fields), validated before it is
// sent: redirect URIs are absolute URLs without "#", post-logout redirect URIs are on the scheme,
// host and port of a redirect URI, a public client (`none`) is never told a secret (Hydra gives it
// one it does not answer) and cannot use the client-credentials grant, a `private_key_jwt` client
// has an https JWKS URI unless its keys are inline, lifespans are Go durations as Hydra expects.
import { useState } from 'preact/hooks'
import type { ComponentChildren, Ref } from 'preact'
import { CLIENT_LIFESPANS, type ClientLifespan, type OAuthClient } from '../../api.ts'
import { same, valuePatch, type PatchOp } from '../../components/json-patch.ts'
import type { Members } from '../../components/changed-meanwhile.tsx'
import { unavailableWhile } from '../../components/one-at-a-time.ts'

const GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials', 'implicit']
const RESPONSE_TYPES = ['code', 'id_token', 'token']
/** Hydra's other grant types, named for a person when a client has one. */
const GRANT_NAMES: Record<string, string> = {
  'urn:ietf:params:oauth:grant-type:jwt-bearer': 'JWT bearer',
  'urn:ietf:params:oauth:grant-type:device_code': 'device code',
}
export const grantName = (grant: string) => GRANT_NAMES[grant] ?? (GRANT_TYPES.includes(grant) ? grant.replace(/_/g, ' ') : grant)
const AUTH_METHODS: { value: string; label: string }[] = [
  { value: 'client_secret_basic', label: 'client_secret_basic (HTTP Basic)' },
  { value: 'client_secret_post', label: 'client_secret_post (form body)' },
  { value: 'private_key_jwt', label: 'private_key_jwt' },
  { value: 'none', label: 'none (public client, no secret)' },
]
/** Go's duration units in nanoseconds: µ as the micro sign (U+00B5) and as the Greek mu (U+03BC), as Go takes both. */
const DURATION_UNITS: Record<string, bigint> = { ns: 1n, us: 1_000n, 'µs': 1_000n, 'μs': 1_000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n }
/** The longest duration Go holds: 1<<63-1 ns, 2562047h47m16.854775807s. */
const LONGEST_DURATION = 2n ** 63n - 1n

/**
 * The nanoseconds of a duration written as Go's time.ParseDuration reads it, which Hydra decodes a
 * lifespan with (x/sqlx.go NullDuration): an optional sign, then one or more decimal numbers (digits
 * before the point, after it, or both) each with its unit; "0" alone needs none. Null when it is not
 * written so. Go also refuses more than LONGEST_DURATION, which this leaves to the caller.
 */
export function goDuration(text: string): bigint | null {
  let rest = text
  const negative = rest.startsWith('-')
  if (negative || rest.startsWith('+')) rest = rest.slice(1)
  if (rest === '0') return 0n
  if (rest === '') return null
  let total = 0n
  while (rest !== '') {
    const [term, whole = '', fraction, unitName = ''] = /^([0-9]*)(?:\.([0-9]*))?([^0-9.]*)/.exec(rest)!
    const unit = Object.hasOwn(DURATION_UNITS, unitName) ? DURATION_UNITS[unitName]! : null
    if ((whole === '' && !fraction) || unit === null) return null
    total += BigInt(whole || '0') * unit + (fraction ? (BigInt(fraction) * unit) / 10n ** BigInt(fraction.length) : 0n)
    rest = rest.slice(term.length)
  }
  return negative ? -total : total
}

/** A refresh token's lifespan: one below 0 means the token never expires (below). */
export const isRefreshLifespan = (name: ClientLifespan) => name.endsWith('_refresh_token_lifespan')

/**
 * A refresh token lifespan below 0 means the token never expires: fosite sets a refresh token's
 * expiry only `if rtLifespan > -1` (fosite/handler/oauth2/flow_authorize_code_token.go, flow_refresh.go,
 * rfc8628/token_handler.go), and Hydra documents -1 for it (spec/config.json).
 */
export const neverExpires = (name: ClientLifespan, value: string): boolean => {
  if (!isRefreshLifespan(name)) return false
  const duration = goDuration(value)
  return duration !== null && duration < 0n
}

const SECOND = 1_000_000_000n

/**
 * What is wrong with a lifespan, if anything. Hydra takes any duration Go reads (client/validator.go
 * checks none), but a token's expiry is now plus its lifespan, rounded to the second
 * (fosite/handler/oauth2/flow_authorize_code_token.go): with 0, or under a second, tokens expire as
 * they are issued. Below 0 is that too, but for a refresh token, which then never expires.
 */
export function lifespanProblem(value: string, name: ClientLifespan): string | null {
  const duration = goDuration(value)
  if (duration === null) return 'Use a duration such as 1h, 30m, 1h30m or 1.5h.'
  // Go holds down to -(1<<63) ns and up to 1<<63-1: past either, it refuses the lifespan.
  if (duration > LONGEST_DURATION || duration < -LONGEST_DURATION - 1n) return 'Longer than Hydra can hold: at most 2562047h (about 292 years).'
  if (duration < 0n && isRefreshLifespan(name)) return null
  if (duration < SECOND)
    return isRefreshLifespan(name)
      ? 'A lifespan must be at least 1s: tokens would expire as they are issued. Leave it empty for Hydra’s default, or use -1s for a refresh token that never expires.'
      : 'A lifespan must be at least 1s: tokens would expire as they are issued. Leave it empty for Hydra’s default.'
  return null
}

const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/

export interface ClientDraft {
  client_name: string
  redirect_uris: string
  post_logout_redirect_uris: string
  grant_types: string[]
  response_types: string[]
  scope: string
  audience: string
  token_endpoint_auth_method: string
  /** Sent only for `private_key_jwt` (and not when the client's keys are inline). */
  jwks_uri: string
  /** Not a field: whether the client has its public keys inline (`jwks`, set through Hydra's API), which the form keeps. */
  inline_jwks: boolean
  skip_consent: boolean
  lifespans: Record<ClientLifespan, string>
}

const lines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean)

/**
 * Whether the client has its public keys inline. Hydra takes `jwks` for a key set as soon as it has a
 * `keys` member, even null (the JSON decoder allocates go-jose's set embedded in x/sqlx.go
 * JoseJSONWebKeySet to set it); `{}`, which Hydra answers for a client without, is none
 * (client/client.go GetJSONWebKeys, client/validator.go Validate).
 */
export function hasInlineJwks(client: OAuthClient | null): boolean {
  const jwks = client?.jwks
  return typeof jwks === 'object' && jwks !== null && !Array.isArray(jwks) && 'keys' in jwks
}

export function draftOf(client: OAuthClient | null): ClientDraft {
  const lifespans = {} as Record<ClientLifespan, string>
  for (const name of CLIENT_LIFESPANS) lifespans[name] = client?.[name] ?? ''
  return {
    client_name: client?.client_name ?? '',
    redirect_uris: (client?.redirect_uris ?? []).join('\n'),
    post_logout_redirect_uris: (client?.post_logout_redirect_uris ?? []).join('\n'),
    grant_types: client?.grant_types ?? ['authorization_code', 'refresh_token'],
    response_types: client?.response_types ?? ['code'],
    scope: client?.scope ?? 'openid offline_access',
    audience: (client?.audience ?? []).join('\n'),
    token_endpoint_auth_method: client?.token_endpoint_auth_method ?? 'client_secret_basic',
    jwks_uri: client?.jwks_uri ?? '',
    inline_jwks: hasInlineJwks(client),
    skip_consent: client?.skip_consent ?? false,
    lifespans,
  }
}

function absoluteUrlProblem(value: string): string | null {
  // A browser's parser would take two URIs separated by a space for one with a space in its path,
  // and so would Hydra: a redirect URI no client can ever send.
  if (/\s/.test(value)) {
    // Several URIs on a line, or words that are no URI at all: each said as it is.
    const parts = value.split(/\s+/).filter(Boolean)
    if (parts.length > 1 && parts.every((part) => URL.canParse(part))) return `“${value}” has a space in it. URIs go one per line.`
    if (!URL.canParse(value.split(/\s+/)[0]!)) return `“${value}” is not an absolute URL (it needs a scheme, like https://app.example.com/callback).`
    return `“${value}” has a space in it, which a URI cannot have.`
  }
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return `“${value}” is not an absolute URL (it needs a scheme, like https://app.example.com/callback).`
  }
  // Hydra refuses any "#", even with nothing after it (which leaves `url.hash` empty).
  if (value.includes('#')) return `“${value}” has a fragment (#…), which redirect URIs may not have.`
  if ((url.protocol === 'http:' || url.protocol === 'https:') && !url.hostname) return `“${value}” has no host.`
  return null
}

/**
 * What Hydra compares between a post-logout redirect URI and the redirect URIs: the scheme, host and
 * port as Go reads them (the scheme lower-cased, the host as written, the port only when written).
 */
function schemeHostPort(uri: string): string {
  const [, scheme = '', host = '', port = ''] = /^([A-Za-z][A-Za-z0-9+.-]*):(?:\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]*)(?::([0-9]*))?)?/.exec(uri) ?? []
  return `${scheme.toLowerCase()} ${host} ${port}`
}

/** Whether the draft sends a JWKS URI: the client signs its assertions, and its keys are not inline (Hydra refuses both). */
const sendsJwksUri = (draft: ClientDraft) => draft.token_endpoint_auth_method === 'private_key_jwt' && !draft.inline_jwks

/**
 * A `private_key_jwt` client's JWKS URI: Hydra refuses such a client without keys (client/validator.go
 * Validate), and fetches them from this URL to check each assertion the client signs
 * (fosite/client_authentication.go findClientPublicJWK). Hydra takes any scheme; over plain HTTP
 * whoever can change the answer on the way could put in keys of their own and sign as the client.
 */
function jwksUriProblem(draft: ClientDraft, stored: OAuthClient | null | undefined): string | null {
  if (!sendsJwksUri(draft)) return null
  const value = draft.jwks_uri.trim()
  if (!value) return 'A private_key_jwt client needs the https URL of its public keys.'
  // Hydra took it (through its API, say) for a client that already signs with it: an edit of
  // something else is not refused for it. A client made private_key_jwt by this edit starts fetching
  // its keys from the URI now, so a stored one is judged like a new one.
  if (stored?.token_endpoint_auth_method === 'private_key_jwt' && value === (stored.jwks_uri ?? '').trim()) return null
  if (/\s/.test(value)) return `“${value}” has a space in it.`
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return `“${value}” is not an absolute URL (like https://app.example.com/.well-known/jwks.json).`
  }
  if (url.protocol !== 'https:') return `“${value}” does not use https: keys fetched without it could be swapped on the way, and whoever did so could sign as this client.`
  return null
}

type DraftErrors = Partial<Record<keyof ClientDraft | ClientLifespan, string>>

/** `stored`: the client an edit is of, whose JWKS URI is not judged again while it stays private_key_jwt. */
export function validateDraft(draft: ClientDraft, stored?: OAuthClient | null): DraftErrors {
  // No length for the name: Hydra stores it as text and its validator sets none (client/validator.go).
  const errors: DraftErrors = {}
  const jwksProblem = jwksUriProblem(draft, stored)
  if (jwksProblem) errors.jwks_uri = jwksProblem
  const redirects = lines(draft.redirect_uris)
  const redirectProblem = redirects.map(absoluteUrlProblem).find(Boolean)
  if (redirectProblem) errors.redirect_uris = redirectProblem
  else if (redirects.length === 0 && signsPeopleIn(draft.grant_types))
    errors.redirect_uris = 'The authorization code and implicit grants need at least one redirect URI.'
  const logouts = lines(draft.post_logout_redirect_uris)
  const origins = new Set(redirects.map(schemeHostPort))
  const logoutProblem =
    logouts.map(absoluteUrlProblem).find(Boolean) ??
    logouts.filter((uri) => !origins.has(schemeHostPort(uri))).map((uri) => `“${uri}” is not on the scheme, host and port of one of the redirect URIs, as Hydra requires.`)[0]
  if (logoutProblem) errors.post_logout_redirect_uris = logoutProblem
  if (draft.grant_types.length === 0) errors.grant_types = 'Choose at least one grant type.'
  else if (draft.token_endpoint_auth_method === 'none' && draft.grant_types.includes('client_credentials'))
    errors.grant_types = 'A public client (no secret) cannot use the client credentials grant.'
  // Response types are about the authorization endpoint: a client that never goes there (client
  // credentials only) needs none, and Hydra takes an empty list as "code".
  if (draft.response_types.length === 0 && signsPeopleIn(draft.grant_types))
    errors.response_types = 'Choose at least one response type: the authorization code and implicit grants use them.'
  const badScope = draft.scope.split(/\s+/).filter(Boolean).find((token) => !SCOPE_TOKEN.test(token))
  if (badScope) errors.scope = `“${badScope}” is not a valid scope.`
  for (const name of CLIENT_LIFESPANS) {
    const value = draft.lifespans[name].trim()
    // One Hydra already holds (set through its API: -1ns, say) does not stop an edit of something else.
    const problem = value && value !== stored?.[name] ? lifespanProblem(value, name) : null
    if (problem) errors[name] = problem
  }
  return errors
}

/** The client fields the form shows and sends. */
export const FORM_FIELDS: readonly string[] = [
  'client_name',
  'redirect_uris',
  'post_logout_redirect_uris',
  'grant_types',
  'response_types',
  'scope',
  'audience',
  'token_endpoint_auth_method',
  'jwks_uri',
  'skip_consent',
  ...CLIENT_LIFESPANS,
]

/**
 * Whether a client with these grants goes to the authorization endpoint, where people sign in (the
 * authorization code and implicit grants): it needs a redirect URI and a response type there.
 */
export const signsPeopleIn = (grants: readonly string[] | null | undefined) => (grants ?? []).some((grant) => grant === 'authorization_code' || grant === 'implicit')

/** How the form tidies the text of these fields before sending it (`clientBody`). */
const tidy = {
  client_name: (text: string) => text.trim(),
  scope: (text: string) => text.split(/\s+/).filter(Boolean).join(' '),
  jwks_uri: (text: string) => text.trim(),
}
const TIDIED = Object.keys(tidy) as (keyof typeof tidy)[]

/** The client body Hydra takes; never a secret (Hydra keeps the existing one on update). */
export function clientBody(draft: ClientDraft): Partial<OAuthClient> {
  const body: Partial<OAuthClient> = {
    client_name: tidy.client_name(draft.client_name),
    redirect_uris: lines(draft.redirect_uris),
    post_logout_redirect_uris: lines(draft.post_logout_redirect_uris),
    grant_types: draft.grant_types,
    response_types: draft.response_types,
    scope: tidy.scope(draft.scope),
    audience: lines(draft.audience),
    token_endpoint_auth_method: draft.token_endpoint_auth_method,
    skip_consent: draft.skip_consent,
  }
  // Only where the form shows it: another method leaves the client's JWKS URI as it is.
  if (sendsJwksUri(draft)) body.jwks_uri = tidy.jwks_uri(draft.jwks_uri)
  for (const name of CLIENT_LIFESPANS) {
    const value = draft.lifespans[name].trim()
    if (value) body[name] = value
  }
  return body
}

/** Fields Hydra sets itself: not sent back on update (a `client_secret` in the body would become the new secret). */
const SERVER_SET = ['client_secret', 'client_secret_expires_at', 'updated_at', 'registration_access_token', 'registration_client_uri']

/**
 * The client as the edit leaves it: the client as loaded with the form's fields over it, so what
 * the form does not show (metadata, contacts, CORS origins, client_uri, keys…) is unchanged. No
 * secret, so Hydra keeps the stored one.
 */
export function clientUpdate(loaded: OAuthClient, draft: ClientDraft): OAuthClient {
  const body: Record<string, unknown> = { ...loaded, ...clientBody(draft), client_id: loaded.client_id }
  // Text the form tidies (spaces around a name, between scopes) is kept as stored when the form's
  // version of it is the same: an untouched field is no change ("   " as a name stays "   ").
  const stored = loaded as unknown as Record<string, unknown>
  for (const field of TIDIED) {
    const before = stored[field]
    if (typeof before === 'string' && field in body && tidy[field](before) === body[field]) body[field] = before
  }
  // A lifespan emptied in the form goes back to Hydra's default.
  for (const name of CLIENT_LIFESPANS) body[name] = draft.lifespans[name].trim() || null
  for (const field of SERVER_SET) delete body[field]
  return body as unknown as OAuthClient
}

/** Nothing, whichever way Hydra spells it: a missing field, null, an empty string or list, false. */
const isEmpty = (value: unknown) => value === undefined || value === null || value === '' || value === false || (Array.isArray(value) && value.length === 0)

/**
 * The body of `PATCH /admin/clients/{id}`: the fields the form changed, and only those, so a field
 * someone changed elsewhere since the page loaded (another operator, the Hydra CLI) is kept unless
 * this edit changed it too.
 */
export function clientPatch(loaded: OAuthClient, draft: ClientDraft): PatchOp[] {
  const before = loaded as unknown as Record<string, unknown>
  const after = clientUpdate(loaded, draft) as unknown as Record<string, unknown>
  const fields = new Set<string>([...Object.keys(clientBody(draft)), ...CLIENT_LIFESPANS])
  return [...fields].flatMap((field) => (isEmpty(before[field]) && isEmpty(after[field]) ? [] : valuePatch([field], before[field], after[field])))
}

/** Whether a client of this method authenticates with its secret ("" and missing are Hydra's default, client_secret_basic). */
export const usesSecret = (method: string | undefined) => method === undefined || method === '' || method === 'client_secret_basic' || method === 'client_secret_post'

/**
 * Whether saving `draft` must give the client a new secret: it moves to a method that needs one
 * from a method that did not use it. Hydra made a public client a random secret at create and told
 * nobody (client/handler.go CreateClient answers it only `if !c.IsPublic()`), and a PATCH without a
 * secret keeps the stored one (persistence/sql/persister_client.go UpdateClient): the client would
 * be confidential with a secret nobody knows. A `private_key_jwt` client's secret, shown at create,
 * was never used, so it is as good as unknown.
 */
export const needsNewSecret = (loaded: OAuthClient, draft: ClientDraft) => !usesSecret(loaded.token_endpoint_auth_method) && usesSecret(draft.token_endpoint_auth_method)

/**
 * A new client secret, made here and sent in the PATCH (`/client_secret`): Hydra v26 has no call
 * that makes one for an existing client (POST /admin/clients/{id}/secrets/rotate came after
 * v26.2.0), and its PATCH takes a secret, hashes it and answers it this once (client/handler.go
 * patchOAuth2Client, updateClient). 32 random bytes in base64url: 43 characters of Hydra's own
 * secret alphabet (x/secret.go), over its minimum of 6 (client/validator.go) and under bcrypt's 72
 * bytes (oryx/hasherx/hasher_bcrypt.go).
 */
export function newClientSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32))
  return btoa(String.fromCharCode(...bytes)).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '')
}

/** The patch operation that sets the client's secret. */
export const secretPatch = (secret: string): PatchOp => ({ op: 'add', path: '/client_secret', value: secret })

const scopeTokens = (scope: unknown) => (typeof scope === 'string' ? scope.split(/\s+/).filter(Boolean) : scope)

/**
 * The form's fields of a client as the changed-meanwhile check compares them: nothing in any of
 * Hydra's spellings is null, and the scope is its list of scopes. The lists, the scope included,
 * are what a save sets whole: a scope or a redirect URI added elsewhere meanwhile would be undone.
 */
export function formMembers(client: OAuthClient): Members {
  const record = client as unknown as Record<string, unknown>
  const members: Members = {}
  for (const field of FORM_FIELDS) {
    const value = field === 'scope' ? scopeTokens(record.scope) : record[field]
    members[field] = isEmpty(value) ? null : value
  }
  return members
}

/** The names of the form's fields that set a list whole, as the changed-meanwhile notice says them. */
export const WHOLE_FIELD_NAMES: Record<string, string> = {
  redirect_uris: 'redirect URIs',
  post_logout_redirect_uris: 'post-logout redirect URIs',
  grant_types: 'grant types',
  response_types: 'response types',
  scope: 'scope',
  audience: 'audience',
}

/** A list field's value as its box holds it: one per line; the scope separated by spaces. */
export function fieldText(key: string, value: unknown): string {
  if (value === null || value === undefined || (Array.isArray(value) && value.length === 0)) return '(none)'
  if (!Array.isArray(value)) return String(value)
  return value.join(key === 'scope' ? ' ' : '\n')
}

/** The form's draft of `key` as the notice shows the operator's own version. */
export function draftText(draft: ClientDraft, key: string): string {
  const value = draft[key as keyof ClientDraft]
  if (Array.isArray(value)) return fieldText(key, value)
  return typeof value === 'string' && value.trim() !== '' ? value : '(none)'
}

/**
 * The edit moved onto the client as stored now (`now`): each field as stored, except those the
 * edit changed from `loaded`, which keep the edit's value, and those in `stale`, which take the
 * stored one.
 */
export function rebaseDraft(loaded: ClientDraft, edited: ClientDraft, now: ClientDraft, stale: string[]): ClientDraft {
  const next: ClientDraft = { ...now, lifespans: { ...now.lifespans } }
  for (const name of CLIENT_LIFESPANS) if (edited.lifespans[name] !== loaded.lifespans[name]) next.lifespans[name] = edited.lifespans[name]
  for (const key of Object.keys(edited) as (keyof ClientDraft)[]) {
    if (key === 'lifespans' || stale.includes(key) || same(loaded[key], edited[key])) continue
    ;(next as unknown as Record<string, unknown>)[key] = edited[key]
  }
  return next
}

/** Each lifespan's grant and token, as the form's labels and the client's page name them. */
export const LIFESPAN_NAMES: Record<ClientLifespan, { grant: string; token: string }> = {
  authorization_code_grant_access_token_lifespan: { grant: 'Authorization code grant', token: 'access token' },
  authorization_code_grant_id_token_lifespan: { grant: 'Authorization code grant', token: 'ID token' },
  authorization_code_grant_refresh_token_lifespan: { grant: 'Authorization code grant', token: 'refresh token' },
  client_credentials_grant_access_token_lifespan: { grant: 'Client credentials grant', token: 'access token' },
  implicit_grant_access_token_lifespan: { grant: 'Implicit grant', token: 'access token' },
  implicit_grant_id_token_lifespan: { grant: 'Implicit grant', token: 'ID token' },
  jwt_bearer_grant_access_token_lifespan: { grant: 'JWT bearer grant', token: 'access token' },
  refresh_token_grant_access_token_lifespan: { grant: 'Refresh token grant', token: 'access token' },
  refresh_token_grant_id_token_lifespan: { grant: 'Refresh token grant', token: 'ID token' },
  refresh_token_grant_refresh_token_lifespan: { grant: 'Refresh token grant', token: 'refresh token' },
  device_authorization_grant_access_token_lifespan: { grant: 'Device authorization grant', token: 'access token' },
  device_authorization_grant_id_token_lifespan: { grant: 'Device authorization grant', token: 'ID token' },
  device_authorization_grant_refresh_token_lifespan: { grant: 'Device authorization grant', token: 'refresh token' },
}

/** The form's own choices, then any other value of the drafts, each once, in the order met. */
const withOthers = (own: string[], ...drafts: string[][]) => [...new Set([...own, ...drafts.flat()])]

export function ClientForm(props: {
  draft: ClientDraft
  onDraft: (draft: ClientDraft) => void
  submitLabel: string
  /** A change of the page is under way: the submit button is unavailable (and keeps focus), the form busy. */
  busy: boolean
  onSubmit: (draft: ClientDraft) => void
  onCancel: () => void
  submitRef?: Ref<HTMLButtonElement>
  /** The client as stored, for an edit (what the edit is measured against). */
  stored?: OAuthClient
  /** Shown above the buttons: what a save found (the changed-meanwhile notice). */
  children?: ComponentChildren
}) {
  const { draft, onDraft: setDraft } = props
  const [errors, setErrors] = useState<DraftErrors>({})
  // A grant or response type the client has beyond the form's own (set through Hydra's API: the
  // device code grant, say) gets a box too, ticked, so that it is seen and can be taken away: those
  // of the draft the form opened with (so an unticked box stays) and of the draft now (a Reload).
  const [opened] = useState(draft)
  const grantChoices = withOthers(GRANT_TYPES, opened.grant_types, draft.grant_types)
  const responseChoices = withOthers(RESPONSE_TYPES, opened.response_types, draft.response_types)
  // Open at first when a lifespan is set; then as the person leaves it (or an error opens it).
  const [lifespansSet] = useState(() => CLIENT_LIFESPANS.some((name) => draft.lifespans[name]))
  const set = <K extends keyof ClientDraft>(key: K, value: ClientDraft[K]) => setDraft({ ...draft, [key]: value })
  const toggle = (key: 'grant_types' | 'response_types', value: string, on: boolean) =>
    set(key, on ? [...draft[key].filter((v) => v !== value), value] : draft[key].filter((v) => v !== value))
  const submit = (event: Event) => {
    event.preventDefault()
    const found = validateDraft(draft, props.stored)
    setErrors(found)
    if (Object.keys(found).length > 0) {
      const field = document.getElementById(`client-${Object.keys(found)[0]}`)
      // A field in a closed section (Token lifespans) cannot take focus: the section opens first.
      const section = field?.closest('details')
      if (section && !section.open) section.open = true
      field?.focus()
      return
    }
    props.onSubmit(draft)
  }
  /** A field's id, and what describes it: its hint (`hinted`, with the id `client-<name>-hint`) and its error. */
  const described = (name: string, hinted = false) => ({
    id: `client-${name}`,
    'aria-invalid': errors[name as keyof DraftErrors] ? ('true' as const) : undefined,
    'aria-describedby': [hinted && `client-${name}-hint`, errors[name as keyof DraftErrors] && `client-${name}-error`].filter(Boolean).join(' ') || undefined,
  })
  const error = (name: keyof DraftErrors) =>
    errors[name] && (
      <p class="field-error" id={`client-${name}-error`}>
        {errors[name]}
      </p>
    )
  return (
    <form class="form" onSubmit={submit} noValidate aria-busy={props.busy ? 'true' : undefined}>
      <div class="field">
        <label for="client-client_name">Client name</label>
        <input {...described('client_name')} value={draft.client_name} autocomplete="off" onInput={(e) => set('client_name', e.currentTarget.value)} />
        {error('client_name')}
      </div>
      <div class="field">
        <label for="client-token_endpoint_auth_method">Token endpoint authentication</label>
        <select {...described('token_endpoint_auth_method')} value={draft.token_endpoint_auth_method} onChange={(e) => set('token_endpoint_auth_method', e.currentTarget.value)}>
          {AUTH_METHODS.map((method) => (
            <option key={method.value} value={method.value}>
              {method.label}
            </option>
          ))}
        </select>
      </div>
      {draft.token_endpoint_auth_method === 'private_key_jwt' &&
        (draft.inline_jwks ? (
          <p class="hint">
            This client’s public keys are set inline (through Hydra’s API) and are kept as they are: Hydra takes inline keys or a JWKS URI, not both.
          </p>
        ) : (
          <div class="field">
            <label for="client-jwks_uri">JWKS URI</label>
            <input
              {...described('jwks_uri')}
              aria-describedby={['client-jwks_uri-hint', errors.jwks_uri && 'client-jwks_uri-error'].filter(Boolean).join(' ')}
              type="url"
              class="mono"
              value={draft.jwks_uri}
              autocomplete="off"
              spellcheck={false}
              onInput={(e) => set('jwks_uri', e.currentTarget.value)}
            />
            <p class="hint" id="client-jwks_uri-hint">
              Where Hydra fetches the client’s public keys (a JSON Web Key Set) to check the assertions it signs. An https URL.
            </p>
            {error('jwks_uri')}
          </div>
        ))}
      <div class="field">
        <label for="client-redirect_uris">Redirect URIs</label>
        <textarea {...described('redirect_uris', true)} class="mono" rows={3} value={draft.redirect_uris} spellcheck={false} onInput={(e) => set('redirect_uris', e.currentTarget.value)} />
        <p class="hint" id="client-redirect_uris-hint">
          One absolute URL per line.
        </p>
        {error('redirect_uris')}
      </div>
      <div class="field">
        <label for="client-post_logout_redirect_uris">Post-logout redirect URIs</label>
        <textarea
          {...described('post_logout_redirect_uris')}
          class="mono"
          rows={2}
          value={draft.post_logout_redirect_uris}
          spellcheck={false}
          onInput={(e) => set('post_logout_redirect_uris', e.currentTarget.value)}
        />
        {error('post_logout_redirect_uris')}
      </div>
      <fieldset class="nested" aria-describedby={errors.grant_types ? 'client-grant_types-error' : undefined}>
        <legend>Grant types</legend>
        {grantChoices.map((grant, index) => (
          <div class="field checkbox" key={grant}>
            <input
              id={index === 0 ? 'client-grant_types' : `client-grant-${grant}`}
              type="checkbox"
              checked={draft.grant_types.includes(grant)}
              onChange={(e) => toggle('grant_types', grant, e.currentTarget.checked)}
            />
            <label for={index === 0 ? 'client-grant_types' : `client-grant-${grant}`}>{grantName(grant)}</label>
          </div>
        ))}
        {error('grant_types')}
      </fieldset>
      <fieldset class="nested" aria-describedby={errors.response_types ? 'client-response_types-error' : undefined}>
        <legend>Response types</legend>
        {responseChoices.map((type, index) => (
          <div class="field checkbox" key={type}>
            <input
              id={index === 0 ? 'client-response_types' : `client-response-${type}`}
              type="checkbox"
              checked={draft.response_types.includes(type)}
              onChange={(e) => toggle('response_types', type, e.currentTarget.checked)}
            />
            <label for={index === 0 ? 'client-response_types' : `client-response-${type}`}>{type}</label>
          </div>
        ))}
        {error('response_types')}
      </fieldset>
      <div class="field">
        <label for="client-scope">Scope</label>
        <input {...described('scope', true)} class="mono" value={draft.scope} autocomplete="off" spellcheck={false} onInput={(e) => set('scope', e.currentTarget.value)} />
        <p class="hint" id="client-scope-hint">
          Separated by spaces.
        </p>
        {error('scope')}
      </div>
      <div class="field">
        <label for="client-audience">Audience</label>
        <textarea {...described('audience', true)} class="mono" rows={2} value={draft.audience} spellcheck={false} onInput={(e) => set('audience', e.currentTarget.value)} />
        <p class="hint" id="client-audience-hint">
          One per line.
        </p>
      </div>
      <div class="field checkbox">
        <input id="client-skip_consent" type="checkbox" checked={draft.skip_consent} onChange={(e) => set('skip_consent', e.currentTarget.checked)} />
        <label for="client-skip_consent">Skip consent</label>
      </div>
      <details class="nested" open={lifespansSet || CLIENT_LIFESPANS.some((name) => errors[name]) || undefined}>
        <summary>Token lifespans</summary>
        <p class="hint" id="client-lifespans-hint">
          Empty uses Hydra's default. Durations such as 1h, 30m or 720h; a refresh token lifespan below 0 (-1s) never expires.
        </p>
        {CLIENT_LIFESPANS.map((name) => (
          <div class="field" key={name}>
            <label for={`client-${name}`}>{`${LIFESPAN_NAMES[name].grant}: ${LIFESPAN_NAMES[name].token}`}</label>
            <input
              {...described(name)}
              aria-describedby={['client-lifespans-hint', errors[name] && `client-${name}-error`].filter(Boolean).join(' ')}
              class="mono"
              value={draft.lifespans[name]}
              autocomplete="off"
              onInput={(e) => setDraft({ ...draft, lifespans: { ...draft.lifespans, [name]: e.currentTarget.value } })}
            />
            {error(name)}
          </div>
        ))}
      </details>
      {props.children}
      <div class="actions">
        <button type="submit" class="primary" ref={props.submitRef} {...unavailableWhile(props.busy)}>
          {props.submitLabel}
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  )
}
