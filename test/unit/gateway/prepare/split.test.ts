import { test, describe, after } from 'node:test'
import assert from 'node:assert/strict'
import { splitArguments } from '../../../../src/gateway/prepare/split'
import { prepare, isSlicedFrame, type PrepareTask, type Prepared } from '../../../../src/gateway/prepare/prepare'
import { framePieces } from '../../../../src/common/protocol/invoke-frame'
import { SharedBufferPool, isShared } from '../../../../src/common/bytes/shared-buffers'
import { PreparePool } from '../../../../src/gateway/prepare/prepare-pool'
import { gateway } from '../../../../src/common/protocol/generated/gateway'
import { readVarint } from '../../../../src/common/protocol/frame'
import { splitCases, type SplitCase } from './split-cases'

const LARGE = new SharedBufferPool(64, 1 << 20)

function bodyOf(c: SplitCase): Uint8Array {
  // '\udcff' in a case is a stand-in for a byte sequence that is not UTF-8.
  const b = c.body.includes('\udcff')
    ? Buffer.concat([
        Buffer.from(c.body.split('\udcff')[0]!),
        Buffer.from([0xff]),
        Buffer.from(c.body.split('\udcff')[1]!)
      ])
    : Buffer.from(c.body)
  // A shared buffer from the large-body pool, as the gateway's bodies for the worker are.
  const own = LARGE.acquire(b.length)
  own.set(b)
  return own
}

function task(c: SplitCase): PrepareTask {
  const body = bodyOf(c)
  return {
    id: 7,
    body,
    mode: c.mode,
    format: c.format,
    service: 'svc',
    method: 'm',
    sequence: c.format === 'json' ? 'betaParamArrayJsonInOutSequence' : 'alphaParamArrayXmlInOutSequence',
    parameterCount: c.args?.length ?? 0,
    context: { requestId: 'r' },
    timeoutMs: 1000,
    maxDepth: 1000
  }
}

function argsOfFrame(frame: Uint8Array): string[] {
  const [len, prefix] = readVarint(frame, 0)!
  assert.equal(frame.length, prefix + len, 'one whole frame')
  const f = gateway.Frame.decode(frame.subarray(prefix))
  assert.equal(f.body, 'invoke')
  assert.equal(f.invoke!.id, 7)
  return f.invoke!.arguments!.map((a) => Buffer.from(a).toString())
}

/** A frame's bytes, from one buffer or from its pieces written one after another. */
function frameBytes(r: Prepared): Uint8Array {
  if (r instanceof Uint8Array) return r
  assert.ok(isSlicedFrame(r), JSON.stringify(r))
  return Buffer.concat(framePieces(r))
}

/** The same expectations for both paths: the case's error, or a frame holding exactly its arguments. */
function checkResult(c: SplitCase, r: Prepared): void {
  if (c.error !== undefined) {
    assert.ok(!(r instanceof Uint8Array) && !isSlicedFrame(r))
    assert.equal(r.code, 'MALFORMED_BODY')
    assert.match(r.detail, c.error)
    return
  }
  assert.deepEqual(argsOfFrame(frameBytes(r)), c.args)
}

describe('splitArguments', () => {
  for (const c of splitCases) {
    test(`${c.format} ${c.mode}: ${c.name}`, () => {
      const body = bodyOf(c)
      if (c.error !== undefined) {
        assert.throws(
          () => splitArguments(body, c.mode, c.format),
          (err: Error & { code?: string }) => {
            assert.equal(err.code, 'MALFORMED_BODY')
            assert.match(err.message, c.error!)
            return true
          }
        )
        return
      }
      const slices = splitArguments(body, c.mode, c.format)
      const got = []
      for (let k = 0; k < slices.length; k += 2)
        got.push(Buffer.from(body.subarray(slices[k], slices[k + 1])).toString())
      assert.deepEqual(got, c.args)
    })
  }
})

describe('inline path (prepare)', () => {
  for (const c of splitCases) {
    test(`${c.format} ${c.mode}: ${c.name}`, () => {
      const r = prepare(task(c))
      checkResult(c, r)
      if (c.error === undefined) assert.ok(r instanceof Uint8Array, 'one frame')
    })
  }
})

