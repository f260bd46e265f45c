import { splitArguments } from './split'
import type { ApiMode, BodyFormat } from '../../common/contract/vocabulary'
import {
  encodeInvokeFrame,
  slicedInvokeFrame,
  type SlicedFrame,
  type InvokeFields
} from '../../common/protocol/invoke-frame'
import { gateway } from '../../common/protocol/generated/gateway'
import { GatewayError, type Failure } from '../../common/errors/codes'
import { argumentCountRule } from '../../common/contract/rules'

/** Everything a worker needs to turn a body into an Invoke frame. Data only: it crosses threads. */
export interface PrepareTask {
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

/** A Failure, the encoded frame (varint length + Frame), or the frame in pieces (a large body's). */
export type Prepared = Failure | Uint8Array | SlicedFrame

export function isSlicedFrame(r: Prepared): r is SlicedFrame {
  return !(r instanceof Uint8Array) && 'layout' in r
}

/** What a worker sends back of SlicedFrame: the main thread has the body. */
export type FrameHead = Omit<SlicedFrame, 'body'>

/**
 * The one implementation of argument splitting and frame encoding. The Piscina worker and the
 * inline small-body path both call it, so both paths have the same behaviour and share tests.
 */
export function prepare(task: PrepareTask, inPieces = false): Prepared {
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
  return inPieces ? slicedInvokeFrame(invoke, task.body, slices) : encodeInvokeFrame(invoke, task.body, slices)
}
