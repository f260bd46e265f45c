// RATE_LIMITS' counting on a clock the test moves: token buckets and epoch-aligned windows, the keys a
// rule counts by, several rules deciding a call together, the IETF RateLimit fields, and the counts
// shared by real worker threads through one store.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { Worker } from 'node:worker_threads'
import { RateLimiter, RateLimited, type LimitKeys } from '../../../../src/gateway/admission/rate-limits'
import { testConfig, type Json } from '../../../helpers/platform'
import { ConfigError, type RateLimitsSection } from '../../../../src/common/config/config'

function limits(rules: Json[], more: { [k: string]: Json } = {}): RateLimitsSection {
  return testConfig({ RATE_LIMITS: { rules, ...more } }).rateLimits
}

function caller(user = '', address = '10.0.0.1', certificate = ''): LimitKeys {
  return { limitUser: () => user, limitCertificate: () => certificate, limitAddress: () => address }
}

class Clock {
  constructor(public ms: number) {}
  readonly now = (): number => this.ms
}

const call = (l: RateLimiter, who: LimitKeys, method = 'multiply', microservice = 'example') =>
  l.check(microservice, 'calculator', method, 'ROA', who)

/** How many of `n` calls are allowed. */
function allowed(l: RateLimiter, who: LimitKeys, n: number): number {
  let ok = 0
  for (let k = 0; k < n; k++) if (!(call(l, who) instanceof RateLimited)) ok++
  return ok
}

describe('a token bucket', () => {
  test('allows its burst at once, then its rate; the fields say what is left and when it is full', () => {
    const clock = new Clock(1_000_000)
    const l = new RateLimiter(limits([{ name: 'per-user', rate: 10, burst: 5 }]), undefined, clock.now)
    const alice = caller('alice')
    assert.deepEqual(call(l, alice), ['RateLimit-Policy', '"per-user";q=5;w=1', 'RateLimit', '"per-user";r=4;t=1'])
    assert.equal(allowed(l, alice, 10), 4)
    const refused = call(l, alice)
    assert.ok(refused instanceof RateLimited)
    assert.equal(refused.failure.code, 'RATE_LIMITED')
    assert.match(refused.failure.detail, /over the rate limit per-user; try again in 1 s/)
    assert.deepEqual(refused.headers, [
      'Retry-After',
      '1',
      'RateLimit-Policy',
      '"per-user";q=5;w=1',
      'RateLimit',
      '"per-user";r=0;t=1'
    ])
    // 10 a second: one token every 100 ms, and never more than the burst.
    clock.ms += 100
    assert.equal(allowed(l, alice, 3), 1)
    clock.ms += 250
    assert.equal(allowed(l, alice, 3), 2)
    clock.ms += 60_000
    assert.equal(allowed(l, alice, 10), 5)
  })

  test('a refusal says how long the missing part of a token takes to fill', () => {
    const clock = new Clock(0)
    const l = new RateLimiter(limits([{ name: 'tenth', rate: 0.1, burst: 1 }]), undefined, clock.now)
    assert.ok(!(call(l, caller('e')) instanceof RateLimited))
    // Five seconds on, half a token: five more seconds.
    clock.ms = 5_000
    const refused = call(l, caller('e'))
    assert.ok(refused instanceof RateLimited)
    assert.equal(refused.headers[1], '5')
  })

  test('a rate under one a second waits whole seconds; its policy window is the time to fill the burst', () => {
    const clock = new Clock(5_000)
    const l = new RateLimiter(limits([{ name: 'slow', rate: 0.5 }]), undefined, clock.now)
    assert.deepEqual(call(l, caller('bob')), ['RateLimit-Policy', '"slow";q=1;w=2', 'RateLimit', '"slow";r=0;t=2'])
    const refused = call(l, caller('bob'))
    assert.ok(refused instanceof RateLimited)
    assert.equal(refused.headers[1], '2')
    clock.ms += 1999
    assert.ok(call(l, caller('bob')) instanceof RateLimited)
    clock.ms += 1
    assert.ok(!(call(l, caller('bob')) instanceof RateLimited))
  })
})

