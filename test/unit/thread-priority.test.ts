// Worker threads run at a lower CPU priority than the event loop (Linux: a nice value per thread).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Worker } from 'node:worker_threads'
import { getPriority } from 'node:os'
import { join } from 'node:path'

const MODULE = join(__dirname, '..', '..', 'src', 'common', 'process', 'thread-priority.js')

test('lowerThreadPriority lowers the calling worker thread only, not the process (Linux)', async () => {
  const before = getPriority(0)
  const inWorker = await new Promise<[boolean, number]>((resolve, reject) => {
    const w = new Worker(
      `const { lowerThreadPriority } = require(${JSON.stringify(MODULE)})
       const { getPriority } = require('node:os')
       const done = lowerThreadPriority(7)
       require('node:worker_threads').parentPort.postMessage([done, getPriority(0)])`,
      { eval: true }
    )
    w.once('message', (m: [boolean, number]) => {
      resolve(m)
      void w.terminate()
    })
    w.once('error', reject)
  })
  assert.deepEqual(inWorker, [true, 7])
  assert.equal(getPriority(0), before)
})
