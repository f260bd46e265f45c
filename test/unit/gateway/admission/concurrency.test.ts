// The adaptive limit on samples the test makes: cut in proportion when round trips pass the
// tolerance, grown only while in use, never under minLimit, priority calls given the last share, and
// the unloaded latency taken from the last two baseline periods.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { AdaptiveLimit, Admission } from '../../../../src/gateway/admission/concurrency'
import { testConfig } from '../../../helpers/platform'
import type { AdmissionSection } from '../../../../src/gateway/config/config'

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
