// Which storage the configuration selects: PostgreSQL when DATABASE_URL is set, else the SQLite
// file at DATABASE_PATH. The service, the command line and the bench open it the same way.
// `create: false` (the commands that only read or delete) refuses a SQLite file that does not
// exist instead of creating an empty database; PostgreSQL's database exists or the connection fails.

import type { Config } from '../config.ts'
import type { Logger } from '../log.ts'
import { PostgresStorage } from './postgres-storage.ts'
import { openSqliteStorage } from './sqlite-storage.ts'
import type { Storage } from './storage.ts'

type StorageOpenResult = { ok: true; storage: Storage } | { ok: false; error: string }

export async function openStorage(
  config: Pick<Config, 'databaseUrl' | 'databasePath'>,
  log?: Logger,
  options: { create?: boolean } = {},
): Promise<StorageOpenResult> {
  if (config.databaseUrl !== null) return PostgresStorage.open(config.databaseUrl, { log })
  return openSqliteStorage(config.databasePath, { ...options, log })
}
