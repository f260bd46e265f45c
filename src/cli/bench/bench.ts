// `microservice bench ROUTE`: load on one method through a running platform, a result table, reports
// for people and CI, and a comparison against a saved run that the machine's speed does not decide.
import { appendFileSync, writeFileSync } from 'node:fs'
import type { BenchResult } from './bench-result'
import { htmlReport, junitReport, markdownReport, textReport } from './bench-reports'
import { BenchUsageError, planBench, type BenchPlan, type PlatformSources } from './bench-plan'
import { runBench } from './bench-rounds'
import { resultErrors } from './baseline'

/** Writes every report asked for; prints the table. */
export function writeReports(result: BenchResult, plan: BenchPlan): void {
  // What --baseline would refuse later (a ratio that is not a number) is not saved now.
  const invalid = resultErrors(JSON.parse(JSON.stringify(result)))
  if (invalid.length > 0) {
    result.problems.push(`the result is not one a later --baseline could read: ${invalid.slice(0, 3).join('; ')}`)
    result.ok = false
  }
  const o = plan.outputs
  const json = `${JSON.stringify(result, null, 2)}\n`
  if (o.json !== undefined) writeFileSync(o.json, json)
  if (o.save !== undefined && invalid.length === 0) writeFileSync(o.save, json)
  if (o.markdown !== undefined) writeFileSync(o.markdown, markdownReport(result))
  const summary = process.env.GITHUB_STEP_SUMMARY
  if (summary !== undefined && summary !== '') appendFileSync(summary, markdownReport(result))
  if (o.junit !== undefined) writeFileSync(o.junit, junitReport(result))
  if (o.html !== undefined) writeFileSync(o.html, htmlReport(result))
  console.log(textReport(result, tlsText(plan)))
}

/** How the calls went over TLS, for the report's first line (null: plain HTTP). */
export function tlsText(plan: BenchPlan): string | null {
  const t = plan.tls
  if (t === null) return null
  const sni = t.servername === null ? 'no SNI' : `SNI ${t.servername}`
  const client = t.client === null ? '' : `, client certificate ${t.client.certFile}`
  if (t.insecure) return `TLS, certificate NOT verified (--insecure), ${sni}${client}`
  return `TLS, certificate verified by ${t.caFile === null ? "Node's list of CAs" : t.caFile}, ${sni}${client}`
}

/** `microservice bench …`: the exit code. */
export async function bench(args: string[], sources: PlatformSources): Promise<number> {
  let plan: BenchPlan
  try {
    plan = await planBench(args, sources)
  } catch (err) {
    if (!(err instanceof BenchUsageError)) throw err
    // The mistake on one line: the whole usage after it would bury it.
    console.error(`microservice bench: ${err.message}${err.usage ? ' (see microservice bench --help)' : ''}`)
    return 2
  }
  let result: BenchResult
  try {
    result = await runBench(plan)
  } catch (err) {
    if (!(err instanceof BenchUsageError)) throw err
    console.error(`microservice bench: ${err.message}`)
    return 2
  }
  writeReports(result, plan)
  return result.ok ? 0 : 1
}
