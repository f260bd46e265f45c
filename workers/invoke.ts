// Piscina task: split the body into arguments and encode the Invoke frame off the main thread.
// The frame comes back in pieces (FrameParts): its head, and the body with the arguments where they
// are; both buffers are moved back to the main thread, not copied.
import { transferableSymbol, valueSymbol, move } from 'piscina'
import { WORKER_NICENESS } from '../src/core/limits'
import { prepareInvoke, isFrameParts, type FrameParts, type InvokeTask, type InvokeTaskResult } from '../src/pool/task'
import { lowerThreadPriority } from '../src/core/thread-priority'
import { isShared } from '../src/core/shared-buffers'

// Large bodies are split here; small calls are answered on the main thread, which goes first.
lowerThreadPriority(WORKER_NICENESS)

const EMPTY = new Uint8Array(0)

/**
 * Piscina's Transferable: the value, and the buffers that move with it. A shared body (from the
 * gateway's large-body pool) is left out: the main thread has it, and posting it back would only
 * make another object for the same memory.
 */
class MovedParts {
  private readonly parts: FrameParts
  constructor(parts: FrameParts) {
    this.parts = isShared(parts.body) ? { ...parts, body: EMPTY } : parts
  }
  get [transferableSymbol](): ArrayBuffer[] {
    const { head, body } = this.parts
    return body === EMPTY || head.buffer === body.buffer
      ? [head.buffer as ArrayBuffer]
      : [head.buffer as ArrayBuffer, body.buffer as ArrayBuffer]
  }
  get [valueSymbol](): FrameParts {
    return this.parts
  }
}

export default function invoke(task: InvokeTask): InvokeTaskResult {
  const result = prepareInvoke(task, true)
  return isFrameParts(result) ? (move(new MovedParts(result)) as unknown as FrameParts) : result
}
