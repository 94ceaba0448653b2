// The settings layer: what the routes, the command line and other features (proxy API keys,
// social connections) use. Consumer reads go through a TTL cache that this process's own writes
// invalidate at once; other processes' writes (the command line) are seen within the TTL.

import type { Database } from 'bun:sqlite'
import type { Clock } from '../clock.ts'
import type { Config, UpstreamName } from '../config.ts'
import type { AuditLog } from '../audit/audit.ts'
import { ApiError } from '../http/errors.ts'
import { describeError, type Logger } from '../log.ts'
import { TtlCache } from './cache.ts'
import { settingAad, SettingsCipher } from './cipher.ts'
import { SettingsStore, type Setting, type UpsertOutcome } from './store.ts'

export const SETTING_KEY_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,254}$'
const SETTING_KEY = new RegExp(SETTING_KEY_PATTERN)
export const MAX_VALUE_BYTES = 64 * 1024
export const MAX_CATEGORY_LENGTH = 64

interface SettingInput {
  key: string
  /** Plaintext; encrypted before storage when `encrypted` is true. */
  value: string
  encrypted?: boolean
  category?: string | null
}

/** Who asked: an identity id from the session, or null for the command line. */
export type Actor = string | null

interface CachedSetting {
  setting: Readonly<Setting> | null
  /** Filled on the first decrypted read. */
  plaintext?: string
}

interface SettingsServiceDeps {
  store: SettingsStore
  cipher: SettingsCipher
  audit: AuditLog
  clock: Clock
  ttlSeconds: number
  log: Logger
}

export class SettingsService {
  private readonly cache: TtlCache<CachedSetting>

  constructor(private readonly deps: SettingsServiceDeps) {
    this.cache = new TtlCache(deps.clock, deps.ttlSeconds * 1000)
  }

  get cipher(): SettingsCipher {
    return this.deps.cipher
  }

  // Consumer reads (cached) ------------------------------------------------------------------

  /** The setting as stored (ciphertext when encrypted), or null. */
  getSetting(key: string): Readonly<Setting> | null {
    return this.cached(key).setting
  }

  /**
   * The plaintext value, or null when the key is not set. Throws ApiError
   * `encryption_unavailable` or `decryption_failed` when an encrypted value cannot be read.
   */
  getDecrypted(key: string): string | null {
    const entry = this.cached(key)
    const { setting } = entry
    if (setting === null) return null
    if (!setting.encrypted) return setting.value
    entry.plaintext ??= this.deps.cipher.decryptSetting(setting.key, setting.value)
    return entry.plaintext
  }

  /**
   * The API key for an upstream prefix: setting `proxy.<prefix>.api_key`, decrypted when stored
   * encrypted (decisions §6). Null when unset. A stored key that cannot be decrypted throws
   * (fail closed: no request goes out without the key it should carry).
   */
  async apiKeyFor(prefix: UpstreamName): Promise<string | null> {
    const key = `proxy.${prefix}.api_key`
    try {
      const value = this.getDecrypted(key)
      return value === null || value === '' ? null : value
    } catch (error) {
      this.deps.log.error('api_key_unreadable', { prefix, ...describeError(error), code: (error as ApiError).code })
      throw error
    }
  }

  private cached(key: string): CachedSetting {
    const hit = this.cache.get(key)
    if (hit !== undefined) return hit
    const found = this.deps.store.get(key)
    // Frozen: every consumer gets the same object until the entry expires.
    const entry: CachedSetting = { setting: found && Object.freeze(found) }
    this.cache.set(key, entry)
    return entry
  }

  // Administration (uncached, audited) ------------------------------------------------------

  /** All settings sorted by key; the category filter is applied here, over one read. */
  list(category?: string): Setting[] {
    const all = this.deps.store.list()
    return category === undefined ? all : all.filter((setting) => setting.category === category)
  }

  /**
   * One setting; with `decrypt`, its value is the plaintext and `encrypted` stays true. A decrypted
   * read is audited (key name only). Null when the key does not exist.
   */
  read(key: string, options: { decrypt: boolean; actor: Actor }): Setting | null {
    const setting = this.deps.store.get(key)
    if (setting === null || !options.decrypt || !setting.encrypted) return setting
    const result = this.deps.cipher.tryDecrypt(setting.value, settingAad(key))
    this.deps.audit.record('settings_decrypt_read', options.actor, key, { ok: result.ok })
    if (!result.ok) throw new ApiError(result.reason === 'unavailable' ? 'encryption_unavailable' : 'decryption_failed')
    return { ...setting, value: result.plaintext }
  }

