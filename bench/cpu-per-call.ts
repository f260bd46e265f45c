// CPU time per call, for a gate that catches a 10 % regression on a shared machine. The platform
// (gateway and microservice host) and the ceiling (a bare uWS server answering the same request
// in-process) run side by side; rounds of sequential keep-alive calls alternate between them, and
// each process's main-thread time on a CPU (/proc/PID/task/PID/schedstat, in nanoseconds) is divided
// by the calls. One call at a time: every call costs the same system calls in every process (no
// batching that a slower process would gain from), and the machine's speed at the moment hits the
// platform's round and the ceiling's round beside it alike, so their ratio is what is compared.
// With a reference build (--reference DIR, another project's dist/), its platform runs in the same
// rounds and the build's CPU per call is also given over the reference's: the same program on both
// sides, so whatever the machine does to one it does to the other.
// Every process of the measurement (this one, the client's, and all it starts) runs on one core:
// calls then pass between processes by a context switch on that core and never wake an idle one,
// whose cost depends on the machine and on where the scheduler put each process (docs/performance.md,
// "The CPU ratios on one core"). `--unpinned` measures where the scheduler puts them.
//   node dist/bench/cpu-per-call.js [--rounds 12] [--calls 1500] [--warmup 20000]
//     [--profiles call,edge,observed,limited] [--unpinned]
//     [--dist DIR] [--reference DIR] [--json FILE]
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { childrenOf } from './e2e/harness/procstat'
import { allowedCpus, hasTaskset, pin } from './e2e/harness/pin'
import { reaped } from './e2e/harness/reap'
import { benchPlatformEnv, freePort } from './e2e/subjects'
import { GATED, PROFILES, PATH, BODY, ANSWER, type Profile } from './profiles'
import { gcFlags } from '../src/common/process/gc-flags'
import { threadCpuNs } from '../src/common/process/cpu-time'
import { waitFor, median } from './child-output'
import { arg, runMain, writeJsonIfAsked } from './cli'

export interface CpuRound {
  gatewayUs: number
  microserviceUs: number
  ceilingUs: number
  gatewayRatio: number
  microserviceRatio: number
  /** The build's CPU per call over the reference build's in the same round (with a reference). */
  againstReference?: { gateway: number; microservice: number }
}

/** Main-thread CPU per call of each process (µs), and their ratios to the ceiling's. */
export interface CpuResult {
  profile: string
  gatewayUs: number
  microserviceUs: number
  ceilingUs: number
  gatewayRatio: number
  microserviceRatio: number
  /** Medians of the rounds' ratios to the reference build's (null without one). */
  againstReference: { gateway: number; microservice: number } | null
  rounds: CpuRound[]
  /** The core every process of the measurement ran on, or null where the scheduler put them. */
  core: number | null
}

/** A thread's time on a CPU so far, in nanoseconds (the first field of schedstat). */
export const onCpuNs = threadCpuNs

/**
 * One keep-alive connection that makes calls one after another and checks each answer. Raw bytes on
 * a socket: the client's own cost stays small and the same for every round.
 */
export class SequentialClient {
  private readonly request: Buffer
  private readonly expected: string
  private socket: Socket | null = null
  private pending = ''
  private done: ((err?: Error) => void) | null = null

  constructor(
    private readonly port: number,
    path: string,
    body: string,
    expected: string
  ) {
    this.request = Buffer.from(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
    )
    this.expected = expected
  }

  private open(): Promise<Socket> {
    if (this.socket !== null) return Promise.resolve(this.socket)
    return new Promise((resolve, reject) => {
      const s = connect(this.port, '127.0.0.1', () => {
        s.off('error', reject)
        s.setNoDelay(true)
        s.on('data', (d: Buffer) => this.onData(d))
        s.on('error', (err) => this.finish(err))
        s.on('close', () => this.finish(new Error(`127.0.0.1:${this.port} closed the connection`)))
        this.socket = s
        resolve(s)
      })
      s.once('error', reject)
    })
  }

