import { newRequestId } from '../invoke/request-id'
import { descriptionPaths, edgeIndexPage, escapeHtml } from '../http/front-pages'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Listener } from '../http/uws'
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js'
import { EDGE_API_PREFIX, SWAGGER_PREFIX } from '../../common/contract/http-names'
import { writePage } from '../http/respond'
import { bounded } from '../invoke/echo'
import { toProblem, renderProblemJson } from '../../common/errors/problem'
import type { Failure } from '../../common/errors/codes'
import { Invocation, type Calls } from '../invoke/invoke'
import { copyHead, remoteAddress } from '../http/copy-head'
import { Authenticator, NO_CREDENTIALS } from './authenticate'
import type { CallHead } from '../invoke/call-head'
import type { Authentication } from '../invoke/interfaces'
import { ConfigError, type EdgeAuthConfig, type TlsConfig } from '../../common/config/config'
import { ClientCertificateReader } from '../tls/peer-certificates'
import { CERTIFICATE_REQUIRED } from '../invoke/plan'
import type { Gateway } from '../http/gateway'
import { declareEdgeSecurity } from '../../common/contract/openapi-security'

/** Where the edge finds a microservice's description; the platform implements it from its deployments. */
export interface Descriptions {
  /** The description's JSON text, or null when the microservice is unknown or has no UI enabled. */
  get(microservice: string): string | null
  /** The microservices that have a description here, by name. */
  names(): string[]
}

export interface EdgeOptions {
  host: string
  port: number
}

/**
 * The edge on :8000 (docs/contract.md, "Microservices and their descriptions"):
 * `/_swagger/{microservice}` serves Swagger UI
 * for the microservice's description, `/_swagger/{microservice}/openapi.json` the description
 * itself, and `/_eapi/ELASTIC_HTTP/{microservice}/{svc}/{method}` is the same call as the gateway's
 * `/{microservice}/{svc}/{method}`: it runs through the gateway's own pipeline in this process, so
 * the hop costs no second request.
 * It serves this platform only; balancing across platforms is nginx's job (`microservice edge
 * nginx-config`). What it serves follows deploys at once: descriptions are looked up per request.
 */
export class Edge {
  readonly listener: Listener

  private auth: Authenticator
  /** EDGE.tls.clientCertificates; null: none asked for. */
  private readonly clients: ClientCertificateReader | null = null
  /** Each microservice's description as served (with this edge's security), and the text it came from. */
  private readonly served = new Map<string, { from: string; text: string }>()

  constructor(
    private readonly gateway: Gateway,
    private readonly descriptions: Descriptions,
    private authConfig: EdgeAuthConfig = NO_CREDENTIALS,
    /** EDGE.tls: HTTPS on the edge's port; null: plain HTTP. */
    tls: TlsConfig | null = null
  ) {
    this.auth = edgeAuthenticator(authConfig, tls)
    const clients = tls?.clientCertificates ?? null
    if (clients !== null && clients.trusted.length > 0)
      throw new ConfigError(
        `${clients.at}.trusted: the edge takes no identity headers from anyone; name certificates and the identities they stand for in EDGE.auth.certificates`
      )
    this.listener = new Listener(gateway.uws, (app) => this.routes(app), 'the edge', tls)
    if (clients !== null) this.clients = new ClientCertificateReader(clients)
  }

  /**
   * EDGE.auth from a reload (src/platform/listeners/reload.ts): calls from now on are authenticated by it; one
   * whose token is being verified finishes with the old. The descriptions are declared again.
   */
  reauthenticate(auth: Authenticator, config: EdgeAuthConfig): void {
    this.auth = auth
    this.authConfig = config
    this.served.clear()
  }