  /** Creates or replaces a setting; committed (with its audit event) before it returns. */
  write(input: SettingInput, actor: Actor): { outcome: UpsertOutcome; setting: Setting } {
    const problem = invalidField(input)
    if (problem) throw new ApiError('bad_request', { message: `Invalid or missing field: ${problem}.` })
    const encrypted = input.encrypted === true
    // Encrypt before the transaction: no crypto work while holding the write lock.
    const value = encrypted ? this.deps.cipher.encryptSetting(input.key, input.value) : input.value
    const { store, audit } = this.deps
    const result = store.db
      .transaction(() => {
        const written = store.upsert({ key: input.key, value, encrypted, category: input.category ?? null })
        audit.record('settings_write', actor, input.key, { outcome: written.outcome, encrypted })
        return written
      })
      .immediate()
    this.cache.delete(input.key)
    return result
  }

  /** True when the key existed. */
  remove(key: string, actor: Actor): boolean {
    const { store, audit } = this.deps
    const removed = store.db
      .transaction(() => {
        const existed = store.delete(key)
        if (existed) audit.record('settings_delete', actor, key)
        return existed
      })
      .immediate()
    this.cache.delete(key)
    return removed
  }

  /** POST /api/encrypt: the same format, bound to no setting key. */
  encryptValue(value: string): string {
    if (Buffer.byteLength(value, 'utf8') > MAX_VALUE_BYTES) {
      throw new ApiError('bad_request', { message: 'Invalid or missing field: value.' })
    }
    return this.deps.cipher.encryptUnbound(value)
  }

  /**
   * Re-encrypts every encrypted value under ENCRYPTION_KEY (reading with ENCRYPTION_KEY_PREVIOUS
   * where needed), in one transaction: either all of them move or none does.
   */
  reencryptAll(actor: Actor): { ok: true; reencrypted: number } | { ok: false; reason: 'unavailable' } | { ok: false; reason: 'undecryptable'; keys: string[] } {
    const { store, audit, cipher } = this.deps
    if (!cipher.canEncrypt) return { ok: false, reason: 'unavailable' }
    const outcome = store.db
      .transaction(() => {
        const failed: string[] = []
        const replaced: [string, string][] = []
        for (const setting of store.list()) {
          if (!setting.encrypted) continue
          const opened = cipher.tryDecrypt(setting.value, settingAad(setting.key))
          if (!opened.ok) {
            failed.push(setting.key)
            continue
          }
          replaced.push([setting.key, cipher.encryptSetting(setting.key, opened.plaintext)])
        }
        if (failed.length > 0) return { ok: false as const, reason: 'undecryptable' as const, keys: failed }
        for (const [key, value] of replaced) store.replaceValue(key, value)
        audit.record('settings_reencrypt', actor, null, { count: replaced.length })
        return { ok: true as const, reencrypted: replaced.length }
      })
      .immediate()
    this.cache.clear()
    return outcome
  }
}

/** The first field of a write that breaks decisions §7, or null. */
function invalidField(input: SettingInput): 'key' | 'value' | 'encrypted' | 'category' | null {
  if (typeof input.key !== 'string' || !SETTING_KEY.test(input.key)) return 'key'
  if (typeof input.value !== 'string' || Buffer.byteLength(input.value, 'utf8') > MAX_VALUE_BYTES) return 'value'
  if (input.encrypted !== undefined && typeof input.encrypted !== 'boolean') return 'encrypted'
  const category = input.category
  if (category !== undefined && category !== null && (typeof category !== 'string' || category.length > MAX_CATEGORY_LENGTH)) {
    return 'category'
  }
  return null
}

/** Wires the layer from configuration; the service and the command line build it the same way. */
export function createSettingsService(deps: { config: Config; db: Database; audit: AuditLog; clock: Clock; log: Logger }): SettingsService {
  const { config } = deps
  return new SettingsService({
    store: new SettingsStore(deps.db, deps.clock),
    cipher: new SettingsCipher(config.encryptionKey, config.encryptionKeyPrevious),
    audit: deps.audit,
    clock: deps.clock,
    ttlSeconds: config.settingsCacheTtlSeconds,
    log: deps.log,
  })
}
