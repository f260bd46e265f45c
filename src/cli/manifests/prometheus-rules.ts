import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from '../../common/config/config'
import { InternalError } from '../../common/errors/internal'

/** Where the shipped rules' runbooks are: docs/operating.md, "Alerts", each alert a section. */
const RUNBOOK = /^(\s*runbook_url: )"(docs\/operating\.md#[a-z0-9-]+)"$/gm

/**
 * The rules that ship (deploy/prometheus/gateway.rules.yml), with each alert's runbook_url under
 * `runbookBaseUrl` (where the operator serves or hosts this project's docs/), so that Alertmanager and
 * its receivers can link it; null keeps the paths relative to the project, as the file has them.
 */
export function shippedPrometheusRules(runbookBaseUrl: string | null = null): string {
  const text = readFileSync(join(ROOT, 'deploy', 'prometheus', 'gateway.rules.yml'), 'utf8')
  if (runbookBaseUrl === null) return text
  const base = runbookBase(runbookBaseUrl)
  return text.replace(RUNBOOK, (_all, key: string, path: string) => `${key}"${base}/${path}"`)
}

/** An absolute http(s) URL without its trailing slash, or a usage error that says what is wanted. */
export function runbookBase(url: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new InternalError('IGW_CLI_USAGE', `--runbook-base-url ${url}: not an absolute URL (https://…)`)
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new InternalError('IGW_CLI_USAGE', `--runbook-base-url ${url}: an http or https URL`)
  if (parsed.search !== '' || parsed.hash !== '')
    throw new InternalError(
      'IGW_CLI_USAGE',
      `--runbook-base-url ${url}: no query or fragment (the docs' paths follow it)`
    )
  return url.replace(/\/+$/, '')
}
