// A real Prometheus (Debian's) scraping a running platform under a short load, with
// deploy/prometheus/gateway.rules.yml loaded: every recording rule answers with series that carry the
// labels its name promises, and every metric the rules name is one the platform exports. A metric
// renamed in src/platform/metrics.ts without the rules fails here.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from '../../helpers/root'
import { EXAMPLE_DIR, TESTKIT_DIR, post, startPlatform, type RunningPlatform } from '../../helpers/platform'
import { CertificateMaker } from '../../helpers/inputs/certificates'
import { launchChromium, SCREENSHOTS } from '../../helpers/browser'
import { dashboardPage, legendOf, type DashboardPanel, type DrawnPanel } from './dashboard-page'
import {
  RULES_FILE,
  ensurePrometheus,
  shippedRules,
  startPrometheus,
  type RunningPrometheus,
  type Sample
} from '../../helpers/processes/prometheus'

const DASHBOARD_FILE = join(ROOT, 'deploy', 'grafana', 'gateway.json')
const rules = shippedRules()
const records = rules.filter((r) => r.record !== undefined).map((r) => r.record!)

/**
 * The labels a recording rule's level promises (`microservice_code:…`: microservice, code, status), each
 * on some series, and those it may carry besides: Prometheus drops a label whose value is empty (the
 * code "" of a success, the server_name "" of a listener's own certificate).
 */
const LEVEL_LABELS: Record<string, { required: string[]; optional?: string[] }> = {
  igw: { required: [] },
  microservice: { required: ['microservice'] },
  microservice_code: { required: ['microservice', 'code', 'status'] },
  microservice_direction: { required: ['microservice', 'direction'] },
  instance: { required: ['job', 'instance'] },
  rule: { required: ['rule'] },
  thread: { required: ['thread'] },
  listener: { required: ['listener'], optional: ['server_name'] }
}

let p: RunningPlatform
let prom: RunningPrometheus
let admin: string
let certs: CertificateMaker

before(async () => {
  ensurePrometheus()
  certs = new CertificateMaker()
  const edge = certs.make('edge', ['localhost'])
  p = await startPlatform(
    {
      RATE_LIMITS: {
        rules: [
          {
            name: 'per-user',
            key: 'identity',
            count: 5,
            windowSeconds: 3600,
            match: { microservice: 'testkit', service: 'custom' }
          }
        ]
      },
      EDGE: { tls: { certFile: edge.certFile, keyFile: edge.keyFile } },
      ADMISSION: { adaptive: true },
      // A burst of 8 slow calls meets it: the dashboard's OVERLOADED panel has something to show.
      ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { maxInFlight: 4 } }
    },
    [EXAMPLE_DIR, TESTKIT_DIR]
  )
  admin = `127.0.0.1:${p.platform.adminPort}`
  prom = await startPrometheus([admin], [RULES_FILE])
})
after(async () => {
  await prom?.stop()
  await p?.stop()
})

/**
 * Calls for `ms`: the example's multiply (200), a method that throws (500), a rate-limited one (429),
 * and once a burst of slow calls past maxInFlight (200, or 503 OVERLOADED).
 */
async function load(ms: number): Promise<void> {
  const end = Date.now() + ms
  const burst = await Promise.all(Array.from({ length: 8 }, () => post(p.url, '/testkit/slow/sleep', '100')))
  const statuses = burst.map((a) => a.status)
  assert.ok(statuses.includes(503) && statuses.every((s) => s === 200 || s === 503), statuses.join(' '))
  while (Date.now() < end) {
    const answers = await Promise.all([
      post(p.url, '/example/calculator/multiply', '{"a":6,"b":7}'),
      post(p.url, '/testkit/misc/fail', '"x"'),
      post(p.url, '/testkit/custom/shout', '"x"')
    ])
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 500, answers[2]!.status === 429 ? 429 : 200]
    )
    await new Promise((r) => setTimeout(r, 20))
  }
}

test('every recording rule answers with series carrying the labels its level names', async () => {
  await load(4000)
  const answered = new Map<string, Sample[]>()
  const deadline = Date.now() + 30000
  for (const record of records) {
    for (;;) {
      const result = await prom.query(record)
      if (result.length > 0 || Date.now() > deadline) {
        answered.set(record, result)
        break
      }
      await load(500)
    }
  }
  const empty = records.filter((r) => answered.get(r)!.length === 0)
  assert.deepEqual(empty, [], 'recording rules without series')
  for (const [record, samples] of answered) {
    const level = record.split(':')[0]!
    const labels = LEVEL_LABELS[level]
    assert.ok(labels, `${record}: a level the test knows`)
    const allowed = [...labels.required, ...(labels.optional ?? [])]
    for (const l of labels.required)
      assert.ok(
        samples.some((s) => s.metric[l] !== undefined),
        `${record}: label ${l}`
      )
    // None but these on any series: a rule that lost its aggregation would carry the route's labels.
    for (const s of samples) {
      const extra = Object.keys(s.metric).filter((l) => l !== '__name__' && !allowed.includes(l))
      assert.deepEqual(extra, [], `${record}: labels beyond its level's`)
    }
  }
  // What the load made, once the rules have seen two scrapes of it (a ratio reads 0 before).
  const value = (samples: Sample[], labels: Record<string, string>): number =>
    Number(samples.find((x) => Object.entries(labels).every(([k, v]) => x.metric[k] === v))?.value[1] ?? NaN)
  await eventually('microservice:igw_requests:rate5m', (r) => value(r, { microservice: 'example' }) > 0)
  await eventually('microservice:igw_method_failures:ratio_rate5m', (r) => value(r, { microservice: 'testkit' }) > 0)
  await eventually('rule:igw_rate_limit_limited:ratio_rate5m', (r) => value(r, { rule: 'per-user' }) > 0)
  await eventually(
    'microservice:igw_request_duration_seconds:p99_rate5m',
    (r) => value(r, { microservice: 'example' }) > 0
  )
  const expiry = value(answered.get('listener:igw_tls_certificate_expiry:seconds')!, { listener: 'edge' })
  assert.ok(expiry > 20 * 86400 && expiry < 40 * 86400, `the edge's certificate expires in ${expiry} s`)
})

