// The cores "auto" counts: a cgroup's quota (v2 cpu.max, v1 cfs) in cores, at least one usable.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cgroupQuota, usableCores } from '../../../../src/common/process/cores'
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
