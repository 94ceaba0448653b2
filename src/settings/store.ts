// The `settings` table (migration 1). Values arrive here as they are to be stored: ciphertext
// when `encrypted` is true. The service and the command line share the file (WAL, busy_timeout).

import type { Database } from 'bun:sqlite'
import type { Clock } from '../clock.ts'

export interface Setting {
  key: string
  /** Ciphertext when `encrypted` is true. */
  value: string
  encrypted: boolean
  category: string | null
  /** ISO 8601 UTC with milliseconds. */
  updated_at: string
}

interface SettingWrite {
  key: string
  value: string
  encrypted: boolean
  category: string | null
}

export type UpsertOutcome = 'created' | 'updated'

interface SettingRow {
  key: string
  value: string
  encrypted: number
  category: string | null
  updated_at: string
}

const COLUMNS = 'key, value, encrypted, category, updated_at'

function toSetting(row: SettingRow): Setting {
  return { key: row.key, value: row.value, encrypted: row.encrypted === 1, category: row.category, updated_at: row.updated_at }
}

export class SettingsStore {
  constructor(
    readonly db: Database,
    private readonly clock: Clock,
  ) {}

  get(key: string): Setting | null {
    const row = this.db.query<SettingRow, [string]>(`SELECT ${COLUMNS} FROM settings WHERE key = ?`).get(key)
    return row ? toSetting(row) : null
  }

  /** Every setting, sorted by key (byte order, as SQLite compares TEXT). */
  list(): Setting[] {
    return this.db.query<SettingRow, []>(`SELECT ${COLUMNS} FROM settings ORDER BY key`).all().map(toSetting)
  }

  /**
   * Creates or replaces a setting; value, `encrypted` and category are all replaced. Committed
   * before it returns (a nested call inside a caller's transaction becomes a savepoint of it).
   */
  upsert(write: SettingWrite): { outcome: UpsertOutcome; setting: Setting } {
    return this.db
      .transaction(() => {
        const exists = this.db.query('SELECT 1 FROM settings WHERE key = ?').get(write.key) !== null
        const setting: Setting = { ...write, updated_at: new Date(this.clock.now()).toISOString() }
        if (exists) {
          this.db
            .query('UPDATE settings SET value = ?, encrypted = ?, category = ?, updated_at = ? WHERE key = ?')
            .run(setting.value, setting.encrypted ? 1 : 0, setting.category, setting.updated_at, setting.key)
        } else {
          this.db
            .query(`INSERT INTO settings (${COLUMNS}) VALUES (?, ?, ?, ?, ?)`)
            .run(setting.key, setting.value, setting.encrypted ? 1 : 0, setting.category, setting.updated_at)
        }
        return { outcome: exists ? ('updated' as const) : ('created' as const), setting }
      })
      .immediate()
  }

  /** True when the key existed. */
  delete(key: string): boolean {
    return this.db.query('DELETE FROM settings WHERE key = ?').run(key).changes > 0
  }

  /** Only the stored value changes (key rotation); `updated_at` keeps saying when the setting last changed. */
  replaceValue(key: string, value: string): void {
    this.db.query('UPDATE settings SET value = ? WHERE key = ?').run(value, key)
  }
}
