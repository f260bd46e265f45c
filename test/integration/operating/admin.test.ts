// The admin listener: liveness, readiness (false while starting and while draining) and status JSON.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Platform } from '../../../src/platform/platform'
import { testConfig, until, TESTKIT_DIR, TEST_PLATFORM_OPTIONS } from '../../helpers/platform'

test('healthz, readyz through start and drain, and status', async () => {
  const p = new Platform(testConfig(), TEST_PLATFORM_OPTIONS)
  const get = async (path: string): Promise<{ status: number; body: { [k: string]: unknown } }> => {
    const r = await fetch(`http://127.0.0.1:${p.adminPort}${path}`)
    return { status: r.status, body: (await r.json()) as { [k: string]: unknown } }
  }
  const started = p.start([TESTKIT_DIR])
  await until(() => p.adminPort > 0, 10000, 'the admin listener')
  const early = await get('/readyz')
  assert.equal(early.status, 503, 'not ready while starting')
  assert.equal(early.body.phase, 'starting')
  assert.equal((await get('/healthz')).status, 200)
  await started
  assert.equal((await get('/readyz')).status, 200)
  const status = await get('/status')
  const ms = status.body.microservices as Array<{ name: string; instances: unknown[] }>
  assert.deepEqual(
    ms.map((m) => m.name),
    ['testkit']
  )
  assert.equal(ms[0]!.instances.length, 1)
  assert.equal((await get('/nope')).status, 404)
  const stopping = p.stop(2000)
  const draining = await get('/readyz')
  assert.equal(draining.status, 503)
  assert.equal(draining.body.phase, 'draining')
  await stopping
})

test('without a deploy token, a POST is refused naming the setting that allows it', async () => {
  const p = new Platform(testConfig(), TEST_PLATFORM_OPTIONS)
  await p.start([])
  try {
    const reload = await fetch(`http://127.0.0.1:${p.adminPort}/reload`, { method: 'POST' })
    assert.equal(reload.status, 405)
    assert.equal(reload.headers.get('allow'), 'GET')
    assert.match(
      ((await reload.json()) as { error: string }).error,
      /POST \/reload needs a deploy token.*ADMIN\.deployTokenEnv/
    )
  } finally {
    await p.stop(0, 0)
  }
})

test('readiness waits for the microservices named in ADMIN.readyRequires', async () => {
  const p = new Platform(testConfig({ ADMIN: { readyRequires: ['testkit'] } }), TEST_PLATFORM_OPTIONS)
  await p.start([TESTKIT_DIR])
  try {
    const ready = async (): Promise<{ status: number; reason?: string }> => {
      const r = await fetch(`http://127.0.0.1:${p.adminPort}/readyz`)
      return { status: r.status, ...((await r.json()) as { reason?: string }) }
    }
    await until(async () => (await ready()).status === 200, 10000, 'ready with testkit available')
    const ms = p.manager.get('testkit')!
    await ms.stop()
    const down = await ready()
    assert.equal(down.status, 503)
    assert.match(down.reason ?? '', /required microservice testkit is unavailable/)
  } finally {
    await p.stop(1000)
  }
})
