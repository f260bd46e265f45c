// The adaptive limit on samples the test makes: cut in proportion when round trips pass the
// tolerance, grown only while in use, never under minLimit, priority calls given the last share, and
// the unloaded latency taken from the last two baseline periods.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { AdaptiveLimit, Admission } from '../../../../src/gateway/admission/concurrency'
import { testConfig } from '../../../helpers/platform'
import type { AdmissionSection } from '../../../../src/common/config/config'

function settings(over: Partial<AdmissionSection> = {}): AdmissionSection {
  return { ...testConfig({ ADMISSION: { adaptive: true } }).admission, ...over }
}

/** `n` calls in flight, each answered after `ms`, in windows of 50 ms from `start`. */
function windowOf(l: AdaptiveLimit, n: number, ms: number, start: number): number {
  for (let k = 0; k < n; k++) assert.ok(l.tryAcquire(false) || k >= Math.floor(l.limit * 0.75))
  for (let k = 0; k < n; k++) {
    l.sample(ms, start + k)
    l.release()
  }
  return start + 50
}

describe('an adaptive limit', () => {
  test('holds while round trips stay within tolerance, and grows while in use', () => {
    const l = new AdaptiveLimit(settings())
    let now = 1000
    l.sample(10, now) // the first round trip: unloaded 10 ms
    for (let w = 0; w < 5; w++) now = windowOf(l, 12, 12, now)
    assert.ok(l.limit > 20, `limit ${l.limit}`)
    assert.equal(l.unloadedMs, 10)
  })

  test('does not grow when the calls use less than half of it', () => {
    const l = new AdaptiveLimit(settings())
    let now = 1000
    for (let w = 0; w < 10; w++) now = windowOf(l, 3, 10, now)
    assert.equal(l.limit, 20)
  })

  test('is cut in proportion when calls queue (by half at most), down to minLimit', () => {
    const l = new AdaptiveLimit(settings())
    l.sample(10, 1000)
    // Threshold 1.5 × 10 + 2 = 17 ms; a mean of 34 ms cuts by half.
    l.sample(34, 1050)
    assert.equal(l.limit, 10)
    l.sample(20.4, 1100)
    assert.equal(l.limit, 10 * (17 / 20.4))
    for (let t = 1150; t < 3000; t += 50) l.sample(1000, t)
    assert.equal(l.limit, 2)
  })

  test('a pause that slows the few calls in flight cuts nothing: the median judges, the mean only sizes a cut', () => {
    const l = new AdaptiveLimit(settings())
    l.sample(1, 1000) // unloaded 1 ms: threshold 1.5 × 1 + 2 = 3.5 ms
    // A window of 40 calls at 1 ms and 4 held 100 ms by a pause: a mean of 10 ms, a median of 1 ms.
    for (let k = 0; k < 44; k++) l.sample(k < 40 ? 1 : 100, 1001 + k)
    l.sample(1, 1050)
    assert.equal(l.limit, 20)
    // Most of a window slowed (queueing): cut, by the window's mean.
    for (let k = 0; k < 10; k++) l.sample(k < 4 ? 1 : 7, 1051 + k)
    l.sample(7, 1100)
    assert.equal(l.limit, 20 * ((3.5 / (4 * 1 + 7 * 7)) * 11))
  })

  test('priority calls may use the whole limit, others the first 75 %', () => {
    const l = new AdaptiveLimit(settings({ initialLimit: 8, priority: { users: ['vip'], privilegeNames: [] } }))
    let admitted = 0
    while (l.tryAcquire(false)) admitted++
    assert.equal(admitted, 6)
    assert.ok(l.tryAcquire(true))
    assert.ok(l.tryAcquire(true))
    assert.ok(!l.tryAcquire(true))
  })

  test('with no priority caller configured, every call may use the whole limit', () => {
    const l = new AdaptiveLimit(settings({ initialLimit: 8 }))
    let admitted = 0
    while (l.tryAcquire(false)) admitted++
    assert.equal(admitted, 8)
  })

  test('the unloaded latency is the least of the last two periods: a slower baseline is learnt', () => {
    const l = new AdaptiveLimit(settings({ baselineMs: 1000 }))
    l.sample(5, 0)
    l.sample(50, 500)
    assert.equal(l.unloadedMs, 5)
    l.sample(50, 1000) // a new period
    assert.equal(l.unloadedMs, 5)
    l.sample(50, 2000) // and another: 5 ms is two periods ago
    assert.equal(l.unloadedMs, 50)
  })
})

