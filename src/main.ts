#!/usr/bin/env bun
// The command line of the one binary: serve (default), check-config, settings …, --version, --help.

import { loadConfig, missingLoginVariables, type Config } from './config.ts'
import { openStorage } from './db/open.ts'
import { createApp } from './app.ts'
import { serve, urlHost } from './server.ts'
import { createLogger, errorLabel, sqlstateOf, type Logger } from './log.ts'
import { BUILD } from './version.ts'
import { processIo, runSettingsCommand } from './cli/settings.ts'
import { runAuditCommand } from './cli/audit.ts'
import { runImportSqlite } from './cli/import-sqlite.ts'
import { cannotCreateDatabase, DATABASE_BUSY, databaseFileState, diskFull, isDatabaseBusy, noDatabaseYet } from './db/database.ts'
import { StorageUnavailableError, type Storage } from './db/storage.ts'
import { SettingsCipher } from './settings/cipher.ts'
import { checkEncryptionKeys, noKeyOpensMessage, type EncryptionKeyCheck } from './settings/key-check.ts'
import { customDatabaseProblem } from './support/geo.ts'
import { signingKeyFingerprint } from './session/cookie.ts'

const USAGE = `admin-dashboard ${BUILD}: the admin dashboard backend for an Ory Kratos + Hydra identity platform.

Usage:
  admin-dashboard [serve]        start the HTTP service (the default)
  admin-dashboard check-config   validate the environment and the database (one that exists is migrated
                                 to this version's schema, as serve would), then exit
  admin-dashboard settings list|get <key> [--decrypt]|set <key> [--encrypted] [--category <name>]|delete <key>|reencrypt
                                 manage the settings store (set reads the value from stdin)
  admin-dashboard import-sqlite <file>
                                 copy a SQLite database into the empty PostgreSQL database of DATABASE_URL
  admin-dashboard audit prune --older-than <days>d [--dry-run]
                                 delete the audit events older than that (the prune itself is recorded)
  admin-dashboard --version      print the version
  admin-dashboard --help         print this text

Configuration comes from the environment only (see deploy/admin-dashboard.env.example).
`

type Exit = number

const STARTUP_WAIT_MS = 10_000

/** A command line that does not parse: said, with the usage, and exit code 2. */
function usageError(line: string): Exit {
  process.stderr.write(`admin-dashboard: ${line}\n\n${USAGE}`)
  return 2
}

/** Each line with the program's name before it, but an indented line, which belongs to the line above it (a list under its heading, as the settings commands write one). */
function fail(lines: string[]): Exit {
  for (const line of lines) process.stderr.write(line.startsWith(' ') ? `${line}\n` : `admin-dashboard: ${line}\n`)
  return 1
}

function configFromEnvironment(): Config | Exit {
  const result = loadConfig(process.env)
  if (!result.ok) return fail(['invalid configuration:', ...result.errors.map((e) => `  ${e}`)])
  configurationNotes = result.notes
  return result.config
}
/** What loadConfig noticed that is likely a mistake: check-config prints it, `serve` logs it. */
let configurationNotes: string[] = []

/**
 * The configured keys tried on every stored encrypted setting: a start with a key that opens none
 * of them is refused (it would write values no other replica reads); otherwise the verdict.
 */
async function checkStoredEncryption(config: Config, storage: Storage): Promise<{ ok: true; check: EncryptionKeyCheck } | { ok: false; error: string }> {
  const cipher = new SettingsCipher(config.encryptionKey, config.encryptionKeyPrevious)
  let check: EncryptionKeyCheck
  try {
    check = checkEncryptionKeys(await storage.settings.list(), cipher)
  } catch (error) {
    if (isDatabaseBusy(error)) return { ok: false, error: `the encryption keys could not be checked: ${DATABASE_BUSY}` }
    if (error instanceof StorageUnavailableError) return { ok: false, error: 'the encryption keys could not be checked: the database did not answer; try again' }
    throw error
  }
  if (check.verdict === 'none_open') return { ok: false, error: noKeyOpensMessage(check.encrypted, cipher) }
  return { ok: true, check }
}

