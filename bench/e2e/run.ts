// The e2e benchmark: the platform (gateway + example microservice, separate processes as in
// production) against two references in the same run: a bare uWS server answering the same request
// in-process (the ceiling) and the internal protocol alone (the floor). wrk drives the HTTP load;
// subject and ceiling alternate, so drift on a shared machine hits both alike.
//
//   node dist/bench/e2e/run.js [--cases a,b] [--duration 10] [--connections 64] [--rounds 1]
//     [--target http://host:port] [--no-floor] [--soak 60] [--json FILE] [--history] [--compare FILE]
//     [--proxy] [--hop] [--refs] [--threads 1,2,4 [--instances K]]
//
// --threads measures the scaling curve: for each count N, a gateway with N listener threads (and N
// instances of the example microservice when the machine has cores to pin them apart, else one; K
// with --instances), a ceiling with N threads and, with --refs, nginx with N workers and HAProxy with
// N threads in front of it, all in the same run.
import { fork, type ChildProcess } from 'node:child_process'
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { execFileSync } from 'node:child_process'
import { allCases, loadCaseFile, type BenchCase } from './cases'
import { runWrk, type LoadResult, type LoadSpec } from './wrk'
import { sample, childrenOf, RssWatch } from './procstat'
import { reaped } from './reap'
import { gcFlags } from '../../src/common/process/gc-flags'
import { startHaproxyRef, startNginxRef } from './c-proxies'
import { allowedCpus, hasTaskset, pin } from './pin'

export interface ProcessCost {
  name: string
  pid: number
  cpuMsPerRequest: number
  /** The kernel's part of cpuMsPerRequest, 0 to 1 (docs/performance.md, "One call alone, user and system"). */
  systemShare: number
  cpuPercent: number
  rssMb: number
}
/** What is measured: the gateway, and the references it is compared with in the same run. */
export type Subject = 'gateway' | 'ceiling' | 'floor' | 'proxy' | 'hop' | 'nginx' | 'haproxy'
/** The references measured beside the gateway and the ceiling, when asked for. */
type Extra = 'proxy' | 'hop' | 'nginx' | 'haproxy'

export interface SubjectResult {
  subject: Subject
  rps: number
  latencyMs: LoadResult['latencyMs']
  errors: number
  non2xx: number
  requests: number
  processes: ProcessCost[]
}
export interface CaseResult {
  case: string
  title: string
  connections: number
  gateway: SubjectResult
  ceiling: SubjectResult
  floor: SubjectResult | null
  /** The fastify + undici proxy in front of a node:http backend (with --proxy). */
  proxy?: SubjectResult | null
  ratio: number
  p50Ratio: number
  /** gateway req/s over the proxy's (with --proxy). */
  proxyRatio?: number | null
  /** The bare hop (bench/e2e/bare-hop.ts, with --hop): two processes and a Unix socket, no gateway work. */
  hop?: SubjectResult | null
  /** nginx (one worker) and HAProxy (one thread) in front of the ceiling's server (with --refs). */
  nginx?: SubjectResult | null
  haproxy?: SubjectResult | null
}
export interface RunResult {
  when: string
  commit: string
  durationS: number
  /** With --threads: the cases at the first thread count measured (1), as a run without it gives them. */
  cases: CaseResult[]
  soak: SoakResult | null
  /** The scaling curve (with --threads). */
  threads?: ThreadsRun | null
}
/** The scaling curve (--threads): every case at every thread count, measured in one run. */
export interface ThreadsRun {
  /** The thread counts, ascending; 1 is always among them (scaling is over the rate at 1). */
  counts: number[]
  /** Whether the servers and the clients ran on cores of their own, and why not when they did not. */
  pinned: boolean
  pinning: string
  cases: ThreadsCase[]
}
export interface ThreadsCase {
  case: string
  title: string
  connections: number
  points: ThreadsPoint[]
}
/** One case at one thread count. */
export interface ThreadsPoint {
  threads: number
  /** Instances of the example microservice behind the gateway. */
  instances: number
  /** wrk's threads: one per listener thread, as far as the cores and connections allow. */
  wrkThreads: number
  /** The CPUs of the servers (gateway, ceiling, proxies), and of wrk and the microservices (null: not pinned). */
  serverCpus: string | null
  clientCpus: string | null
  /** Measured as a run without --threads measures a case (the floor only at 1 thread: it has none). */
  result: CaseResult
  /** Each subject's req/s over its req/s at 1 thread. */
  scaling: Partial<Record<Subject, number>>
  /** gateway req/s over nginx's and HAProxy's at this count (with --refs). */
  nginxRatio: number | null
  haproxyRatio: number | null
  /** The gateway's scaling over the ceiling's: 1 is scaling as well as a bare uWS server does. */
  scalingRatio: number
  /** The gateway process's CPU per call over its CPU per call at 1 thread; and with the microservices'. */
  gatewayCpuRatio: number
  platformCpuRatio: number
}
export interface SoakResult {
  seconds: number
  processes: Array<{ name: string; startMb: number; endMb: number; growthPercent: number }>
}

export interface RunOptions {
  cases: string[]
  /** Extra cases from a file (your own endpoints); run against `target`. */
  caseFile: string | null
  durationS: number
  connections: number
  rounds: number
  warmupS: number
  floor: boolean
  target: string | null
  soakS: number
  /** Also measure the fastify + undici proxy reference (bench/e2e/fastify-proxy.ts) each round. */
  proxy?: boolean
  /** Also measure the bare hop (bench/e2e/bare-hop.ts) each round. */
  hop?: boolean
  /** Also measure nginx and HAProxy in front of the ceiling's server (bench/e2e/c-proxies.ts) each round. */
  refs?: boolean
  /** Load before the soak's RSS samples start (V8 grows its old space once in the first minute). */
  soakWarmupS: number
  /** The thread counts of the scaling curve (--threads 1,2,4); absent, null or empty: one run as before. */
  threads?: number[] | null
  /**
   * Instances of the example microservice at every count (--instances); default: one per listener
   * thread when pinned, else one.
   */
  instances?: number | null
  log: (line: string) => void
}

