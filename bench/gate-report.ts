// What the gate says, for machines and people: JSON, a Markdown summary (a CI job summary) and JUnit.
import type { RunResult } from './e2e/results'
import type { CpuResult } from './cpu-per-call'
import type { CpuVerdict } from './cpu-gate'

export interface CaseVerdict {
  case: string
  /** pass | fail | missing (in the baseline and asked for, but not measured) | unjudged (no baseline) */
  status: 'pass' | 'fail' | 'missing' | 'unjudged'
  ratio: number | null
  p50Ratio: number | null
  baselineRatio: number | null
  baselineP50Ratio: number | null
  minRatio: number | null
  maxP50Ratio: number | null
  gatewayRps: number | null
  problems: string[]
}

export interface GateVerdict {
  passed: boolean
  margin: number
  /** The CPU part's margin; null when it did not run. */
  cpuMargin: number | null
  commit: string
  seconds: number
  cases: CaseVerdict[]
  cpu: CpuVerdict[]
  failures: string[]
}

const n = (x: number | null, d: number): string => (x === null ? '–' : x.toFixed(d))

export function markdownSummary(v: GateVerdict): string {
  const icon = { pass: '✅ pass', fail: '❌ fail', missing: '❌ missing', unjudged: '➖ no baseline' }
  const rows = v.cases.map(
    (c) =>
      `| ${c.case} | ${icon[c.status]} | ${n(c.gatewayRps, 0)} | ${n(c.ratio, 3)} | ${n(c.baselineRatio, 3)} | ${n(c.minRatio, 3)} | ${n(c.p50Ratio, 2)}× | ${n(c.maxP50Ratio, 2)}× |`
  )
  const cpuRows = v.cpu
    .filter((c) => c.profile !== 'instructions')
    .map(
      (c) =>
        `| ${c.profile} | ${c.process} | ${icon[c.status]} | ${n(c.ratio, 3)} | ${n(c.baseline, 3)} | ${n(c.limit, 3)} |`
    )
  const counted = v.cpu.filter((c) => c.profile === 'instructions')
  const countRows = counted.map(
    (c) =>
      `| ${c.process} | ${c.status === 'unjudged' ? '➖ other Node version' : icon[c.status]} | ${n(c.ratio, 0)} | ${n(c.baseline, 0)} | ${n(c.limit, 0)} |`
  )
  return [
    `### Performance gate: ${v.passed ? 'passed' : 'FAILED'} (${v.commit}, margin ${Math.round(v.margin * 100)}%, ${v.seconds.toFixed(0)} s)`,
    '',
    ...(rows.length > 0
      ? [
          '| case | verdict | gateway req/s | gateway/ceiling | baseline | floor | p50 vs ceiling | limit |',
          '|---|---|---|---|---|---|---|---|',
          ...rows,
          ''
        ]
      : []),
    ...(cpuRows.length > 0
      ? [
          `CPU per call over the ceiling's (margin ${Math.round((v.cpuMargin ?? 0) * 100)}%):`,
          '',
          '| profile | process | verdict | ratio | baseline | limit |',
          '|---|---|---|---|---|---|',
          ...cpuRows,
          ''
        ]
      : []),
    ...(countRows.length > 0
      ? [
          `Instructions per call on each per-call path, under callgrind (margin ${Math.round(((counted[0]!.limit - counted[0]!.baseline) / counted[0]!.baseline) * 100)}%):`,
          '',
          '| path | verdict | instructions | baseline | limit |',
          '|---|---|---|---|---|',
          ...countRows
        ]
      : []),
    ...(v.failures.length > 0 ? ['', ...v.failures.map((f) => `- ${f}`)] : []),
    ''
  ].join('\n')
}

const xml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

export function junitReport(v: GateVerdict): string {
  const failed =
    v.cases.filter((c) => c.status === 'fail' || c.status === 'missing').length +
    v.cpu.filter((c) => c.status === 'fail' || c.status === 'missing').length
  const cpuCases = v.cpu.map((c) => {
    const name = `performance gate: ${c.profile === 'instructions' ? '' : 'cpu '}${c.profile} ${c.process}`
    const detail =
      c.profile === 'instructions'
        ? `${n(c.ratio, 0)} instructions a call (baseline ${n(c.baseline, 0)}, limit ${n(c.limit, 0)})${c.status === 'unjudged' ? '; counted on another Node version than the baseline, not judged' : ''}`
        : `CPU per call ${n(c.ratio, 3)}× the ceiling's (baseline ${n(c.baseline, 3)}, limit ${n(c.limit, 3)})`
    return c.status === 'pass' || c.status === 'unjudged'
      ? `    <testcase classname="bench.gate" name="${xml(name)}"><system-out>${xml(detail)}</system-out></testcase>`
      : `    <testcase classname="bench.gate" name="${xml(name)}"><failure message="${xml(detail)}">${xml(detail)}</failure></testcase>`
  })
  const cases = v.cases.map((c) => {
    const name = `performance gate: ${c.case}`
    const detail = `ratio ${n(c.ratio, 3)} (floor ${n(c.minRatio, 3)}), p50 ${n(c.p50Ratio, 2)}× (limit ${n(c.maxP50Ratio, 2)}×)`
    if (c.status === 'fail' || c.status === 'missing')
      return `    <testcase classname="bench.gate" name="${xml(name)}"><failure message="${xml(c.problems.join('; '))}">${xml(detail)}</failure></testcase>`
    if (c.status === 'unjudged')
      return `    <testcase classname="bench.gate" name="${xml(name)}"><system-out>${xml(`no baseline; ${detail}`)}</system-out></testcase>`
    return `    <testcase classname="bench.gate" name="${xml(name)}"><system-out>${xml(detail)}</system-out></testcase>`
  })
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="performance gate" tests="${v.cases.length + v.cpu.length}" failures="${failed}">`,
    `  <testsuite name="performance gate" tests="${v.cases.length + v.cpu.length}" failures="${failed}" time="${v.seconds.toFixed(1)}">`,
    ...cases,
    ...cpuCases,
    '  </testsuite>',
    '</testsuites>',
    ''
  ].join('\n')
}

/** The run and the verdict in one JSON document. */
export function jsonReport(run: RunResult, cpu: CpuResult[], v: GateVerdict): string {
  return JSON.stringify({ verdict: v, run, cpu }, null, 2) + '\n'
}
