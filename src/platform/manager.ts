import type { EventLog } from '../common/observability/log'
import { InstanceLog, tailInstanceLogs, type InstanceLogOptions } from './instance-logs'
import { fork, spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  chmodSync,
  rmSync,
  readdirSync,
  readFileSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import type { Readable } from 'node:stream'
import { endpointText, parseEndpoint, type Endpoint } from '../common/protocol/endpoint'
import { InternalError, errorMessage } from '../common/errors/internal'
import {
  codeFile,
  codeFileNamed,
  readMicroserviceConfig,
  type ApplicationType,
  type MicroserviceConfig
} from '../microservice/host/package-config'
import type { HostMessage, PlatformMessage } from '../microservice/host/host'
import { hostEnv, HOST_FILE } from '../microservice/host/host-env'
import {
  isListenTarget,
  javaExecutable,
  javaHostEnv,
  javaInstanceArgs,
  parseListeningLine,
  requireJavaClassPath
} from '../microservice/host/java-host'
import { ensureDescription } from './package/descriptions'
import type { CallDefaults } from '../microservice/host/openapi'
import type { MicroserviceDirectory } from '../gateway/dispatch/directory'
import type { InstanceClient } from '../gateway/dispatch/instance'
import { gcFlags } from '../common/process/gc-flags'

export interface ManagerOptions {
  restartMinMs: number
  restartMaxMs: number
  /** Extra arguments for node (e.g. --cpu-prof). */
  execArgv?: string[]
  /** 'quiet' keeps the children's output in their log only; 'inherit' also prints it. */
  stdio?: 'inherit' | 'quiet'
  /** Where heap snapshots go: <dir>/<name>/. */
  snapshotDirectory?: string
  /** How long an old version may finish its calls after a new one took over. */
  drainTimeoutMs?: number
  /** How long a new instance may take to listen and connect. */
  startTimeoutMs?: number
  /** The Java host's class path file (JAVA_CLASSPATH_FILE); tests name a missing one for a platform without. */
  javaClassPathFile?: string
  /** Instances per microservice, overriding what its package says. */
  instances?: Record<string, number>
  /**
   * How local instances are reached: 'unix' (default), a socket file only this user may open, in a
   * directory of its own; 'tcp', loopback TCP (any local process could connect).
   */
  transport?: 'unix' | 'tcp'
  /** Where this run's directory of unix sockets is made (PLATFORM.socketDirectory); absent: the system's tmpdir. */
  socketDirectory?: string
  /** The gateway's defaults for a call without sequence and API headers: the API descriptions show them. */
  callDefaults?: CallDefaults
  /** Instance output in rotated files (survives a platform restart); without it, the last 1,000 lines in memory. */
  logs?: InstanceLogOptions
  /** How instance output is echoed when stdio is 'inherit' (the platform: as JSON log lines); default: as it is. */
  echo?: (instance: string, line: string, stderr: boolean) => void
}

/** The last lines the processes of a microservice printed, for `microservice logs`. */
export class LogRing {
  private readonly lines: string[] = []
  constructor(private readonly max = 1000) {}
  push(line: string): void {
    this.lines.push(line)
    if (this.lines.length > this.max) this.lines.splice(0, this.lines.length - this.max)
  }

  tail(n: number): string[] {
    return this.lines.slice(-n)
  }
}

/** A local instance's process state; a remote instance (MICROSERVICES.remote) is connected or not. */
export type InstanceState = 'starting' | 'running' | 'restarting' | 'stopped' | 'failed' | 'connected' | 'disconnected'

export interface InstanceStatus {
  id: string
  pid: number | null
  port: number
  /** Where it listens: unix:/path or host:port. */
  endpoint: string
  state: InstanceState
  restarts: number
  memoryRestarts: number
  heapMb: number
  message: string
  /** The version its handshake announced (null before one). */
  version: string | null
  /** On another host (MICROSERVICES.remote), not a process of this platform. */
  remote: boolean
}

/** V8's last words when the heap is exhausted, and the JVM's (on stdout, with ExitOnOutOfMemoryError). */
const OOM = /heap out of memory|Reached heap limit|java\.lang\.OutOfMemoryError/

/** One process of a microservice. */
export class Instance {
  state: InstanceState = 'starting'
  child: ChildProcess | null = null
  port = 0
  endpoint = ''
  restarts = 0
  memoryRestarts = 0
  heapMb: number
  message = ''
  private everListened = false
  private failures = 0
  private timer: NodeJS.Timeout | null = null
  private recent: string[] = []
  /** A Java instance's last stdout lines (the JVM tells of an exhausted heap there). */
  private recentOut: string[] = []
  /** @internal the instance's log file, when the manager keeps files */
  readonly file: InstanceLog | null
  private waiters: Array<{ resolve: () => void; reject: (err: Error) => void }> = []
  /** The Java host's class path, for a java package. */
  private readonly javaClassPath: string | null

  constructor(
    readonly id: string,
    readonly microservice: ManagedMicroservice,
    readonly dir: string,
    readonly config: MicroserviceConfig
  ) {
    this.heapMb = config.memory.maxOldSpaceMb
    // Now, so that a platform without a Java host refuses before any instance starts, not in a restart.
    this.javaClassPath = config.runtime === 'java' ? requireJavaClassPath(this.manager.options.javaClassPathFile) : null
    const logs = microservice.manager.options.logs
    this.file = logs === undefined ? null : new InstanceLog(logs, config.name, id)
  }

  private get manager(): MicroserviceManager {
    return this.microservice.manager
  }

  start(): void {
    const opts = this.manager.options
    const listen = this.manager.listenTarget()
    const child = this.config.runtime === 'java' ? this.spawnJava(listen) : this.forkNode(listen)
    this.child = child
    this.recent = []
    this.recentOut = []
    this.state = this.restarts > 0 ? 'restarting' : 'starting'
    const inherit = opts.stdio !== 'quiet'
    const java = this.config.runtime === 'java'
    const target = parseEndpoint(listen)
    const capture = (stream: NodeJS.ReadableStream, out: NodeJS.WriteStream, isErr: boolean): void => {
      let partial = ''
      stream.on('data', (d: Buffer) => {
        const text = partial + d.toString()
        const lines = text.split('\n')
        partial = lines.pop()!
        if (this.file !== null) this.file.write(lines)
        for (const line of lines) {
          if (this.file === null) this.microservice.logs.push(`[${this.id}] ${line}`)
          if (isErr) {
            this.recent.push(line)
            if (this.recent.length > 20) this.recent.shift()
          } else if (java) {
            // The JVM says its heap ran out on stdout; the Java host says it listens there too.
            this.recentOut.push(line)
            if (this.recentOut.length > 20) this.recentOut.shift()
            if (child === this.child && this.state !== 'running' && target !== null) this.onLine(line, target)
          }
          if (!inherit) continue
          if (opts.echo !== undefined) opts.echo(this.id, line, isErr)
          else out.write(`[${this.id}] ${line}\n`)
        }
      })
    }
    capture(child.stdout!, process.stdout, false)
    capture(child.stderr!, process.stderr, true)
    child.on('message', (msg: HostMessage) => {
      if (msg?.type === 'listening' && child === this.child) this.onListening(msg.endpoint)
    })
    child.on('exit', (code, signal) => {
      // No call goes to it from now; what it died of is decided once its last lines are read.
      if (child === this.child) this.manager.directory.markDown(this.config.name, this.id)
      afterOutput(child, () => this.onExit(child, code, signal))
    })
  }

  /** The Node host, forked: it says where it listens over the IPC channel, which is also its lifeline. */
  private forkNode(listen: string): ChildProcess {
    const opts = this.manager.options
    const execArgv = [...gcFlags(), ...(opts.execArgv ?? []), `--max-old-space-size=${this.heapMb}`]
    const dumps = this.heapDumpDir()
    if (dumps !== null) execArgv.push('--heapsnapshot-near-heap-limit=1', `--diagnostic-dir=${dumps}`)
    // MICROSERVICE_MANAGED: the instance leaves signals to this platform and stops when told (host.ts).
    const env = { ...hostEnv(), MICROSERVICE_LISTEN: listen, MICROSERVICE_SECRET: '', MICROSERVICE_MANAGED: '1' }
    return fork(HOST_FILE, [this.dir], { execArgv, env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] })
  }

  /**
   * The Java host: no IPC channel, so it says where it listens in its listening line, is told to stop
   * on stdin, and takes the end of stdin (this platform gone) as the same word.
   */
  private spawnJava(listen: string): ChildProcess {
    const args = javaInstanceArgs({
      classPath: this.javaClassPath!,
      dir: this.dir,
      heapMb: this.heapMb,
      heapDumpDir: this.heapDumpDir()
    })
    const env = javaHostEnv({ listen, secret: '', managed: true })
    const child = spawn(javaExecutable(), args, { env, stdio: ['pipe', 'pipe', 'pipe'] })
    // A JVM that is gone leaves its stdin broken: a late stop must not crash the platform with EPIPE.
    child.stdin!.on('error', () => {})
    // Not found or not runnable: told as an exit before it listened (a spawn error has no exit event).
    child.on('error', (err) => {
      this.recent.push(`cannot run ${javaExecutable()}: ${err.message}`)
      if (child.pid === undefined) this.onExit(child, null, null)
    })
    return child
  }

  /** Where a heap dump goes when the heap runs out (made now); null when the package turned them off. */
  private heapDumpDir(): string | null {
    if (!this.config.memory.heapDump) return null
    const opts = this.manager.options
    const dir = join(opts.snapshotDirectory ?? join(this.dir, '..', 'snapshots'), this.config.name)
    mkdirSync(dir, { recursive: true })
    return dir
  }

  /** A stdout line of a Java instance that has not listened yet: its listening line registers it. */
  private onLine(line: string, target: Endpoint): void {
    const said = parseListeningLine(line)
    if (said === null) return
    if (
      said.name !== this.config.name ||
      said.version !== this.config.version ||
      !isListenTarget(target, said.endpoint)
    ) {
      this.manager.log(
        `microservice ${this.id}: ignored a listening line for ${said.name} ${said.version} on ${endpointText(said.endpoint)}, which is not where or what it was started as`,
        this.event()
      )
      return
    }
    this.onListening(said.endpoint)
  }

  private onListening(endpoint: Endpoint): void {
    // Stopped while it started (a failed deploy's clean-up, a stop during a memory restart): it may still
    // say it listens, but it is on its way out and must not take calls, nor come back when it exits.
    if (this.state === 'stopped') return
    this.port = 'port' in endpoint ? endpoint.port : 0
    this.endpoint = endpointText(endpoint)
    this.state = 'running'
    this.everListened = true
    this.failures = 0
    this.message = ''
    this.manager.directory.register(this.config.name, endpoint, this.id, {
      availabilityTimeoutMs: this.config.availability.responseTimeMs
    })
    for (const w of this.waiters.splice(0)) w.resolve()
  }

  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    this.file?.flush()
    if (child !== this.child) return
    this.child = null
    const how = signal ?? `code ${String(code)}`
    if (this.state === 'stopped') return
    const lastWords = this.recent.slice(-5).join(' | ')
    if (!this.everListened) {
      // It never came up: restarting would only repeat the failure.
      this.state = 'failed'
      this.message = `exited (${how}) before it listened${lastWords !== '' ? `: ${lastWords}` : ''}`
      this.manager.log(`microservice ${this.id} ${this.message}`, this.event())
      for (const w of this.waiters.splice(0)) w.reject(new InternalError('IGW_INSTANCE_START', this.message))
      return
    }
    const memory = this.config.memory
    if (OOM.test([...this.recent, ...this.recentOut].join('\n'))) {
      if (!memory.restartOnError || this.memoryRestarts >= memory.restarts) {
        this.state = 'failed'
        this.message = memory.restartOnError
          ? `stopped after ${this.memoryRestarts} memory-error restarts; the heap limit was ${this.heapMb} MB`
          : `died of heap exhaustion at ${this.heapMb} MB; restartOnError is off`
        this.manager.log(`microservice ${this.id} ${this.message}`, this.event())
        return
      }
      this.memoryRestarts++
      this.heapMb = Math.ceil(this.heapMb * (1 + memory.growthPercent / 100))
      this.message = `memory error ${this.memoryRestarts} of ${memory.restarts}: restarted with a ${this.heapMb} MB heap`
      this.manager.log(`microservice ${this.id} ${this.message}`, this.event())
      this.restart(0)
      return
    }
    // Another crash: restart with backoff (min, 2×min, ... up to max).
    const delay = Math.min(this.manager.options.restartMaxMs, this.manager.options.restartMinMs * 2 ** this.failures)
    this.failures++
    this.message = `exited (${how}); restarting in ${delay} ms`
    this.manager.log(`microservice ${this.id} ${this.message}`, this.event())
    this.restart(delay)
  }

  private restart(delay: number): void {
    this.state = 'restarting'
    this.restarts++
    this.timer = setTimeout(() => {
      this.timer = null
      this.start()
    }, delay)
  }

  /** Resolves once the process listens; rejects when it exits before that. */
  ready(): Promise<void> {
    if (this.state === 'running') return Promise.resolve()
    if (this.state === 'failed') return Promise.reject(new InternalError('IGW_INSTANCE_START', this.message))
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }))
  }

  stop(): Promise<void> {
    this.state = 'stopped'
    if (this.timer !== null) {
      clearTimeout(this.timer)
      this.timer = null
    }
    for (const w of this.waiters.splice(0)) w.reject(new InternalError('IGW_INSTANCE_START', 'stopped'))
    const child = this.child
    if (child === null || child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
    return new Promise((resolve) => {
      const kill = setTimeout(() => child.kill('SIGKILL'), 5000)
      child.once('exit', () => {
        clearTimeout(kill)
        resolve()
      })
      // The instance leaves signals to its platform (a group signal reaches it too): asked over IPC, or
      // on the Java host's stdin, whose end says the same should the word not get through.
      const stop: PlatformMessage = { type: 'stop' }
      if (child.stdin !== null) child.stdin.end('stop\n')
      else if (child.connected) child.send(stop)
      else child.kill('SIGTERM')
    })
  }

  /** The instance's state as the fields of a log record. */
  private event(): Record<string, unknown> {
    return {
      event: 'instance',
      microservice: this.config.name,
      instance: this.id,
      state: this.state,
      restarts: this.restarts,
      memoryRestarts: this.memoryRestarts,
      heapMb: this.heapMb
    }
  }

  status(): InstanceStatus {
    return {
      id: this.id,
      pid: this.child?.pid ?? null,
      port: this.port,
      endpoint: this.endpoint,
      state: this.state,
      restarts: this.restarts,
      memoryRestarts: this.memoryRestarts,
      heapMb: this.heapMb,
      message: this.message,
      version: this.manager.directory.get(this.config.name)?.instances.get(this.id)?.catalog?.version ?? null,
      remote: false
    }
  }
}