const ROOT = join(__dirname, '..', '..', '..')
const DIST = join(__dirname, '..', '..')

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
    s.on('error', reject)
  })
}

function start(
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
  execArgv: string[] = process.execArgv
): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  return new Promise((resolve, reject) => {
    const child = reaped(
      fork(file, args, {
        env: { ...process.env, ...env },
        execArgv,
        stdio: ['ignore', 'pipe', 'inherit', 'ipc']
      })
    )
    let out = ''
    const onData = (d: Buffer): void => {
      out += d.toString()
      const m = ready.exec(out)
      if (m !== null) {
        child.stdout!.off('data', onData)
        child.stdout!.resume()
        resolve({ child, match: m })
      }
    }
    child.stdout!.on('data', onData)
    child.once('exit', (code) => reject(new Error(`${file} exited with ${String(code)} before it was ready: ${out}`)))
  })
}

async function check(url: string, bc: BenchCase): Promise<void> {
  const res = await fetch(url + bc.path, { method: 'POST', headers: bc.headers, body: bc.body })
  const text = await res.text()
  if (res.status !== 200 || (bc.expected !== null && text !== bc.expected)) {
    throw new Error(
      `${url}${bc.path} answered ${res.status} '${text.slice(0, 200)}', expected ${bc.expected === null ? 'a 200' : `'${bc.expected.slice(0, 200)}'`}`
    )
  }
}

async function measure(
  subject: Subject,
  url: string,
  bc: BenchCase,
  connections: number,
  durationS: number,
  pids: Array<[string, number]>,
  load: Pick<LoadSpec, 'threads' | 'cpus'> = {}
): Promise<SubjectResult> {
  const before = pids.map(([, pid]) => sample(pid))
  const watch = new RssWatch(pids.map(([, pid]) => pid))
  const t0 = Date.now()
  const r = await runWrk({ url: url + bc.path, headers: bc.headers, body: bc.body, connections, durationS, ...load })
  const wall = (Date.now() - t0) / 1000
  watch.stop()
  const processes = pids.map(([name, pid], k) => {
    const after = sample(pid)
    const cpu = after !== null && before[k] != null ? after.cpuMs - before[k]!.cpuMs : 0
    const system = after !== null && before[k] != null ? after.systemMs - before[k]!.systemMs : 0
    const rss = watch.series.get(pid)!
    return {
      name,
      pid,
      cpuMsPerRequest: r.requests > 0 ? cpu / r.requests : 0,
      systemShare: cpu > 0 ? system / cpu : 0,
      cpuPercent: (100 * cpu) / 1000 / wall,
      rssMb: (rss.length > 0 ? Math.max(...rss) : (after?.rssBytes ?? 0)) / 2 ** 20
    }
  })
  return {
    subject,
    rps: r.rps,
    latencyMs: r.latencyMs,
    errors: r.errors,
    non2xx: r.non2xx,
    requests: r.requests,
    processes
  }
}

async function floorRun(bc: BenchCase, connections: number, durationS: number): Promise<SubjectResult> {
  const { child, match } = await start(
    join(__dirname, 'floor.js'),
    [bc.name, String(connections), String(durationS)],
    {},
    /JSON (\{.*\})\n/
  )
  const j = JSON.parse(match[1]!) as {
    requests: number
    rps: number
    latencyMs: { p50: number; p99: number; p999: number }
  }
  await new Promise((r) => child.once('exit', r))
  return {
    subject: 'floor',
    rps: j.rps,
    latencyMs: { mean: 0, p50: j.latencyMs.p50, p90: 0, p99: j.latencyMs.p99, p999: j.latencyMs.p999, max: 0 },
    errors: 0,
    non2xx: 0,
    requests: j.requests,
    processes: []
  }
}

function median<T>(runs: T[], key: (t: T) => number): T {
  return [...runs].sort((a, b) => key(a) - key(b))[Math.floor(runs.length / 2)]!
}

/** The settings of a platform of a bench's own: loopback ports, and directories under `home`. */
export function benchPlatformEnv(home: string, port: number, edgePort: number): Record<string, string> {
  return {
    PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__host: '"127.0.0.1"',
    PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__port: String(port),
    PLATFORM__PLATFORM__uploadDirectory: JSON.stringify(join(home, 'upload')),
    PLATFORM__PLATFORM__deploymentDirectory: JSON.stringify(join(home, 'deployments')),
    PLATFORM__PLATFORM__controlSocket: JSON.stringify(join(home, 'control.sock')),
    PLATFORM__EDGE__host: '"127.0.0.1"',
    PLATFORM__EDGE__port: String(edgePort)
  }
}

/**
 * A platform of its own (gateway, example microservice) on free loopback ports; its processes go to
 * `children`. `env` adds settings (the scaling curve's threads and instances); `instances` is how many
 * microservice processes to wait for.
 */
