/**
 * Large buffers kept for reuse, as SharedArrayBuffers, so a thread that reads one is given it, not a
 * copy, and nothing moves.
 *
 * Why: every 1 MB body was an ArrayBuffer of its own, moved to a worker and back. V8 counts such
 * memory as external, and external memory allocated fast starts full collections on the gateway's
 * main thread, which small calls beside the large ones waited for. A buffer taken from here is used
 * again instead.
 *
 * Ownership is the caller's: `release` only when nothing will read or write the buffer again (for a
 * body: after its frame was written to the socket). A buffer never released is only lost to the
 * pool, not leaked: the garbage collector takes it.
 */
export class SharedBufferPool {
  private readonly free = new Map<number, SharedArrayBuffer[]>()
  private readonly idle = new WeakSet<SharedArrayBuffer>()
  private pooledBytes = 0

  /**
   * @param minBytes the smallest buffer made (capacities are powers of two from here)
   * @param maxPooledBytes most bytes kept unused; a buffer released beyond it is left to the collector
   */
  constructor(
    readonly minBytes: number,
    readonly maxPooledBytes: number
  ) {}

  /** A Buffer of n bytes (contents undefined) over a shared buffer that nobody else holds. */
  acquire(n: number): Buffer {
    const capacity = capacityFor(Math.max(n, this.minBytes))
    const sab = this.free.get(capacity)?.pop()
    if (sab === undefined) return Buffer.from(new SharedArrayBuffer(capacity), 0, n)
    this.idle.delete(sab)
    this.pooledBytes -= capacity
    return Buffer.from(sab, 0, n)
  }

  /** Gives back the buffer under `view`; anything not from a pool, or already given back, is ignored. */
  release(view: Uint8Array): void {
    const sab = view.buffer
    if (!(sab instanceof SharedArrayBuffer) || this.idle.has(sab)) return
    const capacity = sab.byteLength
    if (capacity !== capacityFor(capacity) || this.pooledBytes + capacity > this.maxPooledBytes) return
    let list = this.free.get(capacity)
    if (list === undefined) {
      list = []
      this.free.set(capacity, list)
    }
    list.push(sab)
    this.idle.add(sab)
    this.pooledBytes += capacity
  }

  /** Bytes held for reuse now. */
  get pooled(): number {
    return this.pooledBytes
  }
}

function capacityFor(n: number): number {
  return 2 ** Math.ceil(Math.log2(n))
}

/** Whether `view` lies in a shared buffer (which can be posted to a worker but not moved). */
export function isShared(view: Uint8Array): boolean {
  return view.buffer instanceof SharedArrayBuffer
}

/**
 * Copies `src` into `dst` at `at`, as `dst.set(src, at)` does, fast when `dst` is shared too.
 *
 * Why: V8 copies into a SharedArrayBuffer with relaxed atomic loads and stores, eight bytes at a time
 * only when source and destination are aligned alike and else byte by byte, an order of magnitude
 * slower than into plain memory. A body's chunks (views of uWS's receive buffer, wherever the headers
 * ended) and a frame's bytes after its length prefix are rarely aligned like their place in the
 * shared buffer, and even the aligned word copy showed in large calls' profiles. Node's Buffer#fill
 * with a buffer as the value and the range the value's length is one memcpy into the view's memory,
 * shared or not, however it lies.
 */
export function copyInto(dst: Uint8Array, at: number, src: Uint8Array): void {
  if (src.length < FILL_FROM || !(dst.buffer instanceof SharedArrayBuffer)) {
    dst.set(src, at)
    return
  }
  // As set: nothing written when it does not fit (fill would also refuse, but word it otherwise).
  if (at < 0 || at + src.length > dst.length) throw new RangeError('offset is out of bounds')
  fill.call(dst, src, at, at + src.length)
}

/**
 * Below this, set costs less than the native call (measured misaligned into shared memory at 64 and
 * 256 bytes).
 */
const FILL_FROM = 256
const fill = Buffer.prototype.fill as (this: Uint8Array, value: Uint8Array, start: number, end: number) => Uint8Array
