import { connect, type Socket } from 'node:net'
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls'
import { LatencyHistogram } from './histogram'
import { dechunk, frame, INCOMPLETE, MALFORMED, UNTIL_CLOSE } from './response-framing'

/** What to send: one request, built once, sent as it is on every call. */
export interface LoadTarget {
  readonly host: string
  readonly port: number
  readonly request: Buffer
  /** TLS on every connection (an https:// target): CAs, SNI, whether to verify; absent for plain HTTP. */
  readonly tls?: ConnectionOptions
}

export interface LoadOptions {
  readonly connections: number
  /** How long to send (ignored when `requests` is given). */
  readonly durationMs: number
  /** Stop after this many answers instead of after a duration. */
  readonly requests?: number
  /**
   * Open loop: this many requests a second in all, each timed from when it was due, not from when
   * a connection was free to send it (a stalled server cannot hide its stall by slowing the sender).
   */
  readonly rate?: number
  /** An answer slower than this counts as a timeout and its connection is replaced. */
  readonly timeoutMs: number
  /** Stop at the first refused connection, cut-off call or timeout (a probe that says whether anything answers). */
  readonly stopOnFailure?: boolean
  /** The body every 2xx answer must equal (the first answer of the run when null); undefined: no check. */
  expected?: Buffer | null
  readonly onProgress?: (p: Progress) => void
}

export interface Progress {
  elapsedMs: number
  totalMs: number | null
  done: number
  /** Answers a second over the last interval, and their p99. */
  rps: number
  p99Ms: number
}

export interface LoadResult {
  connections: number
  durationMs: number
  /** Answers received (any status). */
  answered: number
  histogram: LatencyHistogram
  statuses: Map<number, number>
  codes: Map<string, number>
  /** 2xx answers whose body differed from the expected one, and the first such body. */
  mismatched: number
  mismatchSample: string | null
  /** Connections refused or reset, and answers that did not come within timeoutMs. */
  transportErrors: number
  timeouts: number
  /** Open loop: requests that were due but never sent because no connection was free before the end. */
  unsent: number
  bytesSent: number
  bytesReceived: number
  /** The generator's own CPU time over the run's wall time (1 = one core busy all the time). */
  generatorCpu: number
  expected: Buffer | null
}

const HEAD_END = Buffer.from('\r\n\r\n')

/** Runs the load and resolves when the last answer is in (or timed out). */
export function runLoad(target: LoadTarget, opts: LoadOptions): Promise<LoadResult> {
  return new Load(target, opts).run()
}

class Load {
  private readonly result: LoadResult
  private readonly window = new LatencyHistogram()
  private readonly startMs = performance.now()
  private readonly conns: Connection[] = []
  private issued = 0
  /** Requests that ended: answered, timed out, or lost with their connection. */
  private completed = 0
  /** Open loop: calls due so far (the k-th at k / rate), and how many of them were sent. */
  private scheduled = 0
  private dueHead = 0
  private stopping = false
  private finish: (() => void) | null = null
  private readonly cpuStart = process.cpuUsage()

  constructor(
    private readonly target: LoadTarget,
    private readonly opts: LoadOptions
  ) {
    this.result = {
      connections: opts.connections,
      durationMs: 0,
      answered: 0,
      histogram: new LatencyHistogram(),
      statuses: new Map(),
      codes: new Map(),
      mismatched: 0,
      mismatchSample: null,
      transportErrors: 0,
      timeouts: 0,
      unsent: 0,
      bytesSent: 0,
      bytesReceived: 0,
      generatorCpu: 0,
      expected: opts.expected ?? null
    }
  }

  async run(): Promise<LoadResult> {
    const done = new Promise<void>((resolve) => (this.finish = resolve))
    let lastTick = 0
    let lastDone = 0
    const ticker = setInterval(
      () => {
        const now = this.elapsedNs()
        if (this.opts.rate !== undefined) this.schedule(now)
        // With a request count the duration is a cap: a target that stops answering ends the run.
        if (now >= this.opts.durationMs * 1e6) this.stop()
        for (const c of this.conns) c.checkTimeout(now)
        if (this.opts.onProgress !== undefined && now - lastTick >= 500e6) {
          const seconds = (now - lastTick) / 1e9
          this.opts.onProgress({
            elapsedMs: now / 1e6,
            totalMs: this.opts.requests === undefined ? this.opts.durationMs : null,
            done: this.result.answered,
            rps: (this.result.answered - lastDone) / seconds,
            p99Ms: this.window.quantileNs(0.99) / 1e6
          })
          this.window.clear()
          lastTick = now
          lastDone = this.result.answered
        }
      },
      this.opts.rate !== undefined ? 1 : 10
    )
    for (let k = 0; k < this.opts.connections; k++) this.conns.push(new Connection(this, k))
    for (const c of this.conns) c.open()
    await done
    clearInterval(ticker)
    this.result.durationMs = this.elapsedNs() / 1e6
    const cpu = process.cpuUsage(this.cpuStart)
    this.result.generatorCpu = (cpu.user + cpu.system) / 1000 / this.result.durationMs
    this.result.unsent = this.scheduled - this.dueHead
    for (const c of this.conns) c.close()
    return this.result
  }

