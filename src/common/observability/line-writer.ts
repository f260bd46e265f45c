import { write, writeSync } from 'node:fs'

/** Where whole lines go (each ends with '\n'). */
export interface LineSink {
  write(line: string): void
}

/**
 * A sink that also takes a line as bytes written in place: `room(n)` gives the buffer with at least
 * `n` free bytes from `offset` (null: the line is dropped), the writer encodes there, `commit(end)`.
 */
export interface ByteLineSink extends LineSink {
  room(n: number): Buffer | null
  readonly offset: number
  commit(end: number): void
}

const CHUNK_BYTES = 64 * 1024

/**
 * Where a writer's chunks go other than a file descriptor: a listener thread hands each chunk of
 * whole lines to the main thread, whose one writer appends it (BatchedLineWriter.append), so lines
 * of several threads are never torn or interleaved on stdout.
 */
export type ChunkOutput = (chunk: Buffer) => void

/**
 * Lines encoded into 64 KiB buffers, each written with one asynchronous write when full or after
 * `delayMs` (50 by default), whichever comes first. A line appended to a pending string is paid for again
 * when the long rope is encoded; written as bytes in place (`room`/`commit`, used by the access
 * log) no string is made. sonic-boom (under pino) and a write per event-loop turn (a threadpool
 * round trip for two or three lines) cost more per line (docs/performance.md).
 *
 * Never blocks: while a write is in progress full buffers queue; past `maxBufferedBytes` lines are
 * dropped and counted (a stuck consumer must not grow the heap without bound). What is buffered is
 * written synchronously when the process exits.
 */
export class BatchedLineWriter implements ByteLineSink {
  private current = Buffer.allocUnsafe(CHUNK_BYTES)
  private used = 0
  /** Full buffers waiting for the write in progress. */
  private readonly queue: Buffer[] = []
  private queuedBytes = 0
  private writing = false
  /** Told once no write is in progress (whenIdle). */
  private idleWaiters: Array<() => void> = []
  /** @internal a timed flush is pending */
  scheduled = false
  /** Lines dropped because the consumer was too slow. */
  dropped = 0

  constructor(
    private readonly fd: number | ChunkOutput,
    private readonly delayMs = 50,
    private readonly maxBufferedBytes = 8 * 1024 * 1024
  ) {
    process.once('exit', () => this.flushSync())
  }

  get offset(): number {
    return this.used
  }

  room(n: number): Buffer | null {
    if (this.used + n <= CHUNK_BYTES) return this.current
    if (this.queuedBytes + this.used > this.maxBufferedBytes) {
      this.dropped++
      return null
    }
    this.seal()
    this.kick()
    // A line longer than a buffer gets a buffer of its own.
    if (n > CHUNK_BYTES) this.current = Buffer.allocUnsafe(n)
    return this.current
  }

  commit(end: number): void {
    this.used = end
    if (!this.scheduled && !this.writing) {
      this.scheduled = true
      setTimeout(flush, this.delayMs, this).unref()
    }
  }

  write(line: string): void {
    // A UTF-16 unit is at most 3 UTF-8 bytes.
    const b = this.room(line.length * 3)
    if (b !== null) this.commit(this.used + b.write(line, this.used))
  }

  /** A line that should not wait for the timer (a platform event): written now, after what is buffered. */
  writeNow(line: string): void {
    this.write(line)
    this.flushAsync()
  }

  /**
   * Resolves once no asynchronous write is in progress: after it, flushSync writes every line in
   * order (a write in progress is left to finish on its own, and its chunk's lines come before).
   */
  whenIdle(): Promise<void> {
    if (!this.writing) return Promise.resolve()
    return new Promise((resolve) => this.idleWaiters.push(resolve))
  }

  /** A chunk of whole lines made elsewhere (a listener thread's), written after what is buffered here. */
  append(chunk: Buffer): void {
    if (chunk.length === 0) return
    if (this.queuedBytes + chunk.length > this.maxBufferedBytes) {
      this.dropped++
      return
    }
    this.seal()
    this.queue.push(chunk)
    this.queuedBytes += chunk.length
    this.kick()
  }