/** Asks until `holds` does, loading the platform between asks; fails with the last answer after 20 s. */
async function eventually(expr: string, holds: (r: Sample[]) => boolean): Promise<void> {
  const deadline = Date.now() + 20000
  for (;;) {
    const result = await prom.query(expr)
    if (holds(result)) return
    assert.ok(Date.now() < deadline, `${expr}: ${JSON.stringify(result)}`)
    await load(500)
  }
}

test("every query of the dashboard answers with series carrying its legend's labels", async () => {
  const dashboard = JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as {
    panels: Array<{ title: string; targets?: Array<{ expr: string; legendFormat: string }> }>
  }
  const targets = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((t) => ({ panel: panel.title, ...t })))
  assert.ok(targets.length >= 20, `${targets.length} queries`)
  for (const t of targets) {
    // "All" microservices, as Grafana asks when the variable is left at its default.
    const expr = t.expr.replaceAll('$microservice', '.*')
    let result: Sample[] = []
    await eventually(expr, (r) => (result = r).length > 0)
    // Prometheus drops empty labels: a success has no code, a listener's own certificate no server_name.
    const legend = [...t.legendFormat.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]!)
    for (const l of legend.filter((l) => l !== 'code' && l !== 'server_name'))
      assert.ok(
        result.every((s) => s.metric[l] !== undefined),
        `${t.panel}: ${expr} has ${l} on every series`
      )
  }
})

test('the dashboard drawn from what Prometheus answers: every panel has a line, photographed', async () => {
  const dashboard = JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as { title: string; panels: DashboardPanel[] }
  // Five seconds of load, for every rate to have a few points; IGW_DASHBOARD_SECONDS: longer, for the
  // picture in docs/operating.md.
  await load(Math.max(5, Number(process.env.IGW_DASHBOARD_SECONDS ?? '0')) * 1000)
  const end = Date.now() / 1000
  const start = end - Math.max(60, Number(process.env.IGW_DASHBOARD_SECONDS ?? '0'))
  const drawn: DrawnPanel[] = []
  for (const panel of dashboard.panels) {
    const lines: DrawnPanel['lines'] = []
    for (const t of panel.targets ?? []) {
      const series = await prom.queryRange(t.expr.replaceAll('$microservice', '.*'), start, end, 1)
      for (const s of series)
        lines.push({ legend: legendOf(t.legendFormat, s.metric), points: s.values.map(([at, v]) => [at, Number(v)]) })
    }
    drawn.push({ panel, lines })
  }
  const blank = drawn.filter((d) => d.panel.type !== 'row' && !d.lines.some((l) => l.points.length >= 2))
  assert.deepEqual(
    blank.map((d) => d.panel.title),
    [],
    `panels without a line of two points: ${JSON.stringify(blank.map((d) => d.lines.map((l) => l.points.length)))}`
  )
  const browser = await launchChromium()
  try {
    const page = await browser.newPage({ viewport: { width: 1620, height: 900 } })
    await page.setContent(dashboardPage(dashboard.title, drawn))
    const panels = await page.locator('section.panel').count()
    assert.equal(panels, drawn.filter((d) => d.panel.type !== 'row').length)
    const withLines = await page.locator('section.panel:has(polyline.line)').count()
    assert.equal(withLines, panels, 'every panel drew a line')
    mkdirSync(SCREENSHOTS, { recursive: true })
    await page.screenshot({ path: join(SCREENSHOTS, 'dashboard.png'), fullPage: true })
  } finally {
    await browser.close()
  }
})

test('every metric the rules name is one the platform exports', async () => {
  const text = await (await fetch(`http://${admin}/metrics`)).text()
  const exported = new Set([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => m[1]!))
  const named = new Set(
    rules.flatMap((r) => [...r.expr!.matchAll(/\b(igw_[a-z_]+?)(?:_bucket|_sum|_count)?\b(?![:(])/g)].map((m) => m[1]!))
  )
  const missing = [...named].filter((n) => !exported.has(n))
  assert.deepEqual(missing, [], 'metrics the rules name that /metrics does not have')
  assert.ok(named.size >= 20, `${named.size} metrics named`)
})
