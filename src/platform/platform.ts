import {
  checkListenable,
  checkPlaintext,
  bindErrno,
  freePort,
  listenProblem,
  listenSettings,
  type ListenSetting
} from './listeners/listen-check'
import { join } from 'node:path'
import { renameSync } from 'node:fs'
import { Gateway, type ThreadTotals } from '../gateway/http/gateway'
import { Edge, type Descriptions } from '../gateway/edge/edge'
import { descriptionPaths, type GatewayIndex } from '../gateway/http/front-pages'
import { productVersion } from '../common/contract/product-version'
import { InternalError, errorMessage } from '../common/errors/internal'
import { DescriptionFiles } from './package/descriptions'
import { AdminServer, type AdminDeploys } from './admin'
import { DnsDiscovery } from '../gateway/dispatch/discovery'
import { PreparePool } from '../gateway/prepare/prepare-pool'
import { MicroserviceDirectory } from '../gateway/dispatch/directory'
import type { Arrivals } from '../gateway/dispatch/arrivals'
import { MicroserviceManager, type ManagerOptions } from './manager'
import { Deployer } from './package/deployer'
import { ControlServer } from './control'
import { zipDirectory } from './package/zip'
import { readMicroserviceConfig } from '../microservice/host/package-config'
import { loadConfig, type PlatformConfig, type RemoteInstance } from '../common/config/config'
import { applyReload, reloadChange, type ReloadOutcome, type ReloadChange } from './listeners/reload'
import type { Registry } from 'prom-client'
import { createLogger, type EventLog, type Logger, type LogLevel } from '../common/observability/log'
import { stdoutLines, type LineSink } from '../common/observability/line-writer'
import { tracingActive } from '../common/observability/tracing'
import { CallTelemetry } from '../gateway/invoke/call-telemetry'
import { accessSampling } from '../gateway/invoke/access-sampling'
import { createMetricsRegistry, type CallTotals } from './metrics'
import { ListenerThreads, type ThreadCounts } from './listeners/listener-threads'
import { addedRoutes, type RouteStats } from '../gateway/invoke/call-telemetry'
import pino, { type DestinationStream } from 'pino'
import type { TlsEvents } from '../gateway/tls/certificate-renewal'
import { loadTlsClient, type CertificateSet } from '../gateway/tls/certificates'
import type { TlsClient } from '../common/protocol/endpoint'
import type { ServedCertificate } from './metrics'
import { limiterFor, type RateLimiter } from '../gateway/admission/rate-limits'
import { storeLog, type StoreEvents } from '../gateway/admission/shared-counts'
import { Admission } from '../gateway/admission/concurrency'
import { stderrLineLevel } from '../microservice/host/jul-levels'

export interface PlatformOptions {
  /** Overrides the config's listen address (tests use 127.0.0.1 and port 0). */
  host?: string
  port?: number
  /** Overrides the edge's port (tests use 0). */
  edgePort?: number
  /** Overrides the admin listener's port (tests use 0). */
  adminPort?: number
  manager?: Partial<ManagerOptions>
  /** The platform's events (JSON lines); default: a pino logger on stdout at LOGGING.level. */
  logger?: Logger
  /** Where the access log goes when LOGGING.accessLog (default: stdout, in 64 KiB or 50 ms batches). */
  accessLog?: LineSink
  /** The config a reload reads (default: loadConfig(): $PLATFORM_CONFIG or config/platform.json, and the env). */
  reloadConfig?: () => PlatformConfig
}

/**
 * The main server: gateway, worker pool, dispatch directory, the microservice manager, the
 * deployer watching the upload directory and the control socket, in one process.
 */
