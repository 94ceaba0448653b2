// GET /api/health: 200 when login is configured and the database answers. A database that answered
// within the last second is not asked again; one that stopped answering shows within that second.
import { expect, test } from 'bun:test'
import { startService } from './support/service.ts'
import { FRESHNESS_WINDOW_MS } from '../src/db/storage.ts'

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
