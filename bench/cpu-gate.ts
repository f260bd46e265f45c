// The gate's CPU part: main-thread CPU per call of the gateway and the microservice host, as ratios to
// the ceiling's in the same run (bench/cpu-per-call.ts), against the baseline's `cpu` section; and
// each per-call path's instructions (bench/stage-instructions.ts) against the baseline's counts. The
// ratios differ between kinds of machine by more than 10 %, so they catch what the counts cannot see
// with a wider margin; the counts, the same on any load, catch a 10 % regression of the code.
import type { CpuResult } from './cpu-per-call'
import { STAGE_NAMES, type CountingMachine, type StageName, type StageResult } from './stage-instructions'

export class CpuGateError extends Error {}

export interface CpuBaselineProfile {
  gateway: number
  microservice: number
}

export interface CpuBaseline {
  note: string
  /** The gateway's margin. */
  margin: number
  /** The microservice host's: its ratio to the ceiling moves more with the machine (docs/performance.md). */
  microserviceMargin: number
  profiles: Record<string, CpuBaselineProfile>
  /** Each process's per-call path in instructions (bench/stage-instructions.ts), or null. */
  instructions: InstructionsBaseline | null
}

/** Counted on one Node version: another V8 executes other instructions, so the count is its own. */
export interface InstructionsBaseline {
  node: string
  margin: number
  /** Instructions per call, by stage. */
  counts: Record<StageName, number>
  /** The machine the counts were made on (null in a baseline older than the record). */
  machine: CountingMachine | null
}

export interface CpuVerdict {
  profile: string
  /** The process measured; for an instruction count, its stage. */
  process: 'gateway' | 'microservice' | StageName
  ratio: number | null
  baseline: number
  limit: number
  status: 'pass' | 'fail' | 'missing' | 'unjudged'
}

const positive = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x > 0

/** The baseline's `cpu` section, checked: a margin from 0 to 1, two positive ratios per profile. */
export function parseCpuBaseline(raw: unknown, file: string): CpuBaseline {
  const o = raw as { note?: unknown; margin?: unknown; microserviceMargin?: unknown; profiles?: unknown } | null
  if (typeof o !== 'object' || o === null) throw new CpuGateError(`${file}: cpu must be an object`)
  if (typeof o.margin !== 'number' || !(o.margin > 0 && o.margin < 1))
    throw new CpuGateError(
      `${file}: cpu.margin must be a number between 0 and 1 (e.g. 0.06), got ${JSON.stringify(o.margin)}`
    )
  if (typeof o.profiles !== 'object' || o.profiles === null || Object.keys(o.profiles).length === 0)
    throw new CpuGateError(
      `${file}: cpu.profiles must name at least one profile with its gateway and microservice ratios`
    )
  const profiles: Record<string, CpuBaselineProfile> = {}
  for (const [name, p] of Object.entries(o.profiles as Record<string, unknown>)) {
    const b = p as { gateway?: unknown; microservice?: unknown }
    if (!positive(b.gateway) || !positive(b.microservice))
      throw new CpuGateError(
        `${file}: cpu profile ${name} needs positive gateway and microservice ratios, got ${JSON.stringify(p)}`
      )
    profiles[name] = { gateway: b.gateway, microservice: b.microservice }
  }
  const msMargin = o.microserviceMargin ?? o.margin
  if (typeof msMargin !== 'number' || !(msMargin > 0 && msMargin < 1))
    throw new CpuGateError(
      `${file}: cpu.microserviceMargin must be a number between 0 and 1 (e.g. 0.12), got ${JSON.stringify(msMargin)}`
    )
  return {
    note: typeof o.note === 'string' ? o.note : '',
    margin: o.margin,
    microserviceMargin: msMargin,
    profiles,
    instructions: parseInstructions((o as { instructions?: unknown }).instructions, file)
  }
}

function parseInstructions(raw: unknown, file: string): InstructionsBaseline | null {
  if (raw === undefined || raw === null) return null
  const i = raw as { node?: unknown; margin?: unknown; counts?: Record<string, unknown> }
  if (typeof i.node !== 'string' || !/^v\d+\./.test(i.node))
    throw new CpuGateError(`${file}: cpu.instructions.node must be the Node version counted on (e.g. v20.20.2)`)
  if (typeof i.margin !== 'number' || !(i.margin > 0 && i.margin < 1))
    throw new CpuGateError(`${file}: cpu.instructions.margin must be a number between 0 and 1 (e.g. 0.05)`)
  const counts = {} as Record<StageName, number>
  for (const stage of STAGE_NAMES) {
    const n = i.counts?.[stage]
    if (!positive(n))
      throw new CpuGateError(
        `${file}: cpu.instructions.counts["${stage}"] must be a positive count of instructions per call`
      )
    counts[stage] = n
  }
  return { node: i.node, margin: i.margin, counts, machine: parseMachine((raw as { machine?: unknown }).machine, file) }
}

function parseMachine(raw: unknown, file: string): CountingMachine | null {
  if (raw === undefined || raw === null) return null
  const m = raw as Record<string, unknown>
  for (const key of ['cpu', 'flags', 'kernel', 'valgrind'])
    if (typeof m[key] !== 'string')
      throw new CpuGateError(`${file}: cpu.instructions.machine.${key} must be a string (what the counts were made on)`)
  return { cpu: m.cpu as string, flags: m.flags as string, kernel: m.kernel as string, valgrind: m.valgrind as string }
}

