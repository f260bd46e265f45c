// One subject measured under wrk load: its rate, latency, and each of its processes' CPU and RSS
// from /proc; the floor's own run; a case's result from its rounds; the soak's RSS over a long run.
import { join } from 'node:path'
import type { BenchCase } from './cases'
import { runWrk, type LoadSpec } from './harness/wrk'
import { sample, RssWatch } from './harness/procstat'
import { coreTimes, stealShare } from './harness/host'
import { start, REFERENCES } from './subjects'
import type { CaseResult, RunOptions, SoakResult, Subject, SubjectResult } from './results'

export async function measure(
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
  const cores = coreTimes()
  const r = await runWrk({ url: url + bc.path, headers: bc.headers, body: bc.body, connections, durationS, ...load })
  const steal = stealShare(cores, coreTimes())
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
    processes,
    stealShare: steal
  }
}

export async function floorRun(bc: BenchCase, connections: number, durationS: number): Promise<SubjectResult> {
  const { child, match } = await start(
    join(REFERENCES, 'floor.js'),
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

/** A case's result from its runs: each subject's median run by req/s, and the ratios the report shows. */
export function caseResult(
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

/** RSS over a long run after warm-up: the first and last five seconds' averages per process. */
export async function soakRun(
  url: string,
  bc: BenchCase,
  o: RunOptions,
  pids: Array<[string, number]>
): Promise<SoakResult> {
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
