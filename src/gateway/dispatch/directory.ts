import type { DispatchOptions } from '../config/config'
import { MicroserviceGroup } from './group'
import type { InstanceClient } from './instance'
import type { Endpoint } from '../../common/protocol/endpoint'
import type { EventLog } from '../../common/observability/log'
import { Arrivals } from './arrivals'

/** All microservices the gateway can reach, by name. */
export class MicroserviceDirectory {
  private readonly groups = new Map<string, MicroserviceGroup>()
  /** Microservices announced by a rollout to several nodes, not served here yet. */
  readonly arrivals = new Arrivals()
  private readonly watchers = new Set<() => void>()
  constructor(
    private readonly options: DispatchOptions,
    private readonly log: EventLog = console.error
  ) {}

  get(name: string): MicroserviceGroup | undefined {
    return this.groups.get(name)
  }

  arrival(name: string): Promise<boolean> | undefined {
    return this.arrivals.arrival(name)
  }

  all(): IterableIterator<MicroserviceGroup> {
    return this.groups.values()
  }

  /**
   * Registers (or moves) one instance; the gateway connects and fetches its catalog. `secret`, for an
   * instance reached over TCP, is proved both ways by the handshake (src/common/protocol/handshake.ts).
   */
  register(
    name: string,
    endpoint: Endpoint,
    instance = `${name}#0`,
    overrides: Partial<DispatchOptions> = {},
    secret: string | null = null
  ): InstanceClient {
    let group = this.groups.get(name)
    if (group === undefined) {
      group = new MicroserviceGroup(
        name,
        this.log,
        this.options.servingVersions,
        (n) => this.arrivals.arrived(n),
        () => this.changed()
      )
      this.groups.set(name, group)
    }
    const client = group.instance(instance, { ...this.options, ...overrides }, secret, this.log)
    client.setEndpoint(endpoint)
    return client
  }

  /**
   * Resolves once `ready()` holds, checked now and after each change of which instances serve; rejects
   * with `timeoutError()` after `ms`.
   */
  until(ready: () => boolean, ms: number, timeoutError: () => Error): Promise<void> {
    if (ready()) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (!ready()) return
        stop()
        resolve()
      }
      const timer = setTimeout(() => {
        stop()
        reject(timeoutError())
      }, ms)
      const stop = (): void => {
        clearTimeout(timer)
        this.watchers.delete(check)
      }
      this.watchers.add(check)
    })
  }

  private changed(): void {
    for (const w of [...this.watchers]) w()
  }

  /** The instance's process is down (it may come back): it gets no calls meanwhile. */
  markDown(name: string, instance = `${name}#0`): void {
    this.groups.get(name)?.instances.get(instance)?.clearEndpoint()
  }

  /** The group stays, empty: a deployed microservice that is stopped answers 503, not 404. */
  removeInstance(name: string, instance: string): void {
    this.groups.get(name)?.remove(instance)
  }

  remove(name: string): void {
    this.groups.get(name)?.close()
    this.groups.delete(name)
  }

  close(): void {
    this.arrivals.close()
    for (const g of this.groups.values()) g.close()
    this.groups.clear()
  }
}
