// `npm run bench:tls` (issue 46, item 5): the gateway over TLS beside nginx terminating TLS with the
// same certificate, key type and TLS 1.3 cipher suite in front of the bare uWebSockets.js server (the
// ceiling, answering the same bytes), measured alternately, round by round, in one run:
//
//   keepalive-c1, keepalive-c64  small calls (ROA JSON multiply) on keep-alive connections (wrk, https)
//   resumed-rsa, resumed-ecdsa   a new connection per call: wrk with `Connection: close`. wrk keeps the
//                                TLS session of a connection it reopens (SSL_clear), so every handshake
//                                after a connection's first is a TLS 1.3 resumption (PSK with X25519, no
//                                certificate signature): measured each run from nginx's $ssl_session_reused
//   full-rsa, full-ecdsa         full handshakes: `openssl s_time -new` (no session, handshake only), K
//                                clients in parallel
//   1mb-c8                       the ~1 MB RMC JSON argument at c=8
//
// Each subject's CPU per call (gateway + microservice; nginx worker + bare server) comes from /proc, its
// new connections per call from the kernel's TCP PassiveOpens (machine-wide: other traffic adds to it).
// The negotiated protocol, cipher suite and group are read with `openssl s_client` (as wrk offers them:
// same OpenSSL defaults), and session resumption with `openssl s_client -sess_out` then `-sess_in`. One
// gateway and one nginx per key type (one listener thread, one nginx worker); the certificates (SAN
// DNS:localhost, IP:127.0.0.1) are made with the openssl CLI in a temporary directory, removed at the end
// with every process started.
//
//   node dist/bench/e2e/tls.js [--duration 5] [--rounds 3] [--warmup 1] [--subjects gateway,nginx]
//     [--cases keepalive-c1,keepalive-c64,resumed-rsa,resumed-ecdsa,full-rsa,full-ecdsa,1mb-c8]
//     [--key rsa|ecdsa] [--hs-connections 16] [--hs-clients 4] [--json FILE]
//
// --key: the certificate of the keep-alive and 1 MB cases. --subjects nginx: nginx and the bare server
// alone. Every run is appended to bench/results/tls.jsonl (not to history.jsonl: its shape is the e2e run's).
import { execFileSync, fork, spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:https'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { allCases, type BenchCase } from './cases'
import { listening } from './c-proxies'
import { childrenOf, RssWatch, sample } from './procstat'
import { reaped } from './reap'
import { commitOf, freePort, startGateway, type ProcessCost } from './run'
import { runWrk, type LoadResult } from './wrk'

const ROOT = join(__dirname, '..', '..', '..')

type KeyType = 'rsa' | 'ecdsa'
type SubjectName = 'gateway' | 'nginx'
type CaseKind = 'keepalive' | 'resumed' | 'full' | 'large'

const KEY_TITLE: Record<KeyType, string> = { rsa: 'RSA 2048', ecdsa: 'ECDSA P-256' }
const CASE_IDS = ['keepalive-c1', 'keepalive-c64', 'resumed-rsa', 'resumed-ecdsa', 'full-rsa', 'full-ecdsa', '1mb-c8']

interface Certificate {
  key: KeyType
  certFile: string
  keyFile: string
  ca: Buffer
}

/** A subject listening with one key type's certificate. */
interface Running {
  subject: SubjectName
  key: KeyType
  port: number
  url: string
  /** The processes whose CPU is the subject's cost: gateway and microservice; nginx worker and bare server. */
  pids: Array<[string, number]>
  /** nginx only: a second port logging $ssl_session_reused, and its log. */
  probe: { port: number; log: string } | null
}

interface TlsCase {
  id: string
  title: string
  kind: CaseKind
  key: KeyType
  /** wrk connections; for full handshakes, s_time clients. */
  connections: number
  bc: BenchCase
}

/** What a load generator reports of one run. */
interface Load {
  /** Calls (wrk) or handshakes (s_time). */
  calls: number
  rate: number
  /** null for s_time, which times nothing per handshake. */
  latencyMs: LoadResult['latencyMs'] | null
  errors: number
  non2xx: number
}

export interface Measured extends Load {
  subject: SubjectName
  processes: ProcessCost[]
  cpuMsPerCall: number
  /** New TCP connections accepted per call (the kernel's PassiveOpens, machine-wide); null: not readable. */
  connectionsPerCall: number | null
}

/** A subject's runs of a case: each number the median over the rounds; errors summed. */
export interface Summary {
  subject: SubjectName
  runs: number
  rate: number
  p50Ms: number | null
  p99Ms: number | null
  cpuMsPerCall: number
  connectionsPerCall: number | null
  errors: number
  non2xx: number
  /** Per process, from the run with the median rate. */
  processes: ProcessCost[]
}

export interface TlsCaseResult {
  id: string
  title: string
  kind: CaseKind
  key: KeyType
  connections: number
  gateway: Summary | null
  nginx: Summary | null
  /** gateway over nginx (null without both). */
  rateRatio: number | null
  p50Ratio: number | null
  cpuRatio: number | null
  rounds: Measured[]
}

export interface Negotiated {
  subject: SubjectName
  key: KeyType
  protocol: string | null
  ciphersuite: string | null
  group: string | null
  signature: string | null
}

export interface Resumption {
  subject: SubjectName
  key: KeyType
  /** s_client's session line of each connection ("New, TLSv1.3" / "Reused, TLSv1.3"). */
  first: string | null
  second: string | null
  /** The HTTP status each connection's call got. */
  statuses: Array<number | null>
  resumed: boolean
}

/** What nginx saw of wrk's handshakes with `Connection: close` ($ssl_session_reused). */
export interface WrkResumption {
  key: KeyType
  handshakes: number
  resumed: number
}

export interface Target {
  what: string
  case: string
  gateway: number | null
  nginx: number | null
  ratio: number | null
  needed: string
  met: boolean | null
  /** gateway CPU per call over nginx's (the bare server's included), beside the target. */
  cpuRatio: number | null
}

export interface TlsRun {
  when: string
  commit: string
  durationS: number
  rounds: number
  warmupS: number
  cpus: number
  versions: Record<string, string>
  keepAliveKey: KeyType
  /** nginx's TLS 1.3 suites, set to what the gateway negotiates (null: nginx's defaults). */
  nginxCiphersuites: Partial<Record<KeyType, string | null>>
  negotiated: Negotiated[]
  resumption: Resumption[]
  wrkResumption: WrkResumption[]
  cases: TlsCaseResult[]
  targets: Target[]
}

interface Options {
  durationS: number
  rounds: number
  warmupS: number
  subjects: SubjectName[]
  cases: string[]
  key: KeyType
  hsConnections: number
  hsClients: number
  json: string | null
  log: (line: string) => void
}

// ---------------------------------------------------------------------------------------------------
// Processes

/** Runs a command to its end (killed after `timeoutMs`), its input on stdin; stdout and stderr together. */
function runTool(
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
async function stopAll(children: ChildProcess[]): Promise<void> {
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

/** The bare uWebSockets.js server of bench/e2e/ceiling.ts, one thread, plain HTTP: nginx's upstream. */
async function startBare(children: ChildProcess[]): Promise<{ port: number; pid: number }> {
  const child = reaped(fork(join(__dirname, 'ceiling.js'), ['0'], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] }))
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

// ---------------------------------------------------------------------------------------------------
// Certificates and TLS checks

/** A self-signed certificate for localhost and 127.0.0.1, made by the openssl CLI. */
function makeCertificate(dir: string, key: KeyType): Certificate {
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

/** One HTTPS call, the certificate checked against `ca` (so each subject is seen to serve it). */
function httpsCall(url: string, bc: BenchCase, ca: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url + bc.path,
      { method: 'POST', headers: { ...bc.headers, 'Content-Length': String(bc.body.length) }, ca, agent: false },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (d: Buffer) => chunks.push(d))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }))
        res.on('error', reject)
      }
    )
    req.setTimeout(15000, () => req.destroy(new Error(`${url}${bc.path}: no answer within 15 s`)))
    req.on('error', reject)
    req.end(bc.body)
  })
}