/** Said when SESSION_SIGNING_KEY is not the key the last start against this database used. */
const SIGNING_KEY_DIFFERS =
  'SESSION_SIGNING_KEY is not the key the last start against this database used: sessions signed with the other key are not accepted here, ' +
  'and replicas still running with it do not accept this one\'s (every replica needs the same key; after a deliberate change, nothing to do)'

/** Why the signing key could not be checked, by the database's code (a role without a grant on the table: 42501). */
function uncheckedReason(error: unknown): string {
  if (error instanceof StorageUnavailableError) return 'the database did not answer'
  return `the database refused (${sqlstateOf(error) ?? errorLabel(error, 'error')})`
}

/** Whether the database last saw another signing key; check-config only reads, `serve` records its own. */
async function signingKeyDiffers(config: Config, storage: Storage, record: boolean): Promise<boolean> {
  const mine = signingKeyFingerprint(config.sessionSigningKey)
  const last = record ? await storage.signingKey.exchange(mine, new Date().toISOString()) : await storage.signingKey.get()
  return last !== null && last !== mine
}

/** What check-config finds of the database: nothing stored to check when there is none yet. */
async function checkDatabase(config: Config): Promise<{ ok: false; error: string } | { ok: true; keys: EncryptionKeyCheck; signingKey: string; absent: boolean }> {
  // check-config creates nothing: it runs before the first start (the unit's ExecStartPre), and a
  // database made by it would hide a DATABASE_PATH that names the wrong place. `serve` creates it.
  const file = config.databaseUrl === null ? databaseFileState(config.databasePath) : 'exists'
  if (file === 'not_creatable') return { ok: false, error: cannotCreateDatabase(config.databasePath) }
  if (file === 'disk_full') return { ok: false, error: diskFull('ENOSPC') }
  if (file === 'creatable') return { ok: true, keys: { verdict: 'nothing_encrypted' }, signingKey: 'same', absent: true }
  const opened = await openStorage(config, undefined, { create: false })
  if (!opened.ok) return opened
  const keys = await checkStoredEncryption(config, opened.storage)
  const signingKey = keys.ok
    ? await signingKeyDiffers(config, opened.storage, false).then(
        (differs) => (differs ? 'differs' : 'same'),
        (error: unknown) => uncheckedReason(error),
      )
    : 'same'
  await opened.storage.close()
  if (!keys.ok) return keys
  return { ok: true, keys: keys.check, signingKey, absent: false }
}

async function checkConfig(): Promise<Exit> {
  const config = configFromEnvironment()
  if (typeof config === 'number') return config
  const database = await checkDatabase(config)
  if (!database.ok) return fail([database.error])
  const { keys, signingKey } = database
  const missing = missingLoginVariables(config)
  if (missing.length > 0) {
    process.stdout.write(`configuration valid; login is not configured (missing: ${missing.join(', ')})\n`)
  } else {
    process.stdout.write('configuration valid\n')
  }
  if (!config.encryptionKey) {
    process.stdout.write(
      config.encryptionKeyPrevious
        ? 'note: ENCRYPTION_KEY is not set; encrypted settings are read with ENCRYPTION_KEY_PREVIOUS, and none can be written\n'
        : 'note: ENCRYPTION_KEY is not set; encrypted settings are unavailable\n',
    )
  }
  const geo = config.geoipDatabasePath === null ? null : await customDatabaseProblem(config.geoipDatabasePath)
  if (geo !== null) process.stdout.write(`note: GEOIP_DATABASE_PATH cannot be read as an MMDB database (${geo}); the embedded database answers instead\n`)
  if (signingKey === 'differs') process.stdout.write(`note: ${SIGNING_KEY_DIFFERS}\n`)
  else if (signingKey !== 'same') process.stdout.write(`note: whether SESSION_SIGNING_KEY is the key the last start used could not be checked: ${signingKey}\n`)
  if (keys.verdict === 'some_unreadable') {
    const { unreadable, encrypted, keys: names } = keys
    process.stdout.write(
      `note: ${unreadable} of ${encrypted} encrypted settings open with neither ENCRYPTION_KEY nor ENCRYPTION_KEY_PREVIOUS: ${names.join(', ')}${names.length < unreadable ? ', …' : ''}\n`,
    )
  }
  if (database.absent) process.stdout.write(`note: ${noDatabaseYet(config.databasePath)}\n`)
  if (plainHttpBaseUrl(config)) process.stdout.write(`note: ${PLAIN_HTTP_BASE_URL}\n`)
  for (const note of configurationNotes) process.stdout.write(`note: ${note}\n`)
  return 0
}

