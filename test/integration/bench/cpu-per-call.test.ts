// The gate's CPU per call is measured with every process on one core (bench/cpu-per-call.ts): the
// ceiling, the platform and its microservice host run there while they are measured, and the
// measuring process gets its own cores back afterwards.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { measureCpu } from '../../../bench/cpu-per-call'
import { allowedCpus, hasTaskset } from '../../../bench/e2e/harness/pin'
import { descendantsOf } from '../../../bench/e2e/harness/procstat'

const DIST = join(__dirname, '..', '..', '..')

test('CPU per call: every process measured runs on one core, and the measuring process gets its cores back', async () => {
  assert.ok(hasTaskset(), 'taskset (util-linux) is part of every Debian system')
  const before = allowedCpus()
  const seen = new Map<number, number[]>()
  const results = await measureCpu({
    dist: DIST,
    reference: null,
    rounds: 2,
    calls: 50,
    warmup: 200,
    profiles: ['call'],
    log: (line) => {
      // The profile's line comes while its processes still run.
      if (!line.startsWith('call:')) return
      for (const pid of [process.pid, ...descendantsOf(process.pid)]) seen.set(pid, allowedCpus(pid))
    }
  })
  const core = before[before.length - 1]!
  assert.equal(results[0]!.core, core)
  // The ceiling, the platform's gateway and its microservice host, besides this process.
  assert.ok(seen.size >= 4, `saw ${seen.size} processes`)
  for (const [pid, cpus] of seen) assert.deepEqual(cpus, [core], `process ${pid} ran on cpus ${cpus.join(',')}`)
  assert.deepEqual(allowedCpus(), before)
})
