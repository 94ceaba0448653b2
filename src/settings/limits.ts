// What a setting may be (decisions §7), for the settings service and for the UI's setting form,
// which says so at the field before sending. Without imports, so that the UI can bundle it.

export const SETTING_KEY_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,254}$'
/** A value's limit in bytes of UTF-8. */
export const MAX_VALUE_BYTES = 64 * 1024
/** A category's limit in characters (code points). */
export const MAX_CATEGORY_LENGTH = 64
