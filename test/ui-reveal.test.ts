// Hidden characters are shown as ⟨U+XXXX⟩ where they could disguise a name, and kept where real
// text is written with them: the joiners between the letters of Persian, Hindi or Sinhala words and
// inside emoji sequences, the emoji presentation selector after an emoji.
import { describe, expect, test } from 'bun:test'
import { revealHidden, revealIdentifier } from '../ui/reveal.ts'

test('Persian, Hindi, Marathi and Sinhala words written with the zero-width non-joiner or joiner read as written', () => {
  const words = [
    'می\u200Cخواهم', // Persian "I want": the prefix می stands apart from the verb
    'کتاب\u200Cها', // Persian "books"
    'نمی\u200Cدانم', // Persian "I don't know"
    'क्\u200Cष', // Hindi: the half form of क shown with its virama instead of the ligature क्ष
    'क्\u200Dष', // Hindi: its half form
    'कार्\u200Dयालय', // Marathi: the eyelash ra
    'ශ්\u200Dරී ලංකා', // Sinhala: Sri Lanka, with its rakaransaya
  ]
  for (const word of words) expect(revealHidden(word)).toBe(word)
  expect(revealHidden('Mina Rahimi (می\u200Cخواهم)')).toBe('Mina Rahimi (می\u200Cخواهم)')
})

test('emoji sequences keep their joiners and presentation selectors', () => {
  const emoji = [
    '👨\u200D👩\u200D👧\u200D👦', // family
    '🏳\uFE0F\u200D🌈', // rainbow flag
    '🧑🏽\u200D💻', // technologist, medium skin tone
    '🤦🏼\u200D♂\uFE0F', // man facepalming, medium-light skin tone
    '👁\uFE0F\u200D🗨\uFE0F', // eye in speech bubble
    '❤\uFE0F',
    '1\uFE0F\u20E3', // keycap one
    '©\uFE0F',
  ]
  for (const sequence of emoji) expect(revealHidden(sequence)).toBe(sequence)
  expect(revealHidden('Émoji Pérson 👨\u200D👩\u200D👧\u200D👦 ❤\uFE0F')).toBe('Émoji Pérson 👨\u200D👩\u200D👧\u200D👦 ❤\uFE0F')
})

test('the same characters are marked where they hide something: beside ASCII, at the start or end, several in a row, between two scripts', () => {
  expect(revealHidden('ad\u200Cmin@example.test')).toBe('ad⟨U+200C⟩min@example.test')
  expect(revealHidden('ad\u200Dmin')).toBe('ad⟨U+200D⟩min')
  expect(revealHidden('admin\u200C')).toBe('admin⟨U+200C⟩')
  expect(revealHidden('\u200Dadmin')).toBe('⟨U+200D⟩admin')
  expect(revealHidden('\u200Cمی')).toBe('⟨U+200C⟩می')
  expect(revealHidden('می\u200C')).toBe('می⟨U+200C⟩')
  expect(revealHidden('می\u200C\u200Cخواهم')).toBe('می⟨U+200C⟩⟨U+200C⟩خواهم')
  expect(revealHidden('می\u200C خواهم')).toBe('می⟨U+200C⟩ خواهم')
  expect(revealHidden('क\u200Cخ')).toBe('क⟨U+200C⟩خ')
  expect(revealHidden('a\u200Dب')).toBe('a⟨U+200D⟩ب')
  expect(revealHidden('👩\u200D')).toBe('👩⟨U+200D⟩')
  expect(revealHidden('\u200D👩')).toBe('⟨U+200D⟩👩')
  expect(revealHidden('👩\u200D\u200D💻')).toBe('👩⟨U+200D⟩⟨U+200D⟩💻')
  expect(revealHidden('a\u200D💻')).toBe('a⟨U+200D⟩💻')
  expect(revealHidden('\uFE0Fadmin')).toBe('⟨U+FE0F⟩admin')
  expect(revealHidden('admin\uFE0F')).toBe('admin⟨U+FE0F⟩')
  expect(revealHidden('admin1\uFE0F')).toBe('admin1⟨U+FE0F⟩')
  expect(revealHidden('❤\uFE0F\uFE0F')).toBe('❤\uFE0F⟨U+FE0F⟩')
  expect(revealHidden('ad\uFE0Fmin')).toBe('ad⟨U+FE0F⟩min')
})