export interface MicroserviceStatus {
  name: string
  version: string
  /** "nativeApp", or "servletApp": deployed and run, but not exposed by the gateway (docs/contract.md, Calls). */
  type: ApplicationType
  dir: string
  desired: 'running' | 'stopped'
  /** null when calls can be made; otherwise why not. */
  unavailable: string | null
  inflight: number
  instances: InstanceStatus[]
  /** The versions its connected instances run, newest first: more than one during a rollout. */
  versions: string[]
}

/** A deployed microservice: its package and the instances running it. */
export class ManagedMicroservice {
  instances: Instance[] = []
  desired: 'running' | 'stopped' = 'running'
  readonly logs = new LogRing()
  private generation = 0

  /** The last `n` lines its instances printed: from the files when there are (older runs included). */
  tail(n: number): string[] {
    const files = this.manager.options.logs
    if (files === undefined) return this.logs.tail(n)
    for (const i of this.instances) i.file?.flush()
    return tailInstanceLogs(files.directory, this.name, n)
  }

  constructor(
    readonly manager: MicroserviceManager,
    public dir: string,
    public config: MicroserviceConfig
  ) {}

  get name(): string {
    return this.config.name
  }

  /** Starts `instances` processes of the package and waits until the gateway can call each. */
  private async launch(dir: string, config: MicroserviceConfig): Promise<Instance[]> {
    const gen = ++this.generation
    const count = this.manager.options.instances?.[config.name] ?? config.instances
    const started = Array.from(
      { length: count },
      (_, k) => new Instance(`${config.name}@${config.version}#${gen}.${k}`, this, dir, config)
    )
    for (const i of started) i.start()
    try {
      await Promise.all(started.map((i) => i.ready()))
      await Promise.all(started.map((i) => this.manager.serving(config.name, i.id)))
    } catch (err) {
      for (const i of started) {
        await i.stop()
        this.manager.directory.removeInstance(config.name, i.id)
      }
      throw err
    }
    return started
  }