describe('a quota (count per window)', () => {
  test('counts to its count in a window aligned to the epoch; the next window starts at zero', () => {
    const clock = new Clock(3 * 60_000 + 15_000)
    const l = new RateLimiter(limits([{ name: 'minute', count: 3, windowSeconds: 60 }]), undefined, clock.now)
    assert.deepEqual(call(l, caller('c')), ['RateLimit-Policy', '"minute";q=3;w=60', 'RateLimit', '"minute";r=2;t=45'])
    assert.equal(allowed(l, caller('c'), 5), 2)
    const refused = call(l, caller('c'))
    assert.ok(refused instanceof RateLimited)
    assert.equal(refused.headers[1], '45')
    clock.ms = 4 * 60_000
    assert.equal(allowed(l, caller('c'), 5), 3)
  })

  test('a day is counted from 00:00 UTC', () => {
    const noon = Date.UTC(2026, 10, 27, 12, 0, 0)
    const clock = new Clock(noon)
    const l = new RateLimiter(limits([{ name: 'daily', count: 1, windowSeconds: 86400 }]), undefined, clock.now)
    call(l, caller('d'))
    const refused = call(l, caller('d'))
    assert.ok(refused instanceof RateLimited)
    assert.equal(refused.headers[1], String(12 * 3600))
    clock.ms = Date.UTC(2026, 10, 28, 0, 0, 0)
    assert.ok(!(call(l, caller('d')) instanceof RateLimited))
  })
})

