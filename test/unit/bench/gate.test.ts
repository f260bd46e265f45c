import { test } from 'node:test'
import assert from 'node:assert/strict'
import { judge, parseBaseline, checkMargin, checkCaseNames, type Baseline } from '../../../bench/gate'
import { markdownSummary, junitReport, jsonReport, type GateVerdict } from '../../../bench/gate-report'
import { readHistory, renderReport } from '../../../bench/report'
import type { RunResult } from '../../../bench/e2e/results'
import { benchRun, benchSubject } from '../../helpers/bench-results'
import { judgeCpu, judgeInstructions, machineNote, parseCpuBaseline } from '../../../bench/cpu-gate'
import type { StageResult } from '../../../bench/stage-instructions'
import { summarize, type CpuResult, type CpuRound } from '../../../bench/cpu-per-call'

function result(ratio: number, p50Ratio: number, errors = 0): RunResult {
  return benchRun([
    {
      case: 'roa-json',
      title: '',
      connections: 64,
      gateway: benchSubject('gateway', 1000 * ratio, p50Ratio, { errors }),
      ceiling: benchSubject('ceiling', 1000, 1),
      floor: null,
      ratio,
      p50Ratio
    }
  ])
}

const baseline: Baseline = { note: '', margin: 0.35, cases: { 'roa-json': { ratio: 0.5, p50Ratio: 2 } }, cpu: null }

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

test('a baseline without a margin (or a NaN one) is refused, not judged vacuously', () => {
  assert.throws(
    () => parseBaseline('{"cases":{"roa-json":{"ratio":0.5,"p50Ratio":2}}}', 'b.json'),
    /b\.json: margin: the margin must be a number from 0 to 1/
  )
  assert.throws(
    () => checkMargin(Number('x'), '--margin'),
    /--margin: the margin must be a number from 0 to 1 \(e\.g\. 0\.35\), got null/
  )
  assert.throws(() => parseBaseline('{"margin":0.3,"cases":{}}', 'b.json'), /cases must name at least one case/)
  assert.throws(
    () => parseBaseline('{"margin":0.3,"cases":{"x":{"ratio":"0.5"}}}', 'b.json'),
    /case x needs a positive ratio and p50Ratio/
  )
  assert.throws(() => parseBaseline('not json', 'b.json'), /b\.json: not JSON/)
  assert.throws(() => judge(result(0.5, 2), baseline, Number.NaN), /margin/)
  assert.deepEqual(parseBaseline(JSON.stringify(baseline), 'b.json').cases, baseline.cases)
})

test('an empty or unknown case list is refused, naming the known cases', () => {
  assert.throws(
    () => checkCaseNames([''], ['roa-json', 'rmc-json']),
    /no cases to run; known cases: roa-json, rmc-json/
  )
  assert.throws(() => checkCaseNames(['roa-jsn'], ['roa-json']), /unknown case roa-jsn; known: roa-json/)
  assert.deepEqual(checkCaseNames(['roa-json', ' rmc-json'], ['roa-json', 'rmc-json']), ['roa-json', 'rmc-json'])
})

test('a baseline case asked for but missing from the run fails; one not asked for is reported only', () => {
  const two: Baseline = { ...baseline, cases: { ...baseline.cases, 'rmc-json': { ratio: 0.4, p50Ratio: 2 } } }
  const missing = judge(result(0.5, 2), two, 0.35, ['roa-json', 'rmc-json'])
  assert.deepEqual(missing.failures, ['rmc-json: in the baseline and asked for, but the run has no result for it'])
  assert.equal(missing.cases.find((c) => c.case === 'rmc-json')?.status, 'missing')
  const subset = judge(result(0.5, 2), two, 0.35, ['roa-json'])
  assert.deepEqual(subset.failures, [])
  assert.ok(subset.lines.some((l) => /rmc-json +not run/.test(l)))
})

