import type { CatalogIndex } from '../dispatch/catalog'
import type { PendingCall, CallOutcome } from '../dispatch/pending'
import type { PrepareTask, Prepared } from '../prepare/prepare'
import type { Answer } from './answer'
import type { MethodInfo } from '../dispatch/catalog'
import type { OutFrame } from '../../common/protocol/frame'

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
  send(call: PendingCall, frame: OutFrame): void
}

export interface Backends {
  get(name: string): Backend | undefined
  /** For a microservice announced but not here yet: resolves true once it serves, false if it never came. */
  arrival?(name: string): Promise<boolean> | undefined
}

/** Splitting and encoding: inline for small bodies, on the worker pool for large ones. */
export interface Preparer {
  readonly inlineMaxBytes: number
  isInline(task: PrepareTask): boolean
  runInline(task: PrepareTask): Prepared
  run(task: PrepareTask, signal: AbortSignal | null): Promise<Prepared>
}

export type { CallOutcome }

/** Who a credential says the caller is: the X-PLATFORM-User, -Privilege-Names and -Client-Application-Name it sets. */
export interface Principal {
  readonly user: string
  readonly privilegeNames: readonly string[]
  readonly clientApplicationName: string
}

/** A principal; a refusal (401, with why); null for a request without a credential, served anonymously. */
export type AuthOutcome = Principal | { readonly refused: string } | null

/**
 * Authentication, the pipeline's first stage for a listener that takes credentials (the edge). A
 * credential checked at once (an API key) answers at once; one verified asynchronously (a JWT)
 * answers with a promise, and the body is read meanwhile under the in-flight bounds.
 */
export interface Authentication {
  /** The WWW-Authenticate challenge sent with a 401. */
  readonly challenge: string
  authenticate(credentials: Credentials): AuthOutcome | Promise<AuthOutcome>
}

/** What a request presents to a listener's Authentication, as sent ('' when absent). */
export interface Credentials {
  readonly by: Authentication
  readonly apiKey: string
  readonly authorization: string
  /** The peer's verified client certificate (EDGE.tls.clientCertificates); null: none sent or none asked for. */
  readonly certificate: PeerCertificate | null
}

/** What a verified client certificate says about its holder (tls/peer-certificates.ts reads it). */
export interface PeerCertificate {
  /** The subject as RFC 4514 writes it, the most specific name first: `CN=edge,O=Acme`. */
  readonly subject: string
  /** Each subject attribute as `KEY=value` (`CN=edge`). */
  readonly attributes: ReadonlySet<string>
  /** Each subject alternative name as `DNS:edge.internal`, `URI:spiffe://…`, `IP Address:10.0.0.1`, `email:…`. */
  readonly altNames: readonly string[]
}

/** A request at its end, as an observer (metrics, access log, tracing) reads it. */
export interface ObservedCall {
  readonly requestId: string
  /** The HTTP method, lower case as uWS gives it. */
  readonly httpMethod: string
  /** The microservice and method, as far as planning found them: '' and null when refused before. */
  readonly microservice: string
  readonly method: MethodInfo | null
  readonly url: string
  readonly status: number
  /** The problem's code; '' for a success. */
  readonly code: string
  readonly bytesIn: number
  readonly bytesOut: number
  /** performance.now() when the request arrived. */
  readonly startedAt: number
  readonly traceparent: string
  /** The peer's address ('' once the client has gone). */
  clientAddress(): string
}

/**
 * What sees every request: told when it starts (it may return the traceparent to send on, e.g. a
 * span of its own) and when it is answered or abandoned by the client (status 499). Called on the
 * hot path: an observer does its own batching.
 */
export interface CallObserver {
  started(traceparent: string): { traceparent: string; span: unknown } | null
  finished(call: ObservedCall, span: unknown): void
}
