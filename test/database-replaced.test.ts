// The SQLite file replaced while the service runs (a backup restored, or the file moved away,
// without stopping it, which the README's restore says not to do): the process still holds the file
// it opened, which no other process reads and the next start does not open. A write acknowledged
// there would be lost at the restart, and a sign-out undone; so from then on nothing is
// acknowledged: writes and signed-in requests answer 503, the log says why once, and a restart
// opens the file that is there now. Real files, the real service.

import { afterEach, expect, test } from 'bun:test'
import { renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { startStack, type Stack } from './support/stack.ts'

const stacks: Stack[] = []
afterEach(async () => {
  for (const stack of stacks.splice(0).reverse()) await stack.stop()
})

async function started(dir?: string): Promise<Stack> {
  const stack = await startStack(dir === undefined ? {} : { dir })
  stacks.push(stack)
  return stack
}

function writeSetting(stack: Stack, key: string): Promise<Response> {
  return fetch(`${stack.service.url}/api/settings`, {
    method: 'POST',
    headers: { cookie: stack.cookie.admin, 'content-type': 'application/json' },
    body: JSON.stringify({ key, value: 'v', encrypted: false }),
  })
}

/** As the README's restore does it, but with the service left running: the side files removed, another file put at the path. */
function restoreUnderneath(stack: Stack, backup: string): void {
  const path = join(stack.service.dir, 'admin-dashboard.db')
  rmSync(`${path}-wal`, { force: true })
  rmSync(`${path}-shm`, { force: true })
  renameSync(backup, path)
}

test('a database file replaced under the running service: nothing more is acknowledged (503), the log says so once, and a restart opens the file now there', async () => {
  const first = await started()
  expect((await writeSetting(first, 'before.backup')).status).toBe(201)
  const backup = join(first.service.dir, 'backup.db')
  first.service.db!.run('VACUUM INTO ?', [backup])
  expect((await writeSetting(first, 'after.backup')).status).toBe(201)
  const signedOutLater = first.freshCookie('admin')

  restoreUnderneath(first, backup)

  // A write would land in the file that is gone: refused at once, not acknowledged and lost.
  const write = await writeSetting(first, 'after.restore')
  expect(write.status).toBe(503)
  expect(await write.json()).toMatchObject({ error: 'database_unavailable' })
  const logout = await fetch(`${first.service.url}/api/auth/logout`, { method: 'POST', headers: { cookie: signedOutLater } })
  expect(logout.status).toBe(503)
  // Past the gate's freshness window: sign-outs written to the file there now cannot be read.
  await Bun.sleep(1300)
  expect((await fetch(`${first.service.url}/api/auth/session`, { headers: { cookie: first.cookie.admin } })).status).toBe(503)
  expect((await fetch(`${first.service.url}/api/health`)).status).toBe(503)
  const said = first.service.logLines.filter((line) => line.includes('"event":"database_replaced"'))
  expect(said).toHaveLength(1)
  expect(said[0]).toContain('restarted')

  const dir = first.service.dir
  await first.service.stop({ keepDir: true })
  stacks.splice(stacks.indexOf(first), 1)
  await first.kratos.stop()
  const second = await started(dir)
  expect((await fetch(`${second.service.url}/api/health`)).status).toBe(200)
  const keys = (await (await fetch(`${second.service.url}/api/settings`, { headers: { cookie: second.cookie.admin } })).json()) as { key: string }[]
  expect(keys.map((setting) => setting.key)).toEqual(['before.backup'])
}, 20_000)

test('a database file removed under the running service: writes are refused (503) rather than made where no start will find them', async () => {
  const stack = await started()
  expect((await writeSetting(stack, 'one')).status).toBe(201)
  const path = join(stack.service.dir, 'admin-dashboard.db')
  renameSync(path, join(stack.service.dir, 'moved-away.db'))
  expect((await writeSetting(stack, 'two')).status).toBe(503)
  expect(stack.service.logLines.filter((line) => line.includes('"event":"database_replaced"'))).toHaveLength(1)
})
