// Request schemas of the settings routes (decisions §7). The byte limit of `value` is checked
// again in the service (maxLength counts UTF-16 units, the limit is 64 KiB of UTF-8), and the
// category's length in characters only there. A refused field is named with its rule, the same
// words as the service's (SETTING_FIELD_RULES).

import { t } from 'elysia'
import { FIELD_RULE } from '../http/error-handler.ts'
import { MAX_CATEGORY_LENGTH, MAX_VALUE_BYTES, SETTING_FIELD_RULES, SETTING_KEY_PATTERN } from './service.ts'

// Other fields are refused by the routes (refuseUnknownFields) before the schema, which would drop
// them silently; `additionalProperties: false` says so in the OpenAPI document.
export const settingWriteBody = t.Object({
  key: t.String({ pattern: SETTING_KEY_PATTERN, [FIELD_RULE]: SETTING_FIELD_RULES.key }),
  value: t.String({ maxLength: MAX_VALUE_BYTES, [FIELD_RULE]: SETTING_FIELD_RULES.value }),
  encrypted: t.Optional(t.Boolean({ [FIELD_RULE]: SETTING_FIELD_RULES.encrypted })),
  // At most MAX_CATEGORY_LENGTH characters, checked by the service: maxLength here would count UTF-16 units.
  category: t.Optional(t.Union([t.String({ description: `At most ${MAX_CATEGORY_LENGTH} characters.` }), t.Null()], { [FIELD_RULE]: SETTING_FIELD_RULES.category })),
}, { additionalProperties: false })

export const settingsListQuery = t.Object({
  category: t.Optional(t.String()),
})

export const settingReadQuery = t.Object({
  decrypt: t.Optional(t.Union([t.Literal('true'), t.Literal('false')])),
})

export const encryptBody = t.Object({
  value: t.String({ maxLength: MAX_VALUE_BYTES, [FIELD_RULE]: SETTING_FIELD_RULES.value }),
}, { additionalProperties: false })

// Conditional writes (README "Settings"): `If-None-Match: *` creates only, `If-Match: *` replaces
// only. The route reads and checks them; this schema only describes them.
export const settingWriteHeaders = t.Object({
  'if-none-match': t.Optional(t.String({ description: '`*`: create only; a key that exists is left as it is (412).' })),
  'if-match': t.Optional(t.String({ description: '`*`: replace only; a key that does not exist is not created (412).' })),
})
