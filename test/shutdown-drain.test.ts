// SIGTERM waits for in-flight requests, but not forever: after the drain timeout (10 s) the
// connections are closed. A request cut that way still gets its one log line, saying so
// (`cut: "shutdown"`), written before the process ends.

import { afterAll, describe, expect, test } from 'bun:test'
import type { Socket } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KratosFixture } from './support/kratos.ts'
import { markSensitive } from './support/leaks.ts'
import { randomKey, startService } from './support/service.ts'
import { startProcess } from './support/process.ts'
import { RawListener } from './support/upstream.ts'
import { within } from './support/eventually.ts'

const MAIN = join(import.meta.dir, '..', 'src', 'main.ts')
const dir = mkdtempSync(join(tmpdir(), 'admin-dashboard-drain-'))
const listeners: RawListener[] = []
afterAll(async () => {
  for (const listener of listeners) await listener.stop()
  rmSync(dir, { recursive: true, force: true })
})

type Line = Record<string, unknown>
const parse = (lines: string[]): Line[] => lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Line)
const requestLinesFor = (lines: Line[], path: string) => lines.filter((line) => line.event === 'request' && line.path === path)

/** An upstream that reads the request and never answers; the sockets are kept to answer later. */
async function silentUpstream(): Promise<{ url: string; held: Socket[] }> {
  const held: Socket[] = []
  const listener = await RawListener.start('127.0.0.1', (socket) => socket.once('data', () => held.push(socket)))
  listeners.push(listener)
  markSensitive(String(listener.port))
  return { url: `http://127.0.0.1:${listener.port}`, held }
}

/** An upstream that sends its head and 64 KiB of a 1 MB body, then nothing more. */
async function stallingUpstream(): Promise<string> {
  const listener = await RawListener.start('127.0.0.1', (socket) =>
    socket.once('data', () => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\ncontent-length: 1000000\r\n\r\n')
      socket.write(Buffer.alloc(64 * 1024, 1))
    }),
  )
  listeners.push(listener)
  markSensitive(String(listener.port))
  return `http://127.0.0.1:${listener.port}`
}

describe('the drain gives up (its timeout shortened to 300 ms)', () => {
  test('an unanswered request is logged with status 0 and cut: shutdown, a streaming one with its status, body incomplete and its bytes; each once, before stop() returns', async () => {
    const kratos = new KratosFixture().start()
    const admin = kratos.addIdentity({ email: 'drain.admin@example.test', role: 'admin' })
    markSensitive(admin.id, kratos.url)
    const silent = await silentUpstream()
    const service = await startService({
      drainTimeoutMs: 300,
      env: {
        // The admins live in the fixture; the managed store (an admin proxy prefix) never answers.
        IAM_IDP_ADMIN_URL: kratos.url,
        IDP_ADMIN_URL: silent.url,
        OAUTH_PUBLIC_URL: await stallingUpstream(),
        PROXY_TIMEOUT_MS: '60000',
      },
    })
    let stopped = false
    try {
      const cookie = `admin-session=${service.sign({ sub: admin.id, role: 'admin' })}`
      const unanswered = fetch(`${service.url}/api/idp-admin/admin/identities`, { headers: { cookie } }).then(
        (response) => `answered ${response.status}`,
        () => 'connection closed',
      )
      const streaming = await fetch(`${service.url}/api/oauth/big-file`)
      expect(streaming.status).toBe(200)
      const reader = streaming.body!.getReader()
      expect((await reader.read()).done).toBe(false)
      expect(await within(5000, () => silent.held.length === 1)).not.toBeNull()

      await service.stop({ keepDir: true })
      stopped = true
      // Written before stop() returned: `serve` flushes the log right after it.
      const lines = parse(service.logLines)
      expect(lines.find((line) => line.event === 'drain_timeout')).toMatchObject({ level: 'warn', timeout_ms: 300, in_flight: 2 })
      const [cut] = requestLinesFor(lines, '/api/idp-admin/admin/identities')
      expect(cut).toMatchObject({ level: 'info', method: 'GET', status: 0, subject: admin.id, cut: 'shutdown' })
      expect(cut!.request_id).toMatch(/^[0-9a-f-]{36}$/)
      expect(cut!.duration_ms as number).toBeGreaterThanOrEqual(300)
      const [stream] = requestLinesFor(lines, '/api/oauth/big-file')
      expect(stream).toMatchObject({ level: 'info', method: 'GET', status: 200, body: 'incomplete', cut: 'shutdown' })
      expect(stream!.body_bytes as number).toBeGreaterThan(0)
      expect(stream!.body_bytes as number).toBeLessThan(1_000_000)
      expect(await unanswered).toBe('connection closed')
      await reader.read().catch(() => null)

      // The upstream answers after all: that answer goes to no one and gets no second line.
      silent.held[0]!.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n[]')
      await Bun.sleep(200)
      expect(requestLinesFor(parse(service.logLines), '/api/idp-admin/admin/identities')).toHaveLength(1)
      expect(requestLinesFor(parse(service.logLines), '/api/oauth/big-file')).toHaveLength(1)
    } finally {
      if (!stopped) await service.stop({ keepDir: true })
      await kratos.stop()
      rmSync(service.dir, { recursive: true, force: true })
    }
  }, 30_000)

  test('requests that finish within the drain are logged as usual, without cut', async () => {
    const service = await startService({ drainTimeoutMs: 5000 })
    const answered = await fetch(`${service.url}/api/health`)
    expect(answered.status).toBe(200)
    await service.stop()
    const lines = parse(service.logLines)
    expect(lines.some((line) => line.event === 'drain_timeout')).toBe(false)
    const [health] = requestLinesFor(lines, '/api/health')
    expect(health).toMatchObject({ status: 200 })
    expect(health!.cut).toBeUndefined()
  })
})

describe('SIGTERM to the process, with the real 10 s drain', () => {
  test('a request still waiting on its upstream after 10 s gets its line (status 0, cut: shutdown) before "stopped", and the process exits 0', async () => {
    const silent = await silentUpstream()
    const service = await startProcess(['bun', MAIN, 'serve'], {
      SESSION_SIGNING_KEY: randomKey(),
      DATABASE_PATH: join(dir, 'process.db'),
      IDP_PUBLIC_URL: silent.url,
      // Longer than the drain: the upstream call itself does not give up first.
      PROXY_TIMEOUT_MS: '60000',
      HOME: process.env.HOME,
    })
    const pending = service.fetch('/api/idp/self-service/login/browser').then(
      (response) => `answered ${response.status}`,
      () => 'connection closed',
    )
    expect(await within(5000, () => silent.held.length === 1)).not.toBeNull()
    service.child.kill('SIGTERM')
    expect(await service.exited).toBe(0)
    expect(await pending).toBe('connection closed')
    expect(await within(2000, () => service.stdout().includes('"event":"stopped"'))).not.toBeNull()

    const lines = parse(service.stdout().split('\n'))
    const events = lines.map((line) => (line.event === 'request' ? `request ${line.path}` : line.event))
    expect(events.slice(events.indexOf('stopping'))).toEqual(['stopping', 'drain_timeout', 'request /api/idp/self-service/login/browser', 'stopped'])
    expect(requestLinesFor(lines, '/api/idp/self-service/login/browser')[0]).toMatchObject({ method: 'GET', status: 0, cut: 'shutdown' })
  }, 30_000)
})
