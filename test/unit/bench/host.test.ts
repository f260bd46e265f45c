// What the e2e bench records of the machine under a run: the host's steal between two readings of
// /proc/stat, and the idle policy that decides what a wake-up of an idle core costs.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { coreTimes, hostMachine, machineLine, stealShare } from '../../../bench/e2e/harness/host'

test("the cores' times come from /proc/stat and grow; steal is a share of them", () => {
  const a = coreTimes()
  let spin = 0
  for (const end = Date.now() + 50; Date.now() < end;) spin++
  const b = coreTimes()
  assert.ok(spin > 0 && a.total > 0 && b.total > a.total, `${a.total} → ${b.total}`)
  assert.ok(b.steal >= a.steal && b.steal <= b.total)
  const share = stealShare(a, b)
  assert.ok(share >= 0 && share <= 1, String(share))
  assert.equal(stealShare({ total: 100, steal: 10 }, { total: 300, steal: 60 }), 0.25)
  assert.equal(stealShare(a, a), 0)
})

test('the machine: its CPU, cores and kernel; the idle policy as this kernel exposes it', () => {
  const m = hostMachine()
  assert.match(m.cpu, /\(family \S+, model \S+\)$/)
  assert.ok(m.cores >= 1 && m.kernel.length > 0)
  assert.ok(m.haltPollNs === null || Number.isInteger(m.haltPollNs))
  assert.match(machineLine(m), /^machine: .+, \d+ cores, kernel \S+, (cpuidle not exposed|idle governor \S+)/)
  assert.equal(
    machineLine({ ...m, idleGovernor: 'menu', haltPollNs: null }),
    `machine: ${m.cpu}, ${m.cores} cores, kernel ${m.kernel}, idle governor menu`
  )
  assert.match(machineLine({ ...m, idleGovernor: 'haltpoll', haltPollNs: 200000 }), /guest halt polling 200 µs$/)
})
