import uWS from 'uWebSockets.js'
import type { TemplatedApp, us_listen_socket } from 'uWebSockets.js'
import { RequestHead } from './head'
import { corsPolicy, type CorsPolicy } from './respond'
import { Invocation } from '../invoke/invocation'
import type { GatewayConfig } from '../config/config'
import type { InvokePool } from '../pool/pool'
import type { MicroserviceDirectory } from '../dispatch/client'

/** The HTTP entry point on :8082: every path goes through one Invocation. */
export class Gateway {
  readonly app: TemplatedApp
  readonly cors: CorsPolicy
  readonly retryAfter: string
  /** Requests holding a body or a call right now. */
  inFlight = 0
  private callIds = 0
  private listenSocket: us_listen_socket | null = null
  port = 0

  constructor (readonly config: GatewayConfig, readonly pool: InvokePool, readonly directory: MicroserviceDirectory) {
    this.cors = corsPolicy(config.cors.allowedOrigins, config.cors.maxAgeSeconds)
    this.retryAfter = String(config.retryAfterSeconds)
    this.app = uWS.App()
    this.app.any('/*', (res, req) => {
      const inv = new Invocation(this, res, new RequestHead(req))
      res.onAborted(() => inv.onAborted())
      inv.begin()
    })
  }

  /** Call ids are unique per gateway, so they stay unique over every connection. */
  nextCallId (): number {
    this.callIds = this.callIds >= 0xffffffff ? 1 : this.callIds + 1
    return this.callIds
  }

  listen (host = this.config.host, port = this.config.port): Promise<number> {
    return new Promise((resolve, reject) => {
      this.app.listen(host, port, (token) => {
        if (token === false) {
          reject(new Error(`cannot listen on ${host}:${port}`))
          return
        }
        this.listenSocket = token
        this.port = uWS.us_socket_local_port(token)
        resolve(this.port)
      })
    })
  }

  /** Stops accepting, lets requests in progress finish for up to `graceMs`, then closes every connection. */
  async close (graceMs = 5000): Promise<void> {
    if (this.listenSocket !== null) {
      uWS.us_listen_socket_close(this.listenSocket)
      this.listenSocket = null
    }
    const deadline = Date.now() + graceMs
    while (this.inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
    // close() exists in this uWS build (it ends every connection) but not in its typings.
    ;(this.app as TemplatedApp & { close (): void }).close()
  }
}
