// The OAuth client form's checks, run before anything is sent to Hydra.
import { describe, expect, test } from 'bun:test'
import { clientBody, clientPatch, clientUpdate, draftOf, formMembers, goDuration, hasInlineJwks, lifespanProblem, neverExpires, rebaseDraft, validateDraft } from '../ui/pages/oauth-clients/form.tsx'
import { staleMembers, wholeMembers } from '../ui/components/json-patch.ts'

const draft = (changes: Partial<ReturnType<typeof draftOf>> = {}) => ({ ...draftOf(null), redirect_uris: 'https://app.example.com/callback', ...changes })

describe('validateDraft', () => {
  test('a confidential web client with an absolute redirect URI is fine', () => {
    expect(validateDraft(draft())).toEqual({})
  })

  for (const uri of ['app.example.com/callback', '/callback', 'https://app.example.com/cb#frag', 'not a url']) {
    test(`redirect URI ${JSON.stringify(uri)} is refused`, () => {
      expect(validateDraft(draft({ redirect_uris: uri })).redirect_uris).toBeDefined()
    })
  }

  test('two redirect URIs on one line are refused (a URL parser takes them for one URI with a space in it)', () => {
    expect(validateDraft(draft({ redirect_uris: 'https://a.example.com/cb https://b.example.com/cb' })).redirect_uris).toMatch(/space.*one per line/)
    expect(validateDraft(draft({ redirect_uris: 'https://a.example.com/cb\thttps://b.example.com/cb' })).redirect_uris).toMatch(/space/)
  })

  test('words with a space that are no URI are said to be no URL, not to need a line of their own', () => {
    expect(validateDraft(draft({ redirect_uris: 'not a url' })).redirect_uris).toBe('“not a url” is not an absolute URL (it needs a scheme, like https://app.example.com/callback).')
    expect(validateDraft(draft({ redirect_uris: 'https://app.example.com/call back' })).redirect_uris).toBe('“https://app.example.com/call back” has a space in it, which a URI cannot have.')
  })

  test('a client that never goes to the authorization endpoint (client credentials only) needs no response type; one that does needs one', () => {
    const machine = draft({ redirect_uris: '', grant_types: ['client_credentials'], response_types: [] })
    expect(validateDraft(machine)).toEqual({})
    expect(validateDraft(draft({ response_types: [] })).response_types).toBe('Choose at least one response type: the authorization code and implicit grants use them.')
  })

  test('a "#" with nothing after it is refused too, as Hydra refuses any "#"', () => {
    expect(validateDraft(draft({ redirect_uris: 'https://app.example.com/callback#' })).redirect_uris).toMatch(/fragment/)
  })

  test('each post-logout redirect URI is on the scheme, host and port of a redirect URI, as Hydra compares them', () => {
    const logout = (uri: string, redirect = 'https://app.example.com/callback') => validateDraft(draft({ redirect_uris: redirect, post_logout_redirect_uris: uri })).post_logout_redirect_uris
    expect(logout('https://app.example.com/signed-out')).toBeUndefined()
    expect(logout('com.example.app:/signed-out', 'com.example.app:/callback')).toBeUndefined()
    expect(logout('https://other.example.com/signed-out')).toMatch(/scheme, host and port/)
    expect(logout('http://app.example.com/signed-out')).toMatch(/scheme, host and port/)
    expect(logout('https://app.example.com:8443/signed-out')).toMatch(/scheme, host and port/)
    // Go keeps a port as written: the default port spelt out is another port to Hydra.
    expect(logout('https://app.example.com:443/signed-out')).toMatch(/scheme, host and port/)
    expect(logout('https://app.example.com:8443/signed-out', 'https://app.example.com:8443/callback')).toBeUndefined()
    expect(validateDraft(draft({ redirect_uris: '', grant_types: ['client_credentials'], response_types: ['token'], post_logout_redirect_uris: 'https://app.example.com/' })).post_logout_redirect_uris).toBeDefined()
  })

  test('a native app scheme is an absolute URL too', () => {
    expect(validateDraft(draft({ redirect_uris: 'com.example.app:/oauth2redirect' }))).toEqual({})
  })

  test('the code and implicit grants need a redirect URI; client credentials alone does not', () => {
    expect(validateDraft(draft({ redirect_uris: '' })).redirect_uris).toMatch(/at least one redirect URI/)
    expect(validateDraft(draft({ redirect_uris: '', grant_types: ['client_credentials'], response_types: ['token'] }))).toEqual({})
  })

  test('a public client (none) cannot use the client credentials grant', () => {
    expect(validateDraft(draft({ token_endpoint_auth_method: 'none', grant_types: ['client_credentials'] })).grant_types).toMatch(/public client/)
    expect(validateDraft(draft({ token_endpoint_auth_method: 'none' }))).toEqual({})
  })

  test('a private_key_jwt client needs an https JWKS URI, unless its keys are inline; another method needs none', () => {
    const jwt = (jwks_uri: string, inline_jwks = false) => validateDraft(draft({ token_endpoint_auth_method: 'private_key_jwt', jwks_uri, inline_jwks })).jwks_uri
    expect(jwt('https://app.example.com/.well-known/jwks.json')).toBeUndefined()
    expect(jwt(' https://app.example.com/jwks.json ')).toBeUndefined()
    expect(jwt('')).toMatch(/needs the https URL of its public keys/)
    expect(jwt('   ')).toMatch(/needs the https URL/)
    expect(jwt('http://app.example.com/jwks.json')).toMatch(/does not use https/)
    expect(jwt('app.example.com/jwks.json')).toMatch(/not an absolute URL/)
    expect(jwt('https://app.example.com/jwks.json https://app.example.com/other.json')).toMatch(/space/)
    expect(jwt('', true)).toBeUndefined()
    expect(validateDraft(draft({ jwks_uri: '' }))).toEqual({})
    expect(validateDraft(draft({ jwks_uri: 'http://left.example.com/jwks.json' }))).toEqual({})
  })

  test('a client name of any length is taken, as Hydra takes it (text, with no limit in its validator): a stored one does not stop an edit of something else', () => {
    const name = 'Huge '.repeat(1000)
    expect(validateDraft(draft({ client_name: name }))).toEqual({})
    const stored = { client_id: 'c', client_name: name, redirect_uris: ['https://app.example.com/callback'] }
    expect(validateDraft({ ...draftOf(stored), redirect_uris: 'https://app.example.com/v2/callback' }, stored)).toEqual({})
  })

  test('a JWKS URI Hydra already holds (over http, set through its API) does not stop an edit of something else; a new one is judged', () => {
    const stored = { client_id: 'c', token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'http://keys.internal/jwks.json', redirect_uris: ['https://app.example.com/callback'] }
    const opened = draftOf(stored)
    expect(validateDraft({ ...opened, client_name: 'Renamed' }, stored)).toEqual({})
    expect(validateDraft({ ...opened, jwks_uri: 'http://keys.internal/v2/jwks.json' }, stored).jwks_uri).toMatch(/does not use https/)
    expect(validateDraft({ ...opened, jwks_uri: '' }, stored).jwks_uri).toMatch(/needs the https URL/)
    // Not at create: nothing is stored.
    expect(validateDraft(opened).jwks_uri).toMatch(/does not use https/)
  })

  test('a client made private_key_jwt by the edit has its stored JWKS URI judged: Hydra starts fetching its keys from it now', () => {
    // Hydra keeps a jwks_uri whatever the method (set through its API on a client_secret_basic client, say).
    const stored = { client_id: 'c', token_endpoint_auth_method: 'client_secret_basic', jwks_uri: 'http://keys.internal/jwks.json', redirect_uris: ['https://app.example.com/callback'] }
    const opened = draftOf(stored)
    expect(validateDraft({ ...opened, client_name: 'Renamed' }, stored)).toEqual({})
    expect(validateDraft({ ...opened, token_endpoint_auth_method: 'private_key_jwt' }, stored).jwks_uri).toMatch(/does not use https/)
    expect(validateDraft({ ...opened, token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'https://keys.example.com/jwks.json' }, stored)).toEqual({})
    // Nor does a stored URI pass for a client whose method Hydra left at its default.
    const unset = { ...stored, token_endpoint_auth_method: undefined }
    expect(validateDraft({ ...draftOf(unset), token_endpoint_auth_method: 'private_key_jwt' }, unset).jwks_uri).toMatch(/does not use https/)
  })

  test('scopes, grant and response types, lifespans', () => {
    expect(validateDraft(draft({ scope: 'openid "quoted"' })).scope).toBeDefined()
    expect(validateDraft(draft({ grant_types: [] })).grant_types).toBeDefined()
    expect(validateDraft(draft({ response_types: [] })).response_types).toBeDefined()
    const lifespans = { ...draftOf(null).lifespans, authorization_code_grant_access_token_lifespan: 'one hour' }
    expect(validateDraft(draft({ lifespans })).authorization_code_grant_access_token_lifespan).toBeDefined()
    expect(validateDraft(draft({ lifespans: { ...lifespans, authorization_code_grant_access_token_lifespan: '1h30m' } }))).toEqual({})
  })
})

