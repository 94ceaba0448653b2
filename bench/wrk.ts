// Runs Debian's wrk against a URL and reads its summary (requests/s, latency percentiles).

export interface WrkResult {
  requestsPerSecond: number
  p50ms: number
  p99ms: number
  errors: number
}

export function wrkPath(): string {
  const path = Bun.which('wrk')
  if (!path) throw new Error('wrk is not installed: apt-get install wrk (scripts/setup --test installs it)')
  return path
}

function toMs(value: string): number {
  const match = value.match(/^([\d.]+)(us|ms|s)$/)
  if (!match) return Number.NaN
  const n = Number(match[1])
  return match[2] === 'us' ? n / 1000 : match[2] === 's' ? n * 1000 : n
}

export async function runWrk(url: string, options: { connections: number; seconds: number; headers?: Record<string, string> }): Promise<WrkResult> {
  const args = [wrkPath(), '-t1', `-c${options.connections}`, `-d${options.seconds}s`, '--latency']
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push('-H', `${name}: ${value}`)
  const child = Bun.spawn([...args, url], { stdout: 'pipe', stderr: 'pipe' })
  const output = await new Response(child.stdout).text()
  if ((await child.exited) !== 0) throw new Error(`wrk failed: ${await new Response(child.stderr).text()}`)
  const errors = [...output.matchAll(/(?:Non-2xx or 3xx responses|Socket errors: .*?timeout) (\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0)
  return {
    requestsPerSecond: Number(output.match(/Requests\/sec:\s+([\d.]+)/)?.[1] ?? Number.NaN),
    p50ms: toMs(output.match(/\s50%\s+(\S+)/)?.[1] ?? ''),
    p99ms: toMs(output.match(/\s99%\s+(\S+)/)?.[1] ?? ''),
    errors,
  }
}
