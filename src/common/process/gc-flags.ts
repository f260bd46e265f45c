import { availableParallelism } from 'node:os'
import { SINGLE_THREADED_GC } from './thread-priority'

/**
 * V8 flags for the platform's processes (the gateway's, and each microservice host): on a machine of
 * two cores or fewer, garbage collection on one thread (`--single-threaded-gc`). V8's helper threads
 * for parallel scavenges and concurrent marking have no spare core there: they compete with the event
 * loops, and a young-generation pause waits for them to be scheduled; bench:mixed improves on both
 * small-call p99 and large-call throughput with one GC thread (the figures: docs/benchmarks.md).
 * `PLATFORM_GC=single` or `parallel` decides instead of the core count. The flags must be given when
 * the process starts: V8 aborts when they are changed at run time (checked: v8.setFlagsFromString).
 * So dist/src/main.js, which every way of starting the platform runs, re-executes itself with the
 * ones it lacks (missingGcFlags), and the manager forks each microservice host with them.
 */
export function gcFlags(env: NodeJS.ProcessEnv = process.env, cores: number = availableParallelism()): string[] {
  const mode = env.PLATFORM_GC ?? 'auto'
  const single = mode === 'single' || (mode !== 'parallel' && cores <= 2)
  return single ? [SINGLE_THREADED_GC] : []
}

/** The flags of `wanted` that a process started with `execArgv` lacks: none when it has them all. */
export function missingGcFlags(
  execArgv: readonly string[] = process.execArgv,
  wanted: readonly string[] = gcFlags()
): string[] {
  return wanted.filter((flag) => !execArgv.includes(flag))
}
