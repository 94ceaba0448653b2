// Settings routes (admin-api.md "Settings", decisions §7, §9 `POST /api/encrypt`). The gate has
// already required an admin session for every path here; handlers only take the actor from it.

import { Elysia } from 'elysia'
import { ApiError } from '../http/errors.ts'
import { refuseUnknownFields } from '../http/body.ts'
import { singleParam } from '../http/query.ts'
import { requestIdOf, sessionOf } from '../http/request-context.ts'
import { isApiKeySetting, type SettingsService } from './service.ts'
import type { Setting, SettingCondition } from '../db/storage.ts'
import { encryptBody, settingReadQuery, settingsListQuery, settingWriteBody, settingWriteHeaders } from './model.ts'

const NO_SUCH_SETTING = 'No setting with this key.'

/**
 * Upstream API keys are write-only through the API (ui.md "Settings"): the browser never holds one,
 * so a dashboard session, stolen or left open, never becomes the upstream's own key. A decrypt read
 * is refused (and audited); one stored in plain text (set at the command line without --encrypted)
 * is answered without its value. An encrypted one keeps its ciphertext, which opens nothing.
 */
const API_KEY_WRITE_ONLY = {
  message: 'Upstream API keys are write-only: their values are never answered.',
  hint: 'To change one, set a new key under Upstream API keys on the Settings page.',
}

function answered(setting: Setting): Setting {
  return isApiKeySetting(setting.key) && !setting.encrypted ? { ...setting, value: '' } : setting
}

/**
 * `If-None-Match: *` creates only, `If-Match: *` replaces only (RFC 9110 §13.1). Settings have no
 * entity tags, so any other value, or both headers, could only be a misunderstanding: refused
 * rather than ignored, since ignoring it would overwrite what the client meant to protect.
 */
function conditionOf(request: Request): SettingCondition {
  const absent = request.headers.get('if-none-match')
  const present = request.headers.get('if-match')
  if (absent === null && present === null) return 'any'
  if (present === null && absent?.trim() === '*') return 'absent'
  if (absent === null && present?.trim() === '*') return 'present'
  throw new ApiError('bad_request', { message: 'Only If-None-Match: * (create only) or If-Match: * (replace only) is understood here.' })
}

export function settingsRoutes(services: { settings: SettingsService }) {
  const { settings } = services
  return new Elysia({ name: 'settings' })
    // A repeated parameter is ambiguous (which one wins is the parser's choice): it is refused.
    .get('/api/settings', async ({ request }) => (await settings.list(singleParam(request, 'category') ?? undefined)).map(answered), { query: settingsListQuery })
    .get(
      '/api/settings/:key',
      async ({ params, query, request, set }) => {
        const decrypt = query.decrypt === 'true'
        if (decrypt && isApiKeySetting(params.key)) {
          await settings.refusedApiKeyRead(params.key, sessionOf(request).sub, requestIdOf(request))
          throw new ApiError('forbidden', API_KEY_WRITE_ONLY)
        }
        const setting = await settings.read(params.key, { decrypt, actor: sessionOf(request).sub, requestId: requestIdOf(request) })
        if (setting === null) throw new ApiError('not_found', { message: NO_SUCH_SETTING })
        // A plaintext answer must not be stored by any cache on the way (the gate sets it for all
        // API answers; repeated here so this guarantee does not depend on that).
        if (decrypt) set.headers['cache-control'] = 'no-store'
        return answered(setting)
      },
      // Before the schema, which would call a repeated one invalid rather than repeated.
      { query: settingReadQuery, transform: ({ request }) => void singleParam(request, 'decrypt') },
    )
    .post(
      '/api/settings',
      async ({ body, request, set }) => {
        const { outcome, setting } = await settings.write(body, sessionOf(request).sub, conditionOf(request), requestIdOf(request))
        set.status = outcome === 'created' ? 201 : 200
        return answered(setting)
      },
      { body: settingWriteBody, headers: settingWriteHeaders, transform: ({ body }) => refuseUnknownFields(body, settingWriteBody.properties) },
    )
    .delete('/api/settings/:key', async ({ params, request, set }) => {
      if (!(await settings.remove(params.key, sessionOf(request).sub, requestIdOf(request)))) throw new ApiError('not_found', { message: NO_SUCH_SETTING })
      set.status = 204
      return undefined
    })
    .post('/api/encrypt', ({ body }) => ({ ciphertext: settings.encryptValue(body.value) }), { body: encryptBody, transform: ({ body }) => refuseUnknownFields(body, encryptBody.properties) })
}
