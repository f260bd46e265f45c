import { gateway } from './generated/gateway'
import { copyInto, type SharedBufferPool } from '../bytes/shared-buffers'
import { decodeFrame } from './frame-decoder'
import { InternalError, errorMessage } from '../errors/internal'
import { DEFAULT_MAX_FRAME_BYTES } from '../contract/limits'

export const PROTOCOL_VERSION = 1

export type Frame = gateway.Frame
export type FrameInit = gateway.IFrame
/**
 * A frame in pieces written one after another (see invoke-frame's SlicedFrame). `onWritten` is called
 * once, when the pieces were handed to the socket or were dropped unwritten: then their memory may
 * be used again.
 */
export interface FramePieces extends ReadonlyArray<Uint8Array> {
  onWritten?: () => void
}
/** An encoded frame, in one buffer or in pieces. */
export type OutFrame = Uint8Array | FramePieces

/**
 * Whether a frame is a large call's: only the frame of a body a worker split is written in pieces
 * (the arguments left in the body). Connections keep such frames apart from small ones.
 */
export function isLargeFrame(frame: OutFrame): frame is FramePieces {
  return !(frame instanceof Uint8Array)
}

/** Tells a frame's owner that it will not be written (no connection took it). */
export function dropFrame(frame: OutFrame): void {
  if (isLargeFrame(frame)) frame.onWritten?.()
}

/** Encodes one frame: varint length prefix + Frame message, the framing of protobufjs `encodeDelimited`. */
export function encodeFrame(frame: FrameInit): Uint8Array {
  return gateway.Frame.encodeDelimited(frame).finish()
}

export class FrameTooLargeError extends InternalError {
  constructor(
    readonly size: number,
    readonly limit: number
  ) {
    super('IGW_PROTOCOL_FRAME_TOO_LARGE', `frame of ${size} bytes exceeds the limit of ${limit} bytes`)
  }
}

export class MalformedFrameError extends InternalError {
  constructor(message: string) {
    super('IGW_PROTOCOL_MALFORMED_FRAME', message)
  }
}

/** From this size, a frame that spans chunks is joined in a buffer from the reader's pool, if it has one. */
export const LARGE_FRAME_BYTES = 64 * 1024

/**
 * Turns a stream of TCP chunks into frames. A frame may arrive split over many chunks and one
 * chunk may carry many frames. Bytes are only copied when a frame spans chunks; a frame inside
 * one chunk is decoded from a view of it. The length prefix is checked against the limit before
 * any of the frame is buffered, so a peer cannot make us hold more than `maxFrameBytes`.
 */
export class FrameReader {
  private chunks: Buffer[] = []
  private buffered = 0
  private need = -1 // body length of the frame being assembled, -1 while its prefix is unread
  private prefixLength = 0

  /**
   * @param largeFrames where a large frame that spans chunks is joined: a shared buffer a worker can
   *   read in place, which the frame's handler releases (the microservice's method pool); without
   *   one, such a frame is joined in a buffer of its own.
   */
  constructor(
    private readonly onFrame: (frame: Frame) => void,
    readonly maxFrameBytes = DEFAULT_MAX_FRAME_BYTES,
    private readonly largeFrames: SharedBufferPool | null = null
  ) {}

  /** Throws FrameTooLargeError or MalformedFrameError; the connection must then be closed. */
  push(chunk: Buffer): void {
    if (this.buffered === 0) {
      // Fast path: decode whole frames straight out of the chunk.
      let offset = 0
      while (offset < chunk.length) {
        const header = readVarint(chunk, offset)
        if (header === null) break
        const [length, prefix] = header
        this.check(length)
        const end = offset + prefix + length
        if (end > chunk.length) break
        this.emit(chunk.subarray(offset + prefix, end))
        offset = end
      }
      if (offset === chunk.length) return
      chunk = chunk.subarray(offset)
    }
    this.chunks.push(chunk)
    this.buffered += chunk.length
    this.drain()
  }

  /** Bytes held for an incomplete frame. */
  get pendingBytes(): number {
    return this.buffered
  }

  private drain(): void {
    for (;;) {
      if (this.need < 0) {
        const head = this.chunks.length === 1 ? this.chunks[0]! : this.peek(10)
        const header = readVarint(head, 0)
        if (header === null) return
        this.check(header[0])
        this.need = header[0]
        this.prefixLength = header[1]
      }
      const total = this.prefixLength + this.need
      if (this.buffered < total) return
      let body: Buffer
      if (this.chunks.length === 1) {
        const only = this.chunks[0]!
        body = only.subarray(this.prefixLength, total)
        this.chunks = total < only.length ? [only.subarray(total)] : []
      } else {
        // The frame alone is copied; what follows it stays a view of the last chunk.
        body =
          this.largeFrames !== null && this.need >= LARGE_FRAME_BYTES
            ? this.largeFrames.acquire(this.need)
            : Buffer.allocUnsafe(this.need)
        let pos = 0 // where the chunk starts in the bytes buffered
        let used = 0
        for (const c of this.chunks) {
          const from = Math.max(this.prefixLength - pos, 0)
          const to = Math.min(total - pos, c.length)
          if (to > from) copyInto(body, pos + from - this.prefixLength, c.subarray(from, to))
          pos += c.length
          used++
          if (pos >= total) break
        }
        const last = this.chunks[used - 1]!
        const restAt = total - (pos - last.length)
        const rest = this.chunks.slice(used)
        if (restAt < last.length) rest.unshift(last.subarray(restAt))
        this.chunks = rest
      }
      this.buffered -= total
      this.need = -1
      this.emit(body)
      if (this.buffered === 0) return
    }
  }

  private peek(n: number): Buffer {
    const out = Buffer.allocUnsafe(Math.min(n, this.buffered))
    let filled = 0
    for (const c of this.chunks) {
      filled += c.copy(out, filled, 0, Math.min(c.length, out.length - filled))
      if (filled === out.length) break
    }
    return out
  }

  private check(length: number): void {
    if (length > this.maxFrameBytes) throw new FrameTooLargeError(length, this.maxFrameBytes)
  }

  private emit(body: Buffer): void {
    let frame: Frame
    try {
      frame = decodeFrame(body)
    } catch (err) {
      throw new MalformedFrameError(`undecodable frame: ${errorMessage(err)}`)
    }
    this.onFrame(frame)
  }
}

/** Bytes a varint takes for n (a length: at most 2^53). */
export function varintLength(n: number): number {
  let bytes = 1
  while (n >= 0x80) {
    n = Math.floor(n / 128)
    bytes++
  }
  return bytes
}

/** Writes n as a varint at `at`; returns where it ends. */
export function writeVarint(to: Uint8Array, at: number, n: number): number {
  while (n >= 0x80) {
    to[at++] = (n & 0x7f) | 0x80
    n = Math.floor(n / 128)
  }
  to[at++] = n
  return at
}

/**
 * [value, bytes used], or null when the buffer ends inside the varint. Lengths fit in 32 bits.
 * A running multiplier, not 2 ** shift: V8 calls its pow() for a variable exponent.
 */
export function readVarint(buf: Uint8Array, offset: number): [number, number] | null {
  let value = 0
  let scale = 1
  for (let i = offset; i < buf.length; i++) {
    const b = buf[i]!
    if (scale === 0x10000000 && b > 0x0f) throw new MalformedFrameError('frame length prefix exceeds 32 bits')
    value += (b & 0x7f) * scale
    if (b < 0x80) return [value, i - offset + 1]
    scale *= 128
  }
  return null
}
