// Rate limits counted in Redis ("scope": "cluster"), one limiter at a time against a real redis-server
// (Debian's, test/helpers/redis.ts): leases of a hundredth of the limit, the next one asked for at half,
// the calls of one turn waiting for one lease, the RateLimit fields from what is in hand and in Redis, and
// what happens while Redis cannot be asked (docs/rate-limits.md, "Across gateways"). The platform's own
// tests of the same (integration/shared-limits.test.ts) count answers over HTTP; these count what Redis holds.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import Redis from 'ioredis'
import {
  RateLimiter,
  RateLimited,
  limiterFor,
  type LimitKeys,
  type Verdict
} from '../../../../src/gateway/admission/rate-limits'
import { SharedCounts, sharedCountsFor, storeLog } from '../../../../src/gateway/admission/shared-counts'
import type { RateLimitsSection } from '../../../../src/common/config/config'
import { createLogger } from '../../../../src/common/observability/log'
import { testConfig, until, type Json } from '../../../helpers/platform'
import { startRedis, type RunningRedis } from '../../../helpers/redis'
import { freePort } from '../../../helpers/nginx'

let redis: RunningRedis
let direct: Redis
before(async () => {
  redis = await startRedis()
  direct = new Redis(redis.url)
})
after(async () => {
  direct?.disconnect()
  await redis?.stop()
})

/** Each test counts under its own prefix, so no test sees another's keys. */
let prefixes = 0
function limits(rules: Json[], redisMore: { [k: string]: Json } = {}, url = redis.url): RateLimitsSection {
  const prefix = `t${++prefixes}`
  return testConfig({
    RATE_LIMITS: { rules, redis: { url, prefix, timeoutMs: 200, retryMs: 200, ...redisMore } }
  }).rateLimits
}

function caller(user = ''): LimitKeys {
  return { limitUser: () => user, limitCertificate: () => '', limitAddress: () => '10.0.0.1' }
}

/** A limiter over its own connection to Redis, as one gateway has. */
async function gateway(
  config: RateLimitsSection,
  events?: (up: boolean, detail: string) => void,
  clock: () => number = Date.now
): Promise<RateLimiter> {
  const counts = new SharedCounts(config.redis!, events)
  await until(() => counts.available, 10000, 'Redis ready')
  return new RateLimiter(config, undefined, clock, counts)
}

const close = (...ls: RateLimiter[]): void => ls.forEach((l) => l.counts?.close())
const check = (l: RateLimiter, who = caller()): Verdict | Promise<Verdict> =>
  l.check('example', 'calculator', 'multiply', 'ROA', who)
const allowed = (v: Verdict): boolean => !(v instanceof RateLimited)

/** What Redis has counted under a prefix: a window's calls taken, summed over its keys. */
async function taken(config: RateLimitsSection): Promise<number> {
  const keys = await direct.keys(`${config.redis!.prefix}:*`)
  let n = 0
  for (const k of keys) n += Number(await direct.get(k))
  return n
}

/** How many times Redis ran a command since its stats were reset (the lease scripts' commands count too). */
async function ran(command: string): Promise<number> {
  const stats = await direct.info('commandstats')
  return Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(stats)?.[1] ?? 0)
}

/** Lets a lease asked for in the background (setImmediate, then Redis) arrive. */
const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 50))