  async start(): Promise<void> {
    this.desired = 'running'
    if (this.instances.some((i) => i.state !== 'stopped' && i.state !== 'failed')) return
    this.instances = await this.launch(this.dir, this.config)
  }

  async stop(): Promise<void> {
    this.desired = 'stopped'
    await Promise.all(
      this.instances.map(async (i) => {
        await i.stop()
        this.manager.directory.removeInstance(this.name, i.id)
      })
    )
  }

  /**
   * Replaces the running version without dropping a call: the new instances start and connect,
   * new calls go to them, the old ones finish what they hold (up to drainTimeoutMs) and stop.
   * If the new version fails to start, the old one keeps running untouched.
   */
  async replace(dir: string, config: MicroserviceConfig): Promise<void> {
    const fresh = await this.launch(dir, config)
    const directory = this.manager.directory
    // Each listener thread connects to the new instances on its own: the old ones drain once every
    // thread can send to the new ones, or a thread still connecting would have nowhere to send a call.
    const ms = this.manager.options.startTimeoutMs ?? 15000
    const reached = await Promise.all(fresh.map((i) => directory.whenServing(this.name, i.id, ms)))
    if (reached.includes(false))
      this.manager.log(
        `microservice ${this.name} ${config.version}: not every listener thread reached its new instances within ${ms} ms; the old ones drain anyway`,
        { event: 'replace', microservice: this.name, version: config.version }
      )
    const old = this.instances
    this.instances = fresh
    this.dir = dir
    this.config = config
    this.desired = 'running'
    for (const i of old) directory.drain(this.name, i.id)
    const deadline = Date.now() + (this.manager.options.drainTimeoutMs ?? 30000)
    for (const i of old) {
      if (
        directory.get(this.name)?.instances.has(i.id) === true &&
        !(await idleOrTimeout(directory.whenIdle(this.name, i.id), deadline - Date.now()))
      ) {
        this.manager.drainTimeouts++
        this.manager.log(
          `microservice ${i.id}: told to stop with calls in flight, PLATFORM.drainTimeoutMs passed before they finished`,
          { event: 'drain-timeout', microservice: this.name, instance: i.id }
        )
      }
      await i.stop()
      this.manager.directory.removeInstance(this.name, i.id)
    }
  }

