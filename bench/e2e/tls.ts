// `npm run bench:tls`: the gateway over TLS beside nginx terminating TLS with the
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
import { spawnSync, type ChildProcess } from 'node:child_process'
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { allCases } from './cases'
import { commitOf } from './commit'
import { check, negotiated, resumption, wrkResumption } from './tls/handshakes'
import { load, measure, summarize } from './tls/tls-load'
import { ensure, makeCertificate, startBare, startTlsGateway, startTlsNginx, stopAll } from './tls/tls-servers'
import {
  CASE_IDS,
  KEY_TITLE,
  type KeyType,
  type Measured,
  type Negotiated,
  type Options,
  type Resumption,
  type Running,
  type SubjectName,
  type TlsCase,
  type TlsCaseResult,
  type TlsRun,
  type WrkResumption
} from './tls/tls-shapes'
import { report, targets } from './tls/tls-tables'

const ROOT = join(__dirname, '..', '..', '..')

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
  // before bench/e2e/harness/reap.ts's handler (at the first process started), which raises the signal
  // again at once: this listener, still there, keeps the process alive until the cleanup is done.
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
