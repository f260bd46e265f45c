// The hit-rate program's counting: a pass of the unchanged build and a failure of a slowed one are
// the hits, and a verdict's failed checks are named as the gate names them.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { outcomeOf, tally, type GateOutcome } from '../../../bench/hit-rates'
import type { GateVerdict } from '../../../bench/gate-report'

const verdict = (over: Partial<GateVerdict>): GateVerdict => ({
  passed: true,
  margin: 0.35,
  cpuMargin: 0.12,
  commit: 'abc',
  seconds: 60,
  cases: [],
  cpu: [],
  failures: [],
  ...over
})

test('a verdict names the checks that failed: throughput cases by name, CPU and counts by profile and process', () => {
  const o = outcomeOf(
    'gateway',
    verdict({
      passed: false,
      cases: [
        { case: 'roa-json', status: 'pass' } as GateVerdict['cases'][number],
        { case: 'rmc-json', status: 'fail' } as GateVerdict['cases'][number],
        { case: 'c1-latency', status: 'unjudged' } as GateVerdict['cases'][number]
      ],
      cpu: [
        { profile: 'call', process: 'gateway', ratio: 3.5, baseline: 3, limit: 3.36, status: 'fail' },
        { profile: 'call', process: 'microservice', ratio: 1, baseline: 1.3, limit: 1.5, status: 'pass' },
        {
          profile: 'instructions',
          process: 'gateway call',
          ratio: 30000,
          baseline: 26830,
          limit: 28708,
          status: 'fail'
        }
      ]
    })
  )
  assert.deepEqual(o, {
    build: 'gateway',
    passed: false,
    seconds: 60,
    failed: ['rmc-json', 'call gateway', 'instructions gateway call'],
    counts: { 'gateway call': 30000 }
  })
})

test('hits: the unchanged build passing, a slowed build failing; each counted of its own runs', () => {
  const runs: GateOutcome[] = [
    { build: 'unchanged', passed: true, seconds: 1, failed: [], counts: {} },
    { build: 'gateway', passed: false, seconds: 1, failed: ['x'], counts: {} },
    { build: 'unchanged', passed: false, seconds: 1, failed: ['y'], counts: {} },
    { build: 'microservice', passed: true, seconds: 1, failed: [], counts: {} },
    { build: 'unchanged', passed: true, seconds: 1, failed: [], counts: {} },
    { build: 'microservice', passed: false, seconds: 1, failed: ['z'], counts: {} }
  ]
  assert.deepEqual(tally(runs), { passes: [2, 3], catches: [2, 3] })
})
