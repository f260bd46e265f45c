// The listener threads' pure parts: the cores "auto" counts, the shared bounds, and the threads'
// counts added into one set of totals.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cgroupQuota, usableCores } from '../../../../src/common/process/cores'
import { CallBounds } from '../../../../src/gateway/invoke/bounds'
import { addedRoutes, routeCounts, RouteStats } from '../../../../src/gateway/invoke/call-telemetry'
import { testConfig } from '../../../helpers/platform'

describe('cores and "auto"', () => {
  const cgroup = (files: Record<string, string>): string => {
    const root = mkdtempSync(join(tmpdir(), 'cgroup-'))
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(join(root, name, '..'), { recursive: true })
      writeFileSync(join(root, name), text)
    }
    return root
  }

  test('cgroup v2 cpu.max and v1 cfs quota in cores; no quota is null', () => {
    assert.equal(cgroupQuota(cgroup({ 'cpu.max': '150000 100000\n' })), 1.5)
    assert.equal(cgroupQuota(cgroup({ 'cpu.max': 'max 100000\n' })), null)
    assert.equal(cgroupQuota(cgroup({ 'cpu/cpu.cfs_quota_us': '200000\n', 'cpu/cpu.cfs_period_us': '100000\n' })), 2)
    assert.equal(cgroupQuota(cgroup({ 'cpu/cpu.cfs_quota_us': '-1\n', 'cpu/cpu.cfs_period_us': '100000\n' })), null)
    assert.equal(cgroupQuota(cgroup({})), null)
  })

  test('usable cores: a quota of half a core is one core; "auto" threads count them', () => {
    assert.equal(usableCores(cgroup({ 'cpu.max': '50000 100000' })), 1)
    assert.equal(
      testConfig({ ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { threads: 'auto' } } }).gateway.threads,
      usableCores()
    )
    assert.equal(testConfig({ EDGE: { threads: 3 } }).edge.threads, 3)
    assert.throws(() => testConfig({ ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { threads: 0 } } }), /threads/)
  })
})

describe('shared bounds', () => {
  test('two views of one memory admit against one total', () => {
    const a = new CallBounds(3, 100)
    const b = new CallBounds(3, 100, a.shared)
    assert.equal(a.enter(), true)
    assert.equal(b.enter(), true)
    assert.equal(a.enter(), true)
    assert.equal(b.enter(), false)
    assert.equal(a.inFlight, 3)
    assert.equal(a.reserve(60), true)
    assert.equal(b.reserve(60), false)
    assert.equal(b.bodyBytes, 60)
    a.unreserve(60)
    b.leave()
    assert.equal(a.inFlight, 2)
    assert.equal(b.bodyBytes, 0)
  })

  test('body bytes up to the bound exactly are admitted; past it, held bytes still admit an empty body', () => {
    const a = new CallBounds(3, 100)
    assert.equal(a.reserve(100), true, 'the bound itself is within the bound')
    assert.equal(a.reserve(1), false)
    assert.equal(a.bodyBytes, 100)
    a.unreserve(100)
    // A body read before its call was admitted is counted past the bound; an empty one still goes.
    a.hold(150)
    assert.equal(a.reserve(0), true)
    assert.equal(a.bodyBytes, 150)
  })
})

test("threads' route counts add up into one set of totals", () => {
  const a = new RouteStats('example', 'calculator', 'multiply')
  a.ok200 = 3
  a.count = 4
  a.failures.set('OVERLOADED', new Map([[503, 1]]))
  a.buckets[0] = 4
  const b = new RouteStats('example', 'calculator', 'multiply')
  b.ok200 = 5
  b.count = 6
  b.failures.set('OVERLOADED', new Map([[503, 1]]))
  b.buckets[1] = 6
  const [sum, ...rest] = addedRoutes([[a], [routeCounts(b)]])
  assert.equal(rest.length, 0)
  assert.equal(sum!.ok200, 8)
  assert.equal(sum!.count, 10)
  assert.deepEqual([...sum!.failures.get('OVERLOADED')!], [[503, 2]])
  assert.deepEqual([sum!.buckets[0], sum!.buckets[1]], [4, 6])
})
