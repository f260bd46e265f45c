import { write, writeSync } from 'node:fs'

/** Where whole lines go (each ends with '\n'). */
export interface LineSink {
  write(line: string): void
}

/**
 * Lines batched into one asynchronous write per 64 KiB or per `delayMs` (50 ms), whichever comes
 * first. Measured on this machine
 * (300,000 lines of 330 bytes): sonic-boom, under pino, costs 2.9 µs a line asynchronously and
 * 1.3 µs synchronously; appending to a string and writing 64 KiB at a time, 0.11 µs. For a line per
 * request that is the difference between a few percent of the gateway's time and a third of it.
 *
 * Never blocks: while a write is in progress lines accumulate; past `maxBufferedBytes` they are
 * dropped and counted (a stuck consumer must not grow the heap without bound). What is buffered is
 * written synchronously when the process exits.
 */
export class BatchedLineWriter implements LineSink {
  private buffer = ''
  private writing = false
  /** @internal a timed flush is pending */
  scheduled = false
  /** Lines dropped because the consumer was too slow. */
  dropped = 0

  constructor(
    private readonly fd: number,
    private readonly delayMs = 50,
    private readonly maxBufferedBytes = 8 * 1024 * 1024
  ) {
    process.once('exit', () => this.flushSync())
  }

  write(line: string): void {
    if (this.buffer.length > this.maxBufferedBytes) {
      this.dropped++
      return
    }
    this.buffer += line
    if (this.writing) return
    // A write per event-loop turn measured 8 µs a request at 30,000 requests/s (a threadpool round
    // trip for two or three lines); a write per 64 KiB or 50 ms is a few hundred lines each.
    if (this.buffer.length >= FLUSH_BYTES) this.flushAsync()
    else if (!this.scheduled) {
      this.scheduled = true
      setTimeout(flush, this.delayMs, this).unref()
    }
  }

  /** Writes what is buffered now, blocking (at exit, and when a test wants the lines). */
  flushSync(): void {
    // Even with an asynchronous write in progress: both hold whole lines, and at exit it may never finish.
    if (this.buffer === '') return
    const chunk = this.buffer
    this.buffer = ''
    for (let offset = 0, tries = 0; offset < chunk.length && tries < 1000; tries++) {
      try {
        offset += writeSync(this.fd, chunk.slice(offset))
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') return
      }
    }
  }

  /** @internal */
  flushAsync(): void {
    if (this.writing || this.buffer === '') return
    const chunk = Buffer.from(this.buffer)
    this.buffer = ''
    this.writing = true
    this.writeChunk(chunk, 0)
  }

  private writeChunk(chunk: Buffer, offset: number): void {
    write(this.fd, chunk, offset, chunk.length - offset, null, (err, n) => {
      if (err !== null) {
        // A non-blocking pipe that is full: try again shortly. Anything else: the lines are lost,
        // the gateway keeps serving.
        if (err.code === 'EAGAIN') return void setTimeout(() => this.writeChunk(chunk, offset), 10)
        this.writing = false
        return
      }
      if (offset + n < chunk.length) return this.writeChunk(chunk, offset + n)
      this.writing = false
      if (this.buffer.length >= FLUSH_BYTES) this.flushAsync()
      else if (this.buffer !== '' && !this.scheduled) {
        this.scheduled = true
        setTimeout(flush, this.delayMs, this).unref()
      }
    })
  }
}

const FLUSH_BYTES = 64 * 1024

function flush(w: BatchedLineWriter): void {
  w.scheduled = false
  w.flushAsync()
}
