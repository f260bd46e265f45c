// The rate limits' shared store (src/gateway/admission/limit-store.ts) with a meaning of its own: a key
// keeps its slot, a new key takes the first free one of its probes, and when none is free the one its
// meaning ranks lowest is forgotten for it and counted; tables of several rules stay apart; a reload
// carries a table's keys, numbers and totals; two views of one memory are one store.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { LimitStore, NUMBERS, type SlotMeaning } from '../../../../src/gateway/admission/limit-store'

/** A slot's first number is its rank; a slot whose first number is -1 is free. */
const meaning: SlotMeaning = {
  isFree: (values, at) => values[at] === -1,
  rank: (values, at) => values[at]!
}

test('a key keeps its slot; a new key takes its home slot, then the next ones, wrapping round the table', () => {
  const s = new LimitStore([{ slots: 4 }])
  const a = s.find(0, 7, 2, meaning, 0)
  assert.equal(s.fresh, true)
  assert.equal(a, 2, 'home slot: lo & (size - 1)')
  assert.equal(s.find(0, 7, 2, meaning, 0), a)
  assert.equal(s.fresh, false)
  // Same low word, another high word: not the same key; it probes on from its home.
  assert.equal(s.find(0, 8, 2, meaning, 0), 3)
  assert.equal(s.fresh, true)
  assert.equal(s.find(0, 9, 2, meaning, 0), 0, 'wraps round')
  // Same high word, another low word whose home is taken: probes on too.
  assert.equal(s.find(0, 7, 6, meaning, 0), 1)
})

test('when no probe is free, the lowest-ranked slot is forgotten for the new key, and counted', () => {
  const s = new LimitStore([{ slots: 4 }])
  for (let k = 0; k < 4; k++) {
    const slot = s.find(0, 1, k, meaning, 0)
    s.values[slot * NUMBERS] = [5, 2, 9, 3][k]!
  }
  assert.deepEqual(s.totals(0), { allowed: 0, limited: 0, evicted: 0 })
  const taken = s.find(0, 2, 0, meaning, 0)
  assert.equal(taken, 1, 'rank 2 is the lowest')
  assert.equal(s.fresh, true)
  assert.deepEqual(s.totals(0), { allowed: 0, limited: 0, evicted: 1 })
  // The forgotten key is a new key again.
  s.values[taken * NUMBERS] = 10
  s.find(0, 1, 1, meaning, 0)
  assert.equal(s.fresh, true)
})

test('a free slot (by the meaning) is taken before any is forgotten, the first free of the probes', () => {
  const s = new LimitStore([{ slots: 4 }])
  for (let k = 0; k < 4; k++) s.values[s.find(0, 1, k, meaning, 0) * NUMBERS] = 5
  s.values[3 * NUMBERS] = -1
  s.values[1 * NUMBERS] = -1
  assert.equal(s.find(0, 2, 0, meaning, 0), 1)
  assert.deepEqual(s.totals(0).evicted, 0)
})

test('only 16 slots are probed in a large table: the 17th key of one home forgets one of them', () => {
  const s = new LimitStore([{ slots: 64 }])
  for (let k = 0; k < 16; k++) {
    const slot = s.find(0, k + 1, 0, meaning, 0)
    assert.equal(slot, k)
    s.values[slot * NUMBERS] = 100 - k
  }
  assert.equal(s.find(0, 99, 0, meaning, 0), 15, 'the lowest rank of the 16, not slot 16')
  assert.equal(s.totals(0).evicted, 1)
})

test("rules' tables and totals stay apart; decisions are counted by rule", () => {
  const s = new LimitStore([{ slots: 2 }, { slots: 4 }])
  assert.equal(s.find(0, 1, 1, meaning, 0), 1)
  assert.equal(s.find(1, 1, 1, meaning, 0), 2 + 1, 'the second table starts after the first')
  assert.equal(s.fresh, true)
  s.count(0, false)
  s.count(0, false)
  s.count(1, true)
  assert.deepEqual(s.totals(0), { allowed: 2, limited: 0, evicted: 0 })
  assert.deepEqual(s.totals(1), { allowed: 0, limited: 1, evicted: 0 })
})

test('a reload carries a table into a new store: keys, numbers and totals; only into one of its size', () => {
  const old = new LimitStore([{ slots: 2 }, { slots: 4 }])
  const slot = old.find(1, 3, 1, meaning, 0)
  old.values[slot * NUMBERS + 2] = 42
  old.count(1, true)
  const next = new LimitStore([{ slots: 4 }])
  next.carry(old, 1, 0)
  assert.equal(next.find(0, 3, 1, meaning, 0), 1)
  assert.equal(next.fresh, false)
  assert.equal(next.values[1 * NUMBERS + 2], 42)
  assert.deepEqual(next.totals(0), { allowed: 0, limited: 1, evicted: 0 })
  assert.throws(() => next.carry(old, 0, 0), /a table is carried over to one of its own size/)
})

test('two views of one memory are one store; memory of another size is refused', () => {
  const a = new LimitStore([{ slots: 4 }])
  const b = new LimitStore([{ slots: 4 }], a.shared)
  a.find(0, 5, 0, meaning, 0)
  b.find(0, 5, 0, meaning, 0)
  assert.equal(b.fresh, false)
  assert.throws(() => new LimitStore([{ slots: 8 }], a.shared), /the store needs \d+ bytes/)
  // The lock is one: taken on one view, the other waits (here: is seen taken).
  a.lock()
  assert.equal(Atomics.load(new Int32Array(a.shared, 0, 1), 0), 1)
  b.unlock()
  assert.equal(Atomics.load(new Int32Array(a.shared, 0, 1), 0), 0)
})
