/** An entry of a DeadlineList: the list links it in place, so adding one allocates nothing. */
export interface Deadline {
  deadlineAt: number
  deadlinePrev: Deadline | null
  deadlineNext: Deadline | null
  /** Called once when the deadline passes while the entry is still in the list. */
  onDeadline(): void
}

/**
 * Deadlines that all lie the same time after they are added (the gateway's executing timeout), so
 * the order of adding is the order of expiry: a doubly linked FIFO, O(1) to add and to remove, with
 * one timer for the oldest entry, instead of a Timeout object and a setTimeout + clearTimeout per
 * call, which cost more (docs/performance.md, "Choices in the code").
 * The timer is unref'd: an entry always belongs to a call whose socket keeps the process alive.
 */
export class DeadlineList {
  private head: Deadline | null = null
  private tail: Deadline | null = null
  private timer: NodeJS.Timeout | null = null

  constructor(readonly durationMs: number) {}

  add(d: Deadline): void {
    d.deadlineAt = this.stamp()
    d.deadlineNext = null
    d.deadlinePrev = this.tail
    if (this.tail === null) this.head = d
    else this.tail.deadlineNext = d
    this.tail = d
    // An armed timer fires no later than this deadline: the list's head expires first.
    if (this.timer === null) this.arm(this.firstWait())
  }

  /** When an entry added now expires. */
  protected stamp(): number {
    return performance.now() + this.durationMs
  }

  /** How long the timer started by an add waits: until that entry's deadline. */
  protected firstWait(): number {
    return this.durationMs
  }

  /** Whether the timer is running. */
  protected get armed(): boolean {
    return this.timer !== null
  }

  /** How long after an expiry at `now` the timer fires next, while entries remain: when the head expires. */
  protected next(now: number): number {
    return this.head!.deadlineAt - now
  }

  /** Takes an entry out; one that is not in the list is left as it is. */
  remove(d: Deadline): void {
    if (d.deadlinePrev === null && this.head !== d) return
    if (d.deadlinePrev === null) this.head = d.deadlineNext
    else d.deadlinePrev.deadlineNext = d.deadlineNext
    if (d.deadlineNext === null) this.tail = d.deadlinePrev
    else d.deadlineNext.deadlinePrev = d.deadlinePrev
    d.deadlinePrev = null
    d.deadlineNext = null
  }

  /** Empties the list and returns what it held, oldest first. */
  takeAll(): Deadline[] {
    const out: Deadline[] = []
    for (let d = this.head; d !== null;) {
      const next: Deadline | null = d.deadlineNext
      d.deadlinePrev = null
      d.deadlineNext = null
      out.push(d)
      d = next
    }
    this.head = null
    this.tail = null
    return out
  }

  /** Entries in the list (walks it: for tests and status, not the hot path). */
  get size(): number {
    let n = 0
    for (let d = this.head; d !== null; d = d.deadlineNext) n++
    return n
  }

  private arm(ms: number): void {
    this.timer = setTimeout(expire, Math.max(1, Math.ceil(ms)), this)
    this.timer.unref()
  }

  /** @internal the timer's callback */
  expire(): void {
    this.timer = null
    const now = performance.now()
    // setTimeout rounds to whole milliseconds and may fire a little early by performance.now().
    for (let d = this.head; d !== null && d.deadlineAt <= now + 1; d = this.head) {
      this.remove(d)
      d.onDeadline()
    }
    if (this.head !== null && this.timer === null) this.arm(this.next(now))
  }
}

function expire(list: DeadlineList): void {
  list.expire()
}

/**
 * A DeadlineList whose entries are stamped from a clock read at most every `resolutionMs`, not at
 * every add: for a timeout that needs no precision (the body timeout), on the path of every call.
 * While entries remain its timer fires every `resolutionMs` and reads the clock; an add with no timer
 * running reads it once and starts it. An entry expires between its duration and its duration plus
 * twice the resolution after it was added, never before.
 */
export class CoarseDeadlineList extends DeadlineList {
  private clock = 0

  constructor(
    durationMs: number,
    private readonly resolutionMs: number
  ) {
    super(durationMs)
  }

  protected override stamp(): number {
    if (!this.armed) this.clock = performance.now()
    return this.clock + this.durationMs + this.resolutionMs
  }

  protected override firstWait(): number {
    return this.resolutionMs
  }

  protected override next(now: number): number {
    this.clock = now
    return this.resolutionMs
  }
}
