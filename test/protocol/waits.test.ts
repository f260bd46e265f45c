// What the platform waits for on the dispatch side comes as an event, not by polling: the directory's
// `until` is checked on each change of which instances serve, an instance's `whenIdle` resolves when
// its last call ends. A real microservice runtime on a loopback port.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { MicroserviceDirectory } from '../../src/gateway/dispatch/directory'
import { defaultConfig } from '../../src/common/config/config'
import { holdingServer, rmcInvoke, TestCall } from '../helpers/frames'

test('until resolves on the change that makes it true; whenIdle once the last call in flight is answered', async () => {
  const { server, release } = holdingServer('idler')
  const endpoint = await server.listen({ host: '127.0.0.1', port: 0 })
  const directory = new MicroserviceDirectory(defaultConfig().dispatch, () => {})
  try {
    const serving = directory.until(
      () => directory.get('idler')?.isServing('idler#0') === true,
      10000,
      () => new Error('not serving within 10 s')
    )
    const client = directory.register('idler', endpoint)
    await serving
    assert.equal(client.reason, null)
    await client.whenIdle() // nothing in flight: at once

    const calls = [new TestCall(), new TestCall()]
    for (const c of calls) directory.get('idler')!.send(c, rmcInvoke(c.callId, 'q', 'hold'))
    assert.equal(client.inflight, 2)
    let idle = false
    const idled = client.whenIdle().then(() => (idle = true))
    await new Promise((r) => setTimeout(r, 50))
    assert.equal(idle, false, 'not idle while two calls are held')
    release()
    for (const c of calls) {
      const outcome = (await c.done) as { body?: Uint8Array }
      assert.equal(Buffer.from(outcome.body ?? []).toString(), '7')
    }
    await idled
    assert.equal(client.inflight, 0)
  } finally {
    directory.close()
    await server.close()
  }
})

test('until rejects with the error it was given when nothing makes it true in time', async () => {
  const directory = new MicroserviceDirectory(defaultConfig().dispatch, () => {})
  await assert.rejects(
    directory.until(
      () => false,
      50,
      () => new Error('still waiting after 50 ms')
    ),
    /still waiting after 50 ms/
  )
  directory.close()
})