describe('a window counted in Redis', () => {
  test('two gateways take exactly its count between them, each leasing a hundredth of it at a time', async () => {
    const config = limits([{ name: 'w', key: 'global', scope: 'cluster', count: 1000, windowSeconds: 86400 }])
    const [a, b] = [await gateway(config), await gateway(config)]
    try {
      const first = await check(a)
      assert.ok(allowed(first))
      // One call leased ten (a hundredth of 1,000): nine in hand and 990 in Redis are what remains.
      assert.equal(await taken(config), 10)
      const fields = first as string[]
      assert.deepEqual(fields.slice(0, 3), ['RateLimit-Policy', '"w";q=1000;w=86400', 'RateLimit'])
      const [, remaining, reset] = /^"w";r=(\d+);t=(\d+)$/.exec(fields[3]!)!
      assert.equal(remaining, '999')
      // The window is Redis's day: it ends at the next 00:00 UTC.
      const toMidnight = Math.ceil((86_400_000 - (Date.now() % 86_400_000)) / 1000)
      assert.ok(Math.abs(Number(reset) - toMidnight) <= 2, `t=${reset}, ${toMidnight} s to midnight`)
      // Down to four in hand (under half a lease): the next ten are leased while calls go on.
      for (let k = 0; k < 4; k++) assert.ok(allowed(await check(a)))
      assert.equal(await taken(config), 10)
      assert.ok(allowed(await check(a)))
      await settle()
      assert.equal(await taken(config), 20)
      let ok = 6
      for (let k = 0; k < 1200; k++) if (allowed(await check(k % 2 === 0 ? b : a))) ok++
      assert.equal(ok, 1000)
      assert.equal(await taken(config), 1000)
      const refused = await check(b)
      assert.ok(refused instanceof RateLimited)
      assert.equal(refused.failure.code, 'RATE_LIMITED')
      assert.match(refused.failure.detail, /^over the rate limit w; try again in \d+ s$/)
      assert.equal(refused.headers[0], 'Retry-After')
      assert.ok(Math.abs(Number(refused.headers[1]) - toMidnight) <= 2)
      assert.match(refused.headers[5]!, /^"w";r=0;t=\d+$/)
    } finally {
      close(a, b)
    }
  })

  test('the calls that find the budget empty in one turn wait for one lease of as many calls as they are', async () => {
    const config = limits([{ name: 'w', key: 'identity', scope: 'cluster', count: 100, windowSeconds: 86400 }])
    const a = await gateway(config)
    try {
      await direct.config('RESETSTAT')
      const verdicts = await Promise.all(Array.from({ length: 30 }, () => check(a, caller('alice'))))
      assert.equal(verdicts.filter(allowed).length, 30)
      assert.equal(await taken(config), 30)
      assert.equal(await ran('incrby'), 1)
      // Another key is another count: bob's first call leases one (a hundredth of 100).
      assert.ok(allowed(await check(a, caller('bob'))))
      assert.equal(await taken(config), 31)
      const rest = await Promise.all(Array.from({ length: 80 }, () => check(a, caller('alice'))))
      assert.equal(rest.filter(allowed).length, 70)
    } finally {
      close(a)
    }
  })
})

describe('the leases in hand', () => {
  test("a window's lease is dropped when the window ends, however many calls it had left", async () => {
    const config = limits([{ name: 'w', key: 'global', scope: 'cluster', count: 1000, windowSeconds: 86400 }])
    let later = 0
    const a = await gateway(config, undefined, () => Date.now() + later)
    try {
      assert.ok(allowed(await check(a)))
      assert.equal(await taken(config), 10)
      // Two days on by this gateway's clock, the nine in hand are gone: the next call leases again
      // (Redis, on its own clock, counts it in the same window).
      later = 2 * 86_400_000
      assert.ok(allowed(await check(a)))
      assert.equal(await taken(config), 20)
    } finally {
      close(a)
    }
  })

  test("a bucket's lease slot is free the moment its lease runs out; until then a new key forgets one", async () => {
    const config = { ...limits([{ name: 'b', key: 'identity', scope: 'cluster', rate: 1, burst: 20 }]), maxKeys: 2 }
    let now = 1_000_000
    const a = await gateway(config, undefined, () => now)
    try {
      // Four slots in the lease table (table 1), each key's lease good for a second.
      for (let k = 0; k < 4; k++) assert.ok(allowed(await check(a, caller(`u${k}`))))
      now += 999
      assert.ok(allowed(await check(a, caller('u4'))))
      assert.equal(a.store.totals(1).evicted, 1)
      now += 1
      assert.ok(allowed(await check(a, caller('u5'))))
      assert.equal(a.store.totals(1).evicted, 1, 'the leases of the first four ran out at this moment')
    } finally {
      close(a)
    }
  })
})

