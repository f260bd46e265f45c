// Both sides check the internal protocol's version in the handshake: a gateway and a microservice
// of different releases refuse each other, saying which versions met, instead of guessing at frames.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { connect, createServer } from 'node:net'
import { encodeFrame, FrameReader, PROTOCOL_VERSION, type Frame } from '../../src/common/protocol/frame'
import { holdingServer, rmcInvoke } from '../helpers/frames'
import { InstanceClient } from '../../src/gateway/dispatch/instance'
import { defaultConfig } from '../../src/common/config/config'

test("a microservice answers another version's Hello with its Catalog (naming its version), then closes and reads nothing more", async () => {
  const logged: string[] = []
  const { server } = holdingServer('versions')
  Object.assign(server.options, { log: (l: string) => logged.push(l) })
  const e = await server.listen()
  const frames: Frame[] = []
  const reader = new FrameReader((f) => frames.push(f))
  const socket = connect('port' in e ? e.port : 0, '127.0.0.1')
  socket.on('data', (c: Buffer) => reader.push(c))
  const closed = new Promise<void>((r) => socket.on('close', () => r()))
  socket.on('end', () => socket.end())
  try {
    socket.write(encodeFrame({ hello: { protocolVersion: PROTOCOL_VERSION + 1, gatewayId: 'future' } }))
    socket.write(rmcInvoke(1, 'q', 'echo', [Buffer.from('5')]))
    await closed
    assert.deepEqual(
      frames.map((f) => f.body),
      ['catalog'],
      'the Catalog, and no Result for the Invoke'
    )
    assert.equal(frames[0]!.catalog!.protocolVersion, PROTOCOL_VERSION)
    assert.equal(server.stats.refused, 1)
    assert.match(
      logged.join('\n'),
      new RegExp(
        `the gateway speaks internal protocol version ${PROTOCOL_VERSION + 1}, this microservice ${PROTOCOL_VERSION}`
      )
    )
  } finally {
    socket.destroy()
    await server.close()
  }
})

test('a gateway refuses a microservice whose Catalog names another version, and says so in its status', async () => {
  const fake = createServer((s) => {
    s.once('data', () => s.write(encodeFrame({ catalog: { microservice: 'old', services: [], protocolVersion: 999 } })))
    s.on('error', () => {})
  })
  await new Promise<void>((r) => fake.listen(0, '127.0.0.1', () => r()))
  const port = (fake.address() as { port: number }).port
  const client = new InstanceClient(
    'old',
    defaultConfig().dispatch,
    () => {},
    null,
    () => {}
  )
  try {
    client.setEndpoint({ host: '127.0.0.1', port })
    for (let k = 0; k < 400 && !/protocol version/.test(client.reason ?? ''); k++)
      await new Promise((r) => setTimeout(r, 10))
    assert.match(
      client.reason ?? '',
      new RegExp(
        `it speaks internal protocol version 999, this gateway ${PROTOCOL_VERSION}: run one release on both sides`
      )
    )
    assert.equal(client.catalog, null, 'nothing of its catalog is taken')
  } finally {
    client.close()
    await new Promise((r) => fake.close(r))
  }
})
