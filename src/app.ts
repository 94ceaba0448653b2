// The composition root: the only place plugins are mounted and dependencies are wired.

import { Elysia } from 'elysia'
import { createGate, gateHook } from './http/gate.ts'
import { answerPlainValue } from './http/plain-answer.ts'
import { createSessionAssertion } from './http/session-assertion.ts'
import { openApiRoutes } from './http/openapi.ts'
import { createErrorHandler, createMethodIndex } from './http/error-handler.ts'
import { readJsonBody } from './http/body.ts'
import { healthAnswer, healthRoutes } from './health/index.ts'
import { authRoutes, sessionRoute } from './auth/index.ts'
import { createDirectLane } from './http/direct.ts'
import { dashboardRoutes } from './dashboard/index.ts'
import { securityRoutes } from './security/index.ts'
import { configRoutes, GeoLocator, geoRoutes, layoutRoutes, servicesRoutes, sessionLocationsRoutes, socialRoutes } from './support/index.ts'
import { createProxy, isProxiedPath } from './proxy/index.ts'
import { createServices, type AppDeps } from './services.ts'
import { settingsRoutes } from './settings/index.ts'
import { identitiesRoutes } from './identities/index.ts'
import { secureCookies } from './session/cookie.ts'

const STREAMED_BODY = Object.freeze({ streamed: true })

export function createApp(deps: AppDeps) {
  const services = createServices(deps)
  const { config, log } = services
  const gate = createGate({
    verifier: services.verifier,
    baseOrigin: config.baseUrl?.origin ?? null,
    secureCookies: secureCookies(config),
  })

  // The router reads the path from the same offset as the gate (request-context.ts): Elysia's default
  // assumed a host of at least four characters and routed short-Host requests by a shifted path.
  const app = new Elysia({ name: 'admin-dashboard', handler: { standardHostname: false } })
  const allowedMethods = createMethodIndex(() => app.routes)
  // One geo database per app: the geo route and the session map read the same one.
  const geo = new GeoLocator({ customPath: config.geoipDatabasePath, log })
  const onError = createErrorHandler(log, allowedMethods)
  const health = healthAnswer(config, services.storage, services.revocations)
  const session = sessionRoute(services)
  const proxy = createProxy(services)
  const routeRule = createSessionAssertion(log)
  app
    .onRequest(gateHook(gate))
    .onParse({ as: 'global' }, ({ request, contentType }) =>
      // Proxied bodies are streamed to the upstream untouched; a value returned here keeps Elysia's parser away.
      isProxiedPath(request) ? STREAMED_BODY : readJsonBody(request, contentType),
    )
    // Runs after routing and before validation: the dispatched route's own rule, checked again.
    .onTransform({ as: 'global' }, routeRule)
    .onError({ as: 'global' }, onError)
    .mapResponse({ as: 'global' }, answerPlainValue)
    .use(healthRoutes(health))
    .use(authRoutes(services, session))
    .use(dashboardRoutes())
    .use(securityRoutes(services))
    .use(proxy.routes)
    .use(settingsRoutes(services))
    .use(identitiesRoutes(services))
    .use(layoutRoutes(services))
    .use(geoRoutes(geo))
    .use(sessionLocationsRoutes(services, geo))
    .use(servicesRoutes(services))
    .use(socialRoutes(services))
    .use(configRoutes(services, geo))
    .use(openApiRoutes(() => app.routes))

  // The two public GET routes asked most often, and every request under a proxy prefix, skip
  // Elysia's lifecycle (src/http/direct.ts): any hook added above must also hold for them, or they
  // leave this lane. Elysia's proxy routes stay for `app.routes` (the access table's test, the
  // OpenAPI document) and for `app.handle` in tests; the server sends them none.
  const direct = createDirectLane({ gate, onError, routes: { '/api/health': health, '/api/auth/session': session }, proxy: { forward: proxy.forward, routeRule } })
  /** What the server calls for each request. */
  const handle = (request: Request): Response | Promise<Response> => direct(request) ?? app.fetch(request)

  return { app, services, handle, direct }
}

export type App = ReturnType<typeof createApp>['app']
