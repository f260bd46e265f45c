import { test } from 'node:test'
import assert from 'node:assert/strict'
import { connect, createServer, type AddressInfo } from 'node:net'
import { MIN_READ_BYTES, ReadSlab, SLAB_BYTES } from '../../../../src/common/protocol/read-slab'
import { FramedSocket } from '../../../../src/common/protocol/framed-socket'
import { encodeFrame, type Frame } from '../../../../src/common/protocol/frame'

/** What Node does with `onread`: read into buffer()'s answer, call back, ask for the next buffer. */
function read(slab: ReadSlab, bytes: number[]): Uint8Array {
  const into = slab.onread.buffer()
  into.set(bytes.slice(0, into.length))
  slab.onread.callback(Math.min(bytes.length, into.length), into)
  return into
}

test('reads land one after another: a chunk handed on is never written over, and a slab nearly full is left', () => {
  const slab = new ReadSlab(64, 16)
  const chunks: Buffer[] = []
  read(slab, [1, 2, 3]) // before anyone takes chunks: held
  slab.to((c) => chunks.push(c))
  assert.deepEqual(
    chunks.map((c) => [...c]),
    [[1, 2, 3]]
  )
  const first = read(slab, Array<number>(40).fill(7))
  const second = read(slab, [9, 9])
  assert.equal(second.buffer, first.buffer, 'the next read goes into the same slab, after the one before')
  assert.equal(second.byteOffset, first.byteOffset + 40)
  // 64 - 45 = 19 bytes are left: room enough (16). Then 3: a new slab.
  const third = read(slab, Array<number>(16).fill(5))
  assert.equal(third.buffer, first.buffer)
  const fourth = read(slab, [4])
  assert.notEqual(fourth.buffer, first.buffer)
  assert.deepEqual(
    chunks.map((c) => [...c]),
    [[1, 2, 3], Array<number>(40).fill(7), [9, 9], Array<number>(16).fill(5), [4]]
  )
})

test("by default a slab is Node's own read size, 64 KB, and left once less than 8 KB of it is free", () => {
  assert.equal(SLAB_BYTES, 65536)
  assert.equal(MIN_READ_BYTES, 8192)
  const slab = new ReadSlab()
  slab.to(() => {})
  const first = read(slab, Array<number>(SLAB_BYTES - MIN_READ_BYTES).fill(1))
  assert.equal(first.length, SLAB_BYTES)
  const second = read(slab, [2]) // exactly 8 KB was free: still this slab
  assert.equal(second.buffer, first.buffer)
  assert.equal(second.length, MIN_READ_BYTES)
  const third = read(slab, [3]) // 8 KB less one byte: a new slab
  assert.notEqual(third.buffer, first.buffer)
  assert.equal(third.length, SLAB_BYTES)
})

test('chunks read before anyone took them are handed on once, in order', () => {
  const slab = new ReadSlab(64, 16)
  read(slab, [1])
  read(slab, [2])
  const first: number[][] = []
  slab.to((c) => first.push([...c]))
  assert.deepEqual(first, [[1], [2]])
  const second: unknown[] = []
  slab.to((c) => second.push(c))
  assert.deepEqual(second, [])
})

test('frames read through a slab over a real socket: split over reads, many a read, and kept ones intact', async () => {
  // Arguments of many sizes, some larger than a slab (a frame that spans slabs is joined by the reader).
  const args = Array.from({ length: 600 }, (_, k) =>
    Buffer.alloc(k % 97 === 0 ? 9000 + k : 1 + ((k * 37) % 300), k % 251)
  )
  const wire = Buffer.concat(args.map((a, k) => encodeFrame({ invoke: { id: k + 1, arguments: [a] } })))
  const server = createServer((s) => {
    // Writes cut where they fall, so frames split over reads and reads carry many frames.
    let at = 0
    const next = (): void => {
      if (at >= wire.length) return void s.end()
      const n = 1 + ((at * 13) % 5000)
      s.write(wire.subarray(at, at + n), next)
      at += n
    }
    next()
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  try {
    const frames: Frame[] = []
    await new Promise<void>((resolve, reject) => {
      const slab = new ReadSlab(4096, 512)
      const socket = connect({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', onread: slab.onread })
      new FramedSocket(
        socket,
        { onFrame: (f) => frames.push(f), onClose: (err) => (err === null ? resolve() : reject(err)) },
        1 << 20,
        'tick',
        null,
        slab
      )
    })
    assert.equal(frames.length, args.length)
    // Every frame kept until the end still holds what was sent: no later read wrote over it.
    for (const [k, f] of frames.entries()) {
      assert.equal(f.invoke?.id, k + 1)
      assert.ok(Buffer.from(f.invoke!.arguments![0]!).equals(args[k]!), `frame ${k + 1}'s argument changed`)
    }
  } finally {
    server.close()
  }
})
