// The Audit log's filters on a long trail: every combination is an index search on SQLite (whose
// queries run on the event loop, so a scan of the whole trail would hold every request up), never
// a scan of the table. The plans are SQLite's own, for the SQL the storage runs.

import { expect, test } from 'bun:test'
import { join } from 'node:path'
import { openDatabase } from '../src/db/database.ts'
import { auditListQuery, type AuditFilter } from '../src/db/storage.ts'
import { temporaryDir } from './support/temp.ts'

test('each combination of the Audit log filters is answered by an index search, not a scan of the trail', () => {
  const opened = openDatabase(join(temporaryDir('audit-plans-'), 'db.sqlite'))
  if (!opened.ok) throw new Error(opened.error)
  const { db } = opened
  try {
    const insert = db.prepare('INSERT INTO audit_events (at, action, actor, target, detail, request_id) VALUES (?, ?, ?, NULL, NULL, ?)')
    const actions = ['identity_search', 'proxy_write', 'login', 'settings_write']
    db.transaction(() => {
      for (let i = 0; i < 20_000; i++) insert.run('2026-01-01T00:00:00.000Z', actions[i % actions.length]!, `actor-${i % 7}`, crypto.randomUUID())
    })()
    const parts: Partial<AuditFilter>[] = [{ action: 'login' }, { actor: 'actor-3' }, { requestId: crypto.randomUUID() }, { before: 10_000 }, { about: 'actor-3' }]
    let checked = 0
    for (let mask = 1; mask < 1 << parts.length; mask++) {
      const filter: AuditFilter = { limit: 50 }
      parts.forEach((part, i) => mask & (1 << i) && Object.assign(filter, part))
      const { sql, params } = auditListQuery(filter, () => '?')
      const plan = db
        .query<{ detail: string }, (string | number)[]>(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...params)
        .map((row) => row.detail)
      // The index each filter is for: a request id finds its one event, what it is about its few, who and what the actor's, who the actor's, what the action's.
      const index = filter.requestId
        ? 'INDEX audit_events_request_id '
        : filter.about
          ? 'INDEX audit_events_about '
          : filter.actor && filter.action
          ? 'INDEX audit_events_actor_action '
          : filter.actor
            ? 'INDEX audit_events_actor '
            : filter.action
              ? 'INDEX audit_events_action '
              : 'INTEGER PRIMARY KEY '
      expect({ filter, plan: plan.join('; ') }).toEqual({ filter, plan: expect.stringMatching(new RegExp(`^SEARCH audit_events USING ${index}`)) })
      expect(plan.join('; ')).not.toContain('TEMP B-TREE')
      checked++
    }
    expect(checked).toBe(31)
  } finally {
    db.close()
  }
})