/**
 * Outside development the session and sign-in cookies are Secure, and a browser keeps none that a
 * plain-HTTP address sets, but for localhost: with such a BASE_URL nobody can sign in.
 */
function plainHttpBaseUrl(config: Config): boolean {
  const base = config.baseUrl
  return config.environment === 'production' && base !== null && base.protocol === 'http:' && !['localhost', '127.0.0.1', '[::1]'].includes(base.hostname)
}
const PLAIN_HTTP_BASE_URL =
  'BASE_URL is a plain-HTTP address: the sign-in\'s cookies are Secure, and a browser keeps none from such an address (but localhost), so nobody could sign in; serve it over https (a TLS-terminating proxy in front) and set BASE_URL to that https address'

/** The signals that stop the service. SIGHUP too: by default it ends the process at once, losing in-flight requests and buffered log lines. */
const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const
/** How long a stop during the start waits for the database to be let go. */
const START_STOP_WAIT_MS = 2000

/**
 * Bun's PostgreSQL client, while a LISTEN cannot be made again, writes a line of free text to
 * stderr on every retry, with the server's words (a user name) in it: outside our JSON log and its
 * rule that a database error is said by its code. Our own `database_unreachable` and
 * `database_reachable` lines tell the outage; these become debug lines without the text.
 */
function quietenDatabaseClientWarnings(log: Logger): void {
  const warn = console.warn.bind(console)
  console.warn = (...parts: unknown[]) => {
    if (typeof parts[0] === 'string' && parts[0].startsWith('bun:sql ')) log.debug('database_listen_retry', {})
    else warn(...parts)
  }
}

