// The found cases (found.ts) against Java's recorded answers in found-cases.json, without Java: each
// class of difference the differential tests found stays fixed. fidelity.test.ts checks the recording
// against live Java.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { FOUND_FILE, disagreement, type RecordedCase } from './found-check'
import { FOUND } from './found'

interface Recording {
  provenance: { java: string; xstream: string; jackson: string }
  cases: RecordedCase[]
}

const recording = JSON.parse(readFileSync(FOUND_FILE, 'utf8')) as Recording

test('the recording is of the Java the README names, and holds every case of found.ts', () => {
  assert.match(recording.provenance.java, /^17\./)
  assert.equal(recording.provenance.xstream, '1.4.20')
  assert.match(recording.provenance.jackson, /^2\.14\./)
  assert.deepEqual(
    recording.cases.map((c) => `${c.found} ${c.setup}`),
    FOUND.map((c) => `${c.found} ${c.setup}`)
  )
})

for (const [k, c] of recording.cases.entries()) {
  test(`found ${k + 1}: ${c.found} (${c.setup}${c.text === undefined ? ', write' : ', read'}) as Java answered`, () => {
    assert.equal(disagreement(c, c.java), null)
  })
}
