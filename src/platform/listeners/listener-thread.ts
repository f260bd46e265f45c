// A listener thread: the gateway's request pipeline with its own uWS App on the main thread's port
// (SO_REUSEPORT), its own worker pool and its own connections to the instances, following the main
// thread's directory. Run by workers/listener.ts in a thread ListenerThreads starts (listener-threads.ts);
// docs/operating.md, "Listener threads".
import type { MessagePort } from 'node:worker_threads'
import { Gateway, type ThreadTotals } from '../../gateway/http/gateway'
import { Edge, type Descriptions } from '../../gateway/edge/edge'
import { DescriptionFiles } from '../package/descriptions'
import { PreparePool } from '../../gateway/prepare/prepare-pool'
import { MicroserviceDirectory } from '../../gateway/dispatch/directory'
import type { GatewayIndex } from '../../gateway/http/front-pages'
import { createLogger, type EventLog } from '../../common/observability/log'
import { BatchedLineWriter } from '../../common/observability/line-writer'
import { tracingActive } from '../../common/observability/tracing'
import { InternalError, errorMessage } from '../../common/errors/internal'
import { CallTelemetry, routeCounts, type RouteCounts } from '../../gateway/invoke/call-telemetry'
import { accessSampling } from '../../gateway/invoke/access-sampling'
import type { FromListener, ListenerStart, ToListener } from './listener-messages'
import { limiterFor } from '../../gateway/admission/rate-limits'
import { storeLog } from '../../gateway/admission/shared-counts'
import { Admission } from '../../gateway/admission/concurrency'
import { applyReload } from './reload'

