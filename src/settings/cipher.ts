// Encryption at rest for settings (decisions §7, §9).
//
// Format, version 1:   v1.<base64url IV>.<base64url ciphertext || tag>
//   AES-256-GCM, a fresh random 96-bit IV per encryption, 128-bit tag appended to the ciphertext.
//   Key: HKDF-SHA256(ikm = decoded ENCRYPTION_KEY, salt = HKDF_SALT, info = HKDF_INFO, 32 bytes).
//   Additional authenticated data: "setting:" + the setting key for stored settings, so a
//   ciphertext copied to another key does not decrypt; the fixed "admin-dashboard:encrypt" for
//   POST /api/encrypt, whose output is bound to no key (and never decrypts as a setting).
// Decryption tries ENCRYPTION_KEY, then ENCRYPTION_KEY_PREVIOUS (rotation).

import { createCipheriv, createDecipheriv, createSecretKey, hkdfSync, randomBytes, type KeyObject } from 'node:crypto'
import { ApiError } from '../http/errors.ts'

const CIPHERTEXT_VERSION = 'v1'
const HKDF_SALT = 'admin-dashboard/settings-encryption'
const HKDF_INFO = 'admin-dashboard settings v1'
export const UNBOUND_AAD = 'admin-dashboard:encrypt'
const IV_BYTES = 12
const TAG_BYTES = 16
const IV_TEXT_LENGTH = 16 // 12 bytes in base64url without padding
const BASE64URL = /^[A-Za-z0-9_-]*$/

export function settingAad(key: string): string {
  return `setting:${key}`
}

/** The AES key derived from a configured ENCRYPTION_KEY (exported so tests can check it independently). */
function deriveKey(secret: Uint8Array): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, HKDF_SALT, HKDF_INFO, 32))
}

type DecryptResult =
  | { ok: true; plaintext: string; /** true when only ENCRYPTION_KEY_PREVIOUS opened it */ previousKey: boolean }
  | { ok: false; reason: 'unavailable' | 'failed' }

interface CipherOptions {
  /** The IV source; only tests replace it. */
  randomIv?: () => Uint8Array
}

export class SettingsCipher {
  private readonly current: KeyObject | null
  private readonly previous: KeyObject | null
  private readonly randomIv: () => Uint8Array

  constructor(current: Uint8Array | null, previous: Uint8Array | null, options: CipherOptions = {}) {
    this.current = current ? createSecretKey(deriveKey(current)) : null
    this.previous = previous ? createSecretKey(deriveKey(previous)) : null
    this.randomIv = options.randomIv ?? (() => randomBytes(IV_BYTES))
  }

  /** Whether new values can be encrypted (ENCRYPTION_KEY is set). */
  get canEncrypt(): boolean {
    return this.current !== null
  }

  get hasPreviousKey(): boolean {
    return this.previous !== null
  }

  /** Throws ApiError('encryption_unavailable') without ENCRYPTION_KEY. */
  encrypt(plaintext: string, aad: string): string {
    if (!this.current) throw new ApiError('encryption_unavailable')
    const iv = this.randomIv()
    if (iv.length !== IV_BYTES) throw new Error('IV must be 12 bytes')
    const cipher = createCipheriv('aes-256-gcm', this.current, iv, { authTagLength: TAG_BYTES })
    cipher.setAAD(Buffer.from(aad, 'utf8'))
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()])
    return `${CIPHERTEXT_VERSION}.${Buffer.from(iv).toString('base64url')}.${body.toString('base64url')}`
  }

  /** Never throws: malformed, truncated or tampered text is `failed`, no key at all is `unavailable`. */
  tryDecrypt(text: string, aad: string): DecryptResult {
    if (!this.current && !this.previous) return { ok: false, reason: 'unavailable' }
    const parsed = parseCiphertext(text)
    if (!parsed) return { ok: false, reason: 'failed' }
    const aadBytes = Buffer.from(aad, 'utf8')
    for (const [key, previousKey] of [
      [this.current, false],
      [this.previous, true],
    ] as const) {
      if (!key) continue
      const plaintext = openWith(key, parsed, aadBytes)
      if (plaintext !== null) return { ok: true, plaintext, previousKey }
    }
    return { ok: false, reason: 'failed' }
  }

  /** Throws ApiError('encryption_unavailable') or ApiError('decryption_failed'). */
  decrypt(text: string, aad: string): string {
    const result = this.tryDecrypt(text, aad)
    if (result.ok) return result.plaintext
    throw new ApiError(result.reason === 'unavailable' ? 'encryption_unavailable' : 'decryption_failed')
  }

  encryptSetting(key: string, plaintext: string): string {
    return this.encrypt(plaintext, settingAad(key))
  }

  decryptSetting(key: string, ciphertext: string): string {
    return this.decrypt(ciphertext, settingAad(key))
  }

  /** POST /api/encrypt: same format, bound to no setting key. */
  encryptUnbound(plaintext: string): string {
    return this.encrypt(plaintext, UNBOUND_AAD)
  }
}

interface Parsed {
  iv: Buffer
  body: Buffer
}

function parseCiphertext(text: string): Parsed | null {
  const parts = text.split('.')
  if (parts.length !== 3 || parts[0] !== CIPHERTEXT_VERSION) return null
  const [, ivText = '', bodyText = ''] = parts
  if (ivText.length !== IV_TEXT_LENGTH || !BASE64URL.test(ivText) || !BASE64URL.test(bodyText)) return null
  const iv = Buffer.from(ivText, 'base64url')
  const body = Buffer.from(bodyText, 'base64url')
  // Only the canonical spelling is accepted (no stray trailing bits, no truncated quantum).
  if (iv.length !== IV_BYTES || iv.toString('base64url') !== ivText) return null
  if (body.length < TAG_BYTES || body.toString('base64url') !== bodyText) return null
  return { iv, body }
}

function openWith(key: KeyObject, parsed: Parsed, aad: Buffer): string | null {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, parsed.iv, { authTagLength: TAG_BYTES })
    decipher.setAAD(aad)
    decipher.setAuthTag(parsed.body.subarray(parsed.body.length - TAG_BYTES))
    const plain = Buffer.concat([decipher.update(parsed.body.subarray(0, parsed.body.length - TAG_BYTES)), decipher.final()])
    return new TextDecoder('utf-8', { fatal: true }).decode(plain)
  } catch {
    return null
  }
}
