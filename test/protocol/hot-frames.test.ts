// The hand-written Result encoder (src/common/protocol/result-frame.ts) and frame reader
// (src/common/protocol/frame-decoder.ts) against protobufjs: the same bytes for any Result, the same
// messages for any Invoke or Result frame, and every frame they do not expect handed to protobufjs,
// which decodes it or refuses it as before.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { encodeFrame } from '../../src/common/protocol/frame'
import { encodeResultFrame } from '../../src/common/protocol/result-frame'
import { decodeFrame, readHot } from '../../src/common/protocol/frame-decoder'
import type { FastBuffer } from '../../src/common/bytes/fast-buffer'
import { gateway } from '../../src/common/protocol/generated/gateway'
import { callContext, wireText } from '../helpers/protocol-arbitraries'
import { message, sameAsProtobufjs } from '../helpers/frames'

/**
 * The hand reader reads the frame itself (it does not hand it to protobufjs), to what protobufjs reads:
 * every Invoke and Result a gateway or a microservice writes takes the hot path.
 */
function readByHand(bytes: Buffer): void {
  const expected = gateway.Frame.decode(Buffer.from(bytes))
  const actual = readHot(Buffer.from(bytes) as FastBuffer)
  assert.ok(actual !== null, `handed to protobufjs: ${bytes.toString('hex').slice(0, 200)}`)
  assert.deepEqual(actual, expected)
  assert.equal(actual.body, expected.body)
}

const text = fc.oneof(wireText, fc.constant('BAD_ARGUMENT'))
const uint32 = fc.oneof(fc.nat({ max: 300 }), fc.nat({ max: 0xffffffff }))
const bytes = fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.constant(new Uint8Array(70_000).fill(0x31)))
const result = fc.record(
  {
    id: uint32,
    body: bytes,
    isVoid: fc.boolean(),
    error: fc.record({ code: text, detail: text, status: uint32 }, { requiredKeys: [] })
  },
  { requiredKeys: [] }
)

test('the hand-encoded Result is the bytes protobufjs encodes, for any fields', () => {
  fc.assert(
    fc.property(result, (r: gateway.IResult) => {
      assert.equal(
        Buffer.from(encodeResultFrame(r)).toString('hex'),
        Buffer.from(encodeFrame({ result: r })).toString('hex')
      )
    }),
    { numRuns: 500 }
  )
})

test('a Result answer as the microservice sends them: zeros and false are written, null fields are not', () => {
  for (const r of [
    { id: 0, body: new Uint8Array(0) },
    { id: 7, isVoid: true },
    { id: 7, isVoid: false, body: null, error: null },
    { id: 0xffffffff, error: { code: 'METHOD_FAILED', detail: 'división por cero', status: 0 } },
    { error: {} }
  ]) {
    assert.deepEqual([...encodeResultFrame(r)], [...encodeFrame({ result: r })], JSON.stringify(r))
  }
})

const invoke = fc.record(
  {
    id: uint32,
    service: text,
    method: text,
    sequence: text,
    mode: fc.constantFrom(gateway.Mode.ROA, gateway.Mode.RMC),
    arguments: fc.array(bytes, { maxLength: 4 }),
    context: callContext,
    timeoutMs: uint32
  },
  { requiredKeys: [] }
)

test('an Invoke frame reads as protobufjs reads it, for any fields', () => {
  fc.assert(
    fc.property(invoke, (inv: gateway.IInvoke) => {
      sameAsProtobufjs(message(encodeFrame({ invoke: inv })))
      readByHand(message(encodeFrame({ invoke: inv })))
    }),
    { numRuns: 500 }
  )
})

test('a Result frame reads as protobufjs reads it, for any fields', () => {
  fc.assert(
    fc.property(result, (r: gateway.IResult) => {
      sameAsProtobufjs(message(encodeResultFrame(r)))
      readByHand(message(encodeResultFrame(r)))
      readByHand(message(encodeFrame({ result: r })))
    }),
    { numRuns: 500 }
  )
})