test('the verdict as Markdown, JUnit and JSON', () => {
  const judged = judge(result(0.3, 2), baseline, 0.35)
  const verdict: GateVerdict = {
    passed: false,
    margin: 0.35,
    cpuMargin: null,
    commit: 'abc1234',
    seconds: 61,
    cases: judged.cases,
    cpu: [],
    failures: judged.failures
  }
  const md = markdownSummary(verdict)
  assert.match(md, /^### Performance gate: FAILED \(abc1234, margin 35%, 61 s\)/)
  assert.match(md, /\| roa-json \| ❌ fail \| 300 \| 0\.300 \| 0\.500 \| 0\.325 \| 2\.00× \| 2\.70× \|/)
  const junit = junitReport(verdict)
  assert.match(junit, /<testsuite name="performance gate" tests="1" failures="1"/)
  assert.match(
    junit,
    /<testcase classname="bench\.gate" name="performance gate: roa-json"><failure message="roa-json: req\/s ratio 0\.300 below 0\.325">/
  )
  const json = JSON.parse(jsonReport(result(0.3, 2), [], verdict)) as { verdict: GateVerdict; run: RunResult }
  assert.equal(json.verdict.passed, false)
  assert.equal(json.run.cases[0]!.case, 'roa-json')
})

test('bench:report draws the history: one chart pair per case, a point per run', () => {
  const runs = [result(0.4, 2), result(0.5, 2), result(0.45, 2)].map((r, k) =>
    JSON.stringify({ ...r, commit: `c${k}` })
  )
  const history = readHistory([...runs, 'garbage', ''].join('\n'))
  assert.equal(history.runs, 3)
  assert.equal(history.skipped, 1)
  assert.deepEqual(
    history.series.get('roa-json')!.map((p) => p.ratio),
    [0.4, 0.5, 0.45]
  )
  const html = renderReport(history)
  assert.equal((html.match(/<svg /g) ?? []).length, 2)
  assert.equal((html.match(/<circle /g) ?? []).length, 6)
  assert.match(html, />c2</)
  assert.match(html, /3 runs \(1 unreadable lines skipped\)/)
})

function cpuResult(profile: string, gatewayRatio: number, microserviceRatio: number): CpuResult {
  return {
    profile,
    gatewayUs: gatewayRatio * 25,
    microserviceUs: microserviceRatio * 25,
    ceilingUs: 25,
    gatewayRatio,
    microserviceRatio,
    againstReference: null,
    rounds: [],
    core: null
  }
}

const cpuBaseline = parseCpuBaseline(
  { margin: 0.06, profiles: { call: { gateway: 2.8, microservice: 1.3 }, edge: { gateway: 2.85, microservice: 1.3 } } },
  'b.json'
)

test('the CPU part passes within its margin and fails a process above it, naming which', () => {
  assert.deepEqual(judgeCpu([cpuResult('call', 2.95, 1.37)], cpuBaseline, ['call']).failures, [])
  const slow = judgeCpu([cpuResult('call', 3.08, 1.3), cpuResult('edge', 2.85, 1.43)], cpuBaseline, ['call', 'edge'])
  assert.deepEqual(slow.failures, [
    "cpu call gateway: 3.080× the ceiling's CPU per call, above 2.968 (baseline 2.800 + 6%)",
    "cpu edge microservice: 1.430× the ceiling's CPU per call, above 1.378 (baseline 1.300 + 6%)"
  ])
  assert.deepEqual(
    slow.verdicts.map((v) => `${v.profile} ${v.process} ${v.status}`),
    ['call gateway fail', 'call microservice pass', 'edge gateway pass', 'edge microservice fail']
  )
})

test('a CPU profile asked for but not measured fails; a bad cpu section is refused', () => {
  assert.deepEqual(judgeCpu([cpuResult('call', 2.8, 1.3)], cpuBaseline, ['call', 'edge']).failures, [
    'cpu edge gateway: not measured',
    'cpu edge microservice: not measured'
  ])
  assert.throws(
    () => parseCpuBaseline({ margin: 0, profiles: {} }, 'b.json'),
    /cpu\.margin must be a number between 0 and 1/
  )
  assert.throws(
    () => parseCpuBaseline({ margin: 0.06, profiles: { call: { gateway: 2.8 } } }, 'b.json'),
    /cpu profile call needs positive gateway and microservice ratios/
  )
  assert.throws(
    () => parseBaseline(JSON.stringify({ ...baseline, cpu: { margin: 2, profiles: {} } }), 'b.json'),
    /b\.json: cpu\.margin/
  )
  assert.deepEqual(parseBaseline(JSON.stringify({ ...baseline, cpu: cpuBaseline }), 'b.json').cpu, cpuBaseline)
})

test('the CPU verdicts in the Markdown and JUnit reports', () => {
  const judged = judgeCpu([cpuResult('call', 3.08, 1.3)], cpuBaseline, ['call'])
  const verdict: GateVerdict = {
    passed: false,
    margin: 0.35,
    cpuMargin: 0.06,
    commit: 'abc1234',
    seconds: 30,
    cases: [],
    cpu: judged.verdicts,
    failures: judged.failures
  }
  assert.match(markdownSummary(verdict), /\| call \| gateway \| ❌ fail \| 3\.080 \| 2\.800 \| 2\.968 \|/)
  const junit = junitReport(verdict)
  assert.match(junit, /<testsuite name="performance gate" tests="2" failures="1"/)
  assert.match(junit, /name="performance gate: cpu call gateway"><failure message="CPU per call 3\.080× the ceiling's/)
})

test("the microservice host's checks take their own margin when the baseline gives one", () => {
  const b = parseCpuBaseline(
    { margin: 0.07, microserviceMargin: 0.12, profiles: { call: { gateway: 2.8, microservice: 1.3 } } },
    'b.json'
  )
  const judged = judgeCpu([cpuResult('call', 3.0, 1.45)], b, ['call'])
  assert.deepEqual(judged.failures, [
    "cpu call gateway: 3.000× the ceiling's CPU per call, above 2.996 (baseline 2.800 + 7%)"
  ])
  assert.equal(judgeCpu([cpuResult('call', 2.9, 1.46)], b, ['call']).failures.length, 1)
  assert.throws(
    () =>
      parseCpuBaseline(
        { margin: 0.07, microserviceMargin: 1.5, profiles: { call: { gateway: 2.8, microservice: 1.3 } } },
        'b.json'
      ),
    /cpu\.microserviceMargin must be a number between 0 and 1/
  )
})

const COUNTS = { microservice: 13600, 'gateway call': 37000, 'gateway edge': 37900, 'gateway observed': 49900 }

function counted(over: Partial<typeof COUNTS> = {}): StageResult[] {
  return Object.entries({ ...COUNTS, ...over }).map(([stage, n]) => ({
    stage: stage as StageResult['stage'],
    instructions: n,
    rounds: [n, n, n]
  }))
}

test('instruction counts: within the margin pass, 10 % more fails naming the path, another Node is not judged', () => {
  const b = parseCpuBaseline(
    {
      margin: 0.07,
      profiles: { call: { gateway: 2.8, microservice: 1.3 } },
      instructions: { node: 'v20.20.2', margin: 0.05, counts: COUNTS }
    },
    'b.json'
  ).instructions!
  assert.deepEqual(judgeInstructions(counted({ 'gateway edge': 39700 }), b, 'v20.20.2').failures, [])
  const slow = judgeInstructions(counted({ 'gateway observed': 54890, microservice: 14960 }), b, 'v20.20.2')
  assert.deepEqual(slow.failures, [
    'instructions microservice: 14960 a call on the per-call path, above 14280 (baseline 13600 + 5%)',
    'instructions gateway observed: 54890 a call on the per-call path, above 52395 (baseline 49900 + 5%)'
  ])
  assert.deepEqual(
    slow.verdicts.map((v) => `${v.process} ${v.status}`),
    ['microservice fail', 'gateway call pass', 'gateway edge pass', 'gateway observed fail']
  )
  const other = judgeInstructions(counted({ microservice: 20000 }), b, 'v24.11.0')
  assert.deepEqual(other.failures, [])
  assert.ok(other.verdicts.every((v) => v.status === 'unjudged'))
  assert.match(other.lines[0]!, /counted on v20\.20\.2, not judged/)
  const missing = judgeInstructions(
    counted().filter((r) => r.stage !== 'gateway edge'),
    b,
    'v20.20.2'
  )
  assert.deepEqual(missing.failures, ['instructions gateway edge: not measured'])

  const verdict: GateVerdict = {
    passed: false,
    margin: 0.35,
    cpuMargin: 0.07,
    commit: 'abc1234',
    seconds: 30,
    cases: [],
    cpu: slow.verdicts,
    failures: slow.failures
  }
  const md = markdownSummary(verdict)
  assert.match(md, /Instructions per call on each per-call path, under callgrind \(margin 5%\)/)
  assert.match(md, /\| gateway observed \| ❌ fail \| 54890 \| 49900 \| 52395 \|/)
  assert.match(
    junitReport(verdict),
    /name="performance gate: instructions microservice"><failure message="14960 instructions a call \(baseline 13600, limit 14280\)"/
  )
})

test('an instructions baseline needs its Node version, a margin and a count for every path', () => {
  const section = (instructions: unknown): unknown => ({
    margin: 0.07,
    profiles: { call: { gateway: 2.8, microservice: 1.3 } },
    instructions
  })
  assert.throws(
    () => parseCpuBaseline(section({ margin: 0.05, counts: COUNTS }), 'b.json'),
    /b\.json: cpu\.instructions\.node must be the Node version/
  )
  assert.throws(
    () => parseCpuBaseline(section({ node: 'v20.20.2', margin: 5, counts: COUNTS }), 'b.json'),
    /cpu\.instructions\.margin must be a number between 0 and 1/
  )
  assert.throws(
    () =>
      parseCpuBaseline(
        section({ node: 'v20.20.2', margin: 0.05, counts: { ...COUNTS, 'gateway edge': undefined } }),
        'b.json'
      ),
    /cpu\.instructions\.counts\["gateway edge"\] must be a positive count/
  )
  assert.equal(parseCpuBaseline(section(undefined), 'b.json').instructions, null)
})

test('the machine a baseline of counts was made on: checked when read, named when this one differs', () => {
  const here = {
    cpu: 'AMD EPYC 9R14',
    flags: 'fpu sse2 avx2 avx512f',
    kernel: '6.1.0-40-amd64',
    valgrind: 'valgrind-3.19.0'
  }
  const section = (machine: unknown): unknown => ({
    margin: 0.07,
    profiles: { call: { gateway: 2.8, microservice: 1.3 } },
    instructions: { node: 'v20.20.2', margin: 0.05, counts: COUNTS, machine }
  })
  assert.deepEqual(parseCpuBaseline(section(here), 'b.json').instructions!.machine, here)
  assert.equal(parseCpuBaseline(section(undefined), 'b.json').instructions!.machine, null)
  assert.throws(
    () => parseCpuBaseline(section({ ...here, kernel: 6 }), 'b.json'),
    /cpu\.instructions\.machine\.kernel must be a string/
  )
  assert.equal(machineNote(here, { ...here }), null)
  assert.equal(
    machineNote(here, { ...here, cpu: 'Intel Xeon Platinum 8488C', flags: 'fpu sse2 avx2' }),
    "note: the counts' baseline was made on AMD EPYC 9R14, kernel 6.1.0-40-amd64, valgrind-3.19.0; this machine is Intel Xeon Platinum 8488C, kernel 6.1.0-40-amd64, valgrind-3.19.0 (cpu, flags differ)"
  )
  assert.match(machineNote(null, here)!, /does not record the machine/)
})

test("CPU rounds: the order's effect cancels within each pair of rounds; the median pair is the result", () => {
  const round = (gw: number, ce: number): CpuRound => ({
    gatewayUs: gw,
    microserviceUs: gw / 3,
    ceilingUs: ce,
    gatewayRatio: gw / ce,
    microserviceRatio: gw / 3 / ce
  })
  // The ceiling reads half as much when it follows the platform: every odd round's ratio doubles.
  const rounds = [round(60, 30), round(60, 15), round(66, 30), round(66, 15), round(57, 30), round(57, 15)]
  const r = summarize('call', rounds, 2)
  // Pairs: √(2×4) = 2.828, √(2.2×4.4) = 3.111, √(1.9×3.8) = 2.687; the plain median of the six would be 3.0 or 3.3.
  assert.equal(r.gatewayRatio.toFixed(3), '2.828')
  assert.equal(r.gatewayUs.toFixed(6), '60.000000')
  assert.equal(r.againstReference, null)
  assert.equal(r.rounds.length, 6)
  assert.throws(() => summarize('call', [round(1, 1)], 2), /1 rounds make no group of 2/)
})
