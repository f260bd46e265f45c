// The e2e benchmark's text report: the bare hop's line puts the gateway between the ceiling and the hop.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { report, type RunResult, type SubjectResult } from '../../bench/e2e/run'

function subject(s: SubjectResult['subject'], rps: number, p50: number, cpu: Array<[string, number]>): SubjectResult {
  return {
    subject: s,
    rps,
    latencyMs: { mean: p50, p50, p90: p50, p99: p50, p999: p50, max: p50 },
    errors: 0,
    non2xx: 0,
    requests: rps,
    processes: cpu.map(([name, ms], k) => ({ name, pid: k + 1, cpuMsPerRequest: ms, cpuPercent: 0, rssMb: 50 }))
  }
}

function run(hop: SubjectResult | null): RunResult {
  return {
    when: '',
    commit: 'x',
    durationS: 1,
    soak: null,
    cases: [
      {
        case: 'roa-json',
        title: 'ROA',
        connections: 64,
        gateway: subject('gateway', 60, 2, [
          ['gateway', 0.018],
          ['microservice', 0.006]
        ]),
        ceiling: subject('ceiling', 100, 1, [['ceiling', 0.01]]),
        floor: null,
        ratio: 0.6,
        p50Ratio: 2,
        hop
      }
    ]
  }
}

test('with the bare hop: its ratios to the ceiling, its front CPU against the gateway, and gateway/hop', () => {
  const text = report(
    run(
      subject('hop', 80, 1.5, [
        ['front', 0.013],
        ['backend', 0.003]
      ])
    )
  )
  assert.match(text, /^hop {6}\| {6}80 \|/m)
  assert.match(
    text,
    /bare hop\/ceiling req\/s 0\.800, p50 1\.50×; front CPU per call 1\.30× the ceiling's \(gateway 1\.80×\); gateway\/bare hop req\/s 0\.750/
  )
})

test('without the bare hop, no hop line', () => {
  assert.doesNotMatch(report(run(null)), /bare hop/)
})
