import { WaitQueue } from './wait-queue'
import { createServer, type Server, type Socket } from 'node:net'
import { createServer as createTlsServer, type Server as TlsServer, type TlsOptions } from 'node:tls'
import { chmodSync, rmSync } from 'node:fs'
import type { Endpoint } from '../../common/protocol/endpoint'

/** The server's TLS options; with CAs, only a gateway whose certificate they sign gets past the handshake. */
function secureOptions(tls: TlsServerOptions): TlsOptions {
  return {
    cert: tls.cert,
    key: tls.key,
    minVersion: 'TLSv1.2',
    ...(tls.ca !== null ? { ca: tls.ca, requestCert: true, rejectUnauthorized: true } : {})
  }
}

/** The internal protocol over TLS (`--listen tls:HOST:PORT`): PEM text of the host's pair, and the gateways' CAs. */
export interface TlsServerOptions {
  cert: string
  key: string
  /** The CAs that sign the gateways' certificates: with them, a gateway must present one (mutual TLS). */
  ca: string | null
}
import { nonce, gatewayProof, microserviceProof, sameProof } from '../../common/protocol/handshake'
import type { AddressInfo } from 'node:net'
import { FramedSocket } from '../../common/protocol/framed-socket'
import { errorMessage } from '../../common/errors/internal'
import { LARGE_FRAME_BYTES, PROTOCOL_VERSION, type Frame } from '../../common/protocol/frame'
import { encodeResultFrame } from '../../common/protocol/result-frame'
import { gateway } from '../../common/protocol/generated/gateway'
import type { MethodDefinition, MicroserviceDefinition } from '../sdk/define'
import { toCatalog } from './service-index'
import type { RuntimeSettings } from './settings'
import type { ApplicationType } from './package-config'
import { Executor, fail } from './executor'
import { MethodPool } from './method-pool'
import { DeadlineList, type Deadline } from '../../common/contract/deadlines'
import { SharedBufferPool } from '../../common/bytes/shared-buffers'
import { CallTable } from '../../common/protocol/call-table'

export interface RuntimeOptions {
  name: string
  version: string
  /** Sent in the catalog: a servletApp is deployed and run, but the gateway does not expose it. */
  applicationType?: ApplicationType
  settings: RuntimeSettings
  /** Names the default permission resolver grants. */
  privilegedNames: readonly string[]
  /** A shared secret: every connection must prove it knows it before anything else (handshake.ts). */
  secret?: string | null
  /** Where refusals are reported (a stranger that connects without the secret). */
  log?: (line: string) => void
  /**
   * The microservice's directory, for the method pool's workers to load its code from; without it
   * every call runs on the main thread.
   */
  dir?: string
}

/** One call being executed; kept per connection by id so a Cancel can find it. */
class Execution implements Deadline {
  /** Holds an execution slot, under `limit` in a deadline list (not while it waits for a slot). */
  started = false
  limit = 0
  deadlineAt = 0
  deadlinePrev: Deadline | null = null
  deadlineNext: Deadline | null = null
  done = false
  /** In the queue for an execution slot. */
  queued = false
  /**
   * For a call on the method pool: aborted only when the call passes its executing timeout, which
   * terminates the worker thread (the one way to stop synchronous code). A cancel lets the task
   * finish and drops its result: terminating a thread per client that went away would make every
   * abort cost a worker start-up (loading the microservice's code) for the calls behind it.
   */
  stopWorker: AbortController | null = null
  /** Made on first use of ctx.signal: most methods never look, and one per call showed in GC time. */
  private controller: AbortController | null = null
  private abortReason: Error | null = null
  constructor(
    readonly conn: RuntimeConnection,
    readonly invoke: gateway.Invoke,
    private readonly server: MicroserviceServer
  ) {}

  onDeadline(): void {
    this.server.timeout(this, this.limit)
  }

  get signal(): AbortSignal {
    if (this.controller === null) {
      this.controller = new AbortController()
      if (this.abortReason !== null) this.controller.abort(this.abortReason)
    }
    return this.controller.signal
  }

  abort(reason: Error): void {
    if (this.abortReason !== null) return
    this.abortReason = reason
    this.controller?.abort(reason)
  }
}

/** Waits for `p`, at most `ms`. */
async function within(p: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  await Promise.race([p, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))])
  clearTimeout(timer)
}

