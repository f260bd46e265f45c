// CPU time per call, for a gate that catches a 10 % regression on a shared machine. The platform
// (gateway and microservice host) and the ceiling (a bare uWS server answering the same request
// in-process) run side by side; rounds of sequential keep-alive calls alternate between them, and
// each process's main-thread time on a CPU (/proc/PID/task/PID/schedstat, in nanoseconds) is divided
// by the calls. One call at a time: every call costs the same system calls in every process (no
// batching that a slower process would gain from), and the machine's speed at the moment hits the
// platform's round and the ceiling's round beside it alike, so their ratio is what is compared.
//   node dist/bench/cpu-per-call.js [--rounds 12] [--calls 1500] [--warmup 6000] [--profiles call,edge,observed]
//     [--dist DIR] [--json FILE]
// --dist measures another built copy (the gate's own test puts a slowdown into one).
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { childrenOf } from './e2e/procstat'
import { reaped } from './e2e/reap'
import { benchPlatformEnv, freePort } from './e2e/run'
import { PROFILES, PATH, BODY, ANSWER, type Profile } from './profiles'
import { gcFlags } from '../src/core/gc-threads'

const PIN = process.env.IGW_PIN ?? ''

export interface CpuRound {
  gatewayUs: number
  microserviceUs: number
  ceilingUs: number
  gatewayRatio: number
  microserviceRatio: number
}

/** Main-thread CPU per call of each process (µs), and their ratios to the ceiling's. */
export interface CpuResult {
  profile: string
  gatewayUs: number
  microserviceUs: number
  ceilingUs: number
  gatewayRatio: number
  microserviceRatio: number
  rounds: CpuRound[]
}

/** A thread's time on a CPU so far, in nanoseconds (the first field of schedstat). */
export function onCpuNs(pid: number, tid = pid): number {
  const text = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8')
  return Number(text.slice(0, text.indexOf(' ')))
}

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