export class Platform {
  readonly pool: PreparePool
  readonly directory: MicroserviceDirectory
  readonly gateway: Gateway
  readonly manager: MicroserviceManager
  readonly deployer: Deployer
  readonly control: ControlServer
  /** The edge on :8000, when EDGE.enabled. */
  readonly edge: Edge | null
  readonly admin: AdminServer
  /** Instances found in DNS (MICROSERVICES.discovery). */
  readonly discovery: DnsDiscovery
  adminPort = 0
  port = 0
  edgePort = 0
  readonly logger: Logger
  readonly telemetry: CallTelemetry
  /** The gateway's listener threads besides the main thread's (null with threads: 1). */
  readonly threads: ListenerThreads | null
  /** Prometheus metrics, served by the admin listener on /metrics (null when ADMIN.metrics is off). */
  readonly metrics: Registry | null
  private readonly log: EventLog
  /** RATE_LIMITS.redis coming and going, as the main thread's connection sees it. */
  private readonly storeEvents: StoreEvents
  /** Reloads one after another (SIGHUP and POST /reload may come together). */
  private reloads: Promise<unknown> = Promise.resolve()
  private descriptionsNow: Descriptions | null = null
  /** Each remote instance's TLS, its files read and checked when the platform is made (refused then). */
  private readonly remoteTls: Map<RemoteInstance, TlsClient>