test('priority: users and privilege names of ADMISSION.priority', () => {
  const a = new Admission(settings({ priority: { users: ['vip'], privilegeNames: ['admin'] } }))
  assert.equal(a.isPriority('vip', []), true)
  assert.equal(a.isPriority('', ['reader', 'admin']), true)
  assert.equal(a.isPriority('someone', ['reader']), false)
})

// Each rule at its edge: the cases Stryker's mutants of concurrency.ts survived (docs/development.md,
// "Mutation testing"). Defaults: initialLimit 20, maxLimit 1000, tolerance 1.5, slackMs 2, windowMs 50.
describe('an adaptive limit at the edge of each rule', () => {
  test('priority configured by privilege names alone still keeps the last share for it', () => {
    const l = new AdaptiveLimit(settings({ initialLimit: 8, priority: { users: [], privilegeNames: ['gold'] } }))
    let admitted = 0
    while (l.tryAcquire(false)) admitted++
    assert.equal(admitted, 6)
  })

  test('a round trip at the threshold exactly is not over it, warming or not; a warming one above it is left out', () => {
    const l = new AdaptiveLimit(settings())
    l.sample(10, 0) // unloaded 10 ms: threshold 1.5 × 10 + 2 = 17 ms
    l.sample(100, 10)
    l.sample(100, 11)
    l.sample(17, 12, true)
    l.sample(17, 13, true)
    // Above the threshold on a warming connection: not counted at all (counted, 4 of 7 would cut).
    l.sample(400, 14, true)
    l.sample(400, 15, true)
    l.sample(17, 50) // the window ends: 2 over of 5, no cut
    assert.equal(l.limit, 20)
  })

  test('half the window over the threshold is not most of it: no cut', () => {
    const l = new AdaptiveLimit(settings())
    l.sample(10, 0)
    l.sample(100, 10)
    l.sample(10, 50)
    assert.equal(l.limit, 20)
  })

  test('a faster round trip lowers the unloaded latency at once, within its period', () => {
    const l = new AdaptiveLimit(settings())
    l.sample(10, 0)
    l.sample(5, 1)
    assert.equal(l.unloadedMs, 5)
  })

  test('a period ends at its end exactly: samples at 0, one period and two periods learn the middle one', () => {
    const l = new AdaptiveLimit(settings({ baselineMs: 1000 }))
    l.sample(10, 0)
    l.sample(20, 1000)
    l.sample(30, 2000)
    assert.equal(l.unloadedMs, 20)
  })

  test('the limit grows by half its square root when half of it was in use, and never past maxLimit', () => {
    const grown = (initialLimit: number, inUse: number): number => {
      const l = new AdaptiveLimit(settings({ initialLimit }))
      l.sample(10, 0)
      for (let k = 0; k < inUse; k++) assert.ok(l.tryAcquire(false))
      for (let k = 0; k < inUse; k++) l.release()
      l.sample(10, 50)
      return l.limit
    }
    assert.equal(grown(20, 10), 20 + Math.sqrt(20) / 2)
    assert.equal(grown(20, 9), 20)
    assert.equal(grown(999, 500), 1000)
  })
})

test("every method's limit is listed for the metrics under its own route", () => {
  const a = new Admission(settings())
  const method = (name: string) =>
    ({ service: 'calculator', name, parameterCount: 2, returnsVoid: false, needsPrivilege: false }) as const
  const add = method('add')
  a.of('example', add)
  a.of('example', method('multiply'))
  a.of('example', add)
  assert.deepEqual(
    [...a.entries()].map((e) => `${e.microservice}/${e.method.name}`),
    ['example/add', 'example/multiply']
  )
})

test('a caller with no user is never a priority user, even when the list has an empty name', () => {
  const a = new Admission(settings({ priority: { users: [''], privilegeNames: [] } }))
  assert.equal(a.isPriority('', []), false)
})
