// The full session check shared by the gate and GET /api/auth/session:
// signature and expiry, revocation, and whether the identity still exists (decisions §5).

import type { Clock } from '../clock.ts'
import { sessionCookieValues, verifySessionCookie, type SessionPayload } from './cookie.ts'
import type { Revocation, RevocationStore } from './revocations.ts'

/** The identity is there, with this role (its `traits.role`; null without one). */
export interface Present {
  role: string | null
}
export type IdentityPresence = Present | 'gone' | 'unavailable'

/** Asks the login identity store whether an identity still exists, and with which role. */
export type PresenceLookup = (identityId: string) => Promise<IdentityPresence>

/** `next` applied to a check's answer: at once when the check needed no wait, once it settles otherwise. */
export function afterCheck<R>(check: SessionCheck | Promise<SessionCheck>, next: (settled: SessionCheck) => R): R | Promise<R> {
  return check instanceof Promise ? check.then(next) : next(check)
}

export type SessionCheck =
  | { ok: true; session: SessionPayload }
  /** `clearCookie`: the cookie is dead for good (bad, expired, revoked, erased identity). */
  | { ok: false; code: 'not_authenticated'; clearCookie: boolean }
  | { ok: false; code: 'identity_backend_unavailable'; clearCookie: false }
  /** Whether it was revoked cannot be told (the database has been out of reach for too long). */
  | { ok: false; code: 'database_unavailable'; clearCookie: false }

const VERIFIED_CACHE_LIMIT = 10_000

/**
 * A session whose identity now has another role in the store than the one it was signed in with
 * (an admin demoted, a role taken away): ended, so that the next sign-in carries the new one. The
 * role in a session never changes (decisions §5); it stops being trusted once the store says
 * otherwise, within the recheck window, on every replica.
 */
const ROLE_CHANGED: SessionCheck = { ok: false, code: 'not_authenticated', clearCookie: true }
const withRole = (session: SessionPayload, role: string | null): SessionCheck => (role === session.role ? { ok: true, session } : ROLE_CHANGED)

/**
 * How long a request waits for news from the database before its session is refused as unknowable:
 * longer than a check the change feed gives up on (a connection that stopped answering, 2 s) and
 * the start of the next, on a new connection (within 0.2 s). A check that fails ends the wait
 * sooner.
 */
export const NEWS_WAIT_MS = 2500

export class SessionVerifier {
  /** cookie value → payload whose MAC already verified; expiry and revocation are still checked per use. */
  private readonly verified = new Map<string, SessionPayload>()
  /** identity id → when its presence was last confirmed (ms), and the role it had then. */
  private readonly confirmedAt = new Map<string, { at: number; role: string | null }>()
  /** identity id → the lookup under way, shared by every request that needs it meanwhile. */
  private readonly inFlight = new Map<string, Promise<IdentityPresence>>()
  /** How many times an identity was forgotten: a confirmation read before the last one is not kept. */
  private forgets = 0

  constructor(
    private readonly signingKey: Uint8Array,
    private readonly clock: Clock,
    private readonly revocations: RevocationStore,
    private readonly lookupIdentity: PresenceLookup,
    private readonly recheckSeconds: number,
    /** Cookies are Secure here: `__Host-admin-session`, when a request has it, names its session (cookie.ts). */
    private readonly secureCookies = false,
  ) {}

  /**
   * The answer itself when nothing has to be waited for (nearly every request: a cookie seen before,
   * revocations loaded, the identity confirmed a moment ago), otherwise a promise of it. Callers
   * that await it get the same answer either way.
   */
  check(cookieHeader: string | null): SessionCheck | Promise<SessionCheck> {
    const values = sessionCookieValues(cookieHeader, this.secureCookies)
    if (values.length === 0) return { ok: false, code: 'not_authenticated', clearCookie: false }
    if (values.length > 1) return { ok: false, code: 'not_authenticated', clearCookie: true }
    const value = values[0]!
    const nowSeconds = Math.floor(this.clock.now() / 1000)

    let session = this.verified.get(value)
    if (session === undefined) {
      const result = verifySessionCookie(this.signingKey, value, nowSeconds)
      if (!result.ok) return { ok: false, code: 'not_authenticated', clearCookie: true }
      session = result.session
      if (this.verified.size >= VERIFIED_CACHE_LIMIT) this.verified.delete(this.verified.keys().next().value!)
      this.verified.set(value, session)
    } else if (session.exp <= nowSeconds) {
      this.verified.delete(value)
      return { ok: false, code: 'not_authenticated', clearCookie: true }
    }

    const revocation = this.revocations.revocationOf(session)
    if (revocation === 'unknown') return this.whenKnown(session)
    return this.settle(session, revocation)
  }

