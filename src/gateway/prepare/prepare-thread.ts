// What a thread of the gateway's worker pool runs (workers/prepare.ts): split the body into arguments and
// encode the Invoke frame off the listener's thread. The body is the gateway's shared buffer, read in
// place; what comes back is the frame's head and layout (FrameHead), the head's buffer moved, not
// copied: the listener's thread has the body.
import { transferableSymbol, valueSymbol, move } from 'piscina'
import { WORKER_NICENESS } from '../../common/contract/limits'
import { prepare, isSlicedFrame, type FrameHead, type PrepareTask, type Prepared } from './prepare'
import { lowerThreadPriority } from '../../common/process/thread-priority'

/** Piscina's Transferable: the value, and the buffer that moves with it. */
class MovedHead {
  constructor(private readonly value: FrameHead) {}
  get [transferableSymbol](): ArrayBuffer[] {
    return [this.value.head.buffer as ArrayBuffer]
  }
  get [valueSymbol](): FrameHead {
    return this.value
  }
}

/** The pool thread's task function, once the thread's priority is lowered. */
export function prepareThread(): (task: PrepareTask) => Prepared | FrameHead {
  // Large bodies are split here; small calls are answered on the listener's thread, which goes first.
  lowerThreadPriority(WORKER_NICENESS)
  return (task) => {
    const result = prepare(task, true)
    if (!isSlicedFrame(result)) return result
    return move(new MovedHead({ head: result.head, layout: result.layout })) as unknown as FrameHead
  }
}
