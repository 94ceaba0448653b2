// The identity form is generated from the identity schema's traits: what it accepts, what it
// refuses with which message, and the traits it sends.
import { describe, expect, test } from 'bun:test'
import { mergeTraits, toTraits, UNREADABLE_NUMBER, validate } from '../ui/components/schema-form.tsx'
import type { FormSchema } from '../ui/api.ts'

const traits: FormSchema = {
  type: 'object',
  properties: {
    email: { type: 'string', format: 'email', title: 'E-mail', identifier: true },
    name: { type: 'object', properties: { first: { type: 'string', title: 'First name', maxLength: 5 }, last: { type: 'string' } }, required: ['first'] },
    age: { type: 'integer', minimum: 18, maximum: 130 },
    score: { type: 'number' },
    newsletter: { type: 'boolean' },
    role: { type: 'string', enum: ['admin', 'viewer'] },
    website: { type: 'string', format: 'uri' },
    code: { type: 'string', pattern: '^[A-Z]{3}$' },
  },
  required: ['email', 'role'],
}

describe('validation messages beside each field', () => {
  test('required fields, nested ones included, say so by their label', () => {
    expect(validate(traits, { name: { last: 'Lovelace' } })).toEqual({ email: 'E-mail is required.', 'name.first': 'First name is required.', role: 'Role is required.' })
  })

  test('an optional object left blank is absent: the fields it requires are not asked for', () => {
    expect(validate(traits, {})).toEqual({ email: 'E-mail is required.', role: 'Role is required.' })
    expect(validate(traits, { email: 'a@b.co', role: 'admin', name: { first: '', last: '' } })).toEqual({})
    // Required by its parent, it is asked for even when blank.
    const required: FormSchema = { ...traits, required: ['email', 'role', 'name'] }
    expect(validate(required, { email: 'a@b.co', role: 'admin' })).toEqual({ 'name.first': 'First name is required.' })
    expect(toTraits(traits, { email: 'a@b.co', role: 'admin', name: { first: '' } })).toEqual({ email: 'a@b.co', role: 'admin' })
    // Emptied in an edit, it goes, but for what the schema does not show of it.
    expect(mergeTraits(traits, { email: 'a@b.co', role: 'admin', name: { first: 'Ada', last: 'L' } }, { email: 'a@b.co', role: 'admin', name: { first: '', last: '' } })).toEqual({ email: 'a@b.co', role: 'admin' })
    expect(mergeTraits(traits, { email: 'a@b.co', role: 'admin', name: { first: 'Ada', title: 'Countess' } }, { email: 'a@b.co', role: 'admin', name: { first: '' } })).toEqual({ email: 'a@b.co', role: 'admin', name: { title: 'Countess' } })
  })

  test('an address with spaces around it says so, rather than asking for an address like one it looks like', () => {
    expect(validate(traits, { email: '  ada@example.test ', role: 'admin' })).toEqual({ email: 'Remove the spaces before or after the address.' })
  })

  test('a number the browser could not read is refused, not left out', () => {
    expect(validate(traits, { email: 'a@b.co', role: 'admin', age: UNREADABLE_NUMBER, score: UNREADABLE_NUMBER })).toEqual({ age: 'Enter a whole number.', score: 'Enter a number.' })
  })

  test('formats, bounds, enums and patterns', () => {
    const errors = validate(traits, {
      email: 'nope',
      name: { first: 'Alexandra' },
      age: '12',
      score: 'abc',
      role: 'root',
      website: 'example.com',
      code: 'abc',
    })
    expect(errors).toEqual({
      email: 'Enter an e-mail address like name@example.com.',
      'name.first': 'Use at most 5 characters.',
      age: 'Enter at least 18.',
      score: 'Enter a number.',
      role: 'Choose one of the options.',
      website: 'Enter a full URL.',
      code: 'Enter a value of the form the identity schema asks for (pattern: ^[A-Z]{3}$).',
    })
    expect(validate(traits, { email: 'a@b.co', role: 'admin', name: { first: 'Al' }, age: '18.5' })).toEqual({ age: 'Enter a whole number.' })
  })

  test('a valid form has no message', () => {
    expect(validate(traits, { email: 'ada@example.test', role: 'viewer', name: { first: 'Ada' }, age: '36', website: 'https://ada.example' })).toEqual({})
  })
})

test('the traits sent: numbers as numbers, booleans as booleans, empty optional fields left out', () => {
  expect(toTraits(traits, { email: 'ada@example.test', role: 'viewer', name: { first: 'Ada', last: '' }, age: '36', score: '', newsletter: true, website: '' })).toEqual({
    email: 'ada@example.test',
    role: 'viewer',
    name: { first: 'Ada' },
    age: 36,
    newsletter: true,
  })
})

test('an edit replaces the fields the form shows, emptied ones removed, and keeps traits the schema does not show', () => {
  const existing = { email: 'ada@example.test', role: 'viewer', name: { first: 'Ada', last: 'Lovelace', title: 'Countess' }, age: 36, website: 'https://ada.example', legacy_id: 7 }
  const values = { email: 'ada@example.test', role: 'admin', name: { first: 'Ada', last: '' }, age: '', website: 'https://ada.example' }
  expect(mergeTraits(traits, existing, values)).toEqual({
    email: 'ada@example.test',
    role: 'admin',
    // "last" emptied in the form; "title" is not a field of the schema's name.
    name: { first: 'Ada', title: 'Countess' },
    website: 'https://ada.example',
    legacy_id: 7,
  })
  expect(mergeTraits(traits, { name: 'not an object' }, { email: 'a@b.test', role: 'viewer', name: { first: '' } })).toEqual({ email: 'a@b.test', role: 'viewer' })
})