  elapsedNs(): number {
    return (performance.now() - this.startMs) * 1e6
  }

  /** Open loop: every call due by now is owed; free connections take them in order. */
  private schedule(nowNs: number): void {
    if (this.stopping) return
    const rate = this.opts.rate!
    const total = Math.ceil((this.opts.durationMs / 1000) * rate)
    this.scheduled = Math.min(Math.floor((nowNs * rate) / 1e9) + 1, total)
    for (const c of this.conns) if (c.idle) c.next()
  }

  /** The next request a free connection sends: its intended start (ns since start), or null for none. */
  take(): number | null {
    if (this.stopping) return null
    if (this.opts.rate !== undefined)
      return this.dueHead < this.scheduled ? (this.dueHead++ * 1e9) / this.opts.rate : null
    if (this.opts.requests !== undefined && this.issued >= this.opts.requests) return null
    this.issued++
    return this.elapsedNs()
  }

  get request(): Buffer {
    return this.target.request
  }

  get timeoutMs(): number {
    return this.opts.timeoutMs
  }

  get address(): LoadTarget {
    return this.target
  }

  answered(status: number, body: Buffer, latencyNs: number, bytes: number): void {
    const r = this.result
    r.answered++
    r.bytesReceived += bytes
    r.histogram.record(latencyNs)
    this.window.record(latencyNs)
    r.statuses.set(status, (r.statuses.get(status) ?? 0) + 1)
    if (status >= 200 && status < 300) {
      if (this.opts.expected !== undefined) {
        if (r.expected === null) r.expected = Buffer.from(body)
        else if (!r.expected.equals(body)) {
          r.mismatched++
          r.mismatchSample ??= body.subarray(0, 300).toString()
        }
      }
    } else {
      const code = problemCode(body)
      if (code !== null) r.codes.set(code, (r.codes.get(code) ?? 0) + 1)
    }
    this.ended()
  }

  /** A request ended one way or another: with a count, the run ends when all of them have. */
  private ended(): void {
    this.completed++
    if (this.opts.requests !== undefined && this.completed >= this.opts.requests) this.stop()
  }

  sent(bytes: number): void {
    this.result.bytesSent += bytes
  }

  /** `inFlight`: a request was sent on it (a refused connection sent none). */
  failed(timeout: boolean, inFlight: boolean): void {
    if (timeout) this.result.timeouts++
    else this.result.transportErrors++
    if (inFlight) this.ended()
    if (this.opts.stopOnFailure === true) this.stop()
  }

  get isStopping(): boolean {
    return this.stopping
  }

  private stop(): void {
    this.stopping = true
    this.settleIfQuiet()
  }

  settleIfQuiet(): void {
    if (this.stopping && this.conns.every((c) => c.idle)) this.finish?.()
  }
}

/** The stable code of a problem answer, JSON or XML. */
function problemCode(body: Buffer): string | null {
  const text = body.subarray(0, 4096).toString()
  return (/"code"\s*:\s*"([A-Z0-9_]+)"/.exec(text) ?? /<code>([A-Z0-9_]+)<\/code>/.exec(text))?.[1] ?? null
}

/** One keep-alive connection: one request at a time, answers read with their Content-Length. */
class Connection {
  private socket: Socket | null = null
  idle = true
  private dueNs = 0
  private chunks: Buffer[] = []
  private buffered = 0
  /** Bytes the answer being read needs in all, once its head said (0 until then). */
  private needed = 0
  /** An answer whose body ends with the connection: where its head ends, and its status. */
  private untilClose: { head: number; status: number } | null = null
  /** When the request in flight was sent (ns since the start), for the timeout sweep. */
  private sentNs = 0
  private openedNs = 0
  private closed = false
  private connected = false

  constructor(
    private readonly load: Load,
    private readonly id: number
  ) {}

