import { test, describe, after, before } from 'node:test'
import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'
import {
  FrameReader,
  encodeFrame,
  readVarint,
  writeVarint,
  varintLength,
  FrameTooLargeError,
  MalformedFrameError,
  PROTOCOL_VERSION,
  type Frame
} from '../../src/common/protocol/frame'
import { gateway } from '../../src/common/protocol/generated/gateway'
import { SharedBufferPool, isShared } from '../../src/common/bytes/shared-buffers'
import { MicroserviceServer } from '../../src/microservice/host/microservice-server'
import { DEFAULT_RUNTIME_SETTINGS } from '../../src/microservice/host/settings'
import exampleDefinition from '../../examples/example/index'

describe('frame encoding', () => {
  test('golden bytes of a Ping frame', () => {
    // Frame{ping{id:5}}: field 6 (ping) length-delimited: 0x32, len 2, then Ping.id field 1 varint: 0x08 0x05
    assert.deepEqual([...encodeFrame({ ping: { id: 5 } })], [4, 0x32, 2, 0x08, 0x05])
  })

  test('golden bytes of an Invoke frame carry the argument bytes untouched', () => {
    const arg = Buffer.from('12345678901234567890')
    const bytes = encodeFrame({ invoke: { id: 1, service: 's', method: 'm', arguments: [arg] } })
    const expected = [
      0x1a,
      30, // field 3 (invoke), length 30
      0x08,
      1, // id = 1
      0x12,
      1,
      0x73, // service = "s"
      0x1a,
      1,
      0x6d, // method = "m"
      0x32,
      20,
      ...arg // arguments[0]
    ]
    assert.deepEqual([...bytes], [expected.length, ...expected])
  })

  test('varint prefix', () => {
    assert.deepEqual(readVarint(Uint8Array.from([0xac, 0x02]), 0), [300, 2])
    for (const n of [0, 1, 127, 128, 300, 16383, 16384, 2 ** 21, 2 ** 28 - 1, 2 ** 31 + 5]) {
      const b = new Uint8Array(8)
      const end = writeVarint(b, 1, n)
      assert.equal(end - 1, varintLength(n))
      assert.deepEqual(readVarint(b, 1), [n, varintLength(n)])
    }
    assert.equal(readVarint(Uint8Array.from([0xac]), 0), null)
    assert.throws(() => readVarint(Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0x7f]), 0), MalformedFrameError)
  })
})

