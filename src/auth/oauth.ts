// The OAuth 2.0 client side of the login: a public client using the Authorization Code flow
// with PKCE S256 (decisions §4), through oauth4webapi.

import * as oauth from 'oauth4webapi'
import type { Config } from '../config.ts'
import { describeError, type Logger } from '../log.ts'
import { failureOf, withBoundedAnswers, type UpstreamFailure } from '../upstream/client.ts'

const SCOPE = 'openid profile email'
/**
 * A failed discovery is retried after this long (and at once for a callback: see `exchange`); a
 * successful one is kept this long.
 */
const DISCOVERY_RETRY_MS = 10_000
const DISCOVERY_TTL_MS = 3_600_000

const ISSUER_DIFFERS =
  "the provider's discovery document names another issuer than OAUTH_ISSUER_URL: write it exactly as the provider does (its `issuer`, trailing slash and all)"

export type ProviderFailure = UpstreamFailure

type TokenOutcome =
  | { ok: true; subject: string; email: string | null; expiresIn: number | undefined }
  | { ok: false; failure: ProviderFailure }

interface LoginClientOptions {
  config: Config
  fetch: typeof fetch
  log: Logger
  now: () => number
}

export class LoginClient {
  /** `guessed`: discovery failed, and the paths are Hydra's under the issuer (decisions §4). */
  private discovered: { server: oauth.AuthorizationServer; until: number; guessed: boolean } | null = null
  private readonly issuer: URL
  private readonly client: oauth.Client
  private readonly redirectUri: string
  /** The provider's answers are read whole by oauth4webapi: at most MAX_ANSWER_BYTES of each. */
  private readonly fetch: typeof fetch

  constructor(private readonly options: LoginClientOptions) {
    const { config } = options
    if (!config.oauth.issuerUrl || !config.oauth.clientId || !config.baseUrl) throw new Error('login is not configured')
    this.issuer = config.oauth.issuerUrl
    this.client = { client_id: config.oauth.clientId, token_endpoint_auth_method: 'none' }
    this.redirectUri = `${config.baseUrl.origin}/api/auth/callback`
    this.fetch = withBoundedAnswers(options.fetch)
  }

  private requestOptions() {
    return {
      signal: () => AbortSignal.timeout(this.options.config.proxyTimeoutMs),
      // The operator chose these URLs; an internal plain-HTTP provider is their call.
      [oauth.allowInsecureRequests]: true,
      [oauth.customFetch]: this.fetch,
    }
  }

  /**
   * Discovery when the provider answers it; else Hydra's paths under the issuer. Overrides win.
   * `discoverAgain`: paths guessed after a failed discovery are not used without asking again.
   */
  async server(discoverAgain = false): Promise<oauth.AuthorizationServer> {
    const known = this.discovered
    if (known && known.until > this.options.now() && !(discoverAgain && known.guessed)) return known.server
    let server: oauth.AuthorizationServer
    let ttl = DISCOVERY_TTL_MS
    let guessed = false
    try {
      const response = await oauth.discoveryRequest(this.issuer, { ...this.requestOptions(), algorithm: 'oidc' })
      server = await oauth.processDiscoveryResponse(this.issuer, response)
    } catch (error) {
      const described = describeError(error)
      // The one mistake of the operator's it can name: OAUTH_ISSUER_URL not written as the provider writes its issuer.
      const detail = described.error_code === 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED' ? ISSUER_DIFFERS : undefined
      this.options.log.warn('oauth_discovery_failed', { ...described, detail })
      const base = this.issuer.href.replace(/\/+$/, '')
      server = {
        issuer: this.issuer.href,
        authorization_endpoint: `${base}/oauth2/auth`,
        token_endpoint: `${base}/oauth2/token`,
        userinfo_endpoint: `${base}/oauth2/userinfo`,
      }
      ttl = DISCOVERY_RETRY_MS
      guessed = true
    }
    const { authorizationUrl, tokenUrl, userinfoUrl } = this.options.config.oauth
    if (authorizationUrl) server = { ...server, authorization_endpoint: authorizationUrl.href }
    if (tokenUrl) server = { ...server, token_endpoint: tokenUrl.href }
    if (userinfoUrl) server = { ...server, userinfo_endpoint: userinfoUrl.href }
    this.discovered = { server, until: this.options.now() + ttl, guessed }
    return server
  }

