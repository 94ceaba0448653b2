// GET /api/security/posture: how this deployment measures up against what the product expects.
// Messages are fixed text: no host name, port, path or key value is ever put in one.

import { MIN_KEY_BYTES, type Config } from '../config.ts'

export type CheckStatus = 'pass' | 'warn' | 'fail'

export interface PostureCheck {
  id: string
  status: CheckStatus
  message: string
}

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase()
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare)
}

export function postureChecks(config: Config): PostureCheck[] {
  const checks: PostureCheck[] = []
  const add = (id: string, status: CheckStatus, message: string) => checks.push({ id, status, message })

  if (isLoopbackHost(config.host)) add('bind_address', 'pass', 'The service listens on a loopback address only.')
  else add('bind_address', 'warn', 'The service listens beyond loopback; keep the admin port off public networks (HOST).')

  if (config.environment === 'production') add('secure_cookies', 'pass', 'Session cookies carry the Secure attribute.')
  else add('secure_cookies', 'warn', 'NODE_ENV=development: session cookies are sent over plain HTTP too.')

  if (config.sessionSigningKey.length >= MIN_KEY_BYTES) add('signing_key_length', 'pass', `SESSION_SIGNING_KEY is at least ${MIN_KEY_BYTES} bytes.`)
  else add('signing_key_length', 'fail', `SESSION_SIGNING_KEY is shorter than ${MIN_KEY_BYTES} bytes.`)

  if (config.encryptionKey === null) {
    add('encryption_key_present', 'warn', 'ENCRYPTION_KEY is not set: settings cannot be encrypted or decrypted.')
  } else {
    add('encryption_key_present', 'pass', 'ENCRYPTION_KEY is set.')
    if (config.encryptionKey.length >= MIN_KEY_BYTES) add('encryption_key_length', 'pass', `ENCRYPTION_KEY is at least ${MIN_KEY_BYTES} bytes.`)
    else add('encryption_key_length', 'fail', `ENCRYPTION_KEY is shorter than ${MIN_KEY_BYTES} bytes.`)
  }

  if (config.encryptionKeyPrevious === null) {
    add('previous_key', 'pass', 'No previous encryption key is set.')
  } else {
    add('previous_key', 'warn', 'ENCRYPTION_KEY_PREVIOUS is still set; run `settings reencrypt`, then remove it.')
    if (config.encryptionKeyPrevious.length < MIN_KEY_BYTES) {
      add('previous_key_length', 'fail', `ENCRYPTION_KEY_PREVIOUS is shorter than ${MIN_KEY_BYTES} bytes.`)
    }
  }
  return checks
}
