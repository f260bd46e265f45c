/**
 * The calls waiting for an execution slot, first in, first out, in a ring buffer: taking the oldest
 * costs the same however many wait (Array#shift moves every element, and queueLimit allows 10,000).
 * A call that leaves before its turn (cancelled, its connection closed) is only counted out with
 * `left`; its slot is skipped when the queue reaches it.
 */
export class WaitQueue<T extends { done: boolean }> {
  private items: Array<T | undefined>
  private head = 0
  /** Slots in use, those of calls that left included. */
  private used = 0
  /** Calls still waiting. */
  private waiting = 0

  constructor(capacity = 16) {
    this.items = new Array<T | undefined>(Math.max(1, capacity)).fill(undefined)
  }

  get size(): number {
    return this.waiting
  }

  push(item: T): void {
    if (this.used === this.items.length) this.grow()
    this.items[(this.head + this.used) % this.items.length] = item
    this.used++
    this.waiting++
  }

  /** The oldest call still waiting (not done), taken out of the queue; undefined when none waits. */
  shift(): T | undefined {
    while (this.used > 0) {
      const item = this.items[this.head]!
      this.items[this.head] = undefined
      this.head = (this.head + 1) % this.items.length
      this.used--
      if (!item.done) {
        this.waiting--
        return item
      }
    }
    return undefined
  }

  /** A call in the queue is done before its turn (it is marked done; its slot is skipped later). */
  left(): void {
    this.waiting--
  }

  private grow(): void {
    const next = new Array<T | undefined>(this.items.length * 2).fill(undefined)
    for (let k = 0; k < this.used; k++) next[k] = this.items[(this.head + k) % this.items.length]
    this.items = next
    this.head = 0
  }
}
