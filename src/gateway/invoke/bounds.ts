/**
 * The gateway's two bounds on work in progress, maxInFlight (requests) and maxBodyBytesInFlight
 * (body bytes), counted in shared memory: every listener thread admits against one total, so N
 * threads hold no more than one thread would. Each count is one Atomics.add; a request that takes
 * a count past its bound gives it back and is refused.
 */
export class CallBounds {
  /** [requests, body bytes]: an Int32Array over a SharedArrayBuffer that each listener thread is handed. */
  readonly cells: Int32Array

  constructor(
    readonly maxInFlight: number,
    readonly maxBodyBytes: number,
    shared: SharedArrayBuffer = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT)
  ) {
    this.cells = new Int32Array(shared)
  }

  get shared(): SharedArrayBuffer {
    return this.cells.buffer as SharedArrayBuffer
  }

  /** Requests in progress on every thread. */
  get inFlight(): number {
    return Atomics.load(this.cells, 0)
  }

  /** Body bytes held on every thread. */
  get bodyBytes(): number {
    return Atomics.load(this.cells, 1)
  }

  /** Counts one request; false (nothing counted) when the bound is reached. */
  enter(): boolean {
    if (Atomics.add(this.cells, 0, 1) < this.maxInFlight) return true
    Atomics.sub(this.cells, 0, 1)
    return false
  }

  leave(): void {
    Atomics.sub(this.cells, 0, 1)
  }

  /** Reserves `n` body bytes; false (nothing reserved) when they would pass the bound. */
  reserve(n: number): boolean {
    if (n === 0) return true
    if (Atomics.add(this.cells, 1, n) + n <= this.maxBodyBytes) return true
    Atomics.sub(this.cells, 1, n)
    return false
  }

  /** Counts `n` body bytes already in memory (read before the call was admitted), past the bound if need be. */
  hold(n: number): void {
    Atomics.add(this.cells, 1, n)
  }

  unreserve(n: number): void {
    if (n !== 0) Atomics.sub(this.cells, 1, n)
  }
}
