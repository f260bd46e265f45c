import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Registry } from 'prom-client'
import type { MicroserviceManager } from './manager'

export type Phase = 'starting' | 'ready' | 'draining'

/**
 * The admin listener (ADMIN: loopback by default): liveness, readiness and the platform's status as
 * JSON, for an orchestrator and a person. Read-only; it changes nothing.
 *   GET /healthz   200 while the process serves at all
 *   GET /readyz    200 only when started, not draining and every ADMIN.readyRequires microservice
 *                  is available (503 otherwise, with the reason)
 *   GET /status    the phase and every microservice with its instances (as `microservice list`)
 *   GET /metrics   Prometheus text format (when ADMIN.metrics)
 */
export class AdminServer {
  private server: Server | null = null
  phase: Phase = 'starting'
  port = 0

  constructor(
    private readonly manager: MicroserviceManager,
    private readonly metrics: Registry | null = null,
    private readonly readyRequires: readonly string[] = []
  ) {}

  /** Why the platform is not ready, or null: starting, draining, or a required microservice unavailable. */
  notReady(): string | null {
    if (this.phase !== 'ready') return `the platform is ${this.phase}`
    for (const name of this.readyRequires) {
      const ms = this.manager.get(name)
      const why = ms === undefined ? 'not deployed' : ms.status().unavailable
      if (why !== null) return `required microservice ${name} is unavailable: ${why}`
    }
    return null
  }

  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const server = createServer((req, res) => {
        const path = (req.url ?? '/').split('?')[0]
        if (req.method !== 'GET') return json(res, 405, { error: 'GET only' })
        if (path === '/healthz') return json(res, 200, { status: 'alive', phase: this.phase })
        if (path === '/readyz') {
          const reason = this.notReady()
          return json(res, reason === null ? 200 : 503, {
            ready: reason === null,
            phase: this.phase,
            ...(reason === null ? {} : { reason })
          })
        }
        if (path === '/status') {
          return json(res, 200, {
            phase: this.phase,
            microservices: [...this.manager.microservices.values()].map((m) => m.status())
          })
        }
        const metrics = this.metrics
        if (path === '/metrics' && metrics !== null) {
          metrics.metrics().then(
            (text) => {
              res.writeHead(200, { 'Content-Type': metrics.contentType, 'Cache-Control': 'no-store' })
              res.end(text)
            },
            (err: unknown) => json(res, 500, { error: err instanceof Error ? err.message : String(err) })
          )
          return
        }
        json(res, 404, { error: `no ${path}; try /healthz, /readyz, /status${metrics !== null ? ', /metrics' : ''}` })
      })
      this.server = server
      server.once('error', reject)
      server.listen(port, host, () => {
        this.port = (server.address() as AddressInfo).port
        resolve(this.port)
      })
    })
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server === null ? resolve() : this.server.close(() => resolve())))
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' })
  res.end(JSON.stringify(body))
}
