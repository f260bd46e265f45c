import { EDGE_API_PREFIX, IDENTITY_HEADERS, PLATFORM_HEADERS, SWAGGER_PREFIX } from '../../common/contract/http-names'
import { InternalError } from '../../common/errors/internal'
import { codes, type ErrorCode } from '../../common/errors/codes'

/** One platform node behind the edge: its gateway (:8082) and its embedded edge (:8000, for the UI). */
export interface EdgeNode {
  host: string
  gatewayPort: number
  edgePort: number
}

export interface NginxEdgeOptions {
  nodes: readonly EdgeNode[]
  /** The address nginx listens on for clients (docs/contract.md: the edge on port 8000). */
  listen: string
  /** The gateway's body limit (ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.maxBodyBytes). */
  maxBodyBytes: number
  /** The gateway's executing timeout; nginx waits a second longer so the gateway's own 504 arrives. */
  executingTimeoutMs: number
  /**
   * Passive health check: failures within `failTimeoutS` that take a node out for `failTimeoutS`
   * (1 s: a restarted node is tried again, and takes calls, within about a second of listening).
   */
  maxFails?: number
  failTimeoutS?: number
  /** Idle keep-alive connections nginx keeps to each node's gateway. */
  keepalive?: number
  /**
   * How long nginx keeps an idle upstream connection (4 s): shorter than uWS's own idle timeout (10 s)
   * and than a draining gateway's PLATFORM.drainIdleMs (5 s), so nginx closes its idle connections
   * before the node would, never a moment after sending a POST on one.
   */
  keepaliveTimeoutS?: number
  /**
   * Calls one client connection carries before nginx closes it (10,000; nginx's own 1000 frees its
   * per-connection memory sooner, at a reconnection every 1000 calls).
   */
  keepaliveRequests?: number
  /** The largest request line or header line nginx accepts; longer gets 431 (default 8 KiB). */
  maxHeaderBytes?: number
  /**
   * TLS towards clients: nginx terminates it with this certificate and key (PEM files), and offers
   * HTTP/2 and HTTP/1.1 by ALPN.
   */
  tls?: { certFile: string; keyFile: string } | null
  /**
   * A second, plain listener speaking HTTP/2 with prior knowledge (h2c), for clients inside a trusted
   * network that want HTTP/2 without TLS; `listen` keeps HTTP/1.1 (nginx 1.22 cannot serve both on one
   * plain port).
   */
  h2cListen?: string | null
  /**
   * The nodes' gateway and edge listeners speak TLS (their `tls` blocks): nginx verifies each against
   * these CAs and the name their certificates hold, and reuses sessions on its keep-alive connections.
   */
  upstreamTls?: { caFile: string; serverName: string } | null
  /**
   * Whether the nodes' embedded edges speak TLS too (with `upstreamTls`; true by default, as an edge
   * takes the gateway's `tls` unless its own says otherwise). False for nodes whose EDGE was left plain
   * on purpose (EDGE.allowPlaintext): nginx then speaks plain HTTP to the edges, TLS to the gateways.
   */
  upstreamEdgeTls?: boolean
  /**
   * Client certificates, with `tls`: nginx verifies them against these CAs (a call without one is
   * refused under "require") and sends the verified subject to the nodes as
   * X-PLATFORM-Certificate-Subject, which the gateways take from nginx as a trusted peer.
   */
  clientCertificates?: { caFile: string; mode: 'request' | 'require' } | null
  /** Write a whole nginx.conf (events, http, pid, logs under `prefix`) instead of an http-level include. */
  standalone?: { prefix: string } | null
}

/**
 * The nginx configuration of an edge in front of several platforms: `/_eapi/ELASTIC_HTTP/{microservice}/…`
 * balanced over the nodes' gateways with keep-alive upstream connections, `/_swagger/` (the UI's
 * files and the descriptions) from the nodes' embedded edges. A POST that may have reached a gateway
 * is never sent to another node: only a failure to connect moves it on (nginx does not retry
 * non-idempotent requests once sent unless told to, and this configuration does not tell it to).
 * Nodes that fail are taken out for a second (passive health checks: open-source nginx cannot read
 * /readyz). A draining node keeps serving what reaches it and then refuses connections, which moves
 * calls on without an error (Platform.stop). The descriptions are fetched
 * from the nodes per request, so a deploy needs no reload of nginx; a change of the node list does.
 */
