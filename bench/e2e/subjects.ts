// The servers an e2e run measures, started on free loopback ports: the platform, the bare hop, the
// fastify proxy, and the C proxies' reference with the server behind it. Each start waits for the
// process's ready line; the processes go to the caller's list, which stops them.
import { fork, type ChildProcess } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { createServer } from 'node:net'
import { join } from 'node:path'
import type { BenchCase } from './cases'
import { childrenOf } from './harness/procstat'
import { reaped } from './harness/reap'
import { gcFlags } from '../../src/common/process/gc-flags'

const DIST = join(__dirname, '..', '..')
/** Where the references' compiled programs are. */
export const REFERENCES = join(__dirname, 'references')

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
    s.on('error', reject)
  })
}

export function start(
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
  execArgv: string[] = process.execArgv
): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  return new Promise((resolve, reject) => {
    const child = reaped(
      fork(file, args, {
        env: { ...process.env, ...env },
        execArgv,
        stdio: ['ignore', 'pipe', 'inherit', 'ipc']
      })
    )
    let out = ''
    const onData = (d: Buffer): void => {
      out += d.toString()
      const m = ready.exec(out)
      if (m !== null) {
        child.stdout!.off('data', onData)
        child.stdout!.resume()
        resolve({ child, match: m })
      }
    }
    child.stdout!.on('data', onData)
    child.once('exit', (code) => reject(new Error(`${file} exited with ${String(code)} before it was ready: ${out}`)))
  })
}

/** A subject answers the case as it must before it is timed. */
export async function check(url: string, bc: BenchCase): Promise<void> {
  const res = await fetch(url + bc.path, { method: 'POST', headers: bc.headers, body: bc.body })
  const text = await res.text()
  if (res.status !== 200 || (bc.expected !== null && text !== bc.expected)) {
    throw new Error(
      `${url}${bc.path} answered ${res.status} '${text.slice(0, 200)}', expected ${bc.expected === null ? 'a 200' : `'${bc.expected.slice(0, 200)}'`}`
    )
  }
}

/** The settings of a platform of a bench's own: loopback ports, and directories under `home`. */
export function benchPlatformEnv(home: string, port: number, edgePort: number): Record<string, string> {
  return {
    PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__host: '"127.0.0.1"',
    PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__port: String(port),
    PLATFORM__PLATFORM__uploadDirectory: JSON.stringify(join(home, 'upload')),
    PLATFORM__PLATFORM__deploymentDirectory: JSON.stringify(join(home, 'deployments')),
    PLATFORM__PLATFORM__controlSocket: JSON.stringify(join(home, 'control.sock')),
    PLATFORM__EDGE__host: '"127.0.0.1"',
    PLATFORM__EDGE__port: String(edgePort)
  }
}

/**
 * A platform of its own (gateway, example microservice) on free loopback ports; its processes go to
 * `children`. `env` adds settings (the scaling curve's threads and instances); `instances` is how many
 * microservice processes to wait for.
 */
export async function startGateway(
  children: ChildProcess[],
  env: Record<string, string> = {},
  instances = 1
): Promise<{ url: string; pids: Array<[string, number]> }> {
  const port = await freePort()
  const edgePort = await freePort()
  // A deployment directory of its own: the run never touches (or waits on) a running platform's.
  const home = mkdtempSync(join(tmpdir(), 'bench-platform-'))
  const gw = await start(
    join(DIST, 'src', 'main.js'),
    [],
    {
      ...benchPlatformEnv(home, port, edgePort),
      PLATFORM__ADMIN__enabled: 'false',
      // The gate's baseline is the bare call path; the cost of logs and metrics is measured on its own
      // (docs/operating.md, "What it costs"), with IGW_BENCH_ACCESS_LOG=true and IGW_BENCH_METRICS=true.
      PLATFORM__LOGGING__accessLog: process.env.IGW_BENCH_ACCESS_LOG ?? 'false',
      ...(process.env.IGW_BENCH_METRICS === 'true'
        ? { PLATFORM__ADMIN__enabled: 'true', PLATFORM__ADMIN__port: '0', PLATFORM__ADMIN__metrics: 'true' }
        : {}),
      // RATE_LIMITS.rules as JSON (bench/e2e/limits.ts measures what they cost).
      ...(process.env.IGW_BENCH_RATE_LIMITS === undefined
        ? {}
        : {
            PLATFORM__RATE_LIMITS__rules: process.env.IGW_BENCH_RATE_LIMITS,
            PLATFORM__RATE_LIMITS__headers: process.env.IGW_BENCH_RATE_LIMIT_HEADERS ?? 'true',
            PLATFORM__RATE_LIMITS__redis: process.env.IGW_BENCH_RATE_LIMITS_REDIS ?? 'null'
          }),
      ...env
    },
    /(gateway listening)/,
    // As `npm start` runs it (scripts/start.mjs): with the platform's V8 flags.
    [...process.execArgv, ...gcFlags()]
  )
  children.push(gw.child)
  // The platform starts every instance before it listens, so they are all there; a missing one would
  // leave its CPU out of the cost per call.
  const deadline = Date.now() + 5000
  while (childrenOf(gw.child.pid!).length < instances) {
    if (Date.now() > deadline) throw new Error(`the platform has not started ${instances} microservice instances`)
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    url: `http://127.0.0.1:${port}`,
    pids: [
      ['gateway', gw.child.pid!],
      ...childrenOf(gw.child.pid!).map((pid): [string, number] => ['microservice', pid])
    ]
  }
}

/** The bare hop's two processes (bench/e2e/references/bare-hop.ts); they go to `children`. */
export async function startHop(children: ChildProcess[]): Promise<{ url: string; pids: Array<[string, number]> }> {
  const path = join(mkdtempSync(join(tmpdir(), 'bench-hop-')), 'hop.sock')
  const backend = await start(join(REFERENCES, 'bare-hop.js'), ['backend', path], {}, /^(ready)\n/)
  children.push(backend.child)
  const front = await start(join(REFERENCES, 'bare-hop.js'), ['front', path], {}, /^(\d+)\n/)
  children.push(front.child)
  return {
    url: `http://127.0.0.1:${front.match[1]}`,
    pids: [
      ['front', front.child.pid!],
      ['backend', backend.child.pid!]
    ]
  }
}

/** The fastify + undici reference proxy and its node:http backend; their processes go to `children`. */
export async function startProxy(children: ChildProcess[]): Promise<{ url: string; pids: Array<[string, number]> }> {
  const backend = await start(join(REFERENCES, 'backend.js'), ['0'], {}, /^(\d+)\n/)
  children.push(backend.child)
  const proxy = await start(
    join(REFERENCES, 'fastify-proxy.js'),
    ['0', `http://127.0.0.1:${backend.match[1]}`],
    {},
    /^(\d+)\n/
  )
  children.push(proxy.child)
  return {
    url: `http://127.0.0.1:${proxy.match[1]}`,
    pids: [
      ['proxy', proxy.child.pid!],
      ['backend', backend.child.pid!]
    ]
  }
}

/**
 * A C proxy's reference with the server behind it: its CPU per call is the proxy's and the upstream's,
 * as the gateway's is its own and its microservices'.
 */
export function behind(ref: { url: string; pids: Array<[string, number]> }, upstream: number): typeof ref {
  return { url: ref.url, pids: [...ref.pids, ['upstream', upstream]] }
}