describe('a token bucket counted in Redis', () => {
  test('two gateways allow its burst between them, then its rate; a refusal says try again in a second', async () => {
    const config = limits([{ name: 'b', key: 'identity', scope: 'cluster', rate: 1, burst: 20 }])
    const [a, b] = [await gateway(config), await gateway(config)]
    try {
      const started = Date.now()
      let ok = 0
      let refused: RateLimited | null = null
      for (let k = 0; k < 60; k++) {
        const v = await check(k % 2 === 0 ? a : b, caller('alice'))
        if (allowed(v)) ok++
        else refused ??= v as RateLimited
      }
      // The burst, and at most what one a second has added meanwhile.
      const seconds = (Date.now() - started) / 1000
      assert.ok(ok >= 20 && ok <= 20 + Math.ceil(seconds), `${ok} allowed in ${seconds} s`)
      assert.ok(refused !== null)
      assert.match(refused.failure.detail, /^over the rate limit b; try again in 1 s$/)
      assert.deepEqual(refused.headers.slice(0, 4), ['Retry-After', '1', 'RateLimit-Policy', '"b";q=20;w=20'])
      // Empty: full again in twenty seconds at one a second, whatever the lease in hand has left to run.
      assert.equal(refused.headers[5], '"b";r=0;t=20')
      // The bucket is in Redis with its tokens, expiring once it would be full again.
      const keys = await direct.keys(`${config.redis!.prefix}:b:*`)
      assert.equal(keys.length, 1)
      const tokens = Number(await direct.hget(keys[0]!, 'tokens'))
      assert.ok(tokens >= 0 && tokens < 1, `${tokens} tokens left`)
      const ttl = await direct.pttl(keys[0]!)
      assert.ok(ttl > 19_000 && ttl <= 21_000, `expires in ${ttl} ms`)
      // Another key has its own bucket.
      assert.ok(allowed(await check(a, caller('bob'))))
      // A first call's fields: what is in hand and in Redis, and the seconds until the bucket is full.
      const fresh = (await check(b, caller('carol'))) as string[]
      assert.deepEqual(fresh, ['RateLimit-Policy', '"b";q=20;w=20', 'RateLimit', '"b";r=19;t=1'])
    } finally {
      close(a, b)
    }
  })

  test('an empty bucket is not asked again until a token has had time to fill', async () => {
    const config = limits([{ name: 'slow', key: 'global', scope: 'cluster', rate: 0.5, burst: 1 }])
    const a = await gateway(config)
    try {
      assert.ok(allowed(await check(a)))
      await direct.config('RESETSTAT')
      for (let k = 0; k < 20; k++) assert.ok(!allowed(await check(a)))
      // The lease is good for a second, and then none is left until a token has filled: Redis is not
      // asked for each refusal (one ask at most, should the loop straddle the second).
      assert.ok((await ran('hmget')) <= 1)
    } finally {
      close(a)
    }
  })
})

describe('while Redis cannot be asked', () => {
  test('"local": each gateway counts the rule itself, and says so once', async () => {
    const events: Array<[boolean, string]> = []
    const config = limits(
      [{ name: 'w', key: 'global', scope: 'cluster', count: 3, windowSeconds: 3600 }],
      {},
      `redis://127.0.0.1:${await freePort()}`
    )
    const counts = new SharedCounts(config.redis!, (up, detail) => events.push([up, detail]))
    const l = new RateLimiter(config, undefined, Date.now, counts)
    try {
      assert.equal(counts.available, false)
      const verdicts = await Promise.all(Array.from({ length: 5 }, () => check(l)))
      assert.equal(verdicts.filter(allowed).length, 3)
      assert.equal(counts.failures, 5)
      assert.equal(counts.up, 0)
      assert.deepEqual(events, [[false, `${config.redis!.url} is not connected`]])
      assert.deepEqual(l.store.totals(0), { allowed: 3, limited: 2, evicted: 0 })
    } finally {
      counts.close()
    }
  })

  test('"refuse": every call of the rule is a 503 OVERLOADED, counted nowhere', async () => {
    const config = limits(
      [{ name: 'w', key: 'global', scope: 'cluster', count: 3, windowSeconds: 3600 }],
      { onFailure: 'refuse' },
      `redis://127.0.0.1:${await freePort()}`
    )
    const counts = new SharedCounts(config.redis!)
    const l = new RateLimiter(config, undefined, Date.now, counts)
    try {
      const v = await check(l)
      assert.ok(v instanceof RateLimited)
      assert.equal(v.failure.code, 'OVERLOADED')
      assert.match(v.failure.detail, /onFailure is "refuse"/)
      assert.deepEqual(v.headers, [])
      assert.deepEqual(l.store.totals(0), { allowed: 0, limited: 0, evicted: 0 })
    } finally {
      counts.close()
    }
  })

  test('Redis killed: the call waiting for a lease is decided locally, Redis rests, then counts again', async () => {
    const events: Array<[boolean, string]> = []
    const config = limits([{ name: 'w', key: 'global', scope: 'cluster', count: 1000, windowSeconds: 86400 }])
    const a = await gateway(config, (up, detail) => events.push([up, detail]))
    try {
      await redis.stop()
      const v = await check(a)
      assert.ok(allowed(v))
      assert.equal(a.counts!.up, 0)
      assert.equal(events.length, 1)
      assert.equal(events[0]![0], false)
      assert.deepEqual(a.store.totals(0), { allowed: 1, limited: 0, evicted: 0 })
      await redis.start()
      await until(() => a.counts!.available, 10000, 'Redis ready again')
      assert.ok(allowed(await check(a)))
      assert.equal(a.counts!.up, 1)
      assert.deepEqual(events.at(-1), [true, `${config.redis!.url} reachable`])
      assert.equal(await taken(config), 10)
    } finally {
      close(a)
    }
  })

  test('Redis that does not answer within timeoutMs: the call is decided locally, counted once, and Redis rests for retryMs', async () => {
    const events: Array<[boolean, string]> = []
    const config = limits([{ name: 'w', key: 'global', scope: 'cluster', count: 1000, windowSeconds: 86400 }], {
      timeoutMs: 100,
      retryMs: 400
    })
    const a = await gateway(config, (up, detail) => events.push([up, detail]))
    try {
      // Connected, but its writes held (and the lease scripts write) for longer than a call waits.
      await direct.call('CLIENT', 'PAUSE', '3000', 'WRITE')
      const v = await check(a)
      assert.ok(allowed(v))
      assert.equal(a.counts!.failures, 1)
      assert.equal(a.counts!.up, 0)
      assert.deepEqual(events, [[false, 'Command timed out']])
      assert.deepEqual(a.store.totals(0), { allowed: 1, limited: 0, evicted: 0 })
      // Resting: the next calls do not wait for Redis, they are counted here.
      assert.equal(a.counts!.available, false)
      assert.ok(allowed(await check(a)))
      assert.equal(a.counts!.failures, 2)
      await direct.call('CLIENT', 'UNPAUSE')
      await until(() => a.counts!.available, 10000, 'rested')
      assert.ok(allowed(await check(a)))
      assert.equal(a.counts!.up, 1)
      assert.deepEqual(events.at(-1), [true, `${config.redis!.url} answers`])
      // The lease that timed out ran when Redis resumed: its ten are counted and never spent. A lost
      // lease errs toward fewer calls across the cluster, never more.
      assert.equal(await taken(config), 20)
    } finally {
      await direct.call('CLIENT', 'UNPAUSE')
      close(a)
    }
  })

  test('one log line a change: down names the failure and what the rules do, up says Redis counts again', () => {
    const lines: string[] = []
    const log = createLogger('info', { write: (line: string) => void lines.push(line) })
    let onFailure: 'local' | 'refuse' = 'local'
    const events = storeLog(log, () => onFailure)
    events(false, 'connect ECONNREFUSED')
    onFailure = 'refuse'
    events(false, 'timeout')
    events(true, 'redis://x answers')
    const parsed = lines.map((l) => JSON.parse(l) as { level: string; event: string; msg: string })
    assert.deepEqual(
      parsed.map((p) => [p.level, p.event, p.msg]),
      [
        [
          'warn',
          'store-down',
          'Redis cannot count the cluster rate limits (connect ECONNREFUSED); they are counted by each gateway until it answers'
        ],
        [
          'warn',
          'store-down',
          'Redis cannot count the cluster rate limits (timeout); their calls are refused until it answers'
        ],
        ['info', 'store-up', 'Redis counts the cluster rate limits again: redis://x answers']
      ]
    )
  })
})

