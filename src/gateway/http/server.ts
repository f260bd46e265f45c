import type { HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js'
import { copyHead, remoteAddress } from './head'
import { writeAnswer } from './respond'
import { uwsSupportError } from './uws-support'
import { closeApp, loadUws } from './uws'
import { peerMatcher } from '../config/peers'
import { Pipeline, Invocation } from '../invoke/invoke'
import type { Answer } from '../invoke/answer'
import type { Backends, BodySink, HttpPort, Preparer } from '../invoke/ports'
import type { GatewayConfig } from '../config/config'

/** How the gateway drains (PLATFORM.drainGraceMs, drainIdleMs, drainTimeoutMs). */
export interface DrainPlan {
  graceMs: number
  idleMs: number
  timeoutMs: number
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** The HTTP entry point on :8082, a uWS adapter: every path goes through one Invocation of the pipeline. */
export class Gateway implements HttpPort<HttpResponse> {
  readonly app: TemplatedApp
  /** The uWS module, loaded with this gateway's header limit (the edge listens with it too). */
  readonly uws: ReturnType<typeof loadUws>
  readonly pipeline: Pipeline<HttpResponse>
  private listenSocket: us_listen_socket | null = null
  /** Whether the peer of a request may send the identity headers (ENTRY_POINTS…trust.trustedPeers). */
  readonly trusts: (res: HttpResponse) => boolean
  port = 0

  constructor(
    readonly config: GatewayConfig,
    preparer: Preparer,
    backends: Backends
  ) {
    const unsupported = uwsSupportError()
    if (unsupported !== null) throw new Error(unsupported)
    this.pipeline = new Pipeline(config, preparer, backends, this)
    const trusted = peerMatcher(config.trust.trustedPeers)
    this.trusts = (res) => trusted(remoteAddress(res))
    this.uws = loadUws(config.maxHeaderBytes)
    this.app = this.uws.App()
    this.app.any('/*', (res, req) => {
      const inv = new Invocation(this.pipeline, res, copyHead(req, res, this.trusts))
      // uWS: onAborted must be set before the callback returns, or an abort crashes the process.
      res.onAborted(() => inv.onAborted())
      inv.begin()
    })
  }

  /** Requests holding a body or a call right now. */
  get inFlight(): number {
    return this.pipeline.inFlight
  }

  readBody(res: HttpResponse, sink: BodySink): void {
    res.onData((chunk, isLast) => sink.onChunk(chunk, isLast))
  }

  write(res: HttpResponse, answer: Answer): void {
    writeAnswer(res, this.pipeline.cors, answer)
  }

  remoteAddress(res: HttpResponse): string {
    return remoteAddress(res)
  }

  listen(host = this.config.host, port = this.config.port): Promise<number> {
    return new Promise((resolve, reject) => {
      this.app.listen(host, port, (token) => {
        if (token === false) {
          reject(new Error(`cannot listen on ${host}:${port}`))
          return
        }
        this.listenSocket = token
        this.port = this.uws.us_socket_local_port(token)
        resolve(this.port)
      })
    })
  }

  /** Stops accepting connections; the open ones are served on. */
  stopListening(): void {
    if (this.listenSocket !== null) {
      this.uws.us_listen_socket_close(this.listenSocket)
      this.listenSocket = null
    }
  }

  /**
   * The drain (DrainPlan): requests are served as before for `graceMs` (readiness is already 503, so
   * balancers that read it move away); then the gateway stops listening and serves the connections
   * still open, each answer with Connection: close, until none is in progress and none has come for
   * `idleMs` (so a balancer's idle keep-alive connections have been closed by the balancer, not under
   * a request it is sending), or `timeoutMs` has passed. Then every connection is closed.
   * `beforeStopListening` runs when the grace ends (the edge stops with it).
   */
  async close(plan: Partial<DrainPlan> = {}, beforeStopListening: () => void = () => {}): Promise<void> {
    const { graceMs = 0, idleMs = 0, timeoutMs = 5000 } = plan
    if (graceMs > 0) await sleep(graceMs)
    beforeStopListening()
    this.stopListening()
    // Not before: a client told to close reconnects at once, and a connection the kernel has accepted
    // but uWS not yet is reset when the listening socket closes, under a request a balancer has sent.
    this.pipeline.closing = true
    const deadline = Date.now() + timeoutMs
    let answered = -1
    let quietSince = Date.now()
    while (Date.now() < deadline) {
      const p = this.pipeline
      if (p.inFlight > 0 || p.answered !== answered) {
        answered = p.answered
        quietSince = Date.now()
      } else if (Date.now() - quietSince >= idleMs) break
      await sleep(Math.min(20, Math.max(1, idleMs)))
    }
    closeApp(this.app)
  }
}
