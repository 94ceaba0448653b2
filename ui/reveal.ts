// Upstream text that names something (an identifier, a name, a client's name) is shown with the
// characters that would hide or disguise it made visible: bidi controls (U+202E turns the text
// around, and the sentence around it), zero-width characters, other controls. Anyone can sign up
// with such a name; shown as it is, "adm<U+200B>in@example.test" reads like the admin, in lists,
// headings and the dialogs that ask before deleting.

const HIDDEN = /[\u0000-\u001F\u007F-\u009F\u00AD\u061C\u115F\u1160\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0]/gu

/** The text with each hiding character written as ⟨U+XXXX⟩. */
export function revealHidden(text: string): string {
  return text.replace(HIDDEN, (character) => `⟨U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟩`)
}