describe('lifespans, read as Go reads a duration (Hydra decodes them with time.ParseDuration)', () => {
  test('what Go takes for a positive duration is taken: a fraction with no digits before its point, the micro sign and the Greek mu, a sign, several terms', () => {
    for (const value of ['1h', '.5h', '1.5h', '1.h', '1.5s', '1h30m', '1h0m0s', '2h45m30.5s', '+90s', '720h', '1000ms', '1000000us', '1000000µs', '1000000μs', '1000000000ns', '2562047h47m16.854775807s']) {
      expect({ value, problem: lifespanProblem(value, 'authorization_code_grant_access_token_lifespan') }).toEqual({ value, problem: null })
    }
    expect(goDuration('.5h')).toBe(1_800_000_000_000n)
    expect(goDuration('10μs')).toBe(goDuration('10µs'))
    expect(goDuration('1h30m')).toBe(goDuration('1.5h'))
    expect(goDuration('2h45m30.5s')).toBe(9_930_500_000_000n)
  })

  test('what Go refuses is refused with an example of what it takes: no unit, a unit Go does not have, a space, no digits', () => {
    for (const value of ['1', '90', '1d', '1w', '1 h', '1h 30m', 'one hour', 'h', '.h', '.', '-', '+', '1.5.h', '1H', 'PT1H', '1hh']) {
      expect({ value, problem: lifespanProblem(value, 'authorization_code_grant_access_token_lifespan') }).toEqual({ value, problem: 'Use a duration such as 1h, 30m, 1h30m or 1.5h.' })
    }
  })

  test('0, which Go reads, anything under a second (Hydra rounds an expiry to the second) and anything below 0 are refused: every token would expire as it is issued', () => {
    for (const value of ['0', '+0', '-0', '0s', '0h0m', '0.0000000001s', '1ns', '400ms', '999999us', '-1h', '-1ns']) {
      for (const name of ['authorization_code_grant_access_token_lifespan', 'implicit_grant_id_token_lifespan'] as const) {
        expect({ value, goes: goDuration(value) !== null, problem: lifespanProblem(value, name) }).toEqual({ value, goes: true, problem: expect.stringMatching(/must be at least 1s.*Leave it empty for Hydra’s default\.$/) })
      }
    }
  })

  test('a refresh token lifespan below 0 is taken: the token never expires (fosite sets its expiry only above -1); 0 and under a second are refused, saying so', () => {
    for (const name of ['authorization_code_grant_refresh_token_lifespan', 'refresh_token_grant_refresh_token_lifespan', 'device_authorization_grant_refresh_token_lifespan'] as const) {
      for (const value of ['-1s', '-1ns', '-1h']) {
        expect({ name, value, problem: lifespanProblem(value, name), never: neverExpires(name, value) }).toEqual({ name, value, problem: null, never: true })
      }
      for (const value of ['0', '500ms']) expect(lifespanProblem(value, name)).toMatch(/at least 1s.*or use -1s for a refresh token that never expires/)
      expect(neverExpires(name, '720h')).toBe(false)
    }
    expect(neverExpires('authorization_code_grant_access_token_lifespan', '-1s')).toBe(false)
  })

  test('past the longest duration Go holds (about 292 years) is refused, as Hydra would', () => {
    expect(lifespanProblem('2562047h47m16.854775808s', 'authorization_code_grant_access_token_lifespan')).toMatch(/Longer than Hydra can hold/)
    expect(lifespanProblem('9999999999h', 'authorization_code_grant_access_token_lifespan')).toMatch(/Longer than Hydra can hold/)
  })

  test('a refresh token lifespan below 0 past what Go holds is refused too (Go refuses it, so Hydra would); down to -(1<<63) ns is taken, as Go takes it', () => {
    const name = 'authorization_code_grant_refresh_token_lifespan'
    for (const value of ['-9999999999h', '-2562048h', '-2562047h47m16.854775809s']) expect({ value, problem: lifespanProblem(value, name) }).toEqual({ value, problem: expect.stringMatching(/Longer than Hydra can hold/) })
    expect(lifespanProblem('-2562047h47m16.854775808s', name)).toBeNull()
  })

  test('checked in the form with the value trimmed; a lifespan Hydra already holds does not stop an edit of something else', () => {
    const lifespans = (changes: Record<string, string>) => ({ ...draftOf(null).lifespans, ...changes })
    expect(validateDraft(draft({ lifespans: lifespans({ implicit_grant_access_token_lifespan: ' .5h ', authorization_code_grant_id_token_lifespan: '1000000μs' }) }))).toEqual({})
    expect(validateDraft(draft({ lifespans: lifespans({ authorization_code_grant_refresh_token_lifespan: '0' }) })).authorization_code_grant_refresh_token_lifespan).toMatch(/at least 1s/)
    const stored = { client_id: 'c', redirect_uris: ['https://app.example.com/callback'], refresh_token_grant_refresh_token_lifespan: '-1ns' }
    expect(validateDraft({ ...draftOf(stored), client_name: 'Renamed' }, stored)).toEqual({})
    expect(validateDraft({ ...draftOf(stored), lifespans: { ...draftOf(stored).lifespans, refresh_token_grant_refresh_token_lifespan: '-2ns' } }, stored)).toEqual({})
    expect(validateDraft({ ...draftOf(stored), lifespans: { ...draftOf(stored).lifespans, refresh_token_grant_refresh_token_lifespan: '0s' } }, stored).refresh_token_grant_refresh_token_lifespan).toMatch(/at least 1s/)
  })
})