test('in an e-mail address every one of them is marked, even between the letters of a script that uses it', () => {
  expect(revealHidden('علی\u200Cرضا@example.ir')).toBe('علی⟨U+200C⟩رضا@example.ir')
  expect(revealHidden('👩\u200D💻@example.test')).toBe('👩⟨U+200D⟩💻@example.test')
  expect(revealHidden('ad\u200Bmin@example.test')).toBe('ad⟨U+200B⟩min@example.test')
})

test('bidi controls, zero-width spaces and the other hiding characters stay marked in any company', () => {
  expect(revealHidden('\u202Etset.elpmaxe@nimda')).toBe('⟨U+202E⟩tset.elpmaxe@nimda')
  expect(revealHidden('می\u202Bخواهم')).toBe('می⟨U+202B⟩خواهم')
  expect(revealHidden('می\u2067خواهم\u2069')).toBe('می⟨U+2067⟩خواهم⟨U+2069⟩')
  expect(revealHidden('क्\u200Bष')).toBe('क्⟨U+200B⟩ष')
  expect(revealHidden('👩\u2060💻')).toBe('👩⟨U+2060⟩💻')
  expect(revealHidden('❤\uFE0E')).toBe('❤⟨U+FE0E⟩')
  expect(revealHidden('Ada\u200B Admin\uFEFF')).toBe('Ada⟨U+200B⟩ Admin⟨U+FEFF⟩')
  expect(revealHidden('line one\nline two')).toBe('line one⟨U+000A⟩line two')
  expect(revealHidden('plain text')).toBe('plain text')
})

test('tag characters, invisible, are marked except inside a subdivision flag', () => {
  const scotland = '\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}'
  expect(revealHidden(`Fiona ${scotland}`)).toBe(`Fiona ${scotland}`)
  // Text smuggled in tags reads as nothing at all: here 'hi' after an e-mail address and a name.
  expect(revealHidden('admin@example.test\u{E0068}\u{E0069}')).toBe('admin@example.test⟨U+E0068⟩⟨U+E0069⟩')
  expect(revealHidden('Ada\u{E0068}\u{E0069}\u{E007F}')).toBe('Ada⟨U+E0068⟩⟨U+E0069⟩⟨U+E007F⟩')
  // A flag that is not closed, or tags after something other than the black flag, hide something.
  expect(revealHidden('\u{1F3F4}\u{E0067}\u{E0062}')).toBe('\u{1F3F4}⟨U+E0067⟩⟨U+E0062⟩')
  expect(revealHidden('\u{1F3F3}\u{E0067}\u{E007F}')).toBe('\u{1F3F3}⟨U+E0067⟩⟨U+E007F⟩')
})

describe('an identifier as it names someone (revealIdentifier)', () => {
  test('spaces at its ends are marked, so "  admin@example.test  " does not read as the admin', () => {
    expect(revealIdentifier('  admin@example.test ')).toBe('⟨U+0020⟩⟨U+0020⟩admin@example.test⟨U+0020⟩')
    expect(revealIdentifier('\u00A0admin@example.test')).toBe('⟨U+00A0⟩admin@example.test')
    expect(revealIdentifier('Ada Lovelace')).toBe('Ada Lovelace')
  })

  test('a letter of an alphabet drawn like Latin, inside a Latin word, is marked; a word wholly in one alphabet is not', () => {
    expect(revealIdentifier('\u0430dmin@example.test')).toBe('⟨U+0430⟩dmin@example.test')
    expect(revealIdentifier('p\u0430yp\u0430l.com')).toBe('p⟨U+0430⟩yp⟨U+0430⟩l.com')
    expect(revealIdentifier('admin@ex\u03BFmple.test')).toBe('admin@ex⟨U+03BF⟩mple.test')
    expect(revealIdentifier('иван@example.com')).toBe('иван@example.com')
    expect(revealIdentifier('Σωκράτης')).toBe('Σωκράτης')
    expect(revealIdentifier('Müller-Lüdenscheidt')).toBe('Müller-Lüdenscheidt')
  })

  test('hiding characters are marked as before, spaces inside left alone', () => {
    expect(revealIdentifier('adm\u200Bin@example.test')).toBe('adm⟨U+200B⟩in@example.test')
    expect(revealIdentifier('\u202Etset.elpmaxe@nimda')).toBe('⟨U+202E⟩tset.elpmaxe@nimda')
    expect(revealIdentifier('CN 104233')).toBe('CN 104233')
  })
})
