/**
 * Where a microservice instance listens: a Unix domain socket (local instances: reachable only by
 * processes that may open the file, and cheaper than loopback TCP) or a TCP address (remote ones).
 */
export type Endpoint =
  { readonly path: string } | { readonly host: string; readonly port: number; readonly tls?: TlsClient }

/**
 * The internal protocol over TLS to an instance on another host (docs/security.md, "Between hosts"):
 * PEM files, checked when the platform starts and read again at a connection when they have changed
 * (a renewal reaches new connections without a restart).
 */
export interface TlsClient {
  /** The CAs that sign the instances' certificates (the system's are not trusted for this). */
  readonly caFile: string
  /** The gateway's own certificate and key, for an instance that asks for one (mutual TLS). */
  readonly certFile: string | null
  readonly keyFile: string | null
  readonly passphrase: string | null
  /** The name the instance's certificate must hold; null: the host it is reached at. */
  readonly serverName: string | null
}

export function sameEndpoint(a: Endpoint, b: Endpoint): boolean {
  if ('path' in a) return 'path' in b && a.path === b.path
  return !('path' in b) && a.host === b.host && a.port === b.port
}

export function endpointText(e: Endpoint): string {
  return 'path' in e ? `unix:${e.path}` : `${e.tls !== undefined ? 'tls:' : ''}${e.host}:${e.port}`
}

/** `unix:/run/x.sock`, `tcp:127.0.0.2:0` or `127.0.0.2:7000` → an endpoint; null when it is neither. */
export function parseEndpoint(s: string): Endpoint | null {
  if (s.startsWith('unix:') && s.length > 5) return { path: s.slice(5) }
  const m = /^(?:tcp:)?(\[[^\]]+\]|[^:]+):(\d+)$/.exec(s)
  if (m === null) return null
  const port = Number(m[2])
  if (!Number.isInteger(port) || port > 65535) return null
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port }
}
