// The TLS benchmark's processes: tools run to their end, the bare server, certificates, gateway and nginx on TLS.
import { execFileSync, fork, spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { listening } from '../references/c-proxies'
import { childrenOf } from '../harness/procstat'
import { reaped } from '../harness/reap'
import { freePort, startGateway } from '../subjects'
import type { Certificate, KeyType, Running } from './tls-shapes'

const ROOT = join(__dirname, '..', '..', '..', '..')

/** Runs a command to its end (killed after `timeoutMs`), its input on stdin; stdout and stderr together. */
export function runTool(
  cmd: string,
  args: string[],
  timeoutMs: number,
  input = ''
): Promise<{ code: number | null; out: string; timedOut: boolean }> {
  return new Promise((resolve, reject) => {
    const child = reaped(spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] }))
    let out = ''
    let timedOut = false
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr.on('data', (d: Buffer) => (out += d.toString()))
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
    }, timeoutMs)
    child.on('error', (err) => {
      clearTimeout(timer)
      reject(err)
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, out, timedOut })
    })
    child.stdin.on('error', () => {
      /* the tool may exit before it reads its input */
    })
    child.stdin.end(input)
  })
}

/** Rejects when `p` has not settled within `ms`. */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not done within ${ms / 1000} s`)), ms)
  })
  return Promise.race([p, late]).finally(() => clearTimeout(timer))
}

/** Stops the processes (SIGTERM, SIGKILL after 10 s) and resolves once they have all ended. */
export async function stopAll(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve()
          const timer = setTimeout(() => child.kill('SIGKILL'), 10000)
          child.once('exit', () => {
            clearTimeout(timer)
            resolve()
          })
          child.kill('SIGTERM')
        })
    )
  )
}

/**
 * The bare uWebSockets.js server of bench/e2e/references/ceiling.ts, one thread, plain HTTP: nginx's
 * upstream.
 */
export async function startBare(children: ChildProcess[]): Promise<{ port: number; pid: number }> {
  const child = reaped(
    fork(join(__dirname, '..', 'references', 'ceiling.js'), ['0'], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] })
  )
  children.push(child)
  const port = await within(
    new Promise<number>((resolve, reject) => {
      let out = ''
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString()
        const m = /^(\d+)\n/.exec(out)
        if (m !== null) resolve(Number(m[1]))
      })
      child.once('exit', (code) => reject(new Error(`the bare server exited with ${String(code)}: ${out}`)))
    }),
    15000,
    'the bare server'
  )
  return { port, pid: child.pid! }
}

/** A self-signed certificate for localhost and 127.0.0.1, made by the openssl CLI. */
export function makeCertificate(dir: string, key: KeyType): Certificate {
  const certFile = join(dir, `${key}.crt`)
  const keyFile = join(dir, `${key}.key`)
  const keyArgs = key === 'rsa' ? ['-newkey', 'rsa:2048'] : ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256']
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      ...keyArgs,
      '-sha256',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      keyFile,
      '-out',
      certFile
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] }
  )
  return { key, certFile, keyFile, ca: readFileSync(certFile) }
}

export function ensure(): void {
  execFileSync('bash', [join(ROOT, 'scripts', 'ensure-debian.sh'), 'wrk:wrk', 'nginx:nginx-light', 'openssl:openssl'], {
    stdio: 'inherit'
  })
}

/** The gateway with `tls` on its port (ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.tls), one microservice instance. */
export async function startTlsGateway(cert: Certificate, children: ChildProcess[]): Promise<Running> {
  const tls = { certFile: cert.certFile, keyFile: cert.keyFile }
  let gw: { url: string; pids: Array<[string, number]> }
  try {
    gw = await within(
      startGateway(children, { PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__tls: JSON.stringify(tls) }),
      60000,
      'the gateway'
    )
  } catch (err) {
    throw new Error(
      `the gateway did not start with ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.tls ${JSON.stringify(tls)} ` +
        `(--subjects nginx measures nginx alone): ${err instanceof Error ? err.message : String(err)}`
    )
  }
  const url = gw.url.replace(/^http:/, 'https:')
  return { subject: 'gateway', key: cert.key, port: Number(new URL(url).port), url, pids: gw.pids, probe: null }
}

/**
 * nginx (one worker) terminating TLS with the certificate, as bench/e2e/references/c-proxies.ts
 * configures it for the plain run: upstream keep-alive to the bare server, bodies up to 64 MB held in
 * memory. TLS 1.2 and 1.3, a shared session cache and tickets; `ciphersuites` sets its TLS 1.3 suites
 * (the gateway's).
 * A second server on another port logs whether each handshake was resumed, for wrkResumption.
 */
export async function startTlsNginx(
  cert: Certificate,
  upstream: { port: number; pid: number },
  ciphersuites: string | null,
  dir: string,
  children: ChildProcess[]
): Promise<Running> {
  const home = mkdtempSync(join(dir, `nginx-${cert.key}-`))
  const port = await freePort()
  const probePort = await freePort()
  const probeLog = join(home, 'probe.log')
  const location = `location / {
      proxy_pass http://bare;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffer_size 64k;
      proxy_buffers 64 64k;
    }`
  const conf = join(home, 'nginx.conf')
  writeFileSync(
    conf,
    `worker_processes 1;
daemon off;
pid ${join(home, 'nginx.pid')};
error_log stderr error;
events { worker_connections 4096; }
http {
  access_log off;
  log_format reused '$ssl_session_reused $ssl_protocol $ssl_cipher';
  client_body_temp_path ${join(home, 'body')};
  proxy_temp_path ${join(home, 'proxy')};
  fastcgi_temp_path ${join(home, 'fastcgi')};
  uwsgi_temp_path ${join(home, 'uwsgi')};
  scgi_temp_path ${join(home, 'scgi')};
  upstream bare { server 127.0.0.1:${upstream.port}; keepalive 128; }
  ssl_certificate ${cert.certFile};
  ssl_certificate_key ${cert.keyFile};
  ssl_protocols TLSv1.2 TLSv1.3;
  ssl_session_cache shared:TLS:10m;
  ssl_session_tickets on;
${ciphersuites === null ? '' : `  ssl_conf_command Ciphersuites ${ciphersuites};\n`}  server {
    listen 127.0.0.1:${port} ssl;
    keepalive_requests 1000000;
    client_max_body_size 64m;
    client_body_buffer_size 64m;
    ${location}
  }
  server {
    listen 127.0.0.1:${probePort} ssl;
    access_log ${probeLog} reused;
    keepalive_requests 1000000;
    client_max_body_size 64m;
    client_body_buffer_size 64m;
    ${location}
  }
}
`
  )
  const child = reaped(
    spawn('nginx', ['-c', conf, '-p', home, '-e', 'stderr'], { stdio: ['ignore', 'ignore', 'inherit'] })
  )
  children.push(child)
  await listening(port, child, 'nginx')
  const deadline = Date.now() + 10000
  while (childrenOf(child.pid!).length < 1) {
    if (Date.now() > deadline) throw new Error('nginx has not started its worker within 10 s')
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    subject: 'nginx',
    key: cert.key,
    port,
    url: `https://127.0.0.1:${port}`,
    // The worker does the work (the master only waits); the bare server answers the call.
    pids: [...childrenOf(child.pid!).map((pid): [string, number] => ['nginx worker', pid]), ['bare uWS', upstream.pid]],
    probe: { port: probePort, log: probeLog }
  }
}
