/**
 * Which calls get an access-log line (LOGGING.accessLogSample, accessLogSlowMs; docs/operating.md,
 * "The access log's cost"): every refused or failed call and every slow one, and of the others a
 * share, taken evenly (every second call at 0.5) rather than by chance, so a share of 0.01 writes
 * one line in a hundred however the calls come.
 */
export class AccessSampling {
  /** Lines owed to the share so far: a line is written each time it reaches one. */
  private credit = 0

  constructor(
    /** The share of answered, fast calls logged, 0 to 1. */
    readonly share: number,
    /** A call that took this long or longer is always logged. */
    readonly slowMs: number
  ) {}

  /** Whether the call that ended with `code` ('' for an answer) after `ms` gets a line. */
  takes(code: string, ms: number): boolean {
    if (code !== '' || ms >= this.slowMs) return true
    this.credit += this.share
    if (this.credit < 1) return false
    this.credit -= 1
    return true
  }
}

/** The sampling LOGGING sets. */
export function accessSampling(logging: { accessLogSample: number; accessLogSlowMs: number }): AccessSampling {
  return logging.accessLogSample >= 1
    ? EVERY_CALL
    : new AccessSampling(logging.accessLogSample, logging.accessLogSlowMs)
}

/** Every call logged: the default. */
export const EVERY_CALL = new AccessSampling(1, 0)
