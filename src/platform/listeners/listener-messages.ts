import type { DirectoryEvent } from '../../gateway/dispatch/directory'
import type { PlatformConfig } from '../../common/config/config'
import type { DrainTimes, ThreadTotals } from '../../gateway/http/gateway'
import type { GatewayIndex } from '../../gateway/http/front-pages'
import type { RouteCounts } from '../../gateway/invoke/call-telemetry'
import type { LogLevel } from '../../common/observability/log'
import type { InternalFailure } from '../../common/errors/internal'

/**
 * What crosses between the main thread and a listener thread (src/platform/listeners/listener-thread.ts),
 * each message a plain object of one of these shapes.
 */

/** A listener thread's start: its config, where to listen, and the directory as it is now. */
export interface ListenerStart {
  config: PlatformConfig
  /** 1, 2, …: the main thread is 0. */
  thread: number
  /** Where the thread listens for the gateway; null: it serves the edge only. */
  gateway: { host: string; port: number } | null
  /** Where the thread listens for the edge; null: it does not serve the edge. */
  edge: { host: string; port: number } | null
  /** The directories of the microservices whose API description the edge serves (EDGE.swagger). */
  descriptions: Array<[name: string, dir: string]>
  /** The bounds' shared memory (src/gateway/invoke/bounds.ts). */
  bounds: SharedArrayBuffer
  /** The rate limits' counts (src/gateway/admission/limit-store.ts); null when RATE_LIMITS has no rules. */
  limits: SharedArrayBuffer | null
  /** The directory's state when the thread was made; its changes follow as messages. */
  directory: DirectoryEvent[]
  /** Whether the thread counts calls for /metrics, and writes the access log. */
  metrics: boolean
  accessLog: boolean
  /** The main thread's log level (tests run it silent). */
  logLevel: LogLevel
  /** The thread's own worker pool's most threads (WORKER_POOL.maxThreads shared out). */
  poolThreads: number
}

export type ToListener =
  | { type: 'directory'; event: DirectoryEvent }
  | { type: 'descriptions'; descriptions: Array<[name: string, dir: string]> }
  | { type: 'idle'; id: number; name: string; instance: string }
  /** Answered once the instance takes new calls on the thread (its own connection made), or after `ms`. */
  | { type: 'serving'; id: number; name: string; instance: string; ms: number }
  | { type: 'counts'; id: number }
  | { type: 'index'; id: number; index: GatewayIndex }
  | { type: 'drain'; times: DrainTimes }
  /** Every listener thread has stopped listening: answers may now carry Connection: close. */
  | { type: 'closing' }
  /** Stop now (a second signal): the calls held are answered 500, the App closed, the thread ends. */
  | { type: 'close' }
  /** A reloaded config (src/platform/listeners/reload.ts) and the rate limits' new shared counts. */
  | { type: 'reload'; id: number; config: PlatformConfig; limits: SharedArrayBuffer | null }
  /** Tests: the thread fails as an uncaught exception would make it. */
  | { type: 'fault' }

export type FromListener =
  | { type: 'listening' }
  /** It cannot listen: why, as data (InternalError.toFailure). */
  | { type: 'refused'; failure: InternalFailure }
  | { type: 'idle'; id: number }
  /** Whether the instance took new calls on this thread within the time asked. */
  | { type: 'serving'; id: number; serving: boolean }
  | ({ type: 'counts'; id: number; routes: RouteCounts[] } & ThreadTotals)
  | { type: 'index'; id: number }
  /** The reload applied (error null), or why this thread could not. */
  | { type: 'reloaded'; id: number; error: string | null }
  | { type: 'eject'; name: string; instance: string }
  /** One platform event, a whole JSON line. */
  | { type: 'log'; line: string }
  /** Access-log lines, whole, in one chunk (its buffer transferred). */
  | { type: 'access'; chunk: Uint8Array }
  /** The thread's listening socket is closed (the drain waits for every thread's). */
  | { type: 'stopped' }
  /** The thread's counts as it ends (failing or drained), kept by the main thread so totals never go back. */
  | ({ type: 'retired'; routes: RouteCounts[] } & ThreadTotals)
  | { type: 'drained' }
  /** The thread is failing: it answered the calls it held and closes; then it exits. */
  | { type: 'failed'; message: string; abandoned: number }
