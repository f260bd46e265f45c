import type { DispatchOptions } from '../../common/config/config'
import { MicroserviceGroup } from './group'
import type { InstanceClient } from './instance'
import type { Endpoint } from '../../common/protocol/endpoint'
import type { EventLog } from '../../common/observability/log'
import { Arrivals } from './arrivals'

/**
 * What a directory does, as told to the directories that follow it (each listener thread has one,
 * with connections of its own): the same instances, drains and announcements, and the leader's
 * verdict on each instance (availability, outlier ejection), so that every thread serves the same.
 */
export type DirectoryEvent =
  | {
      type: 'register'
      name: string
      endpoint: Endpoint
      instance: string
      overrides: Partial<DispatchOptions>
      secret: string | null
    }
  | { type: 'markDown' | 'removeInstance' | 'drain' | 'resume'; name: string; instance: string }
  | { type: 'remove'; name: string }
  | { type: 'expect'; name: string; ms: number }
  | { type: 'verdicts'; name: string; verdicts: Array<[instance: string, reason: string | null]> }

/** The directories that follow this one (the listener threads). */
export interface DirectoryFollowers {
  tell(event: DirectoryEvent): void
  /** Resolves once no follower holds a call on the instance. */
  whenIdle(name: string, instance: string): Promise<void>
  /** Resolves true once every follower sends new calls to the instance, false after `ms`. */
  whenServing(name: string, instance: string, ms: number): Promise<boolean>
}

/** All microservices the gateway can reach, by name. */
export class MicroserviceDirectory {
  private readonly groups = new Map<string, MicroserviceGroup>()
  /** Microservices announced by a rollout to several nodes, not served here yet. */
  readonly arrivals = new Arrivals()
  private readonly watchers = new Set<() => void>()
  /** The listener threads' directories, told of every change (null: none). */
  private followers: DirectoryFollowers | null = null
  /** On a follower: instances the leader removed, leaving once their calls are done (by instance). */
  private readonly leaving = new Map<string, NodeJS.Timeout>()
  /** On a follower: where an outlier ejection is reported to the leader. */
  onEject: ((name: string, instance: string) => void) | null = null

  constructor(
    private readonly options: DispatchOptions,
    private readonly log: EventLog = console.error,
    /** How long a follower waits for an instance's calls before it closes the connections of one removed. */
    private readonly drainTimeoutMs = 30000
  ) {}

  /** Tells `followers` of every change from now on, after the state so far. */
  follow(followers: DirectoryFollowers): void {
    this.followers = followers
    this.arrivals.onExpect = (name, ms) => followers.tell({ type: 'expect', name, ms })
  }

  /** Everything a new follower needs to be where this directory is now. */
  snapshot(): DirectoryEvent[] {
    const events: DirectoryEvent[] = []
    for (const g of this.groups.values()) {
      for (const [instance, c] of g.instances) {
        const endpoint = c.endpoint
        if (endpoint !== null)
          events.push({ type: 'register', name: g.name, endpoint, instance, overrides: c.overrides, secret: c.secret })
        if (g.isDraining(instance)) events.push({ type: 'drain', name: g.name, instance })
      }
      events.push(verdicts(g))
    }
    return events
  }

  /**
   * On a follower: resolves once every instance the leader serves with is connected here too (its
   * handshake done), or after `ms`; a listener thread listens only then, so its first calls do not
   * meet a microservice it has not reached yet.
   */
  caughtUp(ms: number): Promise<boolean> {
    const ready = (): boolean => {
      for (const g of this.groups.values())
        for (const c of g.instances.values()) if (c.verdict === null && c.reason !== null) return false
      return true
    }
    return this.until(ready, ms, () => new Error('not caught up')).then(
      () => true,
      () => false
    )
  }

