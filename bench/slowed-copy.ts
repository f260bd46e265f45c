// A built copy of the project with a CPU slowdown put into one process's per-call path: the proof
// that the performance gate catches a regression (bench/gate.ts). The slowdown is work, as a
// real regression is: a loop of arithmetic whose length is calibrated here to take a given number of
// nanoseconds, written into the copy's compiled JavaScript (src/ has no switch for it). Not a wait on
// the clock: under callgrind, which runs code tens of times slower, a clock-bound wait would do almost
// nothing per call and the instruction count could not see it.
import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import type { CpuResult } from './cpu-per-call'
import type { GateVerdict } from './gate-report'

/** The project's root, seen from the compiled bench (dist/bench) or from its source (run through tsx). */
const ABOVE_BENCH = join(__dirname, '..')
export const ROOT = basename(ABOVE_BENCH) === 'dist' ? dirname(ABOVE_BENCH) : ABOVE_BENCH

/** Where each process's per-call path starts in the compiled code: a file and a line there. */
export const PER_CALL = {
  gateway: { file: join('dist', 'src', 'gateway', 'invoke', 'invoke.js'), anchor: '    begin(body) {\n' },
  microservice: { file: join('dist', 'src', 'microservice', 'host', 'executor.js'), anchor: '    execute(inv, ex) {\n' }
} as const

/**
 * A copy of the project (dist copied, everything else linked; bench/ holds only the baseline, so the
 * copy's gate history stays in the copy) with `ns` nanoseconds of busy CPU per call in `process`
 * (none with ns = 0). Returns the copy's root.
 */
export function slowedCopy(process: keyof typeof PER_CALL | null, ns: number): string {
  const copy = mkdtempSync(join(tmpdir(), 'igw-slowed-copy-'))
  for (const name of readdirSync(ROOT)) {
    if (name === 'dist' || name === 'bench' || name === 'coverage' || name === 'reports' || name.startsWith('.'))
      continue
    symlinkSync(join(ROOT, name), join(copy, name))
  }
  cpSync(join(ROOT, 'dist'), join(copy, 'dist'), { recursive: true })
  mkdirSync(join(copy, 'bench'))
  cpSync(join(ROOT, 'bench', 'baseline.json'), join(copy, 'bench', 'baseline.json'))
  if (process !== null && ns > 0) {
    const { file, anchor } = PER_CALL[process]
    const path = join(copy, file)
    const code = readFileSync(path, 'utf8')
    const at = code.indexOf(anchor)
    if (at < 0 || code.indexOf(anchor, at + 1) >= 0)
      throw new Error(`${file}: the per-call anchor ${JSON.stringify(anchor)} is not there exactly once (moved?)`)
    const spin = `        ${workLoop(iterationsFor(ns))}\n`
    writeFileSync(path, code.slice(0, at + anchor.length) + spin + code.slice(at + anchor.length))
  }
  return copy
}

/** The injected work: `n` rounds of a hash kept in a global, so that the optimizer cannot drop it. */
function workLoop(n: number): string {
  return `{ let h = globalThis.__slowedCopy | 0; for (let i = 0; i < ${n}; i++) h = (Math.imul(h, 31) + i) | 0; globalThis.__slowedCopy = h; }`
}

/** Rounds of workLoop that take `ns` nanoseconds on this machine now (the best of several timings, warm). */
export function iterationsFor(ns: number): number {
  const probe = 200_000
  // The same loop text as the copy runs, so that it is compiled alike.
  const run = new Function(workLoop(probe)) as () => void
  let best = Infinity
  for (let k = 0; k < 30; k++) {
    const t = process.hrtime.bigint()
    run()
    best = Math.min(best, Number(process.hrtime.bigint() - t))
  }
  return Math.max(1, Math.round((ns / best) * probe))
}

/** `percent` % of what `process` spends a call by the gate's own measure (the straight call), in ns. */
export function slowdownNs(call: CpuResult, process: keyof typeof PER_CALL, percent: number): number {
  return Math.round(percent * 10 * (process === 'gateway' ? call.gatewayUs : call.microserviceUs))
}

export interface GateRun {
  code: number
  out: string
  verdict: GateVerdict
  cpu: CpuResult[]
}

/** The real gate run in a copy, on the copy's build and baseline; its verdict from the report it writes. */
export function gateIn(copy: string, args: string[]): Promise<GateRun> {
  const json = join(copy, 'gate.json')
  rmSync(json, { force: true })
  return new Promise((resolve, reject) => {
    // Without coverage: c8's NODE_V8_COVERAGE would make the counted children count their blocks, and
    // an empty value, not a missing key, is what turns it off (test/helpers/uncovered-env.ts).
    execFile(
      process.execPath,
      [join(copy, 'dist', 'bench', 'gate.js'), '--json', json, ...args],
      { env: { ...process.env, NODE_V8_COVERAGE: '' }, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1
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
