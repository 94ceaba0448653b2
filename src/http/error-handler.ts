// Maps every failure Elysia can report to the envelope. It never throws and never reads
// an exception's message into a body; unexpected errors are logged by class and code only.

import { ApiError, errorCodeOf, errorResponse, type ErrorCode } from './errors.ts'
import { noteOn } from './request-notes.ts'
import { pathnameOf, requestIdOf } from './request-context.ts'
import { describeError, type Logger } from '../log.ts'
import { DiskFullError, isDatabaseBusy } from '../db/database.ts'
import { StorageUnavailableError } from '../db/storage.ts'
import { oncePerWindow } from '../throttle.ts'

interface RouteSignature {
  method: string
  path: string
}

/** Which methods a path is served with, from the registered routes; for 405 and `Allow`. */
export function createMethodIndex(routes: () => readonly RouteSignature[]) {
  let compiled: { pattern: RegExp; method: string }[] | null = null
  const compile = () =>
    routes().map((route) => ({
      method: route.method.toUpperCase(),
      pattern: new RegExp(
        '^' +
          route.path
            .split('/')
            .map((segment) =>
              segment === '*' ? '.*' : segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
            )
            .join('/') +
          '/?$',
      ),
    }))
  return (path: string): string[] => {
    compiled ??= compile()
    const methods = new Set<string>()
    for (const route of compiled) if (route.pattern.test(path)) methods.add(route.method)
    if (methods.has('GET')) methods.add('HEAD')
    return [...methods].sort()
  }
}

const DISK_FULL = 'the disk holding DATABASE_PATH is full: writes answer 503 until room is made on it'

interface ErrorContext {
  code: unknown
  error: unknown
  request: Request
}

export function createErrorHandler(log: Logger, allowedMethods: (path: string) => string[]) {
  const answer = enveloped(log, allowedMethods)
  // Destructured in the signature: Elysia reads a hook's parameters to decide what to parse for
  // every request (taking the whole context would make it parse cookies, query and more each time).
  return ({ code, error, request }: ErrorContext): Response => {
    const response = answer({ code, error, request })
    // The request's log line names the code (Elysia may wrap the response we return).
    const errorCode = errorCodeOf(response)
    if (errorCode) noteOn(request, { error: errorCode })
    return response
  }
}

/** How often the database's reason for a 503 is said in the log, per reason: each request's line says 503 already. */
const UNAVAILABLE_SAID_EVERY_MS = 10_000

function enveloped(log: Logger, allowedMethods: (path: string) => string[]) {
  /** Whether a reason (a SQLSTATE, a system code) is said now. */
  const sayNow = oncePerWindow(UNAVAILABLE_SAID_EVERY_MS, () => performance.now())
  const sayUnavailable = (request: Request, reason: string) => {
    // Why, for the operator: a read-only database (25006) is not an unreachable one (08006).
    if (sayNow(reason)) log.warn('database_unavailable', { request_id: requestIdOf(request), path: pathnameOf(request), reason })
  }
  return ({ code, error, request }: ErrorContext): Response => {
    try {
      // Elysia wraps what a parse hook throws in its own ParseError; ours travels as the cause.
      const own = error instanceof ApiError ? error : (error as { cause?: unknown } | null)?.cause
      if (own instanceof StorageUnavailableError) sayUnavailable(request, own.reason)
      if (own instanceof ApiError) return errorResponse(own.code, { message: own.publicMessage, hint: own.hint, headers: own.headers })
      switch (code) {
        case 'NOT_FOUND': {
          const allow = allowedMethods(pathnameOf(request))
          if (allow.length > 0 && !allow.includes(request.method)) {
            return errorResponse('method_not_allowed', { headers: { allow: allow.join(', ') } })
          }
          return errorResponse('not_found')
        }
        case 'VALIDATION':
          return errorResponse('bad_request', { message: validationMessage(error) })
        case 'PARSE':
          return errorResponse('bad_request', { message: 'The request body is not valid JSON.' })
        case 'INVALID_COOKIE_SIGNATURE':
          return errorResponse('not_authenticated')
      }
      // SQLite gave up waiting for a lock another process holds (the CLI, a second service, a
      // shell): nothing was written, and trying again later can succeed, as with PostgreSQL.
      if (isDatabaseBusy(error)) {
        log.warn('database_busy', { request_id: requestIdOf(request), path: pathnameOf(request) })
        return errorResponse('database_unavailable')
      }
      // No room left where the SQLite file is: nothing was written, and the same write works once
      // room is made there. Unavailable, as for a lock, and said so for the operator to act on.
      if (error instanceof DiskFullError) {
        log.error('database_disk_full', { request_id: requestIdOf(request), path: pathnameOf(request), error_code: error.code, detail: DISK_FULL })
        return errorResponse('database_unavailable')
      }
      const status = statusOf(error)
      if (status === 413) return errorResponse('payload_too_large')
      if (status !== undefined && status >= 400 && status < 500) {
        // Something thrown with a status of its own (a library's error object): answered by it, and
        // logged, as an error of ours may be behind it.
        log.warn('error_with_status', { request_id: requestIdOf(request), path: pathnameOf(request), status, ...describeError(error) })
        return errorResponse(clientErrorCode(status))
      }
      log.error('unhandled_error', { request_id: requestIdOf(request), path: pathnameOf(request), ...describeError(error) })
      return errorResponse('internal_error')
    } catch {
      return errorResponse('internal_error')
    }
  }
}

function statusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  const status = (error as { status?: unknown }).status
  return typeof status === 'number' ? status : undefined
}

function clientErrorCode(status: number): ErrorCode {
  if (status === 401) return 'not_authenticated'
  if (status === 403) return 'forbidden'
  if (status === 404) return 'not_found'
  if (status === 405) return 'method_not_allowed'
  return 'bad_request'
}

/**
 * A field's rule in words, put on its schema (`t.String({ pattern, [FIELD_RULE]: '…' })`) and said
 * after its name when it is invalid: a pattern or a limit the caller cannot guess. A symbol, so the
 * OpenAPI document (the schema as JSON) does not carry it. Constant text of this codebase only.
 */
export const FIELD_RULE = Symbol('field rule')

/**
 * Names the failing field when it is one the schema declares, with its rule when it has one; the
 * path of an undeclared property could be text the caller chose, so it is never repeated.
 */
function validationMessage(error: unknown): string {
  const e = error as {
    type?: string
    valueError?: { path?: string }
    validator?: { schema?: { properties?: Record<string, { [FIELD_RULE]?: unknown }> } }
  }
  const where = e.type === 'query' ? 'query parameter' : e.type === 'params' ? 'path parameter' : 'field'
  const field = e.valueError?.path?.split('/')[1]
  const declared = e.validator?.schema?.properties
  if (field && declared && Object.hasOwn(declared, field) && /^[a-z_]{1,40}$/.test(field)) {
    const rule = declared[field]?.[FIELD_RULE]
    return typeof rule === 'string' ? `Invalid or missing ${where}: ${field}. ${rule}` : `Invalid or missing ${where}: ${field}.`
  }
  return e.type === 'body' ? 'The request body is invalid.' : 'The request is invalid.'
}
