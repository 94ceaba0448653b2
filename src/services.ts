// The service's long-lived parts, built once from the configuration: the stores, the session
// verifier, the audit trail, the settings layer and the identity-store clients. Plugins receive
// the parts they use (narrowed with Pick), never the composition root.

import type { Config } from './config.ts'
import type { Storage } from './db/storage.ts'
import { systemClock, type Clock } from './clock.ts'
import type { Logger } from './log.ts'
import { RevocationStore } from './session/revocations.ts'
import { secureCookies } from './session/cookie.ts'
import { SessionVerifier } from './session/verifier.ts'
import { IdentityStoreClient } from './identities/store.ts'
import { AuditLog } from './audit/audit.ts'
import { createSettingsService, type SettingsService } from './settings/service.ts'
import { canonicalUuid } from './text.ts'

export interface AppDeps {
  config: Config
  /** SQLite or PostgreSQL (src/db/open.ts). */
  storage: Storage
  log: Logger
  clock?: Clock
  /** Outbound HTTP for upstream calls. */
  fetch?: typeof fetch
  /** How often expired revoked sessions are forgotten (PRUNE_EVERY_MS unless a test shortens it). */
  revocationPruneEveryMs?: number
}

export interface Services {
  config: Config
  storage: Storage
  log: Logger
  clock: Clock
  fetch: typeof fetch
  revocations: RevocationStore
  verifier: SessionVerifier
  /** The managed identity store (IDP_ADMIN_URL): identities list, session map. Null when not configured. */
  managedStore: IdentityStoreClient | null
  /** Where the admins themselves live (decisions §3): IAM_IDP_ADMIN_URL, else the managed store. */
  loginStore: IdentityStoreClient | null
  audit: AuditLog
  /** The settings layer: cached reads for consumers (`apiKeyFor`), audited writes for the routes and CLI. */
  settings: SettingsService
  /**
   * Every dashboard session of this identity stops working now (revocation, identity deleted).
   * With `by`, the `sessions_revoke` audit event is committed together with the revocation.
   */
  endSessionsOf(identityId: string, by?: { actor: string; requestId: string | undefined }): Promise<void>
  /** Settles when what the gate needs from the storage is loaded. */
  ready(): Promise<void>
  /** Stops the timers (revocation pruning); the storage is closed by whoever opened it. */
  close(): void
}

export function createServices(deps: AppDeps): Services {
  const clock = deps.clock ?? systemClock
  const outbound = deps.fetch ?? fetch
  const { config, log } = deps
  const { storage } = deps
  const revocations = new RevocationStore(storage, { clock, log, pruneEveryMs: deps.revocationPruneEveryMs })
  const audit = new AuditLog(storage, clock)
  const settings = createSettingsService({ config, storage, audit, clock, log })
  // A Kratos admin API, called with the API key of its own prefix.
  const identityStore = (name: 'idp-admin' | 'iam-idp-admin'): IdentityStoreClient | null => {
    const baseUrl = config.upstreams[name]
    return baseUrl
      ? new IdentityStoreClient({ baseUrl, apiKey: () => settings.apiKeyFor(name), timeoutMs: config.proxyTimeoutMs, fetch: outbound, log, name })
      : null
  }
  const managedStore = identityStore('idp-admin')
  const loginStore = identityStore('iam-idp-admin') ?? managedStore
  const verifier = new SessionVerifier(
    config.sessionSigningKey,
    clock,
    revocations,
    // No login identity store: nobody can have a valid session, so fail closed.
    loginStore ? (id) => loginStore.presence(id) : async () => 'unavailable',
    config.identityRecheckSeconds,
    secureCookies(config),
  )
  const endSessionsOf = async (identityId: string, by?: { actor: string; requestId: string | undefined }) => {
    // Sessions carry the id as Kratos gives it; the caller may have spelled it another way Kratos accepts.
    const id = canonicalUuid(identityId)
    verifier.forgetIdentity(id)
    await revocations.revokeIdentity(id, clock.now(), by ? audit.entry({ action: 'sessions_revoke', actor: by.actor, target: id, requestId: by.requestId }) : undefined)
  }
  const ready = async () => {
    await Promise.all([revocations.ready, storage.changes.ready()])
  }
  const close = () => revocations.close()
  return { config, storage, log, clock, fetch: outbound, revocations, verifier, managedStore, loginStore, audit, settings, endSessionsOf, ready, close }
}