  /** Writes what is buffered now, blocking (at exit, and when a test wants the lines). */
  flushSync(): void {
    // Even with an asynchronous write in progress: each chunk holds whole lines, and at exit the
    // write in progress may never finish.
    this.seal()
    const fd = this.fd
    if (typeof fd === 'function') {
      for (const chunk of this.queue.splice(0)) fd(chunk)
      this.queuedBytes = 0
      return
    }
    for (const chunk of this.queue.splice(0)) {
      for (let offset = 0, tries = 0; offset < chunk.length && tries < 1000; tries++) {
        try {
          offset += writeSync(fd, chunk, offset)
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') return
        }
      }
    }
    this.queuedBytes = 0
  }

  /** @internal the timer's flush: seals what there is and writes. */
  flushAsync(): void {
    this.seal()
    this.kick()
  }

  private seal(): void {
    if (this.used === 0) return
    const chunk = this.current.subarray(0, this.used)
    this.queue.push(chunk)
    this.queuedBytes += chunk.length
    this.current = Buffer.allocUnsafe(CHUNK_BYTES)
    this.used = 0
  }

  private kick(): void {
    if (this.writing) return
    const chunk = this.queue.shift()
    if (chunk === undefined) return
    this.queuedBytes -= chunk.length
    this.writing = true
    this.writeChunk(chunk, 0)
  }

  private tellIdle(): void {
    if (this.writing || this.idleWaiters.length === 0) return
    for (const resolve of this.idleWaiters.splice(0)) resolve()
  }

  private writeChunk(chunk: Buffer, offset: number): void {
    const fd = this.fd
    if (typeof fd === 'function') {
      // Handed over at once: the receiver owns the chunk (it is transferred, not copied).
      fd(chunk)
      this.writing = false
      this.kick()
      return this.tellIdle()
    }
    write(fd, chunk, offset, chunk.length - offset, null, (err, n) => {
      if (err !== null) {
        // A non-blocking pipe that is full: try again shortly. Anything else: the lines are lost,
        // the gateway keeps serving.
        if (err.code === 'EAGAIN') return void setTimeout(() => this.writeChunk(chunk, offset), 10)
        this.writing = false
        this.kick()
        return this.tellIdle()
      }
      if (offset + n < chunk.length) return this.writeChunk(chunk, offset + n)
      this.writing = false
      this.kick()
      this.tellIdle()
      // Lines that came while writing and fill no buffer: on the timer, as any others.
      if (!this.writing && this.used > 0 && !this.scheduled) {
        this.scheduled = true
        setTimeout(flush, this.delayMs, this).unref()
      }
    })
  }
}

let stdoutWriter: BatchedLineWriter | null = null

/**
 * The process's one writer to stdout. Everything written to fd 1 goes through it: a second writer
 * (pino's own destination, say) could land a line inside one of these 64 KiB writes, which a pipe
 * does not keep whole when it fills up.
 */
export function stdoutLines(): BatchedLineWriter {
  return (stdoutWriter ??= new BatchedLineWriter(1))
}

function flush(w: BatchedLineWriter): void {
  w.scheduled = false
  w.flushAsync()
}

/** Any LineSink taking lines as bytes: each line encoded in a scratch buffer, then decoded for it. */
export class LinesAsBytes implements ByteLineSink {
  private scratch = Buffer.allocUnsafe(4096)
  readonly offset = 0

  constructor(private readonly sink: LineSink) {}

  room(n: number): Buffer {
    if (n > this.scratch.length) this.scratch = Buffer.allocUnsafe(n)
    return this.scratch
  }

  commit(end: number): void {
    this.sink.write(this.scratch.toString('utf8', 0, end))
  }

  write(line: string): void {
    this.sink.write(line)
  }
}
