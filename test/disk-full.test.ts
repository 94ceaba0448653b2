// A full disk under DATABASE_PATH, on a real filesystem filled to its last block: a start says the
// disk is full instead of calling it an I/O error. Mounting the filesystem takes root: without it
// these are skipped.

import { describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { randomKey } from './support/service.ts'
import { runToEnd } from './support/process.ts'
import { canMountSmallDisk, mountSmallDisk } from './support/small-disk.ts'

const MAIN = join(import.meta.dir, '..', 'src', 'main.ts')

describe.skipIf(!canMountSmallDisk())('a full disk under DATABASE_PATH', () => {
  test('check-config and serve on a full disk say so, with SQLite’s code, for an existing database and a new one', async () => {
    const disk = mountSmallDisk()
    try {
      // As a stopped service leaves it: the file alone, its -wal and -shm removed at the close.
      const existing = join(disk.dir, 'existing.db')
      const db = new Database(existing, { create: true })
      db.run('PRAGMA journal_mode = WAL')
      db.run('CREATE TABLE kept (x INTEGER)')
      db.close()
      expect(existsSync(existing + '-shm')).toBe(false)
      disk.fill()
      for (const command of ['check-config', 'serve']) {
        const refused = await runToEnd(['bun', MAIN, command], { SESSION_SIGNING_KEY: randomKey(), DATABASE_PATH: existing, PORT: '0', HOME: process.env.HOME })
        expect({ command, code: refused.code, stderr: refused.stderr }).toEqual({
          command,
          code: 1,
          // SQLite could not extend the -shm file it makes first (os_unix.c unixShmMap).
          stderr: 'admin-dashboard: DATABASE_PATH: the disk holding the database is full (SQLITE_IOERR_SHMSIZE)\n',
        })
        const fresh = await runToEnd(['bun', MAIN, command], { SESSION_SIGNING_KEY: randomKey(), DATABASE_PATH: join(disk.dir, 'state', 'new.db'), PORT: '0', HOME: process.env.HOME })
        expect({ command, code: fresh.code }).toEqual({ command, code: 1 })
        expect(fresh.stderr).toStartWith('admin-dashboard: DATABASE_PATH: the disk holding the database is full (')
      }
    } finally {
      disk.unmount()
    }
  }, 30_000)
})
