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
    d.deadlineAt = performance.now() + this.durationMs
    d.deadlineNext = null
    d.deadlinePrev = this.tail
    if (this.tail === null) this.head = d
    else this.tail.deadlineNext = d
    this.tail = d
    // An armed timer fires no later than this deadline: the list's head expires first.
    if (this.timer === null) this.arm(this.durationMs)
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
    if (this.head !== null && this.timer === null) this.arm(this.head.deadlineAt - now)
  }
}

function expire(list: DeadlineList): void {
  list.expire()
}
