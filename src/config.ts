// The environment contract (decisions §2), validated once at start into a typed Config.
// Every message names a variable, never its value.

/** PROXY_TIMEOUT_MS when unset. */
export const DEFAULT_PROXY_TIMEOUT_MS = 10_000

export const UPSTREAM_NAMES = ['idp', 'idp-admin', 'iam-idp', 'iam-idp-admin', 'oauth', 'oauth-admin'] as const
export type UpstreamName = (typeof UPSTREAM_NAMES)[number]

const UPSTREAM_VARIABLES: Record<UpstreamName, string> = {
  idp: 'IDP_PUBLIC_URL',
  'idp-admin': 'IDP_ADMIN_URL',
  'iam-idp': 'IAM_IDP_PUBLIC_URL',
  'iam-idp-admin': 'IAM_IDP_ADMIN_URL',
  oauth: 'OAUTH_PUBLIC_URL',
  'oauth-admin': 'OAUTH_ADMIN_URL',
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error'
const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error']

export interface Config {
  sessionSigningKey: Uint8Array
  encryptionKey: Uint8Array | null
  encryptionKeyPrevious: Uint8Array | null
  baseUrl: URL | null
  oauth: {
    issuerUrl: URL | null
    clientId: string | null
    authorizationUrl: URL | null
    tokenUrl: URL | null
    userinfoUrl: URL | null
  }
  upstreams: Record<UpstreamName, URL | null>
  host: string
  port: number
  databasePath: string
  /** postgres:// or postgresql:// URL: PostgreSQL instead of the SQLite file at databasePath. */
  databaseUrl: string | null
  environment: 'production' | 'development'
  proxyTimeoutMs: number
  /** HTTP_PROXY (or http_proxy) is set: Bun's fetch sends plain-HTTP requests through it (minding NO_PROXY). */
  outboundHttpProxy: boolean
  settingsCacheTtlSeconds: number
  identityRecheckSeconds: number
  logLevel: LogLevel
  geoipDatabasePath: string | null
}

export type Environment = Record<string, string | undefined>
/** `notes`: what is not wrong but likely a mistake (a variable name misspelt), in words that name no value. */
type ConfigResult = { ok: true; config: Config; notes: string[] } | { ok: false; errors: string[] }

export const MIN_KEY_BYTES = 32

/** Standard or url-safe base64, padded or not. Returns null when the text is not base64. */
export function decodeBase64Key(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) return null
  const unpadded = text.replace(/=+$/, '')
  if (unpadded.length % 4 === 1) return null
  const standard = unpadded.replace(/-/g, '+').replace(/_/g, '/')
  return new Uint8Array(Buffer.from(standard, 'base64'))
}

