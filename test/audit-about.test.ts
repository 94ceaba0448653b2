// What an audit event is about (schema version 6's `about` column, the Audit log's filter by an
// identity, a client or a setting), on both engines: each kind of event by its rule, a proxied
// write whose created id is only known when it completes, and, on SQLite, the events a database
// held before the column was added.

import { afterAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { SQL } from 'bun'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AuditLog, type NewAuditEvent } from '../src/audit/audit.ts'
import { systemClock } from '../src/clock.ts'
import { createLogger } from '../src/log.ts'
import { MIGRATIONS } from '../src/db/migrations.ts'
import { POSTGRES_MIGRATIONS } from '../src/db/postgres-migrations.ts'
import { openStorage } from '../src/db/open.ts'
import type { Storage } from '../src/db/storage.ts'
import { usePostgres } from './support/use-postgres.ts'

const dir = mkdtempSync(join(tmpdir(), 'admin-dashboard-audit-about-'))
const opened: Storage[] = []
afterAll(async () => {
  for (const storage of opened) await storage.close()
  rmSync(dir, { recursive: true, force: true })
})
const pg = usePostgres()

async function open(databaseUrl: string | null, databasePath: string): Promise<Storage> {
  const result = await openStorage({ databaseUrl, databasePath })
  if (!result.ok) throw new Error(result.error)
  opened.push(result.storage)
  return result.storage
}

const write = (target: string, detail: NewAuditEvent['detail'] = { method: 'PATCH', status: 200, outcome: 'ok' }): NewAuditEvent => ({ action: 'proxy_write', actor: 'admin-1', target, detail })

/** One event of each kind, each named by its target (or action) for the expectations below. */
const EVENTS: NewAuditEvent[] = [
  { action: 'login', actor: 'admin-1', target: null, detail: { role: 'admin' } },
  { action: 'logout', actor: 'admin-1', target: null },
  { action: 'login', actor: 'someone-refused', target: null, detail: { outcome: 'refused', reason: 'no_role' } },
  { action: 'sessions_revoke', actor: 'admin-1', target: 'identity-b' },
  { action: 'settings_write', actor: 'admin-1', target: 'smtp.host', detail: { outcome: 'created', encrypted: false } },
  { action: 'settings_decrypt_read', actor: 'admin-1', target: 'smtp.host', detail: { ok: true } },
  { action: 'settings_delete', actor: null, target: 'smtp.host' },
  { action: 'identity_search', actor: 'admin-1', target: 'person@example.test', detail: { outcome: 'ok' } },
  write('/admin/identities/identity-c'),
  write('/admin/identities/identity-c/credentials/totp', { method: 'DELETE', status: 204, outcome: 'ok' }),
  write('/admin/identities/identity-c/sessions', { method: 'DELETE', status: 204, outcome: 'ok' }),
  write('/admin/clients/client-1/lifespans', { method: 'PUT', status: 200, outcome: 'ok' }),
  write('/admin/oauth2/tokens', { method: 'DELETE', status: 204, outcome: 'ok', client_id: 'client-1' }),
  // As the UI sends a client id: through encodeURIComponent.
  write('/admin/clients/app%3Aweb', { method: 'DELETE', status: 204, outcome: 'ok' }),
  write('/admin/oauth2/tokens', { method: 'DELETE', status: 204, outcome: 'ok', client_id: 'app:web' }),
  write('/admin/sessions/session-9/extend'),
  write('/admin/identities/', { method: 'POST', status: 404, outcome: 'upstream_refused' }),
  write('/admin/recovery/link', { method: 'POST', status: 200, outcome: 'ok' }),
  write('/admin/recovery/code', { method: 'POST', status: 200, outcome: 'ok', identity_id: 'identity-r' }),
  { action: 'settings_reencrypt', actor: null, target: null, detail: { count: 2 } },
  { action: 'audit_prune', actor: null, target: null, detail: { before: '2025-01-01T00:00:00.000Z', deleted: 3, outcome: 'ok' } },
]

/** What a filter by each id finds, newest first: by target (or action where there is none). */
const FOUND: Record<string, string[]> = {
  'admin-1': ['logout', 'login'],
  'someone-refused': ['login'],
  'identity-b': ['identity-b'],
  'smtp.host': ['smtp.host', 'smtp.host', 'smtp.host'],
  'identity-c': ['/admin/identities/identity-c/sessions', '/admin/identities/identity-c/credentials/totp', '/admin/identities/identity-c'],
  // Made by a POST whose event was begun before it was sent: found once its outcome names it.
  'identity-new': ['/admin/identities'],
  'client-1': ['/admin/oauth2/tokens', '/admin/clients/client-1/lifespans'],
  'app:web': ['/admin/oauth2/tokens', '/admin/clients/app%3Aweb'],
  // A recovery code asked for it: its body named it.
  'identity-r': ['/admin/recovery/code'],
  'person@example.test': [],
  'session-9': [],
  '/admin/identities/identity-c': [],
}

