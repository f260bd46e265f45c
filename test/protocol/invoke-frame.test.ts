// The hand-encoded Invoke frame (src/common/protocol/invoke-frame.ts) against protobufjs's: for every call's
// fields, whatever the strings hold (non-ASCII, empty, absent), the same bytes, and the frame's length
// prefix covers it exactly.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { encodeFrame, readVarint } from '../../src/common/protocol/frame'
import {
  encodeInvokeFrame,
  framePieces,
  slicedInvokeFrame,
  type InvokeFields
} from '../../src/common/protocol/invoke-frame'
import { gateway } from '../../src/common/protocol/generated/gateway'
import { callContext, wireText } from '../helpers/protocol-arbitraries'

function decode(frame: Uint8Array): gateway.Frame {
  const [length, prefix] = readVarint(frame, 0)!
  assert.equal(frame.length, prefix + length, 'one whole frame')
  return gateway.Frame.decode(Buffer.from(frame.subarray(prefix)))
}

const fields = fc.record({
  id: fc.oneof(fc.nat({ max: 200 }), fc.nat({ max: 0xffffffff })),
  service: fc.oneof(fc.constantFrom('calculator', 'greeter'), wireText),
  method: fc.oneof(fc.constantFrom('multiply', 'sumProducts'), wireText),
  sequence: fc.constantFrom('betaParamArrayJsonInOutSequence', 'alphaParamArrayXmlInOutSequence'),
  mode: fc.constantFrom(gateway.Mode.ROA, gateway.Mode.RMC),
  context: callContext,
  timeoutMs: fc.oneof(fc.constant(0), fc.nat({ max: 0xffffffff }))
})
const args = fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 4 })

test('the hand-encoded Invoke is the bytes protobufjs encodes, for any fields and arguments', () => {
  fc.assert(
    fc.property(fields, args, fc.nat({ max: 5 }), (f: InvokeFields, list, pad) => {
      // The arguments as slices of one body, with bytes between them that must not be sent.
      const pieces: Buffer[] = [Buffer.alloc(pad, 0x78)]
      const slices: number[] = []
      let at = pad
      for (const a of list) {
        slices.push(at, at + a.length)
        pieces.push(Buffer.from(a), Buffer.from(','))
        at += a.length + 1
      }
      const body = Buffer.concat(pieces)
      const frame = encodeInvokeFrame(f, body, slices)
      assert.equal(
        Buffer.from(frame).toString('hex'),
        Buffer.from(encodeFrame({ invoke: { ...f, arguments: list } })).toString('hex')
      )
      const ours = decode(frame)
      assert.deepEqual(
        ours.invoke!.arguments!.map((a) => Buffer.from(a).toString('hex')),
        list.map((a) => Buffer.from(a).toString('hex'))
      )
      // The same frame with its arguments left in the body: its pieces, written in order, are the bytes,
      // and its head holds none of the arguments' bytes.
      const sliced = slicedInvokeFrame(f, body, slices)
      const done: string[] = []
      const written = framePieces(sliced, () => done.push('written'))
      assert.equal(Buffer.concat(written).toString('hex'), Buffer.from(frame).toString('hex'))
      assert.equal(sliced.head.length, frame.length - list.reduce((n, a) => n + a.length, 0))
      assert.equal(written.length, 2 * list.length + 1)
      written.onWritten!()
      assert.deepEqual(done, ['written'])
      assert.equal(framePieces(sliced).onWritten, undefined)
    }),
    { numRuns: Number(process.env.PROPERTY_RUNS ?? 400) }
  )
})

test('endpoint fields are cached per service, method, sequence and mode without leaking between them', () => {
  const f: InvokeFields = {
    id: 300,
    service: 'calculator',
    method: 'multiply',
    sequence: 'betaParamArrayJsonInOutSequence',
    mode: gateway.Mode.RMC,
    context: { privilegeNames: ['admin'], requestId: 'r-1', ip: '127.0.0.1', traceparent: null },
    timeoutMs: 241000
  }
  const body = Buffer.from('[2,3]')
  const ours = encodeInvokeFrame(f, body, [1, 2, 3, 4])
  const theirs = encodeFrame({ invoke: { ...f, arguments: [body.subarray(1, 2), body.subarray(3, 4)] } })
  assert.deepEqual([...ours], [...theirs])
  // Cached endpoint fields do not leak between endpoints or modes.
  const roa = decode(encodeInvokeFrame({ ...f, mode: gateway.Mode.ROA, method: 'add' }, body, [0, 5]))
  assert.equal(roa.invoke!.method, 'add')
  assert.equal(roa.invoke!.mode, gateway.Mode.ROA)
  assert.equal(decode(encodeInvokeFrame(f, body, [0, 5])).invoke!.mode, gateway.Mode.RMC)
})
