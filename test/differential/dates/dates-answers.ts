// Java's answers to the date tests (dates-cases.ts), recorded from the live oracle by dates-oracle.test.ts:
// one line per request, `[request JSON, answer]`, gzipped (54,000 lines, 9.6 MB as text, 0.61 MB so).
import { join } from 'node:path'
import { gunzipSync, gzipSync } from 'node:zlib'
import { readFileSync, writeFileSync } from 'node:fs'
import type { Answer, Recording } from '../../helpers/oracle'
import { ROOT } from '../../helpers/root'

export const DATES_ANSWERS = join(ROOT, 'test', 'differential', 'dates', 'dates-answers.jsonl.gz')

export function writeRecording(recording: Recording): void {
  const text = recording.map((entry) => `${JSON.stringify(entry)}\n`).join('')
  writeFileSync(DATES_ANSWERS, gzipSync(text, { level: 9 }))
}

export function readRecording(): Recording {
  return gunzipSync(readFileSync(DATES_ANSWERS))
    .toString('utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as [string, Answer])
}
