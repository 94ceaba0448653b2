// JSON lines on stdout (journald). Callers pass fields they chose; nothing here reads requests,
// so cookie values, tokens, keys and setting values never reach a log by accident.

import type { LogLevel } from './config.ts'

export type LogFields = Record<string, string | number | boolean | null | undefined>

export interface Logger {
  debug(event: string, fields?: LogFields): void
  info(event: string, fields?: LogFields): void
  warn(event: string, fields?: LogFields): void
  error(event: string, fields?: LogFields): void
  /** Audit lines the spec requires (identity searches): written whatever LOG_LEVEL says. */
  audit(fields: LogFields): void
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 }

export function createLogger(level: LogLevel, write: (line: string) => void = (line) => process.stdout.write(line)): Logger {
  const line = (lineLevel: LogLevel, event: string, fields: LogFields) =>
    write(JSON.stringify({ time: new Date().toISOString(), level: lineLevel, event, ...fields }) + '\n')
  const emit = (lineLevel: LogLevel, event: string, fields: LogFields = {}) => {
    if (RANK[lineLevel] >= RANK[level]) line(lineLevel, event, fields)
  }
  return {
    debug: (event, fields) => emit('debug', event, fields),
    info: (event, fields) => emit('info', event, fields),
    warn: (event, fields) => emit('warn', event, fields),
    error: (event, fields) => emit('error', event, fields),
    audit: (fields) => line('info', 'audit', fields),
  }
}

/** What may be logged about a caught error: its class and code, never its message (it may hold host names). */
export function describeError(error: unknown): LogFields {
  if (error instanceof Error) {
    return { error_name: error.name, error_code: (error as { code?: unknown }).code as string | undefined }
  }
  return { error_name: typeof error }
}
