import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js'
import type { GatewayIndex } from './front-pages'
import { copyHead, remoteAddress } from './copy-head'
import { writeAnswer, writePage, writeUnavailable } from './respond'
import { uwsSupportError } from './uws-support'
import { InternalError } from '../../common/errors/internal'
import { loadUws, Listener } from './uws'
import { peerMatcher } from '../../common/config/peers'
import { ClientCertificateReader } from '../tls/peer-certificates'
import type { MutableHead } from '../invoke/call-head'
import { Calls, Invocation } from '../invoke/invoke'
import type { Answer } from '../invoke/answer'
import type { Backends, BodySink, HttpPort, Preparer } from '../invoke/interfaces'
import type { GatewayConfig } from '../../common/config/config'
import { busyPoll } from '../dispatch/busy-poll'

/** How the gateway drains (PLATFORM.drainGraceMs, drainIdleMs, drainTimeoutMs). */
export interface DrainTimes {
  graceMs: number
  idleMs: number
  timeoutMs: number
}

/** A listener thread's totals since it started: calls answered, busy polling's periods and rests. */
export interface ThreadTotals {
  answered: number
  polls: number
  rests: number
}

/** The HTTP entry point on :8082, a uWS adapter: every path goes through one Invocation of the pipeline. */
export class Gateway implements HttpPort<HttpResponse> {
  /** The uWS module, loaded with this gateway's header limit (the edge listens with it too). */
  readonly uws: ReturnType<typeof loadUws>
  readonly calls: Calls<HttpResponse>
  readonly listener: Listener
  /** Whether the peer of a request may send the identity headers (ENTRY_POINTS…trust.trustedPeers). */
  trusts: (res: HttpResponse) => boolean
  /** tls.clientCertificates; null: none asked for. */
  private readonly clients: ClientCertificateReader | null
  /**
   * What `GET /` answers (set by the platform; a listener thread asks the main thread for it);
   * without it, `GET /` is a call like any other (405).
   */
  index: (() => GatewayIndex | Promise<GatewayIndex>) | null = null

  constructor(
    public config: GatewayConfig,
    preparer: Preparer,
    backends: Backends,
    /** The in-flight bounds' shared memory, when this gateway is one listener thread of several. */
    shared?: SharedArrayBuffer
  ) {
    const unsupported = uwsSupportError()
    if (unsupported !== null) throw new InternalError('IGW_UWS', unsupported)
    this.calls = new Calls(config, preparer, backends, this, shared)
    busyPoll.configure(config.busyPollMicroseconds)
    this.uws = loadUws(config.maxHeaderBytes)
    this.listener = new Listener(this.uws, (app) => this.routes(app), 'the gateway', config.tls)
    this.trusts = peerTrust(config)
    const clients = config.tls?.clientCertificates ?? null
    this.clients = clients === null ? null : new ClientCertificateReader(clients)
  }

  private routes(app: TemplatedApp): void {
    const call = (res: HttpResponse, req: HttpRequest): void =>
      startCall(this.calls, this.trusts, res, req, this.clients)
    app.any('/*', call)
    // Not a call (no microservice in the path): a newcomer's first request, answered with what is here.
    app.get('/', (res, req) => {
      const index = this.index
      // Under a required client certificate, the index is refused as a call is (by the call's plan).
      if (index === null || (this.clients?.requires === true && this.clients.read(res) === null)) return call(res, req)
      const now = index()
      if (!(now instanceof Promise)) return writeIndex(res, now)
      let aborted = false
      res.onAborted(() => (aborted = true))
      now.then(
        (i) => aborted || writeIndex(res, i),
        () => aborted || writeUnavailable(res)
      )
    })
  }

  /**
   * The settings a reload may change (src/platform/listeners/reload.ts): trusted peers, untrustedIdentity and
   * CORS. Requests from now on see them; a call in progress keeps what it was planned with.
   */
  reconfigure(config: GatewayConfig): void {
    this.trusts = peerTrust(config)
    this.config = config
    this.calls.reconfigure(config)
  }

  /** Requests holding a body or a call right now. */
  get inFlight(): number {
    return this.calls.inFlight
  }

  readBody(res: HttpResponse, sink: BodySink): void {
    readBody(res, sink)
  }

  write(res: HttpResponse, answer: Answer): void {
    writeAnswer(res, this.calls.cors, answer)
  }

  remoteAddress(res: HttpResponse): string {
    return remoteAddress(res)
  }

  get port(): number {
    return this.listener.port
  }

