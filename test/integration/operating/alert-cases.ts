// For every alert of deploy/prometheus/gateway.rules.yml, input series on which it fires and series on
// which it stays quiet: prometheus-rules.test.ts writes them out as promtool's test file. Series are
// sampled every minute (promtool's expanding notation: '0+60x20' is 0, 60, ... 21 samples); the target's
// own labels are job="gateway" and instance="gw:9090", and an instance label of the platform's reaches
// Prometheus as exported_instance.

export interface Series {
  series: string
  values: string
}

export interface AlertCase {
  alert: string
  /** What the case shows, as the test's name says it. */
  what: string
  series: Series[]
  /** When promtool evaluates, e.g. '12m'. */
  at: string
  /** The alerts expected then, each its labels but alertname (empty: quiet). */
  fires: Array<{ labels: Record<string, string>; summary: string }>
}

const target = 'job="gateway", instance="gw:9090"'
const route = `${target}, microservice="calc", service="calculator", method="add"`
const requests = (status: number, code: string, values: string): Series => ({
  series: `igw_requests_total{${route}, status="${status}", code="${code}"}`,
  values
})
const gauge = (name: string, values: string, labels = ''): Series => ({
  series: `${name}{${target}${labels === '' ? '' : `, ${labels}`}}`,
  values
})
const buckets = (counts: Record<string, string>): Series[] =>
  Object.entries(counts).map(([le, values]) => ({
    series: `igw_request_duration_seconds_bucket{${route}, le="${le}"}`,
    values
  }))
const instanceLabels = 'microservice="calc", exported_instance="calc@1.0.0#1.0"'
// time() at '5m' is 300 s: a certificate expiring `days` after that.
const expiry = (days: number, serverName = ''): Series =>
  gauge(
    'igw_tls_certificate_expiration_timestamp_seconds',
    `${300 + days * 86400}x10`,
    `listener="gateway", server_name="${serverName}"`
  )
const calc = { microservice: 'calc' }
const atTarget = { job: 'gateway', instance: 'gw:9090' }

