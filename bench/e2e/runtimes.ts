// `npm run bench:runtimes`: the Java host against the JavaScript host, in one platform, same run,
// alternating. Both examples are deployed (examples/example and examples/java-example, the same
// calculator); wrk sends the same calls to each through the same gateway, after a warm-up (the JIT
// of both). Reports req/s, p50/p99, and the microservice process's CPU per call and RSS; then the
// start-up of each host to listening, and its memory idle.
//   node dist/bench/e2e/runtimes.js [--duration 5] [--rounds 3] [--warmup 5]
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { readFileSync, mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { startGateway } from './subjects'
import { runWrk, type LoadResult } from './harness/wrk'
import { allCases, type BenchCase } from './cases'
import { sample, childrenOf } from './harness/procstat'
import { HOST_FILE, hostEnv } from '../../src/microservice/host/host-env'
import { gcFlags } from '../../src/common/process/gc-flags'
import { javaExecutable, javaHostEnv, javaInstanceArgs } from '../../src/microservice/host/java-host'

const ROOT = join(__dirname, '..', '..', '..')

function arg(name: string, fallback: string): string {
  const k = process.argv.indexOf(`--${name}`)
  return k > 0 ? process.argv[k + 1]! : fallback
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

interface Runtime {
  name: 'node' | 'java'
  microservice: string
  dir: string
  pid: number
}

interface Run {
  rps: number
  p50: number
  p99: number
  cpuUsPerCall: number
  rssMb: number
  errors: number
}

function isJava(pid: number): boolean {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
    .split('\0')
    .some((a) => a === 'platform.host.Host')
}

async function measure(url: string, rt: Runtime, bc: BenchCase, connections: number, durationS: number): Promise<Run> {
  const path = bc.path.replace('/example/', `/${rt.microservice}/`)
  const before = sample(rt.pid)!
  const r: LoadResult = await runWrk({ url: url + path, headers: bc.headers, body: bc.body, connections, durationS })
  const after = sample(rt.pid)!
  return {
    rps: r.rps,
    p50: r.latencyMs.p50,
    p99: r.latencyMs.p99,
    cpuUsPerCall: r.requests > 0 ? ((after.cpuMs - before.cpuMs) * 1000) / r.requests : 0,
    rssMb: after.rssBytes / 2 ** 20,
    errors: r.errors + r.non2xx
  }
}

/** Spawns a host on its own and times it to its listening line; returns ms and its RSS then. */
async function startUp(rt: Runtime, classPath: string): Promise<{ ms: number; rssMb: number }> {
  const socket = join(mkdtempSync(join(tmpdir(), 'bench-host-')), 'ms.sock')
  const listen = `unix:${socket}`
  const t0 = process.hrtime.bigint()
  // As the platform starts each (src/platform/manager.ts), with the same heap, unmanaged.
  const child: ChildProcess =
    rt.name === 'java'
      ? spawn(javaExecutable(), javaInstanceArgs({ classPath, dir: rt.dir, heapMb: 1024, heapDumpDir: null }), {
          env: javaHostEnv({ listen, secret: '', drainMs: '0', managed: false }),
          stdio: ['ignore', 'pipe', 'ignore']
        })
      : spawn(process.execPath, [...gcFlags(), '--max-old-space-size=1024', HOST_FILE, rt.dir], {
          env: { ...hostEnv(), MICROSERVICE_LISTEN: listen, MICROSERVICE_DRAIN_MS: '0' },
          stdio: ['ignore', 'pipe', 'ignore']
        })
  const ms = await new Promise<number>((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      if (out.includes('listening on')) resolve(Number(process.hrtime.bigint() - t0) / 1e6)
    })
    child.once('exit', (code) => reject(new Error(`${rt.name} host exited with ${String(code)}: ${out}`)))
  })
  const rssMb = sample(child.pid!)!.rssBytes / 2 ** 20
  child.removeAllListeners('exit')
  await new Promise((r) => {
    child.once('exit', r)
    child.kill('SIGKILL')
  })
  return { ms, rssMb }
}