function waitFor(child: ChildProcess, pattern: RegExp, what: string, ms = 60_000): Promise<RegExpExecArray> {
  let out = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${what}: not ready within ${ms / 1000} s: ${out.slice(-2000)}`)),
      ms
    )
    const on = (d: Buffer): void => {
      out += d.toString()
      const m = pattern.exec(out)
      if (m !== null) {
        clearTimeout(timer)
        resolve(m)
      }
    }
    child.stdout!.on('data', on)
    child.stderr!.on('data', on)
    child.once('exit', (code) => reject(new Error(`${what} exited with ${String(code)}: ${out.slice(-2000)}`)))
  })
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

/** Main-thread nanoseconds per call of each pid over `n` calls. */
async function round(client: SequentialClient, pids: number[], n: number): Promise<number[]> {
  const before = pids.map((p) => onCpuNs(p))
  await client.calls(n)
  return pids.map((p, k) => (onCpuNs(p) - before[k]!) / n)
}

export async function measureCpu(o: {
  dist: string
  rounds: number
  calls: number
  warmup: number
  profiles: string[]
  log: (line: string) => void
}): Promise<CpuResult[]> {
  const children: ChildProcess[] = []
  const clients: SequentialClient[] = []
  const start = (args: string[], env: Record<string, string>): ChildProcess => {
    const c = reaped(
      spawn(
        PIN ? 'taskset' : process.execPath,
        [...(PIN ? ['-c', PIN, process.execPath] : []), ...gcFlags(), ...args],
        {
          env: { ...process.env, ...env },
          stdio: ['ignore', 'pipe', 'pipe']
        }
      )
    )
    children.push(c)
    return c
  }
  try {
    const ceiling = start([join(o.dist, 'bench', 'e2e', 'ceiling.js'), '0'], {})
    const ceilingPort = Number((await waitFor(ceiling, /^(\d+)$/m, 'the ceiling'))[1])
    const results: CpuResult[] = []
    const byEnv = new Map<string, Profile[]>()
    for (const p of PROFILES.filter((x) => o.profiles.includes(x.name))) {
      const key = JSON.stringify(p.env)
      byEnv.set(key, [...(byEnv.get(key) ?? []), p])
    }
    for (const group of byEnv.values()) {
      const home = mkdtempSync(join(tmpdir(), 'bench-cpu-platform-'))
      const [port, edgePort] = [await freePort(), await freePort()]
      const platform = start([join(o.dist, 'src', 'main.js')], {
        ...benchPlatformEnv(home, port, edgePort),
        PLATFORM__PLATFORM__drainGraceMs: '0',
        ...group[0]!.env
      })
      await waitFor(platform, /gateway listening/, 'the platform')
      const hosts = childrenOf(platform.pid!)
      if (hosts.length !== 1) throw new Error(`expected one microservice process, found ${hosts.length}`)
      const pids = [platform.pid!, hosts[0]!]
      for (const p of group) {
        const ceilingClient = new SequentialClient(ceilingPort, PATH, BODY, ANSWER)
        const subject =
          p.via === 'edge'
            ? new SequentialClient(edgePort, '/_eapi/ELASTIC_HTTP' + PATH, BODY, ANSWER)
            : new SequentialClient(port, PATH, BODY, ANSWER)
        clients.push(ceilingClient, subject)
        await subject.calls(o.warmup)
        await ceilingClient.calls(o.warmup)
        const rounds: CpuRound[] = []
        const g: number[] = []
        const m: number[] = []
        const c: number[] = []
        for (let r = 0; r < o.rounds; r++) {
          // Alternating which goes first: a change in the machine's speed between them cancels out over rounds.
          const first = r % 2 === 0
          const cs = first ? await round(ceilingClient, [ceiling.pid!], o.calls) : null
          const [gw, ms] = await round(subject, pids, o.calls)
          const [ce] = cs ?? (await round(ceilingClient, [ceiling.pid!], o.calls))
          g.push(gw!)
          m.push(ms!)
          c.push(ce!)
          rounds.push({
            gatewayUs: gw! / 1000,
            microserviceUs: ms! / 1000,
            ceilingUs: ce! / 1000,
            gatewayRatio: gw! / ce!,
            microserviceRatio: ms! / ce!
          })
        }
        const result: CpuResult = {
          profile: p.name,
          gatewayUs: median(g) / 1000,
          microserviceUs: median(m) / 1000,
          ceilingUs: median(c) / 1000,
          gatewayRatio: median(rounds.map((x) => x.gatewayRatio)),
          microserviceRatio: median(rounds.map((x) => x.microserviceRatio)),
          rounds
        }
        o.log(
          `${p.name}: gateway ${result.gatewayUs.toFixed(1)} µs of CPU per call (${result.gatewayRatio.toFixed(3)}× the ceiling's ${result.ceilingUs.toFixed(1)}), microservice ${result.microserviceUs.toFixed(1)} µs (${result.microserviceRatio.toFixed(3)}×)`
        )
        results.push(result)
        subject.close()
        ceilingClient.close()
      }
      platform.kill('SIGTERM')
      await new Promise((r) => platform.once('exit', r))
    }
    return results
  } finally {
    for (const c of clients) c.close()
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL')
  }
}

function arg(name: string, fallback: string): string {
  const k = process.argv.indexOf(`--${name}`)
  return k > 0 ? process.argv[k + 1]! : fallback
}

async function main(): Promise<void> {
  if (PIN) execFileSync('taskset', ['-a', '-p', '-c', PIN, String(process.pid)])
  const results = await measureCpu({
    dist: resolve(arg('dist', join(__dirname, '..'))),
    rounds: Number(arg('rounds', '12')),
    calls: Number(arg('calls', '1500')),
    warmup: Number(arg('warmup', '6000')),
    profiles: arg('profiles', PROFILES.map((p) => p.name).join(',')).split(','),
    log: (line) => process.stderr.write(line + '\n')
  })
  for (const r of results) {
    const spread = (k: keyof CpuRound): string => r.rounds.map((x) => x[k].toFixed(3)).join(' ')
    console.log(`${r.profile}: ceiling µs ${r.rounds.map((x) => x.ceilingUs.toFixed(1)).join(' ')}`)
    console.log(`${r.profile}: gateway µs ${r.rounds.map((x) => x.gatewayUs.toFixed(1)).join(' ')}`)
    console.log(`${r.profile}: gateway rounds ${spread('gatewayRatio')}`)
    console.log(`${r.profile}: microservice rounds ${spread('microserviceRatio')}`)
  }
  const json = process.argv.includes('--json') ? arg('json', '') : null
  if (json !== null) writeFileSync(json, JSON.stringify(results, null, 2))
}

if (require.main === module)
  main().catch((err: unknown) => {
    console.error(err)
    process.exit(1)
  })
