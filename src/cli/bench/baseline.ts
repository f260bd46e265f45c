// Saved runs: what `--save` writes and `--baseline` reads, and the comparison of two runs.
import { existsSync, readFileSync } from 'node:fs'
import Ajv2020 from 'ajv/dist/2020'
import { RESULT_SCHEMA, connectionsText, type BenchResult, type Comparison, type ReferenceRound } from './bench-result'
import { BenchUsageError } from './usage-error'
import { median } from '../../common/process/cpu-time'
import { errorMessage } from '../../common/errors/internal'

/** How far the rounds' ratios lie from their median: the median absolute deviation, in percent of it. */
export function spreadPercent(rounds: readonly ReferenceRound[]): number | null {
  const xs = rounds.map((r) => r.cpuRatio ?? r.ratio)
  if (xs.length < 3) return null
  const m = median(xs)
  return (median(xs.map((x) => Math.abs(x - m))) / m) * 100
}

const validate = new Ajv2020({ allErrors: true, strict: false }).compile(RESULT_SCHEMA)

/** Whether `value` is a result this version writes; the schema's complaints otherwise. */
export function resultErrors(value: unknown): string[] {
  if (validate(value)) return []
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`)
}

export function readBaseline(file: string): BenchResult {
  if (!existsSync(file)) throw new BenchUsageError(`--baseline ${file}: no such file (write one with --save)`, false)
  let value: unknown
  try {
    value = JSON.parse(readFileSync(file, 'utf8'))
  } catch (err) {
    throw new BenchUsageError(`--baseline ${file} is not JSON: ${errorMessage(err)}`, false)
  }
  const errors = resultErrors(value)
  if (errors.length > 0)
    throw new BenchUsageError(`--baseline ${file} is not a saved bench result: ${errors.slice(0, 3).join('; ')}`, false)
  return value as BenchResult
}

/**
 * Each concurrency against the baseline's, both measured against the reference in their own run: CPU
 * per call when both runs measured it (the platform ran here), otherwise req/s. Slower beyond the
 * tolerance fails.
 */
export function compare(base: BenchResult, now: BenchResult, file: string, tolerancePercent: number): Comparison {
  const runs = now.runs.map((r) => {
    const old = base.runs.find((b) => b.connections === r.connections)
    if (old?.reference == null || r.reference === null)
      throw new BenchUsageError(
        `--baseline ${file} has no run at ${connectionsText(r.connections)} with a reference: save one with the same --connections`,
        false
      )
    const byCpu = old.reference.cpuRatio !== null && r.reference.cpuRatio !== null
    const baselineRatio = byCpu ? old.reference.cpuRatio! : old.reference.ratio
    const ratio = byCpu ? r.reference.cpuRatio! : r.reference.ratio
    // Speed: fewer CPU per call, or more calls a second, than the baseline is positive.
    const changePercent = (byCpu ? baselineRatio / ratio - 1 : ratio / baselineRatio - 1) * 100
    return {
      connections: r.connections,
      measure: byCpu ? ('cpu' as const) : ('throughput' as const),
      baselineRatio,
      ratio,
      changePercent,
      regressed: changePercent < -tolerancePercent
    }
  })
  return { baseline: file, tolerancePercent, runs, regressed: runs.some((r) => r.regressed) }
}