export async function startGateway(
  children: ChildProcess[],
  env: Record<string, string> = {},
  instances = 1
): Promise<{ url: string; pids: Array<[string, number]> }> {
  const port = await freePort()
  const edgePort = await freePort()
  // A deployment directory of its own: the run never touches (or waits on) a running platform's.
  const home = mkdtempSync(join(tmpdir(), 'bench-platform-'))
  const gw = await start(
    join(DIST, 'src', 'main.js'),
    [],
    {
      ...benchPlatformEnv(home, port, edgePort),
      PLATFORM__ADMIN__enabled: 'false',
      // The gate's baseline is the bare call path; the cost of logs and metrics is measured on its own
      // (docs/operating.md, "What it costs"), with IGW_BENCH_ACCESS_LOG=true and IGW_BENCH_METRICS=true.
      PLATFORM__LOGGING__accessLog: process.env.IGW_BENCH_ACCESS_LOG ?? 'false',
      ...(process.env.IGW_BENCH_METRICS === 'true'
        ? { PLATFORM__ADMIN__enabled: 'true', PLATFORM__ADMIN__port: '0', PLATFORM__ADMIN__metrics: 'true' }
        : {}),
      // RATE_LIMITS.rules as JSON (bench/e2e/limits.ts measures what they cost).
      ...(process.env.IGW_BENCH_RATE_LIMITS === undefined
        ? {}
        : {
            PLATFORM__RATE_LIMITS__rules: process.env.IGW_BENCH_RATE_LIMITS,
            PLATFORM__RATE_LIMITS__headers: process.env.IGW_BENCH_RATE_LIMIT_HEADERS ?? 'true',
            PLATFORM__RATE_LIMITS__redis: process.env.IGW_BENCH_RATE_LIMITS_REDIS ?? 'null'
          }),
      ...env
    },
    /(gateway listening)/,
    // As `npm start` runs it (scripts/start.mjs): with the platform's V8 flags.
    [...process.execArgv, ...gcFlags()]
  )
  children.push(gw.child)
  // The platform starts every instance before it listens, so they are all there; a missing one would
  // leave its CPU out of the cost per call.
  const deadline = Date.now() + 5000
  while (childrenOf(gw.child.pid!).length < instances) {
    if (Date.now() > deadline) throw new Error(`the platform has not started ${instances} microservice instances`)
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    url: `http://127.0.0.1:${port}`,
    pids: [
      ['gateway', gw.child.pid!],
      ...childrenOf(gw.child.pid!).map((pid): [string, number] => ['microservice', pid])
    ]
  }
}

/** The bare hop's two processes (bench/e2e/bare-hop.ts); they go to `children`. */
export async function startHop(children: ChildProcess[]): Promise<{ url: string; pids: Array<[string, number]> }> {
  const path = join(mkdtempSync(join(tmpdir(), 'bench-hop-')), 'hop.sock')
  const backend = await start(join(__dirname, 'bare-hop.js'), ['backend', path], {}, /^(ready)\n/)
  children.push(backend.child)
  const front = await start(join(__dirname, 'bare-hop.js'), ['front', path], {}, /^(\d+)\n/)
  children.push(front.child)
  return {
    url: `http://127.0.0.1:${front.match[1]}`,
    pids: [
      ['front', front.child.pid!],
      ['backend', backend.child.pid!]
    ]
  }
}

/** The fastify + undici reference proxy and its node:http backend; their processes go to `children`. */
export async function startProxy(children: ChildProcess[]): Promise<{ url: string; pids: Array<[string, number]> }> {
  const backend = await start(join(__dirname, 'backend.js'), ['0'], {}, /^(\d+)\n/)
  children.push(backend.child)
  const proxy = await start(
    join(__dirname, 'fastify-proxy.js'),
    ['0', `http://127.0.0.1:${backend.match[1]}`],
    {},
    /^(\d+)\n/
  )
  children.push(proxy.child)
  return {
    url: `http://127.0.0.1:${proxy.match[1]}`,
    pids: [
      ['proxy', proxy.child.pid!],
      ['backend', backend.child.pid!]
    ]
  }
}

/** A case's result from its runs: each subject's median run by req/s, and the ratios the report shows. */
function caseResult(
  bc: BenchCase,
  connections: number,
  runs: Map<Subject, SubjectResult[]>,
  floor: SubjectResult | null
): CaseResult {
  const of = (s: Subject): SubjectResult | null => {
    const list = runs.get(s)
    return list === undefined || list.length === 0 ? null : median(list, (x) => x.rps)
  }
  const gm = of('gateway')!
  const cm = of('ceiling')!
  const pm = of('proxy')
  return {
    case: bc.name,
    title: bc.title,
    connections,
    gateway: gm,
    ceiling: cm,
    floor,
    ratio: gm.rps / cm.rps,
    p50Ratio: gm.latencyMs.p50 / Math.max(cm.latencyMs.p50, 0.001),
    proxy: pm,
    proxyRatio: pm === null ? null : gm.rps / pm.rps,
    hop: of('hop'),
    nginx: of('nginx'),
    haproxy: of('haproxy')
  }
}

/**
 * One round of the small ROA call at c=64 with the platform as the environment sets it up: the
 * A/B benches (bench/e2e/observability.ts, bench/e2e/limits.ts) run it once per mode and round.
 */
export function smallCallRound(durationS: number): Promise<RunResult> {
  return run({
    cases: ['roa-json'],
    caseFile: null,
    durationS,
    connections: 64,
    rounds: 1,
    warmupS: 1,
    floor: false,
    target: null,
    soakS: 0,
    soakWarmupS: 0,
    log: () => {}
  })
}

