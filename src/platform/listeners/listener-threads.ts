import { Worker } from 'node:worker_threads'
import { workerEntry } from '../../common/process/worker-entries'
import type { DirectoryEvent, DirectoryFollowers, MicroserviceDirectory } from '../../gateway/dispatch/directory'
import type { PlatformConfig } from '../../common/config/config'
import type { DrainTimes, ThreadTotals } from '../../gateway/http/gateway'
import type { GatewayIndex } from '../../gateway/http/front-pages'
import type { EventLog, LogLevel } from '../../common/observability/log'
import type { LineSink } from '../../common/observability/line-writer'
import { InternalError } from '../../common/errors/internal'
import type { RouteCounts } from '../../gateway/invoke/call-telemetry'
import type { FromListener, ListenerStart, ToListener } from './listener-messages'

/** How long a scrape waits for a thread's counts before it reports the others without them. */
const COUNTS_WAIT_MS = 2000
/** A thread that fails again within this long of its start is started again later each time, up to RESTART_MAX_MS. */
const RESTART_MIN_MS = 100
const RESTART_MAX_MS = 5000
const STABLE_MS = 10000

export interface ListenerThreadsOptions {
  config: PlatformConfig
  /**
   * Threads besides the main thread: one fewer than the larger of ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.threads
   * and EDGE.threads. Thread k serves the gateway's port while k < the gateway's threads, the edge's
   * while k < the edge's.
   */
  count: number
  gatewayThreads: number
  /** 0 when the edge is off. */
  edgeThreads: number
  /** The edge's descriptions: the directory of each microservice whose UI it serves (sent again on each change). */
  descriptions: () => Array<[name: string, dir: string]>
  /** The main pipeline's bounds, shared. */
  bounds: SharedArrayBuffer
  /** The rate limits' counts, shared; null when RATE_LIMITS has no rules. */
  limits: SharedArrayBuffer | null
  directory: MicroserviceDirectory
  metrics: boolean
  /** Where the threads' access-log chunks go (the main thread's sink), null when the access log is off. */
  accessLog: LineSink | null
  /** Where the threads' platform events go, each a whole JSON line. */
  events: (line: string) => void
  /** The main thread's answer to `GET /`. */
  index: () => GatewayIndex
  /** The main thread's events about the threads (one failed, one started again). */
  log: EventLog
  warn: EventLog
  logLevel: LogLevel
  /** Each thread's share of WORKER_POOL.maxThreads. */
  poolThreads: number
}

/** What a thread sent when the metrics were scraped. */
export interface ThreadCounts extends ThreadTotals {
  thread: number
  routes: RouteCounts[]
}

/** A thread's counts as its message carries them. */
function threadCounts(thread: number, m: ThreadTotals & { routes: RouteCounts[] }): ThreadCounts {
  return { thread, answered: m.answered, polls: m.polls, rests: m.rests, routes: m.routes }
}

interface Slot {
  readonly thread: number
  /** The drain: the thread has closed its listening socket. */
  stopped: boolean
  readonly worker: Worker
  readonly startedAt: number
  /** Answers awaited from the thread, by request id. */
  readonly waiting: Map<number, (m: FromListener | null) => void>
  listening: boolean
  exited: Promise<number>
}

/**
 * The gateway's listener threads besides the main thread: each a worker thread running the request
 * pipeline on the same port (listener-thread.ts). They follow the main thread's directory
 * (DirectoryFollowers), admit against the shared bounds, send their access log and events here to
 * be written by the one stdout writer, and report their counts when /metrics is scraped. A thread
 * that fails has answered the calls it held; it is logged and started again.
 */
export class ListenerThreads implements DirectoryFollowers {
  private readonly slots: Array<Slot | null>
  private gatewayAt: { host: string; port: number } | null = null
  private edgeAt: { host: string; port: number } | null = null
  private stopping = false
  private asks = 0
  /** Failures in a row of each thread that failed soon after starting (for its restart's delay). */
  private readonly streaks: number[]
  /** Threads started again after one failed. */
  restarts = 0
  /** The last counts of threads that ended: still part of the totals. */
  private readonly retired: ThreadCounts[] = []
  /** The config and the rate limits' counts a thread starts with: the last reload's. */
  private config: PlatformConfig
  private limits: SharedArrayBuffer | null

  constructor(private readonly o: ListenerThreadsOptions) {
    this.config = o.config
    this.limits = o.limits
    this.slots = new Array<Slot | null>(o.count).fill(null)
    this.streaks = new Array<number>(o.count).fill(0)
  }

