// A node:test reporter that counts passed, failed and skipped tests (suites not counted, as the spec
// reporter does) and writes one JSON line; scripts/test.mjs prints it as the run's closing line.
export default async function* countReporter(source) {
  const counts = { passed: 0, failed: 0, skipped: 0 }
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue
    if (event.data.details?.type === 'suite') continue
    if (event.data.skip !== undefined || event.data.todo !== undefined) counts.skipped++
    else if (event.type === 'test:pass') counts.passed++
    else counts.failed++
  }
  yield `${JSON.stringify(counts)}\n`
}
