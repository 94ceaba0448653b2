// `admin-dashboard settings …`: the operator's way to the settings store, on the same database as
// a running service: the SQLite file (WAL and waiting for locks make that safe) or PostgreSQL when
// DATABASE_URL is set. Running services see these changes within 1 s. Values are printed by `get` only.
// The commands that encrypt (`set --encrypted`, `reencrypt`) first check the keys as `serve` does
// at start: keys that open none of the stored encrypted values are refused before anything is written.

import { isatty } from 'node:tty'
import { AuditLog } from '../audit/audit.ts'
import { systemClock } from '../clock.ts'
import { loadConfig, UPSTREAM_NAMES, type Config, type Environment } from '../config.ts'
import { DATABASE_BUSY, diskFull, DiskFullError, isDatabaseBusy } from '../db/database.ts'
import { openStorage } from '../db/open.ts'
import type { Storage } from '../db/storage.ts'
import { ApiError } from '../http/errors.ts'
import { createLogger, errorLabel, sqlstateOf, type Logger } from '../log.ts'
import { checkEncryptionKeys, noKeyOpensMessage } from '../settings/key-check.ts'
import { apiKeySetting, createSettingsService, isApiKeySetting, type SettingsService } from '../settings/service.ts'

const SETTINGS_USAGE = `Usage:
  admin-dashboard settings list                     keys, flags and categories (never values)
  admin-dashboard settings get <key> [--decrypt]    print one value (the plaintext with --decrypt)
  admin-dashboard settings set <key> [--encrypted] [--category <name>]
                                                    store the value read from stdin (one trailing
                                                    newline is removed)
  admin-dashboard settings delete <key>             remove a setting
  admin-dashboard settings reencrypt                re-encrypt every encrypted value under
                                                    ENCRYPTION_KEY (reading with ENCRYPTION_KEY_PREVIOUS
                                                    where needed), all in one transaction
`

const VALUE_FROM_A_PIPE =
  'settings set reads the value from standard input, and standard input is a terminal (what is typed there would be shown). ' +
  `Pipe the value in: printf '%s' "$VALUE" | admin-dashboard settings set <key> [--encrypted]`

export interface CliIo {
  env: Environment
  readStdin(): Promise<string>
  /** Whether stdin is a terminal; absent: it is not. */
  stdinIsTerminal?(): boolean
  out(text: string): void
  err(text: string): void
}

export const processIo: CliIo = {
  env: process.env,
  readStdin: () => Bun.stdin.text(),
  stdinIsTerminal: () => isatty(0),
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
}

type Parsed =
  | { command: 'list' }
  | { command: 'get'; key: string; decrypt: boolean }
  | { command: 'set'; key: string; encrypted: boolean; category: string | null }
  | { command: 'delete'; key: string }
  | { command: 'reencrypt' }

const OPTIONS = ['--decrypt', '--encrypted', '--category']

/** What is wrong with a command `parse` refused, as precisely as can be told. */
function whyInvalid(args: string[]): string {
  const [command, ...rest] = args
  const unknown = rest.find((arg) => arg.startsWith('-') && !OPTIONS.includes(arg) && !arg.startsWith('--category='))
  if (unknown !== undefined) {
    const near = OPTIONS.find((option) => option.startsWith(unknown) || unknown.startsWith(option))
    return `unknown option ${JSON.stringify(unknown)}${near ? ` (did you mean ${near}?)` : ''}; nothing was done`
  }
  if (command === 'set' && rest.filter((arg) => !arg.startsWith('-')).length > 1) {
    // Said without the value: it is on the command line already, and need not be in a log too.
    return 'settings set reads the value from standard input, not from the command line (where `ps` and the shell history would keep it); nothing was stored'
  }
  return 'invalid settings command'
}

function parse(args: string[]): Parsed | null {
  const [command, ...rest] = args
  const positional: string[] = []
  const flags = new Map<string, string | true>()
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!
    if (arg === '--category') {
      const value = rest[++i]
      if (value === undefined) return null
      flags.set('category', value)
    } else if (arg.startsWith('--category=')) {
      flags.set('category', arg.slice('--category='.length))
    } else if (arg === '--decrypt' || arg === '--encrypted') {
      flags.set(arg.slice(2), true)
    } else if (arg.startsWith('-')) {
      return null
    } else {
      positional.push(arg)
    }
  }
  const allowed = (...names: string[]) => [...flags.keys()].every((name) => names.includes(name))
  switch (command) {
    case 'list':
    case 'reencrypt':
      return positional.length === 0 && flags.size === 0 ? { command } : null
    case 'get':
      return positional.length === 1 && allowed('decrypt') ? { command, key: positional[0]!, decrypt: flags.has('decrypt') } : null
    case 'set': {
      if (positional.length !== 1 || !allowed('encrypted', 'category')) return null
      const category = flags.get('category')
      return { command, key: positional[0]!, encrypted: flags.has('encrypted'), category: typeof category === 'string' ? category : null }
    }
    case 'delete':
      return positional.length === 1 && flags.size === 0 ? { command, key: positional[0]! } : null
    default:
      return null
  }
}

