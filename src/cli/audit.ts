// `admin-dashboard audit prune --older-than <days>d [--dry-run]`: deletes the audit events recorded
// more than that many days ago, on the database a running service uses (SQLite or PostgreSQL). The
// trail keeps identity ids and search filters (customers' e-mail addresses), and grows with every
// identities page view: how long it is kept is the operator's decision, made with this command (a
// timer may run it). The prune itself is an event of the trail, written before anything is deleted.

import { AuditLog } from '../audit/audit.ts'
import { systemClock } from '../clock.ts'
import { DATABASE_BUSY, diskFull, DiskFullError, isDatabaseBusy } from '../db/database.ts'
import { StorageUnavailableError } from '../db/storage.ts'
import { errorLabel, sqlstateOf } from '../log.ts'
import { openForCommand, type CliIo } from './settings.ts'

const AUDIT_USAGE = `Usage:
  admin-dashboard audit prune --older-than <days>d [--dry-run]
      delete the audit events recorded more than <days> days ago (1–36500), oldest first, a few
      thousand per transaction so a running service is never kept waiting; --dry-run only counts
      them. The prune is recorded in the audit trail (action audit_prune).
`

const DAY_MS = 86_400_000
const MOST_DAYS = 36_500
/** Events deleted per transaction: each holds SQLite's write lock for a moment only. */
export const PRUNE_BATCH = 5_000

type Parsed = { days: number; dryRun: boolean }

function parse(args: string[]): Parsed | string {
  const [command, ...rest] = args
  if (command !== 'prune') return command === undefined ? 'audit needs a command' : `unknown audit command ${JSON.stringify(command)}`
  let days: number | null = null
  let dryRun = false
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!
    const value = arg === '--older-than' ? rest[++i] : arg.startsWith('--older-than=') ? arg.slice('--older-than='.length) : null
    if (arg === '--dry-run') dryRun = true
    else if (value === null) return `unknown argument ${JSON.stringify(arg)}`
    else {
      // Days only, with their unit written: "90" alone could be read as anything.
      const match = /^([0-9]{1,5})d$/.exec(value ?? '')
      if (!match || Number(match[1]) < 1 || Number(match[1]) > MOST_DAYS) return `--older-than takes a number of days from 1 to ${MOST_DAYS}, written like 365d`
      days = Number(match[1])
    }
  }
  if (days === null) return 'audit prune needs --older-than <days>d'
  return { days, dryRun }
}

/** Exit status: 0 done, 1 failed, 2 usage error. */
export async function runAuditCommand(args: string[], io: CliIo): Promise<number> {
  if (args[0] === '--help' || args[0] === '-h' || args[0] === 'help') {
    io.out(AUDIT_USAGE)
    return 0
  }
  const parsed = parse(args)
  if (typeof parsed === 'string') {
    io.err(`admin-dashboard: ${parsed}; nothing was deleted\n\n${AUDIT_USAGE}`)
    return 2
  }
  const opened = await openForCommand(io, false)
  if (!opened.ok) return 1
  const { storage, log } = opened
  const before = new Date(systemClock.now() - parsed.days * DAY_MS).toISOString()
  let deleted = 0
  try {
    if (parsed.dryRun) {
      const events = await storage.audit.countBefore(before)
      io.out(`${said(events)} recorded before ${before} would be deleted (--dry-run: nothing was deleted)\n`)
      return 0
    }
    const audit = new AuditLog(storage, systemClock)
    const event = await audit.begin({ action: 'audit_prune', actor: null, target: null, detail: { before, outcome: 'started' } })
    let outcome = 'failed'
    try {
      for (;;) {
        const batch = await storage.audit.deleteBefore(before, PRUNE_BATCH)
        deleted += batch
        if (batch < PRUNE_BATCH) break
      }
      outcome = 'ok'
    } finally {
      await audit.complete(log, event, { action: 'audit_prune', detail: { before, deleted, outcome } })
    }
    io.out(`deleted ${said(deleted)} recorded before ${before}\n`)
    return 0
  } catch (error) {
    io.err(`admin-dashboard: ${whyFailed(error)}; ${deleted > 0 ? `${said(deleted)} from before ${before} had been deleted, the others are kept` : 'nothing was deleted'}\n`)
    return 1
  } finally {
    await storage.close()
  }
}

const said = (events: number) => `${events.toLocaleString('en-US')} audit event${events === 1 ? '' : 's'}`

function whyFailed(error: unknown): string {
  if (isDatabaseBusy(error)) return DATABASE_BUSY
  if (error instanceof DiskFullError) return diskFull(error.code)
  if (error instanceof StorageUnavailableError) return 'the database did not answer; try again'
  // Its code, never its text, which can quote a statement's values.
  const sqlstate = sqlstateOf(error)
  return `the database refused the operation (${sqlstate !== null ? `SQLSTATE ${sqlstate}` : errorLabel(error, 'unknown error')})`
}
