// `npm run bench:observability`: what metrics and the access log cost on the hot path. ROA beta JSON
// multiply at c=64 against three platforms in turn, rounds alternating their order: both off, metrics
// on (access log off), both on. Each run has its own ceiling, so the machine's drift shows in the
// gateway/ceiling ratio; the verdict compares medians of req/s and the median of the ratios within
// each round.
import { smallCallRound } from './run'
import { gatewayCpu } from './tables'
import type { CaseResult } from './results'
import { arg } from '../cli'

type Mode = 'off' | 'metrics' | 'metrics+access'
const MODES: Mode[] = ['off', 'metrics', 'metrics+access']

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

async function main(): Promise<void> {
  const rounds = Number(arg('rounds', '3'))
  const durationS = Number(arg('duration', '5'))
  const results = new Map<Mode, CaseResult[]>(MODES.map((m) => [m, []]))
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? MODES : [...MODES].reverse()
    for (const mode of order) {
      process.env.IGW_BENCH_METRICS = mode === 'off' ? 'false' : 'true'
      process.env.IGW_BENCH_ACCESS_LOG = mode === 'metrics+access' ? 'true' : 'false'
      const out = await smallCallRound(durationS)
      const c = out.cases[0]!
      results.get(mode)!.push(c)
      process.stderr.write(
        `round ${r + 1}/${rounds} ${mode.padEnd(15)} ${c.gateway.rps.toFixed(0)} req/s, gateway/ceiling ${c.ratio.toFixed(3)}, gateway CPU ${gatewayCpu(c.gateway).toFixed(4)} ms/req\n`
      )
    }
  }
  const off = median(results.get('off')!.map((c) => c.gateway.rps))
  const offRounds = results.get('off')!
  // The machine drifts by tens of percent from minute to minute: besides the medians of each mode,
  // the median of the ratios within a round, whose runs are next to each other in time.
  console.log(
    'mode            | median req/s | vs off | median of round ratios | median gateway/ceiling | median gateway CPU ms/req'
  )
  for (const mode of MODES) {
    const cs = results.get(mode)!
    const rps = median(cs.map((c) => c.gateway.rps))
    const cpu = median(cs.map((c) => gatewayCpu(c.gateway)))
    const paired = median(cs.map((c, k) => c.gateway.rps / offRounds[k]!.gateway.rps))
    console.log(
      `${mode.padEnd(15)} | ${rps.toFixed(0).padStart(12)} | ${(rps / off).toFixed(3).padStart(6)} | ${paired
        .toFixed(3)
        .padStart(22)} | ${median(cs.map((c) => c.ratio))
        .toFixed(3)
        .padStart(22)} | ${cpu.toFixed(4)}`
    )
  }
}

main().catch((err: unknown) => {
  console.error(err)
  process.exit(1)
})