/** Serves as a listener thread: `port` is the thread's link to the main thread, `start` what it was started with. */
export function listenerThread(port: MessagePort, start: ListenerStart): void {
  const config = start.config

  function post(m: FromListener, transfer?: ArrayBuffer[]): void {
    port.postMessage(m, transfer)
  }

  const logger = createLogger(start.logLevel, {
    write: (line: string) => post({ type: 'log', line })
  })
  const events = (component: string): EventLog => {
    const child = logger.child({ component, thread: start.thread })
    return (msg, fields) => (fields === undefined ? child.info(msg) : child.info(fields, msg))
  }

  // Whole lines in 64 KiB chunks (or every 50 ms) to the main thread's one stdout writer.
  const accessLog = start.accessLog
    ? new BatchedLineWriter((chunk) => {
        // The writer's chunks are 64 KiB buffers of their own, never used again once handed over: they
        // move without a copy. A slice of Node's shared 8 KiB pool would be copied.
        if (chunk.byteOffset === 0 && chunk.buffer.byteLength > Buffer.poolSize)
          return post({ type: 'access', chunk }, [chunk.buffer as ArrayBuffer])
        post({ type: 'access', chunk: new Uint8Array(chunk) })
      })
    : null

  const pool = new PreparePool({
    ...config.pool,
    maxThreads: start.poolThreads,
    minThreads: Math.min(config.pool.minThreads, start.poolThreads)
  })
  const directory = new MicroserviceDirectory(config.dispatch, events('dispatch'), config.platform.drainTimeoutMs)
  directory.onEject = (name, instance) => post({ type: 'eject', name, instance })
  for (const e of start.directory) directory.apply(e)
  const gateway = new Gateway(config.gateway, pool, directory, start.bounds)
  /** RATE_LIMITS.redis coming and going, as this thread's connection sees it. */
  const storeEvents = storeLog(
    logger.child({ component: 'rate-limits', thread: start.thread }),
    () => gateway.calls.limiter?.config.redis?.onFailure ?? 'local'
  )
  gateway.calls.limiter = limiterFor(config.rateLimits, start.limits, null, storeEvents)
  if (config.admission.adaptive) gateway.calls.admission = new Admission(config.admission)
  const telemetry = new CallTelemetry(start.metrics, accessLog, Date.now, accessSampling(config.logging))
  if (start.metrics || accessLog !== null || tracingActive()) gateway.calls.observer = telemetry

  // The edge's descriptions, read from the directories the main thread names (as its own edge reads them).
  let described = new Map(start.descriptions)
  const files = new DescriptionFiles()
  const descriptions: Descriptions = {
    get: (name) => {
      const dir = described.get(name)
      return dir === undefined ? null : files.read(dir)
    },
    names: () => [...described.keys()].filter((n) => descriptions.get(n) !== null).sort()
  }
  const edge = start.edge === null ? null : new Edge(gateway, descriptions, config.edge.auth, config.edge.tls)
  const tls = logger.child({ component: 'tls', thread: start.thread })
  gateway.listener.events = (level, msg, fields) => tls[level](fields, msg)
  if (edge !== null) edge.listener.events = gateway.listener.events

  /** Closes what listens (the gateway's App, and the edge's), at once. */
  function closeApps(): void {
    gateway.listener.close()
    edge?.close()
  }

  // GET / is answered with the main thread's view of what is deployed.
  let asks = 0
  const indexes = new Map<number, (index: GatewayIndex) => void>()
  gateway.index = () =>
    new Promise<GatewayIndex>((resolve) => {
      const id = ++asks
      indexes.set(id, resolve)
      post({ type: 'index', id })
    })

  function counts(): ThreadTotals & { routes: RouteCounts[] } {
    return {
      ...gateway.totals(),
      routes: [...telemetry.routes.values()].filter((r) => r.count > 0).map(routeCounts)
    }
  }

  /** The last counts, for the main thread to keep: a thread's calls stay counted after it ends. */
  function retire(): void {
    post({ type: 'retired', ...counts() })
  }

  /** Resolves the drain's wait for every thread to have stopped listening. */
  let everyoneStopped: (() => void) | null = null

  let failing = false
  /**
   * A thread that fails must close its uWS App before it ends: a worker that exits with the App open
   * aborts the whole process (Node's uv_loop_close check; measured, docs/operating.md). So the calls it
   * holds are answered, the App closed, and only then does the thread exit for the main thread to
   * start another.
   */
  function fail(err: unknown): void {
    if (failing) return
    failing = true
    const message = errorMessage(err)
    let abandoned = 0
    try {
      abandoned = gateway.calls.abandonAll({
        code: 'INTERNAL',
        detail: 'the listener thread serving this call failed; the call was cancelled and may have run'
      })
    } finally {
      post({ type: 'failed', message, abandoned })
      retire()
      closeApps()
      accessLog?.flushSync()
      directory.close()
      void pool.close().finally(() => process.exit(1))
    }
  }
  process.on('uncaughtException', fail)
  process.on('unhandledRejection', fail)

  port.on('message', (m: ToListener) => {
    switch (m.type) {
      case 'directory':
        return directory.apply(m.event)
      case 'descriptions':
        described = new Map(m.descriptions)
        return
      case 'idle': {
        const client = directory.get(m.name)?.instances.get(m.instance)
        const idle = client === undefined ? Promise.resolve() : client.whenIdle()
        return void idle.then(() => post({ type: 'idle', id: m.id }))
      }
      case 'serving':
        return void directory
          .whenServing(m.name, m.instance, m.ms)
          .then((serving) => post({ type: 'serving', id: m.id, serving }))
      case 'counts':
        return post({ type: 'counts', id: m.id, ...counts() })
      case 'index': {
        const resolve = indexes.get(m.id)
        indexes.delete(m.id)
        return resolve?.(m.index)
      }
      case 'closing':
        return everyoneStopped?.()
      case 'drain':
        return void gateway
          .close(
            m.times,
            () => edge?.stopListening(),
            () => {
              post({ type: 'stopped' })
              return new Promise<void>((resolve) => (everyoneStopped = resolve))
            }
          )
          .then(async () => {
            edge?.close()
            accessLog?.flushSync()
            retire()
            directory.close()
            await pool.close()
            post({ type: 'drained' })
            process.exit(0)
          })
      case 'reload': {
        let error: string | null = null
        try {
          const previous = gateway.calls.limiter
          applyReload(gateway, edge, m.config, () => limiterFor(m.config.rateLimits, m.limits, previous, storeEvents))
        } catch (err) {
          error = errorMessage(err)
        }
        return post({ type: 'reloaded', id: m.id, error })
      }
      case 'close':
        return fail(new Error('the platform was told to stop at once'))
      case 'fault':
        setImmediate(() => {
          throw new Error('a fault injected by the test harness')
        })
    }
  })

  // Listening only once this thread reaches every instance the main thread serves with.
  directory
    .caughtUp(config.dispatch.connectTimeoutMs)
    .then((caughtUp) => {
      if (!caughtUp)
        logger.warn(
          { component: 'dispatch', thread: start.thread },
          `listener thread ${start.thread} listens before it has reached every instance (${config.dispatch.connectTimeoutMs} ms)`
        )
      return listen()
    })
    .then(
      () => post({ type: 'listening' }),
      (err: unknown) => {
        post({ type: 'refused', failure: InternalError.toFailure(err, 'IGW_LISTEN') })
        closeApps()
        directory.close()
        void pool.close().finally(() => process.exit(1))
      }
    )

  /** The gateway's port and the edge's, as this thread serves them. */
  async function listen(): Promise<void> {
    if (start.gateway !== null) await gateway.listen(start.gateway.host, start.gateway.port)
    if (edge !== null && start.edge !== null) await edge.listen(start.edge)
  }
}
