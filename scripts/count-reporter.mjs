// A node:test reporter that counts passed, failed and skipped tests and writes one JSON line;
// scripts/test.mjs prints it as the run's closing line. Suites are not counted (as the spec reporter
// does), except a suite that fails by itself (a failing before/after hook), not only because a test in
// it failed: otherwise a run could say "0 failed" and exit 1.
export default async function* countReporter(source) {
  const counts = { passed: 0, failed: 0, skipped: 0 }
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue
    if (event.data.details?.type === 'suite') {
      if (event.type === 'test:fail' && event.data.details.error?.failureType !== 'subtestsFailed') counts.failed++
      continue
    }
    if (event.data.skip !== undefined || event.data.todo !== undefined) counts.skipped++
    else if (event.type === 'test:pass') counts.passed++
    else counts.failed++
  }
  yield `${JSON.stringify(counts)}\n`
}
