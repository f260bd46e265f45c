// Rate limits shared by several gateways through a real Redis (RATE_LIMITS.redis, rules with
// "scope": "cluster"): two platforms allow the cluster's limit, not twice it; a quota survives a
// restart of the gateway; Redis killed under load costs no failed or hung call (counted locally, or
// refused by the setting), the metric and the log say so, and counting in Redis resumes when it is back.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { Agent, request } from 'node:http'
import Redis from 'ioredis'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { Platform } from '../../../src/platform/platform'
import { createLogger } from '../../../src/common/observability/log'
import { EXAMPLE_DIR, TEST_PLATFORM_OPTIONS, testConfig, type Json } from '../../helpers/platform'
import { startRedis, type RunningRedis } from '../../helpers/redis'
import { until } from '../../helpers/until'

const MULTIPLY = '/example/calculator/multiply'
const JSON_CT = { 'Content-Type': 'application/json' }

interface Answer {
  status: number
  code: string
  ms: number
}

function call(port: number, agent: Agent, headers: Record<string, string> = JSON_CT): Promise<Answer> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: MULTIPLY, method: 'POST', agent, headers }, (res) => {
      let text = ''
      res.on('data', (d: Buffer) => (text += d.toString()))
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          code: res.statusCode === 200 ? '' : (JSON.parse(text) as { code: string }).code,
          ms: performance.now() - started
        })
      )
    })
    req.on('error', reject)
    req.end('{"a":2,"b":3}')
  })
}

async function calls(port: number, n: number, headers: Record<string, string> = JSON_CT): Promise<Answer[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 32 })
  try {
    return await Promise.all(Array.from({ length: n }, () => call(port, agent, headers)))
  } finally {
    agent.destroy()
  }
}

const ok = (answers: Answer[]): number => answers.filter((a) => a.status === 200).length

interface Started {
  platform: Platform
  port: number
  lines: string[]
}

async function platformWith(redis: RunningRedis, rules: Json[], more: { [k: string]: Json } = {}): Promise<Started> {
  const lines: string[] = []
  const platform = new Platform(
    testConfig({ RATE_LIMITS: { rules, redis: { url: redis.url, timeoutMs: 100, retryMs: 200, ...more } } }),
    { ...TEST_PLATFORM_OPTIONS, logger: createLogger('info', { write: (line: string) => void lines.push(line) }) }
  )
  const port = await platform.start([EXAMPLE_DIR])
  return { platform, port, lines }
}

async function metric(platform: Platform, name: string): Promise<number | null> {
  const text = await (await fetch(`http://127.0.0.1:${platform.adminPort}/metrics`)).text()
  const families = parsePrometheusTextFormat(text) as Array<{ name: string; metrics: Array<{ value: string }> }>
  const f = families.find((x) => x.name === name)
  return f === undefined || f.metrics.length === 0 ? null : Number(f.metrics[0]!.value)
}

