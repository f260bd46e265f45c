// Our serializers against the real Java ones (test/oracle/Oracle.java, installed and compiled by
// scripts/ensure-oracle.sh when missing): the differential property of fidelity.ts for a fixed seed,
// and the recorded answers of the cases of each class of difference it found (found-cases.json),
// asked of Java again each run.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { Oracle } from '../helpers/oracle'
import { runFidelity } from './fidelity'
import { javaOutcome } from './outcomes'
import { FOUND_SOURCES } from './found'
import { overCeiling } from './departures'
import { FOUND_FILE, requestFor, disagreement, type RecordedCase } from './found-check'

let oracle: Oracle
before(() => {
  oracle = Oracle.start()
})
after(async () => {
  await oracle.close()
})

test('the oracle is the Java the README names', async () => {
  const v = await oracle.ask({ op: 'versions' })
  assert.equal(v.xstream, '1.4.20')
  assert.match(v.jackson ?? '', /^2\.14\./)
  assert.match(v.java ?? '', /^17\./)
})

const RUNS = Number(process.env.FIDELITY_RUNS ?? 1500)
const SEED = Number(process.env.FIDELITY_SEED ?? 20261122)

test(`four families, both directions and a client's notations agree with Java (seed ${SEED}, ${RUNS} runs)`, async (tc) => {
  const report = await runFidelity(oracle, { runs: RUNS, seed: SEED, perUniverse: 500 })
  tc.diagnostic(JSON.stringify({ departures: report.departures, open: report.open, agreed: report.agreed }))
  assert.equal(report.runs, RUNS)
  // Each departure absorbs no more than it was seen to: one that grew hides a new difference.
  assert.deepEqual(overCeiling(report.departures, RUNS), [])
  // Agreeing by both refusing proves little: most comparisons must be of values and texts.
  const checks = Object.values(report.checks).reduce((a, b) => a + b, 0)
  assert.ok(report.agreed.values >= 0.75 * checks, `${report.agreed.values} of ${checks} checks agreed on a value`)
  for (const setup of ['alphaXml', 'alphaJson', 'alphaXml+aliases', 'alphaJson+aliases', 'betaXml', 'betaJson'])
    for (const direction of ['write', 'read', 'notation'])
      assert.ok((report.checks[`${setup} ${direction}`] ?? 0) > 0, `no ${setup} ${direction} checks`)
})

test('the recorded answers of the found cases are still what Java answers (found-cases.json)', async () => {
  const recording = JSON.parse(readFileSync(FOUND_FILE, 'utf8')) as { cases: RecordedCase[] }
  const compiled = await oracle.ask({ op: 'compile', sources: FOUND_SOURCES, aliases: {} })
  assert.equal(compiled.error, undefined, compiled.message)
  const answers = await oracle.batch(recording.cases.map(requestFor))
  recording.cases.forEach((c, k) => {
    const live = javaOutcome(answers[k])
    // Same value or text, or both refusals (Java's messages may carry positions that shift).
    assert.deepEqual({ ...live, message: undefined }, { ...c.java, message: undefined }, `${c.found} (${c.setup})`)
    assert.equal(disagreement(c, live), null)
  })
})
