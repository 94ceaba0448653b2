// nginx from Debian as the proxy reference: one worker, keepalive to the upstream, access log on,
// default buffering. Runs in the foreground under a throw-away prefix.

import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface Nginx {
  url: string
  stop(): Promise<void>
}

export function nginxPath(): string {
  const path = Bun.which('nginx') ?? (Bun.file('/usr/sbin/nginx').size > 0 ? '/usr/sbin/nginx' : null)
  if (!path) throw new Error('nginx is not installed: scripts/setup --bench installs it')
  return path
}

export async function startNginx(dir: string, port: number, upstreamPort: number): Promise<Nginx> {
  mkdirSync(join(dir, 'logs'), { recursive: true })
  const conf = join(dir, 'nginx.conf')
  writeFileSync(
    conf,
    `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log ${dir}/logs/access.log;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream up { server 127.0.0.1:${upstreamPort}; keepalive 64; }
  server {
    listen 127.0.0.1:${port};
    location /api/idp/ {
      proxy_pass http://up/;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
}
`,
  )
  const child = Bun.spawn([nginxPath(), '-p', dir, '-c', conf, '-e', join(dir, 'logs/error.log')], { stdout: 'ignore', stderr: 'pipe' })
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${url}/api/idp/small`)).ok) break
    } catch {}
    await Bun.sleep(50)
  }
  return {
    url,
    async stop() {
      child.kill('SIGQUIT')
      await child.exited
    },
  }
}
