// A microservice that stops gracefully (a pod's SIGTERM, the host command's Ctrl+C): it takes no new
// connection, tells each gateway GoAway, answers what it was sent (even a call that crossed the
// GoAway), says unavailable to pings, and stops once its gateways close their connections, or when
// its drain time is up for one that never does.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'
import { encodeFrame, FrameReader, PROTOCOL_VERSION, type Frame } from '../../src/common/protocol/frame'
import { holdingServer, rmcInvoke } from '../helpers/frames'

const invoke = (id: number, name: string, args: Uint8Array[] = []): Uint8Array => rmcInvoke(id, 'q', name, args)

interface Client {
  socket: Socket
  frames: Frame[]
  closed: Promise<void>
  next(body: string): Promise<Frame>
}

async function client(port: number): Promise<Client> {
  const frames: Frame[] = []
  const waiters: Array<() => void> = []
  const reader = new FrameReader((f) => {
    frames.push(f)
    waiters.splice(0).forEach((w) => w())
  })
  const socket = connect(port, '127.0.0.1')
  socket.on('data', (c: Buffer) => reader.push(c))
  const closed = new Promise<void>((r) => socket.on('close', () => r()))
  let seen = 0
  const next = async (body: string): Promise<Frame> => {
    for (;;) {
      while (seen < frames.length) {
        const f = frames[seen++]!
        if (f.body === body) return f
      }
      if (socket.destroyed) throw new Error(`the connection closed before a '${body}' frame`)
      await new Promise<void>((r) => {
        waiters.push(r)
        socket.once('close', r)
      })
    }
  }
  socket.write(encodeFrame({ hello: { protocolVersion: PROTOCOL_VERSION, gatewayId: 't' } }))
  await next('catalog')
  return { socket, frames, closed, next }
}

test('stopping: GoAway, calls sent before and after it answered, pongs unavailable, no new connection; done when the gateway closes', async () => {
  const { server, release } = holdingServer('drainer')
  const e = await server.listen()
  const port = 'port' in e ? e.port : 0
  const c = await client(port)
  c.socket.write(invoke(1, 'hold'))
  await new Promise((r) => setTimeout(r, 50))
  let stopped = false
  const stopping = server.close(30_000).then(() => (stopped = true))
  const goAway = await c.next('goAway')
  assert.match(goAway.goAway!.reason ?? '', /stopping/)
  // Sent before the gateway read the GoAway: still run.
  c.socket.write(invoke(2, 'echo', [Buffer.from('42')]))
  const crossed = await c.next('result')
  assert.equal(crossed.result!.id, 2)
  assert.equal(Buffer.from(crossed.result!.body!).toString(), '42')
  c.socket.write(encodeFrame({ ping: { id: 9 } }))
  assert.equal((await c.next('pong')).pong!.available, false, 'unavailable while it drains')
  const refused = await new Promise<string>((resolve) => {
    const s = connect(port, '127.0.0.1')
    s.once('connect', () => {
      s.destroy()
      resolve('connected')
    })
    s.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message))
  })
  assert.equal(refused, 'ECONNREFUSED', 'the listener is closed')
  release()
  const held = await c.next('result')
  assert.equal(held.result!.id, 1)
  assert.equal(Buffer.from(held.result!.body!).toString(), '7')
  await new Promise((r) => setTimeout(r, 50))
  assert.equal(stopped, false, 'it waits for the gateway to close its connection')
  c.socket.end()
  await stopping
  await c.closed
})

test('stopping: a connection still open when the drain time is up is closed', async () => {
  const { server } = holdingServer('drainer')
  const e = await server.listen()
  const c = await client('port' in e ? e.port : 0)
  c.socket.write(invoke(1, 'hold'))
  await server.close(200)
  await c.closed
  assert.equal(c.frames.filter((f) => f.body === 'goAway').length, 1)
  assert.equal(c.frames.filter((f) => f.body === 'result').length, 0, 'the held call never answered')
})
