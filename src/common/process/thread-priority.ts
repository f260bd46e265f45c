import { readdirSync, readlinkSync } from 'node:fs'
import { setPriority } from 'node:os'
import { WORKER_NICENESS } from '../contract/limits'

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

/**
 * Lowers the CPU priority of every thread the process has now besides its main one: called first
 * thing in a process's main thread, before it starts workers or libuv's pool, these are Node's and
 * V8's helpers (optimizing compilers; GC helpers when GC is not single-threaded). On two cores a
 * compile can hold the core the event loop last ran on, and the loop, woken there, waits behind it
 * while the other core is idle: the longest stalls of a lone call. At a higher nice value the woken
 * loop runs at once. Returns how many it lowered.
 */
function lowerHelperThreadsPriority(niceness: number): number {
  let lowered = 0
  let tids: string[]
  try {
    tids = readdirSync('/proc/self/task')
  } catch {
    return 0
  }
  for (const name of tids) {
    const tid = Number(name)
    if (tid === process.pid) continue
    try {
      setPriority(tid, niceness)
      lowered++
    } catch {
      // Gone meanwhile, or already lower than we may raise it back to: nothing to do.
    }
  }
  return lowered
}

/** The V8 flag the platform starts its processes with on two cores or fewer (src/common/process/gc-flags.ts). */
export const SINGLE_THREADED_GC = '--single-threaded-gc'

/**
 * In a process whose GC runs on one thread (`--single-threaded-gc`, what the platform gives its
 * processes on two cores or fewer: src/common/process/gc-flags.ts), its helper threads only compile and
 * yield to the event loop as the workers do (WORKER_NICENESS). With parallel GC they are left alone:
 * a young-generation pause waits for its helpers.
 */
export function yieldHelperThreads(execArgv: readonly string[] = process.execArgv): number {
  return execArgv.includes(SINGLE_THREADED_GC) ? lowerHelperThreadsPriority(WORKER_NICENESS) : 0
}