describe('in pieces (the worker path): the bytes of the whole frame, the arguments left in the body', () => {
  for (const c of splitCases.filter((c) => c.error === undefined)) {
    test(`${c.format} ${c.mode}: ${c.name}`, () => {
      const t = task(c)
      const whole = prepare(t) as Uint8Array
      const parts = prepare(t, true)
      assert.ok(isSlicedFrame(parts))
      assert.equal(parts.body, t.body, 'the arguments stay in the body')
      const bytes = frameBytes(parts)
      assert.equal(
        Buffer.from(bytes).toString('hex'),
        Buffer.from(whole).toString('hex'),
        'the same bytes as one frame'
      )
      const decode = (b: Uint8Array): unknown => {
        const [len, prefix] = readVarint(b, 0)!
        assert.equal(b.length, prefix + len)
        return gateway.Frame.decode(Buffer.from(b.subarray(prefix)))
      }
      assert.deepEqual(decode(bytes), decode(whole))
    })
  }

  test('RMC argument count is checked against the parameter count', () => {
    const r = prepare({ ...task(splitCases[0]!), parameterCount: 3 })
    assert.ok(!(r instanceof Uint8Array) && !isSlicedFrame(r))
    assert.equal(r.code, 'ARGUMENT_COUNT')
    assert.match(r.detail, /takes 3 arguments, the body has 2/)
  })
})

describe('worker path (Piscina)', () => {
  const pool = new PreparePool({
    maxThreads: 2,
    minThreads: 1,
    idleTimeoutMs: 1000,
    maxQueue: 1000,
    taskTimeoutMs: 10000,
    inlineMaxBytes: 0
  })
  after(() => pool.close())

  for (const c of splitCases) {
    test(`${c.format} ${c.mode}: ${c.name}`, async () => {
      const t = task(c)
      const r = await pool.run(t, null)
      checkResult(c, r)
      if (isSlicedFrame(r)) {
        // Read in place: the frame's pieces are views of this thread's own body, which is unmoved.
        assert.ok(isShared(t.body))
        assert.equal(r.body, t.body)
        assert.equal(t.body.byteLength, bodyOf(c).byteLength)
      }
    })
  }

  test('a task past the executing timeout is EXECUTION_TIMEOUT and the pool keeps working', async () => {
    const slow = new PreparePool({
      maxThreads: 1,
      minThreads: 1,
      idleTimeoutMs: 1000,
      maxQueue: 10,
      taskTimeoutMs: 1,
      inlineMaxBytes: 0
    })
    try {
      // A 4 MB body takes well over 1 ms to split.
      const big = `[${Array.from({ length: 200000 }, (_, k) => `{"a":${k},"b":"x"}`).join(',')}]`
      const r = await slow.run(
        { ...task({ name: 'big', mode: 'RMC', format: 'json', body: big, args: [] }), parameterCount: 200000 },
        null
      )
      assert.ok(!(r instanceof Uint8Array) && !isSlicedFrame(r))
      assert.equal(r.code, 'EXECUTION_TIMEOUT')
    } finally {
      await slow.close()
    }
    const again = await pool.run(task(splitCases[0]!), null)
    assert.ok(isSlicedFrame(again))
  })

  test('a full queue answers OVERLOADED', async () => {
    const tiny = new PreparePool({
      maxThreads: 1,
      minThreads: 1,
      idleTimeoutMs: 1000,
      maxQueue: 1,
      taskTimeoutMs: 10000,
      inlineMaxBytes: 0
    })
    try {
      const big = `[${Array.from({ length: 50000 }, (_, k) => k).join(',')}]`
      const runs = Array.from({ length: 6 }, () =>
        tiny.run(
          { ...task({ name: 'big', mode: 'RMC', format: 'json', body: big, args: [] }), parameterCount: 50000 },
          null
        )
      )
      const results = await Promise.all(runs)
      const codes = results.map((r) => (isSlicedFrame(r) || r instanceof Uint8Array ? 'frame' : r.code))
      assert.ok(codes.includes('OVERLOADED'), codes.join(','))
      assert.ok(codes.includes('frame'), codes.join(','))
    } finally {
      await tiny.close()
    }
  })
})
