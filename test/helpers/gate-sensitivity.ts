// The proof that the performance gate's CPU part fails on a CPU regression of the per-call path
// (issue 25): the real gate (`--only cpu`, the committed baseline, one attempt) on a built copy of the
// project with more work per call written into its compiled code. One test file per process, so that each
// stays within the runner's per-file time.
import { after } from 'node:test'
import assert from 'node:assert/strict'
import { runFile } from './exec'
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { gateIn, slowedCopy, slowdownNs } from '../../bench/slowed-copy'
import { uncovered } from './uncovered-env'
import type { CpuResult } from '../../bench/cpu-per-call'

const copies: string[] = []
after(() => {
  for (const c of copies) rmSync(c, { recursive: true, force: true })
})

/** What the unchanged code spends per call (the straight call's figures), by the gate's own measure. */
let measured: Promise<CpuResult> | null = null

function unchangedCall(): Promise<CpuResult> {
  measured ??= (async () => {
    const copy = slowedCopy(null, 0)
    copies.push(copy)
    const json = join(copy, 'cpu.json')
    const r = await runFile(
      process.execPath,
      [join(copy, 'dist', 'bench', 'cpu-per-call.js'), '--profiles', 'call', '--json', json],
      uncovered()
    )
    if (r.code !== 0) throw new Error(`the unchanged copy was not measured: ${r.stdout}${r.stderr}`)
    const call = (JSON.parse(readFileSync(json, 'utf8')) as CpuResult[]).find((c) => c.profile === 'call')
    if (call === undefined) throw new Error(`the unchanged run measured no call profile: ${r.stdout}`)
    return call
  })()
  return measured
}

/** `percent` % more CPU in `proc`'s per-call path fails the gate on its first attempt. */
export async function slowdownFailsTheGate(proc: 'gateway' | 'microservice', percent: number): Promise<void> {
  const call = await unchangedCall()
  // Work taking that share of what the process spends per call, in the copy's compiled code.
  const copy = slowedCopy(proc, slowdownNs(call, proc, percent))
  copies.push(copy)
  const r = await gateIn(copy, ['--only', 'cpu', '--attempts', '1'])
  assert.equal(r.code, 1, r.out)
  assert.equal(r.verdict.passed, false)
  assert.deepEqual(
    r.verdict.cpu.map((v) => `${v.profile} ${v.process}`),
    [
      'call gateway',
      'call microservice',
      'edge gateway',
      'edge microservice',
      'observed gateway',
      'observed microservice',
      'instructions microservice',
      'instructions gateway call',
      'instructions gateway edge',
      'instructions gateway observed'
    ]
  )
  assert.ok(
    r.verdict.failures.length > 0 &&
      r.verdict.failures.every((f) =>
        /^(cpu \w+ \w+: [\d.]+× the ceiling's CPU per call|instructions [\w ]+: \d+ a call on the per-call path), above/.test(
          f
        )
      ),
    r.out
  )
  // Each count sees only its own process's code: the slowed process's paths fail, the other's pass.
  const counted = r.verdict.cpu.filter((v) => v.profile === 'instructions')
  assert.deepEqual(
    counted.map((v) => `${v.process} ${v.status}`),
    ['microservice', 'gateway call', 'gateway edge', 'gateway observed'].map(
      (stage) => `${stage} ${stage.startsWith(proc) ? 'fail' : 'pass'}`
    ),
    r.out
  )
}
