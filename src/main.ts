// `node dist/src/main.js`: the platform (gateway on :8082 and the configured microservices). `npm
// start` (scripts/start.mjs), the systemd unit and the container image all run this file, so what a
// start decides is decided here, once: the V8 flags the platform runs with (src/common/process/gc-flags.ts),
// and that one signal delivered several ways counts once.
import { parseArgs } from 'node:util'
import { fork } from 'node:child_process'
import { constants } from 'node:os'
import { performance } from 'node:perf_hooks'
import { productVersion } from './common/contract/product-version'
import { missingGcFlags } from './common/process/gc-flags'
import type { PlatformConfig } from './common/config/config'
import { checkPlaintext, listenSettings, reachableHost } from './platform/listeners/listen-check'
import { InternalError } from './common/errors/internal'

const HELP = `usage: node dist/src/main.js [--check] [--ready] [--help] [--version]

Starts the platform: the gateway (ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.port, 8082), the edge (EDGE.port,
8000) and the microservices deployed or bootstrapped. The config is PLATFORM_CONFIG, default
config/platform.json; a file sets only the keys it changes; PLATFORM__SECTION__key=value overrides one.

  --check      validate the config (file and environment) and exit: 0 when valid, 1 naming the key
  --ready      ask the running platform's ADMIN /readyz (the port this config gives it) and exit: 0 when
               it answers 200, 1 otherwise (the container image's health check)
  -h, --help   this text
  -v, --version`

/**
 * Set in the environment of the process main.js re-executes with the V8 flags it lacked: that one runs
 * the platform whatever its flags, so a flag Node drops or renames cannot make it re-execute again.
 */
const RELAUNCHED = 'PLATFORM_RELAUNCHED'

/**
 * One signal reaches the platform several times within a few milliseconds when it is delivered
 * several ways: `npm start` passes SIGTERM and SIGINT on to its script, which also gets them from the
 * process group that `timeout`, a CI runner, `kill -- -PGID` or a terminal's Ctrl+C signals. The same
 * signal again within this many ms of the one taken is that one, not the second signal that stops at
 * once; a person pressing Ctrl+C twice is slower than this.
 */
const SAME_SIGNAL_MS = 100

/** Says whether a signal is a new one (true) or the last one of its name delivered another way. */
function signalFilter(): (signal: NodeJS.Signals) => boolean {
  const taken = new Map<NodeJS.Signals, number>()
  return (signal) => {
    const now = performance.now()
    const last = taken.get(signal)
    if (last !== undefined && now - last < SAME_SIGNAL_MS) return false
    taken.set(signal, now)
    return true
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      check: { type: 'boolean', default: false },
      ready: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
      version: { type: 'boolean', short: 'v', default: false }
    }
  })
  if (values.help) return void console.log(HELP)
  if (values.version) return void console.log(`invocation-gateway ${productVersion()}`)
  // --check and --ready answer and exit: the V8 flags of a run do not matter to them.
  if (!values.check && !values.ready) {
    const relaunched = process.env[RELAUNCHED] !== undefined
    // Not passed on to what the platform starts (its microservice hosts).
    delete process.env[RELAUNCHED]
    const missing = relaunched ? [] : missingGcFlags()
    if (missing.length > 0) return relaunch(missing)
  }
  // Loaded only where the platform runs: a relaunching process never needs them.
  const { loadConfig, DEFAULT_CONFIG_FILE } = await import('./common/config/config.js')
  const config = loadConfig()
  if (values.check) {
    const { gateway, edge, admin } = listenSettings(config)
    checkPlaintext([gateway, edge, admin])
    const file = process.env.PLATFORM_CONFIG ?? DEFAULT_CONFIG_FILE
    return void console.log(
      `config ${file}: valid (gateway :${config.gateway.port}, edge ${config.edge.enabled ? `:${config.edge.port}` : 'off'})`
    )
  }
  if (values.ready) return probeReady(config.admin)
  await run(config)
}

/**
 * Runs the platform in a child process started with the V8 flags this one lacks (they cannot be
 * changed once V8 runs), and stands in for it: the child's output is this process's, its exit code
 * is this process's, and a signal this process gets is passed on once to the child's process group
 * (the platform and its microservice instances, which leave signals to the platform), however many
 * ways it arrived. systemd (KillMode=mixed) and a container runtime signal only this process, the
 * main one, and wait for it: it exits when the platform has drained and stopped.
 *
 * The child leads a process group of its own, so a signal to this process's group (a terminal's
 * Ctrl+C, `kill -- -PGID`) reaches it only through this process, once. Its IPC channel is its
 * lifeline: when this process dies, however it dies (`kill -9` of its group included), the platform
 * drains and exits instead of being left orphaned, serving and holding its ports.
 */
function relaunch(flags: string[]): void {
  const child = fork(__filename, process.argv.slice(2), {
    execArgv: [...process.execArgv, ...flags],
    env: { ...process.env, [RELAUNCHED]: '1' },
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    detached: true
  })
  const fresh = signalFilter()
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
    process.on(signal, () => {
      if (!fresh(signal)) return
      try {
        // SIGHUP asks the platform to read its config again: for it alone, not its instances.
        process.kill(signal === 'SIGHUP' ? child.pid! : -child.pid!, signal)
      } catch {
        // The platform has exited already; its exit ends this process.
      }
    })
  // Started with an IPC channel of its own (a supervisor's, a test's): when that goes, the platform
  // is told the same way, and drains.
  if (process.send !== undefined)
    process.on('disconnect', () => {
      if (child.connected) child.disconnect()
    })
  child.on('error', (err) => {
    console.error(`platform failed to start: ${err.message}`)
    process.exit(1)
  })
  child.on('exit', (code, signal) => process.exit(code ?? (signal === null ? 1 : 128 + constants.signals[signal])))
}