/**
 * A line saying where the baseline's counts were made when this machine differs from it (they are
 * judged all the same: the counts follow the code, docs/performance.md "A count that holds"), or null.
 */
export function machineNote(counted: CountingMachine | null, here: CountingMachine): string | null {
  if (counted === null) return 'note: the baseline does not record the machine its counts were made on'
  const differs = (['cpu', 'flags', 'kernel', 'valgrind'] as const).filter((k) => counted[k] !== here[k])
  if (differs.length === 0) return null
  const show = (m: CountingMachine): string => `${m.cpu}, kernel ${m.kernel}, ${m.valgrind}`
  return `note: the counts' baseline was made on ${show(counted)}; this machine is ${show(here)} (${differs.join(', ')} differ)`
}

/**
 * Each stage's instructions per call against the baseline's × (1 + margin); a stage not measured
 * fails. Counted on another Node version than the baseline's, nothing is judged (and the lines say
 * so): re-measure with `--update --only cpu` on the version CI runs.
 */
export function judgeInstructions(
  results: StageResult[],
  b: InstructionsBaseline,
  node: string
): { lines: string[]; failures: string[]; verdicts: CpuVerdict[] } {
  const lines: string[] = []
  const failures: string[] = []
  const verdicts: CpuVerdict[] = []
  for (const stage of STAGE_NAMES) {
    const base = b.counts[stage]
    const limit = base * (1 + b.margin)
    const r = results.find((x) => x.stage === stage)
    const verdict = (ratio: number | null, status: CpuVerdict['status']): CpuVerdict => ({
      profile: 'instructions',
      process: stage,
      ratio,
      baseline: base,
      limit,
      status
    })
    const name = `instructions ${stage}`
    if (r === undefined) {
      lines.push(`FAIL ${name}: not measured`)
      failures.push(`${name}: not measured`)
      verdicts.push(verdict(null, 'missing'))
      continue
    }
    const count = Math.round(r.instructions)
    if (node !== b.node) {
      lines.push(
        `---- ${name.padEnd(29)} ${count} a call on Node ${node}; the baseline was counted on ${b.node}, not judged (re-measure with --update --only cpu)`
      )
      verdicts.push(verdict(r.instructions, 'unjudged'))
      continue
    }
    const ok = r.instructions <= limit
    lines.push(
      `${ok ? 'PASS' : 'FAIL'} ${name.padEnd(29)} ${count} a call on the per-call path (baseline ${base}, limit ${Math.round(limit)})`
    )
    if (!ok)
      failures.push(
        `${name}: ${count} a call on the per-call path, above ${Math.round(limit)} (baseline ${base} + ${Math.round(b.margin * 100)}%)`
      )
    verdicts.push(verdict(r.instructions, ok ? 'pass' : 'fail'))
  }
  return { lines, failures, verdicts }
}

/** Each process of each profile against its baseline ratio × (1 + margin); a profile asked for, not measured, fails. */
export function judgeCpu(
  results: CpuResult[],
  b: CpuBaseline,
  requested: string[]
): { lines: string[]; failures: string[]; verdicts: CpuVerdict[] } {
  const lines: string[] = []
  const failures: string[] = []
  const verdicts: CpuVerdict[] = []
  for (const name of requested) {
    const base = b.profiles[name]
    if (base === undefined) {
      lines.push(`     cpu ${name.padEnd(9)} no baseline`)
      continue
    }
    const r = results.find((x) => x.profile === name)
    for (const proc of ['gateway', 'microservice'] as const) {
      const margin = proc === 'gateway' ? b.margin : b.microserviceMargin
      const limit = base[proc] * (1 + margin)
      if (r === undefined) {
        failures.push(`cpu ${name} ${proc}: not measured`)
        lines.push(`FAIL cpu ${name.padEnd(9)} ${proc}: missing from the run`)
        verdicts.push({ profile: name, process: proc, ratio: null, baseline: base[proc], limit, status: 'missing' })
        continue
      }
      const ratio = proc === 'gateway' ? r.gatewayRatio : r.microserviceRatio
      const us = proc === 'gateway' ? r.gatewayUs : r.microserviceUs
      const ok = ratio <= limit
      if (!ok)
        failures.push(
          `cpu ${name} ${proc}: ${ratio.toFixed(3)}× the ceiling's CPU per call, above ${limit.toFixed(3)} (baseline ${base[proc].toFixed(3)} + ${Math.round(margin * 100)}%)`
        )
      lines.push(
        `${ok ? 'PASS' : 'FAIL'} cpu ${name.padEnd(9)} ${proc.padEnd(12)} ${us.toFixed(1)} µs a call, ${ratio.toFixed(3)}× the ceiling's ${r.ceilingUs.toFixed(1)} (baseline ${base[proc].toFixed(3)}, limit ${limit.toFixed(3)})`
      )
      verdicts.push({ profile: name, process: proc, ratio, baseline: base[proc], limit, status: ok ? 'pass' : 'fail' })
    }
  }
  return { lines, failures, verdicts }
}