export function nginxEdgeConfig(o: NginxEdgeOptions): string {
  if (o.nodes.length === 0) throw new InternalError('IGW_CLI_USAGE', 'at least one platform node is needed')
  const maxFails = o.maxFails ?? 1
  const failTimeout = o.failTimeoutS ?? 1
  const bodyMb = Math.ceil(o.maxBodyBytes / (1024 * 1024))
  const readTimeoutS = Math.ceil(o.executingTimeoutMs / 1000) + 1
  const servers = (port: (n: EdgeNode) => number): string =>
    o.nodes.map((n) => `    server ${n.host}:${port(n)} max_fails=${maxFails} fail_timeout=${failTimeout}s;`).join('\n')
  const scheme = o.upstreamTls ? 'https' : 'http'
  const edgeTls = o.upstreamEdgeTls ?? o.upstreamTls != null
  if (edgeTls && !o.upstreamTls)
    throw new InternalError(
      'IGW_CLI_USAGE',
      "TLS towards the nodes' edges needs the CAs and the name to verify them by (--upstream-tls-ca, --upstream-tls-name)"
    )
  const edgeScheme = edgeTls ? 'https' : 'http'
  const clients = o.clientCertificates ?? null
  if (clients !== null && !o.tls)
    throw new InternalError('IGW_CLI_USAGE', 'client certificates need TLS towards clients (--tls-cert, --tls-key)')
  // The h2c listener is plain: nginx verifies certificates only on TLS connections, so it would let in
  // without one the calls that "require" refuses (a plaintext door, docs/security.md).
  if (clients?.mode === 'require' && o.h2cListen != null)
    throw new InternalError(
      'IGW_CLI_USAGE',
      '--h2c-listen with --client-certificates require: the plain h2c listener would take calls without the certificate the TLS listener requires; drop --h2c-listen, or ask for certificates with --client-certificates request'
    )
  const tls = tlsDirectives(o)
  const body = `# Generated by \`microservice edge nginx-config\`: ${o.nodes.length} platform node(s) behind one edge.
${subjectMap(o)}upstream invocation_gateways {
${servers((n) => n.gatewayPort)}
    keepalive ${o.keepalive ?? 64};
    keepalive_timeout ${o.keepaliveTimeoutS ?? 4}s;
}

upstream invocation_edges {
${servers((n) => n.edgePort)}
    keepalive 8;
    keepalive_timeout ${o.keepaliveTimeoutS ?? 4}s;
}

server {
    # With TLS, HTTP/2 and HTTP/1.1 by ALPN (\`listen … http2\`: nginx 1.22, Debian 12; later versions warn
    # and take it as \`http2 on\`).
    listen ${o.listen}${o.tls ? ' ssl http2' : ''};${o.h2cListen == null ? '' : `\n    # HTTP/2 without TLS, prior knowledge only (h2c).\n    listen ${o.h2cListen} http2;`}
    server_tokens off;
    # Calls a client connection may carry before nginx closes it (HTTP/1.1) or says GOAWAY (HTTP/2);
    # nginx's 1000 made h2load lose the calls past it on each of its connections.
    keepalive_requests ${o.keepaliveRequests ?? 10000};${tls}
    # The gateway's body limit: larger bodies get 413 here, before any node reads them.
    client_max_body_size ${bodyMb}m;
    client_body_buffer_size 1m;
    proxy_http_version 1.1;
    proxy_connect_timeout 2s;
    add_header X-Content-Type-Options nosniff always;
    # uWebSockets.js names itself on every answer; the edge does not pass that on. The gateways' own
    # nosniff gives way to the edge's, sent once.
    proxy_hide_header uWebSockets;
    proxy_hide_header X-Content-Type-Options;
    # A request line or header longer than this is refused with 431 (nginx's own code for it is 494,
    # 414 for a request line) over HTTP/1.1; over HTTP/2 nginx closes the connection instead
    # (docs/edge.md, "nginx's own refusals").
    large_client_header_buffers 4 ${Math.ceil((o.maxHeaderBytes ?? 8192) / 1024)}k;
${ownRefusals(o)}
    # ${EDGE_API_PREFIX}/{microservice}/{svc}/{method} → /{microservice}/{svc}/{method} on one node's gateway.
    location ${EDGE_API_PREFIX}/ {
        proxy_pass ${scheme}://invocation_gateways/;
        # The trust boundary: what a client claims about itself is removed, the address is nginx's own
        # view of it. The gateways trust nginx's address (ENTRY_POINTS…trust.trustedPeers).
        # (A location with any proxy_set_header inherits none from the server block: all are here.)
        # Only the headers the gateway reads travel on: a malformed or excessive header (uWS stops
        # answering past about 50) never reaches a node, and the node sees a clean HTTP/1.1 request
        # whatever the client spoke (HTTP/1.0 included).
        proxy_pass_request_headers off;
        proxy_set_header Connection "";
        proxy_set_header Content-Type $content_type;
        proxy_set_header Accept $http_accept;
        proxy_set_header Origin $http_origin;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
${FORWARDED_HEADERS.map((h) => `        proxy_set_header ${h} $http_${h.toLowerCase().replace(/-/g, '_')};`).join('\n')}
${IDENTITY_HEADERS.map((h) => `        proxy_set_header ${h} ${identityValue(h, clients !== null)};`).join('\n')}
        proxy_read_timeout ${readTimeoutS}s;
        proxy_send_timeout 60s;
        # Only a connection that could not be made moves a call to another node; a POST that may
        # have reached a gateway is answered by that node (no non_idempotent, no timeout retry).
        proxy_next_upstream error;
        proxy_next_upstream_tries ${Math.min(o.nodes.length, 3)};
        proxy_buffering off;
    }

    # The UI's files and the descriptions, from the nodes' embedded edges (GET: safe to retry).
    location ${SWAGGER_PREFIX}/ {
        proxy_pass ${edgeScheme}://invocation_edges;
        proxy_set_header Connection "";
        proxy_set_header Host $host;
        proxy_read_timeout 30s;
        proxy_next_upstream error timeout http_502 http_503;
    }

    location / {
${problemAnswer('ROUTE_NOT_FOUND', 'not served by the edge')}
    }
}
`
  return o.standalone == null ? body : standaloneConf(body, o.standalone.prefix)
}

/** Where nginx's own refusals are answered (a client asking for one gets that refusal, nothing more). */
const PROBLEMS = '/_edge/problems'

interface Refusal {
  /** nginx's own statuses for it (494: a header too large, 497: plain HTTP on the TLS port). */
  statuses: number[]
  name: string
  code: ErrorCode
  detail: string
}

/**
 * nginx's own refusals as problem details, with the gateway's codes. At server level, so that every
 * location has them (a location with an error_page of its own would inherit none of these). Internal
 * locations by URI, not named ones: nginx cannot redirect a request whose URI it could not read (a
 * request line too long, a broken one) to a named location, and answers its own 500 page instead. Only
 * answers nginx makes itself are replaced: a gateway's answer passes through as it is, since
 * proxy_intercept_errors stays off.
 */
function ownRefusals(o: NginxEdgeOptions): string {
  const refusals: Refusal[] = [
    {
      statuses: [400],
      name: 'malformed',
      code: 'MALFORMED_REQUEST',
      detail: 'the edge could not read the request as HTTP'
    },
    {
      statuses: [413],
      name: 'body_too_large',
      code: 'BODY_TOO_LARGE',
      detail: 'the body is larger than the edge accepts'
    },
    {
      statuses: [414, 494],
      name: 'header_too_large',
      code: 'HEADERS_TOO_LARGE',
      detail: 'a request line or header is longer than the edge accepts'
    },
    { statuses: [500], name: 'edge_failed', code: 'INTERNAL', detail: 'the edge failed to handle the call' },
    {
      statuses: [502],
      name: 'node_failed',
      code: 'NODE_FAILED',
      detail: 'the connection to a platform node failed or was lost during the call; it may have run'
    },
    { statuses: [503], name: 'edge_overloaded', code: 'OVERLOADED', detail: 'the edge refused the call' },
    { statuses: [504], name: 'node_timeout', code: 'NODE_TIMEOUT', detail: 'no answer within the executing timeout' }
  ]
  if (o.tls)
    refusals.push({
      statuses: [497],
      name: 'plain_http',
      code: 'MALFORMED_REQUEST',
      detail: 'a plain HTTP request on the TLS port: use https'
    })
  return refusals
    .map(
      ({ statuses, name, code, detail }) => `    error_page ${statuses.join(' ')} = ${PROBLEMS}/${name};
    location = ${PROBLEMS}/${name} {
${problemAnswer(code, detail)}
    }`
    )
    .join('\n')
}

/** The TLS directives of the edge's server block: towards clients, their certificates, towards the nodes. */
function tlsDirectives(o: NginxEdgeOptions): string {
  const clients = o.clientCertificates ?? null
  const towardsClients = o.tls
    ? `
    ssl_certificate ${o.tls.certFile};
    ssl_certificate_key ${o.tls.keyFile};
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_session_cache shared:igw_edge_tls:10m;
    ssl_session_timeout 1h;`
    : ''
  const clientTls =
    clients === null
      ? ''
      : `
    # Client certificates: verified against these CAs (only these); ${clients.mode === 'require' ? 'a call without one is refused' : 'asked for, not required'}.
    ssl_client_certificate ${clients.caFile};
    ssl_verify_client ${clients.mode === 'require' ? 'on' : 'optional'};
    ssl_verify_depth 3;
    error_page 495 = @certificate_invalid;
    error_page 496 = @certificate_missing;
    location @certificate_invalid {
${problemAnswer('CLIENT_CERTIFICATE_REQUIRED', 'the client certificate does not verify against the CAs the edge trusts')}
    }
    location @certificate_missing {
${problemAnswer('CLIENT_CERTIFICATE_REQUIRED', 'connect with a client certificate signed by a CA the edge trusts')}
    }`
  const upstreamTls = o.upstreamTls
    ? `
    # The nodes speak TLS: each is verified (only these CAs) by the name its certificate holds.
    proxy_ssl_trusted_certificate ${o.upstreamTls.caFile};
    proxy_ssl_verify on;
    proxy_ssl_verify_depth 3;
    proxy_ssl_name ${o.upstreamTls.serverName};
    proxy_ssl_server_name on;
    proxy_ssl_protocols TLSv1.2 TLSv1.3;
    proxy_ssl_session_reuse on;`
    : ''
  return `${towardsClients}${clientTls}${upstreamTls}`
}

/** The subject of a certificate nginx verified, RFC 4514 order as the gateways' listeners write it. */
function subjectMap(o: NginxEdgeOptions): string {
  return (o.clientCertificates ?? null) === null
    ? ''
    : `
