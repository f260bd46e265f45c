import { Gauge, Registry, type MetricValue } from 'prom-client'
import { LATENCY_BOUNDS, type RouteStats } from '../gateway/invoke/call-telemetry'
import type { PreparePool } from '../gateway/prepare/prepare-pool'
import type { RateLimiter } from '../gateway/admission/rate-limits'
import type { SharedCounts } from '../gateway/admission/shared-counts'
import type { Admission } from '../gateway/admission/concurrency'
import type { InstanceStatus, MicroserviceManager, MicroserviceStatus } from './manager'
import type { Deployer } from './package/deployer'
import type { ThreadTotals } from '../gateway/http/gateway'

/** What the metrics read at scrape time; nothing here is touched per request. */
export interface MetricSources {
  /** The calls' counts, one set of totals over every listener thread. */
  calls: CallTotals
  gateway: {
    readonly inFlight: number
    readonly bodyBytes: number
    readonly maxInFlight: number
    readonly maxBodyBytes: number
  }
  /** RATE_LIMITS' counts (shared by every listener thread) as they are now; null when there are no rules. */
  limits(): RateLimiter | null
  /** ADMISSION's adaptive limits on the main thread; null when off. */
  admission(): Admission | null
  pool: PreparePool
  manager: MicroserviceManager
  deployer: Deployer
  /** The certificates the TLS listeners serve now. */
  certificates(): ServedCertificate[]
  /** Whether /readyz would answer 200. */
  ready(): boolean
}

/** A certificate a listener serves: its own (serverName '') or one chosen by SNI. */
export interface ServedCertificate {
  listener: string
  serverName: string
  validTo: Date
}

/** The counts of every listener thread, brought up to date once per scrape (`refresh`) and then read. */
export interface CallTotals {
  refresh(): Promise<void>
  routes(): Iterable<RouteStats>
  /** Requests each listener thread answered ("0" is the main thread). */
  threads(): Array<ThreadTotals & { thread: string }>
  /** Listener threads started again after one failed. */
  readonly restarts: number
}

type RouteLabel = 'microservice' | 'service' | 'method'

/**
 * A metric whose samples are made from the sources when Prometheus scrapes (prom-client's own
 * Counter and Histogram hash their label objects on every inc/observe, which the hot path avoids).
 */
class ScrapedMetric {
  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly type: 'counter' | 'histogram' | 'gauge',
    private readonly samples: () => Array<MetricValue<string> & { metricName?: string }>,
    /** What must be brought up to date before the samples are read (the threads' counts). */
    private readonly ready: () => Promise<void> = () => Promise.resolve()
  ) {}

  /** The shape prom-client's Registry reads from a metric (name, help, type, samples). */
  async get(): Promise<{ name: string; help: string; type: string; values: MetricValue<string>[]; aggregator: 'sum' }> {
    await this.ready()
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      values: this.samples(),
      aggregator: 'sum'
    }
  }
}

function routeLabels(r: RouteStats): Record<RouteLabel, string> {
  return { microservice: r.microservice, service: r.service, method: r.method }
}

export function createMetricsRegistry(s: MetricSources): Registry {
  const registry = new Registry()
  processMetrics(registry)
  // One refresh per scrape, however many metrics wait for it (prom-client reads them concurrently).
  let refreshing: Promise<void> | null = null
  const refreshed = (): Promise<void> =>
    (refreshing ??= s.calls.refresh().finally(() => {
      refreshing = null
    }))
  const scraped: Scrape = (name, help, type, samples) =>
    registry.registerMetric(new ScrapedMetric(name, help, type, samples, refreshed) as never)
  callMetrics(scraped, s)
  rateLimitMetrics(scraped, s)
  admissionMetrics(scraped, s)
  gatewayGauges(registry, s)
  platformMetrics(scraped, s)
  return registry
}

/** Registers a metric whose samples are read at each scrape, after the listener threads' counts are refreshed. */
type Scrape = (
  name: string,
  help: string,
  type: 'counter' | 'histogram' | 'gauge',
  samples: () => Array<MetricValue<string> & { metricName?: string }>
) => void

