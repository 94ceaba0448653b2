// The compiled executable, run for real: starts, serves, refuses bad keys, drains on SIGTERM.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { chmodSync, chownSync, closeSync, constants, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KratosFixture } from './support/kratos.ts'
import { randomKey } from './support/service.ts'
import { fetchChecked, inspectOutput, runToEnd, startProcess } from './support/process.ts'
import { freePort } from './support/ports.ts'
import { signSessionCookie } from '../src/session/cookie.ts'
import { decodeBase64Key } from '../src/config.ts'
import { LOG_BUFFER_BYTES } from '../src/log.ts'
import { leakProblems, markSecret } from './support/leaks.ts'
import { within } from './support/eventually.ts'
import { rawRequest, rawSend } from './support/raw-http.ts'
import { RawListener } from './support/upstream.ts'
import { corpusCases, inPool, runCase } from './support/host-corpus.ts'

const dir = mkdtempSync(join(tmpdir(), 'admin-dashboard-binary-'))
const binary = join(dir, 'admin-dashboard')
const workdir = join(dir, 'work')

beforeAll(async () => {
  const build = await runToEnd(['bun', 'build.ts'], { OUTFILE: binary, HOME: process.env.HOME }, { cwd: join(import.meta.dir, '..') })
  if (build.code !== 0) throw new Error(`build failed: ${build.stderr}`)
  // A working directory with a .env and a bunfig.toml that must be ignored at run time.
  await Bun.write(join(workdir, '.env'), `SESSION_SIGNING_KEY=${randomKey()}\nPORT=1\n`)
  writeFileSync(join(workdir, 'bunfig.toml'), 'preload = ["./evil.ts"]\n')
  writeFileSync(join(workdir, 'evil.ts'), 'console.log("EVIL PRELOAD RAN")\n')
}, 120_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const loginEnv = { BASE_URL: 'https://admin.example.test', OAUTH_ISSUER_URL: 'https://issuer.example.test', OAUTH_CLIENT_ID: 'admin-dashboard' }

describe('the compiled binary', () => {
  test('--version and --help', async () => {
    const version = await runToEnd([binary, '--version'], {})
    expect(version.code).toBe(0)
    // The package's version and the commit built, so that two builds of one version tell apart.
    const head = await runToEnd(['git', 'rev-parse', '--short=12', 'HEAD'], {}, { cwd: join(import.meta.dir, '..') })
    expect(head.code).toBe(0)
    expect(version.stdout.trim()).toMatch(new RegExp(`^\\d+\\.\\d+\\.\\d+\\+${head.stdout.trim()}(\\.dirty)?$`))
    const help = await runToEnd([binary, '--help'], {})
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('check-config')
  })

  test('refuses a missing signing key, and does not read the .env beside it', async () => {
    const result = await runToEnd([binary], { DATABASE_PATH: join(dir, 'db1', 'a.db') }, { cwd: workdir })
    expect(result.code).not.toBe(0)
    expect(result.stderr).toContain('SESSION_SIGNING_KEY')
    expect(result.stdout + result.stderr).not.toContain('EVIL PRELOAD RAN')
  })

  test('refuses a short or undecodable signing key without printing it', async () => {
    for (const value of [Buffer.alloc(16, 9).toString('base64'), 'this is not base64 !!']) {
      const result = await runToEnd([binary, 'serve'], { SESSION_SIGNING_KEY: value, DATABASE_PATH: join(dir, 'db2', 'a.db') })
      expect(result.code).not.toBe(0)
      expect(result.stderr).toContain('SESSION_SIGNING_KEY')
      expect(result.stderr).not.toContain(value)
    }
  })

  test('refuses ENCRYPTION_KEY equal to the signing key', async () => {
    const key = randomKey()
    const result = await runToEnd([binary, 'check-config'], { SESSION_SIGNING_KEY: key, ENCRYPTION_KEY: key })
    expect(result.code).not.toBe(0)
    expect(result.stderr).toContain('ENCRYPTION_KEY')
    expect(result.stderr).not.toContain(key)
  })

  test('refuses ENCRYPTION_KEY_PREVIOUS equal to ENCRYPTION_KEY: check-config and settings reencrypt exit 1 naming both, never the key', async () => {
    const key = randomKey()
    const env = { SESSION_SIGNING_KEY: randomKey(), ENCRYPTION_KEY: key, ENCRYPTION_KEY_PREVIOUS: key, DATABASE_PATH: join(dir, 'same-keys', 'a.db') }
    expect((await runToEnd([binary, 'settings', 'set', 'probe.secret', '--encrypted'], { ...env, ENCRYPTION_KEY_PREVIOUS: undefined }, { stdin: 'v' })).code).toBe(0)
    const refusal = 'ENCRYPTION_KEY_PREVIOUS must differ from ENCRYPTION_KEY: it is the other key of a rotation (leave it unset when no rotation is under way)\n'
    for (const [args, stderr] of [
      // Every command writes the refusal alike: the list indented under its heading.
      [['check-config'], `admin-dashboard: invalid configuration:\n  ${refusal}`],
      [['serve'], `admin-dashboard: invalid configuration:\n  ${refusal}`],
      [['settings', 'reencrypt'], `admin-dashboard: invalid configuration:\n  ${refusal}`],
    ] as const) {
      const result = await runToEnd([binary, ...args], env)
      expect({ args, ...result }).toEqual({ args, code: 1, stdout: '', stderr })
      expect(result.stderr).not.toContain(key)
    }
  })

  test('check-config says what is missing, by name', async () => {
    const result = await runToEnd([binary, 'check-config'], { SESSION_SIGNING_KEY: randomKey(), DATABASE_PATH: join(dir, 'db3', 'a.db') })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('OAUTH_ISSUER_URL')
  })

  test('check-config names a variable set under a misspelt name, and the one it was meant for; never its value', async () => {
    const env = { ...loginEnv, SESSION_SIGNING_KEY: randomKey(), ENCRYPTION_KEY: randomKey(), DATABASE_PATH: join(dir, 'db-notes', 'a.db'), OAUTH_CLIENTID: 'secret-looking-value', DATABSE_URL: 'postgres://u:p@db/x', HTTPS_PROXY: 'http://127.0.0.1:9', NODE_ENV: 'develop' }
    const result = await runToEnd([binary, 'check-config'], env)
    expect(result.code).toBe(0)
    const notes = result.stdout.split('\n').filter((line) => line.startsWith('note:') && !line.includes('DATABASE_PATH'))
    expect(notes).toEqual([
      'note: OAUTH_CLIENTID is not read by this service; did you mean OAUTH_CLIENT_ID?',
      'note: DATABSE_URL is not read by this service; did you mean DATABASE_URL?',
      'note: NODE_ENV is neither production nor development: it is taken as production (only development changes anything)',
    ])
    expect(result.stdout).not.toContain('secret-looking-value')
  })

  test('check-config before the first start (no database yet) is valid and notes that serve creates it, creating nothing; serve then creates it', async () => {
    const dbDir = join(dir, 'first-install')
    const path = join(dbDir, 'admin-dashboard.db')
    const env = { ...loginEnv, SESSION_SIGNING_KEY: randomKey(), ENCRYPTION_KEY: randomKey(), DATABASE_PATH: path }
    const first = await runToEnd([binary, 'check-config'], env)
    expect(first).toEqual({
      code: 0,
      stdout: `configuration valid\nnote: DATABASE_PATH: there is no database at ${path} yet; \`serve\` (or \`settings set\`) creates it\n`,
      stderr: '',
    })
    expect(existsSync(dbDir)).toBe(false)
    const service = await startProcess([binary], env)
    service.child.kill('SIGTERM')
    expect(await service.exited).toBe(0)
    expect(existsSync(path)).toBe(true)
    expect(await runToEnd([binary, 'check-config'], env)).toEqual({ code: 0, stdout: 'configuration valid\n', stderr: '' })
  })

  test('check-config notes a GEOIP_DATABASE_PATH it cannot read (the embedded database answers then), and that only the previous key can only read', async () => {
    const missing = join(dir, 'geo', 'city.mmdb')
    const notMmdb = join(dir, 'geo-text.mmdb')
    writeFileSync(notMmdb, 'not a MaxMind database')
    const previous = randomKey()
    const expectations = [
      [missing, 'note: GEOIP_DATABASE_PATH cannot be read as an MMDB database (ENOENT); the embedded database answers instead'],
      [notMmdb, 'note: GEOIP_DATABASE_PATH cannot be read as an MMDB database'],
    ] as const
    for (const [path, note] of expectations) {
      const result = await runToEnd([binary, 'check-config'], { ...loginEnv, SESSION_SIGNING_KEY: randomKey(), ENCRYPTION_KEY_PREVIOUS: previous, DATABASE_PATH: join(dir, 'db-geo', 'a.db'), GEOIP_DATABASE_PATH: path })
      expect(result.code).toBe(0)
      expect(result.stdout).toContain(note)
      expect(result.stdout).toContain('note: ENCRYPTION_KEY is not set; encrypted settings are read with ENCRYPTION_KEY_PREVIOUS, and none can be written\n')
      expect(result.stdout + result.stderr).not.toContain(path)
      expect(result.stdout + result.stderr).not.toContain(previous)
    }
    const written = await runToEnd([binary, 'settings', 'set', 'probe.secret', '--encrypted'], { SESSION_SIGNING_KEY: randomKey(), ENCRYPTION_KEY_PREVIOUS: previous, DATABASE_PATH: join(dir, 'db-geo', 'a.db') }, { stdin: 'v' })
    expect({ code: written.code, stderr: written.stderr }).toEqual({
      code: 1,
      stderr: 'admin-dashboard: ENCRYPTION_KEY is not set; encrypted values cannot be written (and, without ENCRYPTION_KEY_PREVIOUS, not read either)\n',
    })
  })

  test('refuses a corrupt database file with a clear message', async () => {
    const path = join(dir, 'corrupt.db')
    writeFileSync(path, 'this is not an sqlite database, just text '.repeat(200))
    const result = await runToEnd([binary], { SESSION_SIGNING_KEY: randomKey(), DATABASE_PATH: path })
    expect(result.code).not.toBe(0)
    expect(result.stderr).toContain('DATABASE_PATH')
  })

  test('serves /api/health (GET and HEAD), envelopes errors, and exits 0 on SIGTERM after draining', async () => {
    const kratos = new KratosFixture().start()
    const admin = kratos.addIdentity({ email: 'bin@example.test', role: 'admin' })
    const key = randomKey()
    const service = await startProcess([binary], {
      ...loginEnv,
      SESSION_SIGNING_KEY: key,
      DATABASE_PATH: join(dir, 'serve', 'a.db'),
      IDP_ADMIN_URL: kratos.url,
    }, workdir)
    try {
      const health = await service.fetch('/api/health')
      expect(health.status).toBe(200)
      expect(await health.json()).toEqual({ status: 'ok' })
      expect((await service.fetch('/api/health', { method: 'HEAD' })).status).toBe(200)
      const denied = await service.fetch('/api/settings')
      expect(denied.status).toBe(401)
      expect(leakProblems(401, denied.headers.get('content-type'), await denied.text())).toEqual([])

      // An in-flight request (the gate is waiting on a slow identity store) finishes after SIGTERM.
      kratos.delayMs = 700
      const now = Math.floor(Date.now() / 1000)
      const cookie = signSessionCookie(decodeBase64Key(key)!, { v: 1, sid: 's', sub: admin.id, email: 'bin@example.test', role: 'admin', iat: now, exp: now + 600 })
      markSecret(cookie)
      kratos.calls.length = 0
      const inFlight = service.fetch('/api/no-such-route', { headers: { cookie: `admin-session=${cookie}` } })
      // SIGTERM once the gate is waiting on the store for this request.
      expect(await within(5000, () => kratos.calls.some((call) => call.path.endsWith(admin.id)))).not.toBeNull()
      service.child.kill('SIGTERM')
      const answered = await inFlight
      expect(answered.status).toBe(404)
      expect(await service.exited).toBe(0)
      expect(service.stdout()).toContain('"event":"stopped"')
      expect(service.stdout()).not.toContain('EVIL PRELOAD RAN')
      expect(service.stdout()).not.toContain(cookie)
    } finally {
      service.child.kill('SIGKILL')
      await kratos.stop()
    }
  })
})

async function inBatches(total: number, width: number, send: (i: number) => Promise<number>): Promise<Map<number, number>> {
  const statuses = new Map<number, number>()
  for (let start = 0; start < total; start += width) {
    const answers = await Promise.all(Array.from({ length: Math.min(width, total - start) }, (_, k) => send(start + k)))
    for (const status of answers) statuses.set(status, (statuses.get(status) ?? 0) + 1)
  }
  return statuses
}

describe('the compiled binary and its log output', () => {
  test('stdout that nobody reads: requests keep being answered; past the bound of what waits for the output, request lines are dropped and counted, audit lines kept', async () => {
    const kratos = new KratosFixture().start()
    const admin = kratos.addIdentity({ email: 'stall@example.test', role: 'admin' })
    const key = randomKey()
    const port = freePort()
    const fifo = join(dir, 'stalled-stdout')
    expect((await runToEnd(['mkfifo', fifo], {})).code).toBe(0)
    // The reader opens the pipe and reads nothing until the end: the service's stdout is stalled.
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK)
    const child = Bun.spawn(['sh', '-c', 'exec "$0" > "$1"', binary, fifo], {
      env: { PATH: process.env.PATH!, ...loginEnv, SESSION_SIGNING_KEY: key, DATABASE_PATH: join(dir, 'stall', 'a.db'), IDP_ADMIN_URL: kratos.url, HOST: '127.0.0.1', PORT: String(port) },
      stdout: 'ignore',
      stderr: 'pipe',
    })
    markSecret(key)
    const errors = new Response(child.stderr).text()
    const base = `http://127.0.0.1:${port}`
    /** Requests the service answered: each has its line, or is counted among the dropped ones. */
    let answered = 0
    const get = async (path: string, init?: RequestInit) => {
      const response = await fetchChecked(`${base}${path}`, init)
      answered++
      return response
    }
    try {
      expect(await within(10_000, async () => (await get('/api/health').catch(() => null))?.status === 200)).not.toBeNull()
      const total = 40_000
      const statuses = await inBatches(total, 64, async () => (await get(`/api/health?padding=${'p'.repeat(200)}`)).status)
      expect(statuses).toEqual(new Map([[200, total]]))
      const now = Math.floor(Date.now() / 1000)
      const cookie = signSessionCookie(decodeBase64Key(key)!, { v: 1, sid: 'stall', sub: admin.id, email: 'stall@example.test', role: 'admin', iat: now, exp: now + 600 })
      markSecret(cookie)
      for (let i = 0; i < 3; i++) expect((await get('/api/identities?page_size=1', { headers: { cookie: `admin-session=${cookie}` } })).status).toBe(200)

      // Now read everything; a request after the backlog drained reports the drops.
      const chunks: Buffer[] = []
      const buffer = Buffer.alloc(1 << 16)
      /** Reads until nothing more has come for 300 ms (at most 10 s). */
      const drain = async () => {
        const until = Date.now() + 10_000
        let quietSince = Date.now()
        while (Date.now() < until && Date.now() - quietSince < 300) {
          let n = 0
          try {
            n = readSync(reader, buffer)
          } catch {
            n = 0
          }
          if (n > 0) {
            chunks.push(Buffer.from(buffer.subarray(0, n)))
            quietSince = Date.now()
          } else await Bun.sleep(20)
        }
      }
      const reported = () => Buffer.concat(chunks).includes('"log_lines_dropped"')
      await drain()
      for (let tries = 0; tries < 20 && !reported(); tries++) {
        expect((await get('/api/health')).status).toBe(200)
        await drain()
      }
      const output = Buffer.concat(chunks)
      inspectOutput(output.toString('utf8'), 'service process stdout')
      const lines = output.toString('utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>)
      const dropped = lines.filter((line) => line.event === 'log_lines_dropped').reduce((sum, line) => sum + (line.count as number), 0)
      const requestLines = lines.filter((line) => line.event === 'request').length
      expect(dropped).toBeGreaterThan(0)
      // Every request is accounted for once: logged, or counted as dropped.
      expect(requestLines + dropped).toBeGreaterThanOrEqual(total + 3)
      expect(requestLines + dropped).toBeLessThanOrEqual(answered)
      // The lines before the first count are those that waited while nobody read: what the pipe
      // holds (a pipe holds at most pipe-max-size; nothing here makes it larger) and what the log
      // keeps in memory, at most LOG_BUFFER_BYTES. A log that kept every line would have written
      // them all instead, and no count.
      const pipeHoldsAtMost = Number(readFileSync('/proc/sys/fs/pipe-max-size', 'utf8'))
      const firstCount = output.indexOf('"event":"log_lines_dropped"')
      expect(output.lastIndexOf('\n', firstCount) + 1).toBeLessThanOrEqual(LOG_BUFFER_BYTES + pipeHoldsAtMost)
      expect(lines.filter((line) => line.event === 'audit' && line.action === 'identity_search')).toHaveLength(3)
    } finally {
      child.kill('SIGKILL')
      await child.exited
      closeSync(reader)
      await kratos.stop()
      inspectOutput(await errors, 'service process stderr')
    }
  }, 120_000)

  // SIGHUP (the terminal or session went away) stops as gracefully as SIGTERM.
  for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
    test(`${signal} right after a burst: every request line reaches the output before the process ends`, async () => {
      const service = await startProcess([binary], { ...loginEnv, SESSION_SIGNING_KEY: randomKey(), DATABASE_PATH: join(dir, `burst-${signal}`, 'a.db') })
      const total = 300
      await inBatches(total, 30, async () => (await service.fetch('/api/health')).status)
      service.child.kill(signal)
      expect(await service.exited).toBe(0)
      const lines = service.stdout().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>)
      expect(lines.filter((line) => line.event === 'request')).toHaveLength(total)
      expect(lines.find((line) => line.event === 'stopping')?.signal).toBe(signal)
      expect(lines.at(-1)?.event).toBe('stopped')
    })
  }

  // Stdout appended to a file (`>> service.log`): the lines are written off the thread that serves
  // requests, in order, and every one of them is in the file when the process has exited.
  test('stdout to a file: every request line of a burst is in the file, whole and in order, after SIGTERM', async () => {
    const logFile = join(dir, 'file-stdout.log')
    writeFileSync(logFile, '{"before":"the service"}\n')
    const port = freePort()
    const out = openSync(logFile, 'a')
    const key = randomKey()
    markSecret(key)
    const child = Bun.spawn([binary, 'serve'], {
      env: { PATH: process.env.PATH, ...loginEnv, PORT: String(port), SESSION_SIGNING_KEY: key, DATABASE_PATH: join(dir, 'file-stdout', 'a.db') } as Record<string, string>,
      stdin: 'ignore',
      stdout: out,
      stderr: 'pipe',
    })
    closeSync(out)
    const errors = new Response(child.stderr).text()
    try {
      const base = `http://127.0.0.1:${port}`
      expect(await within(10_000, async () => (await fetchChecked(`${base}/api/health`).catch(() => null))?.status === 200)).not.toBeNull()
      // Enough lines for many 64 KiB writes.
      const total = 4000
      await inBatches(total, 64, async (i) => (await fetchChecked(`${base}/api/health?n=${i}&padding=${'p'.repeat(100)}`)).status)
      child.kill('SIGTERM')
      expect(await child.exited).toBe(0)
      const text = readFileSync(logFile, 'utf8')
      inspectOutput(text, 'service process stdout')
      inspectOutput(await errors, 'service process stderr')
      expect(text.endsWith('\n')).toBe(true)
      const lines = text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>)
      expect(lines[0]).toEqual({ before: 'the service' })
      const requests = lines.filter((line) => line.event === 'request' && line.path === '/api/health')
      // The first probes may have come before the service listened; the burst's lines are all there.
      expect(requests.length).toBeGreaterThanOrEqual(total)
      expect(new Set(requests.map((line) => line.request_id)).size).toBe(requests.length)
      // Written in the order they were logged: their times never go back.
      const times = lines.filter((line) => typeof line.time === 'string').map((line) => Date.parse(line.time as string))
      expect(times.every((time, i) => i === 0 || time >= times[i - 1]!)).toBe(true)
      expect(lines.find((line) => line.event === 'stopping')?.signal).toBe('SIGTERM')
      expect(lines.at(-1)?.event).toBe('stopped')
    } finally {
      child.kill('SIGKILL')
    }
  }, 60_000)

  test("Bun's own refusals (oversized headers, broken framing) carry nothing of the request", async () => {
    const service = await startProcess([binary], { ...loginEnv, SESSION_SIGNING_KEY: randomKey(), DATABASE_PATH: join(dir, 'refusals', 'a.db') })
    try {
      const marker = 'REFLECTED-MARKER'
      const huge = await rawRequest(service.url, 'GET /api/health HTTP/1.1', { 'x-big': `${marker}${'a'.repeat(80_000)}` })
      expect(huge.status).toBe(431)
      const framing = await rawSend(service.url, `POST /api/health HTTP/1.1\r\nHost: x\r\nContent-Length: 12${marker}\r\n\r\n${marker}`)
      expect(framing.status).toBe(400)
      const conflicting = await rawSend(service.url, `POST /api/settings HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 7\r\nX-Probe: ${marker}\r\n\r\nhello`)
      expect(conflicting.status).toBe(400)
      for (const answer of [huge, framing, conflicting]) {
        expect(answer.body).not.toContain(marker)
        expect(JSON.stringify(answer.headers)).not.toContain(marker)
      }
    } finally {
      service.child.kill('SIGTERM')
      await service.exited
    }
  })
})

