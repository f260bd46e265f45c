// Worker threads run at a lower CPU priority than the event loop (Linux: a nice value per thread).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Worker } from 'node:worker_threads'
import { getPriority } from 'node:os'
import { join } from 'node:path'
import { execFileSync } from 'node:child_process'
import { WORKER_NICENESS } from '../../../../src/common/contract/limits'
import { ROOT } from '../../../helpers/root'

const MODULE = join(ROOT, 'dist', 'src', 'common', 'process', 'thread-priority.js')

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

/** Runs `code` in a new Node process with `flags`; it prints JSON, which is returned. */
function inChild(flags: string[], code: string): unknown {
  const out = execFileSync(process.execPath, [...flags, '-e', code], { encoding: 'utf8' })
  return JSON.parse(out)
}

const NICE_OF_THREADS = `
  const { readdirSync, readFileSync } = require('node:fs')
  const nice = (tid) => Number(readFileSync('/proc/self/task/' + tid + '/stat', 'utf8').split(') ')[1].split(' ')[16])
  const threads = () => readdirSync('/proc/self/task').map((tid) => [Number(tid), nice(tid)])
`

test('with single-threaded GC, the helper threads present at start are lowered, the main thread and later threads are not (Linux)', () => {
  const [pid, lowered, before, after, laterThread] = inChild(
    ['--single-threaded-gc'],
    `${NICE_OF_THREADS}
     const { yieldHelperThreads } = require(${JSON.stringify(MODULE)})
     const before = threads()
     const lowered = yieldHelperThreads()
     const after = threads()
     const { Worker } = require('node:worker_threads')
     const w = new Worker('setTimeout(() => {}, 200)', { eval: true })
     w.once('online', () => {
       const known = new Set(after.map(([tid]) => tid))
       const later = threads().filter(([tid]) => !known.has(tid))
       console.log(JSON.stringify([process.pid, lowered, before, after, later]))
       process.exit(0)
     })`
  ) as [number, number, Array<[number, number]>, Array<[number, number]>, Array<[number, number]>]
  assert.ok(
    before.every(([, n]) => n === 0),
    'all start at nice 0'
  )
  // Node 20 has six helpers (V8's four platform workers among them); the count differs by version.
  assert.ok(lowered >= 4, `${lowered} helpers lowered`)
  assert.equal(lowered, after.length - 1)
  for (const [tid, n] of after) assert.equal(n, tid === pid ? 0 : WORKER_NICENESS, `thread ${tid}`)
  assert.ok(laterThread.length > 0, 'a worker started afterwards')
  assert.ok(
    laterThread.every(([, n]) => n === 0),
    'threads started afterwards keep the main thread nice'
  )
})

test('with parallel GC the helper threads are left alone', () => {
  const [lowered, after] = inChild(
    [],
    `${NICE_OF_THREADS}
     const { yieldHelperThreads } = require(${JSON.stringify(MODULE)})
     console.log(JSON.stringify([yieldHelperThreads(), threads()]))`
  ) as [number, Array<[number, number]>]
  assert.equal(lowered, 0)
  assert.ok(after.every(([, n]) => n === 0))
})
