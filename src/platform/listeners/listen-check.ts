import { createServer } from 'node:net'
import { InternalError } from '../../common/errors/internal'
import type { PlatformConfig } from '../../common/config/config'
import { listed } from '../../common/config/overrides'

/** One listener of the platform and the config key its port comes from, for an error that says what to change. */
export interface ListenSetting {
  /** 'the gateway', 'the edge', 'the admin listener' */
  who: string
  host: string
  port: number
  /** The config key of the port, e.g. ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.port. */
  key: string
  /** Whether it speaks TLS. */
  tls: boolean
  /** Its section's allowPlaintext: plain HTTP to the network is meant. */
  allowPlaintext: boolean
}

/** Where a platform's listeners listen: the config's addresses, or the options' over them (tests, `dev`). */
export interface ListenOverrides {
  host?: string
  port?: number
  edgePort?: number
  adminPort?: number
}

/** Each listener's address (the overrides over the config) and the key it comes from; null when off. */
export function listenSettings(
  c: PlatformConfig,
  o: ListenOverrides = {}
): { gateway: ListenSetting; edge: ListenSetting | null; admin: ListenSetting | null } {
  const setting = (
    who: string,
    key: string,
    section: { tls: unknown; allowPlaintext: boolean },
    host: string,
    port: number
  ): ListenSetting => ({ who, host, port, key, tls: section.tls !== null, allowPlaintext: section.allowPlaintext })
  return {
    gateway: setting(
      'the gateway',
      'ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.port',
      c.gateway,
      o.host ?? c.gateway.host,
      o.port ?? c.gateway.port
    ),
    edge: c.edge.enabled
      ? setting('the edge', 'EDGE.port', c.edge, o.host ?? c.edge.host, o.edgePort ?? c.edge.port)
      : null,
    admin: c.admin.enabled
      ? setting('the admin listener', 'ADMIN.port', c.admin, c.admin.host, o.adminPort ?? c.admin.port)
      : null
  }
}

/**
 * No plaintext door: a listener that speaks plain HTTP to the network beside one that speaks TLS would
 * answer in the clear what TLS protects (the edge's /_eapi calls are the gateway's methods; the admin
 * listener deploys). Loopback is not the network; `allowPlaintext` is the operator saying that only a
 * TLS terminator or a trusted network reaches it (docs/security.md, "No plaintext door").
 */
export function checkPlaintext(settings: ReadonlyArray<ListenSetting | null>): void {
  const on = settings.filter((s) => s !== null)
  const secured = on.find((s) => s.tls)
  if (secured === undefined) return
  const open = on.filter((s) => !s.tls && !s.allowPlaintext && !isLoopback(s.host))
  if (open.length === 0) return
  const section = (s: ListenSetting): string => s.key.replace(/\.port$/, '')
  // IGW_CONFIG, as ConfigError says it: config.ts itself is not loaded by main.ts until the platform runs.
  throw new InternalError(
    'IGW_CONFIG',
    listed(
      open.map(
        (s) =>
          `${s.who} would listen on ${s.host}:${s.port} in plain HTTP while ${secured.who} speaks TLS, answering in the clear what TLS protects there; give ${section(s)} a tls block, or a loopback host (${section(s)}.host 127.0.0.1), or set ${section(s)}.allowPlaintext to true if only a TLS terminator or a trusted network reaches it (docs/security.md, "No plaintext door")`
      )
    )
  )
}

/** A host only this machine reaches: 127.0.0.0/8, ::1 (IPv4-mapped too), localhost. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase()
  return h === 'localhost' || h === '::1' || h === '[::1]' || /^(?:::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)
}

const MEANING: Record<string, string> = {
  EADDRINUSE: 'another process listens there (is a platform already running? `ss -ltnp` names the process)',
  EACCES: 'ports below 1024 need privileges; pick a port from 1024 up',
  EADDRNOTAVAIL: 'no interface of this machine has that address',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve'
}

/** What went wrong, why, and the key and environment variable to change. */
export function listenProblem(s: ListenSetting, errno: string): string {
  const env = `PLATFORM__${s.key.replace(/\./g, '__')}`
  const why = MEANING[errno] ?? 'the system refused it'
  return `${s.who} cannot listen on ${s.host}:${s.port}: ${errno}, ${why}; change ${s.key} in the config file or set ${env}=<port>`
}

/**
 * Binds the address for a moment and lets it go, so a busy or forbidden port fails the start before any
 * microservice is started; resolves with the errno when it cannot be bound, null when it can. (uWS
 * reports only that a listen failed, not why; a Node socket, without SO_REUSEPORT, also sees a port
 * another uWS process shares.)
 */
export function bindErrno(host: string, port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'EUNKNOWN'))
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(null)))
  })
}

/** Throws the listenProblem of every setting whose address cannot be bound (port 0 always can). */
export async function checkListenable(settings: readonly ListenSetting[]): Promise<void> {
  const problems: string[] = []
  for (const s of settings) {
    if (s.port === 0) continue
    const errno = await bindErrno(s.host, s.port)
    if (errno !== null) problems.push(listenProblem(s, errno))
  }
  if (problems.length > 0) throw new InternalError('IGW_LISTEN', problems.join('\n'))
}

/**
 * The host to reach a listener on from this machine, as a URL's host: a wildcard listen address
 * (0.0.0.0, ::) is reached on loopback; an IPv6 address goes in brackets.
 */
export function reachableHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1'
  if (host === '::') return '[::1]'
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
}

/**
 * A port the system has free now, for listener threads asked to listen on port 0: uSockets sets
 * SO_REUSEPORT only on a listener with a port of its own, so a second App cannot join the port the
 * system gave the first (docs/operating.md, "Listener threads"). The port is chosen here first and
 * every thread listens on it.
 */
export function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen({ host, port: 0, exclusive: true }, () => {
      const address = server.address()
      const port = typeof address === 'object' && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}
