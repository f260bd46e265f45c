// Instructions per call of each process's per-call path, counted under valgrind's callgrind:
// the microservice host's (bench/stage-loop.ts: Invoke frame decoded, call run, Result frame encoded)
// and the gateway's in the CPU gate's three profiles (bench/gateway-stage-loop.ts: straight, through
// the edge, with the access log and metrics on). V8 runs single-threaded (--single-threaded:
// compilation and GC on the main thread, in program order), so once warm every round executes the
// same instructions whatever the machine's load: the count moves when the code does. The gate
// compares each with the baseline's (bench/gate.ts).
//   node dist/bench/stage-instructions.js [--rounds 3] [--calls 2000] [--warmup 20000] [--dist DIR] [--json FILE]
//     [--stages 'gateway call,gateway limited'] (also: gateway limited, a call that one rate-limit rule counts;
//     gateway metered and gateway sampled, metrics alone and with the access log of errors and slow calls only)
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { release, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { hostEnv } from '../src/microservice/host/host-env'
import { control, counts } from './instructions'
import { waitFor, median } from './child-output'
import { cpuInfo } from './e2e/harness/host'
import { arg, runMain, writeJsonIfAsked } from './cli'

const ROOT = join(__dirname, '..', '..')

/**
 * The stages counted, each in a process of its own (one profile warmed alone: the profiles share
 * the pipeline's code, and switching between them in one process deoptimizes it for a while).
 * `profile` is the word its loop takes on its input.
 */
export const STAGES = [
  { name: 'microservice', loop: 'stage-loop.js', profile: 'microservice' },
  { name: 'gateway call', loop: 'gateway-stage-loop.js', profile: 'call' },
  { name: 'gateway edge', loop: 'gateway-stage-loop.js', profile: 'edge' },
  { name: 'gateway observed', loop: 'gateway-stage-loop.js', profile: 'observed' }
] as const

/** Stages counted on request (--stages), outside the gate: the call path with one rate-limit rule. */
const OTHER_STAGES = [
  { name: 'gateway limited', loop: 'gateway-stage-loop.js', profile: 'limited' },
  // What the access log costs: metrics alone, and metrics with the log of errors and slow calls only.
  { name: 'gateway metered', loop: 'gateway-stage-loop.js', profile: 'metered' },
  { name: 'gateway sampled', loop: 'gateway-stage-loop.js', profile: 'sampled' }
] as const

type Stage = (typeof STAGES)[number] | (typeof OTHER_STAGES)[number]

const SETTLING_ROUNDS = 3

export type StageName = (typeof STAGES)[number]['name']
export const STAGE_NAMES: readonly StageName[] = STAGES.map((s) => s.name)

export interface StageResult {
  stage: Stage['name']
  /** The median round's instructions per call. */
  instructions: number
  rounds: number[]
}

export interface StageOptions {
  /** The built tree whose loops are counted (its bench/ and examples/). */
  dist: string
  rounds: number
  calls: number
  warmup: number
}

/** Every stage of the gate counted (or those named), the microservice host's first. */
export async function measureStages(o: StageOptions, stages: readonly Stage[] = STAGES): Promise<StageResult[]> {
  execFileSync('bash', [join(ROOT, 'scripts', 'ensure-debian.sh'), 'valgrind:valgrind'], { stdio: 'inherit' })
  const results: StageResult[] = []
  for (const s of stages) results.push(await countStage(s, o))
  return results
}

/**
 * What an instruction count may depend on besides the code: the CPU (its model and flags pick the
 * library routines V8 and libc run, where valgrind lets them), the kernel and valgrind itself.
 */
export interface CountingMachine {
  cpu: string
  flags: string
  kernel: string
  valgrind: string
}

/** This machine, as a baseline of counts records it (valgrind must be installed: measureStages does it). */
export function countingMachine(): CountingMachine {
  const { cpu, flags } = cpuInfo()
  return {
    cpu,
    flags,
    kernel: release(),
    valgrind: execFileSync('valgrind', ['--version'], { encoding: 'utf8' }).trim()
  }
}

/** One stage's loop under callgrind: warmed up, then `rounds` counted rounds of `calls`. */
async function countStage(s: Stage, o: StageOptions): Promise<StageResult> {
  const outDir = mkdtempSync(join(tmpdir(), 'bench-stage-'))
  let child: ChildProcess | null = null
  try {
    child = spawn(
      'valgrind',
      [
        '--tool=callgrind',
        '--instr-atstart=no',
        `--callgrind-out-file=${join(outDir, 'callgrind.%p')}`,
        process.execPath,
        '--single-threaded',
        join(o.dist, 'bench', s.loop),
        join(o.dist, 'examples', 'example'),
        s.profile,
        String(o.warmup)
      ],
      // The example resolves invocation-gateway/runtime as in a host process: through NODE_PATH.
      { env: hostEnv(), stdio: ['pipe', 'pipe', 'pipe'] }
    )
    await waitFor(child, /^warm$/m, `the ${s.name} loop under callgrind`, 300_000)
    const pid = child.pid!
    // Rounds asked from here run the calls from an event's callback, not the top level where the
    // warm-up ran: the first ones after it still cost up to 1.6 times as much, so three go uncounted.
    for (let r = 0; r < SETTLING_ROUNDS; r++) {
      const done = waitFor(child, /^done$/m, `a settling round of ${s.name} calls`, 300_000)
      child.stdin!.write(`${o.calls}\n`)
      await done
    }
    const rounds: number[] = []
    for (let r = 0; r < o.rounds; r++) {
      control(['-z'], [pid])
      control(['-i', 'on'], [pid])
      const done = waitFor(child, /^done$/m, `a round of ${s.name} calls`, 300_000)
      child.stdin!.write(`${o.calls}\n`)
      await done
      const n = counts([pid]).get(pid)!
      control(['-i', 'off'], [pid])
      rounds.push(n / o.calls)
    }
    return { stage: s.name, instructions: median(rounds), rounds }
  } finally {
    if (child !== null && child.exitCode === null) child.kill('SIGKILL')
    rmSync(outDir, { recursive: true, force: true })
  }
}

async function main(): Promise<void> {
  const all: readonly Stage[] = [...STAGES, ...OTHER_STAGES]
  const named = arg('stages', STAGE_NAMES.join(',')).split(',')
  const unknown = named.filter((n) => !all.some((s) => s.name === n))
  if (unknown.length > 0) throw new Error(`no stage ${unknown.join(', ')}: ${all.map((s) => s.name).join(', ')}`)
  const results = await measureStages(
    {
      dist: resolve(arg('dist', join(__dirname, '..'))),
      rounds: Number(arg('rounds', '3')),
      calls: Number(arg('calls', '2000')),
      warmup: Number(arg('warmup', '20000'))
    },
    all.filter((s) => named.includes(s.name))
  )
  for (const r of results)
    console.log(
      `${r.stage.padEnd(16)} ${Math.round(r.instructions)} instructions per call (rounds ${r.rounds.map((x) => Math.round(x)).join(', ')})`
    )
  writeJsonIfAsked(results)
}

runMain(module, main)
