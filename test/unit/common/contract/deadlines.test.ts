// The gateway's executing timeouts share one duration and live in one list with one timer: each
// call expires once, in order, never before its time, and a call taken out never fires.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { CoarseDeadlineList, DeadlineList, type Deadline } from '../../../../src/common/contract/deadlines'

class Entry implements Deadline {
  deadlineAt = 0
  deadlinePrev: Deadline | null = null
  deadlineNext: Deadline | null = null
  firedAt = -1
  constructor(
    readonly name: string,
    private readonly fired: Entry[]
  ) {}
  onDeadline(): void {
    this.firedAt = performance.now()
    this.fired.push(this)
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

test('removal from the head, the middle and the tail, twice, and of an entry never added', () => {
  const list = new DeadlineList(60000)
  const fired: Entry[] = []
  const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((n) => new Entry(n, fired)) as [Entry, Entry, Entry, Entry]
  for (const e of [a, b, c, d]) list.add(e)
  assert.equal(list.size, 4)
  list.remove(b)
  list.remove(b)
  assert.equal(list.size, 3)
  list.remove(a)
  list.remove(d)
  assert.equal(list.size, 1)
  list.remove(new Entry('stranger', fired))
  assert.equal(list.size, 1)
  list.remove(c)
  assert.equal(list.size, 0)
  list.add(b)
  list.remove(b)
  assert.equal(list.size, 0)
  assert.deepEqual(fired, [])
})

test('entries added over time expire in order, each at its own deadline, and removed ones never', async () => {
  const list = new DeadlineList(40)
  const fired: Entry[] = []
  const entries: Entry[] = []
  for (let k = 0; k < 6; k++) {
    const e = new Entry(`e${k}`, fired)
    entries.push(e)
    list.add(e)
    await sleep(15)
  }
  list.remove(entries[4]!)
  const deadline = performance.now() + 5000
  while (fired.length < 5 && performance.now() < deadline) await sleep(10)
  assert.deepEqual(
    fired.map((e) => e.name),
    ['e0', 'e1', 'e2', 'e3', 'e5']
  )
  for (const e of fired) assert.ok(e.firedAt >= e.deadlineAt - 1, `${e.name} fired before its deadline`)
  // No upper bound in time (a loaded runner may be late), but never out of order.
  for (let k = 1; k < fired.length; k++)
    assert.ok(fired[k]!.firedAt >= fired[k - 1]!.firedAt, `${fired[k]!.name} fired early`)
  assert.equal(list.size, 0)
  assert.equal(entries[4]!.firedAt, -1)
})

test('a deadline may add the next call from its callback', async () => {
  const list = new DeadlineList(10)
  const fired: Entry[] = []
  const again = new Entry('again', fired)
  const first = new Entry('first', fired)
  first.onDeadline = function (this: Entry) {
    Entry.prototype.onDeadline.call(this)
    list.add(again)
  }
  list.add(first)
  const deadline = performance.now() + 5000
  while (fired.length < 2 && performance.now() < deadline) await sleep(5)
  assert.deepEqual(
    fired.map((e) => e.name),
    ['first', 'again']
  )
})

test('a coarse list: entries expire in order and never before their duration, and an add reads the clock only while no timer runs', async () => {
  const list = new CoarseDeadlineList(40, 10)
  const fired: Entry[] = []
  const entries: Entry[] = []
  const addedAt = new Map<Entry, number>()
  const now = performance.now.bind(performance)
  let reads = 0
  performance.now = () => {
    reads++
    return now()
  }
  try {
    for (let k = 0; k < 6; k++) {
      const e = new Entry(`e${k}`, fired)
      entries.push(e)
      addedAt.set(e, now())
      const before = reads
      list.add(e)
      // Only the first add, with no timer running, read the clock; the timer reads it after.
      assert.equal(reads - before, k === 0 ? 1 : 0, `add ${k}`)
      await sleep(15)
    }
  } finally {
    performance.now = now
  }
  list.remove(entries[4]!)
  const deadline = now() + 5000
  while (fired.length < 5 && now() < deadline) await sleep(10)
  assert.deepEqual(
    fired.map((e) => e.name),
    ['e0', 'e1', 'e2', 'e3', 'e5']
  )
  for (const e of fired) assert.ok(e.firedAt >= addedAt.get(e)! + 40 - 1, `${e.name} fired before its duration`)
  assert.equal(list.size, 0)
  assert.equal(entries[4]!.firedAt, -1)
})
