// The paths through the platform that the CPU and instruction counts measure, one request each.

/** What is measured: a path through the platform, with its settings. */
export interface Profile {
  name: string
  title: string
  /** The platform's settings (PLATFORM__… variables) beyond the ports. */
  env: Record<string, string>
  /** 'gateway' or 'edge': which listener the calls go to. */
  via: 'gateway' | 'edge'
}

export const PROFILES: Profile[] = [
  {
    name: 'call',
    title: 'ROA beta JSON multiply, straight to the gateway',
    env: { PLATFORM__LOGGING__accessLog: 'false', PLATFORM__ADMIN__enabled: 'false' },
    via: 'gateway'
  },
  {
    name: 'edge',
    title: 'the same through the edge (/_eapi/ELASTIC_HTTP/…)',
    env: { PLATFORM__LOGGING__accessLog: 'false', PLATFORM__ADMIN__enabled: 'false' },
    via: 'edge'
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
    via: 'gateway'
  }
]

export const PATH = '/example/calculator/multiply'
export const BODY = '{"a":2,"b":3}'
export const ANSWER = '{"result":6}'
