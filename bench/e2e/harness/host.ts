// What the machine under a run is and did: its CPU, how its idle cores wait, and how much of the
// cores' time the host took back (steal) while a subject was measured. On a virtual machine whose
// idle vCPUs halt at once (the guest's halt polling off), every wake-up of an idle core goes through
// the host, and one call alone costs 3-4× what it costs with halt polling on, for every subject alike
// (docs/performance.md, "2026-12-02 (later)"): a result means little without these beside it.
import { cpus, release } from 'node:os'
import { readText } from '../../../src/common/process/cores'

/** A file's text without its final newline, or null. */
const read = (path: string): string | null => readText(path)?.trim() ?? null

export interface HostMachine {
  /** The CPU's name with its family and model (a virtual machine may name only the vendor). */
  cpu: string
  cores: number
  kernel: string
  /** The cpuidle governor ("haltpoll", "menu", …), null where cpuidle is not exposed. */
  idleGovernor: string | null
  /** The guest's halt polling ceiling in ns (cpuidle-haltpoll), null where that driver is absent. */
  haltPollNs: number | null
}

/** The CPU as /proc/cpuinfo names it, and its flags. */
export function cpuInfo(): { cpu: string; flags: string } {
  const info = read('/proc/cpuinfo') ?? ''
  const field = (name: string): string => new RegExp(`^${name}\\s*: (.*)$`, 'm').exec(info)?.[1]?.trim() ?? 'unknown'
  // A virtual machine may name only the vendor ("AMD EPYC"): the family and model tell the generation.
  return {
    cpu: `${field('model name')} (family ${field('cpu family')}, model ${field('model')})`,
    flags: field('flags')
  }
}

export function hostMachine(): HostMachine {
  const haltPoll = read('/sys/module/haltpoll/parameters/guest_halt_poll_ns')
  return {
    cpu: cpuInfo().cpu,
    cores: cpus().length,
    kernel: release(),
    idleGovernor:
      read('/sys/devices/system/cpu/cpuidle/current_governor') ??
      read('/sys/devices/system/cpu/cpuidle/current_governor_ro'),
    haltPollNs: haltPoll === null ? null : Number(haltPoll)
  }
}

/** The machine as one line, for the head of a run's log. */
export function machineLine(m: HostMachine): string {
  const idle =
    m.idleGovernor === null
      ? 'cpuidle not exposed'
      : `idle governor ${m.idleGovernor}${m.haltPollNs === null ? '' : `, guest halt polling ${m.haltPollNs / 1000} µs`}`
  return `machine: ${m.cpu}, ${m.cores} cores, kernel ${m.kernel}, ${idle}`
}

/** All cores' times since boot, in ticks: the total and what the host took (`steal`, /proc/stat). */
export interface CoreTimes {
  total: number
  steal: number
}

export function coreTimes(): CoreTimes {
  const line = (read('/proc/stat') ?? '').split('\n', 1)[0] ?? ''
  // cpu user nice system idle iowait irq softirq steal guest guest_nice; guest time is inside user.
  const ticks = line.split(/\s+/).slice(1, 9).map(Number)
  return { total: ticks.reduce((a, b) => a + (Number.isFinite(b) ? b : 0), 0), steal: ticks[7] ?? 0 }
}

/** The share of the cores' time the host took between two readings, 0 to 1. */
export function stealShare(before: CoreTimes, after: CoreTimes): number {
  const total = after.total - before.total
  return total > 0 ? (after.steal - before.steal) / total : 0
}
