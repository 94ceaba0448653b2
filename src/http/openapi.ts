// GET /api/openapi.json (admin only, enforced by the gate): an OpenAPI 3.1 document built from the
// registered routes and their schemas. Built here rather than with @elysiajs/openapi so no page,
// script or extra route is mounted; only this one JSON document.

import { Elysia } from 'elysia'
import { VERSION } from '../version.ts'
import { requirementOf, findRule } from './access.ts'
import { codeToStatus, ERROR_CODES } from './errors.ts'

interface RouteLike {
  method: string
  path: string
  hooks?: Record<string, unknown>
}

type Json = Record<string, unknown>

/** Routes whose success has no JSON body; the rest answer 200 with JSON. */
const SUCCESS_WITHOUT_BODY: Record<string, Json> = {
  'GET /api/auth/login': { '302': { description: 'Redirect to the authorization endpoint.' } },
  'GET /api/auth/callback': { '302': { description: 'Redirect to the dashboard with the session cookie set.' } },
  'POST /api/auth/logout': { '204': { description: 'Signed out; the session cookie is cleared.' } },
  'POST /api/security/sessions/revoke': { '204': { description: 'Every session of the identity has ended.' } },
  'DELETE /api/settings/:key': { '204': { description: 'The setting is deleted.' } },
}

const ANY_METHOD = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const

/** `:key` → `{key}`; a trailing `*` (a proxied prefix) → `{path}`. */
function openApiPath(path: string): string {
  return path.replace(/:([^/]+)/g, '{$1}').replace(/\*$/, '{path}')
}

/** TypeBox schemas are JSON Schema; the JSON round trip drops TypeBox's symbol keys. */
function plain(schema: unknown): Json | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined
  return JSON.parse(JSON.stringify(schema)) as Json
}

function parametersOf(hooks: Record<string, unknown>, pathParams: string[]): Json[] {
  const out: Json[] = []
  const params = plain(hooks.params)?.properties as Record<string, Json> | undefined
  for (const name of pathParams) {
    out.push({ name, in: 'path', required: true, schema: params?.[name] ?? { type: 'string' } })
  }
  const query = plain(hooks.query)
  const required = new Set((query?.required as string[] | undefined) ?? [])
  for (const [name, schema] of Object.entries((query?.properties as Record<string, Json> | undefined) ?? {})) {
    out.push({ name, in: 'query', required: required.has(name), schema })
  }
  const headers = plain(hooks.headers)
  const requiredHeaders = new Set((headers?.required as string[] | undefined) ?? [])
  for (const [name, schema] of Object.entries((headers?.properties as Record<string, Json> | undefined) ?? {})) {
    const { description, ...rest } = schema
    out.push({ name, in: 'header', required: requiredHeaders.has(name), ...(description === undefined ? {} : { description }), schema: rest })
  }
  return out
}

function responsesOf(route: RouteLike, hooks: Record<string, unknown>): Json {
  const responses: Json = { ...SUCCESS_WITHOUT_BODY[`${route.method} ${route.path}`] }
  const declared = plain(hooks.response)
  if (declared && (declared.type !== undefined || declared.anyOf !== undefined || declared.$ref !== undefined)) {
    responses['200'] = { description: 'Success.', content: { 'application/json': { schema: declared } } }
  } else if (declared) {
    for (const [status, schema] of Object.entries(declared)) {
      responses[status] = { description: 'Success.', content: { 'application/json': { schema } } }
    }
  }
  if (Object.keys(responses).length === 0) responses['200'] = { description: 'Success.' }
  responses.default = { $ref: '#/components/responses/Error' }
  return responses
}

function operation(route: RouteLike): Json {
  const hooks = route.hooks ?? {}
  const pathParams = [...openApiPath(route.path).matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!)
  const rule = findRule(route.path.replace(/:[^/]+/g, 'x').replace(/\*$/, 'x'))
  const requirement = rule ? requirementOf(rule.access) : 'session'
  const op: Json = {
    operationId: `${route.method.toLowerCase()}${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
    'x-access': requirement,
    security: requirement === 'none' ? [] : [{ adminSession: [] }],
    parameters: parametersOf(hooks, pathParams),
    responses: responsesOf(route, hooks),
  }
  if (route.path.endsWith('*')) op.description = 'Proxied to the upstream unchanged; the API key is added server-side.'
  const body = plain(hooks.body)
  if (body) op.requestBody = { required: true, content: { 'application/json': { schema: body } } }
  return op
}

function buildOpenApiDocument(routes: readonly RouteLike[]): Json {
  const paths: Record<string, Json> = {}
  for (const route of routes) {
    const path = openApiPath(route.path)
    const item = (paths[path] ??= {})
    const methods = route.method === 'ALL' ? ANY_METHOD : [route.method.toLowerCase()]
    for (const method of methods) {
      const op = operation(route)
      if (route.method === 'ALL') op.operationId = `${op.operationId as string}_${method}`
      item[method] = op
    }
  }
  const statuses = [...new Set(ERROR_CODES.map(codeToStatus))].sort((a, b) => a - b)
  return {
    openapi: '3.1.0',
    info: { title: 'admin-dashboard', version: VERSION },
    paths,
    components: {
      securitySchemes: { adminSession: { type: 'apiKey', in: 'cookie', name: 'admin-session' } },
      schemas: {
        ErrorEnvelope: {
          type: 'object',
          required: ['error', 'message'],
          additionalProperties: false,
          properties: {
            error: { type: 'string', enum: [...ERROR_CODES] },
            message: { type: 'string' },
            hint: { type: 'string' },
          },
        },
      },
      responses: {
        Error: {
          description: `An error; the HTTP status follows the code: ${statuses
            .map((status) => `${status}: ${ERROR_CODES.filter((code) => codeToStatus(code) === status).join(', ')}`)
            .join('; ')}.`,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
        },
      },
    },
    'x-error-statuses': Object.fromEntries(ERROR_CODES.map((code) => [code, codeToStatus(code)])),
  }
}

export function openApiRoutes(routes: () => readonly RouteLike[]) {
  let document: Json | null = null
  // Built on first use, once every route is registered.
  return new Elysia({ name: 'openapi' }).get('/api/openapi.json', () => (document ??= buildOpenApiDocument(routes())))
}
