// The usual test setup: a Kratos-like identity store with one admin and one viewer, and the
// service pointed at it.

import { KratosFixture, type FixtureIdentity } from './kratos.ts'
import { startService, type StartOptions, type TestService } from './service.ts'
import { markSensitive } from './leaks.ts'
import type { Environment } from '../../src/config.ts'

export interface Stack {
  service: TestService
  kratos: KratosFixture
  admin: FixtureIdentity
  viewer: FixtureIdentity
  /** Cookie headers for sessions of the seeded identities, signed at start. */
  cookie: { admin: string; viewer: string }
  /** A new session (new id) for a seeded identity, as a Cookie header. */
  freshCookie(role: 'admin' | 'viewer'): string
  stop(): Promise<void>
}

export async function startStack(options: StartOptions & { env?: Environment } = {}): Promise<Stack> {
  const kratos = new KratosFixture().start()
  const admin = kratos.addIdentity({ email: 'ada.admin@example.test', role: 'admin' })
  const viewer = kratos.addIdentity({ email: 'victor.viewer@example.test', role: 'viewer' })
  markSensitive(admin.id, viewer.id, 'ada.admin@example.test', 'victor.viewer@example.test', kratos.url, String(new URL(kratos.url).port))
  const service = await startService({ ...options, env: { IDP_ADMIN_URL: kratos.url, ...options.env } })
  const cookieFor = (identity: FixtureIdentity) =>
    `admin-session=${service.sign({ sub: identity.id, role: identity.traits.role as 'admin' | 'viewer', email: identity.traits.email as string })}`
  return {
    service,
    kratos,
    admin,
    viewer,
    cookie: { admin: cookieFor(admin), viewer: cookieFor(viewer) },
    freshCookie: (role) => cookieFor(role === 'admin' ? admin : viewer),
    async stop() {
      await service.stop()
      await kratos.stop()
    },
  }
}
