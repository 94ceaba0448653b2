// Runs Debian's wrk against a URL and reads its summary (requests/s, latency percentiles).

import { rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface WrkResult {
  requestsPerSecond: number
  requests: number
  p50ms: number
  p99ms: number
  /** Non-2xx/3xx answers plus socket timeouts: a run with any is not a measurement of success. */
  errors: number
}

export interface WrkOptions {
  connections: number
  seconds: number
  threads?: number
  headers?: Record<string, string>
  /** A wrk Lua script (e.g. to vary the path or send bodies). */
  script?: string
}

export function wrkPath(): string {
  const path = Bun.which('wrk')
  if (!path) throw new Error('wrk is not installed: apt-get install wrk (scripts/setup --test installs it)')
  return path
}

/** wrk prints durations like `412.00us`, `1.20ms`, `1.01s`. */
function toMs(value: string): number {
  const match = value.match(/^([\d.]+)(us|ms|s)$/)
  if (!match) return Number.NaN
  const n = Number(match[1])
  return match[2] === 'us' ? n / 1000 : match[2] === 's' ? n * 1000 : n
}

export async function runWrk(url: string, options: WrkOptions): Promise<WrkResult> {
  const args = [wrkPath(), `-t${options.threads ?? 1}`, `-c${options.connections}`, `-d${options.seconds}s`, '--latency']
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push('-H', `${name}: ${value}`)
  const scriptPath = options.script ? join(tmpdir(), `wrk-${process.pid}-${crypto.randomUUID()}.lua`) : null
  if (scriptPath) {
    await Bun.write(scriptPath, options.script!)
    args.push('-s', scriptPath)
  }
  try {
    const child = Bun.spawn([...args, url], { stdout: 'pipe', stderr: 'pipe' })
    const output = await new Response(child.stdout).text()
    if ((await child.exited) !== 0) throw new Error(`wrk failed: ${await new Response(child.stderr).text()}`)
    const non2xx = Number(output.match(/Non-2xx or 3xx responses: (\d+)/)?.[1] ?? 0)
    const timeouts = Number(output.match(/Socket errors: .*timeout (\d+)/)?.[1] ?? 0)
    return {
      requestsPerSecond: Number(output.match(/Requests\/sec:\s+([\d.]+)/)?.[1] ?? Number.NaN),
      requests: Number(output.match(/^\s*(\d+) requests in/m)?.[1] ?? 0),
      p50ms: toMs(output.match(/^\s+50%\s+(\S+)/m)?.[1] ?? ''),
      p99ms: toMs(output.match(/^\s+99%\s+(\S+)/m)?.[1] ?? ''),
      errors: non2xx + timeouts,
    }
  } finally {
    if (scriptPath) rmSync(scriptPath, { force: true })
  }
}