class RuntimeConnection {
  readonly framed: FramedSocket
  readonly executions = new CallTable<Execution>()
  /** Set while the connection has not proved it knows the secret: the challenge's nonce. */
  challenge: Uint8Array | null = null
  /** Refused (no proof of the secret, or another protocol version): nothing more it sends is read. */
  refused = false
  private authTimer: NodeJS.Timeout | null = null
  constructor(
    readonly socket: Socket,
    readonly server: MicroserviceServer
  ) {
    this.framed = new FramedSocket(
      socket,
      {
        onFrame: (f) => server.onFrame(this, f),
        onClose: () => server.onConnectionClosed(this)
      },
      server.options.settings.maxFrameBytes,
      'tick',
      server.largeFrames
    )
    // readTimeout: an idle connection is closed; the gateway's pings keep a live one busy.
    if (server.options.settings.readTimeout > 0) {
      socket.setTimeout(server.options.settings.readTimeout, () => this.framed.destroy())
    }
    if (server.options.secret != null) {
      this.challenge = nonce()
      this.framed.send({ challenge: { nonce: this.challenge } })
      this.authTimer = setTimeout(() => server.refuse(this, 'no authenticated Hello within 5 s'), 5000)
      this.authTimer.unref()
    }
  }

  authenticated(): void {
    this.challenge = null
    if (this.authTimer !== null) clearTimeout(this.authTimer)
    this.authTimer = null
  }
}

/** The TCP server of a microservice: handshake, remotely-enabled check, execution, cancel, ping. */
export class MicroserviceServer {
  private readonly executor: Executor
  /** Worker threads for methods declared execution 'worker' and for large arguments (created on first use). */
  private readonly pool: MethodPool | null
  private readonly connections = new Set<RuntimeConnection>()
  private readonly waiting = new WaitQueue<Execution>()
  /** Set while startWaiting runs: a call that ends inside it leaves the next ones to that loop. */
  private startingWaiting = false
  private running = 0
  /**
   * The executing deadlines, one list per limit: a call's limit is the lesser of the gateway's and
   * threadExecutingTimeOut, the same for nearly every call, so each list expires in the order it was
   * filled (no setTimeout and clearTimeout per call, which showed in small calls' profiles).
   */
  private readonly deadlines = new Map<number, DeadlineList>()
  /**
   * Large Invoke frames are joined in these shared buffers, which the method pool's workers read in
   * place; a buffer is used again when its call completed (not when it was cancelled or timed out:
   * a worker may still be reading it then, and the collector takes it instead). Why: 1 MB buffers
   * made and moved per call started full collections on the main thread (see SharedBufferPool).
   */
  readonly largeFrames = new SharedBufferPool(LARGE_FRAME_BYTES, 64 * 1024 * 1024)
  private server: Server | null = null
  /** The user availability flag reported in every Pong. */
  available = true
  /** Stopping: pongs say unavailable, so a gateway that missed the GoAway sends nothing new either. */
  private draining = false
  /** Counters for diagnostics and tests. */
  readonly stats = { executed: 0, cancelled: 0, timedOut: 0, refused: 0 }

  constructor(
    readonly definition: MicroserviceDefinition,
    readonly options: RuntimeOptions
  ) {
    this.executor = new Executor(definition, {
      name: options.name,
      settings: options.settings,
      privilegedNames: options.privilegedNames,
      stats: this.stats
    })
    this.pool =
      options.dir === undefined
        ? null
        : new MethodPool({ dir: options.dir, settings: options.settings, privilegedNames: options.privilegedNames })
  }

  /**
   * Listens on a Unix socket (made readable and writable by its owner only) or a TCP address;
   * resolves with where it listens (the TCP port filled in).
   */
  listen(endpoint: Endpoint = { host: '127.0.0.1', port: 0 }, tls: TlsServerOptions | null = null): Promise<Endpoint> {
    return new Promise((resolve, reject) => {
      const accept = (socket: Socket): void => {
        const conn = new RuntimeConnection(socket, this)
        this.connections.add(conn)
      }
      const server: Server = tls === null ? createServer(accept) : createTlsServer(secureOptions(tls), accept)
      this.server = server
      server.once('error', reject)
      const backlog = this.options.settings.backlog > 0 ? this.options.settings.backlog : undefined
      if ('path' in endpoint) {
        rmSync(endpoint.path, { force: true })
        server.listen({ path: endpoint.path, backlog }, () => {
          chmodSync(endpoint.path, 0o600)
          resolve(endpoint)
        })
      } else {
        server.listen({ port: endpoint.port, host: endpoint.host, backlog }, () =>
          resolve({ host: endpoint.host, port: (server.address() as AddressInfo).port })
        )
      }
    })
  }

  /** Renewed TLS files: new connections get them, open ones keep theirs (listen with `tls` first). */
  renewTls(tls: TlsServerOptions): void {
    // setSecureContext sets requestCert and rejectUnauthorized again from what it is given: without
    // them here, a renewal would stop asking gateways for a certificate (tested).
    ;(this.server as TlsServer | null)?.setSecureContext(secureOptions(tls))
  }