export const alertCases: AlertCase[] = [
  {
    alert: 'IgwServerErrors',
    what: '1 call in 10 answered 503 by the gateway, for 10 minutes',
    series: [requests(200, '', '0+540x20'), requests(503, 'MICROSERVICE_UNAVAILABLE', '0+60x20')],
    at: '12m',
    fires: [{ labels: { ...calc, severity: 'critical' }, summary: 'calc: 10% of calls answered 5xx by the gateway' }]
  },
  {
    alert: 'IgwServerErrors',
    what: "the same share of 500s that are the method's own exceptions (METHOD_FAILED)",
    series: [requests(200, '', '0+540x20'), requests(500, 'METHOD_FAILED', '0+60x20')],
    at: '12m',
    fires: []
  },
  {
    alert: 'IgwMethodFailures',
    what: 'a fifth of the calls end in METHOD_FAILED for 15 minutes',
    series: [requests(200, '', '0+480x30'), requests(500, 'METHOD_FAILED', '0+120x30')],
    at: '15m',
    fires: [{ labels: { ...calc, severity: 'warning' }, summary: 'calc: 20% of calls end in METHOD_FAILED' }]
  },
  {
    alert: 'IgwMethodFailures',
    what: 'one call in 17 ends in METHOD_FAILED',
    series: [requests(200, '', '0+480x30'), requests(500, 'METHOD_FAILED', '0+30x30')],
    at: '15m',
    fires: []
  },
  {
    alert: 'IgwMicroserviceUnavailable',
    what: 'unavailable for 5 minutes',
    series: [gauge('igw_microservice_available', '0x10', 'microservice="calc"')],
    at: '5m',
    fires: [
      {
        labels: { ...calc, severity: 'critical' },
        summary: 'calc cannot be called: the gateway answers 503 MICROSERVICE_UNAVAILABLE'
      }
    ]
  },
  {
    alert: 'IgwMicroserviceUnavailable',
    what: 'unavailable for 1 minute (a restart), then back',
    series: [gauge('igw_microservice_available', '1 0 1 1 1 1 1', 'microservice="calc"')],
    at: '5m',
    fires: []
  },
  {
    alert: 'IgwOverloaded',
    what: '2 calls a second refused OVERLOADED',
    series: [requests(503, 'OVERLOADED', '0+120x10')],
    at: '8m',
    fires: [{ labels: { ...calc, severity: 'warning' }, summary: 'calc: 2 calls a second refused 503 OVERLOADED' }]
  },
  {
    alert: 'IgwOverloaded',
    what: 'one call refused every 2 seconds',
    series: [requests(503, 'OVERLOADED', '0+30x10')],
    at: '8m',
    fires: []
  },
  {
    alert: 'IgwExecutionTimeouts',
    what: 'a timeout a minute',
    series: [requests(504, 'EXECUTION_TIMEOUT', '0+1x10')],
    at: '8m',
    fires: [{ labels: { ...calc, severity: 'warning' }, summary: 'calc: calls pass the executing timeout (504)' }]
  },
  {
    alert: 'IgwExecutionTimeouts',
    what: 'five timeouts long ago, none since',
    series: [requests(504, 'EXECUTION_TIMEOUT', '5x10')],
    at: '8m',
    fires: []
  },
  {
    alert: 'IgwBackendConnectionsLost',
    what: 'a call lost with its connection every minute',
    series: [requests(502, 'BACKEND_CONNECTION_LOST', '0+1x10')],
    at: '8m',
    fires: [{ labels: { ...calc, severity: 'warning' }, summary: 'calc: calls lost with their connection (502)' }]
  },
  {
    alert: 'IgwBackendConnectionsLost',
    what: 'none lost in the last 10 minutes',
    series: [requests(502, 'BACKEND_CONNECTION_LOST', '3x10')],
    at: '8m',
    fires: []
  },
  {
    alert: 'IgwLatencyHigh',
    what: 'every call between 0.5 and 1 s for 15 minutes (threshold 0.5 s)',
    series: buckets({ '0.1': '0x20', '0.5': '0x20', '1': '0+60x20', '+Inf': '0+60x20' }),
    at: '15m',
    fires: [{ labels: { ...calc, severity: 'warning' }, summary: 'calc: p99 995ms, above its threshold' }]
  },
  {
    alert: 'IgwLatencyHigh',
    what: 'every call under 0.1 s',
    series: buckets({ '0.1': '0+60x20', '0.5': '0+60x20', '1': '0+60x20', '+Inf': '0+60x20' }),
    at: '15m',
    fires: []
  },
  {
    alert: 'IgwInFlightNearBound',
    what: '900 requests in flight of 1,000 for 8 minutes',
    series: [gauge('igw_requests_in_flight', '900x10'), gauge('igw_requests_in_flight_limit', '1000x10')],
    at: '8m',
    fires: [{ labels: { ...atTarget, severity: 'warning' }, summary: 'gw:9090: 90% of maxInFlight in use' }]
  },
  {
    alert: 'IgwInFlightNearBound',
    what: 'half the bound in use',
    series: [gauge('igw_requests_in_flight', '500x10'), gauge('igw_requests_in_flight_limit', '1000x10')],
    at: '8m',
    fires: []
  },
  {
    alert: 'IgwBodyBytesNearBound',
    what: '240 MB held of 256 MB for 8 minutes',
    series: [
      gauge('igw_body_bytes_in_flight', '240000000x10'),
      gauge('igw_body_bytes_in_flight_limit', '268435456x10')
    ],
    at: '8m',
    fires: [{ labels: { ...atTarget, severity: 'warning' }, summary: 'gw:9090: 89.41% of maxBodyBytesInFlight held' }]
  },
  {
    alert: 'IgwBodyBytesNearBound',
    what: '1 MB held',
    series: [gauge('igw_body_bytes_in_flight', '1000000x10'), gauge('igw_body_bytes_in_flight_limit', '268435456x10')],
    at: '8m',
    fires: []
  },
  {
    alert: 'IgwPoolQueueing',
    what: 'tasks waiting at every scrape for 8 minutes',
    series: [gauge('igw_pool_queue', '3x10')],
    at: '8m',
    fires: [
      {
        labels: { ...atTarget, severity: 'warning' },
        summary: 'gw:9090: tasks have waited for a worker thread for 5 minutes'
      }
    ]
  },
  {
    alert: 'IgwPoolQueueing',
    what: 'a queue that empties between bursts',
    series: [gauge('igw_pool_queue', '3 0 3 0 3 0 3 0 3 0 3')],
    at: '8m',
    fires: []
  },
  {
    alert: 'IgwRateLimited',
    what: 'a rule refusing a third of its calls for 20 minutes',
    series: [
      gauge('igw_rate_limit_calls_total', '0+60x30', 'rule="per-tenant", decision="allowed"'),
      gauge('igw_rate_limit_calls_total', '0+30x30', 'rule="per-tenant", decision="limited"')
    ],
    at: '20m',
    fires: [
      {
        labels: { rule: 'per-tenant', severity: 'info' },
        summary: 'rate-limit rule per-tenant refuses 33.33% of the calls it matches'
      }
    ]
  },
  {
    alert: 'IgwRateLimited',
    what: 'a rule refusing one call in 11',
    series: [
      gauge('igw_rate_limit_calls_total', '0+60x30', 'rule="per-tenant", decision="allowed"'),
      gauge('igw_rate_limit_calls_total', '0+6x30', 'rule="per-tenant", decision="limited"')
    ],
    at: '20m',
    fires: []
  },
  {
    alert: 'IgwRateLimitStoreDown',
    what: 'Redis not answering for 3 minutes',
    series: [gauge('igw_rate_limit_store_up', '1 0 0 0 0 0')],
    at: '4m',
    fires: [
      {
        labels: { ...atTarget, severity: 'critical' },
        summary: 'gw:9090: Redis does not answer for the cluster rate-limit rules'
      }
    ]
  },
  {
    alert: 'IgwRateLimitStoreDown',
    what: 'Redis gone for one scrape and back',
    series: [gauge('igw_rate_limit_store_up', '1 1 0 1 1 1')],
    at: '4m',
    fires: []
  },
  {
    alert: 'IgwInstanceRestarting',
    what: 'five restarts in 5 minutes',
    series: [gauge('igw_instance_restarts_total', '0 0 1 2 3 4 5', instanceLabels)],
    at: '6m',
    fires: [
      { labels: { ...calc, severity: 'warning' }, summary: 'calc: instances restarted more than twice in 15 minutes' }
    ]
  },
  {
    alert: 'IgwInstanceRestarting',
    what: 'one restart',
    series: [gauge('igw_instance_restarts_total', '0 0 1 1 1 1 1', instanceLabels)],
    at: '6m',
    fires: []
  },
  {
    alert: 'IgwInstanceMemoryRestart',
    what: 'a memory restart 3 minutes ago',
    series: [gauge('igw_instance_memory_restarts_total', '0 0 0 1 1 1 1', instanceLabels)],
    at: '6m',
    fires: [
      {
        labels: { ...calc, severity: 'warning' },
        summary: 'calc: an instance ran out of heap and came back with a larger one'
      }
    ]
  },
  {
    alert: 'IgwInstanceMemoryRestart',
    what: 'none',
    series: [gauge('igw_instance_memory_restarts_total', '0x6', instanceLabels)],
    at: '6m',
    fires: []
  },
  {
    alert: 'IgwCertificateExpiresSoon',
    what: 'a certificate with 7 days left: the warning',
    series: [expiry(7)],
    at: '5m',
    fires: [
      {
        labels: { listener: 'gateway', severity: 'warning' },
        summary: 'listener gateway: its certificate expires in 7d 0h 0m 0s'
      }
    ]
  },
  {
    alert: 'IgwCertificateExpiresSoon',
    what: 'a certificate chosen by SNI with 1 day left: the warning and the page',
    series: [expiry(1, 'api.example.com')],
    at: '5m',
    fires: [
      {
        labels: { listener: 'gateway', server_name: 'api.example.com', severity: 'warning' },
        summary: 'listener gateway (api.example.com): its certificate expires in 1d 0h 0m 0s'
      },
      {
        labels: { listener: 'gateway', server_name: 'api.example.com', severity: 'critical' },
        summary: 'listener gateway (api.example.com): its certificate expires in 1d 0h 0m 0s'
      }
    ]
  },
  {
    alert: 'IgwCertificateExpiresSoon',
    what: 'a certificate with 30 days left',
    series: [expiry(30)],
    at: '5m',
    fires: []
  },
  {
    alert: 'IgwListenerThreadReplaced',
    what: 'a thread started again 2 minutes ago',
    series: [gauge('igw_listener_thread_restarts_total', '0 0 0 1 1 1')],
    at: '5m',
    fires: [
      {
        labels: { ...atTarget, severity: 'warning' },
        summary: 'gw:9090: a listener thread failed and was started again'
      }
    ]
  },
  {
    alert: 'IgwListenerThreadReplaced',
    what: 'none',
    series: [gauge('igw_listener_thread_restarts_total', '0x5')],
    at: '5m',
    fires: []
  },
  {
    alert: 'IgwDrainUnfinished',
    what: 'an instance stopped with calls in flight 2 minutes ago',
    series: [gauge('igw_drain_timeouts_total', '0 0 0 1 1 1')],
    at: '5m',
    fires: [
      {
        labels: { ...atTarget, severity: 'warning' },
        summary: 'gw:9090: a replaced version was stopped with calls in flight'
      }
    ]
  },
  {
    alert: 'IgwDrainUnfinished',
    what: 'every drain finished',
    series: [gauge('igw_drain_timeouts_total', '0x5')],
    at: '5m',
    fires: []
  },
  {
    alert: 'IgwNotReady',
    what: 'not ready for 6 minutes',
    series: [gauge('igw_ready', '0x10')],
    at: '6m',
    fires: [
      { labels: { ...atTarget, severity: 'critical' }, summary: 'gw:9090: /readyz has answered 503 for 5 minutes' }
    ]
  },
  {
    alert: 'IgwNotReady',
    what: 'not ready for 3 minutes (starting)',
    series: [gauge('igw_ready', '0x10')],
    at: '3m',
    fires: []
  }
]