describe('clientBody', () => {
  test('one URI per line, scope normalised, empty lifespans left to Hydra, never a secret', () => {
    const body = clientBody(draft({ redirect_uris: ' https://a.example/cb \n\nhttps://b.example/cb', scope: ' openid   offline_access ', audience: 'api-1\napi-2' }))
    expect(body.redirect_uris).toEqual(['https://a.example/cb', 'https://b.example/cb'])
    expect(body.scope).toBe('openid offline_access')
    expect(body.audience).toEqual(['api-1', 'api-2'])
    expect('client_secret' in body).toBe(false)
    expect('authorization_code_grant_access_token_lifespan' in body).toBe(false)
  })

  test('a JWKS URI only where the form shows it: for private_key_jwt, and not beside inline keys', () => {
    expect(clientBody(draft({ token_endpoint_auth_method: 'private_key_jwt', jwks_uri: ' https://app.example.com/jwks.json ' })).jwks_uri).toBe('https://app.example.com/jwks.json')
    expect('jwks_uri' in clientBody(draft({ jwks_uri: 'https://app.example.com/jwks.json' }))).toBe(false)
    expect('jwks_uri' in clientBody(draft({ token_endpoint_auth_method: 'private_key_jwt', inline_jwks: true }))).toBe(false)
  })
})