describe('keys and matches', () => {
  test('identity counts each user apart, then the certificate subject, then the address', () => {
    const l = new RateLimiter(limits([{ name: 'r', count: 2, windowSeconds: 60 }]), undefined, () => 0)
    assert.equal(allowed(l, caller('alice', '10.0.0.1'), 5), 2)
    assert.equal(allowed(l, caller('bob', '10.0.0.1'), 5), 2, 'another user on the same address')
    assert.equal(allowed(l, caller('', '10.0.0.1', 'CN=billing'), 5), 2, 'a certificate')
    assert.equal(allowed(l, caller('', '10.0.0.1'), 5), 2, 'the address alone')
    assert.equal(allowed(l, caller('10.0.0.1', '10.0.0.9'), 5), 2, 'a user named like an address is not it')
    // Neither a user nor a certificate: each address is its own key.
    assert.equal(allowed(l, caller('', '10.0.0.2'), 5), 2, 'another address alone')
    assert.equal(allowed(l, caller('', '10.0.0.1', 'CN=other'), 5), 2, 'another certificate on the same address')
  })

  test('address counts by address whoever calls; shared counts everyone once', () => {
    const l = new RateLimiter(
      limits([
        { name: 'by-address', key: 'address', count: 3, windowSeconds: 60 },
        { name: 'all', key: 'global', count: 5, windowSeconds: 60, match: { method: 'multiplyInts' } }
      ]),
      undefined,
      () => 0
    )
    assert.equal(allowed(l, caller('alice', '10.0.0.1'), 2), 2)
    assert.equal(allowed(l, caller('bob', '10.0.0.1'), 2), 1)
    let ok = 0
    for (let k = 0; k < 10; k++)
      if (!(call(l, caller(`u${k}`, `10.1.0.${k}`), 'multiplyInts') instanceof RateLimited)) ok++
    assert.equal(ok, 5)
  })

  test('a rule counts only the calls it matches; a call no rule matches gets no fields', () => {
    const l = new RateLimiter(
      limits([{ name: 'rmc-only', count: 1, windowSeconds: 60, match: { microservice: 'example', apiId: 'RMC' } }]),
      undefined,
      () => 0
    )
    assert.equal(call(l, caller('a')), null)
    assert.equal(l.check('example', 'calculator', 'multiply', 'RMC', caller('a'))?.constructor, Array)
    assert.ok(l.check('example', 'calculator', 'multiply', 'RMC', caller('a')) instanceof RateLimited)
    assert.equal(l.check('other', 'calculator', 'multiply', 'RMC', caller('a')), null)
    const byService = new RateLimiter(
      limits([{ name: 'one-service', count: 1, windowSeconds: 60, match: { service: 'calculator' } }]),
      undefined,
      () => 0
    )
    assert.equal(byService.check('example', 'other', 'multiply', 'ROA', caller('a')), null)
    assert.equal(byService.check('example', 'calculator', 'multiply', 'ROA', caller('a'))?.constructor, Array)
  })

  test('a call several rules match is allowed only when each has room, and then counted by each', () => {
    const l = new RateLimiter(
      limits([
        { name: 'burst', rate: 1, burst: 2 },
        { name: 'quota', count: 3, windowSeconds: 3600 }
      ]),
      undefined,
      () => 0
    )
    const a = caller('a')
    assert.deepEqual(call(l, a), [
      'RateLimit-Policy',
      '"burst";q=2;w=2, "quota";q=3;w=3600',
      'RateLimit',
      '"burst";r=1;t=1, "quota";r=2;t=3600'
    ])
    call(l, a)
    // The bucket is empty: the quota is not charged for the refused call.
    const refused = call(l, a)
    assert.ok(refused instanceof RateLimited)
    assert.match(refused.failure.detail, /over the rate limit burst;/)
    assert.equal(l.store.totals(1).allowed, 2)
    assert.deepEqual(l.store.totals(0), { allowed: 2, limited: 1, evicted: 0 })
  })

  test('headers off: an allowed call gets no fields, a limited one still does', () => {
    const l = new RateLimiter(
      limits([{ name: 'r', count: 1, windowSeconds: 60 }], { headers: false }),
      undefined,
      () => 0
    )
    assert.equal(call(l, caller('a')), null)
    const refused = call(l, caller('a'))
    assert.ok(refused instanceof RateLimited)
    assert.deepEqual(refused.headers.slice(2), ['RateLimit-Policy', '"r";q=1;w=60', 'RateLimit', '"r";r=0;t=60'])
  })

  test('past maxKeys a rule forgets the least used key it looks at, and counts that', () => {
    const l = new RateLimiter(limits([{ name: 'r', count: 2, windowSeconds: 60 }], { maxKeys: 4 }), undefined, () => 0)
    for (let k = 0; k < 100; k++) call(l, caller(`user-${k}`))
    const t = l.store.totals(0)
    assert.equal(t.allowed, 100)
    assert.equal(t.evicted, 100 - 8, 'eight slots for four keys')
  })

  test('a bucket forgets the key counted longest ago; a bucket full again is a free slot, forgotten for nothing', () => {
    const clock = new Clock(0)
    const l = new RateLimiter(limits([{ name: 'b', rate: 1, burst: 5 }], { maxKeys: 4 }), undefined, clock.now)
    // Eight slots, each key counted a millisecond after the one before.
    for (let k = 0; k < 8; k++) {
      call(l, caller(`u${k}`))
      clock.ms++
    }
    call(l, caller('u8'))
    assert.equal(l.store.totals(0).evicted, 1)
    // u0, counted first, was forgotten: it has its burst again; the others kept the four tokens they had.
    for (let k = 1; k < 8; k++) assert.equal(allowed(l, caller(`u${k}`), 10), 4, `u${k}`)
    assert.equal(l.store.totals(0).evicted, 1)
    assert.equal(allowed(l, caller('u0'), 10), 5)
    assert.equal(l.store.totals(0).evicted, 2)
    // Ten seconds on every bucket is full: a new key takes a slot without forgetting anyone's count.
    clock.ms += 10_000
    call(l, caller('u9'))
    assert.equal(l.store.totals(0).evicted, 2)
  })

  test('a bucket is a free slot from the moment it is full again, not a moment later', () => {
    const clock = new Clock(0)
    const l = new RateLimiter(limits([{ name: 'b', rate: 1, burst: 5 }], { maxKeys: 4 }), undefined, clock.now)
    for (let k = 0; k < 8; k++) {
      call(l, caller(`u${k}`))
      clock.ms++
    }
    // u0 took one of five a second ago: full at this very moment, and the only bucket that is.
    clock.ms = 1000
    call(l, caller('u8'))
    assert.equal(l.store.totals(0).evicted, 0)
    for (let k = 1; k < 8; k++) assert.equal(allowed(l, caller(`u${k}`), 10), 4, `u${k}`)
    assert.equal(allowed(l, caller('u0'), 10), 5, 'u0, whose slot u8 took')
  })

  test("a window's slot is free once its window has gone by", () => {
    const clock = new Clock(0)
    const l = new RateLimiter(
      limits([{ name: 'w', count: 2, windowSeconds: 60 }], { maxKeys: 4 }),
      undefined,
      clock.now
    )
    for (let k = 0; k < 8; k++) call(l, caller(`u${k}`))
    call(l, caller('u8'))
    assert.equal(l.store.totals(0).evicted, 1)
    clock.ms = 60_000
    for (let k = 9; k < 17; k++) call(l, caller(`u${k}`))
    assert.equal(l.store.totals(0).evicted, 1, 'eight slots of the last window, free for the next')
  })
})