  private onData(d: Buffer): void {
    this.pending += d.toString('latin1')
    const head = this.pending.indexOf('\r\n\r\n')
    if (head < 0) return
    const m = /content-length: *(\d+)/i.exec(this.pending.slice(0, head))
    if (m === null) return this.finish(new Error(`an answer without Content-Length: ${this.pending.slice(0, 300)}`))
    const end = head + 4 + Number(m[1])
    if (this.pending.length < end) return
    const status = this.pending.slice(9, 12)
    const body = this.pending.slice(head + 4, end)
    this.pending = this.pending.slice(end)
    if (status !== '200' || body !== this.expected)
      return this.finish(new Error(`answered ${status} ${body.slice(0, 300)}, expected 200 ${this.expected}`))
    this.finish()
  }

  private finish(err?: Error): void {
    const done = this.done
    this.done = null
    if (done !== null) done(err)
  }

  /** `n` calls, each sent when the one before is answered. */
  async calls(n: number): Promise<void> {
    const s = await this.open()
    for (let k = 0; k < n; k++) {
      await new Promise<void>((resolve, reject) => {
        this.done = (err) => (err === undefined ? resolve() : reject(err))
        s.write(this.request)
      })
    }
  }

  close(): void {
    this.socket?.destroy()
    this.socket = null
  }
}

/** Main-thread nanoseconds per call of each pid over `n` calls. */
async function round(client: SequentialClient, pids: number[], n: number): Promise<number[]> {
  const before = pids.map((p) => onCpuNs(p))
  await client.calls(n)
  return pids.map((p, k) => (onCpuNs(p) - before[k]!) / n)
}

/** Each subject's round after the other's, in an order that turns with `r`; CPU ns per call per pid. */
async function sequentialRounds(steps: Array<[SequentialClient, number[]]>, n: number, r: number): Promise<number[][]> {
  const got: number[][] = []
  for (let k = 0; k < steps.length; k++) {
    const at = (k + r) % steps.length
    got[at] = await round(steps[at]![0], steps[at]![1], n)
  }
  return got
}

/**
 * The subjects' calls taken in turn, one call each (in an order that turns with `r`): whatever the
 * machine does during the round, it does to every subject alike. CPU ns per call per pid.
 */
async function interleavedRound(steps: Array<[SequentialClient, number[]]>, n: number, r: number): Promise<number[][]> {
  const before = steps.map(([, pids]) => pids.map((p) => onCpuNs(p)))
  for (let k = 0; k < n; k++) for (let j = 0; j < steps.length; j++) await steps[(j + r) % steps.length]![0].calls(1)
  return steps.map(([, pids], j) => pids.map((p, i) => (onCpuNs(p) - before[j]![i]!) / n))
}

/**
 * A profile's rounds summed up. The subjects' order turns every round, and on some machines the
 * order moves a round's ratio by a factor of two (the subject measured right after the other reads
 * cheaper): so each `period` rounds, one of every order, make a group whose ratio is the geometric
 * mean of theirs, and the result is the median group. The order's effect cancels within a group.
 */
export function summarize(profile: string, rounds: CpuRound[], period: number, core: number | null = null): CpuResult {
  const groups: CpuRound[][] = []
  for (let k = 0; k + period <= rounds.length; k += period) groups.push(rounds.slice(k, k + period))
  if (groups.length === 0) throw new Error(`${rounds.length} rounds make no group of ${period} (one of each order)`)
  const gmean = (xs: number[]): number => Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length)
  const med = (f: (x: CpuRound) => number): number => median(groups.map((g) => gmean(g.map(f))))
  const withReference = rounds[0]!.againstReference !== undefined
  return {
    profile,
    gatewayUs: med((x) => x.gatewayUs),
    microserviceUs: med((x) => x.microserviceUs),
    ceilingUs: med((x) => x.ceilingUs),
    gatewayRatio: med((x) => x.gatewayRatio),
    microserviceRatio: med((x) => x.microserviceRatio),
    againstReference: withReference
      ? {
          gateway: med((x) => x.againstReference!.gateway),
          microservice: med((x) => x.againstReference!.microservice)
        }
      : null,
    rounds,
    core
  }
}

