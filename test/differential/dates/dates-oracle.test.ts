// The date tests (dates-cases.ts) asked of the live Java oracle, and the recording the mutation run
// uses (dates-answers.jsonl.gz, read by dates-jackson-recorded.test.ts and dates-xstream-recorded.test.ts)
// checked to be exactly what Java answered: the same requests, the same answers. DATES_RECORD=1 writes
// it instead (after a change of the cases or of the oracle's Java libraries).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Oracle, RecordingOracle } from '../../helpers/oracle'
import { allDateTestsPassed, dateTests } from './dates-cases'
import { readRecording, writeRecording } from './dates-answers'

let live: RecordingOracle | undefined
dateTests(() => (live = new RecordingOracle(Oracle.start())))

// Other runs or seeds ask other questions; only the default ones are recorded.
const asRecorded =
  process.env.DATE_RUNS === undefined && process.env.DATE_SEED === undefined && process.env.DATE_ZONES === undefined

if (asRecorded)
  test('dates-answers.jsonl.gz holds what Java answered, to the same requests', () => {
    const asked = live!.recording()
    if (process.env.DATES_RECORD === '1') {
      // A test that failed part way asked only part of its questions: such a recording would be refused.
      assert.ok(allDateTestsPassed(), 'not recorded: a date test failed')
      writeRecording(asked)
      return
    }
    const recorded = new Map(readRecording())
    const now = new Map(asked)
    const missing = asked.filter(([request]) => !recorded.has(request)).length
    const changed = asked.filter(
      ([request, a]) => recorded.has(request) && !equalAnswers(recorded.get(request), a)
    ).length
    const stale = [...recorded.keys()].filter((request) => !now.has(request)).length
    assert.deepEqual(
      { missing, changed, stale },
      { missing: 0, changed: 0, stale: 0 },
      'dates-answers.jsonl.gz is not what Java answered: `DATES_RECORD=1 node --import tsx --test test/differential/dates/dates-oracle.test.ts` writes it'
    )
  })

function equalAnswers(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}
