// The e2e benchmark: the platform (gateway + example microservice, separate processes as in
// production) against two references in the same run: a bare uWS server answering the same request
// in-process (the ceiling) and the internal protocol alone (the floor). wrk drives the HTTP load;
// subject and ceiling alternate, so drift on a shared machine hits both alike.
//
//   node dist/bench/e2e/run.js [--cases a,b] [--duration 10] [--connections 64] [--rounds 1]
//     [--target http://host:port] [--no-floor] [--soak 60] [--json FILE] [--history] [--compare FILE]
//     [--proxy] [--hop] [--refs]
import { fork, type ChildProcess } from 'node:child_process'
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { execFileSync } from 'node:child_process'
import { allCases, loadCaseFile, type BenchCase } from './cases'
import { runWrk, type LoadResult } from './wrk'
import { sample, childrenOf, RssWatch } from './procstat'
import { reaped } from './reap'
import { gcFlags } from '../../src/platform/gc-threads'
import { startHaproxyRef, startNginxRef } from './c-proxies'

export interface ProcessCost {
  name: string
  pid: number
  cpuMsPerRequest: number
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
  cases: CaseResult[]
  soak: SoakResult | null
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
  pids: Array<[string, number]>
): Promise<SubjectResult> {
  const before = pids.map(([, pid]) => sample(pid))
  const watch = new RssWatch(pids.map(([, pid]) => pid))
  const t0 = Date.now()
  const r = await runWrk({ url: url + bc.path, headers: bc.headers, body: bc.body, connections, durationS })
  const wall = (Date.now() - t0) / 1000
  watch.stop()
  const processes = pids.map(([name, pid], k) => {
    const after = sample(pid)
    const cpu = after !== null && before[k] != null ? after.cpuMs - before[k]!.cpuMs : 0
    const rss = watch.series.get(pid)!
    return {
      name,
      pid,
      cpuMsPerRequest: r.requests > 0 ? cpu / r.requests : 0,
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

/** A platform of its own (gateway, example microservice) on free loopback ports; its processes go to `children`. */
export async function startGateway(children: ChildProcess[]): Promise<{ url: string; pids: Array<[string, number]> }> {
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
        : {})
    },
    /(gateway listening)/,
    // As `npm start` runs it (scripts/start.mjs): with the platform's V8 flags.
    [...process.execArgv, ...gcFlags()]
  )
  children.push(gw.child)
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

export async function run(o: RunOptions): Promise<RunResult> {
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
      extras.set('nginx', await startNginxRef(await freePort(), ceilingPort, children))
      extras.set('haproxy', await startHaproxyRef(await freePort(), ceilingPort, children))
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
      const of = (s: Subject): SubjectResult | null => {
        const list = runs.get(s)
        return list === undefined || list.length === 0 ? null : median(list, (x) => x.rps)
      }
      const gm = of('gateway')!
      const cm = of('ceiling')!
      const pm = of('proxy')
      let floor: SubjectResult | null = null
      if (o.floor && bc.invoke !== null) {
        o.log('  floor (internal protocol alone)')
        floor = await floorRun(bc, connections, o.durationS)
      }
      results.push({
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
      })
      o.log(
        `  gateway ${gm.rps.toFixed(0)} req/s, ceiling ${cm.rps.toFixed(0)} req/s, ratio ${(gm.rps / cm.rps).toFixed(3)}`
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
      const cpu = s.processes.map((p) => `${p.name} ${p.cpuMsPerRequest.toFixed(4)}`).join(', ')
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

const cpuPerRequest = (s: SubjectResult): number => s.processes.reduce((n, p) => n + p.cpuMsPerRequest, 0)

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
