import { readlinkSync } from 'node:fs'
import { setPriority } from 'node:os'

/**
 * Lowers the calling thread's CPU priority (a higher nice value). On Linux a nice value belongs to
 * a thread, not the process: given the thread's own id (from /proc/thread-self), setpriority touches
 * only it. Worker threads that split large bodies or run large calls use it so that, on a machine
 * short of cores, the event-loop threads answering small calls are scheduled first; with idle cores
 * the workers run as fast as before. Elsewhere (no /proc) it does nothing and says so.
 */
export function lowerThreadPriority(niceness: number): boolean {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop())
    if (!Number.isInteger(tid) || tid <= 0) return false
    setPriority(tid, niceness)
    return true
  } catch {
    return false
  }
}