async function run(config: PlatformConfig): Promise<void> {
  const [{ Platform }, { createLogger }, { stdoutLines }, { yieldHelperThreads }] = await Promise.all([
    import('./platform/platform.js'),
    import('./common/observability/log.js'),
    import('./common/observability/line-writer.js'),
    import('./common/process/thread-priority.js')
  ])
  // Before the platform starts workers or libuv's pool: only Node's and V8's helpers are lowered.
  yieldHelperThreads()
  const logger = createLogger(config.logging.level)
  const log = logger.child({ component: 'main' })
  const platform = new Platform(config, { logger })
  const port = await platform.start()
  const microservices = [...platform.manager.microservices.keys()]
  const gw = config.gateway
  log.info(
    { host: gw.host, port, scheme: scheme(gw), threads: gw.threads, execArgv: process.execArgv, microservices },
    `gateway listening on ${where(gw, port)} (${threadCount(gw.threads)})`
  )
  if (platform.edge !== null)
    log.info(
      { host: config.edge.host, port: platform.edgePort, scheme: scheme(config.edge), threads: config.edge.threads },
      `edge listening on ${where(config.edge, platform.edgePort)} (${threadCount(config.edge.threads)}): ` +
        '/_swagger/{microservice}, /_eapi/ELASTIC_HTTP/…'
    )
  if (config.admin.enabled)
    log.info(
      { host: config.admin.host, port: platform.adminPort, scheme: scheme(config.admin) },
      `admin listening on ${where(config.admin, platform.adminPort)}: /healthz /readyz /status${config.admin.metrics ? ' /metrics' : ''}`
    )

  // Listener threads close their uWS Apps first: a process that ends with one open aborts.
  const exitNow = (): void => void (platform.threads?.closeNow() ?? Promise.resolve()).finally(() => process.exit(1))
  let stopping = false
  const stop = (signal: string): void => {
    // A second signal stops at once.
    if (stopping) {
      log.warn({ signal }, `${signal} again: stopping now`)
      logger.flush()
      return exitNow()
    }
    stopping = true
    // Ctrl+C in a terminal has no balancer to wait for: no grace.
    const graceMs = signal === 'SIGINT' ? 0 : config.platform.drainGraceMs
    const { drainTimeoutMs, drainIdleMs } = config.platform
    log.info(
      { signal, drainGraceMs: graceMs, drainIdleMs, drainTimeoutMs },
      `${signal}: draining (not ready; serving ${graceMs} ms more, then up to ${drainTimeoutMs} ms for the calls in progress)`
    )
    platform.stop(graceMs).then(
      async () => {
        log.info({ signal }, `stopped (${signal})`)
        // A chunk of lines already being written on a libuv thread is not written again by flush:
        // wait for it (one second at most, for a reader of stdout that has stopped reading).
        await Promise.race([stdoutLines().whenIdle(), new Promise((resolve) => setTimeout(resolve, 1000).unref())])
        logger.flush()
        process.exit(0)
      },
      (err: unknown) => {
        log.error({ err }, 'the drain failed')
        logger.flush()
        exitNow()
      }
    )
  }
  // SIGHUP: the config read again, and what may change without a restart applied (docs/operating.md,
  // "Reload"); the platform's log says what changed, or why the new config was refused.
  process.on('SIGHUP', () => {
    if (!stopping) void platform.reload()
  })
  // Run in this process (no relaunch: `npm start` on a machine whose flags need none), one signal
  // can arrive twice here as it does at a relauncher.
  const fresh = signalFilter()
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.on(signal, () => {
      if (fresh(signal)) stop(signal)
      else log.info({ signal }, `${signal} delivered a second way within ${SAME_SIGNAL_MS} ms: the same signal`)
    })
  // Started by a launcher with an IPC channel (main.js relaunched with its V8 flags, a test): when it
  // goes away, however it went, nobody supervises this process any more: drain and exit rather than
  // be orphaned.
  if (process.send !== undefined) process.on('disconnect', () => stop('the launcher exited'))
}

async function probeReady(admin: { enabled: boolean; host: string; port: number }): Promise<void> {
  if (!admin.enabled) throw new InternalError('IGW_CONFIG', 'ADMIN.enabled is false: there is no /readyz to ask')
  const url = `http://${reachableHost(admin.host)}:${admin.port}/readyz`
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(2000) })
    console.log(`${url}: ${r.status}`)
    if (r.status !== 200) process.exitCode = 1
  } catch (err) {
    console.error(`${url}: ${err instanceof Error && err.cause instanceof Error ? err.cause.message : String(err)}`)
    process.exitCode = 1
  }
}

main().catch((err: unknown) => {
  console.error(`platform failed to start: ${err instanceof Error ? err.message : String(err)}`)
  process.exit(1)
})

/** A listener's scheme: what a client types before its address. */
function scheme(l: { tls: unknown }): 'http' | 'https' {
  return l.tls === null ? 'http' : 'https'
}

/** A listener's address as a URL's origin (the start-up lines name what a client connects to). */
function where(l: { host: string; tls: unknown }, port: number): string {
  return `${scheme(l)}://${l.host.includes(':') ? `[${l.host}]` : l.host}:${port}`
}

function threadCount(n: number): string {
  return n === 1 ? '1 thread' : `${n} threads`
}
