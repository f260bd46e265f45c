// Which calls get an access-log line: every refused, failed or slow one, and an even share of the rest.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { AccessSampling, EVERY_CALL, accessSampling } from '../../../../src/gateway/invoke/access-sampling'

function taken(s: AccessSampling, calls: Array<[string, number]>): number {
  return calls.filter(([code, ms]) => s.takes(code, ms)).length
}

const fast = (n: number): Array<[string, number]> => Array.from({ length: n }, () => ['', 1] as [string, number])

test('a share of the answered fast calls, evenly: 0.25 of 1000 is 250, and no two in a row', () => {
  const s = new AccessSampling(0.25, 1000)
  const picks = fast(1000).map(([code, ms]) => s.takes(code, ms))
  assert.equal(picks.filter(Boolean).length, 250)
  assert.ok(!picks.some((p, k) => p && picks[k + 1] === true))
  assert.equal(taken(new AccessSampling(0.01, 1000), fast(1000)), 10)
})

test('refused, failed and slow calls always get a line; share 0 logs only those', () => {
  const s = new AccessSampling(0, 200)
  assert.equal(taken(s, fast(500)), 0)
  assert.equal(s.takes('OVERLOADED', 1), true)
  assert.equal(s.takes('CLIENT_CLOSED', 1), true)
  assert.equal(s.takes('', 200), true)
  assert.equal(s.takes('', 199.9), false)
})

test('share 1, the default, logs every call; the config picks the sampling', () => {
  assert.equal(taken(EVERY_CALL, fast(100)), 100)
  assert.equal(accessSampling({ accessLogSample: 1, accessLogSlowMs: 1000 }), EVERY_CALL)
  const s = accessSampling({ accessLogSample: 0.5, accessLogSlowMs: 300 })
  assert.equal(s.share, 0.5)
  assert.equal(s.slowMs, 300)
  assert.equal(taken(s, fast(10)), 5)
})
