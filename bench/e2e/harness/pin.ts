// Pinning a benchmark's processes to cores with taskset (util-linux), for the scaling curve
// (run.ts --threads): the servers on some cores, the load generator and the microservices on others,
// so that N listener threads get N cores of their own and the curve is not wrk taking them back.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'

/**
 * The CPUs this process (or `pid`) may run on, from its affinity (/proc/PID/status): in a container
 * given cpus 4-11, pinning to 0..N-1 would fail, so pins name these CPUs rather than count from 0.
 */
export function allowedCpus(pid: number | 'self' = 'self'): number[] {
  try {
    const line = /^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    if (line !== null) return parseCpuList(line[1]!)
  } catch {
    /* not Linux: counted below */
  }
  return Array.from({ length: availableParallelism() }, (_, k) => k)
}

/** "0-3,8,10-11" → [0, 1, 2, 3, 8, 10, 11]. */
export function parseCpuList(list: string): number[] {
  const out: number[] = []
  for (const part of list.split(',')) {
    const [a, b] = part.split('-').map(Number)
    for (let k = a!; k <= (b ?? a!); k++) out.push(k)
  }
  return out
}

export function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** Pins every thread of a running process to `cpus` ("0,1,2"); the threads it starts later inherit it. */
export function pin(pid: number, cpus: string): void {
  execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' })
}