async function check(r: Running, bc: BenchCase, ca: Buffer): Promise<void> {
  const { status, text } = await httpsCall(r.url, bc, ca)
  if (status !== 200 || (bc.expected !== null && text !== bc.expected))
    throw new Error(
      `${r.subject} (${r.key}) ${r.url}${bc.path} answered ${status} '${text.slice(0, 200)}', expected '${(bc.expected ?? '').slice(0, 200)}'`
    )
}

/** What `openssl s_client` (OpenSSL's defaults, as wrk offers them) negotiates with a subject. */
async function negotiated(r: Running): Promise<Negotiated> {
  const { out } = await runTool(
    'openssl',
    ['s_client', '-connect', `127.0.0.1:${r.port}`, '-servername', 'localhost', '-brief'],
    10000
  )
  const field = (re: RegExp): string | null => re.exec(out)?.[1]?.trim() ?? null
  return {
    subject: r.subject,
    key: r.key,
    protocol: field(/^Protocol version: (.+)$/m),
    ciphersuite: field(/^Ciphersuite: (.+)$/m),
    // "Server Temp Key: X25519, 253 bits" (OpenSSL 3.0) or "Negotiated TLS1.3 group: X25519" (3.2+).
    group: field(/^(?:Server|Peer) Temp Key: ([^,\n]+)/m) ?? field(/^Negotiated TLS1\.3 group: (.+)$/m),
    signature: field(/^Signature type: (.+)$/m)
  }
}

