// /api/idp/**, /api/idp-admin/**, /api/iam-idp/**, /api/iam-idp-admin/**, /api/oauth/**,
// /api/oauth-admin/**: any method, forwarded with Bun's fetch, bodies streamed both ways.
// Who may call which prefix is the gate's decision (access.ts); this file only forwards.

import { Elysia } from 'elysia'
import type { Services } from '../app.ts'
import { ApiError } from '../http/errors.ts'
import { pathnameOf } from '../http/request-context.ts'
import { describeError } from '../log.ts'
import { forwardedRequestHeaders, relayedResponseHeaders } from './headers.ts'
import { markPassthrough } from './passthrough.ts'
import { joinUpstreamUrl } from './url.ts'
import { PROXY_PREFIXES, proxyPrefixOf, type ProxyPrefix } from './upstreams.ts'

const PLACEHOLDER_BASE = new URL('http://upstream.invalid/')
const NO_BODY_METHODS = new Set(['GET', 'HEAD'])
const IDENTITY_PATH = /^\/admin\/identities\/([^/]+)\/?$/

/** `Location` inside the upstream's base URL → the same place under our prefix (nginx `proxy_redirect default`). */
export function rewriteLocation(location: string, base: URL, prefix: ProxyPrefix): string {
  const absolute = /^[a-z][a-z0-9+.-]*:/i.test(location) || location.startsWith('//')
  // A relative reference ("next", "../x") stays correct under our prefix as it is.
  if (!absolute && !location.startsWith('/')) return location
  let target: URL
  try {
    target = new URL(location, base)
  } catch {
    return location
  }
  const basePath = base.pathname.replace(/\/+$/, '')
  const inside = target.origin === base.origin && (target.pathname === basePath || target.pathname.startsWith(basePath + '/'))
  return inside ? prefix.path + target.pathname.slice(basePath.length) + target.search + target.hash : location
}

export function proxyRoutes(services: Services) {
  const { config, log, settings } = services
  const plugin = new Elysia({ name: 'proxy' })
  for (const prefix of PROXY_PREFIXES) {
    plugin.all(`${prefix.path}/*`, async ({ request }) => forward(prefix, request))
  }
  return plugin

  async function forward(prefix: ProxyPrefix, request: Request): Promise<Response> {
    const rawPath = pathnameOf(request)
    const queryStart = request.url.indexOf('?')
    const rest = rawPath.slice(prefix.path.length)
    const search = queryStart < 0 ? '' : request.url.slice(queryStart)
    // A path that could leave the upstream is refused whether or not the upstream is configured.
    const joined = joinUpstreamUrl(config.upstreams[prefix.name] ?? PLACEHOLDER_BASE, rest, search)
    if (!joined.ok) {
      log.warn('proxy_refused', { prefix: prefix.name, reason: joined.reason })
      throw new ApiError('bad_request', { message: 'The path cannot be forwarded.' })
    }
    const base = config.upstreams[prefix.name]
    if (!base) throw new ApiError('upstream_not_configured')

    const apiKey = await settings.apiKeyFor(prefix.name)
    const headers = forwardedRequestHeaders(request.headers, { apiKey, adminPrefix: prefix.admin })
    // The timeout covers the upstream's answer (status and headers); a long download may take longer.
    const controller = new AbortController()
    const timer = setTimeout(() => controller.abort(new DOMException('upstream timeout', 'TimeoutError')), config.proxyTimeoutMs)
    let upstream: Response
    try {
      const init: RequestInit & { decompress: boolean; duplex: 'half' } = {
        method: request.method,
        headers,
        body: NO_BODY_METHODS.has(request.method) ? undefined : request.body,
        // Redirects go back to the client; bytes go on as they came, with their own Content-Encoding.
        redirect: 'manual',
        decompress: false,
        signal: controller.signal,
        duplex: 'half',
      }
      upstream = await services.fetch(joined.url, init)
    } catch (error) {
      const name = (error as { name?: string }).name
      const code = (error as { code?: string }).code ?? ''
      const failure =
        name === 'TimeoutError' || controller.signal.aborted
          ? 'gateway_timeout'
          : error instanceof TypeError || /^(E[A-Z]+|Connection|FailedToOpenSocket)/.test(code)
            ? 'bad_gateway'
            : 'proxy_error'
      log.warn('proxy_failed', { prefix: prefix.name, method: request.method, failure, ...describeError(error) })
      throw new ApiError(failure)
    } finally {
      clearTimeout(timer)
    }

    if (prefix.admin && request.method === 'DELETE' && upstream.status >= 200 && upstream.status < 300) {
      const deleted = joined.url.pathname.slice(base.pathname.replace(/\/+$/, '').length).match(IDENTITY_PATH)
      if (deleted && (prefix.name === 'idp-admin' || prefix.name === 'iam-idp-admin')) {
        // Erasing an identity ends its dashboard sessions now, not at the next presence check.
        services.endSessionsOf(decodeURIComponent(deleted[1]!))
      }
    }

    const responseHeaders = relayedResponseHeaders(upstream.headers, (location) => rewriteLocation(location, base, prefix))
    const bodyless = request.method === 'HEAD' || upstream.status === 204 || upstream.status === 304
    if (bodyless) await upstream.body?.cancel()
    return markPassthrough(new Response(bodyless ? null : upstream.body, { status: upstream.status, statusText: upstream.statusText, headers: responseHeaders }))
  }
}

/** Our own JSON body parsing must leave proxied bodies untouched: they are streamed through. */
export function isProxiedPath(request: Request): boolean {
  return proxyPrefixOf(pathnameOf(request)) !== null
}
