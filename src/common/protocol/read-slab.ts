/** Bytes of each slab: what Node offers a read of its own. */
export const SLAB_BYTES = 64 * 1024
/** A slab with less room than this left is not read into again: the next read starts a new one. */
export const MIN_READ_BYTES = 8 * 1024

/**
 * Where a client socket's reads land (net.connect's `onread`): one after another in a slab, each read
 * into the room the reads before it left, so a read makes no ArrayBuffer of its own. Without it Node
 * makes one per read (64 KB, then shrunk to what was read), and V8's scavenger sweeps every one of
 * them: at one call at a time, sweeping ArrayBuffers was half to two thirds of each of the gateway's
 * young-generation pauses (docs/performance.md, "Fewer ArrayBuffers a call"). A chunk handed on is a
 * view that no later read writes over, so frames decoded from it may be kept as Node's own chunks
 * may; a kept view keeps its slab, as a view of Node's pool keeps the pool's.
 */
export class ReadSlab {
  private slab: Buffer
  private at = 0
  /** Where each chunk goes (FramedSocket sets it); until then chunks are held, in order. */
  private deliver: ((chunk: Buffer) => void) | null = null
  private early: Buffer[] = []

  constructor(
    private readonly slabBytes = SLAB_BYTES,
    private readonly minReadBytes = MIN_READ_BYTES
  ) {
    this.slab = Buffer.allocUnsafeSlow(slabBytes)
  }

  /** For net.connect: Node reads into `buffer()`'s answer, then calls `callback` with what it read. */
  readonly onread = {
    buffer: (): Buffer => {
      if (this.slabBytes - this.at < this.minReadBytes) {
        this.slab = Buffer.allocUnsafeSlow(this.slabBytes)
        this.at = 0
      }
      return this.slab.subarray(this.at)
    },
    /** True: reading goes on (false would pause the socket). */
    callback: (nread: number, buf: Uint8Array): boolean => {
      this.at += nread
      const chunk = Buffer.from(buf.buffer, buf.byteOffset, nread)
      if (this.deliver !== null) this.deliver(chunk)
      else this.early.push(chunk)
      return true
    }
  }

  /** From now on chunks go to `to`; any read before it was set goes first. */
  to(deliver: (chunk: Buffer) => void): void {
    this.deliver = deliver
    const early = this.early
    this.early = []
    for (const c of early) deliver(c)
  }
}