  status(): MicroserviceStatus {
    const group = this.manager.directory.get(this.name)
    return {
      name: this.name,
      version: this.config.version,
      type: this.config.type,
      dir: this.dir,
      desired: this.desired,
      unavailable:
        this.desired === 'stopped' ? 'stopped' : group === undefined ? 'not running' : group.unavailableReason(),
      inflight: group?.inflight ?? 0,
      instances: this.instances.map((i) => i.status()),
      versions: group?.versions ?? []
    }
  }
}

/**
 * Calls `then` once the output of an exited child is read to its end: 'exit' can come before its last
 * lines, and those say why it ended (a heap that ran out). After `ms` at the latest, should a process
 * it started hold its pipes open.
 */
function afterOutput(child: ChildProcess, then: () => void, ms = 1000): void {
  const open = [child.stdout, child.stderr].filter((s): s is Readable => s !== null && !s.destroyed)
  let left = open.length
  let timer: NodeJS.Timeout | undefined
  const done = (): void => {
    if (timer === undefined) return
    clearTimeout(timer)
    timer = undefined
    then()
  }
  timer = setTimeout(done, ms)
  if (left === 0) return done()
  for (const s of open)
    s.once('close', () => {
      if (--left === 0) done()
    })
}

/** A remote instance as status shows it: what the gateway's connection to it knows. */
function remoteInstanceStatus(id: string, c: InstanceClient): InstanceStatus {
  const endpoint = c.endpointText
  return {
    id,
    pid: null,
    port: Number(/:(\d+)$/.exec(endpoint)?.[1] ?? 0),
    endpoint,
    state: c.reason === null ? 'connected' : 'disconnected',
    restarts: 0,
    memoryRestarts: 0,
    heapMb: 0,
    message: c.reason ?? '',
    version: c.catalog?.version ?? null,
    remote: true
  }
}