describe('hasInlineJwks', () => {
  test('keys are inline as soon as jwks has a keys member, as Hydra decodes it; {} as Hydra answers a client without has none', () => {
    const client = (jwks: unknown) => ({ client_id: 'c', jwks })
    expect(hasInlineJwks(client({ keys: [{ kty: 'RSA' }] }))).toBe(true)
    expect(hasInlineJwks(client({ keys: [] }))).toBe(true)
    expect(hasInlineJwks(client({ keys: null }))).toBe(true)
    expect(hasInlineJwks(client({}))).toBe(false)
    expect(hasInlineJwks(client(null))).toBe(false)
    expect(hasInlineJwks(client(undefined))).toBe(false)
    expect(hasInlineJwks(null)).toBe(false)
  })
})

describe('clientUpdate', () => {
  const loaded = {
    client_id: 'c-1',
    client_name: 'Partner portal',
    redirect_uris: ['https://partner.example.com/callback'],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    scope: 'openid',
    token_endpoint_auth_method: 'client_secret_basic',
    owner: 'team-partners',
    metadata: { tier: 'gold' },
    contacts: ['ops@partner.example.com'],
    client_uri: 'https://partner.example.com',
    allowed_cors_origins: ['https://partner.example.com'],
    jwks: {},
    authorization_code_grant_access_token_lifespan: '1h0m0s',
    jwt_bearer_grant_access_token_lifespan: '2h0m0s',
    client_secret_expires_at: 0,
    created_at: '2024-01-02T03:04:05Z',
    updated_at: '2024-02-03T04:05:06Z',
  }

  test('starts from the client as loaded: what the form does not show goes back unchanged, created_at included', () => {
    const body = clientUpdate(loaded, { ...draftOf(loaded), client_name: 'Partner portal (EU)' }) as unknown as Record<string, unknown>
    expect(body).toMatchObject({
      client_id: 'c-1',
      client_name: 'Partner portal (EU)',
      owner: 'team-partners',
      metadata: { tier: 'gold' },
      contacts: ['ops@partner.example.com'],
      client_uri: 'https://partner.example.com',
      allowed_cors_origins: ['https://partner.example.com'],
      jwks: {},
      jwt_bearer_grant_access_token_lifespan: '2h0m0s',
      authorization_code_grant_access_token_lifespan: '1h0m0s',
      created_at: '2024-01-02T03:04:05Z',
    })
  })

  test('sends no secret and none of the fields Hydra sets itself', () => {
    const body = clientUpdate({ ...loaded, client_secret: '$pbkdf2-sha256$…' } as typeof loaded, draftOf(loaded)) as unknown as Record<string, unknown>
    for (const field of ['client_secret', 'client_secret_expires_at', 'updated_at']) expect(field in body).toBe(false)
  })

  test('the form wins for its own fields; a lifespan emptied in the form goes back to null (Hydra default)', () => {
    const draft = { ...draftOf(loaded), scope: 'openid email', lifespans: { ...draftOf(loaded).lifespans, authorization_code_grant_access_token_lifespan: '' } }
    const body = clientUpdate(loaded, draft) as unknown as Record<string, unknown>
    expect(body.scope).toBe('openid email')
    expect(body.authorization_code_grant_access_token_lifespan).toBeNull()
  })
})

