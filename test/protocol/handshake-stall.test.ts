// A microservice that accepts the connection and then says nothing (a stuck process, a wrong port
// that happens to listen) is dropped after DISPATCH.connectTimeoutMs, with that reason, and tried
// again: the gateway never waits on it for good.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer, type Socket } from 'node:net'
import { InstanceClient } from '../../src/gateway/dispatch/instance'
import { defaultConfig } from '../../src/common/config/config'

test('a handshake that stalls is dropped after connectTimeoutMs, named as such, and the connection tried again', async () => {
  const accepted: Socket[] = []
  let closedByGateway = 0
  const silent = createServer((s) => {
    accepted.push(s)
    s.on('error', () => {})
    s.on('close', () => closedByGateway++)
    s.resume()
  })
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()))
  const port = (silent.address() as { port: number }).port
  const options = {
    ...defaultConfig().dispatch,
    connectionsPerMicroservice: 1,
    connectTimeoutMs: 200,
    reconnectMinMs: 50,
    reconnectMaxMs: 50
  }
  const client = new InstanceClient(
    'stuck',
    options,
    () => {},
    null,
    () => {}
  )
  try {
    client.setEndpoint({ host: '127.0.0.1', port })
    for (let k = 0; k < 300 && !(accepted.length >= 2 && closedByGateway >= 1); k++)
      await new Promise((r) => setTimeout(r, 10))
    assert.ok(
      closedByGateway >= 1,
      `the first connection was dropped by the gateway (${accepted.length} accepted, ${closedByGateway} closed, ${client.reason})`
    )
    assert.ok(accepted.length >= 2, `connected again (${accepted.length} connections)`)
    assert.equal(client.reason, "microservice 'stuck' is not connected (no connection and handshake within 200 ms)")
    assert.equal(client.catalog, null)
  } finally {
    client.close()
    for (const s of accepted) s.destroy()
    await new Promise((r) => silent.close(r))
  }
})