export async function run(o: RunOptions): Promise<RunResult> {
  if (o.threads != null && o.threads.length > 0) return runThreads(o, o.threads)
  execFileSync(join(ROOT, 'scripts', 'ensure-wrk.sh'), { stdio: 'inherit' })
  const standard = allCases()
  const cases = [
    ...standard.filter((c) => o.cases.includes(c.name)),
    ...(o.caseFile !== null ? loadCaseFile(o.caseFile) : [])
  ]
  const children: ChildProcess[] = []
  try {
    const ceilingPort = await freePort()
    const ceiling = await start(join(__dirname, 'ceiling.js'), [String(ceilingPort)], {}, /^(\d+)\n/)
    children.push(ceiling.child)
    const ceilingUrl = `http://127.0.0.1:${ceiling.match[1]}`
    const extras = new Map<Extra, { url: string; pids: Array<[string, number]> }>()
    if (o.proxy === true) extras.set('proxy', await startProxy(children))
    if (o.hop === true) extras.set('hop', await startHop(children))
    if (o.refs === true) {
      const upstream = ceiling.child.pid!
      extras.set('nginx', behind(await startNginxRef(await freePort(), ceilingPort, children), upstream))
      extras.set('haproxy', behind(await startHaproxyRef(await freePort(), ceilingPort, children), upstream))
    }
    let gatewayUrl = o.target
    let gatewayPids: Array<[string, number]> = []
    if (gatewayUrl === null) {
      const gw = await startGateway(children)
      gatewayUrl = gw.url
      gatewayPids = gw.pids
    }
    const results: CaseResult[] = []
    // Live progress: what a run has left, from its plan (warm-ups, rounds, floors, the soak).
    const subjectCount = 2 + extras.size
    const perCase = 2 * o.warmupS + subjectCount * o.rounds * o.durationS + (o.floor ? o.durationS : 0)
    const planned = cases.length * perCase + (o.soakS > 0 ? o.soakS + o.soakWarmupS : 0)
    const runStart = Date.now()
    const progress = (last: string): string => {
      const elapsed = (Date.now() - runStart) / 1000
      return `  [${elapsed.toFixed(0)} s elapsed, about ${Math.max(0, planned - elapsed).toFixed(0)} s left] ${last}`
    }
    for (const bc of cases) {
      const connections = bc.connections ?? o.connections
      o.log(`${bc.name}: ${bc.title}, c=${connections}, ${o.durationS} s per run`)
      // A custom endpoint is measured against the ceiling answering the standard request.
      const ref = bc.custom === true ? standard[0]! : bc
      await check(gatewayUrl, bc)
      await check(ceilingUrl, ref)
      if (o.warmupS > 0) {
        await runWrk({
          url: ceilingUrl + ref.path,
          headers: ref.headers,
          body: ref.body,
          connections,
          durationS: o.warmupS
        })
        await runWrk({
          url: gatewayUrl + bc.path,
          headers: bc.headers,
          body: bc.body,
          connections,
          durationS: o.warmupS
        })
      }
      const where = new Map<Subject, { url: string; pids: Array<[string, number]>; bc: BenchCase }>([
        ['ceiling', { url: ceilingUrl, pids: [['ceiling', ceiling.child.pid!]], bc: ref }],
        ['gateway', { url: gatewayUrl, pids: gatewayPids, bc }]
      ])
      // The references answer the standard requests only.
      if (bc.custom !== true) for (const [s, e] of extras) where.set(s, { ...e, bc })
      const runs = new Map<Subject, SubjectResult[]>([...where.keys()].map((s) => [s, []]))
      for (let r = 0; r < o.rounds; r++) {
        // Alternate which goes first, so neither always runs on the warmer machine.
        const subjects = [...where.keys()]
        for (const s of r % 2 === 0 ? subjects : subjects.reverse()) {
          const w = where.get(s)!
          const m = await measure(s, w.url, w.bc, connections, o.durationS, w.pids)
          runs.get(s)!.push(m)
          o.log(
            progress(
              `${bc.name} round ${r + 1}/${o.rounds}: ${s} ${m.rps.toFixed(0)} req/s, p50 ${m.latencyMs.p50.toFixed(3)} ms, p99 ${m.latencyMs.p99.toFixed(2)} ms`
            )
          )
        }
      }
      let floor: SubjectResult | null = null
      if (o.floor && bc.invoke !== null) {
        o.log('  floor (internal protocol alone)')
        floor = await floorRun(bc, connections, o.durationS)
      }
      const c = caseResult(bc, connections, runs, floor)
      results.push(c)
      o.log(
        `  gateway ${c.gateway.rps.toFixed(0)} req/s, ceiling ${c.ceiling.rps.toFixed(0)} req/s, ratio ${c.ratio.toFixed(3)}`
      )
    }
    let soak: SoakResult | null = null
    if (o.soakS > 0 && gatewayPids.length > 0)
      soak = await soakRun(gatewayUrl, cases[0] ?? allCases()[0]!, o, gatewayPids)
    return { when: new Date().toISOString(), commit: commitOf(), durationS: o.durationS, cases: results, soak }
  } finally {
    for (const child of children) child.kill('SIGTERM')
  }
}

/** Where the scaling curve's processes run: pinned when the machine has cores to spare for the clients. */
interface Pinning {
  pinned: boolean
  /** The log line: what is pinned where, or why nothing is. */
  note: string
  cpus: number[]
}

function pinning(counts: number[]): Pinning {
  const cpus = allowedCpus()
  const most = Math.max(...counts)
  // N cores for the N-thread servers, and at least two for wrk and the microservices: fewer, and the
  // clients would share the servers' cores anyway.
  if (cpus.length < most + 2)
    return {
      pinned: false,
      note: `pinning skipped: ${cpus.length} cores, and ${most} threads need ${most + 2} (N for the servers, 2 or more for wrk and the microservices); every process runs where the system puts it`,
      cpus
    }
  if (!hasTaskset()) return { pinned: false, note: 'pinning skipped: taskset (util-linux) is not installed', cpus }
  return {
    pinned: true,
    note: `pinning with taskset: at N threads the servers (gateway, ceiling, proxies) on the first N of cpus ${cpus.join(',')}, wrk, the microservices and the proxies' upstream on the others`,
    cpus
  }
}

/** One thread count's servers, started once for the whole run and measured in turn with the others. */
interface ThreadsSet {
  threads: number
  instances: number
  /** wrk's threads at most (a case with fewer connections runs fewer). */
  wrkThreads: number
  serverCpus: string | null
  clientCpus: string | null
  where: Map<Subject, { url: string; pids: Array<[string, number]> }>
}

