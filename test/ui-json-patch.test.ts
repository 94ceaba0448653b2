// The JSON Patch the identity and OAuth client pages send: only what an edit changed.
import { describe, expect, test } from 'bun:test'
import { membersPatch, pointer, rebaseMembers, staleMembers, valuePatch, wholeMembers } from '../ui/components/json-patch.ts'
import { KratosFixture } from './support/kratos.ts'

describe('pointer', () => {
  test('escapes ~ and / in member names (RFC 6901)', () => {
    expect(pointer('traits', 'a/b~c')).toBe('/traits/a~1b~0c')
  })
})

describe('membersPatch', () => {
  test('a changed member is set, a new one added, a removed one removed, an unchanged one left out', () => {
    const before = { email: 'a@example.test', name: { first: 'Ann', last: 'Lee' }, phone: '+100', kept: [1, 2] }
    const after = { email: 'a@example.test', name: { first: 'Ann', last: 'Li' }, kept: [1, 2], nickname: 'al' }
    expect(membersPatch(['traits'], before, after)).toEqual([
      { op: 'add', path: '/traits/name', value: { first: 'Ann', last: 'Li' } },
      { op: 'remove', path: '/traits/phone' },
      { op: 'add', path: '/traits/nickname', value: 'al' },
    ])
  })

  test('nothing changed: no operation', () => {
    expect(membersPatch(['traits'], { email: 'a@example.test' }, { email: 'a@example.test' })).toEqual([])
  })

  test('members stored in another order are the same value, as PostgreSQL jsonb may reorder them', () => {
    expect(membersPatch(['traits'], { name: { first: 'Ann', last: 'Lee' } }, { name: { last: 'Lee', first: 'Ann' } })).toEqual([])
    expect(staleMembers({ name: { first: 'Ann', last: 'Lee' } }, { name: { first: 'Anna', last: 'Lee' } }, { name: { last: 'Lee', first: 'Ann' } })).toEqual([])
    // The order of a list's items is part of its value.
    expect(membersPatch(['traits'], { emails: ['a', 'b'] }, { emails: ['b', 'a'] })).toHaveLength(1)
  })
})

describe('valuePatch', () => {
  test('missing and null are the same; anything else that differs is set', () => {
    expect(valuePatch(['metadata_public'], undefined, null)).toEqual([])
    expect(valuePatch(['metadata_public'], { plan: 'team' }, { plan: 'team' })).toEqual([])
    expect(valuePatch(['metadata_public'], { plan: 'team' }, null)).toEqual([{ op: 'add', path: '/metadata_public', value: null }])
    expect(valuePatch(['metadata_admin'], null, { note: 'vip' })).toEqual([{ op: 'add', path: '/metadata_admin', value: { note: 'vip' } }])
  })
})

describe('lists and objects set whole', () => {
  const before = { email: 'a@example.test', emails: ['a@example.test'], name: { first: 'Ann' }, team: 'blue', old: { x: 1 } }

  test('the members an edit sets or removes whole: changed lists and objects, not scalars nor unchanged ones', () => {
    const edited = { email: 'b@example.test', emails: ['a@example.test', 'b@example.test'], name: { first: 'Ann' }, team: 'red', added: [] }
    expect(wholeMembers(before, edited)).toEqual(['emails', 'old', 'added'])
    expect(wholeMembers({ plan: null }, { plan: { tier: 1 } })).toEqual(['plan'])
    expect(wholeMembers(before, before)).toEqual([])
  })

  test('stale: of those, the ones changed since the edit was measured (a member added meanwhile counts)', () => {
    const edited = { ...before, emails: ['a@example.test', 'mine@example.test'], name: { first: 'Anna' }, team: 'red' }
    const now = { ...before, emails: ['a@example.test', 'theirs@example.test'], team: 'green' }
    expect(staleMembers(before, edited, now)).toEqual(['emails'])
    expect(staleMembers(before, edited, before)).toEqual([])
    expect(staleMembers({}, { tags: ['mine'] }, { tags: ['theirs'] })).toEqual(['tags'])
    // Stored as the edit has it (the edit's own save, whose answer was lost): nobody else's change.
    expect(staleMembers({}, { tags: ['mine'] }, { tags: ['mine'] })).toEqual([])
    expect(staleMembers(before, edited, { ...now, emails: edited.emails })).toEqual([])
  })

  test('rebased: the stored record, with the other changes of the edit kept (team removed) and the stale members as stored', () => {
    const edited = { email: 'a@example.test', emails: ['a@example.test', 'mine@example.test'], name: { first: 'Anna' }, old: { x: 1 } }
    const now = { ...before, emails: ['a@example.test', 'theirs@example.test'], role: 'viewer' }
    expect(rebaseMembers(before, edited, now, ['emails'])).toEqual({
      email: 'a@example.test',
      emails: ['a@example.test', 'theirs@example.test'],
      name: { first: 'Anna' },
      old: { x: 1 },
      role: 'viewer',
    })
  })
})

describe('applied by the Kratos stand-in, as Kratos applies it', () => {
  test('only the patched members change; removing a member that is not there refuses the whole patch', async () => {
    const kratos = new KratosFixture().start()
    try {
      const identity = kratos.addIdentity({ email: 'patch.me@example.test', name: 'Before' })
      identity.metadata_public = { plan: 'team' }
      const patch = (body: unknown) =>
        fetch(`${kratos.url}/admin/identities/${identity.id}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

      const changed = await patch(membersPatch(['traits'], identity.traits, { ...identity.traits, name: 'After' }))
      expect(changed.status).toBe(200)
      expect(kratos.identities.get(identity.id)).toMatchObject({ traits: { email: 'patch.me@example.test', name: 'After' }, metadata_public: { plan: 'team' }, state: 'active' })

      const refused = await patch([{ op: 'add', path: '/traits/name', value: 'Never' }, { op: 'remove', path: '/traits/nickname' }])
      expect(refused.status).toBe(400)
      expect(kratos.identities.get(identity.id)!.traits.name).toBe('After')
    } finally {
      await kratos.stop()
    }
  })

  test('a `test` operation is refused as Kratos refuses it, even one that holds, and nothing of the patch is applied', async () => {
    const kratos = new KratosFixture().start()
    try {
      const identity = kratos.addIdentity({ email: 'tested@example.test', name: 'Before' })
      const answer = await fetch(`${kratos.url}/admin/identities/${identity.id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify([
          { op: 'add', path: '/traits/name', value: 'After' },
          { op: 'test', path: '/traits/email', value: 'tested@example.test' },
        ]),
      })
      expect(answer.status).toBe(400)
      // herodot's ErrBadRequest with the reason and message that identity/handler.go and jsonx.ApplyJSONPatch give it.
      expect(await answer.json()).toEqual({ error: { code: 400, status: 'Bad Request', reason: 'failed to apply JSON patch', message: 'unsupported operation: test' } })
      expect(kratos.identities.get(identity.id)!.traits).toEqual({ email: 'tested@example.test', name: 'Before' })
    } finally {
      await kratos.stop()
    }
  })
})
