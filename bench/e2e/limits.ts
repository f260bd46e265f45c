// `npm run bench:limits`: what RATE_LIMITS costs a call. ROA beta JSON multiply at c=64 against
// platforms that differ only in their rules, rounds alternating their order:
//   none    no rules (the shipped config: nothing is counted);
//   local   one rule every call matches, a token bucket by identity that never refuses;
//   quiet   the same rule with RATE_LIMITS.headers off (its fields only on a 429);
//   three   three such rules (a bucket, a per-minute and a per-day quota), each deciding every call;
//   cluster the local rule with scope cluster: calls leased from a Redis (Debian's redis-server,
//           started here on a free port) a hundred at a time.
// Each run has its own ceiling, so drift shows in the gateway/ceiling ratio; the verdict compares
// the gateway's CPU per call and p99 by mode, medians over rounds, as measured and over each run's
// ceiling's CPU per call, which cancels the machine's drift between runs.
//   node dist/bench/e2e/limits.js [--rounds 5] [--duration 5] [--modes none,local,cluster,quiet,three]
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { smallCallRound } from './run'
import { freePort } from './subjects'
import { cpuPerRequest, gatewayCpu } from './tables'
import type { CaseResult } from './results'
import { EVERY_CALL } from '../profiles'
import { arg } from '../cli'

const MODES = {
  none: null,
  local: [EVERY_CALL],
  quiet: [EVERY_CALL],
  three: [
    EVERY_CALL,
    { name: 'minute', key: 'address', count: 1e12, windowSeconds: 60 },
    { name: 'day', key: 'global', count: 1e12, windowSeconds: 86400 }
  ],
  cluster: [{ ...EVERY_CALL, scope: 'cluster' }]
} as const
type Mode = keyof typeof MODES

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const cpuOf = (c: CaseResult): number => gatewayCpu(c.gateway)
/** The gateway's CPU per call over the ceiling's in the same run: the machine's drift between runs cancels. */
const relativeCpuOf = (c: CaseResult): number => {
  const ceiling = cpuPerRequest(c.ceiling)
  return ceiling > 0 ? cpuOf(c) / ceiling : 0
}

/** A Redis of the run's own on a free loopback port, nothing written to disk. */
async function startRedis(): Promise<{ url: string; child: ChildProcess }> {
  execFileSync(
    'bash',
    [join(__dirname, '..', '..', '..', 'scripts', 'ensure-debian.sh'), 'redis-server:redis-server'],
    {
      stdio: 'inherit'
    }
  )
  const port = await freePort()
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: ['ignore', 'pipe', 'inherit']
    }
  )
  await new Promise<void>((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      if (out.includes('Ready to accept connections')) resolve()
    })
    child.once('exit', (code) => reject(new Error(`redis-server exited ${code}: ${out}`)))
  })
  return { url: `redis://127.0.0.1:${port}`, child }
}

async function main(): Promise<void> {
  const rounds = Number(arg('rounds', '5'))
  const durationS = Number(arg('duration', '5'))
  const modes = arg('modes', 'none,local,cluster').split(',') as Mode[]
  for (const m of modes) if (!(m in MODES)) throw new Error(`no mode ${m}: ${Object.keys(MODES).join(', ')}`)
  const redis = modes.includes('cluster') ? await startRedis() : null
  if (redis !== null) process.env.IGW_BENCH_RATE_LIMITS_REDIS = JSON.stringify({ url: redis.url })
  try {
    await measure(modes, rounds, durationS)
  } finally {
    redis?.child.kill('SIGKILL')
  }
}

async function measure(modes: Mode[], rounds: number, durationS: number): Promise<void> {
  const results = new Map<Mode, CaseResult[]>(modes.map((m) => [m, []]))
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? modes : [...modes].reverse()
    for (const mode of order) {
      const rules = MODES[mode]
      if (rules === null) delete process.env.IGW_BENCH_RATE_LIMITS
      else process.env.IGW_BENCH_RATE_LIMITS = JSON.stringify(rules)
      process.env.IGW_BENCH_RATE_LIMIT_HEADERS = mode === 'quiet' ? 'false' : 'true'
      const out = await smallCallRound(durationS)
      const c = out.cases[0]!
      if (c.gateway.non2xx > 0 || c.gateway.errors > 0)
        throw new Error(`${mode}: ${c.gateway.non2xx} answers not 2xx, ${c.gateway.errors} errors`)
      results.get(mode)!.push(c)
      process.stderr.write(
        `round ${r + 1}/${rounds} ${mode.padEnd(6)} ${c.gateway.rps.toFixed(0)} req/s, p99 ${c.gateway.latencyMs.p99.toFixed(2)} ms, gateway CPU ${(cpuOf(c) * 1000).toFixed(2)} µs/call, ${relativeCpuOf(c).toFixed(3)}× the ceiling's\n`
      )
    }
  }
  const none = results.get('none')!
  console.log(
    'mode   | median req/s | median p99 ms | median gateway CPU µs/call | vs none (median of round ratios) | ' +
      'the same, each over its ceiling | gateway/ceiling'
  )
  for (const mode of modes) {
    const cs = results.get(mode)!
    const paired = median(cs.map((c, k) => cpuOf(c) / cpuOf(none[k]!)))
    const relative = median(cs.map((c, k) => relativeCpuOf(c) / relativeCpuOf(none[k]!)))
    console.log(
      `${mode.padEnd(6)} | ${median(cs.map((c) => c.gateway.rps))
        .toFixed(0)
        .padStart(12)} | ${median(cs.map((c) => c.gateway.latencyMs.p99))
        .toFixed(2)
        .padStart(13)} | ${(median(cs.map(cpuOf)) * 1000).toFixed(2).padStart(26)} | ${paired
        .toFixed(3)
        .padStart(32)} | ${relative.toFixed(3).padStart(31)} | ${median(cs.map((c) => c.ratio)).toFixed(3)}`
    )
  }
}

main().catch((err: unknown) => {
  console.error(err)
  process.exit(1)
})
