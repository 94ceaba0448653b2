// A throw-away PostgreSQL cluster for the tests: initdb into a temporary directory, the server on
// a free loopback port with its unix socket in that directory, password (SCRAM) logins over TCP.
// PostgreSQL refuses to run as root, so under root the cluster belongs to the `postgres` user (or
// `nobody`) and its programs run through `setpriv`. When PostgreSQL is not installed this throws:
// a test that needs it fails, it is never skipped (scripts/setup --test installs it).

import type { Subprocess } from 'bun'
import { SQL } from 'bun'
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { freePort } from './ports.ts'

export interface PostgresCluster {
  /** The superuser's URL of the `postgres` database (TCP, with the password). */
  readonly adminUrl: string
  readonly port: number
  readonly password: string
  readonly user: string
  /** A new, empty database; its URL. */
  createDatabase(name?: string): Promise<string>
  /** Fast shutdown (the data stays): for outage tests. */
  stop(): Promise<void>
  /** Starts the stopped server again on the same port. */
  start(): Promise<void>
  readonly running: boolean
  /** Stops the server and removes the directory. */
  destroy(): Promise<void>
}

export interface PostgresOptions {
  /** Serve TLS with a fresh self-signed certificate (its path in `certificatePath`). */
  tls?: boolean
}

const live = new Set<Subprocess>()
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL')
})

/** The directory of initdb/postgres: PG_BIN, else the newest /usr/lib/postgresql/<version>/bin. */
export function postgresBinDir(): string {
  const fromEnv = process.env.PG_BIN
  if (fromEnv && existsSync(join(fromEnv, 'initdb'))) return fromEnv
  const root = '/usr/lib/postgresql'
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((name) => /^\d+$/.test(name) && existsSync(join(root, name, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : []
  if (versions.length === 0) {
    throw new Error('PostgreSQL is not installed (no /usr/lib/postgresql/<version>/bin/initdb): run scripts/setup --test')
  }
  return join(root, versions[0]!, 'bin')
}

interface RunAs {
  uid: number
  gid: number
  /** Prefix that runs a program as that user (empty when we are not root). */
  prefix: string[]
}

function runAs(): RunAs {
  const me = userInfo()
  if (me.uid !== 0) return { uid: me.uid, gid: me.gid, prefix: [] }
  for (const name of ['postgres', 'nobody']) {
    const id = Bun.spawnSync(['id', '-u', name])
    const gid = Bun.spawnSync(['id', '-g', name])
    if (id.exitCode !== 0 || gid.exitCode !== 0) continue
    const uid = Number(id.stdout.toString().trim())
    const group = Number(gid.stdout.toString().trim())
    return { uid, gid: group, prefix: ['setpriv', `--reuid=${uid}`, `--regid=${group}`, '--clear-groups'] }
  }
  throw new Error('running as root, and neither a postgres nor a nobody user exists to own the test cluster')
}

async function run(cmd: string[], what: string): Promise<void> {
  const child = Bun.spawn(cmd, { stdout: 'pipe', stderr: 'pipe', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' } })
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  if (code !== 0) throw new Error(`${what} failed (${code}): ${out}${err}`)
}

export async function startPostgres(options: PostgresOptions = {}): Promise<PostgresCluster & { certificatePath: string | null }> {
  const bin = postgresBinDir()
  const owner = runAs()
  const dir = mkdtempSync(join(tmpdir(), 'admin-dashboard-pg-'))
  chownSync(dir, owner.uid, owner.gid)
  chmodSync(dir, 0o700)
  const data = join(dir, 'data')
  const user = 'tester'
  const password = Buffer.from(crypto.getRandomValues(new Uint8Array(18))).toString('base64url')
  const pwfile = join(dir, 'pwfile')
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 })
  chownSync(pwfile, owner.uid, owner.gid)
  await run(
    [...owner.prefix, join(bin, 'initdb'), '-D', data, '-U', user, `--pwfile=${pwfile}`, '--auth-local=trust', '--auth-host=scram-sha-256', '-E', 'UTF8', '--locale=C', '--no-instructions', '--no-sync'],
    'initdb',
  )
  rmSync(pwfile)

  let certificatePath: string | null = null
  const extra: string[] = []
  if (options.tls) {
    certificatePath = join(dir, 'server.crt')
    const key = join(dir, 'server.key')
    await run(
      ['openssl', 'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', certificatePath],
      'openssl',
    )
    for (const file of [key, certificatePath]) chownSync(file, owner.uid, owner.gid)
    chmodSync(key, 0o600)
    extra.push('-c', 'ssl=on', '-c', `ssl_cert_file=${certificatePath}`, '-c', `ssl_key_file=${key}`)
  }

  let port = freePort()
  let child: Subprocess | null = null

  const start = async (): Promise<void> => {
    const proc = Bun.spawn(
      [
        ...owner.prefix,
        join(bin, 'postgres'),
        '-D', data,
        '-p', String(port),
        '-k', dir,
        '-c', 'listen_addresses=127.0.0.1',
        '-c', 'fsync=off',
        '-c', 'full_page_writes=off',
        '-c', 'shared_buffers=32MB',
        '-c', 'max_connections=300',
        ...extra,
      ],
      { stdout: 'ignore', stderr: 'pipe', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' } },
    )
    live.add(proc)
    child = proc
    let log = ''
    const logged = (async () => {
      const decoder = new TextDecoder()
      for await (const chunk of proc.stderr as ReadableStream<Uint8Array>) log = (log + decoder.decode(chunk)).slice(-20_000)
    })().catch(() => {})
    const deadline = performance.now() + 20_000
    for (;;) {
      if (proc.exitCode !== null) {
        await logged
        throw new Error(`postgres exited at start: ${log}`)
      }
      const ready = Bun.spawnSync([join(bin, 'pg_isready'), '-q', '-h', '127.0.0.1', '-p', String(port)])
      if (ready.exitCode === 0) return
      if (performance.now() > deadline) throw new Error(`postgres did not become ready: ${log}`)
      await Bun.sleep(50)
    }
  }

  const stop = async (): Promise<void> => {
    const proc = child
    if (!proc) return
    child = null
    proc.kill('SIGINT') // fast shutdown: clients are disconnected, the data is kept
    await proc.exited
    live.delete(proc)
  }

  // The port was let go before postgres binds it; another process (an outgoing connection takes
  // its local port from the same range) may have taken it in between. Then try another.
  for (let attempt = 1; ; attempt++) {
    try {
      await start()
      break
    } catch (error) {
      if (attempt === 3 || !/already in use/.test(String(error))) throw error
      port = freePort()
    }
  }
  const adminUrl = `postgres://${user}:${password}@127.0.0.1:${port}/postgres`
  let counter = 0

  return {
    adminUrl,
    port,
    password,
    user,
    certificatePath,
    get running() {
      return child !== null
    },
    async createDatabase(name = `test_${process.pid}_${++counter}_${Date.now().toString(36)}`) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error('database name must be a plain identifier')
      const admin = new SQL(adminUrl, { max: 1 })
      try {
        await admin.unsafe(`CREATE DATABASE ${name}`)
      } finally {
        await admin.close()
      }
      return `postgres://${user}:${password}@127.0.0.1:${port}/${name}`
    },
    stop,
    start: () => (child ? Promise.resolve() : start()),
    async destroy() {
      await stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
