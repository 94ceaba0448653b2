// What an upstream API key may hold, for the settings service (which refuses any other when it is
// set, and never sends one stored before) and for the UI's API key dialog (which says so at the
// field). It is sent as `Authorization: Bearer <key>`: visible ASCII only, as a bearer token has no
// spaces; a line break would end the header and start another, or a second request on the
// upstream connection. This module imports nothing, so the UI can bundle it.

export const SENDABLE_API_KEY = /^[\x21-\x7E]+$/

export const API_KEY_REFUSED = 'An API key is sent in an HTTP header: it may hold only visible ASCII characters, without spaces or line breaks.'
