// The paths through the platform that the CPU and instruction counts measure, one request each.

/** What is measured: a path through the platform, with its settings. */
export interface Profile {
  name: string
  title: string
  /** The platform's settings (PLATFORM__… variables) beyond the ports. */
  env: Record<string, string>
  /** 'gateway' or 'edge': which listener the calls go to. */
  via: 'gateway' | 'edge'
  /** Measured by the CI gate (a profile without it is measured when named, with --profiles). */
  gated: boolean
}

/** The platform with nothing but the call to do: no access log, no admin listener. */
const BARE = { PLATFORM__LOGGING__accessLog: 'false', PLATFORM__ADMIN__enabled: 'false' }
/** A token bucket by identity that every call matches and that never refuses: the rule's cost alone. */
export const EVERY_CALL = { name: 'per-caller', key: 'identity', rate: 1e9, burst: 1e9 } as const
/** BARE with EVERY_CALL. */
const LIMITED = { ...BARE, PLATFORM__RATE_LIMITS__rules: JSON.stringify([EVERY_CALL]) }

export const PROFILES: Profile[] = [
  {
    name: 'call',
    title: 'ROA beta JSON multiply, straight to the gateway',
    env: BARE,
    via: 'gateway',
    gated: true
  },
  {
    name: 'edge',
    title: 'the same through the edge (/_eapi/ELASTIC_HTTP/…)',
    env: BARE,
    via: 'edge',
    gated: true
  },
  {
    name: 'observed',
    title: 'the same with the access log and metrics on',
    env: {
      PLATFORM__LOGGING__accessLog: 'true',
      PLATFORM__ADMIN__enabled: 'true',
      PLATFORM__ADMIN__port: '0',
      PLATFORM__ADMIN__metrics: 'true'
    },
    via: 'gateway',
    gated: true
  },
  {
    name: 'limited',
    title: 'the same with one rate-limit rule that counts every call (a bucket that never refuses)',
    env: LIMITED,
    via: 'gateway',
    gated: false
  },
  {
    name: 'limited-quiet',
    title: 'the same rule with RATE_LIMITS.headers off (its fields only on a 429)',
    env: { ...LIMITED, PLATFORM__RATE_LIMITS__headers: 'false' },
    via: 'gateway',
    gated: false
  }
]

/** The profiles the CI gate measures. */
export const GATED = PROFILES.filter((p) => p.gated).map((p) => p.name)

export const PATH = '/example/calculator/multiply'
export const BODY = '{"a":2,"b":3}'
export const ANSWER = '{"result":6}'
