// `serve` run as a process (bun src/main.ts): what an operator's environment and systemd do to it.

import { afterAll, describe, expect, test } from 'bun:test'
import { closeSync, constants, mkdtempSync, openSync, readSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomKey } from './support/service.ts'
import { fetchChecked, inspectOutput, runToEnd, startProcess } from './support/process.ts'
import { within } from './support/eventually.ts'
import { Database } from 'bun:sqlite'
import { signingKeyFingerprint } from '../src/session/cookie.ts'
import { decodeBase64Key } from '../src/config.ts'
import { freePort } from './support/ports.ts'
import { markSecret } from './support/leaks.ts'

const MAIN = join(import.meta.dir, '..', 'src', 'main.ts')
const dir = mkdtempSync(join(tmpdir(), 'admin-dashboard-serve-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const loginEnv = { BASE_URL: 'https://admin.example.test', OAUTH_ISSUER_URL: 'https://issuer.example.test', OAUTH_CLIENT_ID: 'admin-dashboard' }

describe('HOST', () => {
  for (const host of ['[::1]', '::1']) {
    test(`HOST=${host} listens on the IPv6 loopback, logs a valid address and answers /api/health`, async () => {
      const service = await startProcess(['bun', MAIN, 'serve'], { ...loginEnv, SESSION_SIGNING_KEY: randomKey(), DATABASE_PATH: join(dir, `host-${host.length}`, 'a.db'), HOST: host })
      try {
        const url = new URL(service.url)
        expect(url.hostname).toBe('[::1]')
        expect((await service.fetch('/api/health')).status).toBe(200)
      } finally {
        service.child.kill('SIGTERM')
        expect(await service.exited).toBe(0)
      }
    }, 30_000)
  }
})

describe('stdout whose reader goes away', () => {
  test('the request log drops its output on EPIPE: requests keep being answered, SIGTERM still exits 0', async () => {
    const port = freePort()
    const fifo = join(dir, 'stdout-fifo')
    expect(Bun.spawnSync(['mkfifo', fifo]).exitCode).toBe(0)
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK)
    const key = randomKey()
    markSecret(key)
    const child = Bun.spawn(['sh', '-c', 'exec "$0" "$1" serve > "$2"', process.execPath, MAIN, fifo], {
      env: { PATH: process.env.PATH!, HOME: process.env.HOME, ...loginEnv, SESSION_SIGNING_KEY: key, DATABASE_PATH: join(dir, 'epipe', 'a.db'), HOST: '127.0.0.1', PORT: String(port) },
      stdout: 'ignore',
      stderr: 'pipe',
    })
    const stderr = new Response(child.stderr).text()
    const base = `http://127.0.0.1:${port}`
    try {
      let up = false
      for (let i = 0; i < 400 && !up; i++) {
        up = (await fetchChecked(`${base}/api/health`).catch(() => null))?.status === 200
        if (!up) await Bun.sleep(25)
      }
      expect(up).toBe(true)
      // The reader takes a little, then goes away, as `head -c100` does.
      await Bun.sleep(100)
      readSync(reader, Buffer.alloc(100))
      closeSync(reader)
      for (let round = 0; round < 20; round++) {
        const statuses = await Promise.all(Array.from({ length: 20 }, async () => (await fetchChecked(`${base}/api/health`)).status))
        expect(statuses.every((status) => status === 200)).toBe(true)
        await Bun.sleep(30)
      }
      expect(child.exitCode).toBeNull()
      child.kill('SIGTERM')
      expect(await child.exited).toBe(0)
      const errors = await stderr
      inspectOutput(errors, 'service process stderr')
      expect(errors).toContain('log output is dropped from now on')
      expect(errors).not.toMatch(/^\s+at |Bun v\d/m)
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL')
      await child.exited
    }
  }, 60_000)
})

describe('SESSION_SIGNING_KEY against the database (replicas must share one)', () => {
  test('a start with another key than the last start used warns, and check-config says so first; the same key again says nothing', async () => {
    const database = join(dir, 'signing', 'a.db')
    const [first, second] = [randomKey(), randomKey()]
    const warned = async (key: string) => {
      const service = await startProcess(['bun', MAIN, 'serve'], { ...loginEnv, SESSION_SIGNING_KEY: key, DATABASE_PATH: database, HOST: '127.0.0.1' })
      // Recorded once listening; the warning, if any, is logged as the record commits, and every
      // line logged is written before a SIGTERM'd process exits.
      const recorded = () => {
        using db = new Database(database, { readonly: true })
        return db.query<{ fingerprint: string }, []>('SELECT fingerprint FROM signing_key').get()?.fingerprint
      }
      expect(await within(5000, () => recorded() === signingKeyFingerprint(decodeBase64Key(key)!), 20)).not.toBeNull()
      service.child.kill('SIGTERM')
      expect(await service.exited).toBe(0)
      expect(service.stdout()).not.toContain(key)
      return service.stdout().includes('"event":"signing_key_differs"')
    }
    const checked = async (key: string) => {
      const result = await runToEnd(['bun', MAIN, 'check-config'], { ...loginEnv, SESSION_SIGNING_KEY: key, DATABASE_PATH: database })
      expect(result.code).toBe(0)
      expect(result.stdout + result.stderr).not.toContain(key)
      return result.stdout.includes('note: SESSION_SIGNING_KEY is not the key the last start against this database used')
    }
    expect(await warned(first)).toBe(false) // nothing recorded before
    expect(await checked(first)).toBe(false)
    expect(await warned(first)).toBe(false)
    expect(await checked(second)).toBe(true) // ExecStartPre's check, before the replica with the other key starts
    expect(await warned(second)).toBe(true)
    expect(await warned(second)).toBe(false)
    expect(await warned(first)).toBe(true) // and a replica started again with the first key hears of it too
  }, 60_000)
})
