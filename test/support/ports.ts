// Loopback ports for the processes and listeners the tests start.

/** A loopback port that was free a moment ago: for a process told which port to take, or a port where nothing listens. */
export function freePort(): number {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = probe.port
  probe.stop(true)
  return port
}
