// The C proxies a gateway hop is compared with: nginx (one worker) and HAProxy (one thread), each
// keeping connections alive to a bare uWebSockets.js server (the ceiling) that answers the call
// itself. What a proxy's hop costs on this machine, measured in the same run as the gateway. The
// scaling curve (run.ts --threads N) runs nginx with N workers and HAProxy with N threads.
// Both come from Debian (scripts/ensure-debian.sh installs them when missing).
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect } from 'node:net'
import { childrenOf } from '../harness/procstat'

const ROOT = join(__dirname, '..', '..', '..', '..')

export interface Reference {
  url: string
  pids: Array<[string, number]>
}

function ensure(pairs: string[]): void {
  execFileSync('bash', [join(ROOT, 'scripts', 'ensure-debian.sh'), ...pairs], { stdio: 'inherit' })
}

/** Resolves once something accepts connections on the port (the proxies print nothing when ready). */
export async function listening(port: number, child: ChildProcess, what: string): Promise<void> {
  const deadline = Date.now() + 10000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode} before it listened`)
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1')
      s.once('connect', () => {
        s.destroy()
        resolve(true)
      })
      s.once('error', () => resolve(false))
    })
    if (ok) return
    if (Date.now() > deadline) throw new Error(`${what} is not listening on ${port} within 10 s`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** nginx, `workers` workers, upstream keep-alive, bodies up to 64 MB held in memory as the gateway holds them. */
export async function startNginxRef(
  port: number,
  upstreamPort: number,
  children: ChildProcess[],
  workers = 1
): Promise<Reference> {
  ensure(['nginx:nginx-light'])
  const dir = mkdtempSync(join(tmpdir(), 'bench-nginx-'))
  const conf = join(dir, 'nginx.conf')
  // With several workers, each gets a listening socket of its own (reuseport), as the gateway's
  // listener threads and the ceiling's threads have: the kernel spreads connections over them alike.
  writeFileSync(
    conf,
    `worker_processes ${workers};
daemon off;
pid ${join(dir, 'nginx.pid')};
error_log stderr error;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${join(dir, 'body')};
  proxy_temp_path ${join(dir, 'proxy')};
  fastcgi_temp_path ${join(dir, 'fastcgi')};
  uwsgi_temp_path ${join(dir, 'uwsgi')};
  scgi_temp_path ${join(dir, 'scgi')};
  upstream bare { server 127.0.0.1:${upstreamPort}; keepalive 128; }
  server {
    listen 127.0.0.1:${port}${workers > 1 ? ' reuseport' : ''};
    keepalive_requests 1000000;
    client_max_body_size 64m;
    client_body_buffer_size 64m;
    location / {
      proxy_pass http://bare;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffer_size 64k;
      proxy_buffers 64 64k;
    }
  }
}
`
  )
  const child = spawn('nginx', ['-c', conf, '-p', dir, '-e', 'stderr'], { stdio: ['ignore', 'ignore', 'inherit'] })
  children.push(child)
  await listening(port, child, 'nginx')
  // The master listens before it forks its workers: their pids are known once they all are there.
  const deadline = Date.now() + 10000
  while (childrenOf(child.pid!).length < workers) {
    if (Date.now() > deadline) throw new Error(`nginx has not started its ${workers} workers within 10 s`)
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    url: `http://127.0.0.1:${port}`,
    // The workers do the work; the master only waits.
    pids: childrenOf(child.pid!).map((pid): [string, number] => ['nginx worker', pid])
  }
}

/** HAProxy, `threads` threads (one process), connections to the server reused across requests. */
export async function startHaproxyRef(
  port: number,
  upstreamPort: number,
  children: ChildProcess[],
  threads = 1
): Promise<Reference> {
  ensure(['haproxy:haproxy'])
  const dir = mkdtempSync(join(tmpdir(), 'bench-haproxy-'))
  const conf = join(dir, 'haproxy.cfg')
  writeFileSync(
    conf,
    `global
  nbthread ${threads}
  maxconn 4096
  tune.bufsize 65536
defaults
  mode http
  timeout connect 5s
  timeout client 60s
  timeout server 300s
  option http-keep-alive
  http-reuse always
frontend front
  bind 127.0.0.1:${port}
  default_backend bare
backend bare
  server bare 127.0.0.1:${upstreamPort}
`
  )
  const child = spawn('haproxy', ['-db', '-f', conf], { stdio: ['ignore', 'ignore', 'inherit'] })
  children.push(child)
  await listening(port, child, 'haproxy')
  return { url: `http://127.0.0.1:${port}`, pids: [['haproxy', child.pid!]] }
}