async function runServer(): Promise<Exit> {
  const config = configFromEnvironment()
  if (typeof config === 'number') return config
  const log = createLogger(config.logLevel)
  quietenDatabaseClientWarnings(log)
  for (const note of configurationNotes) log.warn('configuration_note', { note })
  // A stop signal before the server listens (opening the database, its migrations, the wait for
  // the revocations: seconds when the database is slow) ends the start: the database is let go
  // and every line logged so far written, where the signal's default would end the process at
  // once with buffered lines unwritten.
  const starting: { storage?: Storage; close?: () => void; stopping: boolean } = { stopping: false }
  const stopStart = (signal: string) => {
    if (starting.stopping) return
    starting.stopping = true
    void (async () => {
      log.info('stopping', { signal, during: 'start' })
      starting.close?.()
      await Promise.race([starting.storage?.close().catch(() => {}), Bun.sleep(START_STOP_WAIT_MS)])
      log.info('stopped')
      await log.flush()
      process.exit(0)
    })()
  }
  for (const signal of STOP_SIGNALS) process.on(signal, stopStart)
  /** Once a stop has begun, the start goes no further (the process ends when the stop has). */
  const halted = () => new Promise<Exit>(() => {})
  const opened = await openStorage(config, log)
  if (!opened.ok) {
    const exit = fail([opened.error])
    for (const signal of STOP_SIGNALS) process.off(signal, stopStart)
    return exit
  }
  const { storage } = opened
  starting.storage = storage
  if (starting.stopping) return halted()
  const keys = await checkStoredEncryption(config, storage)
  if (starting.stopping) return halted()
  if (!keys.ok) {
    await storage.close()
    const exit = fail([keys.error])
    for (const signal of STOP_SIGNALS) process.off(signal, stopStart)
    return exit
  }
  if (keys.check.verdict === 'some_unreadable') {
    // Setting keys are names, not secrets (the audit trail and `settings list` show them); values never appear.
    const { unreadable, encrypted, keys: names } = keys.check
    log.warn('encrypted_settings_unreadable', { count: unreadable, encrypted, keys: names.join(',') })
  } else if (keys.check.verdict === 'no_key') {
    log.warn('encrypted_settings_unavailable', { encrypted: keys.check.encrypted, missing: 'ENCRYPTION_KEY' })
  }
  const { handle, services } = createApp({ config, storage, log })
  starting.close = () => services.close()
  // Revocations loaded and the change feed current before the first request; a database that went
  // away meanwhile only delays this (the gate answers 503 until it is back).
  await Promise.race([services.ready(), Bun.sleep(STARTUP_WAIT_MS)])
  if (starting.stopping) return halted()
  let running
  try {
    running = serve({ handle, hostname: config.host, port: config.port, log, upstreamTimeoutMs: config.proxyTimeoutMs })
  } catch (error) {
    services.close()
    await storage.close()
    const exit = fail([`cannot listen on ${urlHost(config.host)}:${config.port} (HOST, PORT): ${(error as { code?: string }).code ?? 'error'}`])
    for (const signal of STOP_SIGNALS) process.off(signal, stopStart)
    return exit
  }
  // From here to the handlers below nothing waits: no signal can come between them.
  for (const signal of STOP_SIGNALS) process.off(signal, stopStart)
  log.info('listening', { address: running.url.origin, version: BUILD, environment: config.environment, database: storage.engine })
  const missing = missingLoginVariables(config)
  if (missing.length > 0) log.warn('login_not_configured', { missing: missing.join(',') })
  // Recorded once listening, not before: a write at the start could wait on a lock another process holds.
  void signingKeyDiffers(config, storage, true).then(
    (differs) => differs && log.warn('signing_key_differs', { variable: 'SESSION_SIGNING_KEY', detail: SIGNING_KEY_DIFFERS }),
    (error: unknown) => log.warn('signing_key_unchecked', { reason: uncheckedReason(error) }),
  )

  return await new Promise<Exit>((resolve) => {
    let stopping = false
    const shutdown = async (signal: string) => {
      if (stopping) return
      stopping = true
      log.info('stopping', { signal })
      await running.stop()
      services.close()
      await storage.close()
      log.info('stopped')
      // Every line written so far reaches the output before the process ends (bounded wait).
      await log.flush()
      resolve(0)
    }
    for (const signal of STOP_SIGNALS) process.on(signal, () => void shutdown(signal))
  })
}

export async function main(argv: string[]): Promise<Exit> {
  const [command = 'serve', ...rest] = argv
  switch (command) {
    case '--version':
    case 'version':
      process.stdout.write(`${BUILD}\n`)
      return 0
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(USAGE)
      return 0
    case 'check-config':
      if (rest.length > 0) return usageError('check-config takes no arguments')
      return checkConfig()
    case 'settings':
      return runSettingsCommand(rest)
    case 'import-sqlite':
      return runImportSqlite(rest, processIo)
    case 'audit':
      return runAuditCommand(rest, processIo)
    case 'serve':
      if (rest.length > 0) return usageError('serve takes no arguments')
      return runServer()
    default:
      process.stderr.write(`admin-dashboard: unknown command\n\n${USAGE}`)
      return 2
  }
}

if (import.meta.main) {
  void main(process.argv.slice(2)).then((code) => process.exit(code))
}