describe('clientPatch', () => {
  // As Hydra answers a client: empty lists as null, some fields left out.
  const loaded = {
    client_id: 'c-2',
    client_name: 'Kiosk',
    redirect_uris: ['https://kiosk.example.com/callback'],
    post_logout_redirect_uris: null,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    scope: 'openid offline_access',
    audience: null,
    token_endpoint_auth_method: 'client_secret_basic',
    metadata: { tier: 'silver' },
    contacts: ['ops@kiosk.example.com'],
    refresh_token_grant_access_token_lifespan: '30m0s',
    created_at: '2024-01-02T03:04:05Z',
    updated_at: '2024-02-03T04:05:06Z',
  } as unknown as Parameters<typeof clientPatch>[0]

  test('the form opened and saved unchanged changes nothing, whichever way Hydra spelled an empty field', () => {
    expect(clientPatch(loaded, draftOf(loaded))).toEqual([])
  })

  test('text the form tidies is no change while untouched: a name of spaces, scopes with two spaces between them', () => {
    const untidy = { ...loaded, client_name: '   ', scope: 'openid  offline_access ' } as typeof loaded
    expect(clientPatch(untidy, draftOf(untidy))).toEqual([])
    // Changed, it is sent tidied as before.
    expect(clientPatch(untidy, { ...draftOf(untidy), client_name: '  Kiosk  ' })).toEqual([{ op: 'add', path: '/client_name', value: 'Kiosk' }])
  })

  test('a private_key_jwt client with inline keys, edited without touching them: only the change is sent, never its keys or a JWKS URI', () => {
    const keyed = { ...loaded, token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [{ kty: 'RSA', kid: 'k1' }] } } as typeof loaded
    expect(clientPatch(keyed, draftOf(keyed))).toEqual([])
    expect(clientPatch(keyed, { ...draftOf(keyed), client_name: 'Kiosk 2' })).toEqual([{ op: 'add', path: '/client_name', value: 'Kiosk 2' }])
  })

  test('a switch to private_key_jwt sends the method and the JWKS URI; a switch away leaves the stored URI alone', () => {
    expect(clientPatch(loaded, { ...draftOf(loaded), token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'https://kiosk.example.com/jwks.json' })).toEqual([
      { op: 'add', path: '/token_endpoint_auth_method', value: 'private_key_jwt' },
      { op: 'add', path: '/jwks_uri', value: 'https://kiosk.example.com/jwks.json' },
    ])
    const jwt = { ...loaded, token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'https://kiosk.example.com/jwks.json' } as typeof loaded
    expect(clientPatch(jwt, { ...draftOf(jwt), token_endpoint_auth_method: 'client_secret_basic' })).toEqual([{ op: 'add', path: '/token_endpoint_auth_method', value: 'client_secret_basic' }])
  })

  test('only the field the form changed is sent, with add (Hydra takes it whether or not the field is in its JSON)', () => {
    expect(clientPatch(loaded, { ...draftOf(loaded), client_name: '  Kiosk (lobby) ' })).toEqual([{ op: 'add', path: '/client_name', value: 'Kiosk (lobby)' }])
  })

  test('a list, the scope and an emptied lifespan: each its own operation; never a secret or a field the form does not show', () => {
    const base = draftOf(loaded)
    const patch = clientPatch(loaded, {
      ...base,
      redirect_uris: 'https://kiosk.example.com/callback\nhttps://kiosk.example.com/other',
      scope: 'openid',
      skip_consent: true,
      lifespans: { ...base.lifespans, refresh_token_grant_access_token_lifespan: '', implicit_grant_id_token_lifespan: '5m' },
    })
    expect(patch).toEqual([
      { op: 'add', path: '/redirect_uris', value: ['https://kiosk.example.com/callback', 'https://kiosk.example.com/other'] },
      { op: 'add', path: '/scope', value: 'openid' },
      { op: 'add', path: '/skip_consent', value: true },
      { op: 'add', path: '/implicit_grant_id_token_lifespan', value: '5m' },
      { op: 'add', path: '/refresh_token_grant_access_token_lifespan', value: null },
    ])
  })
  test('the JWT bearer and device authorization grants\' lifespans: set, emptied or left as loaded like the others', () => {
    const held = { ...loaded, jwt_bearer_grant_access_token_lifespan: '2h0m0s', device_authorization_grant_refresh_token_lifespan: '720h0m0s' } as typeof loaded
    const base = draftOf(held)
    expect(base.lifespans.device_authorization_grant_refresh_token_lifespan).toBe('720h0m0s')
    expect(clientPatch(held, base)).toEqual([])
    expect(
      clientPatch(held, { ...base, lifespans: { ...base.lifespans, jwt_bearer_grant_access_token_lifespan: '', device_authorization_grant_access_token_lifespan: '.5h' } }),
    ).toEqual([
      { op: 'add', path: '/device_authorization_grant_access_token_lifespan', value: '.5h' },
      { op: 'add', path: '/jwt_bearer_grant_access_token_lifespan', value: null },
    ])
  })
})


