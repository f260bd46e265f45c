/**
 * The counts of the rate-limit rules (RATE_LIMITS), by key, in shared memory: every listener thread
 * decides against one set of counts, so N threads allow what one would. Each rule has a table of
 * slots; a slot holds a key's 64-bit hash and three numbers whose meaning the rule gives (a bucket's
 * tokens and when it was filled, or a window's count and which window). The whole store has one
 * lock, so a call that several rules match is decided against all of them at once, with nothing to
 * give back when the last one refuses (docs/rate-limits.md, "How it counts").
 */

/** Slots looked at from a key's home slot before one is taken from another key. */
const PROBES = 16
/** Per rule: calls allowed, calls limited, keys forgotten to make room. */
const COUNTERS = 3
/** The numbers a slot holds (their meaning is the rule's): slot k's are values[k * NUMBERS …]. */
export const NUMBERS = 3

export interface TableShape {
  /** Slots, a power of two (1 for a rule with one shared counter). */
  readonly slots: number
}

/** What a rule says of its slots' numbers. */
export interface SlotMeaning {
  /** Whether a slot's numbers are as good as a new key's (a full bucket, a window gone by). */
  isFree(values: Float64Array, at: number, now: number): boolean
  /** Which slot to forget when none is free: the lowest rank (the longest unused, the least counted). */
  rank(values: Float64Array, at: number): number
}

export class LimitStore {
  readonly shared: SharedArrayBuffer
  private readonly lockCell: Int32Array
  private readonly counters: Float64Array
  /** NUMBERS per slot, every rule's table one after another. */
  readonly values: Float64Array
  /** The key's hash per slot, two words; 0, 0 is an empty slot. */
  private readonly hashes: Uint32Array
  /** Where each rule's table starts, in slots. */
  private readonly starts: number[]
  private readonly sizes: number[]
  /** Whether the slot `find` gave last is new to its key (set up by the rule before use). */
  fresh = false

  constructor(tables: readonly TableShape[], shared?: SharedArrayBuffer) {
    this.sizes = tables.map((t) => t.slots)
    this.starts = []
    let slots = 0
    for (const n of this.sizes) {
      this.starts.push(slots)
      slots += n
    }
    const countersAt = 8
    const valuesAt = countersAt + tables.length * COUNTERS * 8
    const hashesAt = valuesAt + slots * NUMBERS * 8
    const bytes = hashesAt + slots * 8
    this.shared = shared ?? new SharedArrayBuffer(bytes)
    if (this.shared.byteLength !== bytes) throw new RangeError(`the store needs ${bytes} bytes`)
    this.lockCell = new Int32Array(this.shared, 0, 1)
    this.counters = new Float64Array(this.shared, countersAt, tables.length * COUNTERS)
    this.values = new Float64Array(this.shared, valuesAt, slots * NUMBERS)
    this.hashes = new Uint32Array(this.shared, hashesAt, slots * 2)
  }

  /** Held for a few hundred nanoseconds at most: a thread that finds it taken tries again at once. */
  lock(): void {
    while (Atomics.compareExchange(this.lockCell, 0, 0, 1) !== 0);
  }

  unlock(): void {
    Atomics.store(this.lockCell, 0, 0)
  }

  /**
   * The slot of a key in rule `table` (under the lock): its own, or a free one, or else the one of
   * PROBES its meaning ranks lowest, forgotten for it. `fresh` is then true: the rule sets it up.
   */
  find(table: number, hi: number, lo: number, meaning: SlotMeaning, now: number): number {
    const size = this.sizes[table]!
    const start = this.starts[table]!
    const h = this.hashes
    const probes = Math.min(PROBES, size)
    let free = -1
    let lowest = -1
    let lowestRank = Infinity
    for (let k = 0; k < probes; k++) {
      const slot = start + ((lo + k) & (size - 1))
      const a = h[slot * 2]!
      const b = h[slot * 2 + 1]!
      if (a === hi && b === lo) {
        this.fresh = false
        return slot
      }
      if (free >= 0) continue
      if ((a === 0 && b === 0) || meaning.isFree(this.values, slot * NUMBERS, now)) free = slot
      else {
        const r = meaning.rank(this.values, slot * NUMBERS)
        if (r < lowestRank) {
          lowestRank = r
          lowest = slot
        }
      }
    }
    let slot = free
    if (slot < 0) {
      slot = lowest
      this.counters[table * COUNTERS + 2]!++
    }
    h[slot * 2] = hi
    h[slot * 2 + 1] = lo
    this.fresh = true
    return slot
  }

  /**
   * Takes rule `from`'s table of `old` as rule `table`'s (same size): its keys, their numbers and its
   * totals. A reload keeps what an unchanged rule has counted (src/platform/listeners/reload.ts).
   */
  carry(old: LimitStore, from: number, table: number): void {
    const size = this.sizes[table]!
    if (old.sizes[from] !== size) throw new RangeError('a table is carried over to one of its own size')
    const src = old.starts[from]!
    const dst = this.starts[table]!
    old.lock()
    this.values.set(old.values.subarray(src * NUMBERS, (src + size) * NUMBERS), dst * NUMBERS)
    this.hashes.set(old.hashes.subarray(src * 2, (src + size) * 2), dst * 2)
    this.counters.set(old.counters.subarray(from * COUNTERS, (from + 1) * COUNTERS), table * COUNTERS)
    old.unlock()
  }

  /** Counts a decision of rule `table` (under the lock). */
  count(table: number, limited: boolean): void {
    this.counters[table * COUNTERS + (limited ? 1 : 0)]!++
  }

  /** What rule `table` has counted since start: calls allowed and limited, keys forgotten. */
  totals(table: number): { allowed: number; limited: number; evicted: number } {
    this.lock()
    const c = this.counters
    const at = table * COUNTERS
    const out = { allowed: c[at]!, limited: c[at + 1]!, evicted: c[at + 2]! }
    this.unlock()
    return out
  }
}
