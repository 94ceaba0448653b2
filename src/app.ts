// The composition root: the only place plugins are mounted and dependencies are wired.

import { Elysia } from 'elysia'
import type { Database } from 'bun:sqlite'
import type { Config } from './config.ts'
import { systemClock, type Clock } from './clock.ts'
import type { Logger } from './log.ts'
import { createGate } from './http/gate.ts'
import { createSessionAssertion } from './http/session-assertion.ts'
import { openApiRoutes } from './http/openapi.ts'
import { createErrorHandler, createMethodIndex } from './http/error-handler.ts'
import { readJsonBody } from './http/body.ts'
import { healthRoutes } from './health/index.ts'
import { authRoutes } from './auth/index.ts'
import { dashboardRoutes } from './dashboard/index.ts'
import { securityRoutes } from './security/index.ts'
import { configRoutes, GeoLocator, geoRoutes, layoutRoutes, servicesRoutes, sessionLocationsRoutes, socialRoutes } from './support/index.ts'
import { isProxiedPath, proxyRoutes } from './proxy/index.ts'
import { RevocationStore } from './session/revocations.ts'
import { SessionVerifier } from './session/verifier.ts'
import { IdentityStoreClient } from './identities/store.ts'
import { AuditLog } from './audit/audit.ts'
import { createSettingsService, type SettingsService } from './settings/service.ts'
import { settingsRoutes } from './settings/index.ts'
import { identitiesRoutes } from './identities/index.ts'

export interface AppDeps {
  config: Config
  db: Database
  log: Logger
  clock?: Clock
  /** Outbound HTTP for upstream calls. */
  fetch?: typeof fetch
}

export interface Services {
  config: Config
  db: Database
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
  /** Every dashboard session of this identity stops working now (revocation, identity deleted). */
  endSessionsOf(identityId: string): void
}

export function createServices(deps: AppDeps): Services {
  const clock = deps.clock ?? systemClock
  const outbound = deps.fetch ?? fetch
  const { config, log } = deps
  const revocations = new RevocationStore(deps.db, Math.floor(clock.now() / 1000))
  const audit = new AuditLog(deps.db, clock)
  const settings = createSettingsService({ config, db: deps.db, audit, clock, log })
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
  )
  const endSessionsOf = (identityId: string) => {
    revocations.revokeIdentity(identityId, clock.now())
    verifier.forgetIdentity(identityId)
  }
  return { config, db: deps.db, log, clock, fetch: outbound, revocations, verifier, managedStore, loginStore, audit, settings, endSessionsOf }
}

const STREAMED_BODY = Object.freeze({ streamed: true })

export function createApp(deps: AppDeps) {
  const services = createServices(deps)
  const { config, log } = services
  const gate = createGate({
    verifier: services.verifier,
    baseOrigin: config.baseUrl?.origin ?? null,
    secureCookies: config.environment !== 'development',
  })

  // The router reads the path from the same offset as the gate (request-context.ts): Elysia's default
  // assumed a host of at least four characters and routed short-Host requests by a shifted path.
  const app = new Elysia({ name: 'admin-dashboard', handler: { standardHostname: false } })
  const allowedMethods = createMethodIndex(() => app.routes)
  // One geo database per app: the geo route and the session map read the same one.
  const geo = new GeoLocator({ customPath: config.geoipDatabasePath, log })
  app
    .onRequest(gate)
    .onParse({ as: 'global' }, ({ request, contentType }) =>
      // Proxied bodies are streamed to the upstream untouched; a value returned here keeps Elysia's parser away.
      isProxiedPath(request) ? STREAMED_BODY : readJsonBody(request, contentType),
    )
    // Runs after routing and before validation: the dispatched route's own rule, checked again.
    .onTransform({ as: 'global' }, createSessionAssertion(log))
    .onError({ as: 'global' }, createErrorHandler(log, allowedMethods))
    .use(healthRoutes(config, services.db))
    .use(authRoutes(services))
    .use(dashboardRoutes())
    .use(securityRoutes(services))
    .use(proxyRoutes(services))
    .use(settingsRoutes(services))
    .use(identitiesRoutes(services))
    .use(layoutRoutes(services))
    .use(geoRoutes(geo))
    .use(sessionLocationsRoutes(services, geo))
    .use(servicesRoutes(services))
    .use(socialRoutes(services))
    .use(configRoutes(services))
    .use(openApiRoutes(() => app.routes))

  return { app, services }
}

export type App = ReturnType<typeof createApp>['app']
