// Plain JSON answers with the gate's headers (src/http/plain-answer.ts): a prepared value's text is
// made once and can never go stale, because the value cannot change.

import { describe, expect, test } from 'bun:test'
import { gateJson, prepared } from '../src/http/plain-answer.ts'

describe('gateJson', () => {
  test('a prepared value is answered with its JSON text, and cannot be changed at any depth', async () => {
    const value = prepared({ user: { identityId: 'a1', email: 'ada@example.test', role: 'admin', tags: ['x', { deep: 1 }] } })
    const text = JSON.stringify(value)
    for (let i = 0; i < 3; i++) expect(await gateJson(value, `id-${i}`).text()).toBe(text)
    expect(() => {
      ;(value as { user: unknown }).user = {}
    }).toThrow(TypeError)
    expect(() => {
      ;(value.user as { role: string }).role = 'viewer'
    }).toThrow(TypeError)
    expect(() => {
      ;(value.user.tags[1] as { deep: number }).deep = 2
    }).toThrow(TypeError)
    expect(() => (value.user.tags as unknown[]).push('y')).toThrow(TypeError)
    expect(await gateJson(value, 'id').text()).toBe(text)
  })

  test('a value that was not prepared is serialized each time: a change shows in the next answer', async () => {
    const value = { status: 'ok', count: 1 }
    expect(await gateJson(value, 'id-1').json()).toEqual({ status: 'ok', count: 1 })
    value.count = 2
    expect(await gateJson(value, 'id-2').json()).toEqual({ status: 'ok', count: 2 })
  })

  test('another object of the same shape is not taken for a prepared one: only the prepared object itself is', async () => {
    prepared({ status: 'ok' })
    const other = { status: 'degraded' }
    expect(await gateJson(other, 'id').json()).toEqual({ status: 'degraded' })
  })

  test('the answer carries the JSON type, the security headers and the request id', () => {
    const answer = gateJson(prepared({ status: 'ok' }), 'the-id')
    expect(answer.status).toBe(200)
    expect(answer.headers.get('content-type')).toBe('application/json;charset=utf-8')
    expect(answer.headers.get('x-request-id')).toBe('the-id')
    expect(answer.headers.get('cache-control')).toBe('no-store')
    expect(answer.headers.get('x-frame-options')).toBe('DENY')
  })
})
