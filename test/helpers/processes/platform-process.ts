// A platform as an operator runs it: `node dist/src/main.js` in a process group of its own (as
// systemd gives a service), configured through the environment, ports on 127.0.0.1. For tests that
// signal it, kill it or restart it.
import { fork, type ChildProcess } from 'node:child_process'
import type { Agent } from 'node:http'
import { postOn } from '../http-post'
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { gcFlags } from '../../../src/common/process/gc-flags'

const MAIN = join(__dirname, '..', '..', '..', 'src', 'main.js')

export interface PlatformProcessOptions {
  port: number
  edgePort: number
  adminPort: number
  /** Where uploads, deployments and the control socket go (a new temporary directory when absent). */
  home?: string
  /** More PLATFORM__… settings. */
  env?: Record<string, string>
}

export interface PlatformProcess {
  readonly child: ChildProcess
  readonly home: string
  /** stdout and stderr so far. */
  output(): string
  exited: Promise<number | null>
  /** Resolves once /readyz answers 200. */
  ready(timeoutMs?: number): Promise<void>
  readyz(): Promise<number>
  /** A signal to the platform's process alone, or to its whole group (its instances too). */
  signal(signal: NodeJS.Signals, group?: boolean): void
}

/**
 * The environment of a platform process of a test: its listeners on loopback at the given ports (no
 * edge without an edge port), its directories and control socket under `home`, no access log.
 */
export function platformEnv(
  home: string,
  ports: { port: number; edgePort?: number; adminPort: number }
): Record<string, string> {
  return {
    PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__host: '127.0.0.1',
    PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__port: String(ports.port),
    ...(ports.edgePort === undefined
      ? { PLATFORM__EDGE__enabled: 'false' }
      : { PLATFORM__EDGE__host: '127.0.0.1', PLATFORM__EDGE__port: String(ports.edgePort) }),
    PLATFORM__ADMIN__port: String(ports.adminPort),
    PLATFORM__PLATFORM__uploadDirectory: join(home, 'upload'),
    PLATFORM__PLATFORM__deploymentDirectory: join(home, 'deployments'),
    PLATFORM__PLATFORM__controlSocket: join(home, 'control.sock'),
    PLATFORM__LOGGING__accessLog: 'false'
  }
}

/** An answer of /testkit/slow/sleep, with the Connection header a drain sets. */
export interface SlowAnswer {
  status: number
  connection: string
  text: string
}

/** POST /testkit/slow/sleep on the gateway at `port`: answered with `ms` after that many ms. */
export async function slowCall(
  port: number,
  ms: string,
  agent: Agent | false = false,
  microservice = 'testkit'
): Promise<SlowAnswer> {
  const a = await postOn({ port, path: `/${microservice}/slow/sleep`, body: ms, agent })
  return { status: a.status, connection: String(a.headers.connection ?? ''), text: a.text }
}

export function startPlatformProcess(o: PlatformProcessOptions): PlatformProcess {
  const home = o.home ?? mkdtempSync(join(tmpdir(), 'platform-process-'))
  // With the flags main.js would re-execute itself to get, the child is the platform itself.
  const child = fork(MAIN, [], {
    execArgv: [...process.execArgv, ...gcFlags()],
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    detached: true,
    env: { ...process.env, ...platformEnv(home, o), ...o.env }
  })
  let out = ''
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const readyz = async (): Promise<number> =>
    (await fetch(`http://127.0.0.1:${o.adminPort}/readyz`, { signal: AbortSignal.timeout(2000) })).status
  return {
    child,
    home,
    output: () => out,
    exited,
    readyz,
    async ready(timeoutMs = 30000) {
      const deadline = Date.now() + timeoutMs
      while ((await readyz().catch(() => 0)) !== 200) {
        if (child.exitCode !== null) throw new Error(`the platform exited ${child.exitCode}: ${out.slice(-2000)}`)
        if (Date.now() > deadline) throw new Error(`not ready within ${timeoutMs} ms: ${out.slice(-2000)}`)
        await new Promise((r) => setTimeout(r, 50))
      }
    },
    signal(signal, group = false) {
      try {
        process.kill(group ? -child.pid! : child.pid!, signal)
      } catch {
        // already gone
      }
    }
  }
}
