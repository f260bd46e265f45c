// Benchmark results as the e2e run makes them, for tests of what reads them (the gate, the reports).
import type { CaseResult, RunResult, SubjectResult } from '../../bench/e2e/results'

/** One subject's measurement: every latency percentile `p50`; `cpu` as [process name, ms per request]. */
export function benchSubject(
  s: SubjectResult['subject'],
  rps: number,
  p50: number,
  { errors = 0, cpu = [] }: { errors?: number; cpu?: Array<[string, number]> } = {}
): SubjectResult {
  return {
    subject: s,
    rps,
    latencyMs: { mean: p50, p50, p90: p50, p99: p50, p999: p50, max: p50 },
    errors,
    non2xx: 0,
    requests: rps,
    processes: cpu.map(([name, ms], k) => ({
      name,
      pid: k + 1,
      cpuMsPerRequest: ms,
      systemShare: 0.5,
      cpuPercent: 0,
      rssMb: 50
    }))
  }
}

/** A run of these cases, nothing else. */
export function benchRun(cases: CaseResult[]): RunResult {
  return { when: '', commit: 'x', durationS: 1, soak: null, cases }
}