async function startThreadsSet(n: number, o: RunOptions, p: Pinning, children: ChildProcess[]): Promise<ThreadsSet> {
  const serverCpus = p.pinned ? p.cpus.slice(0, n).join(',') : null
  const clientCpus = p.pinned ? p.cpus.slice(n).join(',') : null
  const onServer = (pid: number): void => {
    if (serverCpus !== null) pin(pid, serverCpus)
  }
  const onClient = (pid: number): void => {
    if (clientCpus !== null) pin(pid, clientCpus)
  }
  const where = new Map<Subject, { url: string; pids: Array<[string, number]> }>()
  // More threads than one need an explicit port: uSockets shares port 0 with no one.
  const ceilingPort = await freePort()
  const ceiling = await start(join(__dirname, 'ceiling.js'), [String(ceilingPort), String(n)], {}, /^(\d+)\n/)
  children.push(ceiling.child)
  onServer(ceiling.child.pid!)
  where.set('ceiling', { url: `http://127.0.0.1:${ceilingPort}`, pids: [['ceiling', ceiling.child.pid!]] })
  // Unpinned, every process shares the servers' cores: a second instance (or wrk thread) per listener
  // thread would take CPU from the threads measured and halve each instance's batches, so the curve
  // keeps the platform's default of one instance and one wrk thread there (docs/benchmarks.md).
  const instances = o.instances ?? (p.pinned ? n : 1)
  const gw = await startGateway(
    children,
    {
      PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__threads: String(n),
      PLATFORM__PLATFORM__instances: JSON.stringify({ example: instances })
    },
    instances
  )
  for (const [name, pid] of gw.pids) (name === 'gateway' ? onServer : onClient)(pid)
  where.set('gateway', gw)
  // The single-threaded references have no curve: they are measured beside the 1-thread servers.
  if (n === 1) {
    if (o.proxy === true) where.set('proxy', await startProxy(children))
    if (o.hop === true) where.set('hop', await startHop(children))
    for (const s of ['proxy', 'hop'] as const) {
      const pids = where.get(s)?.pids ?? []
      pids.forEach(([, pid], k) => (k === 0 ? onServer : onClient)(pid))
    }
  }
  if (o.refs === true) {
    // Pinned, the proxies' upstream is an N-thread ceiling of its own on the clients' cores, as the
    // gateway's microservices are: a proxy does not share its cores with the server behind it when
    // the gateway does not. Unpinned, it is the ceiling measured above, as in a run without --threads.
    let upstreamPort = ceilingPort
    let upstreamPid = ceiling.child.pid!
    if (p.pinned) {
      upstreamPort = await freePort()
      const upstream = await start(join(__dirname, 'ceiling.js'), [String(upstreamPort), String(n)], {}, /^(\d+)\n/)
      children.push(upstream.child)
      upstreamPid = upstream.child.pid!
      onClient(upstreamPid)
    }
    const nginx = await startNginxRef(await freePort(), upstreamPort, children, n)
    const haproxy = await startHaproxyRef(await freePort(), upstreamPort, children, n)
    // The nginx master only waits; its workers (pinned one by one) do the work.
    for (const [, pid] of [...nginx.pids, ...haproxy.pids]) onServer(pid)
    where.set('nginx', behind(nginx, upstreamPid))
    where.set('haproxy', behind(haproxy, upstreamPid))
  }
  // Pinned, one wrk thread per listener thread, so the load generator grows with what it loads.
  const clientCores = p.pinned ? p.cpus.length - n : 1
  return {
    threads: n,
    instances,
    wrkThreads: Math.max(1, Math.min(n, clientCores)),
    serverCpus,
    clientCpus,
    where
  }
}

