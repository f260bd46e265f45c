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
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import type { ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { allCases, askedCases, type BenchCase } from './cases'
import { ensureWrk, runWrk } from './harness/wrk'
import { startHaproxyRef, startNginxRef } from './references/c-proxies'
import { behind, check, freePort, start, startGateway, startHop, startProxy, REFERENCES } from './subjects'
import { caseResult, floorRun, measure, soakRun } from './measure'
import { runThreads } from './threads'
import { compare, report } from './tables'
import { commitOf } from './commit'
import type { CaseResult, Extra, RunOptions, RunResult, SoakResult, Subject, SubjectResult } from './results'
import { hostMachine } from './harness/host'

const ROOT = join(__dirname, '..', '..', '..')

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
  // As the run starts: the idle policy is the machine's, and may be changed between runs.
  const machine = hostMachine()
  ensureWrk()
  const standard = allCases()
  const cases = askedCases(o.cases, o.caseFile)
  const children: ChildProcess[] = []
  try {
    const ceilingPort = await freePort()
    const ceiling = await start(join(REFERENCES, 'ceiling.js'), [String(ceilingPort)], {}, /^(\d+)\n/)
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
    return {
      when: new Date().toISOString(),
      commit: commitOf(),
      durationS: o.durationS,
      machine,
      cases: results,
      soak
    }
  } finally {
    for (const child of children) child.kill('SIGTERM')
  }
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
