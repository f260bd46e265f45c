import type { EventLog } from '../../common/observability/log'
import type { DispatchOptions } from '../../common/config/config'
import type { CatalogIndex } from './catalog'
import { InstanceClient } from './instance'
import type { PendingCall } from './pending'
import { dropFrame, type OutFrame } from '../../common/protocol/frame'
import { compareVersions } from '../../common/contract/semver'

/**
 * All instances of one microservice. A call goes to the instance with the fewest calls in flight
 * among those that are connected, available and not draining; an instance being replaced drains:
 * it gets no new calls while the ones it holds complete. Which instances serve, the catalog and
 * the reason nothing serves are recomputed when an instance reports a change, not per request.
 */
export class MicroserviceGroup {
  readonly instances = new Map<string, InstanceClient>()
  private readonly draining = new Set<string>()
  private serving: InstanceClient[] = []
  /** The catalog of a serving instance (the newest registered first), else of any instance. */
  catalog: CatalogIndex | null = null
  private reason: string | null

  private available = false
  /** The versions of the connected instances, newest first (more than one during a rollout). */
  versions: string[] = []

  constructor(
    readonly name: string,
    private readonly log: EventLog | null = null,
    private readonly servingVersions: 'all' | 'newest' = 'all',
    /** Called each time the group goes from serving nothing to serving. */
    private readonly onAvailable: ((name: string) => void) | null = null,
    /** Called after every change of which instances serve (not per request). */
    private readonly onChange: ((group: MicroserviceGroup) => void) | null = null
  ) {
    this.reason = `microservice '${name}' is not running`
  }

  /** Adds an instance (or returns the one of that id); the group follows its changes. */
  instance(
    id: string,
    options: DispatchOptions,
    secret: string | null = null,
    log?: EventLog,
    overrides: Partial<DispatchOptions> = {}
  ): InstanceClient {
    let client = this.instances.get(id)
    if (client === undefined) {
      client = new InstanceClient(this.name, options, () => this.recompute(), secret, log, overrides)
      this.instances.set(id, client)
      this.recompute()
    }
    return client
  }

  unavailableReason(): string | null {
    return this.serving.length > 0 ? null : this.reason
  }

  send(call: PendingCall, frame: OutFrame): void {
    let best: InstanceClient | null = null
    for (const c of this.serving) if (best === null || c.inflight < best.inflight) best = c
    if (best === null) {
      dropFrame(frame)
      return call.settle({
        code: 'MICROSERVICE_UNAVAILABLE',
        detail: this.reason ?? `microservice '${this.name}' is not connected`
      })
    }
    best.send(call, frame)
  }

  get inflight(): number {
    let n = 0
    for (const c of this.instances.values()) n += c.inflight
    return n
  }

  /** Calls in flight on one instance. */
  inflightOf(instance: string): number {
    return this.instances.get(instance)?.inflight ?? 0
  }

  drain(instance: string): void {
    if (!this.instances.has(instance)) return
    this.draining.add(instance)
    this.recompute()
  }

  /** An instance that was draining takes calls again (it came back before it was removed). */
  resume(instance: string): void {
    if (this.draining.delete(instance)) this.recompute()
  }

  isDraining(instance: string): boolean {
    return this.draining.has(instance)
  }

  isServing(instance: string): boolean {
    const c = this.instances.get(instance)
    return c !== undefined && this.serving.includes(c)
  }

  remove(instance: string): void {
    this.instances.get(instance)?.close()
    this.instances.delete(instance)
    this.draining.delete(instance)
    this.recompute()
  }

  close(): void {
    for (const c of this.instances.values()) c.close()
    this.instances.clear()
    this.draining.clear()
    this.recompute()
  }

  private recompute(): void {
    const serving: InstanceClient[] = []
    let catalog: CatalogIndex | null = null
    let fallback: CatalogIndex | null = null
    let reason: string | null = null
    for (const [id, c] of [...this.instances].reverse()) {
      const draining = this.draining.has(id)
      if (!draining && c.reason === null && c.catalog !== null) {
        serving.push(c)
        catalog ??= c.catalog
      }
      if (!draining) reason ??= c.reason
      fallback ??= c.catalog
    }
    // Newest first (the shared order reversed); builds of one version (1.0.0, 1.0.0+b2) keep their order.
    const versions = [...new Set(serving.map((c) => c.catalog!.version))].sort((a, b) => compareVersions(b, a))
    if (versions.join() !== this.versions.join()) {
      this.versions = versions
      if (versions.length > 1)
        this.log?.(
          `microservice ${this.name} is served by instances of ${versions.length} versions: ${versions.join(', ')}`,
          {
            event: 'versions',
            microservice: this.name,
            versions,
            serving: this.servingVersions === 'newest' ? versions[0] : 'all'
          }
        )
    }
    if (this.servingVersions === 'newest' && versions.length > 1) {
      const newest = versions[0]!
      // Every build of the newest version serves: build metadata does not make another version.
      this.serving = serving.filter((c) => compareVersions(c.catalog!.version, newest) === 0)
      catalog = this.serving[0]!.catalog
    } else this.serving = serving
    this.catalog = catalog ?? fallback
    if (this.instances.size === 0) this.reason = `microservice '${this.name}' is not running`
    else this.reason = reason ?? `microservice '${this.name}' is being replaced`
    const available = serving.length > 0
    if (available !== this.available) {
      this.available = available
      const why = available ? null : this.reason
      this.log?.(available ? `microservice ${this.name} is available` : `${why}: no new calls`, {
        event: 'availability',
        microservice: this.name,
        available,
        reason: why
      })
      if (available) this.onAvailable?.(this.name)
    }
    this.onChange?.(this)
  }
}