export function loadConfig(env: Environment): ConfigResult {
  const errors: string[] = []
  /** Every variable this function reads: what a misspelt name is compared with. */
  const known = new Set<string>()
  const read = (name: string): string | undefined => {
    known.add(name)
    const value = env[name]
    return value === undefined || value.trim() === '' ? undefined : value.trim()
  }

  const key = (name: string, required: boolean): Uint8Array | null => {
    const text = read(name)
    if (text === undefined) {
      if (required) errors.push(`${name} is required (base64 of at least ${MIN_KEY_BYTES} random bytes)`)
      return null
    }
    const bytes = decodeBase64Key(text)
    if (bytes === null) {
      errors.push(`${name} is not valid base64`)
      return null
    }
    if (bytes.length < MIN_KEY_BYTES) {
      errors.push(`${name} must decode to at least ${MIN_KEY_BYTES} bytes`)
      return null
    }
    return bytes
  }

  const url = (name: string, { origin = false } = {}): URL | null => {
    const text = read(name)
    if (text === undefined) return null
    let parsed: URL
    try {
      parsed = new URL(text)
    } catch {
      errors.push(`${name} is not a valid URL`)
      return null
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      errors.push(`${name} must be an http or https URL`)
      return null
    }
    if (parsed.username || parsed.password || parsed.search || parsed.hash) {
      errors.push(`${name} must not contain credentials, a query or a fragment`)
      return null
    }
    if (origin && parsed.pathname !== '/') {
      errors.push(`${name} must be an origin without a path`)
      return null
    }
    return parsed
  }

  // Bun's fetch sends plain-HTTP requests through this proxy: a value it cannot use would turn every
  // proxied call into a 502. Credentials are allowed (proxies use them), so nothing of it is quoted.
  const proxyUrl = (name: string): boolean => {
    const text = read(name)
    if (text === undefined) return false
    const parsed = URL.parse(text)
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || !parsed.hostname) {
      errors.push(`${name} must be an http:// or https:// URL of the proxy (host and port, credentials allowed)`)
    } else if (parsed.search || parsed.hash) {
      errors.push(`${name} must not contain a query or a fragment`)
    }
    return true
  }

  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const text = read(name)
    if (text === undefined) return fallback
    if (!/^[0-9]+$/.test(text) || Number(text) < min || Number(text) > max) {
      errors.push(`${name} must be an integer from ${min} to ${max}`)
      return fallback
    }
    return Number(text)
  }

  const sessionSigningKey = key('SESSION_SIGNING_KEY', true)
  const encryptionKey = key('ENCRYPTION_KEY', false)
  const encryptionKeyPrevious = key('ENCRYPTION_KEY_PREVIOUS', false)
  if (sessionSigningKey && encryptionKey && Buffer.from(sessionSigningKey).equals(Buffer.from(encryptionKey))) {
    errors.push('ENCRYPTION_KEY must differ from SESSION_SIGNING_KEY')
  }
  if (sessionSigningKey && encryptionKeyPrevious && Buffer.from(sessionSigningKey).equals(Buffer.from(encryptionKeyPrevious))) {
    errors.push('ENCRYPTION_KEY_PREVIOUS must differ from SESSION_SIGNING_KEY')
  }
  // The same key twice rotates nothing: `settings reencrypt` would report values re-encrypted under
  // the key they already had, and the old key, if the operator meant to retire one, is still unknown.
  if (encryptionKey && encryptionKeyPrevious && Buffer.from(encryptionKey).equals(Buffer.from(encryptionKeyPrevious))) {
    errors.push('ENCRYPTION_KEY_PREVIOUS must differ from ENCRYPTION_KEY: it is the other key of a rotation (leave it unset when no rotation is under way)')
  }

  const upstreams = {} as Record<UpstreamName, URL | null>
  for (const name of UPSTREAM_NAMES) upstreams[name] = url(UPSTREAM_VARIABLES[name])

  const host = read('HOST') ?? '127.0.0.1'
  if (!/^[A-Za-z0-9.:_\[\]-]+$/.test(host)) errors.push('HOST is not a valid bind address')

  const logLevel = (read('LOG_LEVEL') ?? 'info').toLowerCase()
  if (!LOG_LEVELS.includes(logLevel as LogLevel)) errors.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`)

  const databaseUrl = read('DATABASE_URL') ?? null
  if (databaseUrl !== null) {
    let parsed: URL | null = null
    try {
      parsed = new URL(databaseUrl)
    } catch {
      errors.push('DATABASE_URL is not a valid URL')
    }
    if (parsed && parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
      errors.push('DATABASE_URL must be a postgres:// or postgresql:// URL')
    } else if (parsed && !parsed.hostname && !parsed.searchParams.has('host') && !parsed.searchParams.has('path')) {
      errors.push('DATABASE_URL must name a host')
    } else if (parsed) {
      errors.push(...databaseUrlProblems(parsed))
    }
  }

  const clientId = read('OAUTH_CLIENT_ID') ?? null
  if (clientId !== null && !/^[\x21-\x7e]{1,255}$/.test(clientId)) errors.push('OAUTH_CLIENT_ID must be printable ASCII')

  const config: Config = {
    sessionSigningKey: sessionSigningKey ?? new Uint8Array(),
    encryptionKey,
    encryptionKeyPrevious,
    baseUrl: url('BASE_URL', { origin: true }),
    oauth: {
      issuerUrl: url('OAUTH_ISSUER_URL'),
      clientId,
      authorizationUrl: url('OAUTH_AUTHORIZATION_URL'),
      tokenUrl: url('OAUTH_TOKEN_URL'),
      userinfoUrl: url('OAUTH_USERINFO_URL'),
    },
    upstreams,
    host,
    port: integer('PORT', 3000, 0, 65535),
    databasePath: read('DATABASE_PATH') ?? './data/admin-dashboard.db',
    databaseUrl,
    environment: read('NODE_ENV') === 'development' ? 'development' : 'production',
    // Bun keeps an idle connection at most 255 s (server.ts idleSecondsFor): a longer wait would answer nobody.
    proxyTimeoutMs: integer('PROXY_TIMEOUT_MS', DEFAULT_PROXY_TIMEOUT_MS, 1, 250_000),
    outboundHttpProxy: [proxyUrl('HTTP_PROXY'), proxyUrl('http_proxy')].some(Boolean),
    settingsCacheTtlSeconds: integer('SETTINGS_CACHE_TTL_SECONDS', 60, 0, 86_400),
    identityRecheckSeconds: integer('IDENTITY_RECHECK_SECONDS', 60, 0, 86_400),
    logLevel: logLevel as LogLevel,
    geoipDatabasePath: read('GEOIP_DATABASE_PATH') ?? null,
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, config, notes: configurationNotes(env, known) }
}

/**
 * A variable set but never read whose name is a near miss of one that is (`OAUTH_CLIENTID`,
 * `DATABSE_URL`): the setting it was meant for silently keeps its default. And a NODE_ENV that is
 * neither production nor development (only `development` changes anything).
 */
function configurationNotes(env: Environment, known: ReadonlySet<string>): string[] {
  const notes: string[] = []
  const squashed = (name: string) => name.replaceAll('_', '').toUpperCase()
  for (const name of Object.keys(env)) {
    if (known.has(name) || OTHERS_READ.has(name) || !/^[A-Z][A-Z0-9_]{5,63}$/.test(name)) continue
    const meant = [...known].find((other) => squashed(other) === squashed(name) || (other.length >= 8 && editDistanceAtMost(name, other, 2)))
    if (meant !== undefined) notes.push(`${name} is not read by this service; did you mean ${meant}?`)
  }
  const nodeEnv = env.NODE_ENV?.trim()
  if (nodeEnv && nodeEnv !== 'production' && nodeEnv !== 'development') {
    notes.push('NODE_ENV is neither production nor development: it is taken as production (only development changes anything)')
  }
  return notes
}

/** Read by others in this process (Bun's fetch), and near misses of ours: never taken for typing mistakes. */
const OTHERS_READ = new Set(['HTTPS_PROXY', 'NO_PROXY', 'ALL_PROXY'])

/** Whether `a` becomes `b` with at most `most` single-character insertions, deletions or substitutions. */
function editDistanceAtMost(a: string, b: string, most: number): boolean {
  if (Math.abs(a.length - b.length) > most) return false
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    if (Math.min(...row) > most) return false
    previous = row
  }
  return previous[b.length]! <= most
}

const SSL_MODES = ['disable', 'disabled', 'allow', 'prefer', 'preferred', 'require', 'required', 'verify-ca', 'verify_ca', 'verify-full', 'verify_full', 'verify-identity', 'verify_identity']
const MAX_SECONDS = 2 ** 31

/**
 * What Bun's SQL client would refuse in a DATABASE_URL (it throws while constructing, echoing the
 * value), said here by parameter name so check-config refuses it too. Never quotes a value.
 */
function databaseUrlProblems(url: URL): string[] {
  const problems: string[] = []
  const whole = (text: string, min: number, max: number) => /^[0-9]+$/.test(text) && Number(text) >= min && Number(text) <= max
  // The driver percent-decodes these; a lone % (an unencoded password) makes it throw.
  for (const [part, text] of [['user name', url.username], ['password', url.password], ['database name', url.pathname]] as const) {
    try {
      decodeURIComponent(text)
    } catch {
      problems.push(`DATABASE_URL: the ${part} has a % not followed by two hex digits (write a literal % as %25)`)
    }
  }
  if (url.port !== '' && !whole(url.port, 1, 65535)) problems.push('DATABASE_URL: the port must be from 1 to 65535')
  for (const [name, value] of url.searchParams) {
    if (name.includes('\u0000') || value.includes('\u0000')) {
      problems.push('DATABASE_URL: a query parameter contains a NUL byte')
      continue
    }
    if (value === '') continue
    const key = name.toLowerCase()
    const lower = value.toLowerCase()
    if ((key === 'sslmode' || key === 'ssl-mode' || key === 'ssl_mode') && !SSL_MODES.includes(lower)) {
      problems.push(`DATABASE_URL: ${key} must be one of disable, allow, prefer, require, verify-ca, verify-full`)
    } else if ((key === 'ssl' || key === 'tls') && !['true', '1', 'false', '0', ...SSL_MODES].includes(lower)) {
      problems.push(`DATABASE_URL: ${key} must be true, false or an sslmode`)
    } else if ((key === 'connect_timeout' || key === 'idle_timeout' || key === 'max_lifetime') && !whole(value, 0, MAX_SECONDS)) {
      problems.push(`DATABASE_URL: ${key} must be a whole number of seconds`)
    } else if (key === 'max' && !whole(value, 1, MAX_SECONDS)) {
      problems.push('DATABASE_URL: max must be a whole number of at least 1')
    } else if (key === 'port' && !whole(value, 1, 65535)) {
      problems.push('DATABASE_URL: port must be from 1 to 65535')
    } else if (key === 'channel_binding' && !['disable', 'prefer', 'require'].includes(value)) {
      problems.push('DATABASE_URL: channel_binding must be disable, prefer or require')
    }
  }
  return problems
}

/** The variables login needs that are not set (names only). */
export function missingLoginVariables(config: Config): string[] {
  const missing: string[] = []
  if (!config.baseUrl) missing.push('BASE_URL')
  if (!config.oauth.issuerUrl) missing.push('OAUTH_ISSUER_URL')
  if (!config.oauth.clientId) missing.push('OAUTH_CLIENT_ID')
  return missing
}
