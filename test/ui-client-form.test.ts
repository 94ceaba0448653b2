// The OAuth client form's checks, run before anything is sent to Hydra.
import { describe, expect, test } from 'bun:test'
import { clientBody, draftOf, validateDraft } from '../ui/pages/oauth-clients/form.tsx'

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

  test('scopes, grant and response types, lifespans', () => {
    expect(validateDraft(draft({ scope: 'openid "quoted"' })).scope).toBeDefined()
    expect(validateDraft(draft({ grant_types: [] })).grant_types).toBeDefined()
    expect(validateDraft(draft({ response_types: [] })).response_types).toBeDefined()
    const lifespans = { ...draftOf(null).lifespans, authorization_code_grant_access_token_lifespan: 'one hour' }
    expect(validateDraft(draft({ lifespans })).authorization_code_grant_access_token_lifespan).toBeDefined()
    expect(validateDraft(draft({ lifespans: { ...lifespans, authorization_code_grant_access_token_lifespan: '1h30m' } }))).toEqual({})
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
})
