// The settings layer: what the routes, the command line and other features (proxy API keys,
// social connections) use. Consumer reads go through a TTL cache that this process's own writes
// invalidate at once, and other processes' writes (replicas, the command line) within 1 s: the
// storage's change feed says which keys changed. While the feed cannot vouch for the last second
// (database unreachable), the cache is not trusted and reads go to the database.

import type { Clock } from '../clock.ts'
import { UPSTREAM_NAMES, type Config, type UpstreamName } from '../config.ts'
import type { AuditLog } from '../audit/audit.ts'
import { ApiError } from '../http/errors.ts'
import { describeError, type Logger } from '../log.ts'
import { TtlCache } from './cache.ts'
import { settingAad, SettingsCipher } from './cipher.ts'
import { FRESHNESS_WINDOW_MS, StorageUnavailableError, type Setting, type SettingCondition, type Storage, type UpsertOutcome } from '../db/storage.ts'
import { characterCount } from '../text.ts'
import { apiKeyProblem, SENDABLE_API_KEY } from './api-key-value.ts'

import { MAX_CATEGORY_LENGTH, MAX_VALUE_BYTES, SETTING_KEY_PATTERN } from './limits.ts'

export { MAX_CATEGORY_LENGTH, MAX_VALUE_BYTES, SETTING_KEY_PATTERN }
const SETTING_KEY = new RegExp(SETTING_KEY_PATTERN)

/**
 * What each field of a write may be, said when it is not (by the routes' schemas and by the
 * service alike: the command line too), and never with what was sent.
 */
export const SETTING_FIELD_RULES = {
  key: 'A setting key is 1 to 255 characters: ASCII letters, digits, dots, underscores, colons and hyphens, beginning with a letter or a digit.',
  value: `A value is a string of at most 64 KiB (${MAX_VALUE_BYTES} bytes of UTF-8).`,
  encrypted: 'encrypted is true or false.',
  category: `A category is a string of at most ${MAX_CATEGORY_LENGTH} characters, or null.`,
} as const

type SettingField = keyof typeof SETTING_FIELD_RULES

/** The 400's message for a field that breaks its rule: the same text as the routes' schemas give (http/error-handler.ts). */
function invalidFieldMessage(field: SettingField): string {
  return `Invalid or missing field: ${field}. ${SETTING_FIELD_RULES[field]}`
}

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
  /** Read as an API key (`apiKeyFor`): the value to send, null for none; filled once checked. */
  apiKey?: string | null
}

interface SettingsServiceDeps {
  storage: Storage
  cipher: SettingsCipher
  audit: AuditLog
  clock: Clock
  ttlSeconds: number
  log: Logger
}

/** The setting that holds each upstream prefix's API key: `proxy.<prefix>.api_key`, made once. */
const API_KEY_SETTINGS = new Map(UPSTREAM_NAMES.map((name) => [name, `proxy.${name}.api_key`] as const))

export function apiKeySetting(prefix: UpstreamName): string {
  return API_KEY_SETTINGS.get(prefix)!
}

const API_KEY_SETTING_NAMES: ReadonlySet<string> = new Set(API_KEY_SETTINGS.values())

/** Whether a setting holds an upstream prefix's API key. */
export function isApiKeySetting(key: string): boolean {
  return API_KEY_SETTING_NAMES.has(key)
}

/** A stored API key that cannot go in a header (written before keys were checked, or into the database directly). */
export class ApiKeyNotSendable extends Error {
  override readonly name = 'ApiKeyNotSendable'
  constructor() {
    super('the stored API key cannot be sent in a header')
  }
}

/**
 * The key to send for a stored value: null for none (unset, or empty as written before an empty
 * key was refused); refused when it cannot go in a header.
 */
function sendableApiKey(value: string | null): string | null {
  if (value === null || value === '') return null
  if (!SENDABLE_API_KEY.test(value)) throw new ApiKeyNotSendable()
  return value
}

export class SettingsService {
  private readonly cache: TtlCache<CachedSetting>
  /** Raised by every invalidation: a read that started before one does not fill the cache. */
  private generation = 0

