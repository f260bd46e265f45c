import type { Span } from '@opentelemetry/api'
import type { CallObserver, ObservedCall } from '../invoke/ports'
import type { MethodInfo } from '../dispatch/catalog'
import type { LineSink } from '../core/line-writer'
import { endSpan, startSpan, tracingActive } from '../core/tracing'
import { traceIdOf } from '../core/trace-context'

/** Latency buckets in seconds, from half a millisecond to the 240 s executing timeout. */
export const LATENCY_BOUNDS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 240
] as const

/** What one route (microservice, service, method) did since start; counted with plain numbers. */
export class RouteStats {
  ok200 = 0
  ok204 = 0
  /** code → status → requests */
  readonly failures = new Map<string, Map<number, number>>()
  /** Non-cumulative: buckets[k] counts durations in (bound k-1, bound k]; the last slot is +Inf. */
  readonly buckets = new Float64Array(LATENCY_BOUNDS.length + 1)
  count = 0
  sum = 0
  bytesIn = 0
  bytesOut = 0
  /** The route's fields of an access-log line, quoted once. */
  readonly logFields: string
  /** The last line head made here (msg, method, path, status) and what it was made from. */
  private headUrl = ''
  private headMethod = ''
  private headStatus = 0
  private head = ''
  constructor(
    readonly microservice: string,
    readonly service: string,
    readonly method: string
  ) {
    this.logFields =
      microservice === ''
        ? ''
        : `"microservice":${quote(microservice)},"service":${quote(service)},"operation":${quote(method)},`
  }

  /**
   * The `"msg":…,"method":…,"path":…,"status":…,` part of a line. A route sees the same path, method
   * and status call after call, so it is quoted once and kept (quoting was a third of a line's cost).
   */
  lineHead(httpMethod: string, url: string, status: number): string {
    if (url === this.headUrl && status === this.headStatus && httpMethod === this.headMethod) return this.head
    const method = httpMethod === 'post' ? 'POST' : httpMethod.toUpperCase()
    const path = url.length > 256 ? url.slice(0, 256) : url
    this.headUrl = url
    this.headMethod = httpMethod
    this.headStatus = status
    this.head = `"msg":${quote(`${method} ${path} ${status}`)},"method":"${method}","path":${quote(path)},"status":${status},`
    return this.head
  }
}

/**
 * The gateway's observer: metrics counted in plain numbers per route (the labels are built once per
 * route, at the first call, never per request; Prometheus text is made at scrape time), the access
 * log, and an OpenTelemetry span for the gateway hop when an SDK is registered.
 */
export class CallTelemetry implements CallObserver {
  /** Routes with their counts; unrouted requests (refused before routing) count under ('', '', ''). */
  readonly routes = new Map<string, RouteStats>()
  private readonly byMethod = new WeakMap<MethodInfo, RouteStats>()
  private readonly unrouted = new RouteStats('', '', '')
  // The access log's constant parts and a clock read once per millisecond.
  private readonly linePrefix = '{"level":"info","time":"'
  private readonly lineMiddle = `","pid":${process.pid},"component":"access",`
  private clockMs = 0
  /** The line's start up to the time, for the millisecond `clockMs`. */
  private clockIso = ''

  constructor(
    private readonly metrics: boolean,
    private readonly accessLog: LineSink | null
  ) {
    this.routes.set('', this.unrouted)
  }

  started(traceparent: string): { traceparent: string; span: unknown } | null {
    if (!tracingActive()) return null
    return startSpan('gateway call', 'server', traceparent, { 'rpc.system': 'invocation-gateway' })
  }

  finished(call: ObservedCall, span: unknown): void {
    if (span !== null) {
      const s = span as Span
      const m = call.method
      if (m !== null) s.updateName(`${call.microservice}/${m.service}/${m.name}`)
      endSpan(s, call.status, call.code)
    }
    if (!this.metrics && this.accessLog === null) return
    // Read once for both: the route and the time since the request arrived.
    const r = this.routeOf(call)
    const ms = performance.now() - call.startedAt
    if (this.metrics) this.count(call, r, ms / 1000)
    if (this.accessLog !== null) this.log(call, r, ms, this.accessLog)
  }

  private routeOf(call: ObservedCall): RouteStats {
    const m = call.method
    return m === null ? this.unrouted : (this.byMethod.get(m) ?? this.route(call.microservice, m))
  }

  private count(call: ObservedCall, r: RouteStats, seconds: number): void {
    const status = call.status
    if (call.code === '') {
      if (status === 200) r.ok200++
      else r.ok204++
    } else {
      let byStatus = r.failures.get(call.code)
      if (byStatus === undefined) r.failures.set(call.code, (byStatus = new Map()))
      byStatus.set(status, (byStatus.get(status) ?? 0) + 1)
    }
    let k = 0
    while (k < LATENCY_BOUNDS.length && seconds > LATENCY_BOUNDS[k]!) k++
    r.buckets[k]!++
    r.count++
    r.sum += seconds
    r.bytesIn += call.bytesIn
    r.bytesOut += call.bytesOut
  }

  /** First call of a method (or of a new catalog's copy of it): find or make its route. */
  private route(microservice: string, m: MethodInfo): RouteStats {
    const key = `${microservice}\u0000${m.service}\u0000${m.name}`
    let r = this.routes.get(key)
    if (r === undefined) this.routes.set(key, (r = new RouteStats(microservice, m.service, m.name)))
    this.byMethod.set(m, r)
    return r
  }

  /**
   * One access-log line in the platform's log format (pino's: level, time, pid, component, msg),
   * built by hand: pino's own serializer measured 8.7 µs for this record, this 0.4 µs.
   */
  private log(call: ObservedCall, r: RouteStats, elapsedMs: number, sink: LineSink): void {
    const now = Date.now()
    if (now !== this.clockMs) {
      this.clockMs = now
      this.clockIso = `${this.linePrefix}${new Date(now).toISOString()}${this.lineMiddle}`
    }
    // Milliseconds with three decimals from integers: a fraction's shortest decimal form costs more.
    const us = Math.round(elapsedMs * 1000)
    const code = call.code === '' ? '' : `"code":"${call.code}",`
    const trace = call.traceparent === '' ? '' : `"traceId":"${traceIdOf(call.traceparent)}",`
    // The client address is formatted by the server from the socket's bytes: nothing to escape.
    sink.write(
      `${this.clockIso}${r.lineHead(call.httpMethod, call.url, call.status)}${code}"requestId":${quote(call.requestId)},` +
        `"bytesIn":${call.bytesIn},"bytesOut":${call.bytesOut},"ms":${(us / 1000) | 0}.${FRACTIONS[us % 1000]},` +
        `${r.logFields}${trace}"client":"${call.clientAddress()}"}\n`
    )
  }
}

/** '000' … '999', the decimals of a duration in milliseconds. */
const FRACTIONS = Array.from({ length: 1000 }, (_, k) => String(k).padStart(3, '0'))

// Printable ASCII but '"' and '\\': written as it is; anything else goes through JSON.stringify.
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/

function quote(s: string): string {
  return PLAIN.test(s) ? `"${s}"` : JSON.stringify(s)
}
