// The calls in flight by id: the same answers as a Map under any sequence of adds and removals
// (collisions, wrap-around, growth and shrinking included), without the Map's promotion of everything
// that passes through it under churn (docs/performance.md, "Where a second thread's cost went").
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fc from 'fast-check'
import { CallTable } from '../../../../src/common/protocol/call-table'

type Op = { kind: 'set'; id: number } | { kind: 'delete'; id: number } | { kind: 'get'; id: number }

/** Ids that collide in a small table (multiples of its capacity apart) and ones near 2^32. */
const id = fc.oneof(
  fc.integer({ min: 0, max: 40 }),
  fc.integer({ min: 0, max: 10 }).map((k) => 1 + k * 64),
  fc.integer({ min: 0xffffffff - 20, max: 0xffffffff })
)
const op: fc.Arbitrary<Op> = fc.oneof(
  id.map((i) => ({ kind: 'set' as const, id: i })),
  id.map((i) => ({ kind: 'delete' as const, id: i })),
  id.map((i) => ({ kind: 'get' as const, id: i }))
)

test('a CallTable answers as a Map does, whatever the order of adds, removals and look-ups', () => {
  fc.assert(
    fc.property(fc.array(op, { maxLength: 400 }), fc.constantFrom(4, 8, 64), (ops, capacity) => {
      const table = new CallTable<string>(capacity)
      const map = new Map<number, string>()
      ops.forEach((o, k) => {
        if (o.kind === 'set') {
          table.set(o.id, `v${k}`)
          map.set(o.id, `v${k}`)
        } else if (o.kind === 'delete') assert.equal(table.delete(o.id), map.delete(o.id))
        else assert.equal(table.get(o.id), map.get(o.id))
        assert.equal(table.size, map.size)
      })
      for (const [k, v] of map) assert.equal(table.get(k), v)
      assert.deepEqual(table.values().sort(), [...map.values()].sort())
    }),
    { numRuns: 500 }
  )
})

test('a burst grows the table and its end shrinks it back; clear empties it', () => {
  const table = new CallTable<number>(4)
  for (let k = 1; k <= 1000; k++) table.set(k, k)
  assert.equal(table.size, 1000)
  for (let k = 1; k <= 999; k++) assert.equal(table.delete(k), true)
  assert.equal(table.get(1000), 1000)
  assert.equal(table.delete(1), false)
  table.clear()
  assert.equal(table.size, 0)
  assert.equal(table.get(1000), undefined)
  assert.throws(() => new CallTable(6), /power of two/)
  assert.throws(() => table.set(1, undefined as unknown as number), /no undefined entry/)
})

/** The old generation's growth while 2 million calls pass through a table of 32 in flight, in a process of its own. */
function oldSpaceGrowthMb(kind: 'map' | 'table'): number {
  const script = `
    const v8 = require('node:v8')
    const { CallTable } = require(${JSON.stringify(require.resolve('../../../../src/common/protocol/call-table'))})
    const table = ${kind === 'map' ? 'new Map()' : 'new CallTable()'}
    const old = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_used_size
    const start = old()
    const inflight = []
    let most = 0
    for (let n = 1; n <= 2e6; n++) {
      const call = { id: n, head: { a: 'x'.repeat(8) + n, b: [n, n + 1] }, body: new Array(100).fill(n) }
      table.set(n, call)
      inflight.push(call)
      if (inflight.length > 32) table.delete(inflight.shift().id)
      if ((n & 0xffff) === 0) most = Math.max(most, old() - start)
    }
    console.log(most / 2 ** 20)`
  const r = spawnSync(process.execPath, ['--single-threaded-gc', '-e', script], { encoding: 'utf8' })
  assert.equal(r.status, 0, r.stderr)
  return Number(r.stdout.trim())
}

test('calls that passed through the table are not promoted with it (a Map under the same churn is the reference)', () => {
  const map = oldSpaceGrowthMb('map')
  const table = oldSpaceGrowthMb('table')
  // A Map's retired hash tables chain every later call into the old generation until a full
  // collection: measured here, tens of MB against the table's few.
  assert.ok(map > 20, `the reference did not show the Map's promotion (old space +${map.toFixed(1)} MB)`)
  assert.ok(
    table * 3 < map,
    `the table kept calls alive: old space +${table.toFixed(1)} MB, a Map's +${map.toFixed(1)} MB`
  )
})