  /**
   * Starts every thread on the addresses the main thread listens on already (the edge's null when it
   * is off); resolves once all listen.
   */
  async start(gateway: { host: string; port: number }, edge: { host: string; port: number } | null): Promise<void> {
    this.gatewayAt = gateway
    this.edgeAt = edge
    await Promise.all(this.slots.map((_, k) => this.spawn(k)))
  }

  tell(event: DirectoryEvent): void {
    this.post({ type: 'directory', event })
    // What the edge describes changes with what is deployed, which each directory change follows.
    if (this.o.edgeThreads > 1) this.post({ type: 'descriptions', descriptions: this.o.descriptions() })
  }

  whenIdle(name: string, instance: string): Promise<void> {
    return Promise.all(this.live().map((s) => this.ask(s, { type: 'idle', id: 0, name, instance }))).then(
      () => undefined
    )
  }

  /**
   * Resolves true once the instance takes new calls on every live thread, false after `ms` when one
   * does not (a thread that does not answer at all counts as one that does not).
   */
  async whenServing(name: string, instance: string, ms: number): Promise<boolean> {
    const answers = await Promise.all(
      this.live().map((s) => this.ask(s, { type: 'serving', id: 0, name, instance, ms }, ms + 1000))
    )
    return answers.every((m) => m !== null && m.type === 'serving' && m.serving)
  }

  /**
   * Each live thread's counts, and those of threads that ended; a thread that does not answer within
   * 2 s is left out.
   */
  async counts(): Promise<ThreadCounts[]> {
    const answers = await Promise.all(
      this.live().map((s) => this.ask(s, { type: 'counts', id: 0 }, COUNTS_WAIT_MS).then((m) => ({ s, m })))
    )
    const out: ThreadCounts[] = [...this.retired]
    for (const { s, m } of answers) if (m !== null && m.type === 'counts') out.push(threadCounts(s.thread, m))
    return out
  }

  /**
   * Every live thread applies a reloaded config (src/platform/listeners/reload.ts), and threads started later
   * start with it; resolves with the threads that could not, and why.
   */
  async reload(
    config: PlatformConfig,
    limits: SharedArrayBuffer | null
  ): Promise<Array<{ thread: number; error: string }>> {
    this.config = config
    this.limits = limits
    const answers = await Promise.all(
      this.live().map((s) => this.ask(s, { type: 'reload', id: 0, config, limits }).then((m) => ({ s, m })))
    )
    const failed: Array<{ thread: number; error: string }> = []
    for (const { s, m } of answers)
      if (m !== null && m.type === 'reloaded' && m.error !== null) failed.push({ thread: s.thread, error: m.error })
    return failed
  }

  /** Every thread drains as the main thread does (DrainTimes) and ends; resolves once all have. */
  async drain(times: DrainTimes): Promise<void> {
    this.stopping = true
    const live = this.live()
    for (const s of live) s.worker.postMessage({ type: 'drain', times } satisfies ToListener)
    await Promise.all(live.map((s) => s.exited))
  }