describe('FrameReader', () => {
  const frames = [
    encodeFrame({ ping: { id: 1 } }),
    encodeFrame({ result: { id: 2, body: Buffer.alloc(300, 0x61) } }),
    encodeFrame({ pong: { id: 3, available: true } })
  ]
  const all = Buffer.concat(frames)

  function collect(chunks: Buffer[], max?: number, pool: SharedBufferPool | null = null): Frame[] {
    const out: Frame[] = []
    const r = new FrameReader((f) => out.push(f), max, pool)
    for (const c of chunks) r.push(c)
    assert.equal(r.pendingBytes, 0)
    return out
  }

  function check(out: Frame[]): void {
    assert.deepEqual(
      out.map((f) => f.body),
      ['ping', 'result', 'pong']
    )
    assert.equal(out[1]!.result!.body!.length, 300)
    assert.equal(out[2]!.pong!.id, 3)
  }

  test('several frames in one chunk', () => check(collect([all])))

  test('every split point, including inside the length prefix', () => {
    for (let cut = 1; cut < all.length; cut++) check(collect([all.subarray(0, cut), all.subarray(cut)]))
  })

  test('one byte at a time', () => {
    check(collect([...all].map((b) => Buffer.from([b]))))
  })

  test('a large frame that spans chunks is joined in a shared buffer from the pool; what follows it is read on', () => {
    const pool = new SharedBufferPool(64 * 1024, 1 << 24)
    const big = Buffer.alloc(200 * 1024, 0x62)
    const stream = Buffer.concat([
      frames[0]!,
      encodeFrame({ result: { id: 9, body: big } }),
      frames[2]!,
      encodeFrame({ result: { id: 10, body: big.subarray(0, 1000) } })
    ])
    for (const size of [1000, 65536, 70001, stream.length - 5]) {
      const chunks: Buffer[] = []
      for (let at = 0; at < stream.length; at += size) chunks.push(Buffer.from(stream.subarray(at, at + size)))
      for (const withPool of [pool, null]) {
        const out = collect(chunks, undefined, withPool)
        assert.deepEqual(
          out.map((f) => f.body),
          ['ping', 'result', 'pong', 'result'],
          `chunks of ${size}`
        )
        const body = out[1]!.result!.body!
        assert.ok(Buffer.from(body).equals(big))
        // Inside one chunk, a frame is decoded from a view of it.
        const spans = size < stream.length - 10
        assert.equal(isShared(body), spans && withPool !== null, `chunks of ${size}`)
        assert.equal(out[2]!.pong!.id, 3)
        assert.ok(Buffer.from(out[3]!.result!.body!).equals(big.subarray(0, 1000)))
        assert.ok(!isShared(out[3]!.result!.body!), 'a small frame stays in the chunk or the slab')
        if (isShared(body)) pool.release(body)
      }
    }
    assert.ok(pool.pooled > 0, 'released buffers are kept for the next frames')
  })

  test('a frame larger than the limit is refused before it is buffered', () => {
    const r = new FrameReader(() => assert.fail('no frame expected'), 100)
    assert.throws(() => r.push(Buffer.from(frames[1]!.subarray(0, 3))), FrameTooLargeError)
  })

  test('an undecodable frame is a MalformedFrameError', () => {
    const r = new FrameReader(() => assert.fail('no frame expected'))
    assert.throws(() => r.push(Buffer.from([3, 0xff, 0xff, 0xff])), MalformedFrameError)
  })
})

