// The scaling curve (run.ts --threads): for each count N a gateway with N listener threads, a ceiling
// with N threads and, with --refs, nginx with N workers and HAProxy with N threads in front of it, all
// started once and measured in turn, the counts alternating across rounds.
import type { ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { allCases, askedCases } from './cases'
import { ensureWrk, runWrk, type LoadSpec } from './harness/wrk'
import { allowedCpus, hasTaskset, pin } from './harness/pin'
import { startHaproxyRef, startNginxRef } from './references/c-proxies'
import { behind, check, freePort, start, startGateway, startHop, startProxy, REFERENCES } from './subjects'
import { caseResult, floorRun, measure } from './measure'
import { cpuPerRequest, gatewayCpu, subjectResults } from './tables'
import { commitOf } from './commit'
import type { RunOptions, RunResult, Subject, SubjectResult, ThreadsCase, ThreadsPoint } from './results'
import { hostMachine } from './harness/host'

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
  const ceiling = await start(join(REFERENCES, 'ceiling.js'), [String(ceilingPort), String(n)], {}, /^(\d+)\n/)
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
      const upstream = await start(join(REFERENCES, 'ceiling.js'), [String(upstreamPort), String(n)], {}, /^(\d+)\n/)
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
export async function runThreads(o: RunOptions, asked: number[]): Promise<RunResult> {
  // As the run starts: the idle policy is the machine's, and may be changed between runs.
  const machine = hostMachine()
  if (o.target !== null) throw new Error('--threads starts its own gateways: not with --target')
  if (o.soakS > 0) throw new Error('--threads measures no soak: run --soak without it')
  const counts = [...new Set([1, ...asked])].sort((a, b) => a - b)
  if (!asked.includes(1)) o.log('threads: 1 added (scaling is each rate over its rate at 1 thread)')
  ensureWrk()
  const standard = allCases()
  const cases = askedCases(o.cases, o.caseFile)
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
      machine,
      cases: results.map((c) => c.points[0]!.result),
      soak: null,
      threads: { counts, pinned: p.pinned, pinning: p.note, cases: results }
    }
  } finally {
    for (const child of children) child.kill('SIGTERM')
  }
}
