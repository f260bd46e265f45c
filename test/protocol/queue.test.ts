// The microservice's execution slots (threadPoolSize) and its queue behind them: when a slot frees,
// the calls waiting start in order, however many of them answer at once, and each is answered.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { encodeFrame, FrameReader, PROTOCOL_VERSION, type Frame } from '../../src/protocol/frame'
import { holdingServer, rmcInvoke } from '../helpers/frames'

test('20,000 calls waiting behind a slow one, each answering at once, start in order when it ends', async () => {
  const waiting = 20_000
  const { server, release } = holdingServer('queue', { threadPoolSize: 1, queueLimit: waiting })
  const e = await server.listen()
  const frames: Frame[] = []
  const reader = new FrameReader((f) => frames.push(f))
  const socket = connect('port' in e ? e.port : 0, '127.0.0.1')
  socket.on('data', (c: Buffer) => reader.push(c))
  const closed = new Promise<void>((r) => socket.on('close', () => r()))
  try {
    const until = async (n: number): Promise<void> => {
      for (let k = 0; k < 2000 && frames.length < n && !socket.destroyed; k++)
        await new Promise((r) => setTimeout(r, 5))
      assert.ok(frames.length >= n, `expected ${n} frames, got ${frames.length}`)
    }
    socket.write(encodeFrame({ hello: { protocolVersion: PROTOCOL_VERSION, gatewayId: 't' } }))
    await until(1)
    const invoke = (id: number, name: string, args: Uint8Array[]): Uint8Array => rmcInvoke(id, 'q', name, args)
    socket.write(invoke(1, 'hold', []))
    const queued: Uint8Array[] = []
    for (let id = 2; id < 2 + waiting; id++) queued.push(invoke(id, 'echo', [Buffer.from(String(id))]))
    socket.write(Buffer.concat(queued))
    // All of them read and queued (none answered: the one slot is held).
    for (let k = 0; k < 2000 && server.waitingCalls < waiting; k++) await new Promise((r) => setTimeout(r, 5))
    release()
    await until(1 + 1 + waiting)
    const results = frames.slice(1).map((f) => f.result!)
    assert.equal(results[0]!.id, 1, 'the slow call first')
    results.slice(1).forEach((r, k) => {
      assert.equal(r.id, k + 2, 'in the order they came')
      assert.equal(Buffer.from(r.body!).toString(), String(k + 2))
    })
  } finally {
    socket.destroy()
    await closed
    await server.close()
  }
})