/** A platform started for one profile group: its gateway's and microservice host's pids, its ports. */
interface Platform {
  pids: [number, number]
  port: number
  edgePort: number
  child: ChildProcess
  also?: ChildProcess
}

export async function measureCpu(o: {
  dist: string
  /** Another build measured beside `dist` in the same rounds (the gate's reference build), or null. */
  reference: string | null
  /** Calls to the subjects in turn within each round, instead of one subject's round after another's. */
  interleave?: boolean
  rounds: number
  calls: number
  warmup: number
  profiles: string[]
  /** On one core, this process and every one it starts (the default), or where the scheduler puts them. */
  pinned?: boolean
  log: (line: string) => void
}): Promise<CpuResult[]> {
  const cpus = allowedCpus()
  const core = o.pinned === false ? null : hasTaskset() ? cpus[cpus.length - 1]! : null
  if (core !== null) {
    // Processes started from now on inherit it; this one gets its cores back at the end.
    pin(process.pid, String(core))
    o.log(`CPU per call measured on cpu ${core}: this process and every one it starts`)
  } else if (o.pinned !== false) o.log('CPU per call measured unpinned: taskset (util-linux) is not installed')
  const children: ChildProcess[] = []
  const clients: SequentialClient[] = []
  const start = (args: string[], env: Record<string, string>): ChildProcess => {
    const c = reaped(
      spawn(process.execPath, [...gcFlags(), ...args], {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe']
      })
    )
    children.push(c)
    return c
  }
  const platform = async (dist: string, env: Record<string, string>): Promise<Platform> => {
    const home = mkdtempSync(join(tmpdir(), 'bench-cpu-platform-'))
    const [port, edgePort] = [await freePort(), await freePort()]
    const child = start([join(dist, 'src', 'main.js')], {
      ...benchPlatformEnv(home, port, edgePort),
      PLATFORM__PLATFORM__drainGraceMs: '0',
      ...env
    })
    await waitFor(child, /gateway listening/, `the platform in ${dist}`)
    const hosts = childrenOf(child.pid!)
    if (hosts.length !== 1) throw new Error(`expected one microservice process, found ${hosts.length}`)
    return { pids: [child.pid!, hosts[0]!], port, edgePort, child }
  }
  const hop = async (): Promise<Platform> => {
    const path = join(mkdtempSync(join(tmpdir(), 'bench-cpu-hop-')), 'hop.sock')
    const backend = start([join(o.dist, 'bench', 'e2e', 'references', 'bare-hop.js'), 'backend', path], {})
    await waitFor(backend, /^ready$/m, 'the bare hop backend')
    const front = start([join(o.dist, 'bench', 'e2e', 'references', 'bare-hop.js'), 'front', path], {})
    const port = Number((await waitFor(front, /^(\d+)$/m, 'the bare hop front'))[1])
    return { pids: [front.pid!, backend.pid!], port, edgePort: port, child: front, also: backend }
  }
  const client = (pl: Platform, p: Profile): SequentialClient => {
    const c =
      p.via === 'edge'
        ? new SequentialClient(pl.edgePort, '/_eapi/ELASTIC_HTTP' + PATH, BODY, ANSWER)
        : new SequentialClient(pl.port, PATH, BODY, ANSWER)
    clients.push(c)
    return c
  }
  try {
    const ceiling = start([join(o.dist, 'bench', 'e2e', 'references', 'ceiling.js'), '0'], {})
    const ceilingPort = Number((await waitFor(ceiling, /^(\d+)$/m, 'the ceiling'))[1])
    const results: CpuResult[] = []
    const byEnv = new Map<string, Profile[]>()
    for (const p of PROFILES.filter((x) => o.profiles.includes(x.name))) {
      const key = JSON.stringify(p.env)
      byEnv.set(key, [...(byEnv.get(key) ?? []), p])
    }
    for (const group of byEnv.values()) {
      const subject = await platform(o.dist, group[0]!.env)
      const reference =
        o.reference === null ? null : o.reference === 'hop' ? await hop() : await platform(o.reference, group[0]!.env)
      for (const p of group) {
        const ceilingClient = new SequentialClient(ceilingPort, PATH, BODY, ANSWER)
        clients.push(ceilingClient)
        const subjectClient = client(subject, p)
        const referenceClient = reference === null ? null : client(reference, p)
        await subjectClient.calls(o.warmup)
        if (referenceClient !== null) await referenceClient.calls(o.warmup)
        await ceilingClient.calls(o.warmup)
        const rounds: CpuRound[] = []
        for (let r = 0; r < o.rounds; r++) {
          // Each round in another order: a change in the machine's speed meanwhile cancels out over rounds.
          const steps: Array<[SequentialClient, number[]]> = [
            [ceilingClient, [ceiling.pid!]],
            [subjectClient, subject.pids],
            ...(referenceClient !== null ? [[referenceClient, reference!.pids] as [SequentialClient, number[]]] : [])
          ]
          const got = o.interleave
            ? await interleavedRound(steps, o.calls, r)
            : await sequentialRounds(steps, o.calls, r)
          const [ce, gw, ms, refGw, refMs] = [got[0]![0]!, got[1]![0]!, got[1]![1]!, got[2]?.[0] ?? 0, got[2]?.[1] ?? 0]
          rounds.push({
            gatewayUs: gw / 1000,
            microserviceUs: ms / 1000,
            ceilingUs: ce / 1000,
            gatewayRatio: gw / ce,
            microserviceRatio: ms / ce,
            ...(referenceClient !== null ? { againstReference: { gateway: gw / refGw, microservice: ms / refMs } } : {})
          })
        }
        const result = summarize(p.name, rounds, referenceClient === null ? 2 : 3, core)
        const vsRef =
          result.againstReference === null
            ? ''
            : `; against the reference build: gateway ${result.againstReference.gateway.toFixed(3)}×, microservice ${result.againstReference.microservice.toFixed(3)}×`
        o.log(
          `${p.name}: gateway ${result.gatewayUs.toFixed(1)} µs of CPU per call (${result.gatewayRatio.toFixed(3)}× the ceiling's ${result.ceilingUs.toFixed(1)}), microservice ${result.microserviceUs.toFixed(1)} µs (${result.microserviceRatio.toFixed(3)}×)${vsRef}`
        )
        results.push(result)
      }
      for (const c of [subject.child, reference?.child, reference?.also]) {
        if (c === undefined) continue
        c.kill('SIGTERM')
        await new Promise((r) => c.once('exit', r))
      }
    }
    return results
  } finally {
    for (const c of clients) c.close()
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL')
    if (core !== null) pin(process.pid, cpus.join(','))
  }
}

