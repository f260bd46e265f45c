// Large frames and small ones on separate connections: a small call's frame sent behind a 1 MB one
// waits until the microservice has read all of it, so while a large call is in flight small calls go
// to another connection of the instance, and further large calls to the one already carrying one.
// A real microservice runtime on a loopback port, the gateway's InstanceClient with two connections.
import { test, after, before } from 'node:test'
import assert from 'node:assert/strict'
import { InstanceClient } from '../../src/gateway/dispatch/instance'
import { TestCall } from '../helpers/frames'
import { defaultConfig } from '../../src/common/config/config'
import { prepare, isSlicedFrame } from '../../src/gateway/prepare/prepare'
import { framePieces } from '../../src/common/protocol/invoke-frame'
import { gateway } from '../../src/common/protocol/generated/gateway'
import { MicroserviceServer } from '../../src/microservice/host/microservice-server'
import { DEFAULT_RUNTIME_SETTINGS } from '../../src/microservice/host/settings'
import exampleDefinition from '../../examples/example/index'

const server = new MicroserviceServer(exampleDefinition, {
  name: 'example',
  version: '1.0.0',
  settings: DEFAULT_RUNTIME_SETTINGS,
  privilegedNames: []
})
const client = new InstanceClient(
  'example',
  { ...defaultConfig().dispatch, connectionsPerMicroservice: 2 },
  () => {},
  null,
  () => {}
)

before(async () => {
  client.setEndpoint(await server.listen({ host: '127.0.0.1', port: 0 }))
  const deadline = Date.now() + 10000
  while (client.reason !== null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
  assert.equal(client.reason, null, 'the instance is ready')
  while (client.readyConnections < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
  assert.equal(client.readyConnections, 2)
})
after(async () => {
  client.close()
  await server.close()
})

function send(call: TestCall, body: string, inPieces: boolean): void {
  const task = {
    id: call.callId,
    body: Buffer.from(body),
    mode: 'RMC' as const,
    format: 'json' as const,
    service: 'calculator',
    method: 'sumProducts',
    sequence: 'betaParamArrayJsonInOutSequence',
    parameterCount: 2,
    context: { requestId: `r${call.callId}` },
    timeoutMs: 10000,
    maxDepth: 100
  }
  const r = prepare(task, inPieces)
  assert.ok(r instanceof Uint8Array || isSlicedFrame(r))
  client.send(call, r instanceof Uint8Array ? r : framePieces(r))
  call.sentOn = call.connection
}

const big = `[[${Array.from({ length: 20000 }, (_, k) => `{"a":${k % 100},"b":2}`).join(',')}],1]`
const small = '[[{"a":2,"b":3}],1]'

test('while a large call is in flight, small calls take the other connection and large ones keep to its', async () => {
  const large1 = new TestCall()
  send(large1, big, true)
  const smalls = Array.from({ length: 5 }, () => new TestCall())
  for (const c of smalls) send(c, small, false)
  const large2 = new TestCall()
  send(large2, big, true)
  assert.ok(large1.sentOn !== null)
  for (const c of smalls) assert.notEqual(c.sentOn, large1.sentOn, 'a small call went behind the large frame')
  assert.equal(large2.sentOn, large1.sentOn)
  const expectedBig = String(Array.from({ length: 20000 }, (_, k) => (k % 100) * 2).reduce((a, b) => a + b, 0))
  for (const [c, expected] of [
    [large1, expectedBig],
    [large2, expectedBig],
    ...smalls.map((s) => [s, '6'] as const)
  ] as const) {
    const outcome = (await c.done) as gateway.Result
    assert.equal(outcome.error ?? null, null, JSON.stringify(outcome.error))
    assert.equal(Buffer.from(outcome.body).toString(), expected)
  }
})

test('with no large call in flight, calls spread over both connections by how many each holds', async () => {
  const calls = Array.from({ length: 4 }, () => new TestCall())
  for (const c of calls) send(c, small, false)
  assert.equal(new Set(calls.map((c) => c.sentOn)).size, 2)
  for (const c of calls) assert.equal(Buffer.from(((await c.done) as gateway.Result).body).toString(), '6')
})
