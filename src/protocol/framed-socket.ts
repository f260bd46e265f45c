import type { Socket } from 'node:net'
import { FrameReader, type Frame, type FrameInit, encodeFrame, DEFAULT_MAX_FRAME_BYTES } from './frame'

export interface FramedSocketEvents {
  onFrame (frame: Frame): void
  /** Called once, whatever closed the socket; `error` is the protocol or socket error if any. */
  onClose (error: Error | null): void
}

/**
 * One end of the internal protocol over a TCP socket, used by both the gateway and the runtime.
 * Writes made in the same tick are coalesced: the socket is corked on the first write and
 * uncorked on the next tick, so a burst of frames leaves in one writev.
 */
export class FramedSocket {
  private readonly reader: FrameReader
  private corked = false
  private closed = false

  constructor (readonly socket: Socket, private readonly events: FramedSocketEvents, maxFrameBytes = DEFAULT_MAX_FRAME_BYTES) {
    this.reader = new FrameReader((f) => this.events.onFrame(f), maxFrameBytes)
    socket.setNoDelay(true)
    socket.on('data', (chunk: Buffer) => {
      try {
        this.reader.push(chunk)
      } catch (err) {
        this.destroy(err as Error)
      }
    })
    socket.on('error', (err) => this.finish(err))
    socket.on('close', () => this.finish(null))
  }

  get isOpen (): boolean { return !this.closed && !this.socket.destroyed }

  /** Sends an already encoded frame (varint length + message). */
  sendBytes (bytes: Uint8Array): boolean {
    if (!this.isOpen) return false
    if (!this.corked) {
      this.corked = true
      this.socket.cork()
      process.nextTick(uncork, this)
    }
    this.socket.write(bytes)
    return true
  }

  send (frame: FrameInit): boolean {
    return this.sendBytes(encodeFrame(frame))
  }

  destroy (error: Error | null = null): void {
    if (!this.socket.destroyed) this.socket.destroy()
    this.finish(error)
  }

  /** Ends the socket after pending writes are flushed. */
  end (): void {
    if (this.corked) { this.corked = false; this.socket.uncork() }
    this.socket.end()
  }

  private finish (error: Error | null): void {
    if (this.closed) return
    this.closed = true
    this.events.onClose(error)
  }

  /** @internal */
  flush (): void {
    if (!this.corked) return
    this.corked = false
    this.socket.uncork()
  }
}

function uncork (s: FramedSocket): void {
  s.flush()
}