  listen(host = this.config.host, port = this.config.port): Promise<number> {
    return this.listener.listen(host, port)
  }

  /** Stops accepting connections; the open ones are served on. */
  stopListening(): void {
    this.listener.stop()
  }

  /** This thread's totals, for /metrics (each listener thread's Gateway and busyPoll are its own). */
  totals(): ThreadTotals {
    return { answered: this.calls.answered, polls: busyPoll.polls, rests: busyPoll.rests }
  }

  /**
   * The drain (DrainTimes): requests are served as before for `graceMs` (readiness is already 503, so
   * balancers that read it move away); then the gateway stops listening and serves the connections
   * still open, each answer with Connection: close, until none is in progress and none has come for
   * `idleMs` (so a balancer's idle keep-alive connections have been closed by the balancer, not under
   * a request it is sending), or `timeoutMs` has passed. Then every connection is closed.
   * `beforeStopListening` runs when the grace ends (the edge stops with it). `stoppedListening` is
   * awaited before answers start to carry Connection: close: with listener threads, until every
   * thread has stopped listening (a client told to close by one thread would otherwise reconnect
   * into the accept queue of a thread about to close its socket, and be reset there).
   */
  async close(
    times: Partial<DrainTimes> = {},
    beforeStopListening: () => void = () => {},
    stoppedListening: () => Promise<void> = () => Promise.resolve()
  ): Promise<void> {
    const { graceMs = 0, idleMs = 0, timeoutMs = 5000 } = times
    if (graceMs > 0) await new Promise((resolve) => setTimeout(resolve, graceMs))
    // A connection the kernel has accepted but uWS not yet is reset when the listening socket closes,
    // under a request a balancer has sent (nginx does not retry a POST it has sent). A timer runs before
    // the event loop's poll, so the queue then holds every connection made since the last one; the check
    // phase runs right after a poll has accepted them.
    await new Promise((resolve) => setImmediate(resolve))
    beforeStopListening()
    this.stopListening()
    await stoppedListening()
    // Not before: a client told to close reconnects at once.
    const calls = this.calls
    calls.closing = true
    await new Promise<void>((resolve) => {
      let idle: NodeJS.Timeout | undefined
      const end = (): void => {
        clearTimeout(idle)
        clearTimeout(limit)
        calls.onQuiet = null
        resolve()
      }
      const limit = setTimeout(end, timeoutMs)
      // Called after every answer or abort while closing: quiet for idleMs with nothing in progress ends it.
      calls.onQuiet = () => {
        clearTimeout(idle)
        if (calls.inFlight === 0) idle = setTimeout(() => calls.inFlight === 0 && end(), idleMs)
      }
      calls.onQuiet()
    })
    this.listener.close()
  }
}

function writeIndex(res: HttpResponse, index: GatewayIndex): void {
  writePage(res, 200, 'application/json; charset=utf-8', `${JSON.stringify(index, null, 2)}\n`)
}

/** The peer a trusted client certificate names may send identity headers, whatever its address. */
const TRUST_ALL = (): boolean => true

/**
 * A call on the gateway's listener: the head copied out of uWS's request (valid only in this
 * callback), then the pipeline. Exported for the per-call stage loop (bench/gateway-stage-loop.ts),
 * which drives this same code without a socket.
 */
export function startCall(
  calls: Calls<HttpResponse>,
  trusts: (res: HttpResponse) => boolean,
  res: HttpResponse,
  req: HttpRequest,
  clients: ClientCertificateReader | null = null
): void {
  let head: MutableHead
  if (clients === null) head = copyHead(req, res, trusts)
  else {
    // The certificate is read once: for the requirement, the trust and the call's context.
    const peer = clients.read(res)
    head = copyHead(req, res, peer !== null && clients.trusts(peer) ? TRUST_ALL : trusts)
    if (peer !== null) head.certificateSubject = peer.subject
    else head.certificateMissing = clients.requires
  }
  const inv = new Invocation(calls, res, head)
  // uWS: onAborted must be set before the callback returns, or an abort crashes the process.
  res.onAborted(() => inv.onAborted())
  inv.begin()
}

function peerTrust(config: GatewayConfig): (res: HttpResponse) => boolean {
  const trusted = peerMatcher(config.trust.trustedPeers)
  return (res) => trusted(remoteAddress(res))
}

/** The body of a uWS request, chunk by chunk, to the pipeline's sink. */
export function readBody(res: HttpResponse, sink: BodySink): void {
  res.onData((chunk, isLast) => sink.onChunk(chunk, isLast))
}
