/** Every size and depth limit with a default, defined once; config, gateway and runtime read them here. */

/** Bounds on what a reader builds from one argument, whatever the client sends. */
export interface ReadLimits {
  /** Deepest nesting of arrays/objects/elements. */
  maxDepth: number
  /** Most values (JSON) or elements (XML) in one argument. */
  maxNodes: number
  /** Longest string (JSON) or text of one element (XML), in UTF-16 units. */
  maxStringLength: number
}

/** Nesting the splitter and the deserializers accept by default (config: maxDepth). */
export const DEFAULT_MAX_DEPTH = 1000

export const DEFAULT_READ_LIMITS: Readonly<ReadLimits> = Object.freeze({
  maxDepth: DEFAULT_MAX_DEPTH,
  maxNodes: 1_000_000,
  maxStringLength: 16 * 1024 * 1024
})

/** DESIGN: bodies up to 16 MiB by default. */
export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024

/** Room for a maximal body plus the frame's envelope (ids, names, call context). */
export const DEFAULT_MAX_FRAME_BYTES = DEFAULT_MAX_BODY_BYTES + 1024 * 1024

/** DESIGN's worker pool size, kept as the most a config may ask for. */
export const MAX_POOL_THREADS = 128

/**
 * The nice value of the worker threads that split large bodies (gateway) and run large or CPU-bound
 * calls (microservice): 7 by default, above the event-loop threads' 0, so that small calls are
 * scheduled first when cores are short; PLATFORM_WORKER_NICENESS=0 turns it off (0 to 19). bench:mixed
 * on 2 cores when 7 was chosen: at 10 small calls kept 50–56% with p99 9.8–12 ms and 1 MB calls did
 * 1.10–1.17× the fastify proxy's; at 7, 44–46%, p99 11–12 ms, 1.32× (at 5: 40–47%, 11–13 ms,
 * 1.22–1.32×). The trade-off as it stands now is in the README (Benchmarks, mixed load).
 */
const DEFAULT_WORKER_NICENESS = 7
export const WORKER_NICENESS = workerNiceness(process.env.PLATFORM_WORKER_NICENESS)

function workerNiceness(text: string | undefined): number {
  const n = text === undefined || text === '' ? DEFAULT_WORKER_NICENESS : Number(text)
  return Number.isInteger(n) && n >= 0 && n <= 19 ? n : DEFAULT_WORKER_NICENESS
}
