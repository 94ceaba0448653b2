// The error envelope: one closed set of codes, one place for status, message and hint.
// Messages are fixed text chosen here; nothing from a request or an exception is ever put in a body.

export type ErrorCode =
  | 'bad_request'
  | 'invalid_page_size'
  | 'invalid_page_token'
  | 'invalid_credentials_identifier'
  | 'not_authenticated'
  | 'login_failed'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'payload_too_large'
  | 'precondition_failed'
  | 'internal_error'
  | 'proxy_error'
  | 'decryption_failed'
  | 'bad_gateway'
  | 'gateway_timeout'
  | 'upstream_not_configured'
  | 'not_configured'
  | 'encryption_unavailable'
  | 'identity_backend_unavailable'
  | 'service_unavailable'
  | 'database_unavailable'

interface ErrorSpec {
  status: number
  message: string
  hint?: string
}

const ERRORS: Record<ErrorCode, ErrorSpec> = {
  bad_request: { status: 400, message: 'The request is invalid.' },
  invalid_page_size: { status: 400, message: 'page_size must be an integer from 1 to 250.' },
  invalid_page_token: { status: 400, message: 'page_token is invalid or expired; start again from the first page.' },
  invalid_credentials_identifier: {
    status: 400,
    message: 'credentials_identifier must be at most 255 characters without control characters.',
  },
  not_authenticated: {
    status: 401,
    message: 'Authentication required.',
    hint: 'Sign in at /api/auth/login.',
  },
  login_failed: { status: 401, message: 'Sign-in did not complete.', hint: 'Start again at /api/auth/login.' },
  forbidden: {
    status: 403,
    message: 'Admin access required.',
    hint: 'Contact an administrator if you need access.',
  },
  not_found: { status: 404, message: 'Not found.' },
  method_not_allowed: { status: 405, message: 'Method not allowed.' },
  payload_too_large: { status: 413, message: 'The request body is too large.' },
  precondition_failed: { status: 412, message: 'The condition of the request is not met.' },
  internal_error: { status: 500, message: 'Something unexpected happened.' },
  proxy_error: { status: 500, message: 'An unexpected error occurred.' },
  decryption_failed: { status: 500, message: 'The stored value could not be decrypted.' },
  bad_gateway: { status: 502, message: 'Unable to reach upstream service.' },
  gateway_timeout: { status: 504, message: 'Upstream service did not respond within the timeout window.' },
  upstream_not_configured: { status: 503, message: 'This upstream is not configured.' },
  service_unavailable: { status: 503, message: 'The service is out of resources for the moment; try again shortly.' },
  not_configured: { status: 503, message: 'The service is not configured.' },
  encryption_unavailable: {
    status: 503,
    message: 'Encryption is not available.',
    hint: 'Set ENCRYPTION_KEY in the service environment.',
  },
  identity_backend_unavailable: {
    status: 503,
    message: 'The identity store is unavailable; try again shortly.',
  },
  database_unavailable: { status: 503, message: 'The database is unavailable; try again shortly.' },
}

export const ERROR_CODES = Object.keys(ERRORS) as ErrorCode[]

export function codeToStatus(code: ErrorCode): number {
  return ERRORS[code].status
}

export interface ErrorEnvelope {
  error: ErrorCode
  message: string
  hint?: string
}

/** `message` and `hint` overrides must be constant text written in this codebase, never input. */
export function envelope(code: ErrorCode, override: { message?: string; hint?: string } = {}): ErrorEnvelope {
  const spec = ERRORS[code]
  const body: ErrorEnvelope = { error: code, message: override.message ?? spec.message }
  const hint = override.hint ?? spec.hint
  if (hint !== undefined) body.hint = hint
  return body
}

export class ApiError extends Error {
  readonly code: ErrorCode
  readonly status: number
  readonly publicMessage: string | undefined
  readonly hint: string | undefined
  readonly headers: HeadersInit

  /** `message` and `hint`: constant text from this codebase only. */
  constructor(code: ErrorCode, options: { message?: string; hint?: string; headers?: HeadersInit } = {}) {
    super(code)
    this.name = 'ApiError'
    this.code = code
    this.status = ERRORS[code].status
    this.publicMessage = options.message
    this.hint = options.hint
    this.headers = options.headers ?? {}
  }
}

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'

// Which code an enveloped answer carries, for the request's log line (without reading its body).
const codes = new WeakMap<Response, ErrorCode>()

export function errorCodeOf(response: Response): ErrorCode | undefined {
  return codes.get(response)
}

/** An error answer made otherwise than by errorResponse (a page for a browser) carries its code for the log line too. */
export function markErrorCode(response: Response, code: ErrorCode): Response {
  codes.set(response, code)
  return response
}

export function errorResponse(
  code: ErrorCode,
  options: { message?: string; hint?: string; headers?: HeadersInit } = {},
): Response {
  const headers = new Headers(options.headers)
  headers.set('content-type', JSON_CONTENT_TYPE)
  const response = new Response(JSON.stringify(envelope(code, { message: options.message, hint: options.hint })), {
    status: codeToStatus(code),
    headers,
  })
  codes.set(response, code)
  return response
}
