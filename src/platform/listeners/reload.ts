import { isDeepStrictEqual } from 'node:util'
import type { PlatformConfig } from '../../common/config/config'
import type { Gateway } from '../../gateway/http/gateway'
import { edgeAuthenticator, type Edge } from '../../gateway/edge/edge'
import type { RateLimiter } from '../../gateway/admission/rate-limits'

/**
 * What a reload (SIGHUP, POST /reload on the admin listener) applies to a running platform, by its
 * place in the config file: the rate limits, the edge's credentials, who is trusted with the identity
 * headers, and CORS. Anything else takes a restart (docs/operating.md, "Reload").
 */
export const RELOADABLE = [
  'RATE_LIMITS',
  'EDGE.auth',
  'ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.trust',
  'ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.cors'
] as const

/** A config read again, against the running one. */
export interface ReloadChange {
  /** The running config with the reloadable parts of the new one. */
  config: PlatformConfig
  /** The reloadable parts that differ (RELOADABLE's names). */
  changed: string[]
  /** Where the new config differs in what takes a restart (left as it runs). */
  needsRestart: string[]
}

/** The running config with `next`'s reloadable parts, and what differs either way. */
export function reloadChange(running: PlatformConfig, next: PlatformConfig): ReloadChange {
  const config: PlatformConfig = {
    ...running,
    rateLimits: next.rateLimits,
    gateway: { ...running.gateway, trust: next.gateway.trust, cors: next.gateway.cors },
    edge: { ...running.edge, auth: next.edge.auth }
  }
  const pairs: Array<[string, unknown, unknown]> = [
    ['RATE_LIMITS', running.rateLimits, next.rateLimits],
    ['EDGE.auth', running.edge.auth, next.edge.auth],
    ['ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.trust', running.gateway.trust, next.gateway.trust],
    ['ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.cors', running.gateway.cors, next.gateway.cors]
  ]
  const changed = pairs.filter(([, a, b]) => !isDeepStrictEqual(a, b)).map(([name]) => name)
  // The new config with the running reloadable parts: what differs is what a restart would change.
  const rest: PlatformConfig = {
    ...next,
    rateLimits: running.rateLimits,
    gateway: { ...next.gateway, trust: running.gateway.trust, cors: running.gateway.cors },
    edge: { ...next.edge, auth: running.edge.auth }
  }
  const needsRestart = differences(running, rest, '').map((path) => {
    const [first, ...more] = path.split('.')
    return [SECTIONS[first as keyof PlatformConfig] ?? first, ...more].join('.')
  })
  return { config, changed, needsRestart }
}

/** The config file's name of each part of PlatformConfig. */
const SECTIONS: Record<keyof PlatformConfig, string> = {
  gateway: 'ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP',
  rateLimits: 'RATE_LIMITS',
  admission: 'ADMISSION',
  pool: 'WORKER_POOL',
  dispatch: 'DISPATCH',
  platform: 'PLATFORM',
  edge: 'EDGE',
  admin: 'ADMIN',
  logging: 'LOGGING',
  microservices: 'MICROSERVICES'
}

/** The paths where two values differ, the first ten. */
function differences(a: unknown, b: unknown, at: string, out: string[] = []): string[] {
  if (out.length >= 10 || isDeepStrictEqual(a, b)) return out
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && !Array.isArray(a)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)])
    for (const k of keys)
      differences(
        (a as Record<string, unknown>)[k],
        (b as Record<string, unknown>)[k],
        at === '' ? k : `${at}.${k}`,
        out
      )
    return out
  }
  out.push(at)
  return out
}

/** What a reload did: applied (with what changed), or refused with the reason, the running config kept. */
export type ReloadOutcome =
  { applied: true; changed: string[]; needsRestart: string[] } | { applied: false; reason: string }

/**
 * Applies a reloaded config to one thread's listeners (the main thread's, or a listener thread's):
 * checked first, so a refusal changes nothing. `limiter` makes the thread's limiter for the new
 * RATE_LIMITS (limiterFor), once the rest is known to be good.
 */
export function applyReload(
  gateway: Gateway,
  edge: Edge | null,
  config: PlatformConfig,
  limiterOf: () => RateLimiter | null
): RateLimiter | null {
  const auth = edge === null ? null : edgeAuthenticator(config.edge.auth, config.edge.tls)
  const limiter = limiterOf()
  gateway.reconfigure(config.gateway)
  gateway.calls.limiter = limiter
  if (edge !== null && auth !== null) edge.reauthenticate(auth, config.edge.auth)
  return limiter
}
