// The microservice's execution slots (threadPoolSize) and its queue behind them: when a slot frees,
// the calls waiting start in order, however many of them answer at once, and each is answered; past
// queueLimit a call is refused at once.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'
import { encodeFrame, FrameReader, PROTOCOL_VERSION, type Frame } from '../../src/common/protocol/frame'
import { holdingServer, rmcInvoke } from '../helpers/frames'

/** A raw connection to `server` after its Hello: the frames it sends, and a wait for the n-th. */
async function rawConnection(server: ReturnType<typeof holdingServer>['server']): Promise<{
  frames: Frame[]
  socket: Socket
  until: (n: number) => Promise<void>
  close: () => Promise<void>
}> {
  const e = await server.listen()
  const frames: Frame[] = []
  const reader = new FrameReader((f) => frames.push(f))
  const socket = connect('port' in e ? e.port : 0, '127.0.0.1')
  socket.on('data', (c: Buffer) => reader.push(c))
  const closed = new Promise<void>((r) => socket.on('close', () => r()))
  const until = async (n: number): Promise<void> => {
    for (let k = 0; k < 2000 && frames.length < n && !socket.destroyed; k++) await new Promise((r) => setTimeout(r, 5))
    assert.ok(frames.length >= n, `expected ${n} frames, got ${frames.length}`)
  }
  socket.write(encodeFrame({ hello: { protocolVersion: PROTOCOL_VERSION, gatewayId: 't' } }))
  await until(1)
  return {
    frames,
    socket,
    until,
    close: async () => {
      socket.destroy()
      await closed
      await server.close()
    }
  }
}

test('20,000 calls waiting behind a slow one, each answering at once, start in order when it ends', async () => {
  const waiting = 20_000
  const { server, release } = holdingServer('queue', { threadPoolSize: 1, queueLimit: waiting })
  const { frames, socket, until, close } = await rawConnection(server)
  try {
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
    await close()
  }
})

test('past queueLimit a call is answered OVERLOADED at once; the ones admitted are all answered', async () => {
  const { server, release } = holdingServer('queue', { threadPoolSize: 1, queueLimit: 2 })
  const { frames, socket, until, close } = await rawConnection(server)
  try {
    // One runs (held), two wait, the fourth and fifth find the queue full.
    socket.write(
      Buffer.concat([
        rmcInvoke(1, 'q', 'hold'),
        ...[2, 3, 4, 5].map((id) => rmcInvoke(id, 'q', 'echo', [Buffer.from(String(id))]))
      ])
    )
    await until(3)
    const refused = frames.slice(1, 3).map((f) => f.result!)
    assert.deepEqual(
      refused.map((r) => [r.id, r.error?.code]),
      [
        [4, 'OVERLOADED'],
        [5, 'OVERLOADED']
      ]
    )
    assert.match(refused[0]!.error!.detail!, /all 1 execution slots are busy and 2 calls wait/)
    release()
    await until(6)
    assert.deepEqual(
      frames.slice(3).map((f) => [f.result!.id, Buffer.from(f.result!.body!).toString()]),
      [
        [1, '7'],
        [2, '2'],
        [3, '3']
      ]
    )
  } finally {
    await close()
  }
})
