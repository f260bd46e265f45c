/**
 * Busy polling (ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.busyPollMicroseconds): after a call goes to a
 * microservice or an answer comes back, this thread's event loop keeps turning for that long, a
 * setImmediate each turn so that libuv polls its sockets with a zero timeout, rather than sleeping in
 * epoll_wait. A thread that sleeps lets its core idle, and on a virtual machine waking an idle core is
 * much of what one call alone waits for (docs/performance.md, "One call alone, user and system; busy
 * polling", has the figures). The price is a core kept busy while calls come one at a time,
 * which CPU-based autoscaling reads as load: so it is off (0) unless set. Under load the loop seldom
 * sleeps anyway.
 */
export class BusyPoll {
  private ms: number
  private last = 0
  private turning = false
  private readonly turn = (): void => {
    if (this.now() - this.last < this.ms) setImmediate(this.turn)
    else this.turning = false
  }

  /** `micros` of polling after the last activity; `now` in milliseconds (a test's own clock). */
  constructor(
    micros: number,
    private readonly now: () => number = performance.now.bind(performance)
  ) {
    this.ms = micros / 1000
  }

  /** Set by the thread's Gateway from its config; a restart changes it, not a reload. */
  configure(micros: number): void {
    this.ms = micros / 1000
  }

  /** A call sent or its answer read: poll for the next `micros` from now. */
  active(): void {
    if (this.ms === 0) return
    this.last = this.now()
    if (this.turning) return
    this.turning = true
    setImmediate(this.turn)
  }

  /** Whether the loop is being kept turning now. */
  get polling(): boolean {
    return this.turning
  }
}

/**
 * What to warn of when polling threads would leave no core free: each polling thread holds a core
 * while calls come, and the client, the microservice and the other threads wait for their turns
 * (docs/operating.md, "Busy polling", has the measurement). Null when a core is left over.
 */
export function crowdedWarning(micros: number, threads: number, cores: number): string | null {
  if (micros === 0 || threads < cores) return null
  return (
    `busyPollMicroseconds ${micros} with ${threads} listener thread${threads === 1 ? '' : 's'} on ${cores} ` +
    `core${cores === 1 ? '' : 's'}: no core is left for other work while the threads poll, and calls slow ` +
    'down; set fewer threads, or busyPollMicroseconds 0'
  )
}

/** This thread's: each listener thread has its own event loop, and its own copy of this module. */
export const busyPoll = new BusyPoll(0)
