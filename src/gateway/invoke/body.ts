import type { Failure } from '../../common/errors/codes'
import { copyInto, type SharedBufferPool } from '../../common/bytes/shared-buffers'

const EMPTY = new Uint8Array(0)

/**
 * Collects a request body from the chunks the HTTP layer hands over, within the body limit.
 * A declared length gets one buffer up front; an undeclared one is collected and joined once.
 * A body above `sharedAbove` (one a worker will split) comes from `large`, a pool of shared
 * buffers that workers read in place (see SharedBufferPool); a smaller one from Node's slab, which
 * is much cheaper to allocate.
 */
export class BodyReader {
  private body: Buffer | null = null
  private chunks: Buffer[] | null = null
  private received = 0

  constructor(
    declaredLength: number,
    private readonly maxBytes: number,
    private readonly sharedAbove: number,
    private readonly large: SharedBufferPool
  ) {
    if (declaredLength > 0) this.body = this.allocate(declaredLength)
    else if (declaredLength < 0) this.chunks = []
  }

  /**
   * Copies one chunk (the HTTP layer may reuse its memory after the call). A declared length is
   * enforced by the HTTP layer's framing; an undeclared one here, against the limit.
   */
  push(chunk: Uint8Array): Failure | null {
    const n = chunk.byteLength
    if (this.body !== null) {
      if (this.received + n > this.body.length)
        return { code: 'MALFORMED_BODY', detail: 'the body is longer than its Content-Length' }
      copyInto(this.body, this.received, chunk)
    } else if (this.chunks !== null) {
      if (this.received + n > this.maxBytes)
        return { code: 'BODY_TOO_LARGE', detail: `the body exceeds the limit of ${this.maxBytes} bytes` }
      if (n > 0) this.chunks.push(Buffer.from(chunk))
    } else if (n > 0) {
      return { code: 'MALFORMED_BODY', detail: 'the body is longer than its Content-Length' }
    }
    this.received += n
    return null
  }

  private allocate(n: number): Buffer {
    return n > this.sharedAbove ? this.large.acquire(n) : Buffer.allocUnsafe(n)
  }

  /** Bytes of the body that have arrived. */
  get receivedBytes(): number {
    return this.received
  }

  /** The whole body; the reader lets go of it. */
  finish(): Uint8Array {
    let out: Uint8Array = EMPTY
    if (this.body !== null) out = this.received === this.body.length ? this.body : this.body.subarray(0, this.received)
    else if (this.chunks !== null && this.received > 0) {
      const all = this.allocate(this.received)
      let at = 0
      for (const c of this.chunks) {
        copyInto(all, at, c)
        at += c.length
      }
      out = all
    }
    this.body = null
    this.chunks = null
    return out
  }
}