describe('the compiled binary as a proxy', () => {
  /** The field lines of the answer to a GET, read off the socket as the bytes they are (Latin-1: one character per byte). */
  const answerFields = (base: string, path: string) =>
    new Promise<string[]>((resolve, reject) => {
      const url = new URL(base)
      const socket = connect({ host: url.hostname, port: Number(url.port) }, () => socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n\r\n`))
      const chunks: Buffer[] = []
      socket.on('data', (chunk: Buffer) => chunks.push(chunk))
      socket.on('error', reject)
      socket.on('close', () => {
        const text = Buffer.concat(chunks).toString('latin1')
        resolve(text.slice(0, text.indexOf('\r\n\r\n')).split('\r\n').slice(1))
      })
    })

  test('bytes above 0x7F in an upstream header reach the client as they came, with either proxy client; a nameless Set-Cookie for our session does not', async () => {
    // obs-text (RFC 9110 §5.5): as UTF-8 of Latin-1 they would come out as C3 84 C2 8A and C3 BF.
    const fields = ['X-Two: \xc4\x8a', 'X-Ff: a\xffb', 'Set-Cookie: t=\xc4\x8a\xff; Path=/', 'Set-Cookie: =admin-session=forged; Path=/']
    const upstream = await RawListener.start('127.0.0.1', (socket) => void socket.once('data', () => socket.end(['HTTP/1.1 200 OK', ...fields, 'Content-Length: 2', 'Connection: close', '', 'ok'].join('\r\n'), 'latin1')))
    try {
      // HTTP_PROXY puts plain-HTTP upstreams on Bun's fetch; NO_PROXY has that fetch go straight to the upstream.
      for (const [client, env] of [['http1', {}], ['fetch', { HTTP_PROXY: 'http://127.0.0.1:9', NO_PROXY: '127.0.0.1' }]] as const) {
        const service = await startProcess([binary], { SESSION_SIGNING_KEY: randomKey(), DATABASE_PATH: join(dir, `obs-text-${client}`, 'a.db'), IDP_PUBLIC_URL: `http://127.0.0.1:${upstream.port}`, ...env })
        try {
          const relayed = (await answerFields(service.url, '/api/idp/x')).filter((line) => /^(x-two|x-ff|set-cookie):/i.test(line)).sort()
          expect([client, relayed]).toEqual([client, ['set-cookie: t=\xc4\x8a\xff; Path=/', 'x-ff: a\xffb', 'x-two: \xc4\x8a']])
        } finally {
          service.child.kill('SIGTERM')
          await service.exited
        }
      }
    } finally {
      await upstream.stop()
    }
  })
})