/**
 * Resolves when the instance has no call in flight (`idle`), or after `ms`, whichever comes first:
 * true when it went idle, false when `ms` passed first.
 */
function idleOrTimeout(idle: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(ms, 0))))
  return Promise.race([idle.then(() => true), late]).finally(() => clearTimeout(timer))
}

/** Runs microservices as child processes, restarts them, replaces versions, and reports on them. */
export class MicroserviceManager {
  readonly microservices = new Map<string, ManagedMicroservice>()
  /** Instances of a replaced version stopped with calls in flight (drainTimeoutMs passed first). */
  drainTimeouts = 0

  private socketDir: string | null = null
  private sockets = 0

  constructor(
    readonly directory: MicroserviceDirectory,
    readonly options: ManagerOptions,
    readonly log: EventLog = console.log
  ) {}

  /**
   * Where the next local instance listens (MICROSERVICE_LISTEN): a new socket in a directory only this
   * user can enter (0700; the socket itself is 0600), short enough for the 108-byte limit of sun_path.
   */
  listenTarget(): string {
    if (this.options.transport === 'tcp') return 'tcp:127.0.0.1:0'
    if (this.socketDir === null) {
      const under = this.options.socketDirectory ?? tmpdir()
      mkdirSync(under, { recursive: true, mode: 0o700 })
      removeOrphanSocketDirs(under)
      this.socketDir = mkdtempSync(join(under, SOCKET_DIR_PREFIX))
      chmodSync(this.socketDir, 0o700)
      writeFileSync(join(this.socketDir, OWNER_FILE), String(process.pid))
    }
    return `unix:${join(this.socketDir, `${++this.sockets}.sock`)}`
  }

