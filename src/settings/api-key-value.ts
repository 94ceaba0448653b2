// What an upstream API key may hold, for the settings service (which refuses any other when it is
// set, and never sends one stored before) and for the UI's API key dialog (which says so at the
// field). It is sent as `Authorization: Bearer <key>`: visible ASCII only, as a bearer token has no
// spaces; a line break would end the header and start another, or a second request on the
// upstream connection. An empty one is refused too: it would be sent as no key at all, so it can
// only be a mistake (an unset shell variable piped to `settings set`); removing a key is a delete.
// This module imports nothing, so the UI can bundle it.

export const SENDABLE_API_KEY = /^[\x21-\x7E]+$/

export const API_KEY_REFUSED = 'An API key is sent in an HTTP header: it may hold only visible ASCII characters, without spaces or line breaks.'

export const API_KEY_EMPTY =
  'An API key cannot be empty. To remove one, use Remove under Upstream API keys on the Settings page, or `admin-dashboard settings delete <key>`.'

/** Why a value cannot be set as an API key, or null when it can. */
export function apiKeyProblem(value: string): string | null {
  if (value === '') return API_KEY_EMPTY
  return SENDABLE_API_KEY.test(value) ? null : API_KEY_REFUSED
}
