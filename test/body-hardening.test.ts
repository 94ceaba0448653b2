// Bodies built to hurt: nesting deep enough to overflow a recursive validator or layout check,
// and strings that are not well-formed Unicode (stored differently from what was acknowledged).
// Both are refused with 400 before any work that recurses, on every JSON route that stores text.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { MAX_JSON_DEPTH, nestingDepth, wellFormed } from '../src/http/body.ts'
import { startStack, type Stack } from './support/stack.ts'

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
})
afterAll(async () => {
  await stack.stop()
})

async function send(method: string, path: string, cookie: string, body: string) {
  const response = await fetch(`${stack.service.url}${path}`, {
    method,
    headers: { cookie, 'content-type': 'application/json', origin: 'http://admin.test' },
    body,
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth)

describe('nesting', () => {
  for (const depth of [5_000, 60_000, 120_000]) {
    test(`${depth} nested arrays in a layout (a viewer is enough) → 400, not 500`, async () => {
      const answer = await send('PUT', '/api/dashboard/layout', stack.cookie.viewer, `{"layout":{"a":${nested(depth)}}}`)
      expect(answer).toEqual({ status: 400, body: { error: 'bad_request', message: `The request body is nested deeper than ${MAX_JSON_DEPTH} levels.` } })
    })
    test(`${depth} nested arrays in a setting → 400`, async () => {
      const answer = await send('POST', '/api/settings', stack.cookie.admin, `{"key":"k","value":"v","category":${nested(depth)}}`)
      expect(answer.status).toBe(400)
      expect(answer.body.error).toBe('bad_request')
    })
  }

  test(`a layout nested ${MAX_JSON_DEPTH} deep (the body's own object included) is still accepted`, async () => {
    let layout: unknown = 1
    for (let i = 0; i < MAX_JSON_DEPTH - 2; i++) layout = { n: layout }
    const answer = await send('PUT', '/api/dashboard/layout', stack.cookie.viewer, JSON.stringify({ layout }))
    expect(answer.status).toBe(200)
  })

  test('brackets inside strings (escaped quotes too) do not count', () => {
    const bytes = new TextEncoder().encode(JSON.stringify({ a: '[[[[{{{{"\\\\', b: [1] }))
    expect(nestingDepth(bytes)).toBe(2)
  })
})

describe('well-formed Unicode', () => {
  const lone = ['"\\ud800"', '"a\\udfffb"', '"\\udc00\\ud800"']
  for (const literal of lone) {
    test(`a setting value ${literal} → 400 and nothing stored`, async () => {
      const answer = await send('POST', '/api/settings', stack.cookie.admin, `{"key":"unicode.value","value":${literal}}`)
      expect(answer).toEqual({ status: 400, body: { error: 'bad_request', message: 'The request body contains a string that is not well-formed Unicode.' } })
      expect((await stack.service.services.settings.list()).some((setting) => setting.key === 'unicode.value')).toBe(false)
    })
  }

  test('a lone surrogate in a category, in /api/encrypt and in a layout key → 400', async () => {
    expect((await send('POST', '/api/settings', stack.cookie.admin, '{"key":"k2","value":"v","category":"\\ud83d"}')).status).toBe(400)
    expect((await send('POST', '/api/encrypt', stack.cookie.admin, '{"value":"\\ude00"}')).status).toBe(400)
    expect((await send('PUT', '/api/dashboard/layout', stack.cookie.viewer, '{"layout":{"\\ud800":1}}')).status).toBe(400)
    expect((await send('PUT', '/api/dashboard/layout', stack.cookie.viewer, '{"layout":{"deep":[{"x":["\\udbff"]}]}}')).status).toBe(400)
  })

  test('a surrogate pair (an emoji) is fine, and is stored exactly as acknowledged', async () => {
    const answer = await send('POST', '/api/settings', stack.cookie.admin, '{"key":"unicode.emoji","value":"ok \\ud83d\\ude00"}')
    expect(answer.status).toBe(201)
    expect(answer.body.value).toBe('ok 😀')
    expect((await stack.service.services.settings.list()).find((setting) => setting.key === 'unicode.emoji')?.value).toBe('ok 😀')
  })

  test('invalid UTF-8 bytes are refused too', async () => {
    const response = await fetch(`${stack.service.url}/api/settings`, {
      method: 'POST',
      headers: { cookie: stack.cookie.admin, 'content-type': 'application/json', origin: 'http://admin.test' },
      body: new Uint8Array([...new TextEncoder().encode('{"key":"k3","value":"'), 0xff, 0xfe, ...new TextEncoder().encode('"}')]),
    })
    expect(response.status).toBe(400)
  })

  test('wellFormed walks keys and nested values without recursion', () => {
    let deep: unknown = '\ud800'
    for (let i = 0; i < 100_000; i++) deep = [deep]
    expect(wellFormed(deep)).toBe(false)
    expect(wellFormed({ a: ['b', { c: 'd' }] })).toBe(true)
  })
})