  /**
   * Memory cannot vouch for the session. Right after the start the first load may still be under
   * way; later the change feed has had no news from the database for a while, and its next check
   * (due within a fifth of a second) is waited for, up to NEWS_WAIT_MS: right after an outage, or
   * once a connection that stopped answering is given up on, it is what brings the gate back, a
   * moment after the database answers again, and a request sent in that moment is answered rather
   * than refused. When that check fails too, settle() fails closed.
   */
  private async whenKnown(session: SessionPayload): Promise<SessionCheck> {
    await this.revocations.ready
    let revocation = this.revocations.revocationOf(session)
    if (revocation === 'unknown') {
      await this.revocations.nextNews(NEWS_WAIT_MS)
      revocation = this.revocations.revocationOf(session)
    }
    return this.settle(session, revocation)
  }

  private settle(session: SessionPayload, revocation: Revocation): SessionCheck | Promise<SessionCheck> {
    if (revocation === 'revoked') return { ok: false, code: 'not_authenticated', clearCookie: true }
    if (revocation === 'unknown') return { ok: false, code: 'database_unavailable', clearCookie: false }
    // Nearly every request: the identity was confirmed a moment ago, nothing to wait for.
    // A confirmation from the future is the wall clock stepped back (an NTP correction): it vouches
    // for nothing, or IDENTITY_RECHECK_SECONDS would stretch by the step.
    const confirmed = this.confirmedAt.get(session.sub)
    if (confirmed !== undefined) {
      const age = this.clock.now() - confirmed.at
      if (age >= 0 && age < this.recheckSeconds * 1000) return withRole(session, confirmed.role)
    }
    return this.withPresence(session)
  }

  private async withPresence(session: SessionPayload): Promise<SessionCheck> {
    const presence = await this.presenceOf(session.sub)
    if (presence === 'gone') return { ok: false, code: 'not_authenticated', clearCookie: true }
    if (presence === 'unavailable') return { ok: false, code: 'identity_backend_unavailable', clearCookie: false }
    return withRole(session, presence.role)
  }

  /**
   * Asks the identity store (check() has already found no recent confirmation); concurrent asks for
   * one identity share one lookup. An answer read before a forgetIdentity vouches for the requests
   * that waited for it, not for later ones: the store may have changed in between (a deactivation
   * made while the lookup was under way).
   */
  private presenceOf(identityId: string): Promise<IdentityPresence> {
    const underWay = this.inFlight.get(identityId)
    if (underWay !== undefined) return underWay
    const mark = this.forgets
    const done = () => {
      if (this.inFlight.get(identityId) === lookup) this.inFlight.delete(identityId)
    }
    const lookup: Promise<IdentityPresence> = this.lookupIdentity(identityId).then(
      (presence) => {
        done()
        if (typeof presence === 'object') this.confirmIdentity(identityId, mark, presence.role)
        else this.confirmedAt.delete(identityId)
        return presence
      },
      (error: unknown) => {
        done()
        throw error
      },
    )
    this.inFlight.set(identityId, lookup)
    return lookup
  }

  /** Taken before reading an identity from the store, and given back to confirmIdentity with what was read. */
  confirmationMark(): number {
    return this.forgets
  }

  /**
   * The identity was read from the store (after `mark` was taken): no need to ask again at once,
   * unless any identity was forgotten since (the mark is one count for all: it errs towards asking
   * the store again).
   */
  confirmIdentity(identityId: string, mark: number, role: string | null): void {
    if (mark !== this.forgets) return
    if (this.confirmedAt.size >= VERIFIED_CACHE_LIMIT && !this.confirmedAt.has(identityId)) this.confirmedAt.delete(this.confirmedAt.keys().next().value!)
    this.confirmedAt.set(identityId, { at: this.clock.now(), role })
  }

  /**
   * Its sessions were revoked, or the identity was deleted or changed (perhaps deactivated): ask the
   * store next time, trust nothing cached, and let no lookup under way vouch for it afterwards.
   */
  forgetIdentity(identityId: string): void {
    this.forgets++
    this.confirmedAt.delete(identityId)
    this.inFlight.delete(identityId)
  }
}
