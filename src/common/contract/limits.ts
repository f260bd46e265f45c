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

/** Bodies up to 16 MiB by default (docs/contract.md, decisions). */
export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024

/** Room for a maximal body plus the frame's envelope (ids, names, call context). */
export const DEFAULT_MAX_FRAME_BYTES = DEFAULT_MAX_BODY_BYTES + 1024 * 1024

/** The worker pool's size (docs/contract.md, decisions), kept as the most a config may ask for. */
export const MAX_POOL_THREADS = 128

/**
 * The nice value of the worker threads that split large bodies (gateway) and run large or CPU-bound
 * calls (microservice): 7 by default, above the event-loop threads' 0, so that small calls are
 * scheduled first when cores are short; PLATFORM_WORKER_NICENESS=0 turns it off (0 to 19). Higher
 * values favour small calls, lower ones the large calls' throughput; 7 kept both within their
 * targets under bench:mixed (docs/performance.md).
 */
const DEFAULT_WORKER_NICENESS = 7
export const WORKER_NICENESS = workerNiceness(process.env.PLATFORM_WORKER_NICENESS)

function workerNiceness(text: string | undefined): number {
  const n = text === undefined || text === '' ? DEFAULT_WORKER_NICENESS : Number(text)
  return Number.isInteger(n) && n >= 0 && n <= 19 ? n : DEFAULT_WORKER_NICENESS
}