describe('the changed-meanwhile check of an edit (formMembers, rebaseDraft)', () => {
  // As Hydra answers a client: every field the form has is there.
  const loaded = { client_id: 'c1', client_name: 'App', redirect_uris: ['https://app.example.com/cb'], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic', scope: 'openid email', audience: null }

  test('nothing in any of Hydra\'s spellings is the same: a null list, an empty list, a missing one', () => {
    const members = formMembers(loaded)
    expect(members.audience).toBeNull()
    expect(formMembers({ ...loaded, audience: [] }).audience).toBeNull()
    const { audience: _, ...withoutAudience } = loaded
    expect(formMembers(withoutAudience)).toEqual(members)
  })

  test('a name-only edit sets nothing whole; a redirect URI or a scope added in the form does', () => {
    const before = formMembers(loaded)
    expect(wholeMembers(before, formMembers(clientUpdate(loaded, { ...draftOf(loaded), client_name: 'App 2' })))).toEqual([])
    const edited = formMembers(clientUpdate(loaded, { ...draftOf(loaded), redirect_uris: 'https://app.example.com/cb\nhttps://app.example.com/new', scope: 'openid email profile' }))
    expect(wholeMembers(before, edited).sort()).toEqual(['redirect_uris', 'scope'])
  })

  test('only what the edit sets whole and someone else changed is stale; extra spaces in the scope change nothing', () => {
    const before = formMembers(loaded)
    const edited = formMembers(clientUpdate(loaded, { ...draftOf(loaded), redirect_uris: 'https://app.example.com/cb\nhttps://app.example.com/mine' }))
    expect(staleMembers(before, edited, formMembers({ ...loaded, scope: '  openid   email ' }))).toEqual([])
    expect(staleMembers(before, edited, formMembers({ ...loaded, scope: 'openid' }))).toEqual([])
    expect(staleMembers(before, edited, formMembers({ ...loaded, redirect_uris: ['https://app.example.com/cb', 'https://app.example.com/theirs'] }))).toEqual(['redirect_uris'])
  })

  test('rebaseDraft: stale fields take the stored value, the other edits stay, the rest is as stored now', () => {
    const now = { ...loaded, redirect_uris: ['https://app.example.com/cb', 'https://app.example.com/theirs'], audience: ['https://api.example.com'] }
    const edited = { ...draftOf(loaded), client_name: 'App 2', redirect_uris: 'https://app.example.com/mine', lifespans: { ...draftOf(loaded).lifespans, implicit_grant_access_token_lifespan: '1h' } }
    const rebased = rebaseDraft(draftOf(loaded), edited, draftOf(now), ['redirect_uris'])
    expect(rebased.redirect_uris).toBe('https://app.example.com/cb\nhttps://app.example.com/theirs')
    expect(rebased.client_name).toBe('App 2')
    expect(rebased.audience).toBe('https://api.example.com')
    expect(rebased.lifespans.implicit_grant_access_token_lifespan).toBe('1h')
    expect(clientPatch(now, rebased).map((op) => op.path).sort()).toEqual(['/client_name', '/implicit_grant_access_token_lifespan'])
  })
})