/** A call on a new connection saving its session, then one offering it back: was it resumed? */
async function resumption(r: Running, bc: BenchCase, dir: string): Promise<Resumption> {
  const sess = join(dir, `session-${r.subject}-${r.key}.pem`)
  const head = Object.entries({ ...bc.headers, Host: 'localhost', 'Content-Length': String(bc.body.length) })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')
  // The answer comes after the server's session tickets, and `Connection: close` ends s_client once
  // it has read it (-ign_eof: not at the end of its input).
  const call = `POST ${bc.path} HTTP/1.1\r\n${head}Connection: close\r\n\r\n${bc.body.toString()}`
  const base = ['s_client', '-connect', `127.0.0.1:${r.port}`, '-servername', 'localhost', '-ign_eof']
  const first = await runTool('openssl', [...base, '-sess_out', sess], 10000, call)
  const second = await runTool('openssl', [...base, '-sess_in', sess], 10000, call)
  const line = (out: string): string | null => /^((?:New|Reused), TLSv[\d.]+)/m.exec(out)?.[1] ?? null
  const status = (out: string): number | null => {
    const m = /^HTTP\/1\.1 (\d{3})/m.exec(out)
    return m === null ? null : Number(m[1])
  }
  const secondLine = line(second.out)
  return {
    subject: r.subject,
    key: r.key,
    first: line(first.out),
    second: secondLine,
    statuses: [status(first.out), status(second.out)],
    resumed: secondLine?.startsWith('Reused') ?? false
  }
}

