import type { Socket } from 'node:net'
import { FrameReader, dropFrame, type Frame, type FrameInit, type OutFrame, encodeFrame } from './frame'
import { DEFAULT_MAX_FRAME_BYTES } from '../contract/limits'
import type { SharedBufferPool } from '../bytes/shared-buffers'
import { InternalError, errorMessage } from '../errors/internal'
import type { ReadSlab } from './read-slab'

export interface FramedSocketEvents {
  onFrame(frame: Frame): void
  /** Called once, whatever closed the socket; `error` is the protocol or socket error if any. */
  onClose(error: Error | null): void
}

/**
 * When corked writes are flushed. 'tick': after the current callback (process.nextTick). 'poll':
 * after every callback of this event-loop turn (setImmediate). The gateway needs 'poll': uWS calls
 * into JS once per HTTP request and Node drains the nextTick queue after each of those calls, so
 * with 'tick' every request cost its own write system call.
 */
export type Coalescing = 'tick' | 'poll'

/**
 * One end of the internal protocol over a TCP socket, used by both the gateway and the runtime.
 * Writes are coalesced: the socket is corked on the first write and uncorked later (see
 * Coalescing), so a burst of frames leaves in one writev.
 */
export class FramedSocket {
  private readonly reader: FrameReader
  private corked = false
  private closed = false

  constructor(
    readonly socket: Socket,
    private readonly events: FramedSocketEvents,
    maxFrameBytes = DEFAULT_MAX_FRAME_BYTES,
    private readonly coalescing: Coalescing = 'tick',
    largeFrames: SharedBufferPool | null = null,
    /** The slab a client socket was connected to read into (its `onread`), or null: it emits 'data'. */
    reads: ReadSlab | null = null
  ) {
    this.reader = new FrameReader((f) => this.events.onFrame(f), maxFrameBytes, largeFrames)
    socket.setNoDelay(true)
    const onChunk = (chunk: Buffer): void => {
      try {
        this.reader.push(chunk)
      } catch (err) {
        // Only this program's code runs here, and it throws Errors: anything else is a bug.
        this.destroy(err instanceof Error ? err : new InternalError('IGW_ASSERTION', errorMessage(err)))
      }
    }
    if (reads !== null) reads.to(onChunk)
    else socket.on('data', onChunk)
    socket.on('error', (err) => this.finish(err))
    socket.on('close', () => this.finish(null))
  }

  get isOpen(): boolean {
    return !this.closed && !this.socket.destroyed
  }

  /** Sends an already encoded frame (varint length + message), whole or in pieces. */
  sendBytes(bytes: OutFrame): boolean {
    if (!this.isOpen) {
      dropFrame(bytes)
      return false
    }
    if (!this.corked) {
      this.corked = true
      this.socket.cork()
      if (this.coalescing === 'tick') process.nextTick(uncork, this)
      else setImmediate(uncork, this)
    }
    if (bytes instanceof Uint8Array) this.socket.write(bytes)
    else {
      const last = bytes.length - 1
      for (let k = 0; k < last; k++) this.socket.write(bytes[k]!)
      // Called once the pieces are flushed, or with an error if the socket is destroyed first.
      const written = bytes.onWritten
      if (last >= 0) this.socket.write(bytes[last]!, written === undefined ? undefined : () => written())
      else written?.()
    }
    return true
  }

  send(frame: FrameInit): boolean {
    return this.sendBytes(encodeFrame(frame))
  }

  destroy(error: Error | null = null): void {
    if (!this.socket.destroyed) this.socket.destroy()
    this.finish(error)
  }

  /** Ends the socket after pending writes are flushed. */
  end(): void {
    if (this.corked) {
      this.corked = false
      this.socket.uncork()
    }
    this.socket.end()
  }

  private finish(error: Error | null): void {
    if (this.closed) return
    this.closed = true
    this.events.onClose(error)
  }

  /** @internal */
  flush(): void {
    if (!this.corked) return
    this.corked = false
    this.socket.uncork()
  }
}

function uncork(s: FramedSocket): void {
  s.flush()
}
