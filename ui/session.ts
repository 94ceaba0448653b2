// Who is signed in, and what this service has configured (admins only ask).
import { signal } from '@preact/signals'
import type { PublicConfig, SessionUser } from './api.ts'

export const user = signal<SessionUser | null>(null)
export const config = signal<PublicConfig | null>(null)

export const isAdmin = () => user.value?.role === 'admin'
/** Said after the sign-in that follows ending one's own dashboard sessions (api.ts sessionGone). */
export const OWN_SESSIONS_ENDED = 'Your dashboard sessions were ended, here and everywhere else; you are signed in again in this browser.'
/** What the End dashboard sessions question adds when the identity is the operator's own. */
export const OWN_SESSIONS_NOTE = 'That is your own identity: your session in this browser ends too, and you go through the sign-in again.'
/** The identity signed in here (ids compared as Kratos reads them, in any case): ending its dashboard sessions ends this one. */
export const isOwnIdentity = (identityId: string) => user.value !== null && identityId.trim().toLowerCase() === user.value.identityId.toLowerCase()
/** Kratos pages need the managed store's admin API, Hydra pages the Hydra admin API. */
const hasKratos = () => config.value?.upstreams['idp-admin'] === true
const hasHydra = () => config.value?.upstreams['oauth-admin'] === true
export const hasUpstream = (name: 'kratos' | 'hydra') => (name === 'kratos' ? hasKratos() : hasHydra())
/** Where the identity schemas are read: Kratos's public API when it is configured. */
export const schemasFrom = (): 'idp' | 'idp-admin' => (config.value?.upstreams.idp === true ? 'idp' : 'idp-admin')
