// `npm start`: the platform (gateway on :8082 and the configured microservices) in this process.
import { parseArgs } from 'node:util'
import { loadConfig, DEFAULT_CONFIG_FILE } from './gateway/config/config'
import { productVersion } from './common/contract/product-version'
import { Platform } from './platform/platform'
import { reachableHost } from './platform/listeners/listen-check'
import { createLogger } from './common/observability/log'
import { stdoutLines } from './common/observability/line-writer'
import { yieldHelperThreads } from './common/process/thread-priority'

const HELP = `usage: node dist/src/main.js [--check] [--ready] [--help] [--version]

Starts the platform: the gateway (ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.port, 8082), the edge (EDGE.port,
8000) and the microservices deployed or bootstrapped. The config is PLATFORM_CONFIG, default
config/platform.json; a file sets only the keys it changes; PLATFORM__SECTION__key=value overrides one.

  --check      validate the config (file and environment) and exit: 0 when valid, 1 naming the key
  --ready      ask the running platform's ADMIN /readyz (the port this config gives it) and exit: 0 when
               it answers 200, 1 otherwise (the container image's health check)
  -h, --help   this text
  -v, --version`

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
  const config = loadConfig()
  if (values.check) {
    const file = process.env.PLATFORM_CONFIG ?? DEFAULT_CONFIG_FILE
    return void console.log(
      `config ${file}: valid (gateway :${config.gateway.port}, edge ${config.edge.enabled ? `:${config.edge.port}` : 'off'})`
    )
  }
  if (values.ready) return probeReady(config.admin)
  // Before the platform starts workers or libuv's pool: only Node's and V8's helpers are lowered.
  yieldHelperThreads()
  const logger = createLogger(config.logging.level)
  const log = logger.child({ component: 'main' })
  const platform = new Platform(config, { logger })
  const port = await platform.start()
  const microservices = [...platform.manager.microservices.keys()]
  log.info({ host: config.gateway.host, port, microservices }, `gateway listening on ${config.gateway.host}:${port}`)
  if (platform.edge !== null)
    log.info(
      { host: config.edge.host, port: platform.edgePort },
      `edge listening on ${config.edge.host}:${platform.edgePort}: /_swagger/{microservice}, /_eapi/ELASTIC_HTTP/…`
    )
  if (config.admin.enabled)
    log.info(
      { host: config.admin.host, port: platform.adminPort },
      `admin listening on ${config.admin.host}:${platform.adminPort}: /healthz /readyz /status${config.admin.metrics ? ' /metrics' : ''}`
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
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))
  // Started by a launcher with an IPC channel (`npm start`'s scripts/start.mjs): when it goes away,
  // however it went, nobody supervises this process any more: drain and exit rather than be orphaned.
  if (process.send !== undefined) process.on('disconnect', () => stop('the launcher exited'))
}

async function probeReady(admin: { enabled: boolean; host: string; port: number }): Promise<void> {
  if (!admin.enabled) throw new Error('ADMIN.enabled is false: there is no /readyz to ask')
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
