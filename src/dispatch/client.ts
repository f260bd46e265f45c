import { randomUUID } from 'node:crypto'
import type { gateway } from '../protocol/generated/gateway'
import type { Failure } from '../errors/codes'
import { BackendConnection, type ConnectionOwner } from './connection'
import { CatalogIndex } from './catalog'
import type { PendingCall } from './pending'
import type { DispatchOptions } from '../config/config'


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
      call.settle(failure)
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

/**
 * All instances of one microservice. A call goes to the instance with the fewest calls in flight
 * among those that are connected, available and not draining; an instance being replaced drains:
 * it gets no new calls while the ones it holds complete.
 */
export class MicroserviceGroup {
  readonly instances = new Map<string, MicroserviceClient>()
  private readonly draining = new Set<string>()

  constructor (readonly name: string) {}

  /** The catalog of a serving instance (the newest registered first), else of any instance. */
  get catalog (): CatalogIndex | null {
    let fallback: CatalogIndex | null = null
    for (const [id, c] of [...this.instances].reverse()) {
      if (c.catalog === null) continue
      if (!this.draining.has(id) && c.unavailableReason() === null) return c.catalog
      fallback ??= c.catalog
    }
    return fallback
  }

  unavailableReason (): string | null {
    if (this.instances.size === 0) return `microservice '${this.name}' is not running`
    let reason: string | null = null
    for (const [id, c] of this.instances) {
      if (this.draining.has(id)) continue
      const r = c.unavailableReason()
      if (r === null) return null
      reason ??= r
    }
    return reason ?? `microservice '${this.name}' is being replaced`
  }

  private pick (): MicroserviceClient | null {
    let best: MicroserviceClient | null = null
    for (const [id, c] of this.instances) {
      if (this.draining.has(id) || c.unavailableReason() !== null) continue
      if (best === null || c.inflight < best.inflight) best = c
    }
    return best
  }

  send (call: PendingCall, frame: Uint8Array): void {
    const c = this.pick()
    if (c === null) {
      call.settle({ code: 'MICROSERVICE_UNAVAILABLE', detail: this.unavailableReason() ?? `microservice '${this.name}' is not connected` })
      return
    }
    c.send(call, frame)
  }

  get inflight (): number {
    let n = 0
    for (const c of this.instances.values()) n += c.inflight
    return n
  }

  /** Calls in flight on one instance. */
  inflightOf (instance: string): number {
    return this.instances.get(instance)?.inflight ?? 0
  }

  drain (instance: string): void {
    if (this.instances.has(instance)) this.draining.add(instance)
  }

  isServing (instance: string): boolean {
    const c = this.instances.get(instance)
    return c !== undefined && !this.draining.has(instance) && c.catalog !== null && c.unavailableReason() === null
  }

  remove (instance: string): void {
    this.instances.get(instance)?.close()
    this.instances.delete(instance)
    this.draining.delete(instance)
  }

  close (): void {
    for (const c of this.instances.values()) c.close()
    this.instances.clear()
    this.draining.clear()
  }
}

/** All microservices the gateway can reach, by name. */
export class MicroserviceDirectory {
  private readonly groups = new Map<string, MicroserviceGroup>()
  constructor (private readonly options: DispatchOptions) {}

  get (name: string): MicroserviceGroup | undefined {
    return this.groups.get(name)
  }

  /** Registers (or moves) one instance; the gateway connects and fetches its catalog. */
  register (name: string, host: string, port: number, instance = `${name}#0`, overrides: Partial<DispatchOptions> = {}): MicroserviceClient {
    let group = this.groups.get(name)
    if (group === undefined) {
      group = new MicroserviceGroup(name)
      this.groups.set(name, group)
    }
    let client = group.instances.get(instance)
    if (client === undefined) {
      client = new MicroserviceClient(name, { ...this.options, ...overrides })
      group.instances.set(instance, client)
    }
    client.setEndpoint(host, port)
    return client
  }

  /** The instance's process is down (it may come back): it gets no calls meanwhile. */
  markDown (name: string, instance = `${name}#0`): void {
    this.groups.get(name)?.instances.get(instance)?.clearEndpoint()
  }

  /** The group stays, empty: a deployed microservice that is stopped answers 503, not 404. */
  removeInstance (name: string, instance: string): void {
    this.groups.get(name)?.remove(instance)
  }

  remove (name: string): void {
    this.groups.get(name)?.close()
    this.groups.delete(name)
  }

  close (): void {
    for (const g of this.groups.values()) g.close()
    this.groups.clear()
  }
}