  /** `askAgain`: the provider asks who is signing in even when it remembers someone (OpenID Connect `prompt=login`). */
  async authorizationUrl(state: string, codeVerifier: string, askAgain = false): Promise<URL> {
    const server = await this.server()
    const url = new URL(server.authorization_endpoint!)
    url.searchParams.set('client_id', this.client.client_id)
    url.searchParams.set('response_type', 'code')
    url.searchParams.set('scope', SCOPE)
    url.searchParams.set('redirect_uri', this.redirectUri)
    url.searchParams.set('state', state)
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(codeVerifier))
    url.searchParams.set('code_challenge_method', 'S256')
    if (askAgain) url.searchParams.set('prompt', 'login')
    return url
  }

  /** Exchanges the code (state already checked by the caller) and reads the subject from userinfo. */
  async exchange(callback: URLSearchParams, state: string, codeVerifier: string): Promise<TokenOutcome> {
    // A provider down when the sign-in began (the service started before it, at boot) is asked
    // again now: guessed paths would fail a sign-in it can complete (its issuer written another
    // way, its userinfo elsewhere, as stock Hydra's is).
    const server = await this.server(true)
    // The browser's callback is checked before anything is sent: a missing or foreign `iss` (RFC 9207,
    // when the provider announces it), a provider error or a malformed answer is the request's fault.
    let params: URLSearchParams
    try {
      params = oauth.validateAuthResponse(server, this.client, callback, state)
    } catch (error) {
      this.options.log.warn('oauth_failed', { step: 'callback', failure: 'rejected', ...describeError(error) })
      return { ok: false, failure: 'rejected' }
    }
    let tokens: oauth.TokenEndpointResponse
    try {
      const response = await oauth.authorizationCodeGrantRequest(
        server,
        this.client,
        oauth.None(),
        params,
        this.redirectUri,
        codeVerifier,
        this.requestOptions(),
      )
      tokens = await oauth.processAuthorizationCodeResponse(server, this.client, response)
    } catch (error) {
      return { ok: false, failure: this.classify(error, 'token') }
    }
    const idClaims = oauth.getValidatedIdTokenClaims(tokens)
    try {
      const response = await oauth.userInfoRequest(server, this.client, tokens.access_token, this.requestOptions())
      const info = await oauth.processUserInfoResponse(server, this.client, idClaims?.sub ?? oauth.skipSubjectCheck, response)
      if (typeof info.sub !== 'string' || info.sub.length === 0 || info.sub.length > 128) return { ok: false, failure: 'invalid_response' }
      return {
        ok: true,
        subject: info.sub,
        email: typeof info.email === 'string' ? info.email : null,
        expiresIn: typeof tokens.expires_in === 'number' ? tokens.expires_in : undefined,
      }
    } catch (error) {
      return { ok: false, failure: this.classify(error, 'userinfo') }
    }
  }

  private classify(error: unknown, step: string): ProviderFailure {
    // The provider said no (an OAuth error body or challenge): the browser's sign-in failed; else the upstream client's classes.
    const failure: ProviderFailure =
      error instanceof oauth.ResponseBodyError || error instanceof oauth.AuthorizationResponseError || error instanceof oauth.WWWAuthenticateChallengeError
        ? 'rejected'
        : failureOf(error)
    // The provider's own error text stays out of the log too: it can carry the code or user data.
    this.options.log.warn('oauth_failed', { step, failure, ...describeError(error) })
    return failure
  }
}
