/**
 * Where a microservice instance listens: a Unix domain socket (local instances: reachable only by
 * processes that may open the file, and cheaper than loopback TCP) or a TCP address (remote ones).
 */
export type Endpoint = { readonly path: string } | { readonly host: string; readonly port: number }

export function sameEndpoint(a: Endpoint, b: Endpoint): boolean {
  if ('path' in a) return 'path' in b && a.path === b.path
  return !('path' in b) && a.host === b.host && a.port === b.port
}

export function endpointText(e: Endpoint): string {
  return 'path' in e ? `unix:${e.path}` : `${e.host}:${e.port}`
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