  constructor(
    /** As it runs: a reload replaces it (RELOADABLE's parts only). */
    public config: PlatformConfig,
    private readonly options: PlatformOptions = {}
  ) {
    this.logger = options.logger ?? createLogger(config.logging.level)
    const events = (component: string, level: 'info' | 'warn'): EventLog => {
      const child = this.logger.child({ component })
      return (msg, fields) => (fields === undefined ? child[level](msg) : child[level](fields, msg))
    }
    this.log = events('platform', 'info')
    this.storeEvents = storeLog(
      this.logger.child({ component: 'rate-limits' }),
      () => this.config.rateLimits.redis?.onFailure ?? 'local'
    )
    this.remoteTls = new Map(
      config.microservices.remote.flatMap((r) => (r.tls === null ? [] : [[r, loadTlsClient(r.tls)] as const]))
    )
    const pf = config.platform
    const gatewayThreads = config.gateway.threads
    const edgeThreads = config.edge.enabled ? config.edge.threads : 0
    const listeners = Math.max(gatewayThreads, edgeThreads)
    // Each listener thread has a pool of its own: WORKER_POOL.maxThreads is shared out among them.
    const poolThreads = Math.max(1, Math.ceil(config.pool.maxThreads / listeners))
    this.pool = new PreparePool({
      ...config.pool,
      maxThreads: poolThreads,
      minThreads: Math.min(config.pool.minThreads, poolThreads)
    })
    this.directory = new MicroserviceDirectory(config.dispatch, events('dispatch', 'info'), pf.drainTimeoutMs)
    this.gateway = new Gateway(config.gateway, this.pool, this.directory)
    const limiter = limiterFor(config.rateLimits, null, null, this.storeEvents)
    this.gateway.calls.limiter = limiter
    if (config.admission.adaptive) this.gateway.calls.admission = new Admission(config.admission)
    const metricsOn = config.admin.enabled && config.admin.metrics
    const accessLog = config.logging.accessLog ? (options.accessLog ?? stdoutLines()) : null
    this.telemetry = new CallTelemetry(metricsOn, accessLog, Date.now, accessSampling(config.logging))
    const stream = (this.logger as unknown as Record<symbol, DestinationStream>)[pino.symbols.streamSym]!
    this.threads =
      listeners > 1
        ? new ListenerThreads({
            config,
            count: listeners - 1,
            gatewayThreads,
            edgeThreads,
            descriptions: () => this.describedDirectories(),
            bounds: this.gateway.calls.bounds.shared,
            limits: limiter?.store.shared ?? null,
            directory: this.directory,
            metrics: metricsOn,
            accessLog,
            events: (line) => stream.write(line),
            index: () => this.index(this.descriptionsNow),
            log: events('threads', 'info'),
            warn: events('threads', 'warn'),
            logLevel: this.logger.level as LogLevel,
            poolThreads
          })
        : null
    if (this.threads !== null) this.directory.follow(this.threads)
    // With nothing to observe, requests pay nothing (an OpenTelemetry SDK must be registered before start).
    if (metricsOn || accessLog !== null || tracingActive()) this.gateway.calls.observer = this.telemetry
    this.manager = new MicroserviceManager(
      this.directory,
      {
        restartMinMs: config.microservices.restartMinMs,
        restartMaxMs: config.microservices.restartMaxMs,
        snapshotDirectory: join(pf.deploymentDirectory, 'snapshots'),
        drainTimeoutMs: pf.drainTimeoutMs,
        startTimeoutMs: pf.startTimeoutMs,
        instances: pf.instances,
        transport: pf.localTransport,
        socketDirectory: pf.socketDirectory,
        callDefaults: { sequence: config.gateway.defaultSequenceName, apiId: config.gateway.defaultApiId },
        echo: echoInstance(this.logger.child({ component: 'instance' })),
        logs: {
          directory: join(pf.deploymentDirectory, '..', 'logs'),
          maxBytes: config.logging.instanceLogMaxBytes,
          files: config.logging.instanceLogFiles
        },
        ...options.manager
      },
      events('manager', 'info')
    )
    this.deployer = new Deployer(
      this.manager,
      {
        uploadDirectory: pf.uploadDirectory,
        deploymentDirectory: pf.deploymentDirectory,
        unpack: pf.unpack,
        // Loading a java package to check it is what an instance does before it listens.
        javaCheckTimeoutMs: pf.startTimeoutMs
      },
      events('deployer', 'info')
    )
    this.control = new ControlServer(this.manager, this.deployer, pf.controlSocket, () => {
      const { gateway, edge } = this.listenSettings()
      return {
        pid: process.pid,
        gateway: { host: gateway.host, port: this.port, tls: config.gateway.tls !== null },
        edge: edge === null ? null : { host: edge.host, port: this.edgePort, tls: config.edge.tls !== null }
      }
    })
    this.discovery = new DnsDiscovery(
      this.directory,
      config.microservices.discovery.map((d) => ({
        ...d,
        secret: remoteSecret({ name: d.name, secretEnv: d.secretEnv }),
        tls: d.tls === null ? null : loadTlsClient(d.tls)
      })),
      config.microservices.dnsServers,
      events('discovery', 'info')
    )
    this.metrics = metricsOn
      ? createMetricsRegistry({
          calls: this.callTotals(),
          gateway: this.gateway.calls.bounds,
          limits: () => this.gateway.calls.limiter,
          admission: () => this.gateway.calls.admission,
          pool: this.pool,
          manager: this.manager,
          deployer: this.deployer,
          certificates: () => this.certificates(),
          ready: () => this.admin.notReady() === null
        })
      : null
    this.admin = new AdminServer(
      this.manager,
      this.metrics,
      config.admin.readyRequires,
      adminDeploys(config, this.deployer, this.directory.arrivals, () => this.reload()),
      config.admin.enabled ? config.admin.tls : null
    )
    const descriptions = this.descriptions()
    this.descriptionsNow = descriptions
    this.edge = config.edge.enabled ? new Edge(this.gateway, descriptions, config.edge.auth, config.edge.tls) : null
    this.gateway.index = () => this.index(descriptions)
    const tls = this.logger.child({ component: 'tls' })
    const tlsEvents: TlsEvents = (level, msg, fields) => tls[level](fields, msg)
    for (const l of [this.gateway.listener, this.edge?.listener, this.admin]) if (l !== undefined) l.events = tlsEvents
  }

  /**
   * Reads the config again and applies what may change without a restart (src/platform/listeners/reload.ts,
   * RELOADABLE) on every listener thread. A config that does not load, or that a listener would
   * refuse, is refused whole and the running one stays. Calls in progress finish as they started.
   */
  reload(): Promise<ReloadOutcome> {
    const next = this.reloads.then(() => this.reloadNow())
    this.reloads = next
    return next
  }