  /**
   * When calls may go to the method pool (a method declared 'worker', or workerMinArgumentBytes set),
   * a worker is started and has loaded the code before the microservice serves.
   */
  async warmUp(): Promise<void> {
    if (this.pool === null) return
    if (this.options.settings.workerMinArgumentBytes > 0) return this.pool.warm()
    for (const svc of this.executor.services.values())
      for (const m of svc.methods.values()) if (m.execution === 'worker') return this.pool.warm()
  }

  /**
   * Stops. With `drainMs`, gracefully: no new connections, a GoAway on every connection (the gateway
   * sends no more calls there and closes it once its calls are answered), and calls that crossed the
   * GoAway still run; connections still open after `drainMs` are closed. Without, at once.
   */
  async close(drainMs = 0): Promise<void> {
    this.draining = true
    const closed = new Promise<void>((resolve) =>
      this.server === null ? resolve() : this.server.close(() => resolve())
    )
    if (drainMs > 0 && this.connections.size > 0) {
      for (const c of this.connections)
        if (c.challenge === null) c.framed.send({ goAway: { reason: 'the microservice is stopping' } })
        else c.framed.destroy()
      await within(closed, drainMs)
    }
    // What is written is flushed; a peer that does not close its end within a second is cut off.
    for (const c of this.connections) c.framed.end()
    await within(closed, 1000)
    for (const c of this.connections) c.framed.destroy()
    await closed
    await this.pool?.close()
  }

  /** @internal */
  onConnectionClosed(conn: RuntimeConnection): void {
    this.connections.delete(conn)
    // Nobody is left to answer: abort what this connection asked for.
    for (const ex of conn.executions.values()) this.abandon(ex)
  }

  /**
   * What this microservice tells a gateway in the handshake (sent again on each Hello). A gateway of
   * another protocol version gets it too (it names this side's version, so the gateway can say what
   * differs), and then the connection closes: neither side guesses at the other's frames.
   */
  private catalog(): gateway.ICatalog {
    return {
      ...toCatalog(this.options.name, this.options.version, this.executor.services, this.available),
      applicationType: this.options.applicationType ?? 'nativeApp',
      protocolVersion: PROTOCOL_VERSION
    }
  }

  private checkVersion(conn: RuntimeConnection, hello: gateway.Hello): void {
    if (hello.protocolVersion !== PROTOCOL_VERSION)
      this.refuse(
        conn,
        `the gateway speaks internal protocol version ${hello.protocolVersion}, this microservice ${PROTOCOL_VERSION}; run one release on both sides`,
        true
      )
  }

  /**
   * @internal a connection that did not authenticate (or speaks another protocol version) is reported
   * and nothing more it sends is read; `flush` ends it after what was already sent to it.
   */
  refuse(conn: RuntimeConnection, why: string, flush = false): void {
    const peer = conn.socket.remoteAddress ?? 'a local socket'
    ;(this.options.log ?? console.error)(`refused a connection from ${peer}: ${why}`)
    this.stats.refused++
    conn.refused = true
    if (flush) conn.framed.end()
    else conn.framed.destroy()
  }

  /** @internal */
  onFrame(conn: RuntimeConnection, frame: Frame): void {
    if (conn.refused) return
    if (conn.challenge !== null) {
      // Before it proves the secret, a connection may say Hello and nothing else.
      const hello = frame.hello as gateway.Hello | null | undefined
      if (frame.body !== 'hello' || hello == null)
        return this.refuse(conn, `'${String(frame.body)}' before authenticating`)
      const expected = gatewayProof(this.options.secret!, conn.challenge, hello.nonce)
      if (!sameProof(expected, hello.proof)) return this.refuse(conn, 'the Hello does not prove the shared secret')
      const serverNonce = conn.challenge
      conn.authenticated()
      conn.framed.send({
        catalog: {
          ...this.catalog(),
          proof: microserviceProof(this.options.secret!, serverNonce, hello.nonce)
        }
      })
      return this.checkVersion(conn, hello)
    }
    switch (frame.body) {
      case 'invoke':
        this.onInvoke(conn, frame.invoke as gateway.Invoke)
        break
      case 'cancel': {
        const ex = conn.executions.get((frame.cancel as gateway.Cancel).id)
        if (ex !== undefined) {
          this.stats.cancelled++
          this.abandon(ex)
        }
        break
      }
      case 'ping':
        conn.framed.send({ pong: { id: frame.ping!.id, available: this.available && !this.draining } })
        break
      case 'hello':
        conn.framed.send({
          catalog: this.catalog()
        })
        this.checkVersion(conn, frame.hello as gateway.Hello)
        break
      default:
        conn.framed.destroy(new Error(`unexpected frame '${String(frame.body)}' from the gateway`))
    }
  }