describe('limits shared through Redis', () => {
  let redis: RunningRedis
  before(async () => {
    redis = await startRedis()
  })
  after(() => redis?.stop())

  test('two platforms allow the cluster limit of 400 between them, not 400 each', async (t) => {
    const rule = { name: 'cluster-hour', key: 'global', scope: 'cluster', count: 400, windowSeconds: 3600 }
    const [a, b] = await Promise.all([platformWith(redis, [rule]), platformWith(redis, [rule])])
    try {
      const answers = (await Promise.all([calls(a.port, 400), calls(b.port, 400)])).flat()
      const allowed = ok(answers)
      t.diagnostic(`${allowed} of 800 allowed`)
      // Each holds at most a lease (4 calls) it has not spent: the cluster allows 392 to 400.
      assert.ok(allowed <= 400 && allowed >= 380, `${allowed} of 800 allowed`)
      assert.equal(answers.filter((x) => x.code === 'RATE_LIMITED').length, 800 - allowed)
    } finally {
      await Promise.all([a.platform.stop(), b.platform.stop()])
    }
  })

  test('a quota survives a restart of the gateway', async () => {
    const rule = { name: 'daily', key: 'identity', scope: 'cluster', count: 50, windowSeconds: 86400 }
    const user = { ...JSON_CT, 'X-PLATFORM-User': 'quota-user' }
    const first = await platformWith(redis, [rule])
    const before = ok(await calls(first.port, 30, user))
    await first.platform.stop()
    const second = await platformWith(redis, [rule])
    try {
      const after = ok(await calls(second.port, 30, user))
      assert.deepEqual([before, after], [30, 20])
    } finally {
      await second.platform.stop()
    }
  })

  test('Redis killed under load: every call answered (counted locally), the metric and the log say so, and counting resumes', async () => {
    const rule = { name: 'roomy', key: 'global', scope: 'cluster', count: 10_000_000, windowSeconds: 3600 }
    const p = await platformWith(redis, [rule])
    const agent = new Agent({ keepAlive: true, maxSockets: 16 })
    const answers: Answer[] = []
    let running = true
    const loops = Array.from({ length: 16 }, async () => {
      while (running) answers.push(await call(p.port, agent))
    })
    try {
      await new Promise((r) => setTimeout(r, 300))
      await redis.stop()
      await new Promise((r) => setTimeout(r, 1000))
      assert.equal(await metric(p.platform, 'igw_rate_limit_store_up'), 0)
      assert.ok(((await metric(p.platform, 'igw_rate_limit_store_failures_total')) ?? 0) > 0)
      assert.ok(
        p.lines.some((l) => l.includes('Redis cannot count the cluster rate limits')),
        'a log line when Redis went'
      )
      await redis.start()
      const client = new Redis(redis.url)
      try {
        let keys: string[] = []
        for (let k = 0; k < 100 && keys.length === 0; k++) {
          await new Promise((r) => setTimeout(r, 100))
          keys = await client.keys('igw:rl:roomy:*')
        }
        assert.ok(keys.length > 0, 'counted in Redis again')
      } finally {
        client.disconnect()
      }
      assert.equal(await metric(p.platform, 'igw_rate_limit_store_up'), 1)
      assert.ok(p.lines.some((l) => l.includes('Redis counts the cluster rate limits again')))
    } finally {
      running = false
      await Promise.all(loops)
      agent.destroy()
      await p.platform.stop()
    }
    assert.ok(answers.length > 500, `${answers.length} calls`)
    assert.deepEqual(
      answers.filter((a) => a.status !== 200),
      []
    )
    // None waited for Redis longer than its timeout (100 ms), with room for a busy machine.
    assert.ok(Math.max(...answers.map((a) => a.ms)) < 1000, `slowest ${Math.max(...answers.map((a) => a.ms))} ms`)
  })

  test('with onFailure "refuse", calls are refused at once while Redis is away', async () => {
    const rule = { name: 'strict', key: 'global', scope: 'cluster', count: 10_000_000, windowSeconds: 3600 }
    const p = await platformWith(redis, [rule], { onFailure: 'refuse' })
    try {
      assert.equal(ok(await calls(p.port, 10)), 10)
      await redis.stop()
      // Until the gateway has read the connection's close, a call may still be decided within the
      // lease Redis gave it (docs/rate-limits.md, "Across gateways"): one empty-folder run answered
      // the first call after the stop 200. Once it knows, every call is refused at once.
      await until(async () => (await calls(p.port, 1))[0]!.status === 503, 5000, 'a refusal once Redis is gone')
      const answers = await calls(p.port, 50)
      assert.deepEqual([...new Set(answers.map((a) => `${a.status} ${a.code}`))], ['503 OVERLOADED'])
      assert.ok(Math.max(...answers.map((a) => a.ms)) < 1000)
    } finally {
      await redis.start()
      await p.platform.stop()
    }
  })
})
