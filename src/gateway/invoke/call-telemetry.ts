import type { Span } from '@opentelemetry/api'
import type { CallObserver, ObservedCall } from './interfaces'
import type { MethodInfo } from '../dispatch/catalog'
import { LinesAsBytes, type ByteLineSink, type LineSink } from '../../common/observability/line-writer'
import { endSpan, startSpan, tracingActive } from '../../common/observability/tracing'
import { lineStart } from '../../common/observability/log'
import { jsonBound, putBytes, putJsonString, putMillis, putUint } from '../../common/bytes/json-bytes'
import { EVERY_CALL, type AccessSampling } from './access-sampling'

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
  /** The route's fields of an access-log line, as bytes made once. */
  readonly logFields: Uint8Array
  /** The last line head (method, path, status) and tail (msg) made here, and what they were made from. */
  private headUrl = ''
  private headMethod = ''
  private headStatus = 0
  private head: Uint8Array = EMPTY
  private tail: Uint8Array = EMPTY
  constructor(
    readonly microservice: string,
    readonly service: string,
    readonly method: string
  ) {
    this.logFields = Buffer.from(
      microservice === ''
        ? ''
        : `"microservice":${JSON.stringify(microservice)},"service":${JSON.stringify(service)},"operation":${JSON.stringify(method)},`
    )
  }

  /**
   * The `,"method":…,"path":…,"status":…,` part of a line (lineTail() is its msg). A route sees the
   * same path, method and status call after call, so they are quoted once and kept (quoting was a
   * third of a line's cost).
   */
  lineHead(httpMethod: string, url: string, status: number): Uint8Array {
    if (url === this.headUrl && status === this.headStatus && httpMethod === this.headMethod) return this.head
    const method = httpMethod === 'post' ? 'POST' : httpMethod.toUpperCase()
    const path = url.length > 256 ? url.slice(0, 256) : url
    this.headUrl = url
    this.headMethod = httpMethod
    this.headStatus = status
    this.head = Buffer.from(`,"method":"${method}","path":${JSON.stringify(path)},"status":${status},`)
    this.tail = Buffer.from(`,"msg":${JSON.stringify(`${method} ${path} ${status}`)}}\n`)
    return this.head
  }

  /** The end of the line lineHead() began: `,"msg":"POST /path 200"}` and the newline. */
  lineTail(): Uint8Array {
    return this.tail
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
  /** The microservice-only routes of refused calls, by name (their key in `routes` made once). */
  private readonly byMicroservice = new Map<string, RouteStats>()
  private readonly unrouted = new RouteStats('', '', '')
  private readonly accessLog: ByteLineSink | null
  private clockMs = 0
  /** The second of `clockMs`: a new one rebuilds `clockBytes`; a new millisecond only rewrites its digits. */
  private clockSecond = -1
  /** The line's start up to and with the component, for the millisecond `clockMs`. */
  private clockBytes: Uint8Array = EMPTY
  /** Where the three millisecond digits of the time stand in `clockBytes`. */
  private clockMillisAt = 0

  /**
   * `now` is the wall clock the access log's times come from (a parameter so that a benchmark which
   * counts instructions can make the work per call independent of how fast the machine runs it).
   */
  constructor(
    private readonly metrics: boolean,
    accessLog: LineSink | null,
    private readonly now: () => number = Date.now,
    /** Which calls get a line (LOGGING.accessLogSample, accessLogSlowMs). */
    private readonly sampling: AccessSampling = EVERY_CALL
  ) {
    this.routes.set('', this.unrouted)
    this.accessLog =
      accessLog === null ? null : 'room' in accessLog ? (accessLog as ByteLineSink) : new LinesAsBytes(accessLog)
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
    if (this.accessLog !== null && this.sampling.takes(call.code, ms)) this.log(call, r, ms, this.accessLog)
  }

  private routeOf(call: ObservedCall): RouteStats {
    const m = call.method
    if (m !== null) return this.byMethod.get(m) ?? this.route(call.microservice, m)
    const name = call.microservice
    return name === '' ? this.unrouted : this.microserviceOnly(name)
  }

  /**
   * A refusal of a deployed microservice's call before a method was found (unavailable, unknown
   * service or method): counted under the microservice, with empty service and method labels, so an
   * outage shows on its series. Only a deployed microservice's name gets here, so the labels stay few.
   */
  private microserviceOnly(name: string): RouteStats {
    let r = this.byMicroservice.get(name)
    if (r === undefined) {
      r = new RouteStats(name, '', '')
      this.byMicroservice.set(name, r)
      this.routes.set(`${name}\u0000\u0000`, r)
    }
    return r
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

  /**
   * The line's start for the millisecond `now`. Within one second only the millisecond digits change,
   * written in place: the ISO text, the line's start and its bytes are made once a second, not at
   * every millisecond a call lands in.
   */
  private tick(now: number): void {
    this.clockMs = now
    const second = Math.floor(now / 1000)
    if (second !== this.clockSecond) {
      this.clockSecond = second
      const iso = new Date(now).toISOString()
      const line = lineStart('info', iso, 'access')
      this.clockBytes = Buffer.from(line)
      // The ISO text is ASCII, so its place in the string is its place in the bytes; its digits of
      // milliseconds are the three before the final 'Z'.
      this.clockMillisAt = line.indexOf(iso) + iso.length - 4
      return
    }
    const ms = now - second * 1000
    const b = this.clockBytes
    const at = this.clockMillisAt
    b[at] = 0x30 + Math.floor(ms / 100)
    b[at + 1] = 0x30 + (Math.floor(ms / 10) % 10)
    b[at + 2] = 0x30 + (ms % 10)
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
   * One access-log line in the platform's log format (src/common/observability/log.ts: level, time,
   * pid, component, the fields, msg), written as bytes in the writer's buffer: pino's serializer, or a
   * line built as a string, cost more per call (docs/performance.md).
   */
  private log(call: ObservedCall, r: RouteStats, elapsedMs: number, sink: ByteLineSink): void {
    const now = this.now()
    if (now !== this.clockMs) this.tick(now)
    const head = r.lineHead(call.httpMethod, call.url, call.status)
    const client = call.clientAddress()
    const room =
      this.clockBytes.length +
      head.length +
      r.lineTail().length +
      r.logFields.length +
      jsonBound(call.requestId) +
      jsonBound(call.code) +
      jsonBound(client) +
      160
    const buf = sink.room(room)
    if (buf === null) return
    let pos = putBytes(buf, sink.offset, this.clockBytes)
    pos = putBytes(buf, pos, head)
    if (call.code !== '') {
      pos = putBytes(buf, pos, CODE_KEY)
      pos = putJsonString(buf, pos, call.code)
      buf[pos++] = 0x2c
    }
    pos = putBytes(buf, pos, REQUEST_ID_KEY)
    pos = putJsonString(buf, pos, call.requestId)
    pos = putBytes(buf, pos, BYTES_IN_KEY)
    pos = putUint(buf, pos, call.bytesIn)
    pos = putBytes(buf, pos, BYTES_OUT_KEY)
    pos = putUint(buf, pos, call.bytesOut)
    pos = putBytes(buf, pos, MS_KEY)
    pos = putMillis(buf, pos, Math.max(0, Math.round(elapsedMs * 1000)))
    buf[pos++] = 0x2c
    pos = putBytes(buf, pos, r.logFields)
    const tp = call.traceparent
    // Validated or made here: lower-case hex and dashes, nothing to escape.
    if (tp !== '') {
      // version-traceid-parentid-flags: the trace id is characters 3 to 34.
      pos = putBytes(buf, pos, TRACE_ID_KEY)
      for (let k = 3; k < 35; k++) buf[pos++] = tp.charCodeAt(k)
      pos = putBytes(buf, pos, QUOTE_COMMA)
    }
    pos = putBytes(buf, pos, CLIENT_KEY)
    pos = putJsonString(buf, pos, client)
    sink.commit(putBytes(buf, pos, r.lineTail()))
  }
}

const EMPTY = new Uint8Array(0)
const CODE_KEY = Buffer.from('"code":')
const QUOTE_COMMA = Buffer.from('",')
const REQUEST_ID_KEY = Buffer.from('"requestId":')
const BYTES_IN_KEY = Buffer.from(',"bytesIn":')
const BYTES_OUT_KEY = Buffer.from(',"bytesOut":')
const MS_KEY = Buffer.from(',"ms":')
const TRACE_ID_KEY = Buffer.from('"traceId":"')
const CLIENT_KEY = Buffer.from('"client":')

/** A route's counts as plain data: what a listener thread sends the main thread when metrics are scraped. */
export interface RouteCounts {
  microservice: string
  service: string
  method: string
  ok200: number
  ok204: number
  /** [code, [[status, requests], …]] */
  failures: Array<[string, Array<[number, number]>]>
  buckets: number[]
  count: number
  sum: number
  bytesIn: number
  bytesOut: number
}

export function routeCounts(r: RouteStats): RouteCounts {
  return {
    microservice: r.microservice,
    service: r.service,
    method: r.method,
    ok200: r.ok200,
    ok204: r.ok204,
    failures: [...r.failures].map(([code, byStatus]) => [code, [...byStatus]]),
    buckets: [...r.buckets],
    count: r.count,
    sum: r.sum,
    bytesIn: r.bytesIn,
    bytesOut: r.bytesOut
  }
}

/**
 * One set of totals from several threads' routes: the main thread's RouteStats and the counts the
 * listener threads sent, added up per route.
 */
export function addedRoutes(lists: Iterable<Iterable<RouteStats | RouteCounts>>): RouteStats[] {
  const out = new Map<string, RouteStats>()
  for (const list of lists)
    for (const c of list) {
      if (c.count === 0) continue
      const key = `${c.microservice}\u0000${c.service}\u0000${c.method}`
      let r = out.get(key)
      if (r === undefined) out.set(key, (r = new RouteStats(c.microservice, c.service, c.method)))
      r.ok200 += c.ok200
      r.ok204 += c.ok204
      for (const [code, byStatus] of c.failures) {
        let into = r.failures.get(code)
        if (into === undefined) r.failures.set(code, (into = new Map()))
        for (const [status, n] of byStatus) into.set(status, (into.get(status) ?? 0) + n)
      }
      for (let k = 0; k < r.buckets.length; k++) r.buckets[k]! += c.buckets[k] ?? 0
      r.count += c.count
      r.sum += c.sum
      r.bytesIn += c.bytesIn
      r.bytesOut += c.bytesOut
    }
  return [...out.values()]
}
