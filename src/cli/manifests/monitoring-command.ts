import { writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { shippedPrometheusRules } from './prometheus-rules'
import { CliError } from '../cli-error'
import type { CommandLine } from '../command-line'

export const MONITORING_USAGE = `usage: microservice monitoring rules [--runbook-base-url URL] [--out FILE]
The Prometheus rules of the gateway (deploy/prometheus/gateway.rules.yml; docs/operating.md, "Alerts").
  --runbook-base-url URL   where this project's docs/ are served: each alert's runbook_url becomes
                           URL/docs/operating.md#ALERT, a link Alertmanager can follow (default: the
                           paths relative to the project, as the shipped file has them)
  --out FILE               write the rules to FILE (default: standard output)`

/** `microservice monitoring rules`: the shipped rules, their runbooks under a base URL. */
export function monitoringCommand(line: CommandLine): number {
  const { values, positionals } = parseArgs({
    args: [...line.args],
    allowPositionals: true,
    options: { 'runbook-base-url': { type: 'string' }, out: { type: 'string' } }
  })
  if (positionals[0] !== 'rules' || positionals.length > 1) throw new CliError(MONITORING_USAGE)
  const text = shippedPrometheusRules(values['runbook-base-url'] ?? null)
  if (values.out === undefined) process.stdout.write(text)
  else {
    writeFileSync(values.out, text)
    console.log(`wrote the rules to ${values.out}; check them with promtool check rules ${values.out}`)
  }
  return 0
}