describe('the compiled binary and file modes', () => {
  const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8)

  test('under umask 000 the database directory is 0700 and the database, WAL and SHM files 0600', async () => {
    const dbDir = join(dir, 'modes', 'state', 'nested')
    const dbPath = join(dbDir, 'admin-dashboard.db')
    const service = await startProcess(['sh', '-c', 'umask 000; exec "$0"', binary], { ...loginEnv, SESSION_SIGNING_KEY: randomKey(), DATABASE_PATH: dbPath, HOST: '127.0.0.1' })
    try {
      // A write, so that SQLite has its WAL and shared-memory files in use.
      const settings = await runToEnd(['sh', '-c', 'umask 000; exec "$0" settings set modes.probe', binary], { SESSION_SIGNING_KEY: randomKey(), DATABASE_PATH: dbPath }, { stdin: 'value' })
      expect(settings.code).toBe(0)
      expect((await service.fetch('/api/health')).status).toBe(200)
      for (const directory of [join(dir, 'modes'), join(dir, 'modes', 'state'), dbDir]) expect(modeOf(directory)).toBe('700')
      for (const file of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`]) {
        expect(existsSync(file)).toBe(true)
        expect(modeOf(file)).toBe('600')
      }
    } finally {
      service.child.kill('SIGTERM')
      await service.exited
    }
  })

  test('an existing world-readable database is tightened to 0600; an existing directory is left as the operator made it', async () => {
    const dbDir = join(dir, 'modes-existing')
    mkdirSync(dbDir, { mode: 0o755 })
    chmodSync(dbDir, 0o755)
    const dbPath = join(dbDir, 'a.db')
    writeFileSync(dbPath, '')
    chmodSync(dbPath, 0o644)
    const result = await runToEnd([binary, 'settings', 'list'], { SESSION_SIGNING_KEY: randomKey(), DATABASE_PATH: dbPath })
    expect(result.code).toBe(0)
    expect(modeOf(dbPath)).toBe('600')
    expect(modeOf(dbDir)).toBe('755')
  })
})

describe('the compiled binary and a database its user cannot write', () => {
  // Root writes through any mode: the commands run as an unprivileged user then (nobody), which
  // owns the database's directory, as the service's dynamic user owns its state directory.
  const asRoot = process.getuid?.() === 0
  const NOBODY = 65534
  const home = join(dir, 'unprivileged')
  const own = (path: string) => asRoot && chownSync(path, NOBODY, NOBODY)
  const run = (args: string[], env: Record<string, string>, stdin?: string) =>
    runToEnd([...(asRoot ? ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups'] : []), join(home, 'admin-dashboard'), ...args], env, stdin === undefined ? {} : { stdin })
  /** A database in a directory of its own under `home`, owned by that user, with one setting written. */
  const writtenDatabase = async (name: string) => {
    const dbDir = join(home, name)
    mkdirSync(dbDir, { mode: 0o700 })
    own(dbDir)
    const env = { SESSION_SIGNING_KEY: randomKey(), DATABASE_PATH: join(dbDir, 'a.db') }
    expect((await run(['settings', 'set', 'probe.before'], env, 'v1')).code).toBe(0)
    return { dbDir, env }
  }
  const CANNOT_WRITE = 'admin-dashboard: DATABASE_PATH: the database cannot be written (the file, its directory, or its -wal or -shm file is read-only for this user)\n'

  beforeAll(() => {
    // The executable where that user can run it (the test directory is the owner's alone).
    mkdirSync(home, { mode: 0o755 })
    chmodSync(dir, 0o711)
    chmodSync(home, 0o755)
    writeFileSync(join(home, 'admin-dashboard'), readFileSync(binary), { mode: 0o755 })
  })

  test('a read-only database file is refused at check-config and by the CLI, not opened for reading only; made writable again, it works, its -wal and -shm files included', async () => {
    const { env } = await writtenDatabase('readonly-file')
    chmodSync(env.DATABASE_PATH, 0o400)
    for (const args of [['check-config'], ['settings', 'set', 'probe.during'], ['settings', 'list']]) {
      const result = await run(args, env, 'v2')
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 1, stderr: CANNOT_WRITE })
    }
    // Nothing was opened for reading only, so nothing was made beside it.
    for (const suffix of ['-wal', '-shm', '-journal']) expect([suffix, existsSync(env.DATABASE_PATH + suffix)]).toEqual([suffix, false])
    // What a start that could only read leaves (an older executable did, or another SQLite tool
    // does): side files made with the database's mode, read-only too, that would stay so.
    for (const suffix of ['-wal', '-shm']) {
      writeFileSync(env.DATABASE_PATH + suffix, '')
      own(env.DATABASE_PATH + suffix)
      chmodSync(env.DATABASE_PATH + suffix, 0o400)
    }
    chmodSync(env.DATABASE_PATH, 0o600)
    expect((await run(['check-config'], env)).code).toBe(0)
    const written = await run(['settings', 'set', 'probe.after'], env, 'v3')
    expect({ code: written.code, stderr: written.stderr }).toEqual({ code: 0, stderr: '' })
    expect((await run(['settings', 'get', 'probe.after'], env)).stdout).toContain('v3')
    for (const suffix of ['', '-wal', '-shm']) {
      const file = env.DATABASE_PATH + suffix
      if (existsSync(file)) expect([suffix, (statSync(file).mode & 0o777).toString(8)]).toEqual([suffix, '600'])
    }
  }, 30_000)

  test('a database in a directory its user may not write, or a file it does not own, is said to be unwritable, never corrupt', async () => {
    const { dbDir, env } = await writtenDatabase('readonly-directory')
    chmodSync(dbDir, 0o500)
    try {
      const result = await run(['check-config'], env)
      expect({ code: result.code, corrupt: result.stderr.includes('corrupt'), stderr: result.stderr }).toEqual({ code: 1, corrupt: false, stderr: CANNOT_WRITE })
    } finally {
      chmodSync(dbDir, 0o700)
    }
    if (asRoot) {
      // Root's file, readable by everyone: the unprivileged user can read it, not write it.
      const shared = join(home, 'not-owned')
      mkdirSync(shared, { mode: 0o777 })
      chmodSync(shared, 0o777)
      const path = join(shared, 'a.db')
      expect((await runToEnd([binary, 'settings', 'set', 'probe.root'], { SESSION_SIGNING_KEY: randomKey(), DATABASE_PATH: path }, { stdin: 'v' })).code).toBe(0)
      chmodSync(path, 0o644)
      const result = await run(['check-config'], { SESSION_SIGNING_KEY: randomKey(), DATABASE_PATH: path })
      expect({ code: result.code, corrupt: result.stderr.includes('corrupt') }).toEqual({ code: 1, corrupt: false })
      expect(result.stderr).toStartWith('admin-dashboard: DATABASE_PATH: the database ')
    }
  }, 30_000)

  test('no database yet where its user cannot create one: check-config says so and exits 1, as serve would fail', async () => {
    const dbDir = join(home, 'not-creatable')
    mkdirSync(dbDir)
    chmodSync(dbDir, 0o555)
    for (const path of [join(dbDir, 'a.db'), join(dbDir, 'state', 'a.db')]) {
      const env = { SESSION_SIGNING_KEY: randomKey(), DATABASE_PATH: path }
      const checked = await run(['check-config'], env)
      expect({ code: checked.code, stdout: checked.stdout, stderr: checked.stderr }).toEqual({
        code: 1,
        stdout: '',
        stderr: `admin-dashboard: DATABASE_PATH: there is no database at ${path}, and this user cannot create one there (its directory cannot be made or written)\n`,
      })
      expect((await run(['serve'], env)).code).toBe(1)
    }
  }, 30_000)

  test('import-sqlite of a database in a directory its user may not write says why it cannot read it, not that it is corrupt', async () => {
    const { dbDir, env } = await writtenDatabase('import-source')
    const path = env.DATABASE_PATH
    for (const suffix of ['-wal', '-shm']) rmSync(path + suffix, { force: true })
    chmodSync(dbDir, 0o500)
    try {
      // Nothing listens on port 1: the file is read before the database is asked for anything.
      const result = await run(['import-sqlite', path], { SESSION_SIGNING_KEY: randomKey(), DATABASE_URL: 'postgres://u:p@127.0.0.1:1/db' })
      expect({ code: result.code, stderr: result.stderr }).toEqual({
        code: 1,
        stderr: 'admin-dashboard: the SQLite file cannot be read where it is: SQLite must write its -shm file beside it (copy the file, with its -wal file, to a directory this user can write)\n',
      })
    } finally {
      chmodSync(dbDir, 0o700)
    }
  }, 30_000)
})

describe('the compiled binary and its command line', () => {
  test('serve or check-config with an argument they do not take: the usage and exit code 2, nothing started', async () => {
    for (const args of [['serve', 'extra'], ['check-config', 'extra'], ['check-config', '--help']]) {
      const result = await runToEnd([binary, ...args], { SESSION_SIGNING_KEY: randomKey(), DATABASE_PATH: join(dir, 'usage', 'a.db') })
      expect({ args, code: result.code, usage: result.stderr.includes('Usage:') }).toEqual({ args, code: 2, usage: true })
    }
    expect(existsSync(join(dir, 'usage'))).toBe(false)
  })
})

describe('the compiled binary and odd Host headers (the Host-header corpus)', () => {
  test('the reported commands and the whole corpus answer 400, 401/403 or 404, never data', async () => {
    const kratos = new KratosFixture().start()
    const viewer = kratos.addIdentity({ email: 'viewer.bin@example.test', role: 'viewer' })
    const key = randomKey()
    const databasePath = join(dir, 'host', 'a.db')
    const env = { ...loginEnv, SESSION_SIGNING_KEY: key, DATABASE_PATH: databasePath, IDP_ADMIN_URL: kratos.url }
    markSecret('secret-in-plain')
    const stored = await runToEnd([binary, 'settings', 'set', 'smtp.password'], env, { stdin: 'secret-in-plain' })
    expect(stored.code).toBe(0)
    const service = await startProcess([binary], env, workdir)
    try {
      const now = Math.floor(Date.now() / 1000)
      const cookie = signSessionCookie(decodeBase64Key(key)!, { v: 1, sid: 'v', sub: viewer.id, email: 'viewer.bin@example.test', role: 'viewer', iat: now, exp: now + 600 })
      markSecret(cookie)
      const reported = [
        'GET /xy/api/settings HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n',
        'GET /x/api/security/audit?limit=1 HTTP/1.1\r\nHost: abc\r\nConnection: close\r\n\r\n',
        'POST /x/api/encrypt HTTP/1.1\r\nHost: abc\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n{"value":"x"}',
        'GET /api/settings HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n',
        'GET /api/config HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n',
      ]
      for (const text of reported) {
        const response = await rawSend(service.url, text)
        expect([400, 401, 403, 404]).toContain(response.status)
        expect(leakProblems(response.status, response.headers['content-type'] ?? null, response.body)).toEqual([])
        expect(response.body).not.toContain('secret-in-plain')
      }
      const baseline = (method: string, path: string, caller: 'anonymous' | 'viewer', body: string) => {
        const headers: Record<string, string> = caller === 'viewer' ? { cookie: `admin-session=${cookie}` } : {}
        if (body) headers['content-type'] = 'application/json'
        return rawRequest(service.url, `${method} ${path} HTTP/1.1`, headers, body)
      }
      const cases = corpusCases()
      const outcomes = await inPool(cases, 16, (item) => runCase(service.url, item, { viewer: `admin-session=${cookie}` }, baseline))
      const problems = outcomes.flatMap((outcome, index) => {
        const item = cases[index]!
        const found = outcome.problem ? [outcome.problem] : []
        if (outcome.response.status >= 400 && outcome.response.body !== '') {
          found.push(...leakProblems(outcome.response.status, outcome.response.headers['content-type'] ?? null, outcome.response.body))
        }
        if (outcome.response.body.includes('secret-in-plain')) found.push('a setting value')
        return found.map((problem) => `${item.variant.name} ${item.route.method} ${item.prefix}${item.route.path} (${item.caller}): ${problem}`)
      })
      expect(problems.slice(0, 20)).toEqual([])
      expect(service.stdout()).not.toContain('handler_without_session')
    } finally {
      service.child.kill('SIGKILL')
      await service.exited
      await kratos.stop()
    }
  }, 120_000)
})