/**
 * What a command that works on the database needs: the configuration, the storage it names and an
 * error log to stderr; or, said on stderr, why not (then exit 1). `create`: a SQLite file that does
 * not exist is made, else refused.
 */
export async function openForCommand(io: CliIo, create: boolean): Promise<{ ok: true; config: Config; storage: Storage; log: Logger } | { ok: false }> {
  const loaded = loadConfig(io.env)
  if (!loaded.ok) {
    io.err(['admin-dashboard: invalid configuration:', ...loaded.errors.map((e) => `  ${e}`)].join('\n') + '\n')
    return { ok: false }
  }
  const log = createLogger('error', (line) => io.err(line))
  const opened = await openStorage(loaded.config, log, { create })
  if (!opened.ok) {
    io.err(`admin-dashboard: ${opened.error}\n`)
    return { ok: false }
  }
  return { ok: true, config: loaded.config, storage: opened.storage, log }
}

/** Exit status: 0 done, 1 failed, 2 usage error. */
export async function runSettingsCommand(args: string[], io: CliIo = processIo): Promise<number> {
  if (args[0] === '--help' || args[0] === 'help' || args[0] === '-h') {
    io.out(SETTINGS_USAGE)
    return 0
  }
  const parsed = parse(args)
  if (!parsed) {
    io.err(`admin-dashboard: ${whyInvalid(args)}\n\n${SETTINGS_USAGE}`)
    return 2
  }
  // On a terminal, `set` would wait without a word for a value and show it as it is typed: the
  // value is a secret more often than not, and belongs in a pipe (README's bootstrap command).
  if (parsed.command === 'set' && io.stdinIsTerminal?.()) {
    io.err(`admin-dashboard: ${VALUE_FROM_A_PIPE}\n\n${SETTINGS_USAGE}`)
    return 2
  }
  // Only `set` makes a new database (the README's first key is stored before the first start);
  // the others, on a path that names none, would answer from an empty one as if nothing were stored.
  const opened = await openForCommand(io, parsed.command === 'set')
  if (!opened.ok) return 1
  const { config, log } = opened
  const settings = createSettingsService({
    config,
    storage: opened.storage,
    audit: new AuditLog(opened.storage, systemClock),
    clock: systemClock,
    log,
  })
  try {
    return await execute(parsed, settings, io)
  } catch (error) {
    if (error instanceof ApiError) {
      io.err(`admin-dashboard: ${describeFailure(error)}\n`)
      return 1
    }
    if (isDatabaseBusy(error)) {
      io.err(`admin-dashboard: ${DATABASE_BUSY}\n`)
      return 1
    }
    if (error instanceof DiskFullError) {
      // A read fails so only when it is audited (get --decrypt): the value is not shown unrecorded.
      const outcome = parsed.command === 'get' ? 'the value is not shown, as its read could not be recorded in the audit trail' : 'nothing was changed'
      io.err(`admin-dashboard: ${diskFull(error.code)}; ${outcome}\n`)
      return 1
    }
    // Anything else the database said (read-only, permission denied): its code, never its text,
    // which can quote a statement's values.
    io.err(`admin-dashboard: the settings store refused the operation (${errorCode(error)})\n`)
    return 1
  } finally {
    await opened.storage.close()
  }
}