/** The calls by route and by listener thread. */
function callMetrics(scraped: Scrape, s: MetricSources): void {
  const routes = (): RouteStats[] => [...s.calls.routes()].filter((r) => r.count > 0)
  scraped(
    'igw_requests_total',
    'Requests answered by the gateway, by route, HTTP status and problem code ("" for a success; unrouted requests have empty route labels).',
    'counter',
    () =>
      routes().flatMap((r) => {
        const base = routeLabels(r)
        const out: MetricValue<string>[] = []
        if (r.ok200 > 0) out.push({ labels: { ...base, status: 200, code: '' }, value: r.ok200 })
        if (r.ok204 > 0) out.push({ labels: { ...base, status: 204, code: '' }, value: r.ok204 })
        for (const [code, byStatus] of r.failures)
          for (const [status, n] of byStatus) out.push({ labels: { ...base, status, code }, value: n })
        return out
      })
  )
  scraped('igw_request_duration_seconds', 'Time from the request head to the answer, by route.', 'histogram', () =>
    routes().flatMap((r) => {
      const base = routeLabels(r)
      const out: Array<MetricValue<string> & { metricName: string }> = []
      let cumulative = 0
      LATENCY_BOUNDS.forEach((le, k) => {
        cumulative += r.buckets[k]!
        out.push({ metricName: 'igw_request_duration_seconds_bucket', labels: { ...base, le }, value: cumulative })
      })
      out.push({
        metricName: 'igw_request_duration_seconds_bucket',
        labels: { ...base, le: '+Inf' },
        value: r.count
      })
      out.push({ metricName: 'igw_request_duration_seconds_sum', labels: base, value: r.sum })
      out.push({ metricName: 'igw_request_duration_seconds_count', labels: base, value: r.count })
      return out
    })
  )
  scraped('igw_request_body_bytes_total', 'Request body bytes read, by route.', 'counter', () =>
    routes().map((r) => ({ labels: routeLabels(r), value: r.bytesIn }))
  )
  scraped('igw_response_body_bytes_total', 'Response body bytes written, by route.', 'counter', () =>
    routes().map((r) => ({ labels: routeLabels(r), value: r.bytesOut }))
  )

  scraped(
    'igw_listener_thread_requests_total',
    'Requests answered by each listener thread ("0" is the main thread): how the kernel spread the connections.',
    'counter',
    () => s.calls.threads().map((t) => ({ labels: { thread: t.thread }, value: t.answered }))
  )
  scraped(
    'igw_busy_polls_total',
    'Times each listener thread kept its loop turning after a call or an answer (busyPollMicroseconds).',
    'counter',
    () => s.calls.threads().map((t) => ({ labels: { thread: t.thread }, value: t.polls }))
  )
  scraped(
    'igw_busy_poll_rests_total',
    'Times a polling listener thread stopped early and rested: the kernel kept it from its core (another task needed it).',
    'counter',
    () => s.calls.threads().map((t) => ({ labels: { thread: t.thread }, value: t.rests }))
  )
  scraped('igw_listener_thread_restarts_total', 'Listener threads started again after one failed.', 'counter', () => [
    { labels: {}, value: s.calls.restarts }
  ])
}

/** RATE_LIMITS: each rule's decisions and evictions, and the Redis store of the cluster rules. */
function rateLimitMetrics(scraped: Scrape, s: MetricSources): void {
  // Registered with no rules too: a reload may add some.
  const totals = (): Array<{ rule: string; allowed: number; limited: number; evicted: number }> => {
    const limits = s.limits()
    return limits === null ? [] : limits.tables.map((t) => ({ rule: t.name, ...limits.store.totals(t.table) }))
  }
  scraped(
    'igw_rate_limit_calls_total',
    'Calls a rate-limit rule matched, by rule and decision (allowed, or limited: answered 429 RATE_LIMITED).',
    'counter',
    () =>
      totals().flatMap((t) => [
        { labels: { rule: t.rule, decision: 'allowed' }, value: t.allowed },
        { labels: { rule: t.rule, decision: 'limited' }, value: t.limited }
      ])
  )
  scraped(
    'igw_rate_limit_evictions_total',
    'Keys a rule forgot to count a new one (more keys at once than RATE_LIMITS.maxKeys): their counts started again.',
    'counter',
    () => totals().map((t) => ({ labels: { rule: t.rule }, value: t.evicted }))
  )

  // RATE_LIMITS.redis as the main listener thread's connection sees it; nothing without cluster rules.
  const store = (read: (counts: SharedCounts) => number) => () => {
    const counts = s.limits()?.counts ?? null
    return counts === null ? [] : [{ labels: {}, value: read(counts) }]
  }
  scraped(
    'igw_rate_limit_store_up',
    "1 while RATE_LIMITS.redis answers for the cluster rules, 0 while they are counted without it (the main listener thread's connection).",
    'gauge',
    store((c) => c.up)
  )
  scraped(
    'igw_rate_limit_store_failures_total',
    'Calls of cluster rules decided without Redis (not connected, or no answer within RATE_LIMITS.redis.timeoutMs), on the main listener thread.',
    'counter',
    store((c) => c.failures)
  )
}

/** ADMISSION.adaptive: each method's limit and the unloaded round trip it is measured against. */
function admissionMetrics(scraped: Scrape, s: MetricSources): void {
  const methods = () => [...(s.admission()?.entries() ?? [])]
  const labels = (e: ReturnType<typeof methods>[number]) => ({
    microservice: e.microservice,
    service: e.method.service,
    method: e.method.name
  })
  scraped(
    'igw_admission_limit',
    "Each method's adaptive concurrency limit on the main listener thread (ADMISSION.adaptive): calls past it are refused 503 OVERLOADED.",
    'gauge',
    () => methods().map((e) => ({ labels: labels(e), value: e.limit.limit }))
  )
  scraped(
    'igw_admission_unloaded_latency_seconds',
    "Each method's unloaded round trip as its adaptive limit sees it (the least of the last two baseline periods).",
    'gauge',
    () =>
      methods()
        .filter((e) => Number.isFinite(e.limit.unloadedMs))
        .map((e) => ({ labels: labels(e), value: e.limit.unloadedMs / 1000 }))
  )
}

