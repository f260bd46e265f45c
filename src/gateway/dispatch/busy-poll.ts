/**
 * Busy polling (ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.busyPollMicroseconds): after a call goes to a
 * microservice or an answer comes back, this thread's event loop keeps turning for that long, a
 * setImmediate each turn so that libuv polls its sockets with a zero timeout, rather than sleeping in
 * epoll_wait. A thread that sleeps lets its core idle, and on a virtual machine waking an idle core is
 * about half of what one call alone waits for (docs/performance.md, "One call alone, user and system;
 * busy polling", has the figures). The price is a core kept busy while calls come one at a time,
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

/** This thread's: each listener thread has its own event loop, and its own copy of this module. */
export const busyPoll = new BusyPoll(0)
