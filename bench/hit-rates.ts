// How often the gate passes the code as it is and fails a slowdown of it, on this machine: the two
// figures a gate's margins stand on. A margin set on one machine type holds on another only if these
// are measured there again (docs/performance.md, "A count that holds"). Rounds alternate: the unchanged
// build, then a copy whose gateway or microservice (turn about) does `--percent` more CPU a call, both
// judged by the real gate with CI's attempts, so a slow minute lands on both alike.
//   node dist/bench/hit-rates.js [--rounds 10] [--percent 10] [--only cpu|all] [--attempts 3] [--json FILE]
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { measureCpu } from './cpu-per-call'
import type { GateVerdict } from './gate-report'
import { gateIn, slowedCopy, slowdownNs, PER_CALL } from './slowed-copy'
import { arg, runMain, writeJsonIfAsked } from './cli'

type Slowed = keyof typeof PER_CALL

export interface GateOutcome {
  build: 'unchanged' | Slowed
  passed: boolean
  seconds: number
  /** The checks that failed on the last attempt, as the gate names them ("instructions gateway call"). */
  failed: string[]
  /** Each per-call path's instruction count a call, by stage: how far a slowed build lands past its limit. */
  counts: Record<string, number>
}

export interface HitRates {
  percent: number
  /** The slowdown written into each slowed process's per-call path, in nanoseconds a call. */
  slowdownNs: Record<Slowed, number>
  /** Unchanged runs that passed, of how many. */
  passes: [number, number]
  /** Slowed runs that failed, of how many. */
  catches: [number, number]
  runs: GateOutcome[]
}

/** The gate's verdict as a row: which checks failed (case names for throughput, "cpu/instructions …" for the rest). */
export function outcomeOf(build: GateOutcome['build'], v: GateVerdict): GateOutcome {
  const failed = [
    ...v.cases.filter((c) => c.status !== 'pass' && c.status !== 'unjudged').map((c) => c.case),
    ...v.cpu.filter((c) => c.status !== 'pass').map((c) => `${c.profile} ${c.process}`)
  ]
  const counts = Object.fromEntries(
    v.cpu.filter((c) => c.profile === 'instructions' && c.ratio !== null).map((c) => [c.process, c.ratio!])
  )
  return { build, passed: v.passed, seconds: v.seconds, failed, counts }
}

/** Passes of the unchanged build and failures of the slowed ones, counted from the runs. */
export function tally(runs: GateOutcome[]): Pick<HitRates, 'passes' | 'catches'> {
  const unchanged = runs.filter((r) => r.build === 'unchanged')
  const slowed = runs.filter((r) => r.build !== 'unchanged')
  return {
    passes: [unchanged.filter((r) => r.passed).length, unchanged.length],
    catches: [slowed.filter((r) => !r.passed).length, slowed.length]
  }
}

async function main(): Promise<void> {
  const rounds = Number(arg('rounds', '10'))
  const percent = Number(arg('percent', '10'))
  const only = arg('only', 'cpu')
  const gateArgs = [...(only === 'all' ? [] : ['--only', only]), '--attempts', arg('attempts', '3')]
  const log = (line: string): void => void process.stderr.write(line + '\n')
  const copies: string[] = []
  try {
    const unchanged = slowedCopy(null, 0)
    copies.push(unchanged)
    // The slowdown is a share of what each process spends a call, by the gate's own measure.
    const [call] = await measureCpu({
      dist: join(unchanged, 'dist'),
      reference: null,
      rounds: 6,
      calls: 1500,
      warmup: 20000,
      profiles: ['call'],
      log
    })
    const slowdown: Record<Slowed, number> = {
      gateway: slowdownNs(call!, 'gateway', percent),
      microservice: slowdownNs(call!, 'microservice', percent)
    }
    const slowed: Record<Slowed, string> = {
      gateway: slowedCopy('gateway', slowdown.gateway),
      microservice: slowedCopy('microservice', slowdown.microservice)
    }
    copies.push(slowed.gateway, slowed.microservice)
    log(`slowdowns: gateway ${slowdown.gateway} ns a call, microservice ${slowdown.microservice} ns`)
    const runs: GateOutcome[] = []
    for (let k = 0; k < rounds; k++) {
      const which: Slowed = k % 2 === 0 ? 'gateway' : 'microservice'
      for (const [build, copy] of [
        ['unchanged', unchanged],
        [which, slowed[which]]
      ] as const) {
        const o = outcomeOf(build, (await gateIn(copy, gateArgs)).verdict)
        runs.push(o)
        log(
          `round ${k + 1}/${rounds} ${build}: ${o.passed ? 'passed' : 'failed'} in ${o.seconds.toFixed(0)} s` +
            (o.failed.length > 0 ? ` (${o.failed.join(', ')})` : '') +
            `; counts ${Object.entries(o.counts)
              .map(([stage, n]) => `${stage} ${Math.round(n)}`)
              .join(', ')}`
        )
      }
    }
    const rates: HitRates = { percent, slowdownNs: slowdown, ...tally(runs), runs }
    console.log(
      `unchanged passed ${rates.passes[0]} of ${rates.passes[1]}; ${percent} % slower failed ${rates.catches[0]} of ${rates.catches[1]}`
    )
    writeJsonIfAsked(rates)
  } finally {
    for (const c of copies) rmSync(c, { recursive: true, force: true })
  }
}

runMain(module, main)
