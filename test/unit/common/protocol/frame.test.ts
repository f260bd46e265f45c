// The frame reader (src/common/protocol/frame.ts) on a stream cut anywhere: every frame comes out whole
// and in order whatever the chunks (inside a length prefix, a body, several frames in one), held bytes
// are counted, a frame in one chunk is a view of it, a large frame that spans chunks lands in the shared
// pool, and the limits and faults are refused with their own errors. Then the hand reader of the hot
// frames (src/common/protocol/frame-decoder.ts) at the edges of the wire format: varints of five and
// ten bytes, fields cut by the end of their message, names kept from the last call, and every field it
// does not expect handed to protobufjs, whose decode it must equal.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import {
  FrameReader,
  FrameTooLargeError,
  LARGE_FRAME_BYTES,
  MalformedFrameError,
  dropFrame,
  encodeFrame,
  isLargeFrame,
  readVarint,
  varintLength,
  writeVarint,
  type Frame,
  type FramePieces
} from '../../../../src/common/protocol/frame'
import { decodeFrame, readHot } from '../../../../src/common/protocol/frame-decoder'
import { encodeInvokeFrame, type InvokeFields } from '../../../../src/common/protocol/invoke-frame'
import { gateway } from '../../../../src/common/protocol/generated/gateway'
import { SharedBufferPool, isShared } from '../../../../src/common/bytes/shared-buffers'
import type { FastBuffer } from '../../../../src/common/bytes/fast-buffer'
import { message, sameAsProtobufjs } from '../../../helpers/frames'

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

test('a refused frame carries its code, its size and the limit', () => {
  const reader = new FrameReader(() => {}, 999)
  const big = Buffer.from(frameOf(1, 1000))
  const [size] = readVarint(big, 0)!
  assert.throws(
    () => reader.push(big),
    (e: unknown) =>
      e instanceof FrameTooLargeError &&
      e.code === 'IGW_PROTOCOL_FRAME_TOO_LARGE' &&
      e.size === size &&
      e.limit === 999 &&
      e.message === `frame of ${size} bytes exceeds the limit of 999 bytes`
  )
  assert.throws(
    () => new FrameReader(() => {}).push(Buffer.from([3, 0xff, 0xff, 0xff])),
    (e: unknown) => e instanceof MalformedFrameError && e.code === 'IGW_PROTOCOL_MALFORMED_FRAME'
  )
})

test('a frame refused for its length leaves nothing of its chunk held, nor of the frames read before it', () => {
  // The limit is checked on the prefix, before the bytes are kept: a peer cannot make the reader hold
  // a frame it refuses, whether the frame opens the chunk or follows frames read from it.
  const big = Buffer.from(frameOf(1, 1000))
  const alone = new FrameReader(() => {}, 999)
  assert.throws(() => alone.push(big), FrameTooLargeError)
  assert.equal(alone.pendingBytes, 0)
  const got: Frame[] = []
  const after = new FrameReader((f) => got.push(f), 999)
  assert.throws(() => after.push(Buffer.concat([frameOf(2, 10), frameOf(3, 20), big])), FrameTooLargeError)
  assert.deepEqual(
    got.map((f) => f.result!.id),
    [2, 3]
  )
  assert.equal(after.pendingBytes, 0)
})

test('a frame that follows a joined one in the same chunk is a view of that chunk', () => {
  const got: Frame[] = []
  const reader = new FrameReader((f) => got.push(f))
  const first = Buffer.from(frameOf(1, 50))
  reader.push(first.subarray(0, 10))
  const chunk = Buffer.concat([first.subarray(10), frameOf(2, 20), frameOf(3, 30)])
  reader.push(chunk)
  assert.deepEqual(
    got.map((f) => f.result!.id),
    [1, 2, 3]
  )
  assert.ok(!inside(got[0]!.result!.body!, chunk), 'the joined frame is a copy')
  assert.ok(inside(got[1]!.result!.body!, chunk), 'the next is read where it lies')
  assert.ok(inside(got[2]!.result!.body!, chunk))
})

