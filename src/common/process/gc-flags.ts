import { availableParallelism } from 'node:os'
import { SINGLE_THREADED_GC } from './thread-priority'

/**
 * V8 flags for the platform's processes (the gateway's, started by `npm start`, and each
 * microservice host): on a machine of two cores or fewer, garbage collection on one thread
 * (`--single-threaded-gc`). V8's helper threads for parallel scavenges and concurrent marking have no
 * spare core there: they compete with the event loops, and a young-generation pause waits for them,
 * several times longer than when a core is free; bench:mixed improves on both small-call p99 and
 * large-call throughput with one GC thread (docs/performance.md).
 * `PLATFORM_GC=single` or `parallel` decides instead of the core count. The flags must be given when
 * the process starts: V8 aborts when they are changed at run time (checked: v8.setFlagsFromString).
 */
export function gcFlags(env: NodeJS.ProcessEnv = process.env, cores: number = availableParallelism()): string[] {
  const mode = env.PLATFORM_GC ?? 'auto'
  const single = mode === 'single' || (mode !== 'parallel' && cores <= 2)
  return single ? [SINGLE_THREADED_GC] : []
}