  /** Resolves once the gateway has a ready, available connection to the instance. */
  serving(name: string, instance: string): Promise<void> {
    const ms = this.options.startTimeoutMs ?? 15000
    return this.directory.until(
      () => this.directory.get(name)?.isServing(instance) === true,
      ms,
      () => new InternalError('IGW_INSTANCE_START', `instance ${instance} did not connect within ${ms} ms`)
    )
  }

  /** Starts (or replaces) the microservice in `dir`; its config is validated first. */
  async deploy(dir: string, config: MicroserviceConfig = readMicroserviceConfig(dir)): Promise<ManagedMicroservice> {
    if (!existsSync(join(dir, codeFile(config))))
      throw new InternalError('IGW_MICROSERVICE_LOAD', `${codeFileNamed(config)}, is not in the package`)
    if (config.runtime === 'java') requireJavaClassPath(this.options.javaClassPathFile)
    // The edge's description: the package's own, or generated now. A package whose code cannot even
    // be loaded fails below, when its instances start, with the reason; here it only has no description.
    await ensureDescription(dir, config, this.options.callDefaults, this.options.javaClassPathFile).catch(
      (err: unknown) => this.log(`${config.name}: no API description: ${errorMessage(err).split('\n')[0]}`)
    )
    const existing = this.microservices.get(config.name)
    if (existing !== undefined && existing.instances.some((i) => i.state !== 'stopped' && i.state !== 'failed')) {
      await existing.replace(dir, config)
      return existing
    }
    const microservice = existing ?? new ManagedMicroservice(this, dir, config)
    microservice.dir = dir
    microservice.config = config
    this.microservices.set(config.name, microservice)
    try {
      await microservice.start()
    } catch (err) {
      if (existing === undefined) {
        this.microservices.delete(config.name)
        this.directory.remove(config.name)
      }
      throw err
    }
    return microservice
  }