test('a frame of LARGE_FRAME_BYTES exactly that spans chunks is joined in the pool; one byte less is not', () => {
  /** A Result frame whose message (after the prefix) is `length` bytes long. */
  const frameOfLength = (length: number): Buffer => {
    for (let size = length; size > 0; size--) {
      const frame = Buffer.from(frameOf(4, size))
      const [n] = readVarint(frame, 0)!
      if (n === length) return frame
    }
    throw new Error(`no frame of ${length} bytes`)
  }
  const pool = new SharedBufferPool(LARGE_FRAME_BYTES, 2 ** 24)
  for (const [length, pooled] of [
    [LARGE_FRAME_BYTES, true],
    [LARGE_FRAME_BYTES - 1, false]
  ] as const) {
    const got: Frame[] = []
    const reader = new FrameReader((f) => got.push(f), undefined, pool)
    const frame = frameOfLength(length)
    reader.push(frame.subarray(0, 100))
    reader.push(frame.subarray(100))
    const body = got[0]!.result!.body!
    assert.equal(isShared(body), pooled, `a frame of ${length} bytes`)
    assert.ok(Buffer.from(body).every((x) => x === 4))
  }
})

test('a length prefix of three bytes cut inside it is read once it is whole', () => {
  // Bodies from 16 KiB to 2 MiB take three bytes of prefix; the reader waits for the last of them
  // and reads no further than the bytes it holds.
  for (const size of [20_000, 40_000, 100_000]) {
    const frame = Buffer.from(frameOf(5, size))
    assert.equal(readVarint(frame, 0)![1], 3)
    for (const cuts of [[1, 2, 3, 4], [1, 2], [2], [1, 3], [3]]) {
      const got: Frame[] = []
      const reader = new FrameReader((f) => got.push(f))
      pushCut(reader, frame, cuts)
      assert.equal(got.length, 1, `cut at ${cuts.join(',')}`)
      assert.equal(got[0]!.result!.body!.length, size)
      assert.equal(reader.pendingBytes, 0)
    }
  }
})

test('only a frame in pieces is a large one: dropping it tells its owner, dropping a buffer tells no one', () => {
  const told: string[] = []
  const pieces: FramePieces = Object.assign([new Uint8Array(2), new Uint8Array(3)], {
    onWritten: () => told.push('pieces')
  })
  assert.equal(isLargeFrame(pieces), true)
  assert.equal(isLargeFrame(new Uint8Array(3)), false)
  assert.equal(isLargeFrame(Buffer.alloc(3)), false)
  dropFrame(pieces)
  assert.deepEqual(told, ['pieces'])
  // Pieces nobody waits for: nothing to tell, and nothing thrown.
  dropFrame([new Uint8Array(1)])
  // One buffer is never a large call's frame, whatever hangs on it.
  dropFrame(Object.assign(new Uint8Array(1), { onWritten: () => told.push('buffer') }))
  assert.deepEqual(told, ['pieces'])
})

// The hand reader of Invoke and Result frames. Each case is a frame's message (after its length prefix).

/** What the hand reader makes of the bytes itself (null: it hands them to protobufjs). */
const hot = (bytes: number[] | Buffer): gateway.Frame | null => readHot(Buffer.from(bytes) as FastBuffer)

// Runs first of the Invoke frames in this file: the names kept from the last call start out empty.
test('the first names read are the names sent, empty ones too', () => {
  const frame = message(encodeFrame({ invoke: { id: 1, service: '', method: '', sequence: '' } }))
  assert.deepEqual([...frame.subarray(4, 10)], [0x12, 0, 0x1a, 0, 0x22, 0], 'the empty names are on the wire')
  const invoke = decodeFrame(frame).invoke!
  assert.deepEqual([invoke.service, invoke.method, invoke.sequence], ['', '', ''])
  assert.deepEqual(invoke, gateway.Frame.decode(frame).invoke)
})

