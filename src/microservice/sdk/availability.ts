/** What the running microservice's host lends its code: the user availability flag and counters. */
export interface RuntimeStats {
  /** Calls executed (answered by a method). */
  readonly executed: number
  /** Cancel frames received from the gateway (client gone, or the gateway's executing timeout). */
  readonly cancelled: number
  /** Calls stopped by threadExecutingTimeOut. */
  readonly timedOut: number
}

/** @internal the host's side of the handle. */
export interface HostBinding {
  setAvailable(flag: boolean): void
  readonly stats: RuntimeStats
}

let binding: HostBinding | null = null

/**
 * What a microservice's own code can reach at run time. Outside a running host (in a unit test of
 * the microservice) `setAvailable` does nothing and `stats` is null.
 */
export const runtime = {
  /** The user availability flag (docs/contract.md, Limits): false makes the microservice unavailable (503). */
  setAvailable(flag: boolean): void {
    binding?.setAvailable(flag)
  },
  get stats(): RuntimeStats | null {
    return binding?.stats ?? null
  }
}

/** @internal called once by the host when its server is up. */
export function bindHost(b: HostBinding): void {
  binding = b
}
