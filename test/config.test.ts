import { describe, expect, test } from 'bun:test'
import { decodeBase64Key, loadConfig, missingLoginVariables } from '../src/config.ts'
import { randomKey } from './support/service.ts'

const key = randomKey()
const other = randomKey()

/** Every variable whose value is a URL the service calls or is reached at: none may carry credentials. */
const URL_VARIABLES = [
  'BASE_URL',
  'OAUTH_ISSUER_URL',
  'OAUTH_AUTHORIZATION_URL',
  'OAUTH_TOKEN_URL',
  'OAUTH_USERINFO_URL',
  'IDP_PUBLIC_URL',
  'IDP_ADMIN_URL',
  'IAM_IDP_PUBLIC_URL',
  'IAM_IDP_ADMIN_URL',
  'OAUTH_PUBLIC_URL',
  'OAUTH_ADMIN_URL',
]

/** The user name and password of a value that is a URL, as written and percent-decoded. */
function credentialsIn(value: string): string[] {
  const parsed = URL.parse(value)
  if (!parsed) return []
  const pieces = [parsed.username, parsed.password].filter((piece) => piece !== '')
  const decoded = pieces.flatMap((piece) => {
    try {
      return [decodeURIComponent(piece)]
    } catch {
      return []
    }
  })
  return [...new Set([...pieces, ...decoded])]
}

