// What the benchmarks share about the processes they start: ports, readiness, memory.

import { readFileSync } from 'node:fs'

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