test('a name is given again only for its own bytes, not for the bytes around it', () => {
  // The kept name equals the new name's bytes and the twelve that follow it: a comparison that ran past
  // the new name's end would take it for the kept one.
  const second = message(encodeFrame({ invoke: { id: 1, service: 'x', method: 'multiplyXY' } }))
  const start = second.indexOf('x')
  const kept = second.subarray(start, start + 13).toString('latin1')
  assert.equal(decodeFrame(message(encodeFrame({ invoke: { id: 1, service: kept } }))).invoke!.service, kept)
  assert.equal(decodeFrame(second).invoke!.service, 'x')
  // The kept name 'm\x02' equals the new name 'mz' read backwards from its start ('m', then its length 2).
  assert.equal(decodeFrame(message(encodeFrame({ invoke: { id: 1, method: 'm\u0002' } }))).invoke!.method, 'm\u0002')
  assert.equal(decodeFrame(message(encodeFrame({ invoke: { id: 1, method: 'mz' } }))).invoke!.method, 'mz')
})

test('an empty Invoke or Result, and a five-byte varint whose last byte has bits past 32, are read by hand', () => {
  // protobufjs's uint32() takes the low 4 bits of a fifth byte below 0x80: so does the hand reader.
  for (const [what, bytes] of [
    ['an empty Result', [0x22, 0]],
    ['an empty Invoke', [0x1a, 0]],
    ['the largest id', [0x22, 6, 0x08, 0xff, 0xff, 0xff, 0xff, 0x0f]],
    ['an id whose fifth byte is 0x7f', [0x22, 6, 0x08, 0xff, 0xff, 0xff, 0xff, 0x7f]],
    ['an id whose fifth byte is 0x18', [0x22, 6, 0x08, 0x80, 0x80, 0x80, 0x80, 0x18]]
  ] as const) {
    const frame = hot([...bytes])
    assert.ok(frame !== null, `${what}: handed to protobufjs`)
    assert.deepEqual(frame, gateway.Frame.decode(Buffer.from(bytes)), what)
  }
  assert.equal(hot([0x22, 6, 0x08, 0xff, 0xff, 0xff, 0xff, 0x7f])!.result!.id, 0xffffffff)
  assert.equal(hot([0x22, 6, 0x08, 0x80, 0x80, 0x80, 0x80, 0x18])!.result!.id, 0x80000000)
})

test('a varint of ten bytes is handed to protobufjs, which skips its last five', () => {
  // To a reader that stopped after five bytes, the last five would be fields: is_void 1 and id 130.
  const bytes = [0x22, 11, 0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x18, 0x01, 0x08, 0x82, 0x01]
  assert.equal(hot(bytes), null)
  sameAsProtobufjs(bytes, 'a ten-byte id')
  assert.deepEqual(decodeFrame(Buffer.from(bytes)).result, gateway.Result.create({ id: 0 }))
})

test('a varint or a length cut by the end of the frame is refused, as protobufjs refuses it', () => {
  for (const [what, bytes] of [
    ['an id cut after one byte', [0x22, 2, 0x08, 0x80]],
    ['an id cut after four bytes', [0x22, 5, 0x08, 0x80, 0x80, 0x80, 0x80]],
    ['a status cut after four bytes', [0x22, 7, 0x22, 5, 0x18, 0x80, 0x80, 0x80, 0x80]],
    // The last byte is a body's key without its length; the frame's own length (0x12) is a body's key
    // too, so a reader that went back to the frame's start would read on through the same fields.
    [
      'a body key with no length',
      [0x22, 0x12, 0x08, 1, 0x08, 2, 0x08, 3, 0x12, 1, 0x78, 0x08, 4, 0x08, 5, 0x08, 6, 0x08, 7, 0x12]
    ]
  ] as const) {
    assert.equal(hot([...bytes]), null, what)
    assert.throws(() => gateway.Frame.decode(Buffer.from(bytes)), `${what}: protobufjs throws`)
    sameAsProtobufjs([...bytes], what)
  }
})

test('a Frame with more than its one field is handed to protobufjs, which keeps the last', () => {
  // Read as one Result running to the frame's end, the second Result field (0x22) would be an error.
  const bytes = [0x22, 2, 0x08, 3, 0x22, 3, 0x12, 1, 0x78]
  assert.equal(hot(bytes), null)
  sameAsProtobufjs(bytes, 'two results')
  assert.equal(decodeFrame(Buffer.from(bytes)).result!.error, null)
})