describe('the environment contract', () => {
  test('defaults', () => {
    const result = loadConfig({ SESSION_SIGNING_KEY: key })
    if (!result.ok) throw new Error(result.errors.join())
    expect(result.config.host).toBe('127.0.0.1')
    expect(result.config.port).toBe(3000)
    expect(result.config.databasePath).toBe('./data/admin-dashboard.db')
    expect(result.config.environment).toBe('production')
    expect(result.config.proxyTimeoutMs).toBe(10_000)
    expect(result.config.outboundHttpProxy).toBe(false)
    expect(result.config.settingsCacheTtlSeconds).toBe(60)
    expect(result.config.identityRecheckSeconds).toBe(60)
    expect(result.config.encryptionKey).toBeNull()
    expect(missingLoginVariables(result.config)).toEqual(['BASE_URL', 'OAUTH_ISSUER_URL', 'OAUTH_CLIENT_ID'])
  })

  test('HTTP_PROXY or http_proxy in the environment is noted for the proxy (an empty one is not)', () => {
    for (const [env, expected] of [[{ HTTP_PROXY: 'http://proxy.internal:3128' }, true], [{ http_proxy: 'http://proxy.internal:3128' }, true], [{ HTTP_PROXY: 'https://user:pw@proxy.internal' }, true], [{ HTTP_PROXY: ' ' }, false]] as const) {
      const result = loadConfig({ SESSION_SIGNING_KEY: key, ...env })
      if (!result.ok) throw new Error(result.errors.join())
      expect(result.config.outboundHttpProxy).toBe(expected)
    }
  })

  test('DATABASE_URL options the driver reads are accepted in their valid spellings', () => {
    for (const query of ['sslmode=verify-full&sslrootcert=/etc/ca.pem', 'sslmode=REQUIRE', 'ssl=true', 'connect_timeout=5&idle_timeout=0&max_lifetime=3600&max=20', 'port=6432', 'channel_binding=require', 'application_name=x&sslmode=']) {
      const result = loadConfig({ SESSION_SIGNING_KEY: key, DATABASE_URL: `postgres://u:p%25w@db.internal:5432/app?${query}` })
      if (!result.ok) throw new Error(`${query}: ${result.errors.join()}`)
    }
  })

  const refusals: [string, Record<string, string>, string][] = [
    ['a missing signing key', {}, 'SESSION_SIGNING_KEY'],
    ['a short signing key', { SESSION_SIGNING_KEY: Buffer.alloc(31, 7).toString('base64') }, 'SESSION_SIGNING_KEY'],
    ['an undecodable signing key', { SESSION_SIGNING_KEY: 'not base64 at all!!' }, 'SESSION_SIGNING_KEY'],
    ['an encryption key equal to the signing key', { SESSION_SIGNING_KEY: key, ENCRYPTION_KEY: key }, 'ENCRYPTION_KEY'],
    ['the same key in url-safe spelling', { SESSION_SIGNING_KEY: key, ENCRYPTION_KEY: key.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '') }, 'ENCRYPTION_KEY'],
    ['a short encryption key', { SESSION_SIGNING_KEY: key, ENCRYPTION_KEY: 'c2hvcnQ=' }, 'ENCRYPTION_KEY'],
    // One byte short: the security posture has no length check for the encryption keys because of these two.
    ['an encryption key of 31 bytes', { SESSION_SIGNING_KEY: key, ENCRYPTION_KEY: Buffer.alloc(31, 8).toString('base64') }, 'ENCRYPTION_KEY'],
    ['a previous encryption key equal to the encryption key', { SESSION_SIGNING_KEY: key, ENCRYPTION_KEY: other, ENCRYPTION_KEY_PREVIOUS: other }, 'ENCRYPTION_KEY_PREVIOUS'],
    ['the same previous key in url-safe spelling', { SESSION_SIGNING_KEY: key, ENCRYPTION_KEY: other, ENCRYPTION_KEY_PREVIOUS: other.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '') }, 'ENCRYPTION_KEY_PREVIOUS'],
    ['a previous encryption key of 31 bytes', { SESSION_SIGNING_KEY: key, ENCRYPTION_KEY_PREVIOUS: Buffer.alloc(31, 9).toString('base64') }, 'ENCRYPTION_KEY_PREVIOUS'],
    ['a non-numeric PORT', { SESSION_SIGNING_KEY: key, PORT: '80a' }, 'PORT'],
    ['a PORT out of range', { SESSION_SIGNING_KEY: key, PORT: '70000' }, 'PORT'],
    ['a URL that does not parse', { SESSION_SIGNING_KEY: key, IDP_ADMIN_URL: 'http//nope' }, 'IDP_ADMIN_URL'],
    ...URL_VARIABLES.map((variable): [string, Record<string, string>, string] => [`credentials in ${variable}`, { SESSION_SIGNING_KEY: key, [variable]: 'https://opsAdmin:s3cretUrlPw@h.example' }, variable]),
    ['a BASE_URL with a path', { SESSION_SIGNING_KEY: key, BASE_URL: 'https://admin.example.com/sub' }, 'BASE_URL'],
    ['a non-http URL', { SESSION_SIGNING_KEY: key, OAUTH_ISSUER_URL: 'file:///etc/passwd' }, 'OAUTH_ISSUER_URL'],
    ['a bad timeout', { SESSION_SIGNING_KEY: key, PROXY_TIMEOUT_MS: '-5' }, 'PROXY_TIMEOUT_MS'],
    ['a bad log level', { SESSION_SIGNING_KEY: key, LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    ['an HTTP_PROXY that is not a URL', { SESSION_SIGNING_KEY: key, HTTP_PROXY: 'garbage x' }, 'HTTP_PROXY'],
    ['a SOCKS HTTP_PROXY', { SESSION_SIGNING_KEY: key, HTTP_PROXY: 'socks5://proxyUser:s3cretProxyPw@proxy.internal:1080' }, 'HTTP_PROXY'],
    ['an HTTP_PROXY with credentials and a query', { SESSION_SIGNING_KEY: key, HTTP_PROXY: 'http://proxyUser:s3cretProxyPw@proxy.internal:3128/?via=edge' }, 'HTTP_PROXY'],
    ['an http_proxy without a scheme', { SESSION_SIGNING_KEY: key, http_proxy: 'proxy.internal:3128' }, 'http_proxy'],
    ['a DATABASE_URL whose password has a lone %', { SESSION_SIGNING_KEY: key, DATABASE_URL: 'postgres://dbOwner:s3cret%DbPw@db.internal:5432/app' }, 'DATABASE_URL'],
  ]
  for (const [name, env, variable] of refusals) {
    test(`${name} is refused, naming ${variable} and never a value, nor a URL's user name or password`, () => {
      const result = loadConfig(env)
      expect(result.ok).toBe(false)
      if (result.ok) return
      const said = result.errors.join('\n')
      expect(said).toContain(variable)
      for (const value of Object.values(env)) {
        expect(said).not.toContain(value)
        for (const piece of credentialsIn(value)) expect(said).not.toContain(piece)
      }
    })
  }

  test('ENCRYPTION_KEY_PREVIOUS equal to ENCRYPTION_KEY (a rotation that rotates nothing) is refused naming both variables', () => {
    expect(loadConfig({ SESSION_SIGNING_KEY: key, ENCRYPTION_KEY: other, ENCRYPTION_KEY_PREVIOUS: other })).toEqual({
      ok: false,
      errors: ['ENCRYPTION_KEY_PREVIOUS must differ from ENCRYPTION_KEY: it is the other key of a rotation (leave it unset when no rotation is under way)'],
    })
  })

  test('standard and url-safe base64, padded or not, decode to the same bytes', () => {
    const bytes = crypto.getRandomValues(new Uint8Array(32))
    const standard = Buffer.from(bytes).toString('base64')
    const urlSafe = Buffer.from(bytes).toString('base64url')
    expect(decodeBase64Key(standard)).toEqual(bytes)
    expect(decodeBase64Key(urlSafe)).toEqual(bytes)
    expect(decodeBase64Key('a')).toBeNull()
    expect(decodeBase64Key('ab cd')).toBeNull()
  })

  test('NODE_ENV=development is the only way to drop the Secure attribute', () => {
    for (const [value, expected] of [['development', 'development'], ['production', 'production'], ['test', 'production'], ['dev', 'production']]) {
      const result = loadConfig({ SESSION_SIGNING_KEY: key, NODE_ENV: value! })
      expect(result.ok && result.config.environment).toBe(expected as 'production')
    }
  })
})