async function execute(parsed: Parsed, settings: SettingsService, io: CliIo): Promise<number> {
  switch (parsed.command) {
    case 'list': {
      const rows = (await settings.list()).map((s) => [s.key, s.encrypted ? 'encrypted' : 'plain', s.category ?? '-', s.updated_at])
      io.out(formatTable([['KEY', 'STORED', 'CATEGORY', 'UPDATED'], ...rows]))
      return 0
    }
    case 'get': {
      const setting = await settings.read(parsed.key, { decrypt: parsed.decrypt, actor: null })
      if (!setting) return missing(io)
      io.out(`${setting.value}\n`)
      return 0
    }
    case 'set': {
      // Checked before the value is read: no one types a secret only to have it refused.
      if (parsed.encrypted) {
        const unreadable = await keysOpeningNone(settings)
        if (unreadable) {
          io.err(`admin-dashboard: ${noKeyOpensMessage(unreadable.length, settings.cipher)}. Nothing was written.\n`)
          return 1
        }
      }
      const value = (await io.readStdin()).replace(/\r?\n$/, '')
      const { outcome } = await settings.write(
        { key: parsed.key, value, encrypted: parsed.encrypted, category: parsed.category },
        null,
      )
      io.out(`${outcome} ${parsed.key}${parsed.encrypted ? ' (encrypted)' : ''}\n`)
      // A misspelt API key (the bootstrap step's `proxy.iam-idp-admin.api-key`) is an ordinary
      // setting no prefix reads: said now, not found later as failed sign-ins.
      if (parsed.key.startsWith('proxy.') && !isApiKeySetting(parsed.key)) {
        io.err(`note: ${parsed.key} is no prefix's API key, and no proxy reads it; those are ${UPSTREAM_NAMES.map((name) => apiKeySetting(name)).join(', ')}\n`)
      }
      return 0
    }
    case 'delete':
      if (!(await settings.remove(parsed.key, null))) return missing(io)
      io.out(`deleted ${parsed.key}\n`)
      return 0
    case 'reencrypt': {
      // reencryptAll already refuses, inside its transaction, when any value does not open; this
      // look beforehand adds why when none does: the keys are not the database's.
      const unreadable = await keysOpeningNone(settings)
      if (unreadable) {
        io.err(`admin-dashboard: ${noKeyOpensMessage(unreadable.length, settings.cipher)}\n${undecryptable(unreadable)}`)
        return 1
      }
      const result = await settings.reencryptAll(null)
      if (result.ok) {
        io.out(`re-encrypted ${result.reencrypted} value${result.reencrypted === 1 ? '' : 's'} under ENCRYPTION_KEY\n`)
        return 0
      }
      io.err(result.reason === 'unavailable' ? 'admin-dashboard: ENCRYPTION_KEY is not set; nothing was changed\n' : undecryptable(result.keys))
      return 1
    }
  }
}

/**
 * The start's rule (settings/key-check.ts) for the commands that encrypt: keys that open none of the
 * stored encrypted values are not the database's, and no replica with the right key could read what
 * they encrypt. When that is so, the setting keys of the encrypted values (none opens); else null.
 */
async function keysOpeningNone(settings: SettingsService): Promise<string[] | null> {
  const stored = await settings.list()
  if (checkEncryptionKeys(stored, settings.cipher).verdict !== 'none_open') return null
  return stored.filter((setting) => setting.encrypted).map((setting) => setting.key)
}

/** Setting keys are names, not secrets (`list` shows them); the values are never printed. */
function undecryptable(keys: readonly string[]): string {
  return (
    'admin-dashboard: these settings decrypt with neither ENCRYPTION_KEY nor ENCRYPTION_KEY_PREVIOUS; nothing was changed:\n' +
    keys.map((key) => `  ${key}\n`).join('')
  )
}

function missing(io: CliIo): number {
  io.err('admin-dashboard: no setting with this key\n')
  return 1
}

/** A database error's code (SQLite's, or PostgreSQL's SQLSTATE), or its name. */
function errorCode(error: unknown): string {
  const sqlstate = sqlstateOf(error)
  return sqlstate !== null ? `SQLSTATE ${sqlstate}` : errorLabel(error, 'unknown error')
}

function describeFailure(error: ApiError): string {
  switch (error.code) {
    case 'encryption_unavailable':
      // With only the previous key, values are read with it: only writing needs ENCRYPTION_KEY.
      return 'ENCRYPTION_KEY is not set; encrypted values cannot be written (and, without ENCRYPTION_KEY_PREVIOUS, not read either)'
    case 'decryption_failed':
      return 'the stored value does not decrypt with ENCRYPTION_KEY or ENCRYPTION_KEY_PREVIOUS'
    case 'database_unavailable':
      return 'the database did not answer; try again'
    default:
      return error.publicMessage ?? error.message
  }
}

/**
 * A cell on one line: a category may hold any text (the API takes any string of up to 64
 * characters), so control characters are shown escaped and cannot break the table.
 */
function tableCell(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) =>
    c === '\n' ? '\\n' : c === '\r' ? '\\r' : c === '\t' ? '\\t' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}

function formatTable(rows: string[][]): string {
  const cells = rows.map((row) => row.map(tableCell))
  const widths = cells[0]!.map((_, column) => Math.max(...cells.map((row) => row[column]!.length)))
  return cells.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd() + '\n').join('')
}
