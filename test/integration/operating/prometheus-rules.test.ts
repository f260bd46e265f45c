// deploy/prometheus/gateway.rules.yml tested as the Prometheus community tests its rules: promtool
// check rules, then promtool test rules, one test file per case of alert-cases.ts (a firing and a quiet
// case for every alert, each alert's annotations as Prometheus renders them), and the runbook section
// each alert names. The live test (prometheus-live.test.ts) asks a real Prometheus for the same rules.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { parse, stringify } from 'yaml'
import { ROOT } from '../../helpers/root'
import { RULES_FILE, ensurePrometheus, promtool, shippedRules, type Rule } from '../../helpers/processes/prometheus'
import { monitoringCommand } from '../../../src/cli/manifests/monitoring-command'
import { commandLine } from '../../../src/cli/command-line'
import { shippedPrometheusRules } from '../../../src/cli/manifests/prometheus-rules'
import { alertCases, type AlertCase } from './alert-cases'

const alerts = shippedRules().filter((r) => r.alert !== undefined)

const dir = mkdtempSync(join(tmpdir(), 'promtool-'))
process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
before(() => ensurePrometheus())

/** An annotation as Prometheus fills it for an alert with these labels (the templates use only $labels). */
function rendered(template: string, labels: Record<string, string>): string {
  return template.replace(/\{\{ \$labels\.(\w+) \}\}/g, (_, name: string) => labels[name] ?? '')
}

function promtoolTest(c: AlertCase): object {
  return {
    rule_files: [RULES_FILE],
    evaluation_interval: '1m',
    tests: [
      {
        interval: '1m',
        input_series: c.series,
        alert_rule_test: [
          {
            eval_time: c.at,
            alertname: c.alert,
            exp_alerts: c.fires.map((f) => {
              const rule = alerts.find((r) => r.alert === c.alert && r.labels?.severity === f.labels.severity)
              assert.ok(rule, `${c.alert} has a rule of severity ${f.labels.severity}`)
              const { summary: _summary, ...rest } = rule.annotations!
              return {
                exp_labels: f.labels,
                exp_annotations: {
                  summary: f.summary,
                  ...Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, rendered(v, f.labels)]))
                }
              }
            })
          }
        ]
      }
    ]
  }
}

test('promtool check rules: the rules parse, every expression is valid PromQL', () => {
  const r = promtool(['check', 'rules', RULES_FILE])
  assert.equal(r.code, 0, r.out)
  assert.match(r.out, /SUCCESS: \d+ rules found/)
})

test('every alert has a summary, a description and a runbook section in docs/operating.md', () => {
  const operating = readFileSync(join(ROOT, 'docs', 'operating.md'), 'utf8')
  assert.ok(alerts.length >= 19, `${alerts.length} alerts`)
  for (const a of alerts) {
    assert.ok(a.labels?.severity, `${a.alert} has a severity`)
    for (const key of ['summary', 'description', 'runbook_url']) assert.ok(a.annotations?.[key], `${a.alert}: ${key}`)
    assert.equal(a.annotations!.runbook_url, `docs/operating.md#${a.alert!.toLowerCase()}`)
    assert.match(operating, new RegExp(`^#+ ${a.alert}$`, 'm'), `docs/operating.md has a section ${a.alert}`)
  }
})

test('microservice monitoring rules --runbook-base-url: every runbook absolute under the base, the rest the same, promtool passes', () => {
  const file = join(dir, 'absolute.rules.yml')
  assert.equal(
    monitoringCommand(
      commandLine('monitoring', ['rules', '--runbook-base-url', 'https://docs.example.com/igw/', '--out', file])
    ),
    0
  )
  const r = promtool(['check', 'rules', file])
  assert.equal(r.code, 0, r.out)
  const written = (parse(readFileSync(file, 'utf8')) as { groups: Array<{ rules: Rule[] }> }).groups.flatMap(
    (g) => g.rules
  )
  assert.equal(written.length, shippedRules().length)
  for (const [k, a] of alerts.entries()) {
    const w = written.filter((x) => x.alert !== undefined)[k]!
    assert.equal(w.annotations!.runbook_url, `https://docs.example.com/igw/docs/operating.md#${a.alert!.toLowerCase()}`)
    assert.deepEqual(
      { ...w, annotations: { ...w.annotations, runbook_url: '' } },
      {
        ...a,
        annotations: { ...a.annotations, runbook_url: '' }
      }
    )
  }
  // Without a base the shipped file comes out as it is; a base that is not an absolute http(s) URL is refused.
  assert.equal(shippedPrometheusRules(null), readFileSync(RULES_FILE, 'utf8'))
  for (const bad of ['docs.example.com', 'ftp://x/', 'https://x/?a=1'])
    assert.throws(() => shippedPrometheusRules(bad), /--runbook-base-url/)
})

test('every alert rule has a firing case, and every alert a quiet one', () => {
  for (const a of alerts) {
    const cases = alertCases.filter((c) => c.alert === a.alert)
    assert.ok(
      cases.some((c) => c.fires.some((f) => f.labels.severity === a.labels!.severity)),
      `${a.alert} (${a.labels!.severity}) fires in a case`
    )
    assert.ok(
      cases.some((c) => c.fires.length === 0),
      `${a.alert} stays quiet in a case`
    )
  }
  for (const c of alertCases)
    assert.ok(
      alerts.some((a) => a.alert === c.alert),
      `${c.alert} is an alert of the rules`
    )
})

for (const [k, c] of alertCases.entries()) {
  test(`promtool test rules: ${c.alert} ${c.fires.length === 0 ? 'quiet' : 'fires'}: ${c.what}`, () => {
    const file = join(dir, `case-${k}.yml`)
    writeFileSync(file, stringify(promtoolTest(c)))
    const r = promtool(['test', 'rules', file])
    assert.equal(r.code, 0, r.out)
  })
}

test('promtool test rules: a microservice without errors reads a 5xx ratio of 0, not nothing', () => {
  const file = join(dir, 'ratios.yml')
  const route = 'job="gateway", instance="gw:9090", microservice="calc", service="calculator", method="add"'
  const test = {
    rule_files: [RULES_FILE],
    evaluation_interval: '1m',
    tests: [
      {
        interval: '1m',
        input_series: [{ series: `igw_requests_total{${route}, status="200", code=""}`, values: '0+60x10' }],
        promql_expr_test: [
          {
            expr: 'microservice:igw_requests_5xx:ratio_rate5m',
            eval_time: '8m',
            exp_samples: [{ labels: 'microservice:igw_requests_5xx:ratio_rate5m{microservice="calc"}', value: 0 }]
          },
          {
            expr: 'microservice:igw_method_failures:ratio_rate5m',
            eval_time: '8m',
            exp_samples: [{ labels: 'microservice:igw_method_failures:ratio_rate5m{microservice="calc"}', value: 0 }]
          },
          {
            expr: 'microservice:igw_requests:rate5m',
            eval_time: '8m',
            exp_samples: [{ labels: 'microservice:igw_requests:rate5m{microservice="calc"}', value: 1 }]
          }
        ]
      }
    ]
  }
  writeFileSync(file, stringify(test))
  const r = promtool(['test', 'rules', file])
  assert.equal(r.code, 0, r.out)
})