/** The scaling curve (--threads): every case at every thread count, the counts alternating across rounds. */
async function runThreads(o: RunOptions, asked: number[]): Promise<RunResult> {
  if (o.target !== null) throw new Error('--threads starts its own gateways: not with --target')
  if (o.soakS > 0) throw new Error('--threads measures no soak: run --soak without it')
  const counts = [...new Set([1, ...asked])].sort((a, b) => a - b)
  if (!asked.includes(1)) o.log('threads: 1 added (scaling is each rate over its rate at 1 thread)')
  execFileSync(join(ROOT, 'scripts', 'ensure-wrk.sh'), { stdio: 'inherit' })
  const standard = allCases()
  const cases = [
    ...standard.filter((c) => o.cases.includes(c.name)),
    ...(o.caseFile !== null ? loadCaseFile(o.caseFile) : [])
  ]
  const p = pinning(counts)
  o.log(p.note)
  const children: ChildProcess[] = []
  try {
    const sets: ThreadsSet[] = []
    for (const n of counts) {
      const set = await startThreadsSet(n, o, p, children)
      o.log(
        `${n} thread${n > 1 ? 's' : ''}: ${[...set.where.keys()].join(', ')}; ${set.instances} microservice instance${set.instances > 1 ? 's' : ''}, wrk with up to ${set.wrkThreads} thread${set.wrkThreads > 1 ? 's' : ''}`
      )
      sets.push(set)
    }
    const subjectsPerCase = sets.reduce((k, set) => k + set.where.size, 0)
    const perCase = 2 * o.warmupS * sets.length + subjectsPerCase * o.rounds * o.durationS + (o.floor ? o.durationS : 0)
    const planned = cases.length * perCase
    const runStart = Date.now()
    const progress = (last: string): string => {
      const elapsed = (Date.now() - runStart) / 1000
      return `  [${elapsed.toFixed(0)} s elapsed, about ${Math.max(0, planned - elapsed).toFixed(0)} s left] ${last}`
    }
    const results: ThreadsCase[] = []
    for (const bc of cases) {
      const connections = bc.connections ?? o.connections
      o.log(`${bc.name}: ${bc.title}, c=${connections}, ${o.durationS} s per run, threads ${counts.join(', ')}`)
      // A custom endpoint is measured against the ceiling answering the standard request.
      const ref = bc.custom === true ? standard[0]! : bc
      const loadOf = (set: ThreadsSet): Pick<LoadSpec, 'threads' | 'cpus'> => ({
        // wrk gives each thread connections/threads connections, and at least one.
        threads: Math.min(set.wrkThreads, connections),
        cpus: set.clientCpus
      })
      const subjectsOf = (set: ThreadsSet): Subject[] =>
        // The references answer the standard requests only.
        [...set.where.keys()].filter((s) => bc.custom !== true || s === 'gateway' || s === 'ceiling')
      for (const set of sets) {
        const gatewayUrl = set.where.get('gateway')!.url
        const ceilingUrl = set.where.get('ceiling')!.url
        await check(gatewayUrl, bc)
        await check(ceilingUrl, ref)
        if (o.warmupS <= 0) continue
        for (const [url, c] of [
          [ceilingUrl, ref],
          [gatewayUrl, bc]
        ] as const)
          await runWrk({
            url: url + c.path,
            headers: c.headers,
            body: c.body,
            connections,
            durationS: o.warmupS,
            ...loadOf(set)
          })
      }
      const runs = new Map<number, Map<Subject, SubjectResult[]>>(
        sets.map((set) => [set.threads, new Map(subjectsOf(set).map((s) => [s, []]))])
      )
      for (let r = 0; r < o.rounds; r++) {
        // Alternate the order of the counts and, within each, of the subjects, so that no count and no
        // subject always runs on the warmer machine.
        for (const set of r % 2 === 0 ? sets : [...sets].reverse()) {
          const subjects = subjectsOf(set)
          for (const s of r % 2 === 0 ? subjects : subjects.reverse()) {
            const w = set.where.get(s)!
            const m = await measure(s, w.url, s === 'ceiling' ? ref : bc, connections, o.durationS, w.pids, loadOf(set))
            runs.get(set.threads)!.get(s)!.push(m)
            o.log(
              progress(
                `${bc.name} round ${r + 1}/${o.rounds}, ${set.threads} thread${set.threads > 1 ? 's' : ''}: ${s} ${m.rps.toFixed(0)} req/s, p50 ${m.latencyMs.p50.toFixed(3)} ms, p99 ${m.latencyMs.p99.toFixed(2)} ms`
              )
            )
          }
        }
      }
      let floor: SubjectResult | null = null
      if (o.floor && bc.invoke !== null) {
        o.log('  floor (internal protocol alone)')
        floor = await floorRun(bc, connections, o.durationS)
      }
      const byCount = sets.map((set) => ({
        set,
        result: caseResult(bc, connections, runs.get(set.threads)!, set.threads === 1 ? floor : null)
      }))
      const base = byCount[0]!.result
      const points = byCount.map(({ set, result }): ThreadsPoint => {
        const scaling: Partial<Record<Subject, number>> = {}
        for (const s of subjectResults(result)) {
          const at1 = subjectResults(base).find((x) => x.subject === s.subject)
          if (at1 !== undefined) scaling[s.subject] = s.rps / at1.rps
        }
        return {
          threads: set.threads,
          instances: set.instances,
          wrkThreads: Math.min(set.wrkThreads, connections),
          serverCpus: set.serverCpus,
          clientCpus: set.clientCpus,
          result,
          scaling,
          nginxRatio: result.nginx == null ? null : result.gateway.rps / result.nginx.rps,
          haproxyRatio: result.haproxy == null ? null : result.gateway.rps / result.haproxy.rps,
          scalingRatio: scaling.gateway! / scaling.ceiling!,
          gatewayCpuRatio: gatewayCpu(result.gateway) / Math.max(gatewayCpu(base.gateway), 1e-9),
          platformCpuRatio: cpuPerRequest(result.gateway) / Math.max(cpuPerRequest(base.gateway), 1e-9)
        }
      })
      results.push({ case: bc.name, title: bc.title, connections, points })
      o.log(
        '  ' +
          points
            .map(
              (pt) =>
                `${pt.threads}: gateway ${pt.result.gateway.rps.toFixed(0)} req/s (×${pt.scaling.gateway!.toFixed(2)}), ceiling ${pt.result.ceiling.rps.toFixed(0)} req/s (×${pt.scaling.ceiling!.toFixed(2)})`
            )
            .join('; ')
      )
    }
    return {
      when: new Date().toISOString(),
      commit: commitOf(),
      durationS: o.durationS,
      cases: results.map((c) => c.points[0]!.result),
      soak: null,
      threads: { counts, pinned: p.pinned, pinning: p.note, cases: results }
    }
  } finally {
    for (const child of children) child.kill('SIGTERM')
  }
}

/** RSS over a long run after warm-up: the first and last five seconds' averages per process. */
async function soakRun(url: string, bc: BenchCase, o: RunOptions, pids: Array<[string, number]>): Promise<SoakResult> {
  o.log(`soak: ${bc.name}, ${o.soakWarmupS} s warm-up, then ${o.soakS} s with RSS sampled every second`)
  await runWrk({
    url: url + bc.path,
    headers: bc.headers,
    body: bc.body,
    connections: o.connections,
    durationS: o.soakWarmupS
  })
  const watch = new RssWatch(
    pids.map(([, pid]) => pid),
    1000
  )
  const progress = setInterval(() => o.log('  soak: still running'), 15000)
  await runWrk({
    url: url + bc.path,
    headers: bc.headers,
    body: bc.body,
    connections: o.connections,
    durationS: o.soakS
  })
  clearInterval(progress)
  watch.stop()
  const avg = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1) / 2 ** 20
  return {
    seconds: o.soakS,
    processes: pids.map(([name, pid]) => {
      const s = watch.series.get(pid)!
      const startMb = avg(s.slice(0, 5))
      const endMb = avg(s.slice(-5))
      return { name, startMb, endMb, growthPercent: (100 * (endMb - startMb)) / startMb }
    })
  }
}

export function commitOf(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT }).toString().trim()
  } catch {
    return 'unknown'
  }
}

const f = (x: number, d = 0): string => x.toFixed(d)

