// The performance gate catches a 10 % CPU regression of the per-call path, in the gateway and
// separately in the microservice host, and passes the code as it is (issue 25). Each run is the real
// gate (`--only cpu`: straight, through the edge, with the access log and metrics on) on a built copy;
// the slowed copies have a busy wait written into their compiled per-call path.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { slowedCopy } from '../helpers/slowed-copy'
import type { GateVerdict } from '../../bench/gate-report'
import type { CpuResult } from '../../bench/cpu-per-call'

interface GateRun {
  code: number
  out: string
  verdict: GateVerdict
  cpu: CpuResult[]
}

const copies: string[] = []
after(() => {
  for (const c of copies) rmSync(c, { recursive: true, force: true })
})

function gate(copy: string, args: string[]): Promise<GateRun> {
  const json = join(copy, 'gate.json')
  // Coverage instrumentation (c8 passes NODE_V8_COVERAGE down) would change what is measured.
  const env = { ...process.env }
  delete env.NODE_V8_COVERAGE
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [join(copy, 'dist', 'bench', 'gate.js'), '--only', 'cpu', '--json', json, ...args],
      { env, maxBuffer: 16 * 2 ** 20 },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1
        try {
          const report = JSON.parse(readFileSync(json, 'utf8')) as { verdict: GateVerdict; cpu: CpuResult[] }
          resolve({ code, out: stdout + stderr, verdict: report.verdict, cpu: report.cpu })
        } catch {
          reject(new Error(`the gate wrote no report (exit ${code}): ${stdout}${stderr}`))
        }
      }
    )
  })
}

let unchanged: GateRun | null = null

async function unchangedRun(): Promise<GateRun> {
  if (unchanged === null) {
    const copy = slowedCopy(null, 0)
    copies.push(copy)
    unchanged = await gate(copy, [])
  }
  return unchanged
}

/** 10 % of what the process spends per call, measured on the unchanged copy (the straight profile). */
async function tenPercentNs(proc: 'gateway' | 'microservice'): Promise<number> {
  const call = (await unchangedRun()).cpu.find((c) => c.profile === 'call')
  assert.ok(call !== undefined, 'the unchanged run measured the call profile')
  return 100 * (proc === 'gateway' ? call.gatewayUs : call.microserviceUs)
}

test('the gate passes the code as it is', { timeout: 180_000 }, async () => {
  const r = await unchangedRun()
  assert.equal(r.code, 0, r.out)
  assert.equal(r.verdict.passed, true)
  assert.deepEqual(
    r.verdict.cpu.map((v) => `${v.profile} ${v.process} ${v.status}`),
    [
      'call gateway pass',
      'call microservice pass',
      'edge gateway pass',
      'edge microservice pass',
      'observed gateway pass',
      'observed microservice pass'
    ]
  )
})

for (const proc of ['gateway', 'microservice'] as const) {
  const other = proc === 'gateway' ? 'microservice' : 'gateway'
  test(
    `a 10 % CPU slowdown in the ${proc}'s per-call path fails the gate, on its first attempt`,
    { timeout: 180_000 },
    async () => {
      const ns = await tenPercentNs(proc)
      const copy = slowedCopy(proc, ns)
      copies.push(copy)
      const r = await gate(copy, ['--profiles', 'call', '--attempts', '1'])
      assert.equal(r.code, 1, r.out)
      assert.equal(r.verdict.passed, false)
      const status = (p: string): string | undefined => r.verdict.cpu.find((v) => v.process === p)?.status
      assert.equal(status(proc), 'fail', r.out)
      // The slowdown is charged to the process that has it.
      assert.equal(status(other), 'pass', r.out)
      assert.match(
        r.verdict.failures.join('\n'),
        new RegExp(`cpu call ${proc}: [\\d.]+× the ceiling's CPU per call, above`)
      )
    }
  )
}
