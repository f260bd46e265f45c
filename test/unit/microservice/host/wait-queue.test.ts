// The microservice's queue of calls waiting for an execution slot: first in, first out across the
// ring's wrap-around and growth, calls that left before their turn skipped and not counted.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { WaitQueue } from '../../../../src/microservice/host/wait-queue'

interface Call {
  id: number
  done: boolean
}

test('first in, first out, through wrap-around and growth', () => {
  const q = new WaitQueue<Call>(4)
  const taken: number[] = []
  let id = 0
  // Push and take in uneven steps, so the head moves around the ring while it grows.
  for (let round = 0; round < 50; round++) {
    for (let k = 0; k < (round % 7) + 1; k++) q.push({ id: id++, done: false })
    for (let k = 0; k < (round % 5) + 1 && q.size > 0; k++) taken.push(q.shift()!.id)
  }
  while (q.size > 0) taken.push(q.shift()!.id)
  assert.deepEqual(
    taken,
    Array.from({ length: id }, (_, k) => k)
  )
  assert.equal(q.shift(), undefined)
})

test('a call that left before its turn is skipped and no longer counted', () => {
  const q = new WaitQueue<Call>(2)
  const calls = Array.from({ length: 6 }, (_, id) => ({ id, done: false }))
  for (const c of calls) q.push(c)
  for (const k of [0, 2, 3]) {
    calls[k]!.done = true
    q.left()
  }
  assert.equal(q.size, 3)
  assert.deepEqual([q.shift()!.id, q.shift()!.id, q.shift()!.id], [1, 4, 5])
  assert.equal(q.size, 0)
  assert.equal(q.shift(), undefined)
})
