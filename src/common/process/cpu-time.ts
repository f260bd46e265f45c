// CPU time of processes and threads as Linux's scheduler counts it (/proc/PID/task/TID/schedstat,
// first field, nanoseconds): finer than /proc/PID/stat's clock ticks, so a round of a second or less
// can be measured. The benchmarks divide it by the calls a round made.
import { readdirSync, readFileSync } from 'node:fs'

/** One thread's time on a CPU so far, in nanoseconds (the main thread when `tid` is the pid). */
export function threadCpuNs(pid: number, tid = pid): number {
  const text = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8')
  return Number(text.slice(0, text.indexOf(' ')))
}

/**
 * Every thread of these processes (pools and helpers included), in nanoseconds; null when one of them
 * cannot be read (gone, or another pid namespace): a partial sum would pass for a cheaper call.
 */
export function processesCpuNs(pids: readonly number[]): number | null {
  let total = 0
  for (const pid of pids) {
    let tasks: string[]
    try {
      tasks = readdirSync(`/proc/${pid}/task`)
    } catch {
      return null
    }
    for (const tid of tasks) {
      try {
        total += threadCpuNs(pid, Number(tid))
      } catch {
        // a thread that ended between the listing and the read: its time is gone with it
      }
    }
  }
  return total
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}