  private routes(app: TemplatedApp): void {
    // /_eapi/ELASTIC_HTTP/{microservice}/{svc}/{method} → /{microservice}/{svc}/{method}; anything shorter reaches the
    // pipeline as a short path and gets its ROUTE_NOT_FOUND problem.
    const call = (res: HttpResponse, req: HttpRequest): void => this.call(res, req)
    app.any(EDGE_API_PREFIX, call)
    app.any(`${EDGE_API_PREFIX}/*`, call)
    // Under a required client certificate, the pages and descriptions are refused as calls are.
    const clients = this.clients
    const page = (serve: (res: HttpResponse, req: HttpRequest) => void) =>
      clients?.requires !== true
        ? serve
        : (res: HttpResponse, req: HttpRequest): void => {
            if (clients.read(res) !== null) serve(res, req)
            else this.problem(res, { code: 'CLIENT_CERTIFICATE_REQUIRED', detail: CERTIFICATE_REQUIRED })
          }
    app.get(
      `${SWAGGER_PREFIX}/~ui/:file`,
      page((res, req) => this.asset(res, req.getParameter(0) ?? ''))
    )
    app.get(
      `${SWAGGER_PREFIX}/:microservice/openapi.json`,
      page((res, req) => this.description(res, req.getParameter(0) ?? ''))
    )
    app.get(
      `${SWAGGER_PREFIX}/:microservice/init.js`,
      page((res, req) => this.init(res, req.getParameter(0) ?? ''))
    )
    app.get(
      `${SWAGGER_PREFIX}/:microservice`,
      page((res, req) => this.page(res, req.getParameter(0) ?? ''))
    )
    app.get(
      `${SWAGGER_PREFIX}/:microservice/`,
      page((res, req) => this.page(res, req.getParameter(0) ?? ''))
    )
    app.get(
      '/',
      page((res) => writePage(res, 200, 'text/html; charset=utf-8', edgeIndexPage(this.descriptions.names())))
    )
    app.any(
      '/*',
      page((res, req) => {
        const url = req.getUrl()
        this.problem(res, { code: 'ROUTE_NOT_FOUND', detail: notServed(url) })
      })
    )
  }

  /**
   * The trust boundary for outside clients: whatever identity they claim is removed, X-PLATFORM-IP is
   * the socket's address, and only a credential (an API key, a JWT), checked by the pipeline's
   * authentication stage, sets the user and privileges.
   */
  private call(res: HttpResponse, req: HttpRequest): void {
    startEdgeCall(this.gateway.calls, this.auth, res, req, this.clients)
  }

  private page(res: HttpResponse, requested: string): void {
    const name = decode(requested)
    if (name === null || this.descriptions.get(name) === null) return this.unknown(res, requested)
    writePage(res, 200, 'text/html; charset=utf-8', swaggerPage(name))
  }

  private init(res: HttpResponse, requested: string): void {
    const name = decode(requested)
    if (name === null || this.descriptions.get(name) === null) return this.unknown(res, requested)
    writePage(res, 200, 'text/javascript; charset=utf-8', initScript(name))
  }

  private description(res: HttpResponse, requested: string): void {
    const name = decode(requested)
    const text = name === null ? null : this.descriptions.get(name)
    if (text === null || name === null) return this.unknown(res, requested)
    writePage(res, 200, 'application/json; charset=utf-8', this.declared(name, text))
  }

  /**
   * The description with the security this edge enforces on /_eapi declared in it: the file is made
   * without knowing the platform's EDGE.auth, which the edge alone applies.
   */
  private declared(name: string, text: string): string {
    const hit = this.served.get(name)
    if (hit !== undefined && hit.from === text) return hit.text
    const out = declareEdgeSecurity(text, this.authConfig)
    this.served.set(name, { from: text, text: out })
    return out
  }

  private asset(res: HttpResponse, file: string): void {
    const a = ASSETS.get(file)
    if (a === undefined) return this.problem(res, { code: 'ROUTE_NOT_FOUND', detail: `no UI file '${bounded(file)}'` })
    writePage(res, 200, a.type, a.load(), 'public, max-age=86400')
  }

  private unknown(res: HttpResponse, requested: string): void {
    this.problem(res, {
      code: 'UNKNOWN_MICROSERVICE',
      detail: `no microservice '${bounded(requested)}' with an API description is deployed here`
    })
  }

  private problem(res: HttpResponse, f: Failure): void {
    const p = toProblem(f, newRequestId())
    writePage(res, p.status, 'application/problem+json; charset=utf-8', renderProblemJson(p), 'no-cache', p.requestId)
  }

  get port(): number {
    return this.listener.port
  }

  listen(options: EdgeOptions): Promise<number> {
    return this.listener.listen(options.host, options.port)
  }