  private async reloadNow(): Promise<ReloadOutcome> {
    let change: ReloadChange
    let limiter: RateLimiter | null
    try {
      change = reloadChange(this.config, (this.options.reloadConfig ?? (() => loadConfig()))())
      const previous = this.gateway.calls.limiter
      limiter = applyReload(this.gateway, this.edge, change.config, () =>
        limiterFor(change.config.rateLimits, null, previous, this.storeEvents)
      )
    } catch (err) {
      const reason = errorMessage(err)
      this.logger.warn(
        { component: 'platform', event: 'reload-refused', reason },
        `reload refused, the running config kept: ${reason}`
      )
      return { applied: false, reason }
    }
    this.config = change.config
    const failed = (await this.threads?.reload(change.config, limiter?.store.shared ?? null)) ?? []
    for (const f of failed)
      this.logger.error(
        { component: 'platform', event: 'reload-failed', ...f },
        `listener thread ${f.thread} could not apply the reload: ${f.error}`
      )
    const { changed, needsRestart } = change
    this.log(
      `reloaded: ${changed.length === 0 ? 'nothing changed' : changed.join(', ')}${needsRestart.length === 0 ? '' : `; a restart applies ${needsRestart.join(', ')}`}`,
      { event: 'reloaded', changed, needsRestart }
    )
    return { applied: true, changed, needsRestart }
  }

  /** Every certificate the listeners serve now (the main thread's view: its threads read the same files). */
  private certificates(): ServedCertificate[] {
    const listed = (listener: string, set: CertificateSet | null | undefined): ServedCertificate[] =>
      set === null || set === undefined
        ? []
        : [
            { listener, serverName: '', validTo: set.main.validTo },
            ...[...set.names].map(([serverName, c]) => ({ listener, serverName, validTo: c.validTo }))
          ]
    return [
      ...listed('gateway', this.gateway.listener.certificates),
      ...listed('edge', this.edge?.listener.certificates),
      ...listed('admin', this.admin.certificates)
    ]
  }

  /** The edge's view of what is deployed: the current directory's description of each enabled microservice. */
  private descriptions(): Descriptions {
    const files = new DescriptionFiles()
    const manager = this.manager
    const all = this.config.edge.swagger.includes('*')
    const enabled = new Set(this.config.edge.swagger)
    return {
      get: (name) => {
        if (!all && !enabled.has(name)) return null
        const microservice = this.manager.get(name)
        // A servletApp's methods are not exposed, so there is no call to describe.
        if (microservice === undefined || microservice.config.type === 'servletApp') return null
        return files.read(microservice.dir)
      },
      names() {
        return [...manager.microservices.keys()].filter((n) => this.get(n) !== null).sort()
      }
    }
  }

  /**
   * The counts /metrics reports: the main thread's, and the listener threads' asked for at each
   * scrape, added up into one set of totals.
   */
  private callTotals(): CallTotals {
    let threads: ThreadCounts[] = []
    const listeners = this.threads
    return {
      refresh: async () => {
        threads = listeners === null ? [] : await listeners.counts()
      },
      routes: (): RouteStats[] =>
        listeners === null
          ? [...this.telemetry.routes.values()]
          : addedRoutes([this.telemetry.routes.values(), ...threads.map((t) => t.routes)]),
      threads: () => [{ thread: '0', ...this.gateway.totals() }, ...totalsByThread(threads)],
      get restarts() {
        return listeners?.restarts ?? 0
      }
    }
  }

  /** The directory of each deployed microservice whose description the edge serves (for the threads' edges). */
  private describedDirectories(): Array<[string, string]> {
    const all = this.config.edge.swagger.includes('*')
    const enabled = new Set(this.config.edge.swagger)
    return [...this.manager.microservices.values()]
      .filter((m) => (all || enabled.has(m.name)) && m.config.type !== 'servletApp')
      .map((m) => [m.name, m.dir])
  }