/** What the gateway holds now and its limits, the splitting pool, readiness. */
function gatewayGauges(registry: Registry, s: MetricSources): void {
  const gauge = (name: string, help: string, read: () => number): void => {
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read())
      }
    })
  }
  gauge('igw_requests_in_flight', 'Requests holding a body or a call right now.', () => s.gateway.inFlight)
  gauge('igw_body_bytes_in_flight', 'Body bytes held by requests in progress.', () => s.gateway.bodyBytes)
  gauge(
    'igw_requests_in_flight_limit',
    'ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.maxInFlight: requests past it are refused 503 OVERLOADED.',
    () => s.gateway.maxInFlight
  )
  gauge(
    'igw_body_bytes_in_flight_limit',
    'ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.maxBodyBytesInFlight: a body that would take the bytes held past it is refused 503 OVERLOADED.',
    () => s.gateway.maxBodyBytes
  )
  gauge('igw_pool_threads', 'Worker threads of the splitting and encoding pool.', () => s.pool.threads)
  gauge('igw_pool_queue', 'Tasks waiting for a worker thread.', () => s.pool.queueSize)
  gauge('igw_pool_utilization', 'Worker pool utilization since start (0 to 1).', () => s.pool.utilization)
  gauge('igw_ready', 'Whether /readyz answers 200 (started, not draining, required microservices available).', () =>
    s.ready() ? 1 : 0
  )
}

/** The microservices and their instances, certificates, drains and deploys. */
function platformMetrics(scraped: Scrape, s: MetricSources): void {
  const statuses = (): MicroserviceStatus[] => s.manager.statuses()
  const instances = (): Array<{ labels: { microservice: string; instance: string }; st: InstanceStatus }> =>
    statuses().flatMap((m) => m.instances.map((st) => ({ labels: { microservice: m.name, instance: st.id }, st })))
  scraped(
    'igw_microservice_available',
    'Whether the gateway can call the microservice (1) or answers 503 for it (0).',
    'gauge',
    () => statuses().map((m) => ({ labels: { microservice: m.name }, value: m.unavailable === null ? 1 : 0 }))
  )
  scraped(
    'igw_microservice_versions',
    'How many versions the connected instances of the microservice run (more than 1 during a rollout).',
    'gauge',
    () => statuses().map((m) => ({ labels: { microservice: m.name }, value: m.versions.length }))
  )
  scraped(
    'igw_instance_up',
    'Whether the instance is up (1): its process running, or a remote instance connected.',
    'gauge',
    () =>
      instances().map((i) => ({
        labels: { ...i.labels, state: i.st.state, remote: String(i.st.remote), version: i.st.version ?? '' },
        value: i.st.state === 'running' || i.st.state === 'connected' ? 1 : 0
      }))
  )
  scraped('igw_instance_restarts_total', 'Restarts of the instance after it stopped.', 'counter', () =>
    instances().map((i) => ({ labels: i.labels, value: i.st.restarts }))
  )
  scraped(
    'igw_instance_memory_restarts_total',
    'Restarts of the instance with a larger heap after a memory error.',
    'counter',
    () => instances().map((i) => ({ labels: i.labels, value: i.st.memoryRestarts }))
  )
  scraped(
    'igw_tls_certificate_expiration_timestamp_seconds',
    'When each certificate a listener serves expires (seconds since the epoch); server_name "" is the one without SNI.',
    'gauge',
    () =>
      s.certificates().map((c) => ({
        labels: { listener: c.listener, server_name: c.serverName },
        value: Math.floor(c.validTo.getTime() / 1000)
      }))
  )
  scraped(
    'igw_drain_timeouts_total',
    'Instances of a replaced version stopped with calls still in flight: PLATFORM.drainTimeoutMs passed first.',
    'counter',
    () => [{ labels: {}, value: s.manager.drainTimeouts }]
  )
  scraped('igw_deploys_total', 'Uploaded packages, deployed or refused.', 'counter', () => [
    { labels: { result: 'deployed' }, value: s.deployer.deployed },
    { labels: { result: 'refused' }, value: s.deployer.refused }
  ])
}

/**
 * prom-client's default process metrics but for nodejs_gc_duration_seconds: its GC observer adds
 * work to every request (a PerformanceObserver entry per collection and a label hash per entry),
 * which showed in the gateway's CPU per call. The others read their values when scraped.
 * prom-client has no option to leave one out, so they are registered one by one.
 */
const DEFAULT_METRICS = [
  'processCpuTotal',
  'processStartTime',
  'osMemoryHeap',
  'processOpenFileDescriptors',
  'processMaxFileDescriptors',
  'eventLoopLag',
  'processHandles',
  'processRequests',
  'processResources',
  'heapSizeAndUsed',
  'heapSpacesSizeAndUsed',
  'version'
] as const

function processMetrics(registry: Registry): void {
  for (const name of DEFAULT_METRICS) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const register = require(`prom-client/lib/metrics/${name}`) as (r: Registry, c: object) => void
    register(registry, { eventLoopMonitoringPrecision: 10 })
  }
}
