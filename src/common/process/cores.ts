import { readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'

/**
 * The cores this process may use: the CPUs its affinity allows (os.availableParallelism) and, where a
 * cgroup caps its CPU time (a container's `--cpus`, a Kubernetes limit), no more than that quota
 * rounded up. Node 20's libuv (1.46) reads the affinity only; cgroup v2's `cpu.max` and v1's
 * `cpu.cfs_quota_us` are read here.
 */
export function usableCores(root = '/sys/fs/cgroup'): number {
  const cpus = availableParallelism()
  const quota = cgroupQuota(root)
  return quota === null ? cpus : Math.max(1, Math.min(cpus, Math.ceil(quota)))
}

/** The CPU quota in cores (1.5 for "150000 100000"), or null when there is none or it cannot be read. */
export function cgroupQuota(root = '/sys/fs/cgroup'): number | null {
  const v2 = readText(`${root}/cpu.max`)
  if (v2 !== null) {
    const [quota, period] = v2.trim().split(/\s+/)
    return ratio(quota, period)
  }
  const quota = readText(`${root}/cpu/cpu.cfs_quota_us`) ?? readText(`${root}/cpu,cpuacct/cpu.cfs_quota_us`)
  const period = readText(`${root}/cpu/cpu.cfs_period_us`) ?? readText(`${root}/cpu,cpuacct/cpu.cfs_period_us`)
  return ratio(quota?.trim(), period?.trim())
}

function ratio(quota: string | undefined, period: string | undefined): number | null {
  if (quota === undefined || period === undefined || quota === 'max') return null
  const q = Number(quota)
  const p = Number(period)
  // v1 writes -1 for "no quota".
  if (!Number.isFinite(q) || !Number.isFinite(p) || q <= 0 || p <= 0) return null
  return q / p
}

/** A file's text, or null when it cannot be read (absent in this kernel, this cgroup version, …). */
export function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return null
  }
}
