import { availableParallelism } from 'node:os'

/**
 * V8 flags for the platform's processes (the gateway's, started by `npm start`, and each
 * microservice host): on a machine of two cores or fewer, garbage collection on one thread
 * (`--single-threaded-gc`). V8's helper threads for parallel scavenges and concurrent marking have no
 * spare core there: they compete with the event loops, and a young-generation pause waits for them
 * (scavenges on the gateway's main thread of 2.7 ms at the median and up to 8.6 ms under the mixed
 * load, against 0.35–0.5 ms when a core was free). bench:mixed, alternating: small-call p99 9.0–9.5 ms
 * and 1 MB calls at 147–154 req/s, against 10.7–11.4 ms and 127–133.
 * `PLATFORM_GC=single` or `parallel` decides instead of the core count. The flags must be given when
 * the process starts: V8 aborts when they are changed at run time (checked: v8.setFlagsFromString).
 */
export function gcFlags(env: NodeJS.ProcessEnv = process.env, cores: number = availableParallelism()): string[] {
  const mode = env.PLATFORM_GC ?? 'auto'
  const single = mode === 'single' || (mode !== 'parallel' && cores <= 2)
  return single ? ['--single-threaded-gc'] : []
}
