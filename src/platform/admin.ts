import { createServer, type Server, type ServerResponse } from 'node:http'
import { createServer as createTlsServer } from 'node:https'
import { createSecureContext, type SecureContext, type SecureContextOptions, type TLSSocket } from 'node:tls'
import { ConfigError, type TlsConfig } from '../common/config/config'
import { loadCertificates, type Certificate, type CertificateSet } from '../gateway/tls/certificates'
import { certificateRenewal, type TlsEvents } from '../gateway/tls/certificate-renewal'
import type { FileRenewal } from '../common/tls/file-renewal'
import type { AddressInfo } from 'node:net'
import type { Registry } from 'prom-client'
import { timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { MicroserviceManager } from './manager'
import type { Deployer, UploadResult } from './package/deployer'
import type { Arrivals } from '../gateway/dispatch/arrivals'
import { errorMessage } from '../common/errors/internal'
import type { ReloadOutcome } from './listeners/reload'

/** Deploys and reloads over the network: the deployer, the reload, and the bearer token that allows them. */
export interface AdminDeploys {
  deployer: Deployer
  /** Microservices a rollout announces before they reach this node (calls for them wait). */
  arrivals: Arrivals
  token: string
  /** The largest package accepted (PLATFORM.unpack.maxTotalBytes). */
  maxBytes: number
  /** Reads the config again and applies what changes without a restart (Platform.reload). */
  reload(): Promise<ReloadOutcome>
}

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
  /** ADMIN.tls's certificates served now (null: plain HTTP). */
  certificates: CertificateSet | null = null
  private renewal: FileRenewal<CertificateSet> | null = null
  /** Contexts by server name (SNI), made again at each renewal. */
  private named = new Map<string, SecureContext>()
  events: TlsEvents = () => {}

  constructor(
    private readonly manager: MicroserviceManager,
    private readonly metrics: Registry | null = null,
    private readonly readyRequires: readonly string[] = [],
    private readonly deploys: AdminDeploys | null = null,
    /** ADMIN.tls: HTTPS on the admin port (Node's TLS: minVersion and ciphers as configured). */
    private readonly tls: TlsConfig | null = null
  ) {
    if (tls?.clientCertificates?.trusted.length)
      throw new ConfigError(
        `${tls.clientCertificates.at}.trusted: the admin listener takes no identity headers; with mode "require", its CAs alone say who may connect`
      )
    if (tls !== null) this.certificates = loadCertificates(tls)
  }

  /** Why the platform is not ready, or null: starting, draining, or a required microservice unavailable. */
  notReady(): string | null {
    if (this.phase !== 'ready') return `the platform is ${this.phase}`
    for (const name of this.readyRequires) {
      const status = this.manager.statusOf(name)
      const why = status === undefined ? 'not deployed' : status.unavailable
      if (why !== null) return `required microservice ${name} is unavailable: ${why}`
    }
    return null
  }

  /**
   *   POST /deploy                           a package zip as the body (X-Package-Name: its file name)
   *   POST /microservices/{name}/rollback    back to the version the current one replaced
   *   POST /microservices/{name}/expect?seconds=N
   *                                          a new microservice is on its way: its calls wait here up
   *                                          to N seconds for it instead of answering 404 (0 withdraws)
   *   POST /reload                           the config read again, as SIGHUP does (src/platform/listeners/reload.ts):
   *                                          200 with what changed, or 422 with why it was refused
   * with Authorization: Bearer <ADMIN.deployTokenEnv's token>; each answers the verdict as JSON.
   */
  private write(req: IncomingMessage, res: ServerResponse, path: string, d: AdminDeploys): void {
    if (!sameToken(req.headers.authorization ?? '', `Bearer ${d.token}`)) {
      req.resume()
      return json(res, 401, {
        error: `${path === '/reload' ? 'a reload' : 'a deploy'} needs Authorization: Bearer <the token in ADMIN.deployTokenEnv>`
      })
    }
    if (path === '/reload') {
      req.resume()
      return void d.reload().then(
        (o) => json(res, o.applied ? 200 : 422, o),
        (err: unknown) => json(res, 500, { applied: false, reason: errorMessage(err) })
      )
    }
    const verdict = (p: Promise<UploadResult>): void =>
      void p.then(
        (r) => json(res, r.ok ? 200 : 422, r),
        (err: unknown) => json(res, 500, { ok: false, message: errorMessage(err) })
      )
    const named = /^\/microservices\/([^/]+)\/(rollback|expect)$/.exec(path)
    if (named !== null) {
      req.resume()
      let name: string
      try {
        name = decodeURIComponent(named[1]!)
      } catch {
        return json(res, 400, {
          ok: false,
          message: `'${named[1]!.slice(0, 200)}' is not a valid percent-encoded name`
        })
      }
      if (named[2] === 'rollback') return verdict(d.deployer.rollback(name))
      const seconds = Number(new URL(req.url ?? '/', 'http://admin').searchParams.get('seconds') ?? 'x')
      if (!Number.isInteger(seconds) || seconds < 0 || seconds > 3600)
        return json(res, 400, { ok: false, message: 'expect needs ?seconds=N, a whole number from 0 to 3600' })
      d.arrivals.expect(name, seconds * 1000)
      return json(res, 200, {
        ok: true,
        message:
          seconds === 0
            ? `calls for ${name} no longer wait`
            : `calls for ${name} wait up to ${seconds} s for it until it serves here`
      })
    }
    if (path !== '/deploy') {
      req.resume()
      return json(res, 404, {
        error: `no POST ${path}; try /deploy, /reload, /microservices/{name}/rollback or /microservices/{name}/expect`
      })
    }
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (c: Buffer) => {
      size += c.length
      if (size <= d.maxBytes) chunks.push(c)
    })
    req.on('end', () => {
      if (size > d.maxBytes)
        return json(res, 413, { ok: false, message: `the package is larger than ${d.maxBytes} bytes` })
      const name = String(req.headers['x-package-name'] ?? 'package.zip')
      verdict(d.deployer.upload(Buffer.concat(chunks), name))
    })
  }

  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const serve = (req: IncomingMessage, res: ServerResponse): void => {
        const path = (req.url ?? '/').split('?')[0] ?? '/'
        if (req.method === 'POST' && this.deploys !== null) return this.write(req, res, path, this.deploys)
        if (req.method === 'POST') {
          req.resume()
          // The writing routes exist only with a token: say which setting gives them.
          return json(res, 405, {
            error:
              `POST ${path} needs a deploy token, and this listener has none: set ADMIN.deployTokenEnv to the name ` +
              'of an environment variable that holds one (docs/operating.md); GET serves /healthz /readyz /status /metrics'
          })
        }
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
            microservices: this.manager.statuses(),
            // Announced by a rollout, not served here yet: their calls wait (POST …/expect).
            arriving: this.deploys?.arrivals.names() ?? []
          })
        }
        const metrics = this.metrics
        if (path === '/metrics' && metrics !== null) {
          metrics.metrics().then(
            (text) => {
              res.writeHead(200, { 'Content-Type': metrics.contentType, 'Cache-Control': 'no-store' })
              res.end(text)
            },
            (err: unknown) => json(res, 500, { error: errorMessage(err) })
          )
          return
        }
        json(res, 404, { error: `no ${path}; try /healthz, /readyz, /status${metrics !== null ? ', /metrics' : ''}` })
      }
      const tls = this.tls
      const set = this.certificates
      const server =
        tls === null || set === null
          ? createServer(serve)
          : createTlsServer(
              {
                ...this.secure(tls, set),
                SNICallback: (name, done) => done(null, this.named.get(name.toLowerCase()))
              },
              serve
            )
      if (tls !== null && set !== null) {
        this.renewal = certificateRenewal(
          tls,
          set,
          (renewed) => {
            ;(server as ReturnType<typeof createTlsServer>).setSecureContext(this.secure(tls, renewed))
            this.certificates = renewed
            return true
          },
          this.events
        )
        this.renewal.start()
        // "request": Node keeps a connection whose certificate does not verify (rejectUnauthorized is
        // off so that one without a certificate is kept); uWS ends it, and so does this listener.
        if (tls.clientCertificates?.mode === 'request')
          server.on('secureConnection', (socket: TLSSocket) => {
            if (!socket.authorized && Object.keys(socket.getPeerCertificate()).length > 0) socket.destroy()
          })
      }
      this.server = server
      server.once('error', reject)
      server.listen(port, host, () => {
        this.port = (server.address() as AddressInfo).port
        resolve(this.port)
      })
    })
  }

  close(): Promise<void> {
    this.renewal?.stop()
    return new Promise((resolve) => (this.server === null ? resolve() : this.server.close(() => resolve())))
  }

  /** Node's options for the main certificate; the server names' contexts are made beside them. */
  private secure(tls: TlsConfig, set: CertificateSet): SecureContextOptions {
    const options = (c: Certificate): SecureContextOptions => ({
      cert: c.certPem,
      key: c.keyPem,
      ...(c.passphrase !== undefined ? { passphrase: c.passphrase } : {}),
      minVersion: tls.minVersion,
      ...(tls.ciphers !== null ? { ciphers: tls.ciphers } : {}),
      // Given again at each renewal: setSecureContext resets what it is not given.
      ...(set.clientCa !== null
        ? { ca: set.clientCa, requestCert: true, rejectUnauthorized: tls.clientCertificates?.mode === 'require' }
        : {})
    })
    this.named = new Map([...set.names].map(([name, c]) => [name.toLowerCase(), createSecureContext(options(c))]))
    return options(set.main)
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
    // RFC 9110, 15.5.6: a 405 lists the methods the resource takes.
    ...(status === 405 ? { Allow: 'GET' } : {})
  })
  res.end(JSON.stringify(body))
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}