  constructor(private readonly deps: SettingsServiceDeps) {
    this.cache = new TtlCache(deps.clock, deps.ttlSeconds * 1000)
    deps.storage.changes.subscribe((change) => {
      if (change.topic === 'settings') this.invalidate(change.key)
    })
  }

  private readonly changeListeners = new Set<(key: string | null) => void>()

  /**
   * The last API key (or none: null) read for each upstream prefix, for `lastReadApiKey`. Kept past
   * the cache's lifetime; forgotten when its setting changes (here, or once heard of on another
   * replica), and read again at once.
   */
  private readonly lastApiKeys = new Map<UpstreamName, string | null>()
  /**
   * Each prefix whose key has been asked for, with a count raised by every change that may concern
   * its key: a read that started before one does not record what it read.
   */
  private readonly apiKeyGenerations = new Map<UpstreamName, number>()

  private invalidate(key: string | null): void {
    this.generation++
    if (key === null) this.cache.clear()
    else this.cache.delete(key)
    for (const [prefix, generation] of this.apiKeyGenerations) {
      if (key !== null && key !== apiKeySetting(prefix)) continue
      // A key deleted because it leaked must not go out again while the database is away; the
      // others are known again a moment later (unreadable or unreachable: forgotten until read).
      this.apiKeyGenerations.set(prefix, generation + 1)
      this.lastApiKeys.delete(prefix)
      this.apiKeyFor(prefix).catch(() => {})
    }
    for (const listener of this.changeListeners) listener(key)
  }

  /**
   * Hears of every change this process's cache hears of (its own writes at once, other processes'
   * within 1 s): the key, or null for any. For caches derived from the settings.
   */
  onChange(listener: (key: string | null) => void): void {
    this.changeListeners.add(listener)
  }

  /** Whether the change feed has news from the database within the window (real time, as the replicas act in real time). */
  private trustsCache(): boolean {
    return performance.now() - this.deps.storage.changes.freshAt() <= FRESHNESS_WINDOW_MS
  }

  get cipher(): SettingsCipher {
    return this.deps.cipher
  }

  // Consumer reads (cached) ------------------------------------------------------------------

  /** The setting as stored (ciphertext when encrypted), or null. */
  async getSetting(key: string): Promise<Readonly<Setting> | null> {
    return (this.cacheHit(key) ?? (await this.load(key))).setting
  }

  /**
   * The plaintext value, or null when the key is not set. Throws ApiError
   * `encryption_unavailable` or `decryption_failed` when an encrypted value cannot be read.
   */
  async getDecrypted(key: string): Promise<string | null> {
    return this.plaintextOf(this.cacheHit(key) ?? (await this.load(key)))
  }

  private plaintextOf(entry: CachedSetting): string | null {
    const { setting } = entry
    if (setting === null) return null
    if (!setting.encrypted) return setting.value
    entry.plaintext ??= this.deps.cipher.decryptSetting(setting.key, setting.value)
    return entry.plaintext
  }

  /**
   * The API key for an upstream prefix: setting `proxy.<prefix>.api_key`, decrypted when stored
   * encrypted (decisions §6). Null when unset. A stored key that cannot be decrypted, or cannot go
   * in a header (ApiKeyNotSendable), throws (fail closed: no request goes out without the key it
   * should carry, nor with one that would break its framing).
   */
  async apiKeyFor(prefix: UpstreamName): Promise<string | null> {
    const key = apiKeySetting(prefix)
    // Asked for from now on: a change to it is read again at once (invalidate).
    if (!this.apiKeyGenerations.has(prefix)) this.apiKeyGenerations.set(prefix, 0)
    const generation = this.apiKeyGenerations.get(prefix)
    try {
      const entry = this.cacheHit(key) ?? (await this.load(key))
      if (entry.apiKey === undefined) entry.apiKey = sendableApiKey(this.plaintextOf(entry))
      const apiKey = entry.apiKey
      // A read that started before a change does not record what it read.
      if (this.apiKeyGenerations.get(prefix) === generation) this.lastApiKeys.set(prefix, apiKey)
      return apiKey
    } catch (error) {
      // An unreachable database is logged as such by the storage (database_unreachable), not as a key problem.
      if (!(error instanceof StorageUnavailableError)) this.deps.log.error('api_key_unreadable', { prefix, ...describeError(error), code: (error as ApiError).code })
      throw error
    }
  }