  /** `GET /` on the gateway: what is deployed, its methods, and where the edge describes it. */
  private index(descriptions: Descriptions | null): GatewayIndex {
    const edge = this.edge === null || descriptions === null ? null : descriptions
    return {
      product: `invocation-gateway ${productVersion()}`,
      call: 'POST /{microservice}/{service}/{method} with the arguments as the body (JSON or XML)',
      edgePort: edge === null ? null : this.edgePort,
      microservices: this.manager.statuses().map((s) => {
        const paths = edge?.get(s.name) == null ? null : descriptionPaths(s.name)
        return {
          name: s.name,
          version: s.version,
          available: s.unavailable === null,
          unavailable: s.unavailable,
          type: s.type,
          methods: this.directory.get(s.name)?.catalog?.methods() ?? [],
          ui: paths?.ui ?? null,
          description: paths?.description ?? null
        }
      })
    }
  }

  /**
   * Restores what was deployed, deploys the bootstrap microservices that are not (packed and
   * uploaded through the same path as any upload), starts the directories and remote instances
   * of the config, then listens.
   */
  async start(directories = this.config.microservices.directories): Promise<number> {
    try {
      return await this.startAll(directories)
    } catch (err) {
      // What did start stops again (instances, sockets, their directories): a failed start leaves nothing.
      await this.stop(0, 0).catch(() => undefined)
      throw err
    }
  }

  private async startAll(directories: readonly string[]): Promise<number> {
    // First the control socket, which refuses to replace a running platform's; then every listener's
    // address is tried before anything starts: a busy port fails at once, naming its key.
    await this.control.listen()
    const listeners = this.listenSettings()
    checkPlaintext(Object.values(listeners))
    await checkListenable(Object.values(listeners).filter((s) => s !== null))
    // The admin listener comes up first, so an orchestrator sees "starting" (not ready) meanwhile.
    if (listeners.admin !== null)
      this.adminPort = await listening(listeners.admin, this.admin.listen(listeners.admin.host, listeners.admin.port))
    await this.deployer.restore()
    for (const dir of this.config.platform.bootstrap) await this.bootstrap(dir)
    this.deployer.watch()
    await this.deployer.idle()
    for (const dir of directories) await this.manager.start(dir)
    for (const r of this.config.microservices.remote)
      this.directory.register(
        r.name,
        { host: r.host, port: r.port, ...(r.tls !== null ? { tls: this.remoteTls.get(r)! } : {}) },
        `${r.name}@${r.host}:${r.port}`,
        {},
        remoteSecret(r)
      ).remote = true
    await this.discovery.start()
    const g = listeners.gateway
    const e = listeners.edge
    // Listener threads, and a TLS listener's next App after a renewal, share a port only when it is
    // named (see freePort).
    const shared = (s: { threads: number; tls: unknown }): boolean => s.threads > 1 || s.tls !== null
    if (shared(this.config.gateway) && g.port === 0) g.port = await freePort(g.host)
    if (e !== null && shared(this.config.edge) && e.port === 0) e.port = await freePort(e.host)
    this.port = await listening(g, this.gateway.listen(g.host, g.port))
    if (e !== null) this.edgePort = await listening(e, this.edge!.listen(e))
    // The other listener threads join the ports the main thread listens on (SO_REUSEPORT).
    await this.threads?.start(
      { host: g.host, port: this.port },
      e === null ? null : { host: e.host, port: this.edgePort }
    )
    this.admin.phase = 'ready'
    return this.port
  }

  /** Each listener's address (the options over the config) and the key it comes from; null when off. */
  private listenSettings(): { gateway: ListenSetting; edge: ListenSetting | null; admin: ListenSetting | null } {
    return listenSettings(this.config, this.options)
  }

  /** Packs `dir` into the upload directory unless its microservice is deployed already. */
  private async bootstrap(dir: string): Promise<void> {
    const config = readMicroserviceConfig(dir)
    if (this.manager.get(config.name) !== undefined) return
    const upload = this.config.platform.uploadDirectory
    const part = join(upload, `.${config.name}.zip.part`)
    await zipDirectory(dir, config.name, part)
    renameSync(part, join(upload, `${config.name}.zip`))
    this.log(`bootstrap: packed ${dir} and uploaded it as ${config.name}.zip`)
  }

