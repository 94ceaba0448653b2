// The effective configuration an administrator may see (decisions §9): what is set and how the
// service behaves, never where anything lives or any key. Booleans stand in for URLs and keys.

import { missingLoginVariables, UPSTREAM_NAMES, type Config, type UpstreamName } from '../config.ts'
import { MAX_SESSION_SECONDS } from '../session/cookie.ts'
import { BUILD } from '../version.ts'

export interface PublicConfig {
  version: string
  environment: Config['environment']
  login_configured: boolean
  encryption_available: boolean
  /** Whether ENCRYPTION_KEY_PREVIOUS is set (a key rotation is under way). */
  previous_encryption_key_set: boolean
  upstreams: Record<UpstreamName, boolean>
  geo_database: 'embedded' | 'custom'
  session_max_age_seconds: number
  settings_cache_ttl_seconds: number
  identity_recheck_seconds: number
  proxy_timeout_ms: number
  log_level: Config['logLevel']
}

/** `geoDatabase`: the database that answers (GeoLocator.source), which is not the configured one when that could not be read. */
export function describeConfig(config: Config, geoDatabase: 'embedded' | 'custom'): PublicConfig {
  const upstreams = {} as Record<UpstreamName, boolean>
  for (const name of UPSTREAM_NAMES) upstreams[name] = config.upstreams[name] !== null
  return {
    version: BUILD,
    environment: config.environment,
    login_configured: missingLoginVariables(config).length === 0,
    encryption_available: config.encryptionKey !== null,
    previous_encryption_key_set: config.encryptionKeyPrevious !== null,
    upstreams,
    geo_database: geoDatabase,
    session_max_age_seconds: MAX_SESSION_SECONDS,
    settings_cache_ttl_seconds: config.settingsCacheTtlSeconds,
    identity_recheck_seconds: config.identityRecheckSeconds,
    proxy_timeout_ms: config.proxyTimeoutMs,
    log_level: config.logLevel,
  }
}