async function main(): Promise<void> {
  const results = await measureCpu({
    dist: resolve(arg('dist', join(__dirname, '..'))),
    reference: process.argv.includes('--reference')
      ? arg('reference', '') === 'hop'
        ? 'hop'
        : resolve(arg('reference', ''))
      : null,
    interleave: process.argv.includes('--interleave'),
    rounds: Number(arg('rounds', '12')),
    calls: Number(arg('calls', '1500')),
    warmup: Number(arg('warmup', '20000')),
    profiles: arg('profiles', GATED.join(',')).split(','),
    pinned: !process.argv.includes('--unpinned'),
    log: (line) => process.stderr.write(line + '\n')
  })
  for (const r of results) {
    const spread = (f: (x: CpuRound) => number | undefined): string =>
      r.rounds.map((x) => (f(x) ?? 0).toFixed(3)).join(' ')
    console.log(`${r.profile}: gateway/ceiling by round ${spread((x) => x.gatewayRatio)}`)
    console.log(`${r.profile}: microservice/ceiling by round ${spread((x) => x.microserviceRatio)}`)
    if (r.againstReference !== null) {
      console.log(`${r.profile}: gateway/reference by round ${spread((x) => x.againstReference?.gateway)}`)
      console.log(`${r.profile}: microservice/reference by round ${spread((x) => x.againstReference?.microservice)}`)
    }
  }
  writeJsonIfAsked(results)
}

runMain(module, main)
