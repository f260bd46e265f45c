// An instance's output files rotate at LOGGING.instanceLogMaxBytes, keeping LOGGING.instanceLogFiles
// old files (<instance>.log.1 the newest); `microservice logs` reads the current and the newest
// rotated file back in time order, also when their lines share a millisecond.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { InstanceLog, tailInstanceLogs } from '../../../src/platform/instance-logs'

test('rotation at maxBytes keeps `files` old files and drops the oldest; tail reads across the newest two in order', () => {
  const directory = mkdtempSync(join(tmpdir(), 'instance-logs-'))
  const log = new InstanceLog({ directory, maxBytes: 400, files: 2 }, 'example', 'example@1#1.0')
  // A line is 56 bytes with its stamp, a batch of three 168: the file rotates every second batch.
  for (let batch = 0; batch < 8; batch++) {
    log.write([0, 1, 2].map((k) => `batch ${batch} line ${k}`))
    log.flush()
  }
  const dir = join(directory, 'example')
  const files = ['example@1#1.0.log', 'example@1#1.0.log.1', 'example@1#1.0.log.2']
  assert.deepEqual(readdirSync(dir).sort(), files)
  for (const f of files) assert.ok(statSync(join(dir, f)).size <= 400, `${f} within maxBytes`)
  const batchesIn = (f: string): number[] => [
    ...new Set([...readFileSync(join(dir, f), 'utf8').matchAll(/batch (\d)/g)].map((m) => Number(m[1])))
  ]
  // Newest in the current file, then .1, then .2; batches 0 and 1 were dropped with the oldest file.
  assert.deepEqual(files.map(batchesIn), [
    [6, 7],
    [4, 5],
    [2, 3]
  ])
  const tail = tailInstanceLogs(directory, 'example', 9)
  assert.deepEqual(
    tail.map((l) => /batch (\d) line (\d)$/.exec(l)!.slice(1).join('.')),
    ['5.0', '5.1', '5.2', '6.0', '6.1', '6.2', '7.0', '7.1', '7.2']
  )
})
