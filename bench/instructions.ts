// Instructions per call, counted rather than timed: the platform runs under valgrind's callgrind
// (the gateway process and, traced as its child, the microservice host), the ceiling (a bare uWS
// server answering the same request in-process) beside it as the reference. After a warm-up, rounds
// of sequential keep-alive calls are counted with instrumentation switched on for just those calls;
// each process's main-thread instructions per call are reported with their ratio to the ceiling's.
// Whole processes, uWS and the sockets included: the gate counts each process's per-call code alone
// (bench/stage-instructions.ts), whose rounds spread far less than these (docs/performance.md).
//   node dist/bench/instructions.js [--rounds 4] [--calls 2000] [--warmup 4000] [--profiles call,edge,observed,limited]
//     [--dist DIR] [--json FILE]
// --dist measures another built copy (for example one with a slowdown put in by hand).
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { childrenOf } from './e2e/harness/procstat'
import { benchPlatformEnv, freePort } from './e2e/subjects'
import { GATED, PROFILES, PATH, BODY, ANSWER, type Profile } from './profiles'
import { waitFor, median } from './child-output'
import { arg, runMain, writeJsonIfAsked } from './cli'
import { gcFlags } from '../src/common/process/gc-flags'

const ROOT = join(__dirname, '..', '..')

/** Instructions per call of each process, over the ceiling's. */
export interface ProfileResult {
  profile: string
  /** The rounds' medians, in instructions per call. */
  gateway: number
  microservice: number
  ceiling: number
  gatewayRatio: number
  microserviceRatio: number
  /** Every round's ratios, for the spread. */
  rounds: Array<{ gatewayRatio: number; microserviceRatio: number }>
}

function valgrind(args: string[], env: NodeJS.ProcessEnv, outDir: string): ChildProcess {
  return spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      '--trace-children=yes',
      `--callgrind-out-file=${join(outDir, 'callgrind.%p')}`,
      process.execPath,
      ...args
    ],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }
  )
}

/** Runs callgrind_control with `args` for `pids`; its output. */
export function control(args: string[], pids: number[]): string {
  return execFileSync('callgrind_control', [...args, ...pids.map(String)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe']
  })
}

/** Instructions counted so far, per pid (every thread summed). */
export function counts(pids: number[]): Map<number, number> {
  const out = new Map<number, number>()
  for (const pid of pids) {
    const text = control(['-e', 'Ir'], [pid])
    let n = 0
    // The main thread's: V8's compiler and GC helper threads run when they are scheduled, not per call.
    for (const m of text.matchAll(/^\s*Th\s+1\s+([\d,]+)/gm)) n += Number(m[1]!.replace(/,/g, ''))
    if (n === 0) {
      const total = /^\s*Totals:\s+Ir\s*\n?\s*([\d,]+)/m.exec(text)
      if (total !== null) n = Number(total[1]!.replace(/,/g, ''))
    }
    out.set(pid, n)
  }
  return out
}

/** `n` sequential POSTs on one keep-alive connection; every answer checked. */
async function calls(url: string, n: number): Promise<void> {
  const u = new URL(url)
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  try {
    for (let k = 0; k < n; k++) {
      const text = await new Promise<string>((resolve, reject) => {
        const req = request(
          {
            host: u.hostname,
            port: u.port,
            path: u.pathname,
            method: 'POST',
            agent,
            headers: { 'Content-Type': 'application/json' }
          },
          (res) => {
            let body = ''
            res.on('data', (d: Buffer) => (body += d.toString()))
            res.on('end', () =>
              res.statusCode === 200 ? resolve(body) : reject(new Error(`${url}: ${res.statusCode} ${body}`))
            )
          }
        )
        req.on('error', reject)
        req.end(BODY)
      })
      if (text !== ANSWER) throw new Error(`${url} answered ${text}, expected ${ANSWER}`)
    }
  } finally {
    agent.destroy()
  }
}

/**
 * Counts `rounds` × `n` calls to `url`, with instrumentation on only meanwhile; instructions per call
 * per pid. Subtracting an equal time without calls (timers, pings) made the spread wider, not narrower.
 */
async function countRounds(
  url: string,
  pids: number[],
  rounds: number,
  n: number
): Promise<Array<Map<number, number>>> {
  const out: Array<Map<number, number>> = []
  for (let r = 0; r < rounds; r++) {
    control(['-i', 'on'], pids)
    control(['-z'], pids)
    await calls(url, n)
    const busy = counts(pids)
    control(['-i', 'off'], pids)
    out.push(new Map([...busy].map(([pid, v]) => [pid, v / n])))
  }
  return out
}

