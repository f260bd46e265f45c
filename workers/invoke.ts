// Piscina task: split the body into arguments and encode the Invoke frame off the main thread.
// The frame's buffer is moved back to the main thread, not copied.
import { move } from 'piscina'
import { WORKER_NICENESS } from '../src/core/limits'
import { prepareInvoke, type InvokeTask, type InvokeTaskResult } from '../src/pool/task'
import { lowerThreadPriority } from '../src/core/thread-priority'

// Large bodies are split here; small calls are answered on the main thread, which goes first.
lowerThreadPriority(WORKER_NICENESS)

export default function invoke(task: InvokeTask): InvokeTaskResult {
  const result = prepareInvoke(task)
  return result instanceof Uint8Array ? (move(result) as unknown as Uint8Array) : result
}
