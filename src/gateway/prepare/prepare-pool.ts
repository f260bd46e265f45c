import { workerEntry } from '../../common/process/worker-entries'
import { Piscina } from 'piscina'
import { prepare, type FrameHead, type PrepareTask, type Prepared } from './prepare'
import type { Failure } from '../../common/errors/codes'
import { InternalError, errorMessage } from '../../common/errors/internal'
import type { PoolOptions } from '../../common/config/config'

/**
 * The Piscina pool that splits arguments and encodes Invoke frames. Small bodies take the inline
 * path (the same prepare) because a thread round trip costs more than splitting them; see
 * bench/micro/pool-vs-inline.
 */
export class PreparePool {
  private readonly piscina: Piscina
  private closed = false
  /** Tasks handed to Piscina and not settled yet. */
  private outstanding = 0

  constructor(readonly options: PoolOptions) {
    this.piscina = new Piscina({
      filename: workerEntry('prepare'),
      maxThreads: options.maxThreads,
      minThreads: Math.min(options.minThreads, options.maxThreads),
      idleTimeout: options.idleTimeoutMs,
      maxQueue: options.maxQueue,
      // Each task is short; one at a time per thread keeps the 240 s timeout per task exact.
      concurrentTasksPerWorker: 1
    })
  }

  /** True when the body is small enough for the main thread. */
  isInline(task: PrepareTask): boolean {
    return task.body.byteLength <= this.options.inlineMaxBytes
  }

  /** One frame: copying a small body's arguments costs less than writing them as pieces. */
  runInline(task: PrepareTask): Prepared {
    return prepare(task)
  }

  /** Runs the task on a worker. Resolves to a Failure for OVERLOADED / EXECUTION_TIMEOUT instead of rejecting. */
  async run(task: PrepareTask, signal: AbortSignal | null): Promise<Prepared> {
    if (this.closed) return { code: 'OVERLOADED', detail: 'the gateway is shutting down' }
    // Piscina's own maxQueue does not count tasks that carry an AbortSignal (they wait in its
    // "skip queue"), and ours always do, for the executing timeout: so the limit is kept here.
    if (this.outstanding >= this.options.maxThreads + this.options.maxQueue) {
      return {
        code: 'OVERLOADED',
        detail: `${this.outstanding - this.options.maxThreads} tasks are waiting for a worker thread`
      }
    }
    this.outstanding++
    const controller = new AbortController()
    const timer = setTimeout(abortTask, this.options.taskTimeoutMs, controller, this.options.taskTimeoutMs)
    const onAbort = (): void => controller.abort()
    signal?.addEventListener('abort', onAbort, { once: true })
    try {
      // The body comes from the large-body pool (src/gateway/invoke/body.ts): shared with the worker, which
      // reads it in place and sends back only the frame's head.
      const r = (await this.piscina.run(task, { signal: controller.signal })) as Failure | FrameHead
      return 'layout' in r ? { head: r.head, layout: r.layout, body: task.body } : r
    } catch (err) {
      return toFailure(err, controller.signal, this.options.taskTimeoutMs)
    } finally {
      this.outstanding--
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
    }
  }

  get inlineMaxBytes(): number {
    return this.options.inlineMaxBytes
  }

  get threads(): number {
    return this.piscina.threads.length
  }
  get queueSize(): number {
    return Math.max(0, this.outstanding - this.piscina.threads.length)
  }
  get completed(): number {
    return this.piscina.completed
  }
  /** Piscina's utilization: run time over capacity since start, 0 to 1. */
  get utilization(): number {
    return this.piscina.utilization
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.piscina.destroy()
  }
}

/** The reason a task is aborted when it passes its timeout, told apart from other aborts by its class. */
class TaskTimeout extends InternalError {
  constructor(timeoutMs: number) {
    super('IGW_WORKER_TIMEOUT', `the task took longer than ${timeoutMs} ms`)
  }
}

function abortTask(controller: AbortController, timeoutMs: number): void {
  controller.abort(new TaskTimeout(timeoutMs))
}

function toFailure(err: unknown, signal: AbortSignal, timeoutMs: number): Failure {
  if (signal.aborted && signal.reason instanceof TaskTimeout) {
    return { code: 'EXECUTION_TIMEOUT', detail: `argument splitting took longer than ${timeoutMs} ms` }
  }
  if (signal.aborted) return { code: 'INTERNAL', detail: 'the request was aborted' }
  const message = errorMessage(err)
  if (/queue is at limit/i.test(message)) return { code: 'OVERLOADED', detail: 'the worker pool queue is full' }
  return { code: 'INTERNAL', detail: 'a worker failed while preparing the call' }
}
