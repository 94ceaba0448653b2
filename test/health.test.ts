// GET /api/health: 200 when login is configured and the database answers. A database that answered
// within the last second is not asked again; one that stopped answering shows within that second.
import { expect, test } from 'bun:test'
import { startService } from './support/service.ts'
import { FRESHNESS_WINDOW_MS } from '../src/db/storage.ts'
import { within } from './support/eventually.ts'
import { Database } from 'bun:sqlite'
import { randomUUID } from 'node:crypto'

test('200 {"status":"ok"} when login is configured and the database answers', async () => {
  const service = await startService()
  try {
    const response = await fetch(`${service.url}/api/health`)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ status: 'ok' })
  } finally {
    await service.stop()
  }
})

test('without login configuration: 503 not_configured, naming the variables', async () => {
  const service = await startService({ env: { OAUTH_ISSUER_URL: '', OAUTH_CLIENT_ID: '' } })
  try {
    const response = await fetch(`${service.url}/api/health`)
    expect(response.status).toBe(503)
    const body = (await response.json()) as { error: string; message: string }
    expect(body.error).toBe('not_configured')
    expect(body.message).toContain('OAUTH_ISSUER_URL')
  } finally {
    await service.stop()
  }
})

test('a database that stops answering turns health to 503 within a second, and it stays so', async () => {
  const service = await startService()
  try {
    expect((await fetch(`${service.url}/api/health`)).status).toBe(200)
    await service.storage.close()
    const closed = performance.now()
    // Polled generously; "within a second" is held by when the requests answered 200 were sent:
    // none sent a window or more after the close (a late request can only see a 503).
    const deadline = closed + 5000
    let status = 200
    let lastOkSent = closed
    while (status === 200 && performance.now() < deadline) {
      const sent = performance.now()
      status = (await fetch(`${service.url}/api/health`)).status
      if (status === 200) lastOkSent = sent
      await Bun.sleep(50)
    }
    expect(status).toBe(503)
    expect(lastOkSent - closed).toBeLessThan(FRESHNESS_WINDOW_MS)
    for (let i = 0; i < 5; i++) {
      const response = await fetch(`${service.url}/api/health`)
      expect(response.status).toBe(503)
      expect(((await response.json()) as { message: string }).message).toBe('The database is not usable.')
    }
  } finally {
    await service.stop().catch(() => {})
  }
})

test('a change to the database this process cannot read (its gate then refuses every session): 503, said so, until it reads it', async () => {
  const service = await startService()
  try {
    expect((await fetch(`${service.url}/api/health`)).status).toBe(200)
    // Another process revokes a session, and takes the table away before this one reads it: in WAL
    // mode no lock keeps a read out, so that is how a read is made to fail.
    const other = new Database(service.db!.filename)
    try {
      other.transaction(() => {
        other.run('INSERT INTO revoked_sessions (sid, expires_at) VALUES (?, ?)', ['elsewhere', Math.floor(Date.now() / 1000) + 600])
        other.run('ALTER TABLE revoked_sessions RENAME TO revoked_sessions_away')
      })()
      let unread: { error: string; message: string } | undefined
      await within(5000, async () => {
        const response = await fetch(`${service.url}/api/health`)
        if (response.status === 503) unread = (await response.json()) as { error: string; message: string }
        return unread !== undefined
      })
      expect(unread).toEqual({ error: 'not_configured', message: 'The database is not usable: the changes made to it cannot be read, so signed-in requests are refused.' })
      // The gate says the same of a session at that moment.
      const cookie = `admin-session=${service.sign({ sub: randomUUID(), role: 'admin' })}`
      const session = await fetch(`${service.url}/api/auth/session`, { headers: { cookie } })
      expect([session.status, ((await session.json()) as { error: string }).error]).toEqual([503, 'database_unavailable'])
      other.run('ALTER TABLE revoked_sessions_away RENAME TO revoked_sessions')
      expect(await within(5000, async () => (await fetch(`${service.url}/api/health`)).status === 200)).not.toBeNull()
    } finally {
      other.close()
    }
  } finally {
    await service.stop()
  }
}, 20_000)