  /** Knows a microservice without starting it (restored in the stopped state). */
  adopt(dir: string, config: MicroserviceConfig): ManagedMicroservice {
    const microservice = new ManagedMicroservice(this, dir, config)
    microservice.desired = 'stopped'
    this.microservices.set(config.name, microservice)
    return microservice
  }

  /** Starts the microservice in a directory as it is (development and tests; no package). */
  async start(dir: string): Promise<ManagedMicroservice> {
    const config = readMicroserviceConfig(dir)
    if (this.microservices.has(config.name))
      throw new InternalError('IGW_MICROSERVICE_RUNNING', `microservice '${config.name}' is already running`)
    return await this.deploy(dir, config)
  }

  get(name: string): ManagedMicroservice | undefined {
    return this.microservices.get(name)
  }

  /**
   * Every microservice the gateway can call: the deployed ones and those served only by remote
   * instances (MICROSERVICES.remote), each with its remote instances listed beside its own.
   */
  statuses(): MicroserviceStatus[] {
    const names = new Set([...this.microservices.keys(), ...[...this.directory.all()].map((g) => g.name)])
    return [...names].map((n) => this.statusOf(n)).filter((s) => s !== undefined)
  }

  /** One microservice as `statuses` lists it (readiness asks this per request: only its own status is built). */
  statusOf(name: string): MicroserviceStatus | undefined {
    const st = this.microservices.get(name)?.status()
    const group = this.directory.get(name)
    const remote = group === undefined ? [] : [...group.instances].filter(([, c]) => c.remote)
    if (remote.length === 0) return st
    const out = st ?? {
      name,
      version: group!.versions[0] ?? group!.catalog?.version ?? 'unknown',
      type: group!.catalog?.servlet === true ? 'servletApp' : 'nativeApp',
      dir: '',
      desired: 'running',
      unavailable: group!.unavailableReason(),
      inflight: group!.inflight,
      instances: [],
      versions: group!.versions
    }
    for (const [id, c] of remote) out.instances.push(remoteInstanceStatus(id, c))
    return out
  }

  async remove(name: string): Promise<void> {
    const microservice = this.microservices.get(name)
    if (microservice === undefined) return
    await microservice.stop()
    this.directory.remove(name)
    this.microservices.delete(name)
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.microservices.values()].map((m) => m.stop()))
    for (const name of this.microservices.keys()) this.directory.remove(name)
    this.microservices.clear()
    if (this.socketDir !== null) rmSync(this.socketDir, { recursive: true, force: true })
    this.socketDir = null
  }
}

const SOCKET_DIR_PREFIX = 'igw-'
/** The pid of the platform that made a socket directory, so a later one can tell it is an orphan. */
const OWNER_FILE = 'owner.pid'

/**
 * Socket directories whose platform is gone (killed with SIGKILL: nothing removed them). A directory
 * without an owner file, or whose owner is alive, is left alone.
 */
export function removeOrphanSocketDirs(dir: string): string[] {
  const removed: string[] = []
  let names: string[]
  try {
    names = readdirSync(dir).filter((n) => n.startsWith(SOCKET_DIR_PREFIX))
  } catch {
    return removed
  }
  for (const name of names) {
    const path = join(dir, name)
    let pid: number
    try {
      pid = Number(readFileSync(join(path, OWNER_FILE), 'utf8'))
    } catch {
      continue
    }
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || alive(pid)) continue
    rmSync(path, { recursive: true, force: true })
    removed.push(path)
  }
  return removed
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}
