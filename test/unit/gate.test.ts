import { test } from 'node:test'
import assert from 'node:assert/strict'
import { judge, type Baseline } from '../../bench/gate'
import type { RunResult, SubjectResult } from '../../bench/e2e/run'

function subject(s: SubjectResult['subject'], rps: number, p50: number, errors = 0): SubjectResult {
  return {
    subject: s,
    rps,
    latencyMs: { mean: p50, p50, p90: p50, p99: p50, p999: p50, max: p50 },
    errors,
    non2xx: 0,
    requests: rps,
    processes: []
  }
}

function result(ratio: number, p50Ratio: number, errors = 0): RunResult {
  return {
    when: '',
    commit: 'x',
    durationS: 1,
    soak: null,
    cases: [
      {
        case: 'roa-json',
        title: '',
        connections: 64,
        gateway: subject('gateway', 1000 * ratio, p50Ratio, errors),
        ceiling: subject('ceiling', 1000, 1),
        floor: null,
        ratio,
        p50Ratio
      }
    ]
  }
}

const baseline: Baseline = { note: '', margin: 0.35, cases: { 'roa-json': { ratio: 0.5, p50Ratio: 2 } } }

test('the gate passes within the margins', () => {
  assert.deepEqual(judge(result(0.4, 2.5), baseline, 0.35).failures, [])
})

test('the gate fails on a throughput regression beyond the margin', () => {
  const { failures } = judge(result(0.3, 2), baseline, 0.35)
  assert.equal(failures.length, 1)
  assert.match(failures[0]!, /roa-json: req\/s ratio 0\.300 below 0\.325/)
})

test('the gate fails on a latency regression beyond the margin', () => {
  assert.match(judge(result(0.5, 2.8), baseline, 0.35).failures[0]!, /p50 ratio 2\.80 above 2\.70/)
})

test('the gate fails on any error, whatever the ratios', () => {
  assert.match(judge(result(0.5, 2, 3), baseline, 0.35).failures[0]!, /3 errors or non-2xx/)
})
