import { DEFAULT_MAX_FRAME_BYTES, DEFAULT_READ_LIMITS } from '../../common/contract/limits'

/** Internal protocol server settings of a microservice (docs/contract.md, Limits). */
export interface RuntimeSettings {
  /** Idle time after which a connection is closed, ms. */
  readTimeout: number
  /** Concurrent executions; further calls wait in a bounded queue. */
  threadPoolSize: number
  /** Longest a method may run, ms; then it is aborted and the call answered EXECUTION_TIMEOUT. */
  threadExecutingTimeOut: number
  /** Listen backlog; 0 = the operating system's default. */
  backlog: number
  /** Calls allowed to wait for an execution slot before OVERLOADED. */
  queueLimit: number
  /**
   * Arguments of at least this many bytes (all together) run their call on the method pool, for
   * methods whose execution is 'auto'; 0: only methods declared 'worker' do.
   */
  workerMinArgumentBytes: number
  maxFrameBytes: number
  /** Reading limits of the default serializers: nesting, values/elements, string length. */
  maxDepth: number
  maxNodes: number
  maxStringLength: number
  /**
   * The time zone of the default serializers' dates (a Java time-zone ID): XStream writes and reads
   * its dates in it, Jackson reads a date without an offset in it. UTC, as both libraries default to.
   */
  timeZone: string
}

export const DEFAULT_RUNTIME_SETTINGS: Readonly<RuntimeSettings> = Object.freeze({
  readTimeout: 480000,
  threadPoolSize: 128,
  threadExecutingTimeOut: 240000,
  backlog: 0,
  queueLimit: 10000,
  workerMinArgumentBytes: 0,
  maxFrameBytes: DEFAULT_MAX_FRAME_BYTES,
  ...DEFAULT_READ_LIMITS,
  timeZone: 'UTC'
})
