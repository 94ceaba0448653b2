// A real OAuth 2.0 / OpenID provider (oidc-provider) configured like Ory Hydra: /oauth2/auth,
// /oauth2/token, /userinfo, discovery, a public client with PKCE S256 required.
// Its development login form accepts an e-mail; `findSubject` maps it to the identity id, which
// becomes the subject (public subject identifiers, as Hydra with Kratos). Used by the tests and by `bun run dev`.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import Provider from 'oidc-provider'
import { markSecret } from './leaks.ts'

export interface ProviderOptions {
  clientId: string
  redirectUris: string[]
  /** e-mail (typed into the login form) → the identity it signs in, or null for an unknown user. */
  findSubject: (login: string) => { sub: string; email: string } | null
  /** Access token lifetime, i.e. `expires_in` of the token response. */
  accessTokenTtl?: number
  port?: number
}

export interface RunningProvider {
  url: string
  provider: Provider
  /** Every request the provider received, method and path. */
  requests: { method: string; path: string }[]
  tokenRequests(): number
  stop(): Promise<void>
}

export async function startOAuthProvider(options: ProviderOptions): Promise<RunningProvider> {
  const requests: { method: string; path: string }[] = []
  /** Subjects signed in so far → their e-mail (for the userinfo claims). */
  const emails = new Map<string, string>()
  const server: Server = createServer()
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  const provider = new Provider(url, {
    clients: [
      {
        client_id: options.clientId,
        token_endpoint_auth_method: 'none',
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    routes: { authorization: '/oauth2/auth', token: '/oauth2/token', userinfo: '/userinfo', jwks: '/.well-known/jwks.json' },
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    scopes: ['openid', 'profile', 'email'],
    ttl: { AccessToken: options.accessTokenTtl ?? 3600, AuthorizationCode: 60, Session: 3600, Interaction: 600, Grant: 3600 },
    cookies: { keys: [crypto.randomUUID()] },
    features: { devInteractions: { enabled: true } },
    async findAccount(_ctx, id) {
      const email = emails.get(id)
      if (email === undefined) return undefined
      return { accountId: id, claims: async () => ({ sub: id, email, email_verified: true }) }
    },
    // Consent is granted for our own client (as a first-party Hydra consent app would skip it).
    async loadExistingGrant(ctx) {
      const accountId = ctx.oidc.account?.accountId ?? ctx.oidc.session?.accountId ?? ctx.oidc.result?.login?.accountId
      if (!accountId) return undefined
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId })
      grant.addOIDCScope('openid profile email')
      grant.addOIDCClaims(['sub', 'email', 'email_verified', 'name'])
      await grant.save()
      return grant
    },
  })
  // Test hosts are plain HTTP on loopback.
  provider.proxy = false
  const handle = provider.callback()
  server.on('request', (request: IncomingMessage, response) => {
    const path = (request.url ?? '').split('?')[0]!
    requests.push({ method: request.method ?? '', path })
    // The login step, as a Kratos-backed login app does it: the e-mail typed into the form names
    // an identity, whose id becomes the subject. Everything else is the provider's own.
    if (request.method === 'POST' && /^\/interaction\/[^/]+(\/login)?$/.test(path)) {
      void finishLogin(request, response)
      return
    }
    handle(request, response)
  })

  async function finishLogin(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    const form = new URLSearchParams(Buffer.concat(chunks).toString())
    const found = form.get('prompt') === 'login' ? options.findSubject(form.get('login') ?? '') : null
    try {
      if (!found) {
        await provider.interactionFinished(request, response, { error: 'access_denied', error_description: 'unknown user' })
        return
      }
      emails.set(found.sub, found.email)
      await provider.interactionFinished(request, response, { login: { accountId: found.sub } }, { mergeWithLastSubmission: false })
    } catch {
      response.statusCode = 400
      response.end('interaction failed')
    }
  }

  return {
    url,
    provider,
    requests,
    tokenRequests: () => requests.filter((r) => r.path === '/oauth2/token').length,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/**
 * Signs in through the provider's login form without a browser: follows the authorization URL,
 * posts the login, and returns the redirect back to our callback (with `code` and `state`).
 */
export async function signInAtProvider(authorizationUrl: string, login: string): Promise<URL> {
  const jar = new Map<string, string>()
  const remember = (response: Response) => {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';')
      const eq = pair!.indexOf('=')
      jar.set(pair!.slice(0, eq), pair!.slice(eq + 1))
    }
  }
  const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ')
  let next = new URL(authorizationUrl)
  for (let hop = 0; hop < 10; hop++) {
    const response = await fetch(next, { headers: { cookie: cookieHeader() }, redirect: 'manual' })
    remember(response)
    const location = response.headers.get('location')
    if (location) {
      const target = new URL(location, next)
      if (target.origin !== new URL(authorizationUrl).origin) return target
      next = target
      continue
    }
    const html = await response.text()
    const action = html.match(/<form[^>]*action="([^"]+)"/)?.[1]
    if (!action) throw new Error(`provider page without a form (status ${response.status})`)
    const form = new URLSearchParams({ prompt: 'login', login, password: 'any' })
    const posted = await fetch(new URL(action, next), {
      method: 'POST',
      headers: { cookie: cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
      redirect: 'manual',
    })
    remember(posted)
    const after = posted.headers.get('location')
    if (!after) throw new Error(`login form answered ${posted.status} without a redirect`)
    next = new URL(after, next)
  }
  throw new Error('too many redirects at the provider')
}

const cookieValue = (line: string | undefined) => line?.slice(line.indexOf('=') + 1).split(';')[0] ?? ''

/**
 * The whole sign-in as a browser does it: our /api/auth/login, the provider's form, our callback.
 * Returns the callback's answer and the `admin-session` cookie header it set ('' when none).
 */
export async function signIn(serviceUrl: string, email: string): Promise<{ response: Response; cookie: string }> {
  const start = await fetch(`${serviceUrl}/api/auth/login`, { redirect: 'manual' })
  const flow = new Map(start.headers.getSetCookie().map((line) => [line.slice(0, line.indexOf('=')), cookieValue(line)]))
  markSecret(flow.get('oauth_state'), flow.get('oauth_verifier'), flow.get('__Host-oauth_flow'))
  const back = await signInAtProvider(start.headers.get('location')!, email)
  markSecret(back.searchParams.get('code'))
  const response = await fetch(`${serviceUrl}/api/auth/callback${back.search}`, {
    headers: { cookie: flowCookieHeader(flow) },
    redirect: 'manual',
  })
  const session = cookieValue(response.headers.getSetCookie().find((line) => line.startsWith('admin-session=')))
  markSecret(session)
  return { response, cookie: session ? `admin-session=${session}` : '' }
}

/** The Cookie header a browser sends back to the callback: every flow cookie /api/auth/login set with a value. */
export function flowCookieHeader(flow: Map<string, string | undefined>): string {
  return ['oauth_state', 'oauth_verifier', '__Host-oauth_flow']
    .filter((name) => flow.get(name))
    .map((name) => `${name}=${flow.get(name)}`)
    .join('; ')
}