export function report(r: RunResult): string {
  if (r.threads != null) return threadsReport(r.threads)
  const lines: string[] = []
  for (const c of r.cases) {
    lines.push(`\n${c.title} (${c.case}), c=${c.connections}`)
    lines.push('subject  |   req/s | p50 ms | p99 ms | p99.9 ms | errors | non-2xx | CPU ms/req (per process) | RSS MB')
    for (const s of [
      c.gateway,
      c.ceiling,
      c.floor,
      c.proxy ?? null,
      c.hop ?? null,
      c.nginx ?? null,
      c.haproxy ?? null
    ]) {
      if (s === null) continue
      const cpu = s.processes.map((p) => `${p.name} ${p.cpuMsPerRequest.toFixed(4)} (${systemPercent(p)})`).join(', ')
      const rss = s.processes.map((p) => `${p.name} ${f(p.rssMb)}`).join(', ')
      lines.push(
        `${s.subject.padEnd(8)} | ${f(s.rps).padStart(7)} | ${f(s.latencyMs.p50, 2).padStart(6)} | ${f(s.latencyMs.p99, 2).padStart(6)} | ${f(s.latencyMs.p999, 2).padStart(8)} | ${String(s.errors).padStart(6)} | ${String(s.non2xx).padStart(7)} | ${cpu || '-'} | ${rss || '-'}`
      )
    }
    lines.push(
      `gateway/ceiling req/s ${f(c.ratio, 3)}; p50 ${f(c.p50Ratio, 2)}×${c.floor !== null ? `; floor/ceiling req/s ${f(c.floor.rps / c.ceiling.rps, 2)}` : ''}${c.proxyRatio != null ? `; gateway/proxy req/s ${f(c.proxyRatio, 2)}` : ''}`
    )
    if (c.hop != null) lines.push(hopLine(c.gateway, c.ceiling, c.hop))
    for (const p of [c.nginx, c.haproxy])
      if (p != null)
        lines.push(
          `gateway/${p.subject}: req/s ${f(c.gateway.rps / p.rps, 2)}, p50 ${f(c.gateway.latencyMs.p50 / Math.max(p.latencyMs.p50, 0.001), 2)}×, p99 ${f(c.gateway.latencyMs.p99 / Math.max(p.latencyMs.p99, 0.001), 2)}×`
        )
  }
  if (r.soak !== null) {
    lines.push(
      `\nsoak ${r.soak.seconds} s: ` +
        r.soak.processes
          .map(
            (p) =>
              `${p.name} ${f(p.startMb, 1)} → ${f(p.endMb, 1)} MB (${p.growthPercent >= 0 ? '+' : ''}${f(p.growthPercent, 1)}%)`
          )
          .join(', ')
    )
  }
  return lines.join('\n')
}

/**
 * A C proxy's reference with the server behind it: its CPU per call is the proxy's and the upstream's,
 * as the gateway's is its own and its microservices'.
 */
function behind(ref: { url: string; pids: Array<[string, number]> }, upstream: number): typeof ref {
  return { url: ref.url, pids: [...ref.pids, ['upstream', upstream]] }
}

/** A subject's CPU per call, all its processes together. */
export const cpuPerRequest = (s: SubjectResult): number => s.processes.reduce((n, p) => n + p.cpuMsPerRequest, 0)

/** A case's subjects that were measured, in the report's order. */
function subjectResults(c: CaseResult): SubjectResult[] {
  return [c.gateway, c.ceiling, c.floor, c.proxy, c.hop, c.nginx, c.haproxy].filter(
    (s): s is SubjectResult => s != null
  )
}

/** The gateway process's own CPU per call (its listener threads included), without the microservices'. */
export const gatewayCpu = (s: SubjectResult): number =>
  s.processes.filter((p) => p.name === 'gateway').reduce((n, p) => n + p.cpuMsPerRequest, 0)

/** How much of a process's CPU the kernel spent: "sys 57 %". */
const systemPercent = (p: Pick<ProcessCost, 'systemShare'>): string => `sys ${f(100 * p.systemShare)} %`

/** CPU per call by process name: nginx's N workers are one entry ("nginx worker×4"). */
function cpuByName(s: SubjectResult): string {
  const byName = new Map<string, { count: number; ms: number; systemMs: number }>()
  for (const p of s.processes) {
    const e = byName.get(p.name) ?? { count: 0, ms: 0, systemMs: 0 }
    byName.set(p.name, {
      count: e.count + 1,
      ms: e.ms + p.cpuMsPerRequest,
      systemMs: e.systemMs + p.cpuMsPerRequest * p.systemShare
    })
  }
  return [...byName]
    .map(
      ([name, e]) =>
        `${name}${e.count > 1 ? `×${e.count}` : ''} ${f(e.ms, 4)} (${systemPercent({ systemShare: e.ms > 0 ? e.systemMs / e.ms : 0 })})`
    )
    .join(', ')
}

