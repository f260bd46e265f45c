// The e2e benchmark's text report: the bare hop's line puts the gateway between the ceiling and the hop.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { report } from '../../../bench/e2e/tables'
import type { RunResult, SubjectResult } from '../../../bench/e2e/results'
import { benchRun, benchSubject } from '../../helpers/bench-results'

function run(hop: SubjectResult | null): RunResult {
  return benchRun([
    {
      case: 'roa-json',
      title: 'ROA',
      connections: 64,
      gateway: benchSubject('gateway', 60, 2, {
        cpu: [
          ['gateway', 0.018],
          ['microservice', 0.006]
        ]
      }),
      ceiling: benchSubject('ceiling', 100, 1, { cpu: [['ceiling', 0.01]] }),
      floor: null,
      ratio: 0.6,
      p50Ratio: 2,
      hop
    }
  ])
}

test('with the bare hop: its ratios to the ceiling, its front CPU against the gateway, and gateway/hop', () => {
  const hop = benchSubject('hop', 80, 1.5, {
    cpu: [
      ['front', 0.013],
      ['backend', 0.003]
    ]
  })
  const text = report(run(hop))
  assert.match(text, /^hop {6}\| {6}80 \|/m)
  assert.match(
    text,
    /bare hop\/ceiling req\/s 0\.800, p50 1\.50×; front CPU per call 1\.30× the ceiling's \(gateway 1\.80×\); gateway\/bare hop req\/s 0\.750/
  )
})

test("each process's CPU a call says the kernel's share of it", () => {
  // The helper's processes spend half their CPU in the kernel.
  assert.match(report(run(null)), /\| gateway 0\.0180 \(sys 50 %\), microservice 0\.0060 \(sys 50 %\) \|/)
})

test('without the bare hop, no hop line', () => {
  assert.doesNotMatch(report(run(null)), /bare hop/)
})

test("with the host's steal measured, a line says how much each subject's run lost to it; without, none", () => {
  const r = run(null)
  assert.doesNotMatch(report(r), /host took/)
  r.cases[0]!.gateway.stealShare = 0.031
  r.cases[0]!.ceiling.stealShare = 0
  assert.match(report(r), /^host took \(steal\): gateway 3\.1 %, ceiling 0\.0 %$/m)
})

test('a run that records its machine opens with it, idle policy included', () => {
  const r = run(null)
  r.machine = {
    cpu: 'AMD EPYC (family 25, model 17)',
    cores: 2,
    kernel: '6.1',
    idleGovernor: 'haltpoll',
    haltPollNs: 0
  }
  assert.match(
    report(r),
    /^machine: AMD EPYC \(family 25, model 17\), 2 cores, kernel 6\.1, idle governor haltpoll, guest halt polling 0 µs\n/
  )
})
