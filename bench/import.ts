// `bun bench/import.ts`: `import-sqlite` of a SQLite file holding N audit events (N=1000000 by
// default) into a throw-away PostgreSQL cluster; prints the time and the growth of resident
// memory while it ran (sampled every 20 ms). Needs PostgreSQL (`scripts/setup --test`).
import { Database } from 'bun:sqlite'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runImportSqlite } from '../src/cli/import-sqlite.ts'
import { openSqliteStorage } from '../src/db/sqlite-storage.ts'
import { startPostgres } from '../test/support/postgres.ts'

const N = Number(process.env.N ?? 1_000_000)
const dir = mkdtempSync(join(tmpdir(), 'admin-dashboard-import-'))
const path = join(dir, 'source.db')
const created = openSqliteStorage(path)
if (!created.ok) throw new Error(created.error)
await created.storage.close()
const db = new Database(path)
const insert = db.query('INSERT INTO audit_events (at, action, actor, target, detail) VALUES (?, ?, ?, ?, ?)')
db.transaction(() => {
  for (let i = 0; i < N; i++) {
    insert.run(new Date(Date.now() - i * 1000).toISOString(), 'identity_search', 'a3f1c0de-0000-4000-8000-000000000001', `user${i}@example.test`, '{"outcome":"ok"}')
  }
})()
db.close()

const pg = await startPostgres()
try {
  const url = await pg.createDatabase()
  const rssBefore = process.memoryUsage().rss
  let peak = rssBefore
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20)
  const started = performance.now()
  const env = { DATABASE_URL: url, SESSION_SIGNING_KEY: Buffer.alloc(32, 7).toString('base64') }
  const io = { env, readStdin: async () => '', out: (text: string) => void process.stdout.write(text), err: (text: string) => void process.stderr.write(text) }
  const code = await runImportSqlite([path], io)
  clearInterval(sampler)
  const seconds = (performance.now() - started) / 1000
  console.log(`import-sqlite, ${N} audit events: exit ${code}, ${seconds.toFixed(1)} s, resident memory +${((peak - rssBefore) / 1048576).toFixed(0)} MiB at its peak`)
} finally {
  await pg.destroy()
  rmSync(dir, { recursive: true, force: true })
}
