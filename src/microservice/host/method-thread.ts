// What a thread of a microservice's method pool runs (workers/method.ts): the microservice's code,
// loaded once when the thread starts, then the calls given to it.
import { Piscina } from 'piscina'
import { loadMicroservice } from './load-microservice'
import { Executor } from './executor'
import type { MethodThreadStart, WorkerOutcome, WorkerTask } from './method-pool'
import { lowerThreadPriority } from '../../common/process/thread-priority'
import { WORKER_NICENESS } from '../../common/contract/limits'

// A worker's call is stopped by terminating the thread (Piscina does it on abort), so its own
// ctx.signal never fires; it exists so that code reading it works the same on either side.
const NEVER = { signal: new AbortController().signal }

/**
 * The method thread's task function, with the microservice loaded. A successful call's bytes come
 * back alone and moved (transferred, not copied); anything else (an error, a void method) as a
 * WorkerOutcome.
 */
export function methodThread(
  start: MethodThreadStart
): (task: WorkerTask | { warm: true }) => Promise<WorkerOutcome | Uint8Array | null> {
  // Large and CPU-bound calls run here; the microservice's event loop, which answers small calls, goes first.
  lowerThreadPriority(WORKER_NICENESS)
  const { config, def } = loadMicroservice(start.dir)
  const executor = new Executor(def, {
    name: config.name,
    settings: start.settings,
    privilegedNames: start.privilegedNames
  })
  return async (task) => {
    // The code is loaded above, when the thread starts: a warm-up has nothing more to do.
    if ('warm' in task) return null
    const before = executor.stats.executed
    const result = await executor.execute(task, NEVER)
    const body = result.body
    if (result.error == null && body instanceof Uint8Array) {
      const own = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength ? body : new Uint8Array(body)
      return Piscina.move(own) as Uint8Array
    }
    return { result, ran: executor.stats.executed > before }
  }
}
