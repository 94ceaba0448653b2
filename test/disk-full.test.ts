// A full disk under DATABASE_PATH, on a real filesystem filled to its last block: writes answer
// 503 database_unavailable (README, Operations) and do nothing, the log says what to do about it,
// and a start says the disk is full instead of calling it an I/O error. Reads, and with them
// `/api/health`, still answer: health says whether the database answers (decisions §2), and it
// does. Mounting the filesystem takes root (or CAP_SYS_ADMIN), as the test machine has: without it
// these fail, saying so, rather than pass without having looked.

import { describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { startStack, type Stack } from './support/stack.ts'
import { randomKey } from './support/service.ts'
import { runToEnd } from './support/process.ts'
import { mountSmallDisk } from './support/small-disk.ts'

const MAIN = join(import.meta.dir, '..', 'src', 'main.ts')

describe('a full disk under DATABASE_PATH', () => {
  test('a setting and a logout answer 503 database_unavailable and do nothing, the log names the disk and SQLite’s code; once room is made both work', async () => {
    const disk = mountSmallDisk()
    let stack: Stack | undefined
    try {
      stack = await startStack({ dir: disk.dir })
      const { service, cookie } = stack
      const write = () =>
        fetch(service.url + '/api/settings', {
          method: 'POST',
          headers: { cookie: cookie.admin, 'content-type': 'application/json' },
          body: JSON.stringify({ key: 'site.full', value: 'x' }),
        })
      const session = stack.freshCookie('admin')
      const logout = () => fetch(service.url + '/api/auth/logout', { method: 'POST', headers: { cookie: session, origin: 'http://admin.test' } })
      const secret = await fetch(service.url + '/api/settings', {
        method: 'POST',
        headers: { cookie: cookie.admin, 'content-type': 'application/json' },
        body: JSON.stringify({ key: 'site.secret', value: 'kept under lock', encrypted: true }),
      })
      expect(secret.status).toBe(201)
      disk.fill()

      const refused = await write()
      expect({ status: refused.status, body: await refused.json() }).toEqual({
        status: 503,
        body: { error: 'database_unavailable', message: 'The database is unavailable; try again shortly.' },
      })
      // The revocation was not written: the session still works, and the cookie is kept.
      const notSignedOut = await logout()
      expect(notSignedOut.status).toBe(503)
      expect(notSignedOut.headers.get('set-cookie')).toBeNull()
      expect((await fetch(service.url + '/api/auth/session', { headers: { cookie: session } })).status).toBe(200)
      expect((await fetch(service.url + '/api/settings/site.full', { headers: { cookie: cookie.admin } })).status).toBe(404)
      expect((await fetch(service.url + '/api/health')).status).toBe(200)

      const full = service.logLines.filter((line) => line.includes('"event":"database_disk_full"')).map((line) => JSON.parse(line))
      expect(full.map((line) => [line.level, line.path, line.error_code, line.detail])).toEqual([
        ['error', '/api/settings', 'SQLITE_FULL', 'the disk holding DATABASE_PATH is full: writes answer 503 until room is made on it'],
        ['error', '/api/auth/logout', 'SQLITE_FULL', 'the disk holding DATABASE_PATH is full: writes answer 503 until room is made on it'],
      ])
      expect(full.every((line) => typeof line.request_id === 'string')).toBe(true)
      expect(service.logLines.some((line) => line.includes('unhandled_error'))).toBe(false)
      // The command line, beside the running service, says the same.
      const cli = await runToEnd(['bun', MAIN, 'settings', 'set', 'site.cli'], { ...service.env, HOME: process.env.HOME }, { cwd: service.dir, stdin: 'x' })
      expect({ code: cli.code, stderr: cli.stderr }).toEqual({ code: 1, stderr: 'admin-dashboard: DATABASE_PATH: the disk holding the database is full (SQLITE_FULL); nothing was changed\n' })
      // A decrypted read is audited: with no room for its record, the value is not shown, and it says so.
      const read = await runToEnd(['bun', MAIN, 'settings', 'get', 'site.secret', '--decrypt'], { ...service.env, HOME: process.env.HOME }, { cwd: service.dir })
      expect({ code: read.code, stdout: read.stdout, stderr: read.stderr }).toEqual({
        code: 1,
        stdout: '',
        stderr: 'admin-dashboard: DATABASE_PATH: the disk holding the database is full (SQLITE_FULL); the value is not shown, as its read could not be recorded in the audit trail\n',
      })

      disk.free()
      expect((await write()).status).toBe(201)
      expect((await logout()).status).toBe(204)
      expect((await fetch(service.url + '/api/auth/session', { headers: { cookie: session } })).status).toBe(401)
    } finally {
      await stack?.stop()
      disk.unmount()
    }
  }, 30_000)

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
