// Whether the configured keys are the ones the stored settings were encrypted with. A process
// started with another ENCRYPTION_KEY reads none of its replicas' encrypted values, and what it
// writes the others cannot read; `serve` and `check-config` ask this before anything else, and
// the settings commands that encrypt (`set --encrypted`, `reencrypt`) before they write.
//
// Every encrypted value is tried, so "none opens" means none of them, not none of a sample. It is
// cheap: an AES-GCM open (or a failed one) of 1 KiB takes about 10 µs, and a start with 10,000
// encrypted settings stored takes about 0.1 s longer.

import { settingAad, type SettingsCipher } from './cipher.ts'
import type { Setting } from '../db/storage.ts'

/** At most this many unreadable setting keys are named; the count says how many there are. */
const MAX_NAMED_KEYS = 20

export type EncryptionKeyCheck =
  /** No encrypted value is stored: nothing to check against. */
  | { verdict: 'nothing_encrypted' }
  /** Neither ENCRYPTION_KEY nor ENCRYPTION_KEY_PREVIOUS is set. */
  | { verdict: 'no_key'; encrypted: number }
  | { verdict: 'all_open'; encrypted: number }
  /** Some values open and some do not: written under a key this process lacks, or damaged. */
  | { verdict: 'some_unreadable'; encrypted: number; unreadable: number; keys: string[] }
  /** Not one value opens: the keys are not the ones the database was written with. */
  | { verdict: 'none_open'; encrypted: number }

export function checkEncryptionKeys(settings: readonly Setting[], cipher: SettingsCipher): EncryptionKeyCheck {
  const encrypted = settings.filter((setting) => setting.encrypted)
  if (encrypted.length === 0) return { verdict: 'nothing_encrypted' }
  if (!cipher.canEncrypt && !cipher.hasPreviousKey) return { verdict: 'no_key', encrypted: encrypted.length }
  const unreadable = encrypted.filter((setting) => !cipher.tryDecrypt(setting.value, settingAad(setting.key)).ok).map((setting) => setting.key)
  if (unreadable.length === 0) return { verdict: 'all_open', encrypted: encrypted.length }
  if (unreadable.length === encrypted.length) return { verdict: 'none_open', encrypted: encrypted.length }
  return { verdict: 'some_unreadable', encrypted: encrypted.length, unreadable: unreadable.length, keys: unreadable.slice(0, MAX_NAMED_KEYS) }
}

/** Why a start, or a settings command that encrypts, is refused: names the variables, never a value. */
export function noKeyOpensMessage(encrypted: number, cipher: SettingsCipher): string {
  const what = `${encrypted} encrypted setting${encrypted === 1 ? '' : 's'} in the database`
  const keys = !cipher.hasPreviousKey
    ? `ENCRYPTION_KEY opens none of the ${what} (ENCRYPTION_KEY_PREVIOUS is not set)`
    : !cipher.canEncrypt
      ? `ENCRYPTION_KEY_PREVIOUS opens none of the ${what} (ENCRYPTION_KEY is not set)`
      : `neither ENCRYPTION_KEY nor ENCRYPTION_KEY_PREVIOUS opens any of the ${what}`
  return (
    `${keys}: they were written with another key. Set ENCRYPTION_KEY to the key the database (and every other replica) uses; ` +
    'during a rotation, put the other key in ENCRYPTION_KEY_PREVIOUS'
  )
}