  private onInvoke(conn: RuntimeConnection, inv: gateway.Invoke): void {
    const ex = new Execution(conn, inv, this)
    conn.executions.set(inv.id, ex)
    if (this.running < this.options.settings.threadPoolSize) {
      this.start(ex)
    } else if (this.waiting.size < this.options.settings.queueLimit) {
      ex.queued = true
      this.waiting.push(ex)
    } else {
      this.reply(
        ex,
        fail(
          'OVERLOADED',
          `all ${this.options.settings.threadPoolSize} execution slots are busy and ${this.waiting.size} calls wait`
        )
      )
    }
  }

  private start(ex: Execution): void {
    this.running++
    const settings = this.options.settings
    const limit =
      ex.invoke.timeoutMs > 0
        ? Math.min(ex.invoke.timeoutMs, settings.threadExecutingTimeOut)
        : settings.threadExecutingTimeOut
    ex.started = true
    ex.limit = limit
    this.deadlinesOf(limit).add(ex)
    const inv = ex.invoke
    const m = this.pool === null ? undefined : this.executor.method(inv.service, inv.method)
    if (m !== undefined && this.offloads(m, inv)) {
      // On a worker: passing the executing timeout terminates the thread, so even a method stuck in
      // synchronous code is stopped (see Execution.stopWorker for cancels).
      ex.stopWorker = new AbortController()
      this.pool!.run(inv, ex.stopWorker.signal).then(
        (r) => {
          if (r.ran) this.stats.executed++
          // The worker finished with the arguments (a cancelled or timed-out one is terminated: no release).
          this.releaseFrame(inv)
          this.reply(ex, r.result)
        },
        (err: unknown) => this.reply(ex, fail('INTERNAL', `the method pool failed: ${errorMessage(err)}`))
      )
      return
    }
    const result = this.executor.execute(inv, ex)
    if (result instanceof Promise) void result.then((r) => this.completed(ex, r))
    else this.completed(ex, result)
  }

  private completed(ex: Execution, result: gateway.IResult): void {
    // Read into values before the method ran: its frame is no longer needed, whatever happened since.
    this.releaseFrame(ex.invoke)
    this.reply(ex, result)
  }

  /** Gives a large frame's shared buffer back to the pool (the arguments are views into it). */
  private releaseFrame(inv: gateway.Invoke): void {
    const first = inv.arguments[0]
    if (first !== undefined) this.largeFrames.release(first)
  }

  /** Whether a call runs on the method pool: the method says so, or its arguments pass the size line. */
  private offloads(m: MethodDefinition, inv: gateway.Invoke): boolean {
    if (m.execution === 'worker') return true
    if (m.execution === 'inline') return false
    const line = this.options.settings.workerMinArgumentBytes
    if (line <= 0) return false
    let bytes = 0
    for (const a of inv.arguments) bytes += a.length
    return bytes >= line
  }

  /** @internal */
  timeout(ex: Execution, limit: number): void {
    if (ex.done) return
    this.stats.timedOut++
    ex.abort(new Error('executing timeout'))
    ex.stopWorker?.abort(new Error('executing timeout'))
    this.reply(ex, fail('EXECUTION_TIMEOUT', `the method ran longer than the executing timeout of ${limit} ms`))
  }

  private abandon(ex: Execution): void {
    if (ex.done) return
    ex.abort(new Error('cancelled'))
    this.finish(ex)
    this.startWaiting()
  }

  private finish(ex: Execution): void {
    ex.done = true
    ex.conn.executions.delete(ex.invoke.id)
    if (ex.started) {
      ex.started = false
      this.deadlinesOf(ex.limit).remove(ex)
      this.running--
    } else if (ex.queued) {
      ex.queued = false
      this.waiting.left()
    }
  }

  /**
   * Starts waiting calls while slots are free. A loop, not a call per finished call: a call that
   * answers at once finishes inside start(), and starting the next from there nested one level per
   * waiting call (10,000 by default): the stack overflowed.
   */
  private startWaiting(): void {
    if (this.startingWaiting) return
    this.startingWaiting = true
    try {
      while (this.running < this.options.settings.threadPoolSize && this.waiting.size > 0) {
        const next = this.waiting.shift()!
        next.queued = false
        this.start(next)
      }
    } finally {
      this.startingWaiting = false
    }
  }

  /** Calls waiting for an execution slot. */
  get waitingCalls(): number {
    return this.waiting.size
  }

  private deadlinesOf(limit: number): DeadlineList {
    let list = this.deadlines.get(limit)
    if (list === undefined) {
      list = new DeadlineList(limit)
      this.deadlines.set(limit, list)
    }
    return list
  }

  private reply(ex: Execution, result: gateway.IResult): void {
    if (ex.done) return
    this.finish(ex)
    result.id = ex.invoke.id
    ex.conn.framed.sendBytes(encodeResultFrame(result))
    // After its answer: the calls its slot starts may answer at once.
    this.startWaiting()
  }
}
