import type { EventLog } from '../../common/observability/log'
import { randomUUID } from 'node:crypto'
import type { gateway } from '../../common/protocol/generated/gateway'
import type { DispatchOptions } from '../../common/config/config'
import { BackendConnection, type ConnectionOwner } from './connection'
import { CatalogIndex } from './catalog'
import type { PendingCall } from './pending'
import { sameEndpoint, endpointText, type Endpoint } from '../../common/protocol/endpoint'
import { dropFrame, isLargeFrame, type OutFrame } from '../../common/protocol/frame'

export const GATEWAY_ID = randomUUID()

/** More than any connection's calls in flight: the lane (large or small frames) decides first. */
const LANE_PENALTY = 1e9

/**
 * The gateway's client of one instance of a microservice: a few persistent connections, the catalog
 * from the handshake, availability from pings, and reconnection with backoff. Whether it can take
 * calls is kept current as connections, pongs and checks arrive (`reason`), and every change is
 * reported to `onChange`, so the request path reads a field instead of recomputing it.
 */
export class InstanceClient implements ConnectionOwner {
  catalog: CatalogIndex | null = null
  /** An instance on another host (MICROSERVICES.remote), not a process of this platform. */
  remote = false
  /** Why the instance refused (or was refused at) the last handshake; null once one succeeds. */
  refusal: string | null = null
  /** Why the instance cannot take a call now, or null when it can. */
  reason: string | null
  private endpointNow: Endpoint | null = null
  /** On a listener thread: the main thread's verdict (why the instance cannot take calls, or null). */
  verdict: string | null = null
  /** Told when this client ejects the instance (a listener thread reports it to the main thread). */
  onEject: (() => void) | null = null
  private readonly slots: Array<BackendConnection | null>
  private readonly retry: Array<NodeJS.Timeout | null>
  private readonly attempts: number[]
  private userAvailable = true
  /** Why the instance said GoAway on a connection, until a connection is ready again. */
  private goneAway: string | null = null
  private pingId = 0
  /**
   * A time from the start (not 0): a field first holding a small integer and later Date.now()'s
   * double changes the object's map at the first ping, and V8 then throws away the optimized code
   * of every call's path that had seen the old one (send, pick, onAnyFrame), seconds into a load.
   */
  private pingSentAt = Date.now()
  private pingOutstanding = false
  private slowCheck = false
  /**
   * When a frame last arrived on any connection, or work was sent to an idle instance (ms since
   * epoch): the start of the silence outlier ejection measures.
   */
  private lastFrameAt = Date.now()
  /** No answer, not even to a ping, for ejectAfterMs with calls in flight: no new calls until it answers. */
  private ejected = false
  private readonly pingTimer: NodeJS.Timeout
  private readonly ejectTimer: NodeJS.Timeout
  private closed = false
  /** Who waits for the instance to have no call in flight (a replaced version before it stops). */
  private idleWaiters: Array<() => void> | null = null
  private lastError: string | null = null

  constructor(
    readonly name: string,
    private readonly options: DispatchOptions,
    private readonly onChange: (c: InstanceClient) => void,
    /** The shared secret of an instance reached over TCP (null: a local Unix socket, or none). */
    readonly secret: string | null = null,
    private readonly log: EventLog = console.error,
    /** The settings this instance has of its own (what a listener thread's copy is registered with). */
    readonly overrides: Partial<DispatchOptions> = {}
  ) {
    const n = Math.max(1, options.connectionsPerMicroservice)
    this.slots = new Array<BackendConnection | null>(n).fill(null)
    this.retry = new Array<NodeJS.Timeout | null>(n).fill(null)
    this.attempts = new Array<number>(n).fill(0)
    this.reason = this.computeReason()
    this.pingTimer = setInterval(() => this.check(), options.pingIntervalMs)
    this.pingTimer.unref()
    this.ejectTimer = setInterval(() => this.watch(), Math.max(5, Math.floor(options.ejectAfterMs / 4)))
    this.ejectTimer.unref()
  }

  get maxFrameBytes(): number {
    return this.options.maxFrameBytes
  }
  get connectTimeoutMs(): number {
    return this.options.connectTimeoutMs
  }

  /** Where the instance listens now; null while it has no process. */
  get endpoint(): Endpoint | null {
    return this.endpointNow
  }

  /** Where it is reached (unix:/path or host:port), '' while it has no endpoint. */
  get endpointText(): string {
    return this.endpointNow === null ? '' : endpointText(this.endpointNow)
  }

  /** Points the client at where the instance listens now (after a start or restart). */
  setEndpoint(endpoint: Endpoint): void {
    if (this.endpointNow !== null && sameEndpoint(this.endpointNow, endpoint)) return
    this.endpointNow = endpoint
    this.slowCheck = false
    this.pingOutstanding = false
    for (let k = 0; k < this.slots.length; k++) {
      this.slots[k]?.close()
      this.open(k)
    }
    this.refresh()
  }

