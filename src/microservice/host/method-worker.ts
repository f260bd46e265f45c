// A worker of the method pool: loads the microservice's code once, then runs calls given to it.
import { workerData } from 'node:worker_threads'
import { Piscina } from 'piscina'
import { loadMicroservice } from './load-microservice'
import { Executor } from './executor'
import type { RuntimeSettings } from './settings'
import type { WorkerOutcome, WorkerTask } from './method-pool'
import { lowerThreadPriority } from '../../common/process/thread-priority'
import { WORKER_NICENESS } from '../../common/contract/limits'

// Large and CPU-bound calls run here; the microservice's event loop, which answers small calls, goes first.
lowerThreadPriority(WORKER_NICENESS)

const data = workerData as { dir: string; settings: RuntimeSettings; privilegedNames: string[] }
const { config, def } = loadMicroservice(data.dir)
const executor = new Executor(def, {
  name: config.name,
  settings: data.settings,
  privilegedNames: data.privilegedNames
})

// A worker's call is stopped by terminating the thread (Piscina does it on abort), so its own
// ctx.signal never fires; it exists so that code reading it works the same on either side.
const NEVER = { signal: new AbortController().signal }

/**
 * A successful call's bytes come back alone and moved (transferred, not copied); anything else (an
 * error, a void method) as a WorkerOutcome.
 */
export default async function call(task: WorkerTask | { warm: true }): Promise<WorkerOutcome | Uint8Array | null> {
  // The code is loaded above, when the worker starts: a warm-up has nothing more to do.
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