describe('runtime over a raw TCP peer', () => {
  const server = new MicroserviceServer(exampleDefinition, {
    name: 'example',
    version: '1.0.0',
    settings: { ...DEFAULT_RUNTIME_SETTINGS, maxFrameBytes: 4096 },
    privilegedNames: []
  })
  let port = 0
  before(async () => {
    const e = await server.listen()
    port = 'port' in e ? e.port : 0
  })
  after(() => server.close())

  function open(): Promise<{ socket: Socket; frames: Frame[]; closed: Promise<void> }> {
    return new Promise((resolve) => {
      const frames: Frame[] = []
      const socket = connect(port, '127.0.0.1', () => resolve({ socket, frames, closed }))
      const reader = new FrameReader((f) => frames.push(f))
      socket.on('data', (c: Buffer) => reader.push(c))
      const closed = new Promise<void>((r) => socket.on('close', () => r()))
      socket.on('error', () => {})
    })
  }

  async function waitFor(frames: Frame[], n: number): Promise<void> {
    for (let k = 0; k < 500 && frames.length < n; k++) await new Promise((r) => setTimeout(r, 5))
    assert.ok(frames.length >= n, `expected ${n} frames, got ${frames.length}`)
  }

  test('handshake, then an invoke split across many writes, then two invokes in one write', async () => {
    const { socket, frames } = await open()
    socket.write(encodeFrame({ hello: { protocolVersion: PROTOCOL_VERSION, gatewayId: 't' } }))
    await waitFor(frames, 1)
    const catalog = frames[0]!.catalog!
    assert.equal(catalog.microservice, 'example')
    assert.deepEqual(
      catalog.services!.map((s) => s.name).sort(),
      ['calculator', 'diagnostics'],
      'internal is not listed'
    )
    const multiply = catalog
      .services!.find((s) => s.name === 'calculator')!
      .methods!.find((m) => m.name === 'multiplyInts')!
    assert.equal(multiply.parameterCount, 2)
    assert.deepEqual(multiply.parameterTypes, ['Integer', 'Integer'])

    const invoke = (id: number, a: number, b: number): Uint8Array =>
      encodeFrame({
        invoke: {
          id,
          service: 'calculator',
          method: 'multiplyInts',
          sequence: 'betaParamArrayJsonInOutSequence',
          mode: gateway.Mode.RMC,
          arguments: [Buffer.from(String(a)), Buffer.from(String(b))]
        }
      })
    const one = invoke(10, 6, 7)
    for (const byte of one) socket.write(Buffer.from([byte]))
    await waitFor(frames, 2)
    assert.equal(frames[1]!.result!.id, 10)
    assert.equal(Buffer.from(frames[1]!.result!.body!).toString(), '42')

    socket.write(Buffer.concat([invoke(11, 2, 3), invoke(12, 4, 5)]))
    await waitFor(frames, 4)
    const byId = new Map(frames.slice(2).map((f) => [f.result!.id, Buffer.from(f.result!.body!).toString()]))
    assert.equal(byId.get(11), '6')
    assert.equal(byId.get(12), '20')
    socket.destroy()
  })

  test('an oversize frame closes the connection; the server keeps serving others', async () => {
    const bad = await open()
    bad.socket.write(encodeFrame({ invoke: { id: 1, arguments: [Buffer.alloc(5000)] } }))
    await bad.closed
    const good = await open()
    good.socket.write(encodeFrame({ ping: { id: 9 } }))
    await waitFor(good.frames, 1)
    assert.equal(good.frames[0]!.pong!.id, 9)
    assert.equal(good.frames[0]!.pong!.available, true)
    good.socket.destroy()
  })

  test('a frame cut off by a closing peer is dropped without harm', async () => {
    const cut = await open()
    const frame = encodeFrame({
      invoke: { id: 1, service: 'calculator', method: 'multiplyInts', arguments: [Buffer.from('1'), Buffer.from('2')] }
    })
    cut.socket.end(frame.subarray(0, frame.length - 3))
    await cut.closed
    assert.deepEqual(cut.frames, [], 'the cut-off Invoke was not run, so nothing was answered')
    const good = await open()
    good.socket.write(encodeFrame({ ping: { id: 1 } }))
    await waitFor(good.frames, 1)
    assert.deepEqual([good.frames[0]!.pong?.id, good.frames[0]!.pong?.available], [1, true])
    good.socket.destroy()
  })

  test('a typed error for an unknown method, and for an argument that does not fit', async () => {
    const { socket, frames } = await open()
    socket.write(
      encodeFrame({
        invoke: {
          id: 1,
          service: 'calculator',
          method: 'nope',
          sequence: 'betaParamArrayJsonInOutSequence',
          arguments: []
        }
      })
    )
    socket.write(
      encodeFrame({
        invoke: {
          id: 2,
          service: 'calculator',
          method: 'multiply',
          sequence: 'betaParamArrayJsonInOutSequence',
          arguments: [Buffer.from('{"a":"x","b":2}')]
        }
      })
    )
    socket.write(
      encodeFrame({
        invoke: {
          id: 3,
          service: 'internal',
          method: 'secret',
          sequence: 'betaParamArrayJsonInOutSequence',
          arguments: [Buffer.from('"x"')]
        }
      })
    )
    await waitFor(frames, 3)
    const byId = new Map(frames.map((f) => [f.result!.id, f.result!.error!]))
    assert.equal(byId.get(1)!.code, 'UNKNOWN_METHOD')
    assert.equal(byId.get(2)!.code, 'BAD_ARGUMENT')
    assert.match(
      byId.get(2)!.detail!,
      /argument 0 of multiply \(com\.example\.In\): at \/a: Cannot deserialize value of type `Integer` from String "x"/
    )
    assert.equal(byId.get(3)!.code, 'UNKNOWN_SERVICE')
    socket.destroy()
  })
})