test('an unknown field in an Invoke or an Error is handed to protobufjs, which skips it', () => {
  for (const [what, bytes] of [
    ['an Invoke with field 9', [0x1a, 4, 0x08, 1, 0x48, 0x01]],
    ['an Error with field 4', [0x22, 4, 0x22, 2, 0x20, 0x01]]
  ] as const) {
    assert.equal(hot([...bytes]), null, what)
    sameAsProtobufjs([...bytes], what)
  }
})

test('a context field numbered 0, of another wire type or unknown is handed to protobufjs', () => {
  for (const [what, field] of [
    ['field 0', 0x02],
    ['user as a varint', 0x28],
    ['field 11', 0x5a],
    ['field 16, a two-byte key', 0x82]
  ] as const) {
    const bytes = [0x1a, 5, 0x3a, 3, field, 1, 0x78]
    assert.equal(hot(bytes), null, what)
    sameAsProtobufjs(bytes, what)
  }
})

test('a context or an error the reader gives up on gives up the whole frame', () => {
  // After the unknown field's key, the rest reads as fields of the enclosing message too: a reader that
  // dropped the context (or the error) and read on would make a frame of them.
  const context = [0x58, 0x40, 0x0a, 0x08, 0x05, 0x28, 0x01, 0x40, 0x02, 0x12, 0x01, 0x61]
  const error = [0x20, 0x18, 0x12, 0x08, 0x05, 0x18, 0x01, 0x08, 0x07, 0x12, 0x01, 0x61]
  for (const [what, bytes] of [
    ['a context with field 11', [0x1a, context.length + 2, 0x3a, context.length, ...context]],
    ['an error with field 4', [0x22, error.length + 2, 0x22, error.length, ...error]]
  ] as const) {
    assert.equal(hot([...bytes]), null, what)
    sameAsProtobufjs([...bytes], what)
  }
  assert.equal(decodeFrame(Buffer.from([0x1a, 14, 0x3a, 12, ...context])).invoke!.context!.locale!.length, 8)
  assert.equal(decodeFrame(Buffer.from([0x22, 14, 0x22, 12, ...error])).result!.error!.detail!.length, 8)
})

test('a context string that runs past the context is handed to protobufjs', () => {
  // The user claims three bytes, the context holds one: protobufjs reads it, the hand reader does not.
  const bytes = [0x1a, 7, 0x3a, 3, 0x2a, 3, 0x75, 0x40, 0x05]
  assert.equal(hot(bytes), null)
  sameAsProtobufjs(bytes, 'a user past the context')
})

test('an empty argument or body is a Buffer of its own, not a view of the frame', () => {
  // As protobufjs gives it: an empty field holds no reference to the frame's memory.
  const invoke = message(encodeFrame({ invoke: { id: 1, arguments: [Buffer.from('[1]'), Buffer.alloc(0)] } }))
  const args = (decodeFrame(invoke).invoke as gateway.Invoke).arguments
  assert.equal(args[0]!.buffer, invoke.buffer)
  assert.equal(args[1]!.length, 0)
  assert.notEqual(args[1]!.buffer, invoke.buffer)
  assert.notEqual((gateway.Frame.decode(invoke).invoke as gateway.Invoke).arguments[1]!.buffer, invoke.buffer)
  const result = message(encodeFrame({ result: { id: 1, body: Buffer.alloc(0) } }))
  const body = decodeFrame(result).result!.body!
  assert.equal(body.length, 0)
  assert.notEqual(body.buffer, result.buffer)
})

test('an Invoke whose context has no privilege names, absent or null, is the bytes protobufjs encodes', () => {
  const f: InvokeFields = {
    id: 7,
    service: 'calculator',
    method: 'multiply',
    sequence: 'betaParamArrayJsonInOutSequence',
    mode: gateway.Mode.ROA,
    context: {},
    timeoutMs: 0
  }
  const body = Buffer.from('[2,3]')
  for (const context of [{}, { privilegeNames: null, user: 'u' }, { locale: 'es' }]) {
    const ours = encodeInvokeFrame({ ...f, context }, body, [0, 5])
    const theirs = encodeFrame({ invoke: { ...f, context, arguments: [body] } })
    assert.deepEqual([...ours], [...theirs], JSON.stringify(context))
  }
})