  /**
   * The API key for an upstream prefix when memory can answer at once: what `apiKeyFor` would
   * answer, or undefined when only `apiKeyFor` can (the cache cannot be trusted now, holds no entry,
   * or holds one `apiKeyFor` has not read: its failures are its own to report).
   */
  cachedApiKey(prefix: UpstreamName): string | null | undefined {
    return this.cacheHit(apiKeySetting(prefix))?.apiKey
  }

  /**
   * The API key last read for an upstream prefix (null: none was set), or undefined when none has
   * been read since it last changed: what this process knew last, for a caller that may go on with
   * it while the database cannot be reached (the proxy's public prefixes).
   */
  lastReadApiKey(prefix: UpstreamName): string | null | undefined {
    return this.lastApiKeys.get(prefix)
  }

  /** The hot path: a memory lookup, when the cache may be trusted. */
  private cacheHit(key: string): CachedSetting | undefined {
    return this.trustsCache() ? this.cache.get(key) : undefined
  }

  private async load(key: string): Promise<CachedSetting> {
    const generation = this.generation
    const found = await this.deps.storage.settings.get(key)
    // Frozen: every consumer gets the same object until the entry expires.
    const entry: CachedSetting = { setting: found && Object.freeze(found) }
    if (generation === this.generation && this.trustsCache()) this.cache.set(key, entry)
    return entry
  }

  // Administration (uncached, audited) ------------------------------------------------------

  /** All settings sorted by key; the category filter is applied here, over one read. */
  async list(category?: string): Promise<Setting[]> {
    const all = await this.deps.storage.settings.list()
    return category === undefined ? all : all.filter((setting) => setting.category === category)
  }

  /**
   * One setting; with `decrypt`, its value is the plaintext and `encrypted` stays true. A decrypted
   * read is audited (key name only). Null when the key does not exist.
   */
  async read(key: string, options: { decrypt: boolean; actor: Actor; requestId?: string }): Promise<Setting | null> {
    const setting = await this.deps.storage.settings.get(key)
    if (setting === null || !options.decrypt || !setting.encrypted) return setting
    const result = this.deps.cipher.tryDecrypt(setting.value, settingAad(key))
    await this.deps.audit.record({ action: 'settings_decrypt_read', actor: options.actor, target: key, detail: { ok: result.ok }, requestId: options.requestId })
    if (!result.ok) throw new ApiError(result.reason === 'unavailable' ? 'encryption_unavailable' : 'decryption_failed')
    return { ...setting, value: result.plaintext }
  }

  /** A decrypt read of an upstream API key, refused by the routes: in the audit trail, with its actor. */
  async refusedApiKeyRead(key: string, actor: Actor, requestId?: string): Promise<void> {
    await this.deps.audit.record({ action: 'settings_decrypt_read', actor, target: key, detail: { outcome: 'refused' }, requestId })
  }

  /**
   * Creates or replaces a setting; committed (with its audit event) before it returns. Under a
   * condition (create only, replace only) the database decides it in the same transaction; a key
   * that does not meet it is left as it is and the answer is 412. `requestId`: the request it came
   * in, for its audit event (none from the command line).
   */
  async write(input: SettingInput, actor: Actor, condition: SettingCondition = 'any', requestId?: string): Promise<{ outcome: UpsertOutcome; setting: Setting }> {
    const problem = invalidField(input)
    if (problem) throw new ApiError('bad_request', { message: invalidFieldMessage(problem) })
    const withNul = fieldWithNul(input)
    if (withNul) throw new ApiError('bad_request', { message: `Invalid field: ${withNul} (U+0000 is not allowed).` })
    const apiKey = API_KEY_SETTING_NAMES.has(input.key) ? apiKeyProblem(input.value) : null
    if (apiKey) throw new ApiError('bad_request', { message: apiKey })
    const encrypted = input.encrypted === true
    // Encrypt before the transaction: no crypto work while holding the write lock.
    const value = encrypted ? this.deps.cipher.encryptSetting(input.key, input.value) : input.value
    const { storage, audit, clock } = this.deps
    const setting: Setting = { key: input.key, value, encrypted, category: input.category ?? null, updated_at: new Date(clock.now()).toISOString() }
    const outcome = await storage.settings.upsert(setting, (outcome) => audit.entry({ action: 'settings_write', actor, target: input.key, detail: { outcome, encrypted }, requestId }), condition)
    if (outcome === 'refused') {
      throw new ApiError('precondition_failed', { message: condition === 'absent' ? 'A setting with this key exists.' : 'No setting with this key.' })
    }
    this.invalidate(input.key)
    return { outcome, setting }
  }

