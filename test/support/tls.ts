// A certificate for 127.0.0.1 made by openssl once per process, and a fetch that trusts it: the
// service's connections to a TLS upstream stay real TLS. The service itself trusts it only where a
// test gives it the CA; otherwise its handshake is refused, as with any certificate not trusted.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

let made: { cert: string; key: string; trusting: typeof fetch } | undefined

export function testCertificate(): { cert: string; key: string; trusting: typeof fetch } {
  if (made) return made
  const dir = mkdtempSync(join(tmpdir(), 'admin-dashboard-tls-'))
  try {
    const run = Bun.spawnSync(
      ['openssl', 'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      { stderr: 'pipe' },
    )
    if (run.exitCode !== 0) throw new Error(`openssl failed: ${run.stderr.toString()}`)
    const cert = readFileSync(join(dir, 'cert.pem'), 'utf8')
    const trusting = ((input: string | URL | Request, init?: RequestInit) => fetch(input, { ...init, tls: { ca: cert } } as RequestInit)) as typeof fetch
    made = { cert, key: readFileSync(join(dir, 'key.pem'), 'utf8'), trusting }
    return made
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