describe('a reload', () => {
  const used = (l: RateLimiter, who = caller('a')): number => 3 - allowed(l, who, 3)
  // A reloaded limiter counts on the real clock: a window of 366 days (the longest), so that no run straddles two.
  const rule = { name: 'r', count: 3, windowSeconds: 366 * 86400 }
  test('a rule of the same name, key, scope and kind of limit goes on with its counts; any other starts afresh', () => {
    const before = new RateLimiter(limits([rule, { name: 'other', rate: 1, burst: 3 }]))
    assert.equal(allowed(before, caller('a'), 2), 2)
    // Its numbers may change (a count of 5 now): what it counted stays.
    const same = RateLimiter.carriedOver(limits([{ ...rule, count: 5 }]), before)
    assert.equal(allowed(same, caller('a'), 5), 3)
    assert.deepEqual(same.store.totals(0), { allowed: 5, limited: 2, evicted: 0 }, 'its totals carried too')
    const changes: Json[] = [
      { ...rule, name: 'renamed' },
      { ...rule, key: 'address' },
      { name: 'r', rate: 1, burst: 3 }
    ]
    for (const changed of changes) {
      const next = RateLimiter.carriedOver(limits([changed]), before)
      assert.equal(used(next), 0, JSON.stringify(changed))
    }
    // Another table size (maxKeys) cannot take the old table.
    assert.equal(used(RateLimiter.carriedOver(limits([rule], { maxKeys: 16 }), before)), 0)
    assert.equal(used(RateLimiter.carriedOver(limits([rule]), null)), 0)
    // A rule found by name wherever it is in the list; the tables are in the order of the config.
    const moved = RateLimiter.carriedOver(limits([{ ...rule, name: 'first' }, rule]), before)
    assert.deepEqual(moved.tables, [
      { name: 'first', table: 0 },
      { name: 'r', table: 1 }
    ])
    assert.equal(moved.store.totals(1).allowed, 2)
  })
})

describe('config', () => {
  const refused = (rules: Json[]) => assert.throws(() => limits(rules), ConfigError)
  test('a rule gives a rate or a count, with its own companion, under a name no other rule has', () => {
    refused([{ name: 'a', rate: 1, count: 1, windowSeconds: 1 }])
    refused([{ name: 'a' }])
    refused([{ name: 'a', rate: 1, windowSeconds: 1 }])
    refused([{ name: 'a', count: 1, windowSeconds: 1, burst: 1 }])
    refused([{ name: 'a', count: 1 }])
    refused([{ name: 'a', rate: 0 }])
    refused([{ name: 'a "b"', rate: 1 }])
    refused([
      { name: 'a', rate: 1 },
      { name: 'a', rate: 2 }
    ])
    assert.throws(() => limits([{ name: 'a', rate: 1, key: 'user' }]), /RATE_LIMITS\.rules\.0\.key: must be one of/)
    assert.deepEqual(limits([{ name: 'a', rate: 2.5 }]).rules[0]!.limit, { kind: 'bucket', rate: 2.5, burst: 3 })
  })
})

describe('listener threads share one count', () => {
  test('four worker threads each calling 20,000 times at once against a quota of 40,000 are allowed exactly 40,000', async () => {
    const config = limits([{ name: 'global', key: 'global', count: 40_000, windowSeconds: 3600 }])
    const main = new RateLimiter(config)
    // Each thread waits on `go` until all are ready, so that their calls overlap.
    const source = `
      const { workerData, parentPort } = require('node:worker_threads')
      if (workerData.module.endsWith('.ts')) require('tsx/cjs')
      const { RateLimiter, RateLimited } = require(workerData.module)
      const l = new RateLimiter(workerData.config, workerData.shared)
      const keys = { limitUser: () => '', limitCertificate: () => '', limitAddress: () => '127.0.0.1' }
      const go = new Int32Array(workerData.go)
      Atomics.add(go, 1, 1)
      Atomics.wait(go, 0, 0)
      let ok = 0
      for (let k = 0; k < 20000; k++) if (!(l.check('example', 'calculator', 'multiply', 'ROA', keys) instanceof RateLimited)) ok++
      parentPort.postMessage(ok)
    `
    const module = require.resolve('../../../../src/gateway/admission/rate-limits')
    const go = new Int32Array(new SharedArrayBuffer(8))
    // A thread that fails before it is ready fails the test, rather than leaving it waiting for four.
    let failed: Error | null = null
    const counts = Array.from(
      { length: 4 },
      () =>
        new Promise<number>((resolve, reject) => {
          const w = new Worker(source, {
            eval: true,
            workerData: { module, config, shared: main.store.shared, go: go.buffer }
          })
          w.once('message', resolve)
          w.once('error', (err) => reject((failed = err)))
        })
    )
    while (Atomics.load(go, 1) < 4 && failed === null) await new Promise((r) => setTimeout(r, 5))
    if (failed !== null) throw failed
    Atomics.store(go, 0, 1)
    Atomics.notify(go, 0)
    const total = (await Promise.all(counts)).reduce((a, b) => a + b)
    assert.equal(total, 40_000)
    assert.deepEqual(main.store.totals(0), { allowed: 40_000, limited: 40_000, evicted: 0 })
  })
})