  /** True when the key existed. */
  async remove(key: string, actor: Actor, requestId?: string): Promise<boolean> {
    const removed = await this.deps.storage.settings.delete(key, this.deps.audit.entry({ action: 'settings_delete', actor, target: key, requestId }))
    this.invalidate(key)
    return removed
  }

  /** POST /api/encrypt: the same format, bound to no setting key. */
  encryptValue(value: string): string {
    if (Buffer.byteLength(value, 'utf8') > MAX_VALUE_BYTES) {
      throw new ApiError('bad_request', { message: invalidFieldMessage('value') })
    }
    return this.deps.cipher.encryptUnbound(value)
  }

  /**
   * Re-encrypts every encrypted value under ENCRYPTION_KEY (reading with ENCRYPTION_KEY_PREVIOUS
   * where needed), in one transaction: either all of them move or none does.
   */
  async reencryptAll(
    actor: Actor,
  ): Promise<{ ok: true; reencrypted: number } | { ok: false; reason: 'unavailable' } | { ok: false; reason: 'undecryptable'; keys: string[] }> {
    const { storage, audit, cipher } = this.deps
    if (!cipher.canEncrypt) return { ok: false, reason: 'unavailable' }
    const outcome = await storage.settings.rewriteEncrypted(
      (setting) => {
        const opened = cipher.tryDecrypt(setting.value, settingAad(setting.key))
        return opened.ok ? cipher.encryptSetting(setting.key, opened.plaintext) : null
      },
      (count) => audit.entry({ action: 'settings_reencrypt', actor, target: null, detail: { count } }),
    )
    this.invalidate(null)
    return outcome.ok ? { ok: true, reencrypted: outcome.count } : { ok: false, reason: 'undecryptable', keys: outcome.keys }
  }
}

/** The first field of a write that breaks decisions §7, or null. */
function invalidField(input: SettingInput): SettingField | null {
  if (typeof input.key !== 'string' || !SETTING_KEY.test(input.key)) return 'key'
  if (typeof input.value !== 'string' || Buffer.byteLength(input.value, 'utf8') > MAX_VALUE_BYTES) return 'value'
  if (input.encrypted !== undefined && typeof input.encrypted !== 'boolean') return 'encrypted'
  const category = input.category
  if (category !== undefined && category !== null && (typeof category !== 'string' || characterCount(category) > MAX_CATEGORY_LENGTH)) {
    return 'category'
  }
  return null
}

/**
 * The first text field holding U+0000, which PostgreSQL's text cannot store: refused on either
 * engine, so a setting written on SQLite can always move to PostgreSQL (the key's pattern has no room for it).
 */
function fieldWithNul(input: SettingInput): 'value' | 'category' | null {
  if (input.value.includes('\0')) return 'value'
  if (typeof input.category === 'string' && input.category.includes('\0')) return 'category'
  return null
}

/** Wires the layer from configuration; the service and the command line build it the same way. */
export function createSettingsService(deps: { config: Config; storage: Storage; audit: AuditLog; clock: Clock; log: Logger }): SettingsService {
  const { config } = deps
  return new SettingsService({
    storage: deps.storage,
    cipher: new SettingsCipher(config.encryptionKey, config.encryptionKeyPrevious),
    audit: deps.audit,
    clock: deps.clock,
    ttlSeconds: config.settingsCacheTtlSeconds,
    log: deps.log,
  })
}
