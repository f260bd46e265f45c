// What makes a test run untrustworthy although every test that ran passed: a committed focus or skip
// (`test.only`, `.skip`, `.todo`, `{ skip: true }`), and coverage below the levels the suite has reached.
import { readFileSync } from 'node:fs'

const MARKERS = /\b(?:test|it|describe|suite)\.(?:only|skip|todo)\(|\b(?:only|skip|todo)\s*:\s*(?:true|['"`])/g

/** Each file and line with a focus or skip marker, as "file:line: text". */
export function focusOrSkipMarkers(files) {
  const found = []
  for (const file of files) {
    const lines = readFileSync(file, 'utf8').split('\n')
    lines.forEach((line, k) => {
      if (MARKERS.test(line)) found.push(`${file}:${k + 1}: ${line.trim()}`)
      MARKERS.lastIndex = 0
    })
  }
  return found
}

/** The least coverage of src/ (per cent) a run must keep: the levels reached, less a small margin. */
export const COVERAGE_FLOOR = { lines: 93.5, branches: 86.5, functions: 93.5 }

/** The kinds of coverage below their floor, as "lines 92.1% < 93.5%". */
export function coverageBelow(total, floor = COVERAGE_FLOOR) {
  return Object.entries(floor)
    .filter(([k, min]) => total[k].pct < min)
    .map(([k, min]) => `${k} ${total[k].pct}% < ${min}%`)
}

/**
 * The limit a test file names in its opening comment (`// time limit: 480 s: why`), in ms, or the
 * runner's. Only the file's first comment line counts (after the lines tsc puts first), so a file
 * says it where a reader meets it first.
 */
export function timeLimitOf(source, fallbackMs) {
  const first = source.split('\n').find((l) => l.startsWith('//'))
  const m = first === undefined ? null : /^\/\/ time limit: (\d+) s\b/.exec(first)
  return m === null ? fallbackMs : Number(m[1]) * 1000
}

/** The counts of several runs as one (the five slowest files of all), or null when none wrote counts. */
export function mergeCounts(texts) {
  const all = texts.filter((t) => t !== null && t.trim() !== '').map((t) => JSON.parse(t))
  if (all.length === 0) return null
  return {
    passed: all.reduce((n, c) => n + c.passed, 0),
    failed: all.reduce((n, c) => n + c.failed, 0),
    skipped: all.reduce((n, c) => n + c.skipped, 0),
    slowest: all
      .flatMap((c) => c.slowest)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
  }
}

/** JUnit reports of several runs as one <testsuites> document. */
export function mergeJunit(texts) {
  const inner = texts.map((t) => /<testsuites>([\s\S]*)<\/testsuites>/.exec(t)?.[1] ?? '').join('')
  return `<?xml version="1.0" encoding="utf-8"?>\n<testsuites>${inner}</testsuites>\n`
}