test('the other frames, and frames with what the reader does not expect, read as protobufjs reads them', () => {
  const plain = message(encodeFrame({ result: { id: 3, body: Buffer.from('6') } }))
  const withField = (extra: number[]): Buffer => {
    // The Result message with bytes appended inside it: the Frame's field length grows to match.
    const inner = plain.subarray(2)
    return Buffer.from([0x22, inner.length + extra.length, ...inner, ...extra])
  }
  const cases: Array<[string, Buffer]> = [
    ['ping', message(encodeFrame({ ping: { id: 5 } }))],
    ['catalog', message(encodeFrame({ catalog: { microservice: 'm', services: [{ name: 's' }] } }))],
    ['an unknown field', withField([0x78, 0x01])],
    ['a field numbered past 15 (a two-byte key)', withField([0x80, 0x01, 0x01])],
    ['the body as a varint', withField([0x10, 0x01])],
    ['an id past 32 bits', withField([0x08, 0xff, 0xff, 0xff, 0xff, 0x1f])],
    ['an id in ten bytes', withField([0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])],
    ['a body longer than the frame', withField([0x12, 0x7f, 0x31])],
    ['two results', Buffer.concat([plain, plain])],
    ['a result and a ping', Buffer.concat([plain, message(encodeFrame({ ping: { id: 1 } }))])],
    ['a frame cut short', plain.subarray(0, plain.length - 1)],
    ['an empty frame', Buffer.alloc(0)]
  ]
  for (const [what, bytes] of cases) {
    try {
      sameAsProtobufjs(bytes)
    } catch (err) {
      assert.fail(`${what}: ${(err as Error).message}`)
    }
  }
  // Sanity of the cases themselves: the unusual ones do decode, to what protobufjs makes of them.
  assert.equal(decodeFrame(withField([0x78, 0x01])).result!.id, 3)
  assert.equal(decodeFrame(withField([0x08, 0xff, 0xff, 0xff, 0xff, 0x1f])).result!.id, 0xffffffff)
})

test("an Invoke's context with a field the reader does not know reads as protobufjs reads it", () => {
  const inv = message(encodeFrame({ invoke: { id: 1, method: 'm', context: { user: 'u' } } }))
  // invoke: 1a L [08 01] [1a 01 'm'] [3a 03 [2a 01 'u']] → add field 11 (0x5a) to the context
  const at = inv.indexOf(0x3a, 2)
  const context = inv.subarray(at + 2, at + 2 + inv[at + 1]!)
  const grown = Buffer.concat([context, Buffer.from([0x5a, 0x01, 0x78])])
  const body = Buffer.concat([inv.subarray(2, at), Buffer.from([0x3a, grown.length]), grown])
  const frame = Buffer.concat([Buffer.from([0x1a, body.length]), body])
  sameAsProtobufjs(frame)
  assert.equal(decodeFrame(frame).invoke!.context!.user, 'u')
})

test('the names of an endpoint, kept from the last call, are read again when the bytes change', () => {
  const frame = message(encodeFrame({ invoke: { id: 1, service: 'calculator', method: 'multiply' } }))
  assert.equal(decodeFrame(frame).invoke!.method, 'multiply')
  // Same length, other bytes: a comparison of lengths alone would give 'multiply' again.
  const other = message(encodeFrame({ invoke: { id: 2, service: 'calculator', method: 'multiplx' } }))
  assert.equal(decodeFrame(other).invoke!.method, 'multiplx')
  // The same memory written over (a socket chunk or a pooled buffer used again): the name kept must
  // be a copy, or it changes with the memory and the new name is taken for the old one.
  const reused = Buffer.from(frame)
  assert.equal(decodeFrame(reused).invoke!.method, 'multiply')
  reused.write('multiplz', reused.indexOf('multiply'), 'latin1')
  assert.equal(decodeFrame(reused).invoke!.method, 'multiplz')
  assert.equal(decodeFrame(frame).invoke!.method, 'multiply')
})

test('arguments are views of the frame, and an empty one a Buffer of its own, as protobufjs gives them', () => {
  const frame = message(encodeFrame({ invoke: { id: 1, arguments: [Buffer.from('[1,2]'), Buffer.alloc(0)] } }))
  const args = (decodeFrame(frame).invoke as gateway.Invoke).arguments
  assert.equal(args[0]!.buffer, frame.buffer)
  assert.equal(Buffer.from(args[0]!).toString(), '[1,2]')
  assert.ok(Buffer.isBuffer(args[1]))
  assert.equal(args[1]!.length, 0)
})
