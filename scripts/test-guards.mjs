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
