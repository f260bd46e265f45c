import type { CatalogIndex } from '../dispatch/catalog'
import type { PendingCall, CallOutcome } from '../dispatch/pending'
import type { InvokeTask, InvokeTaskResult } from '../pool/task'
import type { Answer } from './answer'

/**
 * The seams of the pipeline: what it needs from the HTTP server, from dispatch and from the pool,
 * declared here so that invoke/ depends on no server and can be driven by a test without uWS.
 */

/** The HTTP side, one per server; `R` is its per-request response handle, opaque to the pipeline. */
export interface HttpPort<R> {
  /** Starts delivering the body: `sink.onChunk` per chunk (valid only during the call), `last` on the final one. */
  readBody(res: R, sink: BodySink): void
  /** Writes one whole answer. */
  write(res: R, answer: Answer): void
  /** The peer's address, for X-PLATFORM-IP when the header is absent. */
  remoteAddress(res: R): string
}

export interface BodySink {
  onChunk(chunk: ArrayBuffer, last: boolean): void
}

/** One microservice as the pipeline sees it: its catalog, whether it can take calls, and how to send one. */
export interface Backend {
  readonly catalog: CatalogIndex | null
  unavailableReason(): string | null
  send(call: PendingCall, frame: Uint8Array): void
}

export interface Backends {
  get(name: string): Backend | undefined
}

/** Splitting and encoding: inline for small bodies, on the worker pool for large ones. */
export interface Preparer {
  readonly inlineMaxBytes: number
  isInline(task: InvokeTask): boolean
  runInline(task: InvokeTask): InvokeTaskResult
  run(task: InvokeTask, signal: AbortSignal | null): Promise<InvokeTaskResult>
}

export type { CallOutcome }
