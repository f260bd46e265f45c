import { fork, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { readMicroserviceConfig } from '../runtime/package-config'
import type { HostMessage } from '../runtime/host'
import type { MicroserviceDirectory } from '../dispatch/client'

export const HOST_FILE = join(__dirname, '..', 'runtime', 'host.js')

export interface ManagerOptions {
  restartMinMs: number
  restartMaxMs: number
  /** Extra arguments for node (e.g. --max-old-space-size). */
  execArgv?: string[]
  /** 'quiet' drops the children's stdout (tests); stderr is always shown. */
  stdio?: 'inherit' | 'quiet'
}

export type ProcessState = 'starting' | 'running' | 'restarting' | 'stopped'

/** One microservice process and what the platform knows of it. */
export class ManagedMicroservice {
  state: ProcessState = 'starting'
  child: ChildProcess | null = null
  port = 0
  restarts = 0
  private failures = 0
  private timer: NodeJS.Timeout | null = null
  private readyWaiters: Array<(port: number) => void> = []

  constructor (readonly name: string, readonly dir: string, private readonly manager: MicroserviceManager) {}

  start (): void {
    const opts = this.manager.options
    const child = fork(HOST_FILE, [this.dir], { execArgv: opts.execArgv ?? [], stdio: opts.stdio === 'quiet' ? ['ignore', 'ignore', 'inherit', 'ipc'] : undefined })
    this.child = child
    this.state = this.restarts > 0 ? 'restarting' : 'starting'
    child.on('message', (msg: HostMessage) => {
      if (msg?.type !== 'listening' || child !== this.child) return
      this.port = msg.port
      this.state = 'running'
      this.failures = 0
      this.manager.directory.register(this.name, '127.0.0.1', msg.port)
      for (const w of this.readyWaiters.splice(0)) w(msg.port)
    })
    child.on('exit', (code, signal) => {
      if (child !== this.child) return
      this.child = null
      this.manager.directory.markDown(this.name)
      if (this.state === 'stopped') return
      // Crashed: start again with backoff (200 ms, 400 ms, ... up to the max).
      this.state = 'restarting'
      const delay = Math.min(opts.restartMaxMs, opts.restartMinMs * 2 ** this.failures)
      this.failures++
      this.restarts++
      this.manager.log(`microservice ${this.name} exited (${signal ?? `code ${String(code)}`}); restarting in ${delay} ms`)
      this.timer = setTimeout(() => { this.timer = null; this.start() }, delay)
    })
  }

  /** Resolves with the port once the process listens (now, if it already does). */
  ready (): Promise<number> {
    if (this.state === 'running') return Promise.resolve(this.port)
    return new Promise((resolve) => this.readyWaiters.push(resolve))
  }

  stop (): Promise<void> {
    this.state = 'stopped'
    if (this.timer !== null) { clearTimeout(this.timer); this.timer = null }
    const child = this.child
    if (child === null || child.exitCode !== null) return Promise.resolve()
    return new Promise((resolve) => {
      const kill = setTimeout(() => child.kill('SIGKILL'), 5000)
      child.once('exit', () => { clearTimeout(kill); resolve() })
      child.kill('SIGTERM')
    })
  }
}

/** Starts microservices from their directories as child processes and keeps them running. */
export class MicroserviceManager {
  readonly microservices = new Map<string, ManagedMicroservice>()

  constructor (readonly directory: MicroserviceDirectory, readonly options: ManagerOptions, readonly log: (line: string) => void = console.log) {}

  /** Starts the microservice in `dir` and resolves once it listens. Its config is validated first. */
  async start (dir: string): Promise<ManagedMicroservice> {
    const config = readMicroserviceConfig(dir)
    if (this.microservices.has(config.name)) throw new Error(`microservice '${config.name}' is already running`)
    const ms = new ManagedMicroservice(config.name, dir, this)
    this.microservices.set(config.name, ms)
    ms.start()
    await ms.ready()
    return ms
  }

  get (name: string): ManagedMicroservice | undefined {
    return this.microservices.get(name)
  }

  async stopAll (): Promise<void> {
    await Promise.all([...this.microservices.values()].map((m) => m.stop()))
    for (const name of this.microservices.keys()) this.directory.remove(name)
    this.microservices.clear()
  }
}
