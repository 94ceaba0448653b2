import { describe, expect, test } from 'bun:test'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { runToEnd, startProcess } from './support/process.ts'
import { freePort } from './support/ports.ts'
import { temporaryDir } from './support/temp.ts'

const root = join(import.meta.dir, '..')
const unit = readFileSync(join(root, 'deploy/admin-dashboard.service'), 'utf8')
const replicaUnit = readFileSync(join(root, 'deploy/replicas/admin-dashboard@.service'), 'utf8')
const balancer = readFileSync(join(root, 'deploy/replicas/nginx.conf'), 'utf8')

/** Every variable the configuration reads, found in its source. */
function configVariables(): string[] {
  const source = readFileSync(join(root, 'src/config.ts'), 'utf8')
  return [...new Set([...source.matchAll(/(?:read|key|url|integer)\('([A-Z_]+)'|: '([A-Z_]+_URL)'/g)].map((m) => m[1] ?? m[2]!))].sort()
}

describe('deployment files', () => {
  test('the unit runs as a dynamic user with a state directory, an environment file and restarts', () => {
    for (const line of ['DynamicUser=yes', 'StateDirectory=admin-dashboard', 'EnvironmentFile=', 'Restart=always', 'NoNewPrivileges=yes', 'ProtectSystem=strict']) {
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

  test('systemd-analyze verify passes', async () => {
    const which = systemdAnalyze()
    const dir = temporaryDir('unit-')
    const copy = join(dir, 'admin-dashboard.service')
    writeFileSync(copy, unit.replaceAll('/usr/local/bin/admin-dashboard', process.execPath))
    const result = await runToEnd([which, 'verify', copy], {})
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
  })

  test('the replica unit: one instance per port, the shared environment file, the same hardening, no local state', () => {
    for (const line of ['EnvironmentFile=/etc/admin-dashboard/admin-dashboard.env', 'ExecStartPre=/usr/local/bin/admin-dashboard check-config', 'DynamicUser=yes', 'Restart=always']) {
      expect(replicaUnit).toContain(line)
    }
    const hardening = unit.split('\n').filter((line) => /^(No|Protect|Private|Restrict|SystemCall|Capability|Lock|Remove)/.test(line))
    for (const line of hardening) expect(replicaUnit).toContain(line)
    expect(replicaUnit).not.toMatch(/^(StateDirectory|Environment=DATABASE_PATH)/m)
    expect(replicaUnit).not.toMatch(/^MemoryDenyWriteExecute=yes/m)
  })

  test('each replica listens on its instance port, though the environment file sets PORT (systemd lets the file override Environment=)', async () => {
    const port = String(freePort())
    // The environment as systemd builds it: Environment= lines first, then the file over them.
    const assigned = (text: string) => Object.fromEntries([...text.matchAll(/^([A-Z_]+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]))
    const environment = [...replicaUnit.matchAll(/^Environment=(.*)$/gm)].map((m) => m[1]!.replaceAll('%i', port)).join('\n')
    const file = readFileSync(join(root, 'deploy/admin-dashboard.env.example'), 'utf8')
    expect(assigned(file).PORT).toBe('3000')
    const env = { ...assigned(environment), ...assigned(file), SESSION_SIGNING_KEY: Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64') }
    const execStart = /^ExecStart=(.*)$/m.exec(replicaUnit)![1]!.replaceAll('%i', port).split(' ')
    const argv = execStart.flatMap((part) => (part === '/usr/local/bin/admin-dashboard' ? [process.execPath, join(root, 'src/main.ts')] : [part]))
    const service = await startProcess(argv, env, temporaryDir('replica-'))
    try {
      expect(new URL(service.url).port).toBe(port)
      expect((await service.fetch('/api/health')).status).toBe(200)
    } finally {
      service.child.kill('SIGTERM')
      await service.exited
    }
  })

  test('systemd-analyze verify passes on a replica instance', async () => {
    const dir = temporaryDir('unit-')
    const text = replicaUnit.replaceAll('/usr/local/bin/admin-dashboard', process.execPath)
    writeFileSync(join(dir, 'admin-dashboard@.service'), text)
    writeFileSync(join(dir, 'admin-dashboard@3001.service'), text)
    const result = await runToEnd([systemdAnalyze(), 'verify', join(dir, 'admin-dashboard@3001.service')], {})
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
  })

  test('the balancer: both replicas upstream, nothing sticky, a POST never retried; nginx -t accepts it', async () => {
    const servers = [...balancer.matchAll(/^\s*server 127\.0\.0\.1:(\d+)/gm)].map((m) => m[1])
    expect(servers).toEqual(['3001', '3002'])
    expect(replicaUnit).toContain('admin-dashboard@3001 admin-dashboard@3002')
    expect(balancer).not.toMatch(/ip_hash|sticky|hash \$/)
    expect(balancer).toContain('proxy_next_upstream error timeout;')
    expect(balancer).not.toContain('non_idempotent')
    const site = await balancerSite(18443)
    const result = await runToEnd([nginxBinary(), '-t', '-p', site.dir, '-c', site.conf, '-e', join(site.dir, 'error.log')], {})
    expect(result.stderr).toContain('test is successful')
    expect(result.code).toBe(0)
  })

  test('the balancer during a rolling upgrade: a UI asset one replica lacks is fetched from the other; elsewhere a 404 stays a 404', async () => {
    // Two replicas of different builds: each serves its own hashed asset and 404 for the other's.
    const replica = (own: string) =>
      Bun.serve({
        hostname: '127.0.0.1',
        port: 0,
        fetch: (request) => {
          const path = new URL(request.url).pathname
          if (path === `/dashboard/assets/${own}`) return new Response(`body of ${own}`)
          return Response.json({ error: 'not_found' }, { status: 404 })
        },
      })
    const [old, updated] = [replica('main.old11111.js'), replica('main.new22222.js')]
    const port = freePort()
    const site = await balancerSite(port, [old.port!, updated.port!])
    const nginx = Bun.spawn([nginxBinary(), '-p', site.dir, '-c', site.conf, '-e', join(site.dir, 'error.log'), '-g', 'daemon off;'], { stderr: 'pipe' })
    try {
      const get = async (path: string) => {
        for (let attempt = 0; ; attempt++) {
          try {
            const response = await fetch(`https://127.0.0.1:${port}${path}`, { headers: { host: 'admin.example.com' }, tls: { rejectUnauthorized: false } })
            return { status: response.status, body: await response.text() }
          } catch (error) {
            if (attempt > 50) throw error
            await Bun.sleep(50)
          }
        }
      }
      // Round robin would send every other request to the replica without the asset.
      for (const asset of ['main.old11111.js', 'main.new22222.js']) {
        for (let i = 0; i < 4; i++) expect(await get(`/dashboard/assets/${asset}`)).toEqual({ status: 200, body: `body of ${asset}` })
      }
      expect((await get('/dashboard/assets/main.nowhere0.js')).status).toBe(404)
      expect((await get('/api/no-such-route')).status).toBe(404)
    } finally {
      nginx.kill('SIGTERM')
      await nginx.exited
      old.stop(true)
      updated.stop(true)
    }
  })
})

function nginxBinary(): string {
  return Bun.which('nginx') ?? '/usr/sbin/nginx'
}

/** The shipped balancer site, with a throw-away certificate, listening on `port`, over `replicas` when given. */
async function balancerSite(port: number, replicas?: number[]): Promise<{ dir: string; conf: string }> {
  const dir = temporaryDir('balancer-')
  const cert = await runToEnd(['openssl', 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=admin.example.com', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], {})
  expect(cert.code).toBe(0)
  let site = balancer
    .replace('/etc/ssl/admin-dashboard/fullchain.pem', join(dir, 'cert.pem'))
    .replace('/etc/ssl/admin-dashboard/privkey.pem', join(dir, 'key.pem'))
    .replace(/listen (\[::\]:)?443 ssl;\n/g, (_, v6) => (v6 ? '' : `listen 127.0.0.1:${port} ssl;\n`))
  if (replicas) site = site.replace('127.0.0.1:3001', `127.0.0.1:${replicas[0]}`).replace('127.0.0.1:3002', `127.0.0.1:${replicas[1]}`)
  writeFileSync(join(dir, 'site.conf'), site)
  const conf = join(dir, 'nginx.conf')
  writeFileSync(
    conf,
    `pid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\nevents {}\nhttp {\n  access_log off;\n  client_body_temp_path ${dir}/body;\n  proxy_temp_path ${dir}/proxy;\n  fastcgi_temp_path ${dir}/fastcgi;\n  uwsgi_temp_path ${dir}/uwsgi;\n  scgi_temp_path ${dir}/scgi;\n  include ${dir}/site.conf;\n}\n`,
  )
  return { dir, conf }
}

function systemdAnalyze(): string {
  const path = Bun.which('systemd-analyze')
  if (!path) throw new Error('systemd-analyze is not installed: scripts/setup --test installs systemd')
  return path
}
