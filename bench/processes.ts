// What the benchmarks share about the processes they start: ports, readiness, memory, and how the
// hot-path benches configure the service and sign its admin in.

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { signSessionCookie } from '../src/session/cookie.ts'

/** A loopback port that was free a moment ago. */
export function freePort(): number {
  const server = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = server.port
  server.stop(true)
  return port
}

/** The port of a fixture that prints `listening <port>` as its first line. */
export async function listeningPort(stream: ReadableStream<Uint8Array>): Promise<number> {
  const reader = stream.getReader()
  let text = ''
  while (!text.includes('\n')) {
    const { value, done } = await reader.read()
    if (done) break
    text += new TextDecoder().decode(value)
  }
  reader.releaseLock()
  return Number(text.trim().split(' ')[1])
}

export async function waitFor200(url: string, deadlineMs = 15_000): Promise<void> {
  const until = performance.now() + deadlineMs
  for (;;) {
    try {
      if ((await fetch(url)).status === 200) return
    } catch {}
    if (performance.now() > until) throw new Error(`${url} never answered 200`)
    await Bun.sleep(1)
  }
}

/** Resident memory now (VmRSS) or at its peak (VmHWM), in MiB. */
export function memoryMiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(status.match(new RegExp(`${field}:\\s+(\\d+) kB`))?.[1] ?? Number.NaN) / 1024
}

/**
 * The service as the hot-path benches run it: a throw-away database under `dir`, the bench upstream
 * (`fixtures/upstream-server.ts`) behind both identity prefixes (it answers every path with its
 * small JSON, so it also confirms the identity), login pointed at nothing, the request log on.
 */
export function serviceEnvironment(options: { dir: string; port: number; upstreamPort: number; signingKey: Uint8Array }): Record<string, string> {
  const upstream = `http://127.0.0.1:${options.upstreamPort}`
  return {
    PATH: process.env.PATH ?? '',
    SESSION_SIGNING_KEY: Buffer.from(options.signingKey).toString('base64'),
    DATABASE_PATH: join(options.dir, 'db', 'bench.db'),
    PORT: String(options.port),
    BASE_URL: `http://127.0.0.1:${options.port}`,
    OAUTH_ISSUER_URL: 'http://127.0.0.1:9',
    OAUTH_CLIENT_ID: 'bench',
    IDP_PUBLIC_URL: upstream,
    IDP_ADMIN_URL: upstream,
    LOG_LEVEL: 'info',
  }
}

/** A Cookie header with a valid admin session for the service started with `signingKey`. */
export function adminCookie(signingKey: Uint8Array): string {
  const now = Math.floor(Date.now() / 1000)
  const session = { v: 1 as const, sid: 'bench', sub: '7f0c2a3e-1b4d-4c5e-9f6a-0b1c2d3e4f50', email: 'a@example.test', role: 'admin' as const, iat: now, exp: now + 3600 }
  return `admin-session=${signSessionCookie(signingKey, session)}`
}
