import type { HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js'
import { copyHead, remoteAddress } from './head'
import { writeAnswer } from './respond'
import { uwsSupportError } from './uws-support'
import { closeApp, loadUws } from './uws'
import { peerMatcher } from '../core/peers'
import { Pipeline, Invocation } from '../invoke/invoke'
import type { Answer } from '../invoke/answer'
import type { Backends, BodySink, HttpPort, Preparer } from '../invoke/ports'
import type { GatewayConfig } from '../config/config'

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

  /**
   * Drains: stops accepting connections, answers new requests on open ones 503 with Connection: close,
   * lets the calls in progress finish for up to `graceMs`, then closes every connection.
   */
  async close(graceMs = 5000): Promise<void> {
    this.pipeline.draining = true
    if (this.listenSocket !== null) {
      this.uws.us_listen_socket_close(this.listenSocket)
      this.listenSocket = null
    }
    const deadline = Date.now() + graceMs
    while (this.pipeline.inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
    closeApp(this.app)
  }
}
