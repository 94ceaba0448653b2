// Upstream text that names something (an identifier, a name, a client's name) is shown with the
// characters that would hide or disguise it made visible: bidi controls (U+202E turns the text
// around, and the sentence around it), zero-width characters, other controls. Anyone can sign up
// with such a name; shown as it is, "adm<U+200B>in@example.test" reads like the admin, in lists,
// headings and the dialogs that ask before deleting.
//
// Three of them are also how real text is written, and are kept where they do that: the zero-width
// non-joiner and joiner (U+200C, U+200D) between the letters of a script that shapes with them
// (Persian می‌خواهم, Hindi क्‌ष, Sinhala ශ්‍රී), the joiner inside an emoji sequence (👩‍💻), and the
// emoji presentation selector (U+FE0F) after an emoji (❤️), and the invisible tag characters only
// inside a subdivision flag (🏴󠁧󠁢󠁳󠁣󠁴󠁿). There they change what is drawn, so
// they hide nothing. Anywhere else (at the start or end, beside ASCII, several in a row) they are
// marked, and in an e-mail address always: an identifier must not have two spellings that read
// alike.

const HIDDEN = /[\u0000-\u001F\u007F-\u009F\u00AD\u061C\u115F\u1160\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\u{E0000}-\u{E007F}]/gu

const ZWNJ = '\u200C'
const ZWJ = '\u200D'
const EMOJI_PRESENTATION = '\uFE0F'
const KEYCAP = '\u20E3'
/** A subdivision flag (🏴󠁧󠁢󠁳󠁣󠁴󠁿 Scotland) is the black flag, tag letters naming the region, and the cancel tag. */
const BLACK_FLAG = '\u{1F3F4}'
const TAG = /^[\u{E0020}-\u{E007E}]$/u
const CANCEL_TAG = '\u{E007F}'

/** Scripts written with the zero-width non-joiner and joiner between their letters (The Unicode Standard, 23.2). */
const JOINING_SCRIPTS = [
  'Arabic', 'Syriac', 'Nko', 'Mongolian',
  'Devanagari', 'Bengali', 'Gurmukhi', 'Gujarati', 'Oriya', 'Tamil', 'Telugu', 'Kannada', 'Malayalam', 'Sinhala',
  'Myanmar', 'Khmer',
].map((script) => new RegExp(`^\\p{Script_Extensions=${script}}$`, 'u'))
const LETTER_OR_MARK = /^[\p{L}\p{M}]$/u
const PICTOGRAPH = /^\p{Extended_Pictographic}$/u
const EMOJI_MODIFIER = /^\p{Emoji_Modifier}$/u
const EMOJI = /^\p{Emoji}$/u
const KEYCAP_BASE = /^[0-9#*]$/
const EMAIL = /^[^\s@]+@[^\s@]+$/u

/** The character (a whole code point) that ends just before `offset`, and where it starts. */
function before(text: string, offset: number): { char: string; at: number } | null {
  if (offset <= 0) return null
  const at = offset >= 2 && /[\uDC00-\uDFFF]/.test(text[offset - 1]!) && /[\uD800-\uDBFF]/.test(text[offset - 2]!) ? offset - 2 : offset - 1
  return { char: text.slice(at, offset), at }
}

/** The character (a whole code point) that starts at `offset`. */
function at(text: string, offset: number): string | null {
  const code = text.codePointAt(offset)
  return code === undefined ? null : String.fromCodePoint(code)
}

/** Two letters (or marks) of one script that is written with the joiners. */
const sameJoiningScript = (left: string | undefined, right: string | null) =>
  left !== undefined && right !== null && LETTER_OR_MARK.test(left) && LETTER_OR_MARK.test(right) && JOINING_SCRIPTS.some((script) => script.test(left) && script.test(right))

/** Whether an emoji ends at `offset`: a pictograph, maybe with its skin tone and presentation selector. */
function emojiEndsAt(text: string, offset: number): boolean {
  for (let previous = before(text, offset); previous; previous = before(text, previous.at)) {
    if (previous.char !== EMOJI_PRESENTATION && !EMOJI_MODIFIER.test(previous.char)) return PICTOGRAPH.test(previous.char)
  }
  return false
}

/** Whether the character at `offset` is one of the three that real text needs there. */
function writesText(text: string, character: string, offset: number): boolean {
  const left = before(text, offset)?.char
  const right = at(text, offset + character.length)
  switch (character) {
    case ZWNJ:
      return sameJoiningScript(left, right)
    case ZWJ:
      return sameJoiningScript(left, right) || (right !== null && PICTOGRAPH.test(right) && emojiEndsAt(text, offset))
    case EMOJI_PRESENTATION:
      if (left === undefined) return false
      return KEYCAP_BASE.test(left) ? right === KEYCAP : left.codePointAt(0)! > 0x7f && EMOJI.test(left)
    default:
      return inSubdivisionFlag(text, offset)
  }
}

/** Whether the tag character at `offset` belongs to a subdivision flag: the black flag, tags only, the cancel tag. */
function inSubdivisionFlag(text: string, offset: number): boolean {
  if (!TAG.test(at(text, offset) ?? '') && at(text, offset) !== CANCEL_TAG) return false
  let start = before(text, offset)
  while (start && TAG.test(start.char)) start = before(text, start.at)
  if (start?.char !== BLACK_FLAG) return false
  for (let next = offset; ; ) {
    const char = at(text, next)
    if (char === CANCEL_TAG) return true
    if (char === null || !TAG.test(char)) return false
    next += char.length
  }
}

/** A character written as ⟨U+XXXX⟩. */
const marked = (character: string) => `⟨U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟩`

/** The text with each hiding character written as ⟨U+XXXX⟩. */
export function revealHidden(text: string): string {
  const identifier = EMAIL.test(text.replace(HIDDEN, ''))
  return text.replace(HIDDEN, (character, offset: number) => (!identifier && writesText(text, character, offset) ? character : marked(character)))
}

const EDGES = /^(\s*)([\s\S]*?)(\s*)$/u
const WORD = /[\p{L}\p{M}\p{N}]+/gu
const LATIN = /\p{Script=Latin}/u
/** Alphabets with letters drawn like Latin ones (Cyrillic а, Greek ο, Armenian օ, Cherokee Ꭺ). */
const LOOKALIKE = /[\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Armenian}\p{Script=Cherokee}]/gu


/**
 * An identifier as shown where it names someone: its hiding characters made visible
 * (`revealHidden`), and two more ways to pass for another: spaces at its ends ("  admin@example.test")
 * and letters of an alphabet drawn like Latin inside a Latin word ("аdmin" with a Cyrillic а). A
 * word wholly in one alphabet (Cyrillic "иван@example.com") is shown as it is.
 */
export function revealIdentifier(text: string): string {
  const [, lead = '', core = '', trail = ''] = EDGES.exec(text) ?? []
  const unmixed = core.replace(WORD, (word) => (LATIN.test(word) ? word.replace(LOOKALIKE, marked) : word))
  return [...lead].map(marked).join('') + revealHidden(unmixed) + [...trail].map(marked).join('')
}
