/**
 * The calls in flight on one protocol connection, by call id (a uint32): an open-addressed table with
 * linear probing over two arrays that live as long as the connection.
 *
 * Why not a Map: a Map whose entries come and go all the time (one set and one delete per call)
 * rebuilds its hash table every few dozen calls, and V8 links each retired table to its successor
 * (OrderedHashTable's "next table", kept for live iterators). Once one retired table has been
 * promoted to the old generation, it keeps every later table, and every call stored in them, alive
 * through each young-generation collection until the next full one: under load a listener thread
 * promoted its calls wholesale and paid for it in scavenges and full collections (docs/performance.md,
 * "Where a second thread's cost went"). Here a removed call's slot is cleared at once, and the arrays
 * are replaced only when the table grows or shrinks.
 */
export class CallTable<T> {
  private ids: Uint32Array
  private entries: Array<T | undefined>
  private mask: number
  /** Calls held. */
  size = 0

  constructor(private readonly initialCapacity = 64) {
    if (!Number.isInteger(Math.log2(initialCapacity)) || initialCapacity < 4)
      throw new RangeError(`a CallTable's capacity is a power of two of at least 4, not ${initialCapacity}`)
    this.ids = new Uint32Array(initialCapacity)
    this.entries = new Array<T | undefined>(initialCapacity).fill(undefined)
    this.mask = initialCapacity - 1
  }

  get(id: number): T | undefined {
    const at = this.slotOf(id)
    return at < 0 ? undefined : this.entries[at]
  }

  /** Adds the call, or replaces the one held under the same id. */
  set(id: number, entry: T): void {
    if (entry === undefined) throw new TypeError('a CallTable holds no undefined entry')
    const at = this.slotOf(id)
    if (at >= 0) {
      this.entries[at] = entry
      return
    }
    // At most half full, so a probe ends soon.
    if ((this.size + 1) * 2 > this.entries.length) this.resize(this.entries.length * 2)
    this.place(id >>> 0, entry)
    this.size++
  }

  /** Takes the call out; false when none is held under `id`. */
  delete(id: number): boolean {
    let hole = this.slotOf(id)
    if (hole < 0) return false
    const { ids, entries, mask } = this
    // Backward-shift deletion: each entry after the hole that may sit there (its home slot is not
    // between the hole and where it stands) moves back, so no lookup ever stops at a false gap.
    for (let at = (hole + 1) & mask; entries[at] !== undefined; at = (at + 1) & mask) {
      const home = ids[at]! & mask
      const stays = hole <= at ? hole < home && home <= at : hole < home || home <= at
      if (stays) continue
      ids[hole] = ids[at]!
      entries[hole] = entries[at]
      hole = at
    }
    entries[hole] = undefined
    ids[hole] = 0
    this.size--
    // A table that grew for a burst gives its room back once the burst is over.
    if (this.entries.length > this.initialCapacity && this.size * 8 < this.entries.length)
      this.resize(this.entries.length / 2)
    return true
  }

  /** The calls held, in no particular order (a copy: the table may change while they are handled). */
  values(): T[] {
    const out: T[] = []
    for (const e of this.entries) if (e !== undefined) out.push(e)
    return out
  }

  clear(): void {
    this.ids = new Uint32Array(this.initialCapacity)
    this.entries = new Array<T | undefined>(this.initialCapacity).fill(undefined)
    this.mask = this.initialCapacity - 1
    this.size = 0
  }

  /** The slot holding `id`, or -1. */
  private slotOf(id: number): number {
    const key = id >>> 0
    const { ids, entries, mask } = this
    for (let at = key & mask; entries[at] !== undefined; at = (at + 1) & mask) if (ids[at] === key) return at
    return -1
  }

  /** Puts an id that is not held yet into the first free slot from its home. */
  private place(key: number, entry: T): void {
    let at = key & this.mask
    while (this.entries[at] !== undefined) at = (at + 1) & this.mask
    this.ids[at] = key
    this.entries[at] = entry
  }

  private resize(capacity: number): void {
    const { ids, entries } = this
    this.ids = new Uint32Array(capacity)
    this.entries = new Array<T | undefined>(capacity).fill(undefined)
    this.mask = capacity - 1
    for (let k = 0; k < entries.length; k++) if (entries[k] !== undefined) this.place(ids[k]!, entries[k]!)
  }
}
