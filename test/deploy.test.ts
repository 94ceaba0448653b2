import { describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runToEnd } from './support/process.ts'

const root = join(import.meta.dir, '..')
const unit = readFileSync(join(root, 'deploy/admin-dashboard.service'), 'utf8')

/** Every variable the configuration reads, found in its source. */
function configVariables(): string[] {
  const source = readFileSync(join(root, 'src/config.ts'), 'utf8')
  return [...new Set([...source.matchAll(/(?:read|key|url|integer)\('([A-Z_]+)'|: '([A-Z_]+_URL)'/g)].map((m) => m[1] ?? m[2]!))].sort()
}

describe('deployment files', () => {
  test('the unit runs as a dynamic user with a state directory, an environment file and restarts', () => {
    for (const line of ['DynamicUser=yes', 'StateDirectory=admin-dashboard', 'EnvironmentFile=', 'Restart=on-failure', 'NoNewPrivileges=yes', 'ProtectSystem=strict']) {
      expect(unit).toContain(line)
    }
    // Bun's JIT needs W+X pages.
    expect(unit).not.toMatch(/^MemoryDenyWriteExecute=yes/m)
  })

  test('the env example lists every variable the service reads', () => {
    const example = readFileSync(join(root, 'deploy/admin-dashboard.env.example'), 'utf8')
    const variables = configVariables()
    expect(variables.length).toBeGreaterThan(15)
    for (const name of variables) expect(example).toMatch(new RegExp(`^#?${name}=`, 'm'))
  })

  test('systemd-analyze verify passes where the tool exists', async () => {
    const which = Bun.which('systemd-analyze')
    if (!which) {
      console.warn('systemd-analyze is not installed here; the unit was checked by the assertions above only')
      return
    }
    const dir = mkdtempSync(join(tmpdir(), 'unit-'))
    const copy = join(dir, 'admin-dashboard.service')
    writeFileSync(copy, unit.replaceAll('/usr/local/bin/admin-dashboard', process.execPath))
    const result = await runToEnd([which, 'verify', copy], {})
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
  })
})
