// The public list of social sign-in providers (decisions §9), read from the settings layer:
// `social.<id>.enabled = "true"` turns a provider on, `social.<id>.display_name` names it, and
// `social.connections_order` (comma-separated ids) puts them in order; the rest follow by id.
// Only ids and display names leave here: client ids, secrets and every other value stay put.
// Encrypted entries are never decrypted: an encrypted flag or name counts as not set.

import type { Clock } from '../clock.ts'
import { TtlCache } from '../settings/cache.ts'
import type { Setting } from '../db/storage.ts'

interface SocialProvider {
  id: string
  display_name: string
}

interface SocialSettings {
  /** Cached single-key read (ciphertext when encrypted). */
  getSetting(key: string): Promise<Readonly<Setting> | null>
  /** Every setting; only the key names are used here. */
  list(): Promise<Setting[]>
  /** Every change to the settings, as the settings cache hears of it: a key, or null for any. */
  onChange(listener: (key: string | null) => void): void
}

const ENABLED_KEY = /^social\.([A-Za-z0-9][A-Za-z0-9_-]{0,63})\.enabled$/
const PROVIDER_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/
const MAX_DISPLAY_NAME = 100
const PRINTABLE = /^[^\u0000-\u001f\u007f-\u009f]+$/

export class SocialConnections {
  /**
   * The candidate ids (keys that end in `.enabled`): a public route must not list the whole table
   * per request. Forgotten when such a key changes, as the settings cache forgets the key itself,
   * so a provider enabled here or elsewhere is listed as soon as its flag is read fresh.
   */
  private readonly candidates: TtlCache<string[]>
  /** Raised by every change of a candidate key: a listing that started before one is not kept. */
  private generation = 0

  constructor(
    private readonly settings: SocialSettings,
    clock: Clock,
    ttlSeconds: number,
  ) {
    this.candidates = new TtlCache(clock, ttlSeconds * 1000)
    settings.onChange((key) => {
      if (key !== null && !ENABLED_KEY.test(key)) return
      this.generation++
      this.candidates.clear()
    })
  }

  async providers(): Promise<SocialProvider[]> {
    const enabled: string[] = []
    for (const id of await this.candidateIds()) if ((await this.plain(`social.${id}.enabled`)) === 'true') enabled.push(id)
    const order = ((await this.plain('social.connections_order')) ?? '')
      .split(',')
      .map((id) => id.trim())
      .filter((id) => PROVIDER_ID.test(id))
    const rank = new Map<string, number>()
    for (const id of order) if (!rank.has(id)) rank.set(id, rank.size)
    enabled.sort((a, b) => {
      const ra = rank.get(a) ?? Infinity
      const rb = rank.get(b) ?? Infinity
      return ra !== rb ? ra - rb : a < b ? -1 : a > b ? 1 : 0
    })
    const providers: SocialProvider[] = []
    for (const id of enabled) providers.push({ id, display_name: await this.displayName(id) })
    return providers
  }

  private async candidateIds(): Promise<string[]> {
    let ids = this.candidates.get('ids')
    if (ids === undefined) {
      const generation = this.generation
      ids = []
      for (const { key } of await this.settings.list()) {
        const match = ENABLED_KEY.exec(key)
        if (match) ids.push(match[1]!)
      }
      if (generation === this.generation) this.candidates.set('ids', ids)
    }
    return [...ids]
  }

  private async displayName(id: string): Promise<string> {
    const name = (await this.plain(`social.${id}.display_name`))?.trim()
    return name && name.length <= MAX_DISPLAY_NAME && PRINTABLE.test(name) ? name : id
  }

  /** A value stored in plain text, through the settings cache; null when unset or encrypted. */
  private async plain(key: string): Promise<string | null> {
    const setting = await this.settings.getSetting(key)
    return setting && !setting.encrypted ? setting.value : null
  }
}
