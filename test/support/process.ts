// Running the service as a real process (the compiled binary or `bun src/main.ts`).

import type { Subprocess } from 'bun'

export interface ServiceProcess {
  child: Subprocess<'ignore', 'pipe', 'pipe'>
  url: string
  stdout: () => string
  /** What it wrote to stderr so far. */
  stderr: () => string
  exited: Promise<number>
}

/** Starts the command and waits for its `listening` log line (PORT=0 picks a free port). */
export async function startProcess(cmd: string[], env: Record<string, string | undefined>, cwd?: string): Promise<ServiceProcess> {
  const child = Bun.spawn(cmd, { env: { PATH: process.env.PATH, PORT: '0', ...env } as Record<string, string>, cwd, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
  let out = ''
  let err = ''
  // Drained all along, so the child never blocks on a full pipe.
  void (async () => {
    const decoder = new TextDecoder()
    for await (const chunk of child.stderr as ReadableStream<Uint8Array>) err += decoder.decode(chunk)
  })().catch(() => {})
  const reader = child.stdout.getReader()
  const decoder = new TextDecoder()
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line; stdout so far: ${out}`)), 15_000)
    void (async () => {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) {
          clearTimeout(timer)
          await child.exited
          reject(new Error(`exited before listening: ${out} ${err}`))
          return
        }
        out += decoder.decode(value)
        const match = out.match(/"event":"listening","address":"([^"]+)"/)
        if (match) {
          clearTimeout(timer)
          resolve(match[1]!)
          // Keep draining stdout so the child never blocks on a full pipe.
          void (async () => {
            for (;;) {
              const next = await reader.read()
              if (next.done) return
              out += decoder.decode(next.value)
            }
          })()
          return
        }
      }
    })()
  })
  return { child, url, stdout: () => out, stderr: () => err, exited: child.exited }
}

/** Runs a command to completion. */
export async function runToEnd(cmd: string[], env: Record<string, string | undefined>, options: { cwd?: string; stdin?: string } = {}) {
  const child = Bun.spawn(cmd, {
    env: { PATH: process.env.PATH, ...env } as Record<string, string>,
    cwd: options.cwd,
    stdin: options.stdin === undefined ? 'ignore' : new TextEncoder().encode(options.stdin),
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  return { stdout, stderr, code }
}