async function main(): Promise<void> {
  execFileSync(join(ROOT, 'scripts', 'ensure-wrk.sh'), { stdio: 'inherit' })
  const javaDir = join(ROOT, 'dist', 'examples', 'java-example')
  execFileSync(
    'bash',
    [join(ROOT, 'scripts', 'build-java-package.sh'), join(ROOT, 'examples', 'java-example'), javaDir],
    {
      stdio: 'inherit'
    }
  )
  const classPath = readFileSync(join(ROOT, 'dist', 'java', 'classpath'), 'utf8').trim()
  const durationS = Number(arg('duration', '5'))
  const rounds = Number(arg('rounds', '3'))
  const warmupS = Number(arg('warmup', '5'))
  const children: ChildProcess[] = []
  try {
    const nodeDir = join(ROOT, 'dist', 'examples', 'example')
    const gw = await startGateway(children, { PLATFORM__PLATFORM__bootstrap: JSON.stringify([nodeDir, javaDir]) }, 2)
    const gatewayPid = gw.pids[0]![1]
    const pids = childrenOf(gatewayPid)
    const javaPid = pids.find(isJava)!
    const nodePid = pids.find((p) => !isJava(p))!
    const runtimes: Runtime[] = [
      { name: 'node', microservice: 'example', dir: nodeDir, pid: nodePid },
      { name: 'java', microservice: 'java-example', dir: javaDir, pid: javaPid }
    ]
    const cases = allCases()
    const plan: Array<{ bc: BenchCase; connections: number }> = [
      { bc: cases.find((c) => c.name === 'roa-json')!, connections: 1 },
      { bc: cases.find((c) => c.name === 'roa-json')!, connections: 64 },
      { bc: cases.find((c) => c.name === 'rmc-json-1mb')!, connections: 8 }
    ]
    for (const rt of runtimes)
      for (const { bc, connections } of plan) await measure(gw.url, rt, bc, connections, warmupS)
    console.log(`${rounds} rounds of ${durationS} s, alternating; medians. CPU and RSS: the microservice process.`)
    console.log('case | runtime | req/s | p50 ms | p99 ms | CPU µs/call | RSS MB | errors')
    for (const { bc, connections } of plan) {
      const runs = new Map<string, Run[]>(runtimes.map((r) => [r.name, []]))
      for (let k = 0; k < rounds; k++)
        for (const rt of k % 2 === 0 ? runtimes : [...runtimes].reverse())
          runs.get(rt.name)!.push(await measure(gw.url, rt, bc, connections, durationS))
      for (const rt of runtimes) {
        const rs = runs.get(rt.name)!
        const m = (f: (r: Run) => number): number => median(rs.map(f))
        console.log(
          `${bc.name} c=${connections} | ${rt.name} | ${m((r) => r.rps).toFixed(0)} | ${m((r) => r.p50).toFixed(2)} | ${m((r) => r.p99).toFixed(2)} | ${m((r) => r.cpuUsPerCall).toFixed(1)} | ${m((r) => r.rssMb).toFixed(0)} | ${rs.reduce((s, r) => s + r.errors, 0)}`
        )
      }
    }
    console.log('start-up to listening (5 each, alternating; median) | RSS then')
    const starts = new Map<string, Array<{ ms: number; rssMb: number }>>(runtimes.map((r) => [r.name, []]))
    for (let k = 0; k < 5; k++) for (const rt of runtimes) starts.get(rt.name)!.push(await startUp(rt, classPath))
    for (const rt of runtimes) {
      const s = starts.get(rt.name)!
      console.log(
        `${rt.name} | ${median(s.map((x) => x.ms)).toFixed(0)} ms | ${median(s.map((x) => x.rssMb)).toFixed(0)} MB`
      )
    }
  } finally {
    for (const c of children) c.kill('SIGTERM')
  }
}

main().catch((err: unknown) => {
  console.error(err)
  process.exit(1)
})