  /** The instance's process is gone: stop reconnecting until a new endpoint is set. */
  clearEndpoint(): void {
    this.endpointNow = null
    for (let k = 0; k < this.slots.length; k++) {
      const r = this.retry[k]
      if (r != null) {
        clearTimeout(r)
        this.retry[k] = null
      }
      this.slots[k]?.close()
      this.slots[k] = null
    }
    this.refresh()
  }

  /**
   * The ready connection with the fewest calls in flight, keeping large frames and small ones apart
   * when there are several: a small call's frame sent behind a 1 MB one waits until the microservice
   * has read all of it, so small calls avoid a connection carrying a large call, and large calls
   * keep to the one that already does.
   */
  pick(large = false): BackendConnection | null {
    let best: BackendConnection | null = null
    let bestScore = Infinity
    for (const c of this.slots) {
      if (c === null || !c.ready) continue
      const apart = large === c.largeInflight > 0 ? 0 : LANE_PENALTY
      const score = apart + c.inflight.size
      if (score < bestScore) {
        best = c
        bestScore = score
      }
    }
    return best
  }

  /** Sends a call; settles it with MICROSERVICE_UNAVAILABLE when no connection is ready. */
  send(call: PendingCall, frame: OutFrame): void {
    const conn = this.pick(isLargeFrame(frame))
    if (conn === null) {
      dropFrame(frame)
      return call.settle({ code: 'MICROSERVICE_UNAVAILABLE', detail: `microservice '${this.name}' is not connected` })
    }
    this.givingWork()
    conn.send(call, frame)
  }

  /**
   * Silence counts from when an idle instance is given work (a call or a ping): after an idle minute
   * its last frame is a minute old, and a first call slower than a watch tick must not eject it.
   */
  private givingWork(): void {
    if (this.inflight === 0 && !this.pingOutstanding) this.lastFrameAt = Math.max(this.lastFrameAt, Date.now())
  }

  /** Connections that can take a call now. */
  get readyConnections(): number {
    let n = 0
    for (const c of this.slots) if (c !== null && c.ready) n++
    return n
  }

  get inflight(): number {
    let n = 0
    for (const c of this.slots) if (c !== null) n += c.inflight.size
    return n
  }

  /** Resolves once no call is in flight on the instance (at once when none is). */
  whenIdle(): Promise<void> {
    if (this.inflight === 0) return Promise.resolve()
    return new Promise((resolve) => (this.idleWaiters ??= []).push(resolve))
  }

  onIdle(): void {
    if (this.idleWaiters === null || this.inflight > 0) return
    const waiters = this.idleWaiters
    this.idleWaiters = null
    for (const w of waiters) w()
  }

  close(): void {
    this.closed = true
    clearInterval(this.pingTimer)
    clearInterval(this.ejectTimer)
    this.clearEndpoint()
  }

  onReady(conn: BackendConnection, catalog: gateway.Catalog): void {
    const k = this.slots.indexOf(conn)
    if (k >= 0) this.attempts[k] = 0
    this.lastError = null
    this.catalog = new CatalogIndex(catalog)
    this.userAvailable = catalog.available
    this.refusal = null
    this.goneAway = null
    this.refresh(true)
  }

  onRefused(conn: BackendConnection, why: string): void {
    this.refusal = why
    // A host that said GoAway and came back refusing us: the refusal is the news now.
    this.goneAway = null
    this.refresh()
    this.log(`dispatch: refused microservice '${this.name}' at ${endpointText(conn.endpoint)}: ${why}`, {
      event: 'refused',
      microservice: this.name,
      endpoint: endpointText(conn.endpoint)
    })
  }

  onGoAway(conn: BackendConnection, reason: string): void {
    if (this.goneAway === null)
      this.log(`dispatch: microservice '${this.name}' at ${endpointText(conn.endpoint)} is stopping: ${reason}`, {
        event: 'goaway',
        microservice: this.name,
        endpoint: endpointText(conn.endpoint)
      })
    this.goneAway = reason
    this.refresh()
  }

  onAnyFrame(): void {
    this.lastFrameAt = Date.now()
    if (this.ejected) {
      this.ejected = false
      this.refresh()
    }
  }

  onPong(_conn: BackendConnection, pong: gateway.Pong): void {
    if (pong.id !== this.pingId) return
    this.pingOutstanding = false
    this.slowCheck = Date.now() - this.pingSentAt > this.options.availabilityTimeoutMs
    this.userAvailable = pong.available
    this.refresh()
  }

