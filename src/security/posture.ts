// GET /api/security/posture: how this deployment measures up against what the product expects.
// Messages are fixed text: no host name, port, path or key value is ever put in one.

import { MIN_KEY_BYTES, type Config } from '../config.ts'

type CheckStatus = 'pass' | 'warn' | 'fail'

export interface PostureCheck {
  id: string
  status: CheckStatus
  message: string
  /** What to do about a warning or failure (fixed text, like the message); absent on a pass. */
  remedy?: string
}

// One remedy per check that can warn or fail; the compiler keeps the two lists together.
const REMEDIES = {
  bind_address: 'Set HOST to a loopback address (localhost) and reach the dashboard through a reverse proxy or an SSH tunnel, or firewall the port to your administrators.',
  secure_cookies: 'Run with NODE_ENV=production behind HTTPS so that the session cookie is only sent over TLS.',
  signing_key_length: 'Generate a new key (openssl rand -base64 48), set SESSION_SIGNING_KEY and restart; everyone signs in again.',
  encryption_key_present: 'Generate a key (openssl rand -base64 48), set ENCRYPTION_KEY and restart; then store secrets with encryption on.',
  // Right in every phase of a rotation across replicas (README, "Rotating the encryption key"):
  // with the new key still in ENCRYPTION_KEY_PREVIOUS, a reencrypt and its removal would abandon it.
  previous_key:
    'Finish the key rotation (see "Rotating the encryption key" in the README). If ENCRYPTION_KEY_PREVIOUS holds the new key, wait until every replica has it, then swap the two keys on every replica and restart each. Once every replica runs with the new key as ENCRYPTION_KEY, run `admin-dashboard settings reencrypt`, then remove ENCRYPTION_KEY_PREVIOUS and restart every replica.',
} as const
type CheckId = keyof typeof REMEDIES

function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase()
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare)
}

export function postureChecks(config: Config): PostureCheck[] {
  const checks: PostureCheck[] = []
  const add = (id: CheckId, status: CheckStatus, message: string) =>
    checks.push(status === 'pass' ? { id, status, message } : { id, status, message, remedy: REMEDIES[id] })

  if (isLoopbackHost(config.host)) add('bind_address', 'pass', 'The service listens on a loopback address only.')
  else add('bind_address', 'warn', 'The service listens beyond loopback; keep the admin port off public networks (HOST).')

  if (config.environment === 'production') add('secure_cookies', 'pass', 'Session cookies carry the Secure attribute.')
  else add('secure_cookies', 'warn', 'NODE_ENV=development: session cookies are sent over plain HTTP too.')

  // Config refuses to start with any key shorter than MIN_KEY_BYTES, so a length check can only
  // pass: SESSION_SIGNING_KEY's stays as the "key lengths" line of decisions §9, and
  // ENCRYPTION_KEY and ENCRYPTION_KEY_PREVIOUS have none.
  if (config.sessionSigningKey.length >= MIN_KEY_BYTES) add('signing_key_length', 'pass', `SESSION_SIGNING_KEY is at least ${MIN_KEY_BYTES} bytes.`)
  else add('signing_key_length', 'fail', `SESSION_SIGNING_KEY is shorter than ${MIN_KEY_BYTES} bytes.`)

  if (config.encryptionKey === null) {
    add('encryption_key_present', 'warn', 'ENCRYPTION_KEY is not set: settings cannot be encrypted or decrypted.')
  } else {
    add('encryption_key_present', 'pass', 'ENCRYPTION_KEY is set.')
  }

  if (config.encryptionKeyPrevious === null) {
    add('previous_key', 'pass', 'No previous encryption key is set.')
  } else {
    add('previous_key', 'warn', 'ENCRYPTION_KEY_PREVIOUS is set: a key rotation is under way or was not finished.')
  }
  return checks
}
