import { closeSync, openSync, readSync } from 'node:fs'

/**
 * Busy polling (ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.busyPollMicroseconds): after a call goes to a
 * microservice or an answer comes back, this thread's event loop keeps turning for that long, a
 * setImmediate each turn so that libuv polls its sockets with a zero timeout, rather than sleeping in
 * epoll_wait. A thread that sleeps lets its core idle, and on a virtual machine waking an idle core is
 * much of what one call alone waits for (docs/performance.md, "One call alone, user and system; busy
 * polling", has the figures). The price is a core kept busy while calls come one at a time,
 * which CPU-based autoscaling reads as load: so it is off (0) unless set. Under load the loop seldom
 * sleeps anyway. A spinning thread that the kernel has kept waiting for its core (another task ran on
 * it) stops and rests for REST_MS, so polling gives way when the cores are contended rather than
 * taking turns from the client and the microservice.
 */
export class BusyPoll {
  private ms: number
  private last = 0
  private turning = false
  private waitedBefore = 0
  private turns = 0
  private restUntil = 0
  /** Polling periods started, and those cut short because the thread was kept from its core. */
  polls = 0
  rests = 0
  private readonly turn = (): void => {
    const now = this.now()
    if ((++this.turns & (TURNS_A_LOOK - 1)) === 0 && this.kept() >= REST_AFTER_NS) {
      // Something else ran on this core while it spun: sleep, and leave polling alone for a while.
      this.restUntil = now + REST_MS
      this.rests++
      this.turning = false
    } else if (now - this.last < this.ms) setImmediate(this.turn)
    else this.turning = false
  }

  /**
   * `micros` of polling after the last activity; `now` in milliseconds, and `waited` the nanoseconds
   * this thread has been kept from its core (a test's own clock and count).
   */
  constructor(
    micros: number,
    private readonly now: () => number = performance.now.bind(performance),
    private readonly waited: () => number = new CoreWaits().read
  ) {
    this.ms = micros / 1000
  }

  /** Set by the thread's Gateway from its config; a restart changes it, not a reload. */
  configure(micros: number): void {
    this.ms = micros / 1000
  }

  /** A call sent or its answer read: poll for the next `micros` from now, unless resting. */
  active(): void {
    if (this.ms === 0) return
    const now = this.now()
    this.last = now
    if (this.turning || now < this.restUntil) return
    this.turning = true
    this.polls++
    this.waitedBefore = this.waited()
    setImmediate(this.turn)
  }

  /** How long the thread was kept from its core since the last look. */
  private kept(): number {
    const waited = this.waited()
    const kept = waited - this.waitedBefore
    this.waitedBefore = waited
    return kept
  }

  /** Whether the loop is being kept turning now. */
  get polling(): boolean {
    return this.turning
  }

  /** Whether polling is resting now: the thread was kept from its core less than REST_MS ago. */
  get resting(): boolean {
    return this.now() < this.restUntil
  }
}

/**
 * How long polling rests after the thread was kept from its core while it spun: long enough that a
 * contended machine pays for the check about once per this many milliseconds, short enough that
 * one stray wait costs a calm one little.
 */
export const REST_MS = 10

/**
 * The wait between two looks that sends polling to rest. Shorter waits are the kernel's own work
 * and stray wake-ups, which a calm machine has too; a task that shares the core keeps a spinning
 * thread waiting longer (docs/performance.md, "2026-12-02", has both distributions).
 */
export const REST_AFTER_NS = 50_000

/** Turns between two looks at the wait (a power of two): a look is a system call, a turn a few µs. */
export const TURNS_A_LOOK = 4

/**
 * How long this thread has waited, runnable, for a core: the second number of Linux's
 * /proc/thread-self/schedstat (nanoseconds), read through a descriptor opened at the first read (Node
 * closes a worker thread's descriptors as the thread ends). Where there is no such file, 0: polling
 * never rests.
 */
export class CoreWaits {
  private fd: number | null | undefined
  private readonly text = Buffer.alloc(96)

  constructor(private readonly file = '/proc/thread-self/schedstat') {}

  readonly read = (): number => {
    if (this.fd === null) return 0
    try {
      this.fd ??= openSync(this.file, 'r')
      const n = readSync(this.fd, this.text, 0, this.text.length, 0)
      const text = this.text.toString('latin1', 0, n)
      const at = text.indexOf(' ') + 1
      return Number(text.slice(at, text.indexOf(' ', at)))
    } catch {
      // No such file (not Linux), or one that cannot be read: polling goes on without the look.
      if (this.fd != null) closeSync(this.fd)
      this.fd = null
      return 0
    }
  }
}

/** This thread's: each listener thread has its own event loop, and its own copy of this module. */
export const busyPoll = new BusyPoll(0)