export async function measure(o: {
  dist: string
  rounds: number
  calls: number
  warmup: number
  profiles: string[]
  log: (line: string) => void
}): Promise<ProfileResult[]> {
  execFileSync('bash', [join(ROOT, 'scripts', 'ensure-debian.sh'), 'valgrind:valgrind'], { stdio: 'inherit' })
  const outDir = mkdtempSync(join(tmpdir(), 'bench-instructions-'))
  const children: ChildProcess[] = []
  try {
    const ceiling = valgrind([join(o.dist, 'bench', 'e2e', 'references', 'ceiling.js'), '0'], {}, outDir)
    children.push(ceiling)
    const ceilingUrl = `http://127.0.0.1:${(await waitFor(ceiling, /^(\d+)$/m, 'the ceiling', 180_000))[1]}${PATH}`
    await calls(ceilingUrl, o.warmup)
    const results: ProfileResult[] = []
    const byEnv = new Map<string, Profile[]>()
    for (const p of PROFILES.filter((x) => o.profiles.includes(x.name))) {
      const key = JSON.stringify(p.env)
      byEnv.set(key, [...(byEnv.get(key) ?? []), p])
    }
    for (const group of byEnv.values()) {
      const home = mkdtempSync(join(tmpdir(), 'bench-instructions-platform-'))
      const [port, edgePort] = [await freePort(), await freePort()]
      o.log(`starting the platform under callgrind for ${group.map((p) => p.name).join(', ')}`)
      const platform = valgrind(
        // The flags main.js would re-execute itself to get: the process traced is the platform.
        [...gcFlags(), join(o.dist, 'src', 'main.js')],
        {
          ...benchPlatformEnv(home, port, edgePort),
          PLATFORM__PLATFORM__drainGraceMs: '0',
          ...group[0]!.env
        },
        outDir
      )
      children.push(platform)
      await waitFor(platform, /gateway listening/, 'the platform', 180_000)
      const hosts = childrenOf(platform.pid!)
      if (hosts.length !== 1) throw new Error(`expected one microservice process, found ${hosts.length}`)
      const pids = [platform.pid!, hosts[0]!]
      for (const p of group) {
        const base = p.via === 'edge' ? `http://127.0.0.1:${edgePort}/_eapi/ELASTIC_HTTP` : `http://127.0.0.1:${port}`
        await calls(base + PATH, o.warmup)
        const rounds = await countRounds(base + PATH, pids, o.rounds, o.calls)
        const ceilingRounds = await countRounds(ceilingUrl, [ceiling.pid!], o.rounds, o.calls)
        const ratios = rounds.map((r, k) => {
          const c = ceilingRounds[k]!.get(ceiling.pid!)!
          return { gatewayRatio: r.get(pids[0]!)! / c, microserviceRatio: r.get(pids[1]!)! / c }
        })
        const result: ProfileResult = {
          profile: p.name,
          gateway: median(rounds.map((r) => r.get(pids[0]!)!)),
          microservice: median(rounds.map((r) => r.get(pids[1]!)!)),
          ceiling: median(ceilingRounds.map((r) => r.get(ceiling.pid!)!)),
          gatewayRatio: median(ratios.map((x) => x.gatewayRatio)),
          microserviceRatio: median(ratios.map((x) => x.microserviceRatio)),
          rounds: ratios
        }
        o.log(
          `${p.name}: gateway ${Math.round(result.gateway)} instructions per call (${result.gatewayRatio.toFixed(3)}× the ceiling's ${Math.round(result.ceiling)}), microservice ${Math.round(result.microservice)} (${result.microserviceRatio.toFixed(3)}×)`
        )
        results.push(result)
      }
      platform.kill('SIGTERM')
      await new Promise((r) => platform.once('exit', r))
    }
    return results
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL')
  }
}

async function main(): Promise<void> {
  const results = await measure({
    dist: resolve(arg('dist', join(__dirname, '..'))),
    rounds: Number(arg('rounds', '4')),
    calls: Number(arg('calls', '2000')),
    warmup: Number(arg('warmup', '4000')),
    profiles: arg('profiles', GATED.join(',')).split(','),
    log: (line) => process.stderr.write(line + '\n')
  })
  for (const r of results) {
    const spread = (k: 'gatewayRatio' | 'microserviceRatio'): string => r.rounds.map((x) => x[k].toFixed(3)).join(', ')
    console.log(
      `${r.profile}: gateway ${Math.round(r.gateway)} instructions per call (${r.gatewayRatio.toFixed(3)}× the ceiling's ${Math.round(r.ceiling)}; rounds ${spread('gatewayRatio')}), microservice ${Math.round(r.microservice)} (${r.microserviceRatio.toFixed(3)}×; rounds ${spread('microserviceRatio')})`
    )
  }
  writeJsonIfAsked(results)
}

runMain(module, main)
