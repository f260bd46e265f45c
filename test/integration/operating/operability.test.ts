// Logs, metrics and trace propagation through a real platform: the access log has one line per call
// with its request id (none when off), /metrics parses as Prometheus text and its counters move with
// calls and errors, traceparent reaches the method unchanged (or is made), and an SDK gets spans.
import { test, describe, after } from 'node:test'
import assert from 'node:assert/strict'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { trace } from '@opentelemetry/api'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { Platform } from '../../../src/platform/platform'
import { BatchedLineWriter } from '../../../src/common/observability/line-writer'
import { createLogger } from '../../../src/common/observability/log'
import { mkdtempSync, openSync, closeSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { testConfig, post, until, TESTKIT_DIR, TEST_PLATFORM_OPTIONS } from '../../helpers/platform'

const JSON_CT = { 'Content-Type': 'application/json' }

async function platform(
  overrides: Parameters<typeof testConfig>[0],
  lines: string[]
): Promise<{ p: Platform; url: string; admin: string }> {
  const p = new Platform(testConfig(overrides), {
    ...TEST_PLATFORM_OPTIONS,
    accessLog: { write: (l: string) => void lines.push(l) }
  })
  const port = await p.start([TESTKIT_DIR])
  return { p, url: `http://127.0.0.1:${port}`, admin: `http://127.0.0.1:${p.adminPort}` }
}

interface Family {
  name: string
  type: string
  metrics: Array<{ labels?: Record<string, string>; value?: string; buckets?: Record<string, string>; count?: string }>
}

async function scrape(admin: string): Promise<Map<string, Family>> {
  const r = await fetch(`${admin}/metrics`)
  assert.equal(r.status, 200)
  assert.match(r.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/)
  const families = parsePrometheusTextFormat(await r.text()) as Family[]
  return new Map(families.map((f) => [f.name, f]))
}

function sample(f: Family | undefined, labels: Record<string, string>): number {
  const m = f?.metrics.find((s) => Object.entries(labels).every(([k, v]) => s.labels?.[k] === v))
  return m === undefined ? 0 : Number(m.value ?? m.count)
}

describe('access log, metrics and traces', { concurrency: false }, () => {
  const lines: string[] = []
  let env: Awaited<ReturnType<typeof platform>>
  after(() => env?.p.stop())

  test('one access-log line per call, with its request id and route', async () => {
    env = await platform({}, lines)
    const before = lines.length
    const r = await post(env.url, '/testkit/custom/shout', '"hi"', { ...JSON_CT, 'X-PLATFORM-Request-ID': 'req-42' })
    assert.equal(r.status, 200)
    const bad = await post(env.url, '/testkit/nope/x', '"hi"', { ...JSON_CT, 'X-PLATFORM-Request-ID': 'req-43' })
    assert.equal(bad.status, 404)
    await env.p.stop(1000) // the access logger flushes on stop at the latest
    const records = lines.slice(before).map((l) => JSON.parse(l) as Record<string, unknown>)
    const ok = records.find((x) => x.requestId === 'req-42')
    assert.ok(ok, 'a line for the call')
    assert.equal(ok.component, 'access')
    assert.equal(ok.status, 200)
    assert.equal(ok.method, 'POST')
    assert.equal(ok.path, '/testkit/custom/shout')
    assert.equal(ok.microservice, 'testkit')
    assert.equal(ok.service, 'custom')
    assert.equal(ok.operation, 'shout')
    assert.equal(ok.bytesIn, 4)
    assert.equal(ok.client, '127.0.0.1')
    assert.equal(typeof ok.ms, 'number')
    assert.match(String(ok.time), /^\d{4}-\d\d-\d\dT/)
    const refused = records.find((x) => x.requestId === 'req-43')
    assert.equal(refused?.status, 404)
    assert.equal(refused?.code, 'UNKNOWN_SERVICE')
    assert.equal(records.length, 2)
  })

  test('the batched line writer delivers every line, in order, in few writes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lines-'))
    const file = join(dir, 'access.log')
    const fd = openSync(file, 'w')
    const w = new BatchedLineWriter(fd)
    for (let k = 0; k < 20000; k++) w.write(`{"n":${k}}\n`)
    await until(() => readFileSync(file, 'utf8').split('\n').length === 20001, 5000, 'the lines')
    const got = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { n: number }).n)
    assert.deepEqual(
      got,
      Array.from({ length: 20000 }, (_, k) => k)
    )
    w.write('{"n":"last"}\n')
    w.flushSync()
    assert.match(readFileSync(file, 'utf8'), /"last"/)
    closeSync(fd)
    assert.equal(w.dropped, 0)
  })

  test('platform events are structured records: availability as it changes', async () => {
    const events: Array<Record<string, unknown>> = []
    const p = new Platform(testConfig({ LOGGING: { accessLog: false } }), {
      ...TEST_PLATFORM_OPTIONS,
      logger: createLogger('info', { write: (l: string) => void events.push(JSON.parse(l) as Record<string, unknown>) })
    })
    await p.start([TESTKIT_DIR])
    try {
      await until(
        () => events.some((e) => e.event === 'availability' && e.available === true && e.microservice === 'testkit'),
        10000,
        'the availability record'
      )
      await p.manager.get('testkit')!.stop()
      await until(
        () => events.some((e) => e.event === 'availability' && e.available === false),
        10000,
        'the unavailability record'
      )
      const down = events.find((e) => e.event === 'availability' && e.available === false)!
      assert.equal(down.component, 'dispatch')
      assert.equal(down.level, 'info')
      assert.match(String(down.time), /^\d{4}-\d\d-\d\dT/)
      assert.equal(typeof down.reason, 'string')
    } finally {
      await p.stop(1000)
    }
  })

  test('no access-log line when LOGGING.accessLog is off', async () => {
    const quiet: string[] = []
    const e = await platform({ LOGGING: { accessLog: false } }, quiet)
    try {
      assert.equal((await post(e.url, '/testkit/custom/shout', '"hi"')).status, 200)
    } finally {
      await e.p.stop(1000)
    }
    assert.deepEqual(quiet, [])
  })

  test('errors and slow calls only (accessLogSample 0): failed, refused and slow calls get lines, fast answers none; at 0.5 every second one', async () => {
    const few: string[] = []
    const e = await platform({ LOGGING: { accessLogSample: 0, accessLogSlowMs: 250 } }, few)
    try {
      for (let k = 0; k < 20; k++) assert.equal((await post(e.url, '/testkit/custom/shout', '"hi"')).status, 200)
      assert.equal((await post(e.url, '/testkit/misc/fail', '"x"')).status, 500)
      assert.equal((await post(e.url, '/testkit/nope/x', '"x"')).status, 404)
      assert.equal((await post(e.url, '/testkit/slow/sleep', '300')).status, 200)
    } finally {
      await e.p.stop(1000)
    }
    const records = few.map((l) => JSON.parse(l) as { status: number; code?: string; path: string; ms: number })
    assert.deepEqual(
      records.map((r) => [r.path, r.status, r.code ?? '']),
      [
        ['/testkit/misc/fail', 500, 'METHOD_FAILED'],
        ['/testkit/nope/x', 404, 'UNKNOWN_SERVICE'],
        ['/testkit/slow/sleep', 200, '']
      ]
    )
    assert.ok(records[2]!.ms >= 250)
    const half: string[] = []
    const h = await platform({ LOGGING: { accessLogSample: 0.5 } }, half)
    try {
      for (let k = 0; k < 20; k++) assert.equal((await post(h.url, '/testkit/custom/shout', '"hi"')).status, 200)
    } finally {
      await h.p.stop(1000)
    }
    assert.equal(half.length, 10)
  })

  test('/metrics parses as Prometheus text; request counters and the histogram move with calls and errors', async () => {
    const e = await platform({ LOGGING: { accessLog: false } }, [])
    try {
      const route = { microservice: 'testkit', service: 'custom', method: 'shout' }
      const m0 = await scrape(e.admin)
      assert.equal(m0.get('igw_requests_total')?.type, 'COUNTER')
      assert.equal(m0.get('igw_request_duration_seconds')?.type, 'HISTOGRAM')
      assert.ok(m0.has('process_cpu_user_seconds_total'), 'process metrics')
      assert.equal(sample(m0.get('igw_microservice_available'), { microservice: 'testkit' }), 1)
      assert.equal(sample(m0.get('igw_ready'), {}), 1)
      for (let k = 0; k < 3; k++) assert.equal((await post(e.url, '/testkit/custom/shout', '"x"')).status, 200)
      assert.equal((await post(e.url, '/testkit/misc/fail', '"x"')).status, 500)
      assert.equal((await post(e.url, '/testkit/custom/shout', '{')).status, 400)
      const m1 = await scrape(e.admin)
      const requests = m1.get('igw_requests_total')
      assert.equal(sample(requests, { ...route, status: '200', code: '' }), 3)
      assert.equal(sample(requests, { ...route, status: '400', code: 'MALFORMED_BODY' }), 1)
      assert.equal(
        sample(requests, {
          microservice: 'testkit',
          service: 'misc',
          method: 'fail',
          status: '500',
          code: 'METHOD_FAILED'
        }),
        1
      )
      // The parser folds a labelled histogram into one sample, so its series are read off the text.
      const text = await (await fetch(`${e.admin}/metrics`)).text()
      const series = '{microservice="testkit",service="custom",method="shout"'
      assert.match(text, new RegExp(`^igw_request_duration_seconds_count${series}} 4$`, 'm'))
      assert.match(text, new RegExp(`^igw_request_duration_seconds_bucket${series},le="\\+Inf"} 4$`, 'm'))
      const buckets = [
        ...text.matchAll(new RegExp(`^igw_request_duration_seconds_bucket${series},le="[^"]+"} (\\d+)$`, 'gm'))
      ]
      const counts = buckets.map((b) => Number(b[1]))
      assert.deepEqual(
        [...counts].sort((a, b) => a - b),
        counts,
        'buckets are cumulative'
      )
      assert.equal(sample(m1.get('igw_request_body_bytes_total'), route), 3 * 3 + 1)
      assert.equal(sample(m1.get('igw_requests_in_flight'), {}), 0)
    } finally {
      await e.p.stop(1000)
    }
  })

  test('calls through the edge count on their route; an outage counts on the microservice and its availability goes to 0', async () => {
    const lines: string[] = []
    const e = await platform({}, lines)
    try {
      const edge = `http://127.0.0.1:${e.p.edgePort}`
      for (let k = 0; k < 2; k++)
        assert.equal((await post(edge, '/_eapi/ELASTIC_HTTP/testkit/custom/shout', '"x"')).status, 200)
      const m1 = await scrape(e.admin)
      const route = { microservice: 'testkit', service: 'custom', method: 'shout' }
      assert.equal(sample(m1.get('igw_requests_total'), { ...route, status: '200', code: '' }), 2)
      // A method the microservice does not have: its name is the client's, so only the microservice is labelled.
      assert.equal((await post(e.url, '/testkit/custom/nope', '"x"')).status, 404)
      await e.p.manager.get('testkit')!.stop()
      await until(
        async () =>
          sample((await scrape(e.admin)).get('igw_microservice_available'), { microservice: 'testkit' }) === 0,
        10000,
        'igw_microservice_available to go to 0'
      )
      const down = await post(e.url, '/testkit/custom/shout', '"x"')
      assert.equal(down.status, 503)
      const m2 = await scrape(e.admin)
      const requests = m2.get('igw_requests_total')
      const only = { microservice: 'testkit', service: '', method: '' }
      assert.equal(sample(requests, { ...only, status: '503', code: 'MICROSERVICE_UNAVAILABLE' }), 1)
      assert.equal(sample(requests, { ...only, status: '404', code: 'UNKNOWN_METHOD' }), 1)
      // A microservice nobody deployed is still counted without labels (its name is the client's).
      assert.equal((await post(e.url, '/nobody/custom/shout', '"x"')).status, 404)
      const m3 = await scrape(e.admin)
      const blank = { microservice: '', service: '', method: '' }
      assert.equal(sample(m3.get('igw_requests_total'), { ...blank, status: '404', code: 'UNKNOWN_MICROSERVICE' }), 1)
      await until(() => lines.some((l) => l.includes('MICROSERVICE_UNAVAILABLE')), 5000, 'the access-log line')
      const logged = JSON.parse(lines.find((l) => l.includes('MICROSERVICE_UNAVAILABLE'))!) as Record<string, unknown>
      assert.deepEqual([logged.microservice, logged.status], ['testkit', 503])
    } finally {
      await e.p.stop(1000)
    }
  })

  test('traceparent reaches the method unchanged; a fresh one is made when absent or invalid', async () => {
    const e = await platform({ LOGGING: { accessLog: false } }, [])
    try {
      const sent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'
      const a = await post(e.url, '/testkit/misc/trace', '"x"', { ...JSON_CT, traceparent: sent, tracestate: 'v=1' })
      assert.equal(JSON.parse(a.text), `${sent}|v=1`)
      const b = await post(e.url, '/testkit/misc/trace', '"x"')
      const [made, state] = (JSON.parse(b.text) as string).split('|')
      assert.match(made!, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/)
      assert.equal(state, '')
      const c = await post(e.url, '/testkit/misc/trace', '"x"', { ...JSON_CT, traceparent: '00-zz-00-01' })
      const [fresh] = (JSON.parse(c.text) as string).split('|')
      assert.notEqual(fresh, '00-zz-00-01')
      assert.match(fresh!, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/)
    } finally {
      await e.p.stop(1000)
    }
    const off = await platform(
      {
        LOGGING: { accessLog: false },
        ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { tracing: { generateTraceparent: false } } }
      },
      []
    )
    try {
      const r = await post(off.url, '/testkit/misc/trace', '"x"')
      assert.equal(JSON.parse(r.text), '|', 'none made when generation is off')
    } finally {
      await off.p.stop(1000)
    }
  })

  test('with an OpenTelemetry SDK registered, the gateway hop is a span and its child reaches the method', async () => {
    const exporter = new InMemorySpanExporter()
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
    trace.setGlobalTracerProvider(provider)
    try {
      const e = await platform({ LOGGING: { accessLog: false }, ADMIN: { metrics: false } }, [])
      try {
        const sent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'
        const r = await post(e.url, '/testkit/misc/trace', '"x"', { ...JSON_CT, traceparent: sent })
        const [seen] = (JSON.parse(r.text) as string).split('|')
        const spans = exporter.getFinishedSpans()
        assert.equal(spans.length, 1)
        const span = spans[0]!
        assert.equal(span.name, 'testkit/misc/trace')
        assert.equal(span.spanContext().traceId, '4bf92f3577b34da6a3ce929d0e0e4736')
        assert.equal(span.parentSpanContext?.spanId, '00f067aa0ba902b7')
        // The method sees the gateway's span as its parent: same trace, the span's id.
        assert.equal(seen, `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`)
      } finally {
        await e.p.stop(1000)
      }
    } finally {
      trace.disable()
      await provider.shutdown()
    }
  })
})
