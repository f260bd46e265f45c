/** Bounds on what a deserializer builds from one argument, whatever the client sends. */
export interface ReadLimits {
  /** Deepest nesting of arrays/objects/elements. */
  maxDepth: number
  /** Most values (JSON) or elements (XML) in one argument. */
  maxNodes: number
  /** Longest string (JSON) or text of one element (XML), in UTF-16 units. */
  maxStringLength: number
}

export const DEFAULT_READ_LIMITS: Readonly<ReadLimits> = Object.freeze({
  maxDepth: 1000,
  maxNodes: 1_000_000,
  maxStringLength: 16 * 1024 * 1024
})
