import { splitArguments } from '../args/split'
import type { ApiMode, BodyFormat } from '../core/vocabulary'
import { varintLength, writeVarint, type FramePieces } from '../protocol/frame'
import { encodeInvokeFrame, type InvokeFields } from '../protocol/invoke-frame'
import { gateway } from '../protocol/generated/gateway'
import { GatewayError, type Failure } from '../errors/codes'
import { argumentCountRule } from '../core/rules'

/** Everything a worker needs to turn a body into an Invoke frame. Data only: it crosses threads. */
export interface InvokeTask {
  id: number
  body: Uint8Array
  mode: ApiMode
  format: BodyFormat
  service: string
  method: string
  sequence: string
  /** The method's parameter count from the catalog; RMC checks the argument count against it. */
  parameterCount: number
  context: gateway.ICallContext
  timeoutMs: number
  maxDepth: number
}

/** A Failure, the encoded frame (varint length + Frame), or, from a worker, the frame in pieces (FrameParts). */
export type InvokeTaskResult = Failure | Uint8Array | FrameParts

/**
 * An Invoke frame whose arguments stay where they are in the body: `head` holds everything else
 * (length prefixes, the call's fields, each argument's tag and length), and `layout` says how the
 * pieces follow each other: [headStart, headEnd, bodyStart, bodyEnd, ...]. Written in order (one
 * writev), the pieces are the frame encodeFrame makes, but for the place of the arguments field,
 * which protobuf allows anywhere in the message. Why: a 1 MB argument was copied into the frame
 * (0.6 ms) and the frame was one more 1 MB buffer for the garbage collector of the main thread.
 */
export interface FrameParts {
  head: Uint8Array
  body: Uint8Array
  layout: number[]
}

export function isFrameParts(r: InvokeTaskResult): r is FrameParts {
  return !(r instanceof Uint8Array) && 'layout' in r
}

/** The pieces of a FrameParts, in the order they are written; `onWritten` when they were (or never will be). */
export function framePieces(p: FrameParts, onWritten: (() => void) | null = null): FramePieces {
  const out: Uint8Array[] & { onWritten?: () => void } = []
  for (let k = 0; k < p.layout.length; k += 2) {
    const from = k % 4 === 0 ? p.head : p.body
    out.push(from.subarray(p.layout[k], p.layout[k + 1]))
  }
  if (onWritten !== null) out.onWritten = onWritten
  return out
}

/**
 * The one implementation of argument splitting and frame encoding. The Piscina worker and the
 * inline small-body path both call it, so both paths have the same behaviour and share tests.
 */
export function prepareInvoke(task: InvokeTask, inPieces = false): InvokeTaskResult {
  let slices: number[]
  try {
    slices = splitArguments(task.body, task.mode, task.format, task.maxDepth)
  } catch (err) {
    if (err instanceof GatewayError) return err.toFailure()
    throw err
  }
  const count = slices.length / 2
  if (task.mode === 'RMC') {
    const broken = argumentCountRule(task.service, task.method, task.parameterCount, count)
    if (broken !== null) return broken
  }
  const invoke: InvokeFields = {
    id: task.id,
    service: task.service,
    method: task.method,
    sequence: task.sequence,
    mode: task.mode === 'RMC' ? gateway.Mode.RMC : gateway.Mode.ROA,
    context: task.context,
    timeoutMs: task.timeoutMs
  }
  return inPieces ? invokeParts(invoke, task.body, slices) : encodeInvokeFrame(invoke, task.body, slices)
}

// Protobuf keys (field number << 3 | wire type 2, length-delimited) of Frame.invoke and Invoke.arguments.
const FRAME_INVOKE_KEY = (3 << 3) | 2
const INVOKE_ARGUMENT_KEY = (6 << 3) | 2

function invokeParts(invoke: gateway.IInvoke, body: Uint8Array, slices: number[]): FrameParts {
  const fields = gateway.Invoke.encode(invoke).finish()
  let invokeLength = fields.length
  for (let k = 0; k < slices.length; k += 2) {
    const n = slices[k + 1]! - slices[k]!
    invokeLength += 1 + varintLength(n) + n
  }
  const frameLength = 1 + varintLength(invokeLength) + invokeLength
  const headLength =
    varintLength(frameLength) +
    1 +
    varintLength(invokeLength) +
    fields.length +
    slices.reduce((sum, at, k) => (k % 2 === 0 ? sum + 1 + varintLength(slices[k + 1]! - at) : sum), 0)
  const head = new Uint8Array(headLength)
  let at = writeVarint(head, 0, frameLength)
  head[at++] = FRAME_INVOKE_KEY
  at = writeVarint(head, at, invokeLength)
  head.set(fields, at)
  at += fields.length
  const layout: number[] = []
  let pieceStart = 0
  for (let k = 0; k < slices.length; k += 2) {
    head[at++] = INVOKE_ARGUMENT_KEY
    at = writeVarint(head, at, slices[k + 1]! - slices[k]!)
    layout.push(pieceStart, at, slices[k]!, slices[k + 1]!)
    pieceStart = at
  }
  if (slices.length === 0) layout.push(0, at)
  return { head, body, layout }
}
