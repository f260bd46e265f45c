import { workerEntry } from '../../common/process/worker-entries'
import { availableParallelism } from 'node:os'
import { Piscina } from 'piscina'
import type { gateway } from '../../common/protocol/generated/gateway'
import type { RuntimeSettings } from './settings'
import type { InvokeLike } from './executor'
import { isShared } from '../../common/bytes/shared-buffers'

export interface MethodPoolOptions {
  /** The microservice's directory: each worker loads its code from there. */
  dir: string
  settings: RuntimeSettings
  privilegedNames: readonly string[]
}

/** What a worker sends back: the call's result, and whether the method ran to a value. */
export interface WorkerOutcome {
  result: gateway.IResult
  ran: boolean
}

/** What the method pool starts each thread with (its workerData). */
export interface MethodThreadStart {
  dir: string
  settings: RuntimeSettings
  privilegedNames: string[]
}

/** What a worker is given: the fields of the Invoke frame a call needs (arguments copied, not the frame). */
export interface WorkerTask extends InvokeLike {
  readonly context: gateway.ICallContext | null
}

/**
 * threadPoolSize as threads: calls of methods declared execution 'worker', and calls whose arguments
 * reach workerMinArgumentBytes, run on Piscina workers that load the microservice's code
 * themselves. At most min(threadPoolSize, cores) threads: more would not make CPU-bound methods
 * faster and each holds its own copy of the code. Created on the first call that needs it.
 */
export class MethodPool {
  private piscina: Piscina | null = null

  constructor(private readonly options: MethodPoolOptions) {}

  run(inv: InvokeLike, signal: AbortSignal): Promise<WorkerOutcome> {
    // An argument is a view into the frame's (or the socket's) buffer, and posting a view clones its
    // whole buffer, long enough under large calls for the gateway to eject the instance
    // (docs/performance.md). A large frame is in a shared buffer (FrameReader's pool), which the worker reads in
    // place; otherwise each argument is copied into a buffer of its own, which then moves.
    const shared = inv.arguments.length > 0 && inv.arguments.every(isShared)
    const args = shared ? inv.arguments : inv.arguments.map((a) => new Uint8Array(a))
    const task: WorkerTask = {
      service: inv.service,
      method: inv.method,
      sequence: inv.sequence,
      mode: inv.mode,
      arguments: args,
      context: inv.context ?? null
    }
    return (this.piscina ??= this.create())
      .run(task, {
        signal,
        transferList: shared ? [] : args.map((a) => a.buffer as ArrayBuffer)
      })
      .then((r: WorkerOutcome | Uint8Array) => (r instanceof Uint8Array ? { result: { body: r }, ran: true } : r))
  }

  /**
   * Starts a thread and waits until it has loaded the microservice's code, so that the first call's
   * executing time is not spent starting a worker.
   */
  async warm(): Promise<void> {
    await (this.piscina ??= this.create()).run({ warm: true })
  }

  get threads(): number {
    return this.piscina?.threads.length ?? 0
  }

  async close(): Promise<void> {
    const p = this.piscina
    this.piscina = null
    await p?.destroy()
  }

  private create(): Piscina {
    const s = this.options.settings
    return new Piscina({
      filename: workerEntry('method'),
      maxThreads: Math.max(1, Math.min(s.threadPoolSize, availableParallelism())),
      minThreads: 0,
      idleTimeout: 30000,
      // The server's own slots (threadPoolSize, queueLimit) bound what reaches the pool; Piscina's
      // 'auto' (threads²) refused a burst of large calls with 500s (docs/performance.md).
      maxQueue: Infinity,
      workerData: {
        dir: this.options.dir,
        settings: s,
        privilegedNames: [...this.options.privilegedNames]
      } satisfies MethodThreadStart
    })
  }
}
