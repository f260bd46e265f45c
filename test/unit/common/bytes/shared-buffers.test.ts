// The shared buffer pool's copy: the same bytes as TypedArray#set, wherever source and destination
// lie (a shared destination is copied through a staging buffer when large), never touching a byte
// outside the destination's range.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { copyInto, SharedBufferPool } from '../../../../src/common/bytes/shared-buffers'

test('copyInto writes what set writes, for shared and plain destinations, any offsets and lengths', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 200_000 }),
      fc.integer({ min: 0, max: 15 }),
      fc.integer({ min: 0, max: 15 }),
      fc.integer({ min: 0, max: 15 }),
      fc.boolean(),
      (length, srcOffset, dstOffset, at, shared) => {
        const source = new Uint8Array(srcOffset + length)
        for (let k = 0; k < source.length; k++) source[k] = (k * 31 + 7) & 0xff
        const src = source.subarray(srcOffset)
        const size = dstOffset + at + length + 16
        const backing = shared ? new SharedArrayBuffer(size) : new ArrayBuffer(size)
        const dst = new Uint8Array(backing, dstOffset, at + length + 8)
        const expected = new Uint8Array(size)
        new Uint8Array(backing).fill(0xee)
        expected.fill(0xee)
        expected.set(src, dstOffset + at)
        copyInto(dst, at, src)
        assert.deepEqual(new Uint8Array(backing), expected)
      }
    ),
    { numRuns: 300 }
  )
})

test('copyInto past the end of the destination throws as set does', () => {
  const pool = new SharedBufferPool(1024, 1 << 21)
  const dst = pool.acquire(200_000)
  dst.fill(1)
  assert.throws(() => copyInto(dst, 500, new Uint8Array(200_000)), RangeError)
  assert.ok(
    dst.every((x) => x === 1),
    'nothing written'
  )
  assert.throws(() => copyInto(new Uint8Array(10), 5, new Uint8Array(6)), RangeError)
})
