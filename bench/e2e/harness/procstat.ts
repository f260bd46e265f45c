// CPU time and RSS of processes, read from /proc (Linux): what each process of a run costs.
import { readFileSync, readdirSync } from 'node:fs'

const TICKS_PER_SECOND = 100 // sysconf(_SC_CLK_TCK) on Linux

export interface Sample {
  cpuMs: number
  /** The part of cpuMs spent in the kernel (stime): system calls, wake-ups, the network stack. */
  systemMs: number
  rssBytes: number
}

export function sample(pid: number): Sample | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const utime = Number(fields[11])
    const stime = Number(fields[12])
    const rssPages = Number(fields[21])
    return {
      cpuMs: ((utime + stime) * 1000) / TICKS_PER_SECOND,
      systemMs: (stime * 1000) / TICKS_PER_SECOND,
      rssBytes: rssPages * 4096
    }
  } catch {
    return null
  }
}

/** Children of a process (scanning /proc; no procps needed). */
export function childrenOf(pid: number): number[] {
  const out: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (ppid === pid) out.push(Number(name))
    } catch {
      /* gone */
    }
  }
  return out
}

/** Every process under a process, children before their own children (a walk of `childrenOf`). */
export function descendantsOf(pid: number): number[] {
  return childrenOf(pid).flatMap((child) => [child, ...descendantsOf(child)])
}

/** Samples RSS of some processes every `everyMs` while a run goes on; keeps the series. */
export class RssWatch {
  readonly series = new Map<number, number[]>()
  private readonly timer: NodeJS.Timeout
  constructor(pids: number[], everyMs = 500) {
    for (const pid of pids) this.series.set(pid, [])
    this.timer = setInterval(() => {
      for (const pid of pids) {
        const s = sample(pid)
        if (s !== null) this.series.get(pid)!.push(s.rssBytes)
      }
    }, everyMs)
  }

  stop(): void {
    clearInterval(this.timer)
  }
}
