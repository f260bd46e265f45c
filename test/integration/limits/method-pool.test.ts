// threadPoolSize as threads: a CPU-bound method on the method pool does not hold up other calls, a
// synchronous overrun is stopped at threadExecutingTimeOut (the worker is terminated), and large
// arguments move an 'auto' method onto a worker. Through the gateway, with the cpukit microservice.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { startPlatform, post, problem, until, type RunningPlatform } from '../../helpers/platform'

const CPUKIT_DIR = join(__dirname, '..', '..', 'fixtures', 'cpukit')
const RMC = { 'Content-Type': 'application/json', 'X-PLATFORM-API-ID': 'RMC' }

describe('the method pool', { concurrency: false }, () => {
  let p: RunningPlatform
  before(async () => {
    p = await startPlatform({}, [CPUKIT_DIR])
  })
  after(() => p?.stop())

  const call = (method: string, args: unknown[]): ReturnType<typeof post> =>
    post(p.url, `/cpukit/cpu/${method}`, JSON.stringify(args), RMC)

  test('a CPU-bound method on a worker does not hold up other calls', async () => {
    const order: string[] = []
    const spinning = call('spin', [500]).then((r) => {
      order.push('spin')
      return r
    })
    // Calls sent while it runs are answered while it runs.
    for (let k = 0; k < 5; k++) {
      const r = await call('ping', [])
      assert.equal(r.status, 200)
      order.push('ping')
    }
    const r = await spinning
    assert.equal(r.status, 200)
    assert.match(JSON.parse(r.text) as string, /^worker \d+$/)
    assert.deepEqual(order, ['ping', 'ping', 'ping', 'ping', 'ping', 'spin'])
  })

  test('the same work on the main thread holds them up (what the pool is for)', async () => {
    const order: string[] = []
    const spinning = post(p.url, '/cpukit/cpu/spinInline', '[900]', { ...RMC, 'X-PLATFORM-Request-ID': 'spin-1' }).then(
      () => order.push('spin')
    )
    // Sent once the spinning method has begun (it says so in the instance log): answered only after it.
    const log = (): string => p.platform.manager.get('cpukit')!.tail(50).join('\n')
    await until(() => log().includes('spinInline started (request spin-1)'), 10000, 'the method to begin')
    await call('ping', []).then(() => order.push('ping'))
    await spinning
    assert.deepEqual(order, ['spin', 'ping'])
  })

  test('a synchronous method past threadExecutingTimeOut (1 s) is stopped: 504, and the microservice serves on', async () => {
    const r = await call('spin', [30000])
    assert.equal(r.status, 504)
    const body = problem(r)
    assert.equal(body.code, 'EXECUTION_TIMEOUT')
    assert.match(body.detail, /executing timeout of 1000 ms/)
    assert.equal((await call('ping', [])).status, 200)
    // The terminated worker is replaced: the next worker call runs.
    const again = await call('spin', [10])
    assert.equal(again.status, 200)
  })

  test("large arguments move an 'auto' method onto a worker; small ones stay on the main thread", async () => {
    assert.equal(JSON.parse((await call('where', ['x'])).text), 'main')
    assert.equal(JSON.parse((await call('where', ['x'.repeat(70 * 1024)])).text), 'worker')
  })

  test('concurrent large calls each get their own argument (pooled frame buffers do not mix)', async () => {
    const checksum = (s: string): number => {
      let h = 0
      for (let k = 0; k < s.length; k++) h = (Math.imul(h, 31) + s.charCodeAt(k)) | 0
      return h
    }
    for (let round = 0; round < 3; round++) {
      const texts = Array.from({ length: 12 }, (_, k) =>
        String.fromCharCode(97 + ((k + round) % 26)).repeat(100 * 1024 + k * 9973)
      )
      const replies = await Promise.all(texts.map((s, k) => call('digest', [s, k])))
      replies.forEach((r, k) => {
        assert.equal(r.status, 200, r.text)
        assert.equal(JSON.parse(r.text), `${k}:${texts[k]!.length}:${checksum(texts[k]!)}:worker`)
      })
    }
  })

  test('a burst of worker calls beyond the threads all run (queued by the server, not refused by the pool)', async () => {
    // 16 calls of 40 ms on at most 2 threads: up to 14 wait at once.
    const replies = await Promise.all(Array.from({ length: 16 }, () => call('spin', [40])))
    assert.deepEqual(
      replies.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.text.slice(0, 120)}`),
      []
    )
    assert.ok(replies.every((r) => /^worker \d+$/.test(JSON.parse(r.text) as string)))
  })

  test('module state is per thread: a worker does not see the main thread count', async () => {
    const main1 = JSON.parse((await call('count', ['a'])).text) as number
    const main2 = JSON.parse((await call('count', ['a'])).text) as number
    assert.equal(main2, main1 + 1)
    const onWorker = JSON.parse((await call('count', ['y'.repeat(70 * 1024)])).text) as number
    assert.ok(onWorker < main2 || onWorker === 1, `a worker's own count (${onWorker}), not the main thread's`)
  })
})