async function recordAll(storage: Storage): Promise<void> {
  const audit = new AuditLog(storage, systemClock)
  for (const event of EVENTS) await audit.record(event)
  const begun = await audit.begin(write('/admin/identities', { method: 'POST', status: null, outcome: 'pending' }))
  expect(await found(storage, 'identity-new')).toEqual([])
  await audit.complete(createLogger('error', () => {}), begun, { action: 'proxy_write', detail: { method: 'POST', status: 201, outcome: 'ok', created: 'identity-new' } })
}

async function found(storage: Storage, about: string): Promise<string[]> {
  return (await storage.audit.list({ limit: 50, about })).map((event) => event.target ?? event.action)
}

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`${engine}: what an event is about`, () => {
    test('each kind of event is found by the identity, client or setting it is about, and by nothing else', async () => {
      const storage = engine === 'sqlite' ? await open(null, join(dir, 'about.db')) : await open(await pg.createDatabase(), 'unused')
      await recordAll(storage)
      for (const [about, targets] of Object.entries(FOUND)) expect({ about, found: await found(storage, about) }).toEqual({ about, found: targets })
      // Beside the other filters, and paged.
      expect((await storage.audit.list({ limit: 50, about: 'identity-c', actor: 'admin-1', action: 'proxy_write' })).length).toBe(3)
      const first = await storage.audit.list({ limit: 2, about: 'identity-c' })
      expect((await storage.audit.list({ limit: 50, about: 'identity-c', before: first[1]!.id })).map((event) => event.target)).toEqual(['/admin/identities/identity-c'])
    })
  })
}

for (const engine of ['sqlite', 'postgres'] as const) {
  test(`${engine}: a write whose answer named an id PostgreSQL's jsonb does not take (a lone surrogate, JSON.stringify's \\ud800) is still completed in the trail`, async () => {
    const storage = engine === 'sqlite' ? await open(null, join(dir, 'surrogate.db')) : await open(await pg.createDatabase(), 'unused')
    const audit = new AuditLog(storage, systemClock)
    const failures: string[] = []
    const begun = await audit.begin(write('/admin/clients', { method: 'POST', status: null, outcome: 'pending' }))
    // proxy/index.ts factsOf takes a client_id from Hydra's answer when isPlainIdentifier: a lone surrogate passes.
    await audit.complete(createLogger('error', (line) => failures.push(line)), begun, { action: 'proxy_write', detail: { method: 'POST', status: 201, outcome: 'ok', created: 'odd-\ud800' } })
    expect(failures).toEqual([])
    expect((await storage.audit.list({ limit: 1 }))[0]!.detail).toContain('"outcome":"ok"')
  })
}

test('postgres: a database from before the column whose trail holds a detail jsonb does not take migrates to schema 6', async () => {
  const url = await pg.createDatabase()
  const sql = new SQL(url)
  try {
    await sql`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL)`
    for (const migration of POSTGRES_MIGRATIONS.filter((m) => m.version <= 5)) {
      await sql.unsafe(migration.sql)
      await sql`INSERT INTO schema_migrations (version, applied_at) VALUES (${migration.version}, now())`
    }
    await sql`INSERT INTO audit_events (at, action, actor, target, detail) VALUES (now(), 'proxy_write', 'admin-1', '/admin/clients', ${'{"method":"POST","status":201,"outcome":"ok","created":"odd-\\ud800"}'})`
    await sql`INSERT INTO audit_events (at, action, actor, target, detail) VALUES (now(), 'proxy_write', 'admin-1', '/admin/clients/client-old', ${'{"method":"DELETE","status":204,"outcome":"ok"}'})`
  } finally {
    await sql.close()
  }
  const storage = await open(url, 'unused')
  expect(await found(storage, 'client-old')).toEqual(['/admin/clients/client-old'])
})

test('sqlite: the events of a database from before the column (schema 5) are found by what they are about once it is migrated', async () => {
  const path = join(dir, 'schema5.db')
  const db = new Database(path, { create: true, strict: true })
  db.run('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL) STRICT')
  for (const migration of MIGRATIONS.filter((m) => m.version <= 5)) {
    db.run(migration.sql)
    db.query('INSERT INTO schema_migrations VALUES (?, ?)').run(migration.version, '2025-01-01T00:00:00.000Z')
  }
  const insert = db.query('INSERT INTO audit_events (at, action, actor, target, detail, request_id) VALUES (?, ?, ?, ?, ?, NULL)')
  insert.run('2025-01-01T00:00:00.000Z', 'proxy_write', 'admin-1', '/admin/identities/identity-old', '{"method":"DELETE","status":204,"outcome":"ok"}')
  insert.run('2025-01-01T00:00:01.000Z', 'proxy_write', 'admin-1', '/admin/clients', '{"method":"POST","status":201,"outcome":"ok","created":"client-old"}')
  insert.run('2025-01-01T00:00:02.000Z', 'sessions_revoke', 'admin-1', 'identity-old', null)
  db.close()
  const storage = await open(null, path)
  expect(await found(storage, 'identity-old')).toEqual(['identity-old', '/admin/identities/identity-old'])
  expect(await found(storage, 'client-old')).toEqual(['/admin/clients'])
})
