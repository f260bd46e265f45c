// A node:test reporter that counts passed, failed and skipped tests and writes one JSON line;
// scripts/test.mjs prints it as the run's closing line. Suites are not counted (as the spec reporter
// does), except a suite that fails by itself (a failing before/after hook), not only because a test in
// it failed: otherwise a run could say "0 failed" and exit 1. It also adds up each file's top-level
// tests and suites, so that the run can name its slowest files (time limits are per test; a file that
// creeps towards its limit on a busy machine is seen before it fails there).
export default async function* countReporter(source) {
  const counts = { passed: 0, failed: 0, skipped: 0 }
  const files = new Map()
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue
    if (event.data.nesting === 0 && event.data.file !== undefined)
      files.set(event.data.file, (files.get(event.data.file) ?? 0) + (event.data.details?.duration_ms ?? 0))
    if (event.data.details?.type === 'suite') {
      if (event.type === 'test:fail' && event.data.details.error?.failureType !== 'subtestsFailed') counts.failed++
      continue
    }
    if (event.data.skip !== undefined || event.data.todo !== undefined) counts.skipped++
    else if (event.type === 'test:pass') counts.passed++
    else counts.failed++
  }
  const slowest = [...files]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([file, ms]) => [file, Math.round(ms)])
  yield `${JSON.stringify({ ...counts, slowest })}\n`
}