  onClosed(conn: BackendConnection, error: Error | null = null): void {
    // Why the last connection ended, for the reason while none is up (a refused connection, a
    // handshake that never came); a connection that gets ready clears it.
    if (error !== null) this.lastError = error.message
    const k = this.slots.indexOf(conn)
    if (k < 0 || this.closed || this.endpointNow === null) return this.refresh()
    this.slots[k] = null
    // Back off: min, 2×min, 4×min ... up to max, with jitter so connections do not move in step.
    const attempt = this.attempts[k] ?? 0
    const delay =
      Math.min(this.options.reconnectMaxMs, this.options.reconnectMinMs * 2 ** attempt) * (0.5 + Math.random() / 2)
    this.attempts[k] = attempt + 1
    const timer = setTimeout(() => {
      this.retry[k] = null
      this.open(k)
    }, delay)
    timer.unref()
    this.retry[k] = timer
    this.refresh()
  }

  private open(k: number): void {
    if (this.endpointNow === null || this.closed) return
    const r = this.retry[k]
    if (r != null) {
      clearTimeout(r)
      this.retry[k] = null
    }
    this.slots[k] = new BackendConnection(this, this.endpointNow, GATEWAY_ID, this.secret)
  }

  private computeReason(): string | null {
    if (this.endpointNow === null) return `microservice '${this.name}' is not running`
    if (this.pick() === null)
      return this.goneAway !== null
        ? `microservice '${this.name}' is stopping (${this.goneAway})`
        : this.refusal === null
          ? `microservice '${this.name}' is not connected${this.lastError === null ? '' : ` (${this.lastError})`}`
          : `microservice '${this.name}' is not connected: the handshake was refused (${this.refusal})`
    if (this.verdict !== null) return this.verdict
    if (!this.userAvailable) return `microservice '${this.name}' reports itself unavailable`
    if (this.slowCheck)
      return `microservice '${this.name}' did not answer its availability check within ${this.options.availabilityTimeoutMs} ms`
    if (this.ejected)
      return `microservice '${this.name}' has answered nothing for ${this.options.ejectAfterMs} ms (outlier ejection)`
    return null
  }

  /** The main thread's verdict, on a listener thread's copy of the instance. */
  setVerdict(reason: string | null): void {
    if (reason === this.verdict) return
    this.verdict = reason
    this.refresh()
  }

  /**
   * Ejected on another thread's evidence: no new calls until a frame arrives here (this client's
   * pings go on, so it comes back once the instance answers again).
   */
  eject(by: string): void {
    if (this.ejected || this.endpointNow === null) return
    this.ejected = true
    this.lastFrameAt = Date.now()
    this.refresh()
    this.log(`dispatch: microservice '${this.name}' ejected by ${by}`, { event: 'ejected', microservice: this.name })
  }

  /** Recomputes `reason`; tells the group when it (or, on a handshake, the catalog) changed. */
  private refresh(catalogChanged = false): void {
    const reason = this.computeReason()
    if (reason === this.reason && !catalogChanged) return
    this.reason = reason
    this.onChange(this)
  }

  /**
   * Outlier ejection. With calls in flight and no frame for half the ejection time, ask with a ping
   * (a method that merely takes long does not stop its process from answering one); with no frame
   * for the whole ejection time, the instance gets no new calls, and the calls it holds are answered
   * 504 and cancelled (they may have run) instead of waiting for a process that may never answer.
   * The contract's availability verdict (docs/contract.md, Limits: 20 s, the user flag) is separate and unchanged.
   */
  private watch(): void {
    if (this.ejected || this.endpointNow === null) return
    const inflight = this.inflight
    if (inflight === 0 && !this.pingOutstanding) return
    const silent = Date.now() - this.lastFrameAt
    if (silent >= this.options.ejectAfterMs) {
      this.ejected = true
      this.refresh()
      this.onEject?.()
      const detail = `microservice '${this.name}' answered nothing, not even a ping, for ${silent} ms; the call was cancelled and may have run`
      for (const c of this.slots) c?.abandonAll({ code: 'EXECUTION_TIMEOUT', detail })
      return
    }
    if (silent >= this.options.ejectAfterMs / 2 && !this.pingOutstanding) {
      this.sendPing()
    }
  }

  /** One round of Pings on every ready connection; their Pongs are matched by id. */
  private sendPing(): void {
    this.givingWork()
    this.pingId = (this.pingId + 1) >>> 0
    this.pingSentAt = Date.now()
    this.pingOutstanding = true
    for (const c of this.slots) c?.ping(this.pingId)
  }

  /**
   * Availability check: one round of Pings in flight at a time; an unanswered round past the limit
   * counts as slow. Every ready connection is pinged, which also keeps idle ones inside the
   * microservice's readTimeout instead of letting it close them under us.
   */
  private check(): void {
    if (this.pingOutstanding) {
      if (Date.now() - this.pingSentAt > this.options.availabilityTimeoutMs) {
        this.slowCheck = true
        this.refresh()
      }
      return
    }
    if (this.pick() === null) return
    this.sendPing()
  }
}