/** The scaling curve: per case, a table per thread count, then each subject's scaling side by side. */
function threadsReport(t: ThreadsRun): string {
  const lines: string[] = [`\n${t.pinning}`]
  for (const c of t.cases) {
    lines.push(`\n${c.title} (${c.case}), c=${c.connections}`)
    for (const pt of c.points) {
      const where = pt.serverCpus === null ? '' : `; servers on cpus ${pt.serverCpus}, clients on ${pt.clientCpus}`
      lines.push(
        `${pt.threads} thread${pt.threads > 1 ? 's' : ''} (${pt.instances} microservice instance${pt.instances > 1 ? 's' : ''}, wrk ${pt.wrkThreads} thread${pt.wrkThreads > 1 ? 's' : ''}${where})`
      )
      lines.push(
        'subject  |   req/s | scaling | p50 ms | p99 ms | errors | non-2xx | CPU ms/call | CPU ms/call per process'
      )
      for (const s of subjectResults(pt.result)) {
        const scaling = pt.scaling[s.subject]
        lines.push(
          `${s.subject.padEnd(8)} | ${f(s.rps).padStart(7)} | ${(scaling === undefined ? '-' : `${f(scaling, 2)}×`).padStart(7)} | ${f(s.latencyMs.p50, 2).padStart(6)} | ${f(s.latencyMs.p99, 2).padStart(6)} | ${String(s.errors).padStart(6)} | ${String(s.non2xx).padStart(7)} | ${(s.processes.length > 0 ? f(cpuPerRequest(s), 4) : '-').padStart(11)} | ${cpuByName(s) || '-'}`
        )
      }
      const r = pt.result
      const parts = [`gateway/ceiling req/s ${f(r.ratio, 3)}`]
      if (pt.nginxRatio !== null) parts.push(`gateway/nginx req/s ${f(pt.nginxRatio, 2)}`)
      if (pt.haproxyRatio !== null) parts.push(`gateway/haproxy req/s ${f(pt.haproxyRatio, 2)}`)
      if (pt.threads > 1)
        parts.push(
          `gateway scaling/ceiling scaling ${f(pt.scalingRatio, 2)} (${f(pt.scaling.gateway!, 2)}× / ${f(pt.scaling.ceiling!, 2)}×)`,
          `gateway CPU per call ${f(pt.gatewayCpuRatio, 2)}× its cost at 1 thread (with the microservices ${f(pt.platformCpuRatio, 2)}×)`
        )
      lines.push(parts.join('; '))
    }
    const subjects = subjectResults(c.points[0]!.result)
      .map((s) => s.subject)
      .filter((s) => c.points.some((pt) => pt.threads > 1 && pt.scaling[s] !== undefined))
    if (c.points.length > 1) {
      lines.push(`scaling (req/s at N threads over req/s at 1): threads | ${subjects.join(' | ')}`)
      for (const pt of c.points.slice(1))
        lines.push(
          `  ${String(pt.threads).padStart(2)} | ${subjects.map((s) => (pt.scaling[s] === undefined ? '-' : `${f(pt.scaling[s], 2)}×`)).join(' | ')}`
        )
    }
  }
  return lines.join('\n')
}

/** Where the gateway's cost per call stands between the ceiling (one process) and the bare hop (two, no work). */
function hopLine(gateway: SubjectResult, ceiling: SubjectResult, hop: SubjectResult): string {
  const front = hop.processes[0]?.cpuMsPerRequest ?? 0
  const gw = gateway.processes[0]?.cpuMsPerRequest ?? 0
  const ceil = cpuPerRequest(ceiling)
  return (
    `bare hop/ceiling req/s ${f(hop.rps / ceiling.rps, 3)}, p50 ${f(hop.latencyMs.p50 / Math.max(ceiling.latencyMs.p50, 0.001), 2)}×; ` +
    `front CPU per call ${f(front / Math.max(ceil, 1e-9), 2)}× the ceiling's (gateway ${f(gw / Math.max(ceil, 1e-9), 2)}×); ` +
    `gateway/bare hop req/s ${f(gateway.rps / hop.rps, 3)}`
  )
}

export function compare(now: RunResult, before: RunResult): string {
  const lines = [`\ncompared with ${before.commit} (${before.when}):`]
  for (const c of now.cases) {
    const b = before.cases.find((x) => x.case === c.case)
    if (b === undefined) continue
    lines.push(
      `${c.case.padEnd(14)} ratio ${f(b.ratio, 3)} → ${f(c.ratio, 3)} (${c.ratio >= b.ratio ? '+' : ''}${f((100 * (c.ratio - b.ratio)) / b.ratio, 1)}%), gateway p99 ${f(b.gateway.latencyMs.p99, 2)} → ${f(c.gateway.latencyMs.p99, 2)} ms`
    )
  }
  return lines.join('\n')
}

function arg(name: string, fallback: string): string {
  const k = process.argv.indexOf(`--${name}`)
  return k > 0 ? process.argv[k + 1]! : fallback
}

/** "1,2,4" → [1, 2, 4]; anything but positive integers is refused. */
function threadCounts(list: string): number[] {
  const counts = list.split(',').map(Number)
  if (counts.length === 0 || counts.some((n) => !Number.isInteger(n) || n < 1))
    throw new Error(`--threads takes a list of thread counts (1,2,4), not '${list}'`)
  return counts
}

function instanceCount(text: string): number {
  const n = Number(text)
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new Error(`--instances takes a count from 1 to 64, not '${text}'`)
  return n
}

async function main(): Promise<void> {
  const opts: RunOptions = {
    cases: arg(
      'cases',
      allCases()
        .map((c) => c.name)
        .join(',')
    ).split(','),
    caseFile: process.argv.includes('--case-file') ? arg('case-file', '') : null,
    durationS: Number(arg('duration', '10')),
    connections: Number(arg('connections', '64')),
    rounds: Number(arg('rounds', '1')),
    warmupS: Number(arg('warmup', '2')),
    floor: !process.argv.includes('--no-floor'),
    target: process.argv.includes('--target') ? arg('target', '') : null,
    soakS: Number(arg('soak', '0')),
    soakWarmupS: Number(arg('soak-warmup', '5')),
    proxy: process.argv.includes('--proxy'),
    hop: process.argv.includes('--hop'),
    refs: process.argv.includes('--refs'),
    threads: process.argv.includes('--threads') ? threadCounts(arg('threads', '')) : null,
    instances: process.argv.includes('--instances') ? instanceCount(arg('instances', '')) : null,
    log: (line) => process.stderr.write(line + '\n')
  }
  const result = await run(opts)
  console.log(report(result))
  const compareWith = process.argv.includes('--compare') ? arg('compare', '') : null
  if (compareWith !== null) console.log(compare(result, JSON.parse(readFileSync(compareWith, 'utf8')) as RunResult))
  const jsonOut = process.argv.includes('--json') ? arg('json', '') : null
  if (jsonOut !== null) writeFileSync(jsonOut, JSON.stringify(result, null, 2))
  if (process.argv.includes('--history')) {
    const dir = join(ROOT, 'bench', 'results')
    mkdirSync(dir, { recursive: true })
    appendFileSync(join(dir, 'history.jsonl'), JSON.stringify(result) + '\n')
  }
}

if (require.main === module)
  main().catch((err: unknown) => {
    console.error(err)
    process.exit(1)
  })
