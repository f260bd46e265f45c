// The frame reader (src/common/protocol/frame.ts) on a stream cut anywhere: every frame comes out whole
// and in order whatever the chunks (inside a length prefix, a body, several frames in one), held bytes
// are counted, a frame in one chunk is a view of it, a large frame that spans chunks lands in the shared
// pool, and the limits and faults are refused with their own errors.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import {
  FrameReader,
  FrameTooLargeError,
  LARGE_FRAME_BYTES,
  MalformedFrameError,
  encodeFrame,
  readVarint,
  varintLength,
  writeVarint,
  type Frame
} from '../../../../src/common/protocol/frame'
import { SharedBufferPool } from '../../../../src/common/bytes/shared-buffers'

const frameOf = (id: number, size: number): Uint8Array =>
  encodeFrame({ result: { id, body: Buffer.alloc(size, id % 251) } })

/** The stream's bytes pushed in pieces cut at `cuts` (positions, any order, repeats allowed). */
function pushCut(reader: FrameReader, stream: Buffer, cuts: number[]): void {
  const at = [...new Set(cuts.map((c) => c % (stream.length + 1)))].sort((a, b) => a - b)
  let from = 0
  for (const c of [...at, stream.length]) {
    if (c > from) reader.push(stream.subarray(from, c))
    from = c
  }
}

test('frames cut anywhere come out whole, in order, and nothing is held after the last', () => {
  fc.assert(
    fc.property(
      fc.array(fc.oneof(fc.nat({ max: 40 }), fc.integer({ min: 100, max: 300 })), { minLength: 1, maxLength: 8 }),
      fc.array(fc.nat(), { maxLength: 12 }),
      (sizes, cuts) => {
        const stream = Buffer.concat(sizes.map((size, id) => frameOf(id + 1, size)))
        const got: Frame[] = []
        const reader = new FrameReader((f) => got.push(f))
        pushCut(reader, stream, cuts)
        assert.deepEqual(
          got.map((f) => [f.result!.id, f.result!.body?.length ?? 0, f.result!.body?.[0]]),
          sizes.map((size, id) => [id + 1, size, size === 0 ? undefined : (id + 1) % 251])
        )
        assert.equal(reader.pendingBytes, 0)
      }
    ),
    { numRuns: 400 }
  )
})

test('bytes of an unfinished frame are counted until it completes', () => {
  const got: Frame[] = []
  const reader = new FrameReader((f) => got.push(f))
  const a = Buffer.from(frameOf(1, 200)) // a two-byte length prefix
  const b = Buffer.from(frameOf(2, 3))
  reader.push(a.subarray(0, 1)) // inside the prefix
  assert.equal(reader.pendingBytes, 1)
  reader.push(a.subarray(1, 50))
  assert.equal(reader.pendingBytes, 50)
  reader.push(Buffer.concat([a.subarray(50), b.subarray(0, 2)]))
  assert.equal(got.length, 1)
  assert.equal(reader.pendingBytes, 2)
  reader.push(b.subarray(2))
  assert.deepEqual(
    got.map((f) => f.result!.id),
    [1, 2]
  )
  assert.equal(reader.pendingBytes, 0)
})

/** Whether `view` lies inside `chunk`'s bytes (not a copy of them). */
const inside = (view: Uint8Array, chunk: Buffer): boolean =>
  view.buffer === chunk.buffer &&
  view.byteOffset >= chunk.byteOffset &&
  view.byteOffset + view.length <= chunk.byteOffset + chunk.length

test('a frame inside one chunk is a view of it; one that spans chunks is a copy, a large one in the pool', () => {
  const got: Frame[] = []
  const pool = new SharedBufferPool(LARGE_FRAME_BYTES, 2 ** 24)
  const reader = new FrameReader((f) => got.push(f), undefined, pool)
  const small = Buffer.from(frameOf(1, 10))
  reader.push(small)
  assert.ok(inside(got[0]!.result!.body!, small), 'a view of the chunk')
  const large = Buffer.from(frameOf(2, LARGE_FRAME_BYTES + 10))
  reader.push(large.subarray(0, 1000))
  reader.push(large.subarray(1000))
  const body = got[1]!.result!.body!
  assert.equal(body.length, LARGE_FRAME_BYTES + 10)
  assert.ok(body.buffer instanceof SharedArrayBuffer, 'joined in the shared pool')
  assert.ok(
    Buffer.from(body).every((x) => x === 2),
    'whole'
  )
  const mid = Buffer.from(frameOf(3, 300))
  reader.push(mid.subarray(0, 100))
  reader.push(mid.subarray(100))
  assert.ok(!inside(got[2]!.result!.body!, mid), 'joined in a buffer of its own')
  assert.ok(Buffer.from(got[2]!.result!.body!).every((x) => x === 3))
})

test('a length past the limit is refused before its bytes are held, in one chunk or cut in its prefix', () => {
  const big = Buffer.from(frameOf(1, 1000))
  const whole = new FrameReader(() => {}, 999)
  assert.throws(
    () => whole.push(big),
    (e: unknown) => e instanceof FrameTooLargeError && /frame of 100\d bytes exceeds/.test(e.message)
  )
  const cut = new FrameReader(() => {}, 999)
  cut.push(big.subarray(0, 1))
  assert.throws(() => cut.push(big.subarray(1, 2)), FrameTooLargeError)
  // At the limit exactly, a frame is read.
  const exact = Buffer.from(frameOf(1, 1000))
  const [length] = readVarint(exact, 0)!
  const got: Frame[] = []
  new FrameReader((f) => got.push(f), length).push(exact)
  assert.equal(got.length, 1)
})

test('bytes that are no frame, and a prefix past 32 bits, are refused as malformed', () => {
  const reader = new FrameReader(() => {})
  assert.throws(
    () => reader.push(Buffer.from([3, 0xff, 0xff, 0xff])),
    (e: unknown) => e instanceof MalformedFrameError && /^undecodable frame: ./.test(e.message)
  )
  assert.throws(
    () => readVarint(Buffer.from([0x80, 0x80, 0x80, 0x80, 0x10]), 0),
    (e: unknown) => e instanceof MalformedFrameError && e.message === 'frame length prefix exceeds 32 bits'
  )
  assert.deepEqual(readVarint(Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]), 0), [0xffffffff, 5])
  assert.equal(readVarint(Buffer.from([0x80]), 0), null)
  assert.deepEqual(readVarint(Buffer.from([9, 0x96, 0x01]), 1), [150, 2])
})

test('a varint is written in as many bytes as varintLength says', () => {
  for (const n of [0, 1, 127, 128, 16383, 16384, 2 ** 21, 2 ** 28, 2 ** 32 - 1, 2 ** 40]) {
    const to = new Uint8Array(12)
    const end = writeVarint(to, 1, n)
    assert.equal(end - 1, varintLength(n), String(n))
    if (n < 2 ** 32) assert.deepEqual(readVarint(to, 1), [n, varintLength(n)])
  }
})