describe('the log', () => {
  test('audit lines are written even when LOG_LEVEL hides info lines', async () => {
    const { createLogger } = await import('../src/log.ts')
    const lines: string[] = []
    const log = createLogger('error', (line) => void lines.push(line))
    log.info('request', { path: '/x' })
    log.audit({ action: 'identity_search', adminId: 'a', searchFilter: null, timestamp: 't' })
    expect(lines).toHaveLength(1)
    expect(JSON.parse(lines[0]!)).toMatchObject({ event: 'audit', action: 'identity_search' })
  })
})

describe('notes on the environment', () => {
  const required = { SESSION_SIGNING_KEY: key, ENCRYPTION_KEY: other }
  test('a misspelt variable is named with the one it was meant for; NODE_ENV other than production or development is said to be taken as production', () => {
    const loaded = loadConfig({ ...required, OAUTH_CLIENTID: 'x', LOGLEVEL: 'debug', IDP_ADMN_URL: 'http://x', NODE_ENV: 'staging' })
    expect(loaded.ok && loaded.notes).toEqual([
      'OAUTH_CLIENTID is not read by this service; did you mean OAUTH_CLIENT_ID?',
      'LOGLEVEL is not read by this service; did you mean LOG_LEVEL?',
      'IDP_ADMN_URL is not read by this service; did you mean IDP_ADMIN_URL?',
      'NODE_ENV is neither production nor development: it is taken as production (only development changes anything)',
    ])
  })

  test('what a host, a shell, systemd and Bun set is not taken for a mistake (this process\'s own environment included)', () => {
    const usual = {
      PATH: '/usr/bin', HOME: '/root', HOSTNAME: 'h', SHELL: '/bin/sh', USER: 'u', LOGNAME: 'u', LANG: 'C.UTF-8', TERM: 'xterm',
      HTTPS_PROXY: 'http://p:3128', NO_PROXY: 'localhost', ALL_PROXY: 'http://p:3128', INVOCATION_ID: 'i', JOURNAL_STREAM: '8:1',
      STATE_DIRECTORY: '/var/lib/x', RUNTIME_DIRECTORY: '/run/x', SYSTEMD_EXEC_PID: '1', CREDENTIALS_DIRECTORY: '/run/c', XDG_SESSION_ID: '1',
      NODE_ENV: 'production',
    }
    const loaded = loadConfig({ ...process.env, ...usual, ...required })
    expect(loaded.ok && loaded.notes).toEqual([])
  })
})
