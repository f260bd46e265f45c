// Instructions per call of the microservice host's per-call path (bench/stage-loop.ts: Invoke frame
// decoded, call run, Result frame encoded), counted under valgrind's callgrind on the main thread.
// V8 runs single-threaded (--single-threaded: compilation and GC on the main thread, in program
// order), so once warm every round executes the same instructions whatever the machine's load: the
// count moves only when the code does. The gate compares it with the baseline's (bench/gate.ts).
//   node dist/bench/stage-instructions.js [--rounds 3] [--calls 2000] [--warmup 20000] [--dist DIR] [--json FILE]
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { hostEnv } from '../src/microservice/host-env'
import { control, counts } from './instructions'
import { waitFor, median } from './child-output'
import { arg, runMain, writeJsonIfAsked } from './cli'

const ROOT = join(__dirname, '..', '..')

export interface StageResult {
  stage: 'microservice'
  /** The median round's instructions per call. */
  instructions: number
  rounds: number[]
}

export async function measureStage(o: {
  dist: string
  rounds: number
  calls: number
  warmup: number
}): Promise<StageResult> {
  execFileSync('bash', [join(ROOT, 'scripts', 'ensure-debian.sh'), 'valgrind:valgrind'], { stdio: 'inherit' })
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
        join(o.dist, 'bench', 'stage-loop.js'),
        join(o.dist, 'examples', 'example'),
        String(o.warmup)
      ],
      // The example resolves invocation-gateway/runtime as in a host process: through NODE_PATH.
      { env: hostEnv(), stdio: ['pipe', 'pipe', 'pipe'] }
    )
    await waitFor(child, /^warm$/m, 'the per-call loop under callgrind', 300_000)
    const pid = child.pid!
    const rounds: number[] = []
    for (let r = 0; r < o.rounds; r++) {
      control(['-z'], [pid])
      control(['-i', 'on'], [pid])
      const done = waitFor(child, new RegExp(`^(done)$`, 'm'), 'a round of calls', 300_000)
      child.stdin!.write(`${o.calls}\n`)
      await done
      const n = counts([pid]).get(pid)!
      control(['-i', 'off'], [pid])
      rounds.push(n / o.calls)
    }
    return { stage: 'microservice', instructions: median(rounds), rounds }
  } finally {
    if (child !== null && child.exitCode === null) child.kill('SIGKILL')
    rmSync(outDir, { recursive: true, force: true })
  }
}

async function main(): Promise<void> {
  const r = await measureStage({
    dist: resolve(arg('dist', join(__dirname, '..'))),
    rounds: Number(arg('rounds', '3')),
    calls: Number(arg('calls', '2000')),
    warmup: Number(arg('warmup', '20000'))
  })
  console.log(
    `microservice per-call path: ${Math.round(r.instructions)} instructions per call (rounds ${r.rounds.map((x) => Math.round(x)).join(', ')})`
  )
  writeJsonIfAsked(r)
}

runMain(module, main)