  /** A follower applies what its leader did. */
  apply(e: DirectoryEvent): void {
    switch (e.type) {
      case 'register': {
        this.cancelLeaving(e.instance)
        this.register(e.name, e.endpoint, e.instance, e.overrides, e.secret)
        return this.get(e.name)?.resume(e.instance)
      }
      case 'markDown':
        return this.markDown(e.name, e.instance)
      case 'removeInstance':
        return this.leave(e.name, e.instance)
      case 'drain':
        return this.drain(e.name, e.instance)
      case 'resume':
        return this.resume(e.name, e.instance)
      case 'remove':
        return this.remove(e.name)
      case 'expect':
        return this.arrivals.expect(e.name, e.ms)
      case 'verdicts': {
        const g = this.get(e.name)
        if (g === undefined) return
        for (const [instance, reason] of e.verdicts) g.instances.get(instance)?.setVerdict(reason)
      }
    }
  }

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
        (g) => this.changed(g)
      )
      this.groups.set(name, group)
    }
    this.followers?.tell({ type: 'register', name, endpoint, instance, overrides, secret })
    const client = group.instance(instance, { ...this.options, ...overrides }, secret, this.log, overrides)
    if (this.onEject !== null) {
      const report = this.onEject
      client.onEject = () => report(name, instance)
    }
    client.setEndpoint(endpoint)
    return client
  }

  /** The instance takes no new calls; those it holds complete (a replaced version, a pod leaving). */
  drain(name: string, instance: string): void {
    this.followers?.tell({ type: 'drain', name, instance })
    this.groups.get(name)?.drain(instance)
  }

  /** An instance that was draining takes calls again. */
  resume(name: string, instance: string): void {
    this.followers?.tell({ type: 'resume', name, instance })
    this.groups.get(name)?.resume(instance)
  }

  /** The leader's side of a follower's outlier ejection: no instance of any thread gets new calls. */
  eject(name: string, instance: string): void {
    this.groups.get(name)?.instances.get(instance)?.eject('a listener thread')
  }

  /** Resolves once no call is in flight on the instance, here or on any follower. */
  whenIdle(name: string, instance: string): Promise<void> {
    const here = this.groups.get(name)?.instances.get(instance)?.whenIdle() ?? Promise.resolve()
    const f = this.followers
    return f === null ? here : Promise.all([here, f.whenIdle(name, instance)]).then(() => undefined)
  }

  /**
   * Resolves true once the instance takes new calls here and on every follower (each makes its own
   * connections), false after `ms`: a version replaced before then would leave a follower nothing to send to.
   */
  whenServing(name: string, instance: string, ms: number): Promise<boolean> {
    const serving = (): boolean => this.groups.get(name)?.isServing(instance) === true
    const here = this.until(serving, ms, () => new Error(`${name} ${instance} is not serving`))
    const f = this.followers
    return Promise.all([
      here.then(
        () => true,
        () => false
      ),
      f?.whenServing(name, instance, ms) ?? true
    ]).then(([h, followers]) => h && followers)
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

  private changed(group: MicroserviceGroup): void {
    this.followers?.tell(verdicts(group))
    for (const w of [...this.watchers]) w()
  }

  /** The instance's process is down (it may come back): it gets no calls meanwhile. */
  markDown(name: string, instance = `${name}#0`): void {
    this.followers?.tell({ type: 'markDown', name, instance })
    this.groups.get(name)?.instances.get(instance)?.clearEndpoint()
  }

  /** The group stays, empty: a deployed microservice that is stopped answers 503, not 404. */
  removeInstance(name: string, instance: string): void {
    this.followers?.tell({ type: 'removeInstance', name, instance })
    this.cancelLeaving(instance)
    this.groups.get(name)?.remove(instance)
  }

  remove(name: string): void {
    this.followers?.tell({ type: 'remove', name })
    this.groups.get(name)?.close()
    this.groups.delete(name)
  }

  /**
   * A follower's removal: the leader removes an instance once its own calls are done, but this
   * thread's may not be, so the instance drains here and goes once they are (or after drainTimeoutMs).
   */
  private leave(name: string, instance: string): void {
    const client = this.groups.get(name)?.instances.get(instance)
    if (client === undefined) return
    this.drain(name, instance)
    this.cancelLeaving(instance)
    // Whichever comes first, the idle instance or the timer, cancels the other.
    const go = (): void => {
      this.cancelLeaving(instance)
      if (this.groups.get(name)?.instances.get(instance) === client) this.removeInstance(name, instance)
    }
    const timer = setTimeout(go, this.drainTimeoutMs)
    timer.unref()
    this.leaving.set(instance, timer)
    void client.whenIdle().then(() => {
      if (this.leaving.get(instance) === timer) go()
    })
  }

  private cancelLeaving(instance: string): void {
    const timer = this.leaving.get(instance)
    if (timer === undefined) return
    clearTimeout(timer)
    this.leaving.delete(instance)
  }

  close(): void {
    for (const timer of this.leaving.values()) clearTimeout(timer)
    this.leaving.clear()
    this.arrivals.close()
    for (const g of this.groups.values()) g.close()
    this.groups.clear()
  }
}

/** The leader's verdict on each instance of `g`: why it cannot take a call, or null. */
function verdicts(g: MicroserviceGroup): DirectoryEvent {
  return { type: 'verdicts', name: g.name, verdicts: [...g.instances].map(([id, c]) => [id, c.reason]) }
}
