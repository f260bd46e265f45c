import { randomUUID } from 'node:crypto'
import type { gateway } from '../protocol/generated/gateway'
import type { Failure } from '../errors/codes'
import { BackendConnection, type ConnectionOwner } from './connection'
import { CatalogIndex } from './catalog'
import type { PendingCall } from './pending'

export interface DispatchOptions {
  /** Persistent connections kept to each microservice. */
  connectionsPerMicroservice: number
  connectTimeoutMs: number
  /** Availability check period. */
  pingIntervalMs: number
  /** A check answered slower than this (or not at all) makes the microservice unavailable (SPEC: 20000 ms). */
  availabilityTimeoutMs: number
  reconnectMinMs: number
  reconnectMaxMs: number
  maxFrameBytes: number
}

export const GATEWAY_ID = randomUUID()

/**
 * The gateway's client of one microservice: a few persistent connections, the catalog from the
 * handshake, availability from pings, and reconnection with backoff.
 */
export class MicroserviceClient implements ConnectionOwner {
  catalog: CatalogIndex | null = null
  private endpoint: { host: string, port: number } | null = null
  private slots: Array<BackendConnection | null>
  private readonly retry: Array<NodeJS.Timeout | null>
  private readonly attempts: number[]
  private userAvailable = true
  private pingId = 0
  private pingSentAt = 0
  private pingOutstanding = false
  private slowCheck = false
  private readonly pingTimer: NodeJS.Timeout
  private closed = false

  constructor (readonly name: string, private readonly options: DispatchOptions) {
    const n = Math.max(1, options.connectionsPerMicroservice)
    this.slots = new Array<BackendConnection | null>(n).fill(null)
    this.retry = new Array<NodeJS.Timeout | null>(n).fill(null)
    this.attempts = new Array<number>(n).fill(0)
    this.pingTimer = setInterval(() => this.check(), options.pingIntervalMs)
    this.pingTimer.unref()
  }

  get maxFrameBytes (): number { return this.options.maxFrameBytes }
  get connectTimeoutMs (): number { return this.options.connectTimeoutMs }

  /** Points the client at where the microservice listens now (after a start or restart). */
  setEndpoint (host: string, port: number): void {
    if (this.endpoint !== null && this.endpoint.host === host && this.endpoint.port === port) return
    this.endpoint = { host, port }
    this.slowCheck = false
    this.pingOutstanding = false
    for (let k = 0; k < this.slots.length; k++) {
      this.slots[k]?.close()
      this.open(k)
    }
  }

  /** The microservice process is gone: stop reconnecting until a new endpoint is set. */
  clearEndpoint (): void {
    this.endpoint = null
    for (let k = 0; k < this.slots.length; k++) {
      if (this.retry[k] !== null) { clearTimeout(this.retry[k]!); this.retry[k] = null }
      this.slots[k]?.close()
      this.slots[k] = null
    }
  }

  /** Why a call cannot be made now, or null when it can. */
  unavailableReason (): string | null {
    if (this.endpoint === null) return `microservice '${this.name}' is not running`
    if (this.pick() === null) return `microservice '${this.name}' is not connected`
    if (!this.userAvailable) return `microservice '${this.name}' reports itself unavailable`
    if (this.slowCheck) return `microservice '${this.name}' did not answer its availability check within ${this.options.availabilityTimeoutMs} ms`
    return null
  }

  /** The ready connection with the fewest calls in flight. */
  pick (): BackendConnection | null {
    let best: BackendConnection | null = null
    for (const c of this.slots) {
      if (c !== null && c.ready && (best === null || c.inflight.size < best.inflight.size)) best = c
    }
    return best
  }

  /** Sends a call; settles it with MICROSERVICE_UNAVAILABLE when no connection is ready. */
  send (call: PendingCall, frame: Uint8Array): void {
    const conn = this.pick()
    if (conn === null) {
      const failure: Failure = { code: 'MICROSERVICE_UNAVAILABLE', detail: `microservice '${this.name}' is not connected` }
      call.settle(null, failure)
      return
    }
    conn.send(call, frame)
  }

  get inflight (): number {
    let n = 0
    for (const c of this.slots) if (c !== null) n += c.inflight.size
    return n
  }

  close (): void {
    this.closed = true
    clearInterval(this.pingTimer)
    this.clearEndpoint()
  }

  onReady (conn: BackendConnection, catalog: gateway.Catalog): void {
    const k = this.slots.indexOf(conn)
    if (k >= 0) this.attempts[k] = 0
    this.catalog = new CatalogIndex(catalog)
    this.userAvailable = catalog.available
  }

  onPong (_conn: BackendConnection, pong: gateway.Pong): void {
    if (pong.id !== this.pingId) return
    this.pingOutstanding = false
    this.slowCheck = Date.now() - this.pingSentAt > this.options.availabilityTimeoutMs
    this.userAvailable = pong.available
  }

  onClosed (conn: BackendConnection): void {
    const k = this.slots.indexOf(conn)
    if (k < 0 || this.closed || this.endpoint === null) return
    this.slots[k] = null
    // Back off: min, 2×min, 4×min ... up to max, with jitter so connections do not move in step.
    const delay = Math.min(this.options.reconnectMaxMs, this.options.reconnectMinMs * 2 ** this.attempts[k]!) * (0.5 + Math.random() / 2)
    this.attempts[k]!++
    this.retry[k] = setTimeout(() => { this.retry[k] = null; this.open(k) }, delay)
    this.retry[k]!.unref()
  }

  private open (k: number): void {
    if (this.endpoint === null || this.closed) return
    if (this.retry[k] !== null) { clearTimeout(this.retry[k]!); this.retry[k] = null }
    this.slots[k] = new BackendConnection(this, this.endpoint.host, this.endpoint.port, GATEWAY_ID)
  }

  /**
   * Availability check: one round of Pings in flight at a time; an unanswered round past the limit
   * counts as slow. Every ready connection is pinged, which also keeps idle ones inside the
   * microservice's readTimeout instead of letting it close them under us.
   */
  private check (): void {
    if (this.pingOutstanding) {
      if (Date.now() - this.pingSentAt > this.options.availabilityTimeoutMs) this.slowCheck = true
      return
    }
    if (this.pick() === null) return
    this.pingId = (this.pingId + 1) >>> 0
    this.pingSentAt = Date.now()
    this.pingOutstanding = true
    for (const c of this.slots) c?.ping(this.pingId)
  }
}

/** All microservices the gateway can reach, by name. */
export class MicroserviceDirectory {
  private readonly clients = new Map<string, MicroserviceClient>()
  constructor (private readonly options: DispatchOptions) {}

  get (name: string): MicroserviceClient | undefined {
    return this.clients.get(name)
  }

  /** Registers (or moves) a microservice; the gateway connects and fetches its catalog. */
  register (name: string, host: string, port: number): MicroserviceClient {
    let client = this.clients.get(name)
    if (client === undefined) {
      client = new MicroserviceClient(name, this.options)
      this.clients.set(name, client)
    }
    client.setEndpoint(host, port)
    return client
  }

  /** The process is down (it may come back): calls get 503 meanwhile. */
  markDown (name: string): void {
    this.clients.get(name)?.clearEndpoint()
  }

  remove (name: string): void {
    this.clients.get(name)?.close()
    this.clients.delete(name)
  }

  names (): string[] {
    return [...this.clients.keys()]
  }

  close (): void {
    for (const c of this.clients.values()) c.close()
    this.clients.clear()
  }
}