  /** Resolves once the gateway can call `name`. */
  async connected(name: string, timeoutMs = 10000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const group = this.directory.get(name)
      if (group !== undefined && group.catalog !== null && group.unavailableReason() === null) return
      if (Date.now() > deadline)
        throw new InternalError('IGW_INSTANCE_START', `microservice '${name}' did not connect within ${timeoutMs} ms`)
      await new Promise((r) => setTimeout(r, 10))
    }
  }

  /**
   * The graceful drain, in an order a balancer can follow: /readyz turns 503 at once; the gateway
   * and the edge go on serving for PLATFORM.drainGraceMs (new connections too), every answer with
   * Connection: close; then they stop listening and serve the connections still open until no call
   * is in progress and none has come for drainIdleMs (up to drainTimeoutMs); then the connections
   * close and only then do the microservices stop. `graceMs` 0 skips the grace (Ctrl+C).
   */
  async stop(graceMs = this.config.platform.drainGraceMs, idleMs = this.config.platform.drainIdleMs): Promise<void> {
    const pf = this.config.platform
    this.admin.phase = 'draining'
    this.deployer.close()
    const times = { graceMs, idleMs, timeoutMs: pf.drainTimeoutMs }
    await Promise.all([
      this.gateway.close(
        times,
        () => this.edge?.stopListening(),
        () => this.threads?.stoppedListening() ?? Promise.resolve()
      ),
      this.threads?.drain(times) ?? Promise.resolve()
    ])
    this.edge?.close()
    await this.control.close()
    await this.manager.stopAll()
    this.discovery.close()
    this.directory.close()
    this.gateway.calls.limiter?.counts?.close()
    await this.pool.close()
    await this.admin.close()
    this.logger.flush()
  }
}

/** Instance output on the platform's stdout as log records: stderr at its JUL level (jul-levels.ts) or warn. */
function echoInstance(log: Logger): (instance: string, line: string, stderr: boolean) => void {
  return (instance, line, stderr) => log[stderr ? stderrLineLevel(line) : 'info']({ instance }, line)
}

function adminDeploys(
  config: PlatformConfig,
  deployer: Deployer,
  arrivals: Arrivals,
  reload: () => Promise<ReloadOutcome>
): AdminDeploys | null {
  const env = config.admin.deployTokenEnv
  if (env === null) return null
  const token = process.env[env] ?? ''
  if (token === '')
    throw new InternalError(
      'IGW_SECRET_MISSING',
      `ADMIN.deployTokenEnv: the environment variable ${env} holds no token`
    )
  return { deployer, arrivals, token, maxBytes: config.platform.unpack.maxTotalBytes, reload }
}

function remoteSecret(r: Pick<RemoteInstance, 'name' | 'secretEnv'>): string | null {
  if (r.secretEnv === null) return null
  const secret = process.env[r.secretEnv] ?? ''
  if (secret === '')
    throw new InternalError(
      'IGW_SECRET_MISSING',
      `MICROSERVICES.remote '${r.name}': the environment variable ${r.secretEnv} holds no secret`
    )
  return secret
}

/** A listen that failed after the check (the port was taken meanwhile) explained as the check would. */
async function listening(s: ListenSetting, listen: Promise<number>): Promise<number> {
  try {
    return await listen
  } catch (err) {
    const errno = (err as NodeJS.ErrnoException).code ?? (await bindErrno(s.host, s.port)) ?? 'EUNKNOWN'
    throw new InternalError('IGW_LISTEN', listenProblem(s, errno), { cause: err })
  }
}

/** The totals per listener thread: a thread started again adds to those of the one it replaced. */
function totalsByThread(counts: readonly ThreadCounts[]): Array<ThreadTotals & { thread: string }> {
  const by = new Map<number, ThreadTotals>()
  for (const c of counts) {
    const t = by.get(c.thread) ?? { answered: 0, polls: 0, rests: 0 }
    by.set(c.thread, { answered: t.answered + c.answered, polls: t.polls + c.polls, rests: t.rests + c.rests })
  }
  return [...by].sort(([a], [b]) => a - b).map(([thread, t]) => ({ thread: String(thread), ...t }))
}