describe('a reload', () => {
  test('keeps the connection when RATE_LIMITS.redis is unchanged, makes a new one when not, closes it without cluster rules', async () => {
    const rule = { name: 'w', key: 'global', scope: 'cluster', count: 1000, windowSeconds: 86400 }
    const config = limits([rule])
    const first = sharedCountsFor(config, null, () => {})!
    try {
      assert.ok(first instanceof SharedCounts)
      assert.equal(
        sharedCountsFor({ ...config, rules: [...config.rules] }, first, () => {}),
        first
      )
      const other = sharedCountsFor({ ...config, redis: { ...config.redis!, timeoutMs: 300 } }, first, () => {})!
      assert.notEqual(other, first)
      await until(() => !first.available, 10000, 'the old connection closed')
      const none = sharedCountsFor(
        { ...config, rules: config.rules.map((r) => ({ ...r, scope: 'node' as const })) },
        other,
        () => {}
      )
      assert.equal(none, null)
      await until(() => !other.available, 10000, 'the other connection closed')
      assert.equal(
        sharedCountsFor({ ...config, redis: null }, null, () => {}),
        null
      )
    } finally {
      first.close()
    }
  })

  test('a cluster rule carried over spends the lease it had in hand', async () => {
    const config = limits([{ name: 'w', key: 'global', scope: 'cluster', count: 1000, windowSeconds: 86400 }])
    const a = await gateway(config)
    try {
      assert.ok(allowed(await check(a)))
      assert.equal(await taken(config), 10)
      const next = limiterFor(config, null, a, () => {})!
      assert.equal(next.counts, a.counts, 'the same connection')
      for (let k = 0; k < 4; k++) assert.ok(allowed(await check(next)))
      // Five spent of the ten leased: nothing asked of Redis yet.
      assert.equal(await taken(config), 10)
    } finally {
      close(a)
    }
  })
})
