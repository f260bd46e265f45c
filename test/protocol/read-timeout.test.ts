// The microservice's readTimeout (microservice.json settings, SPEC's 480000 ms by default): a
// connection on which nothing arrives for that long is closed by the microservice; one that keeps
// sending is not. The gateway pings every ready connection each DISPATCH.pingIntervalMs (5000 ms by
// default, far under readTimeout), so its connections stay open however long they carry no call.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { encodeFrame, FrameReader, PROTOCOL_VERSION, type Frame } from '../../src/common/protocol/frame'
import { holdingServer } from '../helpers/frames'

async function opened(
  port: number
): Promise<{ frames: Frame[]; closed: Promise<void>; send: (f: Frame) => void; end: () => void }> {
  const frames: Frame[] = []
  const reader = new FrameReader((f) => frames.push(f))
  const socket = connect(port, '127.0.0.1')
  socket.on('data', (c: Buffer) => reader.push(c))
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()))
  await new Promise<void>((resolve) => socket.on('connect', () => resolve()))
  socket.write(encodeFrame({ hello: { protocolVersion: PROTOCOL_VERSION, gatewayId: 'read-timeout' } }))
  return { frames, closed, send: (f) => socket.write(encodeFrame(f)), end: () => socket.destroy() }
}

test('a silent connection is closed after readTimeout; one that sends pings stays open', async () => {
  const { server } = holdingServer('rt', { readTimeout: 1000 })
  const e = await server.listen()
  const port = 'port' in e ? e.port : 0
  try {
    const silent = await opened(port)
    const pinging = await opened(port)
    let id = 0
    const timer = setInterval(() => pinging.send({ ping: { id: ++id } }), 100)
    let silentClosed = false
    void silent.closed.then(() => (silentClosed = true))
    // The silent one is closed by the microservice (the test fails by its own timeout if never).
    await silent.closed
    assert.equal(silent.frames[0]?.body, 'catalog', 'it had its handshake before it went quiet')
    // The pinging one has outlived it and keeps answering: 2.5 readTimeouts in all.
    await new Promise((resolve) => setTimeout(resolve, 1500))
    clearInterval(timer)
    let pingingClosed = false
    void pinging.closed.then(() => (pingingClosed = true))
    await new Promise((resolve) => setImmediate(resolve))
    assert.deepEqual([silentClosed, pingingClosed], [true, false])
    assert.ok(pinging.frames.filter((f) => f.body === 'pong').length >= 10, 'pongs kept coming')
    pinging.end()
  } finally {
    await server.close()
  }
})