  open(): void {
    const { host, port, tls } = this.load.address
    // Answers are read into one buffer per connection (no allocation per read); data() copies only
    // an answer that arrives in pieces. A TLS socket delivers its decrypted bytes the same way.
    const options = {
      host,
      port,
      noDelay: true,
      onread: { buffer: this.readBuffer, callback: (n: number, buf: Uint8Array) => this.read(n, buf) }
    }
    const s = tls === undefined ? connect(options) : tlsConnect({ ...tls, ...options })
    this.socket = s
    this.openedNs = this.load.elapsedNs()
    s.on('error', () => {})
    s.on('close', () => this.lost(s))
    // Over TLS the first request waits for the handshake: sent before it, its latency would include it.
    s.on(tls === undefined ? 'connect' : 'secureConnect', () => {
      this.connected = true
      this.next()
    })
  }

  close(): void {
    this.closed = true
    this.socket?.destroy()
  }

  /** One sweep for every connection instead of a timer per request. */
  checkTimeout(nowNs: number): void {
    const limitNs = this.load.timeoutMs * 1e6
    if (!this.idle && nowNs - this.sentNs > limitNs) this.timedOut()
    // A connect (or a TLS handshake) that a silent address never completes fails as a refused one does.
    else if (this.socket !== null && !this.connected && nowNs - this.openedNs > limitNs) this.socket.destroy()
  }

  next(): void {
    if (!this.idle || this.socket === null || !this.connected) return
    const due = this.load.take()
    if (due === null) {
      this.load.settleIfQuiet()
      return
    }
    this.idle = false
    this.dueNs = due
    this.sentNs = this.load.elapsedNs()
    this.socket.write(this.load.request)
    this.load.sent(this.load.request.length)
  }

  private readonly readBuffer = Buffer.allocUnsafe(64 * 1024)

  private read(n: number, buf: Uint8Array): boolean {
    const view = (buf as Buffer).subarray(0, n)
    // The buffer is read into again: what must outlive this call is copied.
    this.data(this.chunks.length === 0 ? view : Buffer.from(view), view)
    return true
  }

  private data(d: Buffer, view: Buffer): void {
    this.chunks.push(d)
    this.buffered += d.length
    // A large answer arrives in many pieces: joined once, when all of it is there.
    if (this.buffered < this.needed) return
    let all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.buffered)
    for (;;) {
      const head = all.indexOf(HEAD_END)
      const f = head < 0 ? null : frame(all, head)
      if (f?.end === MALFORMED) {
        // Counted as a call cut off: nothing after it on this connection can be read.
        this.socket?.destroy()
        return
      }
      if (f === null || f.end === INCOMPLETE || f.end === UNTIL_CLOSE || all.length < f.end) {
        // Kept for the next read: it must not be the shared read buffer.
        if (all.buffer === view.buffer) all = Buffer.from(all)
        this.chunks = [all]
        this.buffered = all.length
        this.needed = f === null ? 0 : Math.max(f.end, 0)
        this.untilClose = f?.end === UNTIL_CLOSE ? { head, status: f.status } : null
        return
      }
      const body = f.chunked ? dechunk(all, head + 4, f.end) : all.subarray(head + 4, f.end)
      this.answer(f.status, body, f.end, f.closing)
      if (f.end === all.length) {
        this.chunks = []
        this.buffered = 0
        this.needed = 0
        return
      }
      all = all.subarray(f.end)
    }
  }

  private answer(status: number, body: Buffer, bytes: number, closing: boolean): void {
    this.load.answered(status, body, this.load.elapsedNs() - this.dueNs, bytes)
    this.idle = true
    if (closing) {
      this.socket?.destroy()
      return
    }
    this.next()
  }

  private timedOut(): void {
    this.load.failed(true, true)
    this.idle = true
    this.socket?.destroy()
  }

  private lost(s: Socket): void {
    if (this.socket !== s) return
    if (this.untilClose !== null && !this.idle) {
      // The close is the end of this answer's body, not a failure.
      const all = Buffer.concat(this.chunks, this.buffered)
      const { head, status } = this.untilClose
      this.untilClose = null
      this.answer(status, all.subarray(head + 4), all.length, true)
    }
    const refused = !this.connected && !this.closed
    if (refused) this.load.failed(false, false)
    this.connected = false
    const dropped = !this.idle
    if (dropped) {
      this.load.failed(false, true)
      this.idle = true
    }
    this.socket = null
    this.chunks = []
    this.buffered = 0
    this.needed = 0
    this.untilClose = null
    if (this.closed || this.load.isStopping) {
      this.load.settleIfQuiet()
      return
    }
    // A connection closed between calls is opened again at once; after a refusal or a call cut off,
    // after a pause, not in a tight loop.
    if (!refused && !dropped) {
      this.open()
      return
    }
    setTimeout(
      () => {
        if (!this.closed && !this.load.isStopping) this.open()
        else this.load.settleIfQuiet()
      },
      50 + (this.id % 10)
    )
  }
}