map $ssl_client_verify $igw_certificate_subject {
    SUCCESS $ssl_client_s_dn;
    default "";
}
`
}

/** The server block inside a whole nginx.conf of its own, for `nginx -p PREFIX`. */
function standaloneConf(body: string, p: string): string {
  return `# A whole nginx.conf; run with: nginx -p ${p} -c ${p}/nginx.conf
daemon off;
worker_processes 1;
pid ${p}/nginx.pid;
error_log ${p}/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path ${p}/client_body;
    proxy_temp_path ${p}/proxy;
    fastcgi_temp_path ${p}/fastcgi;
    uwsgi_temp_path ${p}/uwsgi;
    scgi_temp_path ${p}/scgi;
${body
  .split('\n')
  .map((l) => (l === '' ? '' : `    ${l}`))
  .join('\n')}}
`
}

/** Parses `host:gatewayPort[:edgePort]` (edge port defaults to 8000). */
export function parseNode(s: string): EdgeNode {
  const m = /^(\[[^\]]+\]|[^:]+):(\d+)(?::(\d+))?$/.exec(s)
  if (m === null) throw new InternalError('IGW_CLI_USAGE', `'${s}' is not host:gatewayPort[:edgePort]`)
  const port = (x: string): number => {
    const n = Number(x)
    if (!Number.isInteger(n) || n < 1 || n > 65535)
      throw new InternalError('IGW_CLI_USAGE', `'${x}' in '${s}' is not a port`)
    return n
  }
  return { host: m[1]!, gatewayPort: port(m[2]!), edgePort: m[3] === undefined ? 8000 : port(m[3]) }
}

/** What nginx sends the nodes as an identity header: its own view, never the client's claim. */
function identityValue(header: (typeof IDENTITY_HEADERS)[number], clientCertificates: boolean): string {
  if (header === 'X-PLATFORM-IP') return '$remote_addr'
  if (header === 'X-PLATFORM-Certificate-Subject' && clientCertificates) return '$igw_certificate_subject'
  return '""'
}

/** The X-PLATFORM-* headers a client may send through the edge (the identity ones are set by the edge). */
const FORWARDED_HEADERS = PLATFORM_HEADERS.filter((h) => !(IDENTITY_HEADERS as readonly string[]).includes(h))

/**
 * The inside of a location that answers with the problem of `code`, as the gateway writes one: its
 * request id in X-PLATFORM-Request-ID too, and Retry-After on a 503. A location with add_header of its
 * own inherits none from the server, so nosniff is repeated.
 */
function problemAnswer(code: ErrorCode, detail: string): string {
  const status = codes[code].status
  return `        default_type application/problem+json;
        add_header X-Content-Type-Options nosniff always;
        add_header X-PLATFORM-Request-ID $request_id always;${status === 503 ? '\n        add_header Retry-After 1 always;' : ''}
        return ${status} '${problemJson(code, status, codes[code].title, detail)}';`
}

function problemJson(code: ErrorCode, status: number, title: string, detail: string): string {
  return JSON.stringify({ type: `urn:platform:problem:${code}`, title, status, detail, code, requestId: '$request_id' })
}