  /**
   * The drain's barrier (Gateway.close's `stoppedListening`, on the main thread once it has stopped
   * listening): resolves once every thread has stopped listening too, and lets them go on; after 5 s
   * without a thread's word it goes on without it.
   */
  stoppedListening(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.release(), 5000)
      this.released = () => {
        clearTimeout(timer)
        resolve()
      }
      this.checkStopped()
    })
  }

  private released: (() => void) | null = null

  private checkStopped(): void {
    if (this.released === null || this.live().some((s) => !s.stopped)) return
    this.release()
  }

  private release(): void {
    const released = this.released
    this.released = null
    this.post({ type: 'closing' })
    released?.()
  }

  /**
   * Every thread closes at once (a second signal): the process may end only after each has closed
   * its App, or it aborts. Resolves once they have ended, or after `ms`.
   */
  async closeNow(ms = 1000): Promise<void> {
    this.stopping = true
    const live = this.live()
    for (const s of live) s.worker.postMessage({ type: 'close' } satisfies ToListener)
    let timer: NodeJS.Timeout | undefined
    await Promise.race([
      Promise.all(live.map((s) => s.exited)),
      new Promise((resolve) => (timer = setTimeout(resolve, ms)))
    ])
    clearTimeout(timer)
  }

  /** Tests: thread `thread` (1, 2, …) fails as an uncaught exception would make it. */
  fault(thread: number): void {
    this.slots[thread - 1]?.worker.postMessage({ type: 'fault' } satisfies ToListener)
  }

  /** Resolves once thread `thread` has been started again and listens (tests). */
  async whenListening(thread: number): Promise<void> {
    for (;;) {
      const s = this.slots[thread - 1]
      if (s?.listening === true) return
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }

  private live(): Slot[] {
    return this.slots.filter((s): s is Slot => s !== null)
  }

  private post(m: ToListener): void {
    for (const s of this.live()) s.worker.postMessage(m)
  }

  /** Sends a request and resolves with its answer, or null when the thread ends (or `ms` passes). */
  private ask(s: Slot, m: ToListener & { id: number }, ms = 0): Promise<FromListener | null> {
    const id = ++this.asks
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined
      if (ms > 0)
        timer = setTimeout(() => {
          s.waiting.delete(id)
          resolve(null)
        }, ms)
      s.waiting.set(id, (answer) => {
        clearTimeout(timer)
        resolve(answer)
      })
      s.worker.postMessage({ ...m, id })
    })
  }

  private spawn(k: number): Promise<void> {
    const o = this.o
    const thread = k + 1
    const start: ListenerStart = {
      config: this.config,
      thread,
      gateway: thread < o.gatewayThreads ? this.gatewayAt : null,
      edge: thread < o.edgeThreads ? this.edgeAt : null,
      descriptions: thread < o.edgeThreads ? o.descriptions() : [],
      bounds: o.bounds,
      limits: this.limits,
      directory: o.directory.snapshot(),
      metrics: o.metrics,
      accessLog: o.accessLog !== null,
      poolThreads: o.poolThreads,
      logLevel: o.logLevel
    }
    const worker = new Worker(workerEntry('listener'), { workerData: start, name: `listener ${thread}` })
    let exited: (code: number) => void = () => {}
    const slot: Slot = {
      thread,
      worker,
      startedAt: Date.now(),
      waiting: new Map(),
      listening: false,
      stopped: false,
      exited: new Promise((resolve) => (exited = resolve))
    }
    this.slots[k] = slot
    return new Promise<void>((resolve, reject) => {
      worker.on('message', (m: FromListener) => {
        switch (m.type) {
          case 'listening':
            slot.listening = true
            return resolve()
          case 'refused':
            return reject(InternalError.fromFailure(m.failure, `listener thread ${thread}: `))
          case 'log':
            return o.events(m.line)
          case 'access':
            return this.access(m.chunk)
          case 'eject':
            return o.directory.eject(m.name, m.instance)
          case 'index':
            return worker.postMessage({ type: 'index', id: m.id, index: o.index() } satisfies ToListener)
          case 'failed':
            return o.warn(
              `listener thread ${thread} failed: ${m.message}; the ${m.abandoned} calls it held were answered 500 INTERNAL`,
              { event: 'thread-failed', thread, abandoned: m.abandoned, error: m.message }
            )
          case 'retired':
            return void this.retired.push(threadCounts(thread, m))
          case 'stopped':
            slot.stopped = true
            return this.checkStopped()
          case 'drained':
            return
          default: {
            const answer = slot.waiting.get(m.id)
            slot.waiting.delete(m.id)
            answer?.(m)
          }
        }
      })
      worker.on('error', (err) =>
        o.warn(`listener thread ${thread}: ${err.message}`, { event: 'thread-error', thread })
      )
      worker.on('exit', (code) => {
        for (const answer of slot.waiting.values()) answer(null)
        slot.waiting.clear()
        if (this.slots[k] === slot) this.slots[k] = null
        exited(code)
        this.checkStopped()
        if (!slot.listening)
          reject(
            new InternalError('IGW_LISTEN', `listener thread ${thread} ended (exit code ${code}) before it listened`)
          )
        if (!this.stopping) this.restart(k, slot)
      })
    })
  }

  /** A failed thread is started again: at once the first time, later each time it fails soon after starting. */
  private restart(k: number, failed: Slot): void {
    const soon = Date.now() - failed.startedAt < STABLE_MS
    const streak = (this.streaks[k] = soon ? this.streaks[k]! + 1 : 1)
    const delay = streak <= 1 ? 0 : Math.min(RESTART_MAX_MS, RESTART_MIN_MS * 2 ** (streak - 2))
    setTimeout(() => {
      if (this.stopping) return
      this.restarts++
      this.spawn(k).then(
        () =>
          this.o.log(`listener thread ${failed.thread} started again`, {
            event: 'thread-restarted',
            thread: failed.thread,
            restarts: this.restarts
          }),
        (err: Error) => this.o.warn(err.message, { event: 'thread-error', thread: failed.thread })
      )
    }, delay).unref()
  }

  /** A thread's chunk of whole access-log lines, written after what the main thread has buffered. */
  private access(chunk: Uint8Array): void {
    const sink = this.o.accessLog
    if (sink === null) return
    const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    if ('append' in sink && typeof sink.append === 'function') return (sink.append as (b: Buffer) => void)(buf)
    const text = buf.toString('utf8')
    let from = 0
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', from)) {
      sink.write(text.slice(from, nl + 1))
      from = nl + 1
    }
  }
}
