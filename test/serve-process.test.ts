// `serve` run as a process (bun src/main.ts): what an operator's environment and systemd do to it.

import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomKey } from './support/service.ts'
import { startProcess } from './support/process.ts'

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
        expect((await fetch(`${service.url}/api/health`)).status).toBe(200)
      } finally {
        service.child.kill('SIGTERM')
        expect(await service.exited).toBe(0)
      }
    }, 30_000)
  }
})