/** How many of wrk's `Connection: close` handshakes nginx resumed: wrk's own behaviour, seen from the server. */
async function wrkResumption(r: Running, bc: BenchCase): Promise<WrkResumption> {
  const probe = r.probe!
  writeFileSync(probe.log, '')
  await runWrk({
    url: `https://127.0.0.1:${probe.port}${bc.path}`,
    headers: { ...bc.headers, Connection: 'close' },
    body: bc.body,
    connections: 4,
    durationS: 1
  })
  // nginx writes an unbuffered access log line by line; its last lines are there once wrk has its answers.
  const lines = readFileSync(probe.log, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
  return { key: r.key, handshakes: lines.length, resumed: lines.filter((l) => l.startsWith('r')).length }
}

// ---------------------------------------------------------------------------------------------------
// Subjects

function ensure(): void {
  execFileSync('bash', [join(ROOT, 'scripts', 'ensure-debian.sh'), 'wrk:wrk', 'nginx:nginx-light', 'openssl:openssl'], {
    stdio: 'inherit'
  })
}

/** The gateway with `tls` on its port (ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.tls), one microservice instance. */
async function startTlsGateway(cert: Certificate, children: ChildProcess[]): Promise<Running> {
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
 * nginx (one worker) terminating TLS with the certificate, as bench/e2e/c-proxies.ts configures it for
 * the plain run: upstream keep-alive to the bare server, bodies up to 64 MB held in memory. TLS 1.2
 * and 1.3, a shared session cache and tickets; `ciphersuites` sets its TLS 1.3 suites (the gateway's).
 * A second server on another port logs whether each handshake was resumed, for wrkResumption.
 */
async function startTlsNginx(
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

// ---------------------------------------------------------------------------------------------------
// Loads and measurement

async function wrkLoad(r: Running, c: TlsCase, durationS: number): Promise<Load> {
  const res = await runWrk({
    url: r.url + c.bc.path,
    headers: c.kind === 'resumed' ? { ...c.bc.headers, Connection: 'close' } : c.bc.headers,
    body: c.bc.body,
    connections: c.connections,
    durationS
  })
  return { calls: res.requests, rate: res.rps, latencyMs: res.latencyMs, errors: res.errors, non2xx: res.non2xx }
}

/** Full handshakes: `clients` `openssl s_time -new` in parallel, each a handshake at a time, no request. */
async function sTimeLoad(r: Running, clients: number, durationS: number): Promise<Load> {
  const t0 = performance.now()
  const outs = await Promise.all(
    Array.from({ length: clients }, () =>
      runTool(
        'openssl',
        ['s_time', '-connect', `127.0.0.1:${r.port}`, '-new', '-time', String(durationS)],
        (durationS + 20) * 1000
      )
    )
  )
  const wallS = (performance.now() - t0) / 1000
  let calls = 0
  for (const o of outs) {
    // "2069 connections in 0.84s; 2463.10 connections/user sec, bytes read 0"
    const m = /(\d+) connections in [\d.]+s;/.exec(o.out)
    if (o.code !== 0 || m === null)
      throw new Error(`openssl s_time against ${r.subject} (${r.key}) failed (${String(o.code)}): ${o.out.slice(-500)}`)
    calls += Number(m[1])
  }
  return { calls, rate: calls / wallS, latencyMs: null, errors: 0, non2xx: 0 }
}

function load(r: Running, c: TlsCase, durationS: number): Promise<Load> {
  return c.kind === 'full' ? sTimeLoad(r, c.connections, durationS) : wrkLoad(r, c, durationS)
}

/** The kernel's count of accepted TCP connections (this network namespace). */
function passiveOpens(): number | null {
  try {
    const lines = readFileSync('/proc/net/snmp', 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('Tcp:'))
    const names = lines[0]?.split(/\s+/) ?? []
    const values = lines[1]?.split(/\s+/) ?? []
    const k = names.indexOf('PassiveOpens')
    return k < 0 || values[k] === undefined ? null : Number(values[k])
  } catch {
    return null
  }
}

async function measure(r: Running, c: TlsCase, durationS: number): Promise<Measured> {
  const before = r.pids.map(([, pid]) => sample(pid))
  const watch = new RssWatch(r.pids.map(([, pid]) => pid))
  const opens = passiveOpens()
  const t0 = performance.now()
  const l = await load(r, c, durationS)
  const wallS = (performance.now() - t0) / 1000
  const opened = passiveOpens()
  watch.stop()
  const processes = r.pids.map(([name, pid], k): ProcessCost => {
    const after = sample(pid)
    const b = before[k]
    const cpu = after !== null && b != null ? after.cpuMs - b.cpuMs : 0
    const system = after !== null && b != null ? after.systemMs - b.systemMs : 0
    const rss = watch.series.get(pid) ?? []
    return {
      name,
      pid,
      cpuMsPerRequest: l.calls > 0 ? cpu / l.calls : 0,
      systemShare: cpu > 0 ? system / cpu : 0,
      cpuPercent: (100 * cpu) / 1000 / wallS,
      rssMb: (rss.length > 0 ? Math.max(...rss) : (after?.rssBytes ?? 0)) / 2 ** 20
    }
  })
  return {
    ...l,
    subject: r.subject,
    processes,
    cpuMsPerCall: processes.reduce((n, p) => n + p.cpuMsPerRequest, 0),
    connectionsPerCall: opens === null || opened === null || l.calls === 0 ? null : (opened - opens) / l.calls
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

function summarize(subject: SubjectName, runs: Measured[]): Summary | null {
  if (runs.length === 0) return null
  const byRate = [...runs].sort((a, b) => a.rate - b.rate)[Math.floor(runs.length / 2)]!
  const lat = runs.map((m) => m.latencyMs).filter((x): x is LoadResult['latencyMs'] => x !== null)
  const conns = runs.map((m) => m.connectionsPerCall).filter((x): x is number => x !== null)
  return {
    subject,
    runs: runs.length,
    rate: median(runs.map((m) => m.rate)),
    p50Ms: lat.length === 0 ? null : median(lat.map((x) => x.p50)),
    p99Ms: lat.length === 0 ? null : median(lat.map((x) => x.p99)),
    cpuMsPerCall: median(runs.map((m) => m.cpuMsPerCall)),
    connectionsPerCall: conns.length === 0 ? null : median(conns),
    errors: runs.reduce((n, m) => n + m.errors, 0),
    non2xx: runs.reduce((n, m) => n + m.non2xx, 0),
    processes: byRate.processes
  }
}

// ---------------------------------------------------------------------------------------------------
// Report

const f = (x: number | null, d = 0): string => (x === null ? '-' : x.toFixed(d))

function targets(cases: TlsCaseResult[]): Target[] {
  const out: Target[] = []
  const of = (id: string): TlsCaseResult | undefined => cases.find((c) => c.id === id)
  const c64 = of('keepalive-c64')
  if (c64 !== undefined)
    out.push({
      what: 'keep-alive small calls c=64: gateway req/s ≥ nginx req/s',
      case: c64.id,
      gateway: c64.gateway?.rate ?? null,
      nginx: c64.nginx?.rate ?? null,
      ratio: c64.rateRatio,
      needed: '≥ 1.00',
      met: c64.rateRatio === null ? null : c64.rateRatio >= 1,
      cpuRatio: c64.cpuRatio
    })
  const c1 = of('keepalive-c1')
  if (c1 !== undefined)
    out.push({
      what: 'keep-alive small calls c=1: gateway p50 within 1.3× nginx p50',
      case: c1.id,
      gateway: c1.gateway?.p50Ms ?? null,
      nginx: c1.nginx?.p50Ms ?? null,
      ratio: c1.p50Ratio,
      needed: '≤ 1.30',
      met: c1.p50Ratio === null ? null : c1.p50Ratio <= 1.3,
      cpuRatio: c1.cpuRatio
    })
  for (const id of ['full-rsa', 'full-ecdsa', 'resumed-rsa', 'resumed-ecdsa']) {
    const c = of(id)
    if (c === undefined) continue
    out.push({
      what: `${c.kind === 'full' ? 'full' : 'resumed (wrk)'} handshakes/s, ${KEY_TITLE[c.key]}: gateway ≥ 0.8× nginx`,
      case: c.id,
      gateway: c.gateway?.rate ?? null,
      nginx: c.nginx?.rate ?? null,
      ratio: c.rateRatio,
      needed: '≥ 0.80',
      met: c.rateRatio === null ? null : c.rateRatio >= 0.8,
      cpuRatio: c.cpuRatio
    })
  }
  return out
}

export function report(r: TlsRun): string {
  const lines: string[] = []
  lines.push(
    `TLS: gateway (1 listener thread, 1 microservice instance) beside nginx (1 worker) in front of the bare uWS server; ${r.rounds} round${r.rounds > 1 ? 's' : ''} of ${r.durationS} s, alternating; medians of the rounds; ${r.cpus} cores`
  )
  lines.push(
    Object.entries(r.versions)
      .map(([k, v]) => `${k} ${v}`)
      .join('; ')
  )
  lines.push('\nNegotiated (openssl s_client with OpenSSL defaults, as wrk offers them):')
  for (const n of r.negotiated)
    lines.push(
      `  ${n.subject.padEnd(7)} ${KEY_TITLE[n.key].padEnd(11)} ${n.protocol ?? '?'} ${n.ciphersuite ?? '?'}, group ${n.group ?? '?'}, signature ${n.signature ?? '?'}`
    )
  for (const [key, suites] of Object.entries(r.nginxCiphersuites))
    lines.push(
      `  nginx ${key}: ${suites === null ? "TLS 1.3 suites: OpenSSL's defaults (no gateway to match)" : `ssl_conf_command Ciphersuites ${suites} (the gateway's)`}`
    )
  const mismatch = (['rsa', 'ecdsa'] as const).filter((k) => {
    const g = r.negotiated.find((n) => n.subject === 'gateway' && n.key === k)
    const x = r.negotiated.find((n) => n.subject === 'nginx' && n.key === k)
    return g !== undefined && x !== undefined && (g.ciphersuite !== x.ciphersuite || g.protocol !== x.protocol)
  })
  if (mismatch.length > 0) lines.push(`  WARNING: the subjects negotiate differently with ${mismatch.join(', ')}`)
  lines.push('\nSession resumption (openssl s_client -sess_out, then -sess_in):')
  for (const s of r.resumption)
    lines.push(
      `  ${s.subject.padEnd(7)} ${KEY_TITLE[s.key].padEnd(11)} ${s.resumed ? 'resumed' : 'NOT resumed'} (${s.first ?? '?'} → ${s.second ?? '?'}; answers ${s.statuses.map((x) => x ?? '?').join(', ')})`
    )
  for (const w of r.wrkResumption)
    lines.push(
      `  wrk, Connection: close, against nginx ${KEY_TITLE[w.key]}: ${w.resumed} of ${w.handshakes} handshakes resumed ($ssl_session_reused)`
    )
  for (const c of r.cases) {
    const unit = c.kind === 'full' || c.kind === 'resumed' ? 'handshakes/s' : 'req/s'
    const load =
      c.kind === 'full'
        ? `${c.connections} openssl s_time -new clients`
        : `wrk c=${c.connections}${c.kind === 'resumed' ? ', Connection: close' : ''}`
    lines.push(`\n${c.title} (${c.id}), ${KEY_TITLE[c.key]}, ${load}`)
    lines.push(
      `subject | ${unit.padStart(12)} | p50 ms | p99 ms | errors | non-2xx | conn/call | CPU ms/call | per process (ms/call; kernel's share, max RSS MB)`
    )
    for (const s of [c.gateway, c.nginx]) {
      if (s === null) continue
      const per = s.processes
        .map((p) => `${p.name} ${p.cpuMsPerRequest.toFixed(4)} (sys ${f(100 * p.systemShare)} %, ${f(p.rssMb)} MB)`)
        .join(', ')
      lines.push(
        `${s.subject.padEnd(7)} | ${f(s.rate).padStart(12)} | ${f(s.p50Ms, 3).padStart(6)} | ${f(s.p99Ms, 2).padStart(6)} | ${String(s.errors).padStart(6)} | ${String(s.non2xx).padStart(7)} | ${f(s.connectionsPerCall, 2).padStart(9)} | ${f(s.cpuMsPerCall, 4).padStart(11)} | ${per}`
      )
    }
    if (c.rateRatio !== null)
      lines.push(
        `gateway/nginx: ${unit} ${f(c.rateRatio, 2)}${c.p50Ratio === null ? '' : `, p50 ${f(c.p50Ratio, 2)}×`}, CPU per call ${f(c.cpuRatio, 2)}×`
      )
    if (c.kind === 'full' || c.kind === 'resumed') {
      // The clients run on the same cores: the rate is partly theirs. A subject's own CPU per handshake
      // says how many it would make on a core of its own.
      const perCore = [c.gateway, c.nginx]
        .filter((s): s is Summary => s !== null && s.cpuMsPerCall > 0)
        .map((s) => `${s.subject} ${f(1000 / s.cpuMsPerCall)}`)
      if (perCore.length > 0)
        lines.push(
          `${c.kind === 'full' ? 'handshakes' : 'calls (a handshake each)'} per second of server CPU: ${perCore.join(', ')}`
        )
    }
    if (c.kind === 'resumed')
      lines.push("  (wrk's latency starts once a connection is up: p50 and p99 leave the handshake out)")
    if (c.kind === 'resumed' && (c.gateway?.errors ?? 0) > 0)
      lines.push(
        '  (uWS closes a `Connection: close` call without saying so in its answer: wrk counts each close as a read error)'
      )
  }
  if (r.targets.length > 0) {
    lines.push('\nTargets (issue 46, item 5)')
    lines.push(
      'target                                                          |  gateway |    nginx | ratio | needed | met | CPU/call gateway/nginx'
    )
    for (const t of r.targets) {
      const d = t.case === 'keepalive-c1' ? 3 : 0
      lines.push(
        `${t.what.padEnd(63)} | ${f(t.gateway, d).padStart(8)} | ${f(t.nginx, d).padStart(8)} | ${f(t.ratio, 2).padStart(5)} | ${t.needed.padStart(6)} | ${(t.met === null ? 'n/a' : t.met ? 'yes' : 'NO').padEnd(3)} | ${t.cpuRatio === null ? '-' : `${f(t.cpuRatio, 2)}×`}`
      )
    }
  }
  return lines.join('\n')
}

// ---------------------------------------------------------------------------------------------------
// The run

function tlsCases(o: Options): TlsCase[] {
  const all = allCases()
  const small = all.find((c) => c.name === 'roa-json')!
  const big = all.find((c) => c.name === 'rmc-json-1mb')!
  const every: TlsCase[] = [
    { id: 'keepalive-c1', title: 'keep-alive small calls', kind: 'keepalive', key: o.key, connections: 1, bc: small },
    { id: 'keepalive-c64', title: 'keep-alive small calls', kind: 'keepalive', key: o.key, connections: 64, bc: small },
    ...(['rsa', 'ecdsa'] as const).map((key): TlsCase => ({
      id: `resumed-${key}`,
      title: 'a new connection per call (resumed handshakes)',
      kind: 'resumed',
      key,
      connections: o.hsConnections,
      bc: small
    })),
    ...(['rsa', 'ecdsa'] as const).map((key): TlsCase => ({
      id: `full-${key}`,
      title: 'full handshakes, no call',
      kind: 'full',
      key,
      connections: o.hsClients,
      bc: small
    })),
    { id: '1mb-c8', title: big.title, kind: 'large', key: o.key, connections: 8, bc: big }
  ]
  return every.filter((c) => o.cases.includes(c.id))
}

async function run(o: Options, dir: string, children: ChildProcess[]): Promise<TlsRun> {
  ensure()
  const cases = tlsCases(o)
  if (cases.length === 0) throw new Error(`no case selected: --cases takes some of ${CASE_IDS.join(',')}`)
  const keys = (['rsa', 'ecdsa'] as const).filter((k) => cases.some((c) => c.key === k))
  const certs = new Map(keys.map((k) => [k, makeCertificate(dir, k)]))
  o.log(`certificates: ${keys.map((k) => KEY_TITLE[k]).join(', ')} (SAN DNS:localhost, IP:127.0.0.1)`)
  const bare = await startBare(children)
  const running = new Map<string, Running>()
  const at = (s: SubjectName, k: KeyType): Running | undefined => running.get(`${s}/${k}`)
  const negotiations: Negotiated[] = []
  const nginxCiphersuites: Partial<Record<KeyType, string | null>> = {}
  for (const key of keys) {
    const cert = certs.get(key)!
    let suites: string | null = null
    if (o.subjects.includes('gateway')) {
      const g = await startTlsGateway(cert, children)
      running.set(`gateway/${key}`, g)
      const n = await negotiated(g)
      negotiations.push(n)
      // nginx gets the gateway's TLS 1.3 suite, so both run the same cipher for the same client.
      if (n.protocol === 'TLSv1.3' && n.ciphersuite !== null) suites = n.ciphersuite
      o.log(`gateway ${KEY_TITLE[key]}: ${g.url}, ${n.protocol ?? '?'} ${n.ciphersuite ?? '?'}`)
    }
    if (o.subjects.includes('nginx')) {
      const x = await startTlsNginx(cert, bare, suites, dir, children)
      running.set(`nginx/${key}`, x)
      nginxCiphersuites[key] = suites
      const n = await negotiated(x)
      negotiations.push(n)
      o.log(`nginx ${KEY_TITLE[key]}: ${x.url}, ${n.protocol ?? '?'} ${n.ciphersuite ?? '?'}`)
    }
  }
  const small = allCases().find((c) => c.name === 'roa-json')!
  const resumptions: Resumption[] = []
  const wrkResumptions: WrkResumption[] = []
  for (const r of running.values()) {
    const ca = certs.get(r.key)!.ca
    for (const bc of new Set(cases.filter((c) => c.key === r.key).map((c) => c.bc))) await check(r, bc, ca)
    resumptions.push(await resumption(r, small, dir))
    if (r.probe !== null && cases.some((c) => c.kind === 'resumed' && c.key === r.key))
      wrkResumptions.push(await wrkResumption(r, small))
  }
  for (const w of wrkResumptions)
    o.log(`wrk with Connection: close, nginx ${KEY_TITLE[w.key]}: ${w.resumed} of ${w.handshakes} handshakes resumed`)

  const subjectCount = o.subjects.length
  const planned = cases.length * subjectCount * (o.warmupS + o.rounds * o.durationS)
  const t0 = Date.now()
  const progress = (line: string): string => {
    const elapsed = (Date.now() - t0) / 1000
    return `  [${elapsed.toFixed(0)} s elapsed, about ${Math.max(0, planned - elapsed).toFixed(0)} s left] ${line}`
  }
  o.log(`${cases.length} cases × ${subjectCount} subjects: about ${planned} s of load`)
  const results: TlsCaseResult[] = []
  for (const c of cases) {
    const subjects = o.subjects.map((s) => at(s, c.key)!)
    o.log(`${c.id}: ${c.title}, ${KEY_TITLE[c.key]}, ${c.kind === 'full' ? 's_time clients' : 'c'}=${c.connections}`)
    if (o.warmupS > 0) for (const r of subjects) await load(r, c, o.warmupS)
    const runs: Measured[] = []
    for (let k = 0; k < o.rounds; k++) {
      // Alternate which goes first, so neither always runs on the warmer machine.
      for (const r of k % 2 === 0 ? subjects : [...subjects].reverse()) {
        const m = await measure(r, c, o.durationS)
        runs.push(m)
        o.log(
          progress(
            `${c.id} round ${k + 1}/${o.rounds}: ${r.subject} ${m.rate.toFixed(0)}/s${m.latencyMs === null ? '' : `, p50 ${m.latencyMs.p50.toFixed(3)} ms, p99 ${m.latencyMs.p99.toFixed(2)} ms`}, CPU ${m.cpuMsPerCall.toFixed(4)} ms/call, errors ${m.errors + m.non2xx}`
          )
        )
      }
    }
    const g = summarize(
      'gateway',
      runs.filter((m) => m.subject === 'gateway')
    )
    const x = summarize(
      'nginx',
      runs.filter((m) => m.subject === 'nginx')
    )
    const both = g !== null && x !== null
    results.push({
      id: c.id,
      title: c.title,
      kind: c.kind,
      key: c.key,
      connections: c.connections,
      gateway: g,
      nginx: x,
      rateRatio: both ? g.rate / x.rate : null,
      p50Ratio: both && g.p50Ms !== null && x.p50Ms !== null ? g.p50Ms / Math.max(x.p50Ms, 0.001) : null,
      cpuRatio: both ? g.cpuMsPerCall / Math.max(x.cpuMsPerCall, 1e-9) : null,
      rounds: runs
    })
  }
  return {
    when: new Date().toISOString(),
    commit: commitOf(),
    durationS: o.durationS,
    rounds: o.rounds,
    warmupS: o.warmupS,
    cpus: availableParallelism(),
    versions: versions(),
    keepAliveKey: o.key,
    nginxCiphersuites,
    negotiated: negotiations,
    resumption: resumptions,
    wrkResumption: wrkResumptions,
    cases: results,
    targets: targets(results)
  }
}

function versions(): Record<string, string> {
  const first = (cmd: string, args: string[]): string => {
    const r = spawnSync(cmd, args, { encoding: 'utf8' })
    return `${r.stdout ?? ''}${r.stderr ?? ''}`.split('\n')[0]?.trim() ?? '?'
  }
  let uws = '?'
  try {
    uws = (
      JSON.parse(readFileSync(join(ROOT, 'node_modules', 'uWebSockets.js', 'package.json'), 'utf8')) as {
        version: string
      }
    ).version
  } catch {
    /* not installed where expected */
  }
  return {
    node: process.version,
    'uWebSockets.js': `${uws} (BoringSSL)`,
    nginx: first('nginx', ['-v']).replace(/^nginx version: /, ''),
    openssl: first('openssl', ['version']),
    wrk: first('wrk', ['-v']).replace(/ Copyright.*$/, '')
  }
}

// ---------------------------------------------------------------------------------------------------
// Command line

function arg(name: string, fallback: string): string {
  const k = process.argv.indexOf(`--${name}`)
  return k > 0 && process.argv[k + 1] !== undefined ? process.argv[k + 1]! : fallback
}

function count(name: string, fallback: string, max: number): number {
  const n = Number(arg(name, fallback))
  if (!Number.isFinite(n) || n <= 0 || n > max) throw new Error(`--${name} takes a number from 1 to ${max}`)
  return n
}

function options(): Options {
  const subjects = arg('subjects', 'gateway,nginx').split(',')
  if (subjects.length === 0 || subjects.some((s) => s !== 'gateway' && s !== 'nginx'))
    throw new Error('--subjects takes gateway, nginx or both')
  const cases = arg('cases', CASE_IDS.join(',')).split(',')
  const unknown = cases.filter((c) => !CASE_IDS.includes(c))
  if (unknown.length > 0) throw new Error(`unknown case ${unknown.join(', ')}: --cases takes ${CASE_IDS.join(',')}`)
  const key = arg('key', 'rsa')
  if (key !== 'rsa' && key !== 'ecdsa') throw new Error('--key takes rsa or ecdsa')
  const warmupS = Number(arg('warmup', '1'))
  if (!Number.isFinite(warmupS) || warmupS < 0 || warmupS > 60) throw new Error('--warmup takes 0 to 60 seconds')
  return {
    durationS: Math.round(count('duration', '5', 300)),
    rounds: Math.round(count('rounds', '3', 20)),
    warmupS: Math.round(warmupS),
    subjects: [...new Set(subjects as SubjectName[])],
    cases,
    key,
    hsConnections: Math.round(count('hs-connections', '16', 512)),
    hsClients: Math.round(count('hs-clients', '4', 32)),
    json: process.argv.includes('--json') ? arg('json', '') : null,
    log: (line) => process.stderr.write(line + '\n')
  }
}

async function main(): Promise<void> {
  const o = options()
  // Every file of the run lives under one directory removed at the end: the certificates, nginx's, and
  // (through TMPDIR, which os.tmpdir() reads at each call) the platform's home and wrk's scripts.
  const dir = mkdtempSync(join(tmpdir(), 'bench-tls-'))
  process.env.TMPDIR = dir
  const children: ChildProcess[] = []
  let cleaning: Promise<void> | null = null
  const cleanup = (): Promise<void> =>
    (cleaning ??= stopAll(children).finally(() => rmSync(dir, { recursive: true, force: true })))
  // Ctrl+C or SIGTERM: stop the processes and remove the directory, then end by the signal. Installed
  // before bench/e2e/reap.ts's handler (at the first process started), which raises the signal again
  // at once: this listener, still there, keeps the process alive until the cleanup is done.
  let signalled: NodeJS.Signals | null = null
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signalled !== null) return
    signalled = signal
    o.log(`${signal}: stopping`)
    void cleanup().finally(() => {
      for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.removeListener(s, onSignal)
      process.kill(process.pid, signal)
    })
  }
  for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(s, onSignal)
  let result: TlsRun
  try {
    result = await run(o, dir, children)
  } catch (err) {
    if (signalled !== null) return
    throw err
  } finally {
    await cleanup()
  }
  console.log(report(result))
  const results = join(ROOT, 'bench', 'results')
  mkdirSync(results, { recursive: true })
  appendFileSync(join(results, 'tls.jsonl'), JSON.stringify(result) + '\n')
  if (o.json !== null) writeFileSync(o.json, JSON.stringify(result, null, 2))
}

if (require.main === module)
  main().catch((err: unknown) => {
    console.error(err)
    process.exit(1)
  })