  /** No new connections; the ones open keep being served (their new requests are answered 503). */
  stopListening(): void {
    this.listener.stop()
  }

  close(): void {
    this.listener.close()
  }
}

/** The edge's Authenticator for EDGE.auth, refused when it names certificates the listener does not ask for. */
export function edgeAuthenticator(auth: EdgeAuthConfig, tls: TlsConfig | null): Authenticator {
  if ((tls?.clientCertificates ?? null) === null && auth.certificates.length > 0)
    throw new ConfigError(
      'EDGE.auth.certificates: the edge asks for client certificates only with EDGE.tls.clientCertificates (mode "request" or "require" and the CAs to verify them)'
    )
  return new Authenticator(auth)
}

/**
 * A call through the edge (its prefix stripped), as Edge.call describes; exported for the per-call
 * stage loop (bench/gateway-stage-loop.ts), which drives this same code without a socket.
 */
export function startEdgeCall(
  calls: Calls<HttpResponse>,
  auth: Authentication,
  res: HttpResponse,
  req: HttpRequest,
  clients: ClientCertificateReader | null = null
): void {
  const url = req.getUrl().slice(EDGE_API_PREFIX.length)
  const peer = clients === null ? null : clients.read(res)
  const claimed = copyHead(req, res, TRUST_NOBODY, url === '' ? '/' : url)
  const head: CallHead = {
    ...claimed,
    ip: remoteAddress(res),
    user: '',
    sessionId: '',
    clientApplicationName: '',
    privilegeNames: '',
    identityTrusted: true,
    certificateMissing: clients !== null && clients.requires && peer === null,
    certificateSubject: peer?.subject ?? ''
  }
  const credentials = {
    by: auth,
    apiKey: req.getHeader('x-api-key'),
    authorization: req.getHeader('authorization'),
    certificate: peer
  }
  const inv = new Invocation(calls, res, head, credentials)
  res.onAborted(() => inv.onAborted())
  inv.begin()
}

/**
 * What the edge says about a path it does not serve: where calls and UIs are; for a path shaped like
 * a gateway call (/a/b/c, what a user tries first), the same call under the edge's prefix.
 */
function notServed(url: string): string {
  const where = `the edge serves calls at ${EDGE_API_PREFIX}/{microservice}/{service}/{method} and API UIs at ${SWAGGER_PREFIX}/{microservice}`
  const call = /^\/[^/]+\/[^/]+\/[^/]+$/.test(url) ? `; for this call, POST ${bounded(EDGE_API_PREFIX + url)}` : ''
  return `'${bounded(url)}' is not served by the edge: ${where}${call}`
}

function decode(s: string): string | null {
  try {
    return decodeURIComponent(s)
  } catch {
    return null
  }
}

const UI_DIR = join(require.resolve('swagger-ui-dist/package.json'), '..')

/** The UI's static files, from the swagger-ui-dist package (served locally; no CDN), read once on first use. */
const ASSETS: ReadonlyMap<string, { type: string; load: () => Buffer }> = new Map(
  (
    [
      ['swagger-ui.css', 'text/css; charset=utf-8'],
      ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
      ['favicon-32x32.png', 'image/png'],
      ['favicon-16x16.png', 'image/png']
    ] as const
  ).map(([file, type]) => {
    let bytes: Buffer | null = null
    return [file, { type, load: (): Buffer => (bytes ??= readFileSync(join(UI_DIR, file))) }] as const
  })
)

function swaggerPage(microservice: string): string {
  const title = escapeHtml(microservice)
  const base = descriptionPaths(microservice).ui
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}: API</title>
<link rel="icon" type="image/png" href="${SWAGGER_PREFIX}/~ui/favicon-32x32.png" sizes="32x32">
<link rel="stylesheet" href="${SWAGGER_PREFIX}/~ui/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${SWAGGER_PREFIX}/~ui/swagger-ui-bundle.js"></script>
<script src="${base}/init.js"></script>
</body>
</html>
`
}

function initScript(microservice: string): string {
  const url = descriptionPaths(microservice).description
  return `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(url)}, dom_id: '#swagger-ui', deepLinking: true, tryItOutEnabled: false })\n`
}

const TRUST_NOBODY = (): boolean => false
