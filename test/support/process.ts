// Running the service as a real process (the compiled binary or `bun src/main.ts`). It passes the
// same leak check as the in-process service (test/support/leaks.ts): every line it wrote to stdout
// and stderr, once it has ended (so that secrets marked meanwhile count), and every error answer a
// test receives through `fetch` here. A process that outlives the last test is stopped by an
// afterAll hook, which then calls throwFindings.

import type { Subprocess } from 'bun'
import { basename } from 'node:path'
import { proxyPrefixOf } from '../../src/proxy/upstreams.ts'
import { inspectLogLine, inspectResponse, markSecret } from './leaks.ts'

export interface ServiceProcess {
  child: Subprocess<'ignore', 'pipe', 'pipe'>
  url: string
  stdout: () => string
  /** What it wrote to stderr so far. */
  stderr: () => string
  /** Its exit code, once it has exited and everything it wrote has been read and checked. */
  exited: Promise<number>
  /** A request to the service at `path`; an error answer passes the leak check, as the in-process service's do. */
  fetch(path: string, init?: RequestInit): Promise<Response>
}

/**
 * Whether an answer of a service process was relayed from an upstream as it came, so that the
 * envelope rules are not ours to check. In process the request says so (src/proxy/passthrough.ts);
 * from outside the answer does: it is under a proxy prefix and carries the sandboxing
 * Content-Security-Policy of every relayed answer (src/proxy/headers.ts), which our own never do.
 */
export function isRelayedAnswer(url: string, contentSecurityPolicy: string | null): boolean {
  return proxyPrefixOf(new URL(url).pathname) !== null && /(^|;)\s*sandbox\s*(;|$)/.test(contentSecurityPolicy ?? '')
}

/** fetch, and an error answer of the service passes the leak check (for processes not started by `startProcess`). */
export async function fetchChecked(url: string, init?: RequestInit): Promise<Response> {
  const response = await fetch(url, init)
  inspectResponse(new Request(url, { method: init?.method }), response, () => isRelayedAnswer(url, response.headers.get('content-security-policy')))
  return response
}

/** Every line of a process's output passes the log check (for output read elsewhere than here). */
export function inspectOutput(text: string, where: string): void {
  for (const line of text.split('\n')) if (line !== '') inspectLogLine(line, where)
}

/** The keys a process is given are secrets: no answer and no line of its output may carry them. */
function markKeys(env: Record<string, string | undefined>): void {
  markSecret(env.SESSION_SIGNING_KEY, env.ENCRYPTION_KEY, env.ENCRYPTION_KEY_PREVIOUS)
}

/** Starts the command and waits for its `listening` log line (PORT=0 picks a free port). */
export async function startProcess(cmd: string[], env: Record<string, string | undefined>, cwd?: string): Promise<ServiceProcess> {
  markKeys(env)
  const child = Bun.spawn(cmd, { env: { PATH: process.env.PATH, PORT: '0', ...env } as Record<string, string>, cwd, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
  let out = ''
  let err = ''
  // Drained all along, so the child never blocks on a full pipe.
  const stderrRead = (async () => {
    const decoder = new TextDecoder()
    for await (const chunk of child.stderr as ReadableStream<Uint8Array>) err += decoder.decode(chunk, { stream: true })
  })()
    .catch(() => {})
    .finally(() => inspectOutput(err, 'service process stderr'))
  const reader = child.stdout.getReader()
  const decoder = new TextDecoder()
  const readStdout = async (): Promise<boolean> => {
    const { value, done } = await reader.read()
    if (done) return false
    out += decoder.decode(value, { stream: true })
    return true
  }
  let stdoutRead: Promise<void> = Promise.resolve()
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line; stdout so far: ${out}`)), 15_000)
    stdoutRead = (async () => {
      while (await readStdout()) {
        const match = out.match(/"event":"listening","address":"([^"]+)"/)
        if (match) {
          clearTimeout(timer)
          resolve(match[1]!)
          // Keep draining stdout so the child never blocks on a full pipe.
          while (await readStdout());
          return
        }
      }
      clearTimeout(timer)
      await Promise.all([child.exited, stderrRead])
      reject(new Error(`exited before listening: ${out} ${err}`))
    })()
      .catch(() => {})
      .finally(() => inspectOutput(out, 'service process stdout'))
  })
  const exited = Promise.all([child.exited, stdoutRead, stderrRead]).then(([code]) => code)
  return {
    child,
    url,
    stdout: () => out,
    stderr: () => err,
    exited,
    fetch: (path, init) => fetchChecked(`${url}${path}`, init),
  }
}

/**
 * Runs a command to completion; every line of its output passes the log check, but for the value
 * `settings get --decrypt` was asked for, which is what that command prints on stdout.
 */
export async function runToEnd(cmd: string[], env: Record<string, string | undefined>, options: { cwd?: string; stdin?: string } = {}) {
  markKeys(env)
  const child = Bun.spawn(cmd, {
    env: { PATH: process.env.PATH, ...env } as Record<string, string>,
    cwd: options.cwd,
    stdin: options.stdin === undefined ? 'ignore' : new TextEncoder().encode(options.stdin),
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  const name = basename(cmd[0]!)
  if (!cmd.includes('--decrypt')) inspectOutput(stdout, `${name} stdout`)
  inspectOutput(stderr, `${name} stderr`)
  return { stdout, stderr, code }
}
