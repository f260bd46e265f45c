import { Resolver } from 'node:dns/promises'
import type { Endpoint, TlsClient } from '../../common/protocol/endpoint'
import type { EventLog } from '../../common/observability/log'
import { errorMessage } from '../../common/errors/internal'
import type { MicroserviceDirectory } from './directory'

/** One microservice found in DNS (MICROSERVICES.discovery), with its secret read from the environment. */
export interface DiscoveryTarget {
  name: string
  dns: string
  port: number | null
  srv: boolean
  secret: string | null
  /** The internal protocol over TLS: an instance's certificate holds the name looked up (or tls.serverName). */
  tls: TlsClient | null
  intervalMs: number
}

/** A name that exists but has no records, or does not exist: no instances right now. */
const EMPTY_ANSWERS = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN'])

/**
 * Finds the instances of microservices in DNS, as a Kubernetes headless Service publishes its ready
 * pods: each address (A/AAAA at the configured port, or SRV targets at theirs) is an instance the
 * gateway connects to. Names are resolved again every `intervalMs`, and five times as often while an
 * instance of that microservice is disconnected. An address that appears is connected; one that
 * disappears gets no new calls and is removed once the calls it holds are answered. A failed lookup
 * (a DNS server down, a timeout) changes nothing: instances are retired only on an answer.
 */
export class DnsDiscovery {
  private readonly resolver = new Resolver({ timeout: 2000, tries: 2 })
  private readonly found = new Map<string, Set<string>>()
  /** Gone from DNS, still serving until an instance that is still listed serves (make before break). */
  private readonly leaving = new Map<string, Set<string>>()
  /** Gone from DNS and drained: removed once their calls are answered. */
  private readonly retiring = new Map<string, Set<string>>()
  private readonly timers = new Set<NodeJS.Timeout>()
  private closed = false

  constructor(
    private readonly directory: MicroserviceDirectory,
    private readonly targets: readonly DiscoveryTarget[],
    servers: readonly string[],
    private readonly log: EventLog
  ) {
    if (servers.length > 0) this.resolver.setServers([...servers])
  }

  /** Resolves every name once (so the first calls find their instances), then keeps them current. */
  async start(): Promise<void> {
    await Promise.all(this.targets.map((t) => this.refresh(t)))
    for (const t of this.targets) this.schedule(t)
  }

  close(): void {
    this.closed = true
    for (const t of this.timers) clearTimeout(t)
    this.timers.clear()
    this.resolver.cancel()
  }

  /** Instance ids found for `name` now (its retiring ones excluded). */
  instances(name: string): string[] {
    return [...(this.found.get(name) ?? [])]
  }

  async refresh(t: DiscoveryTarget): Promise<void> {
    let endpoints: Endpoint[]
    try {
      endpoints = await this.lookup(t)
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? ''
      this.log(
        `discovery: ${t.dns} for microservice ${t.name} did not resolve (${code || errorMessage(err)}); instances kept`,
        {
          event: 'discovery-failed',
          microservice: t.name,
          dns: t.dns,
          code
        }
      )
      this.sweep(t.name)
      return
    }
    if (this.closed) return
    const now = new Map(endpoints.map((e) => [instanceId(t.name, e), e]))
    const known = this.set(this.found, t.name)
    const leaving = this.set(this.leaving, t.name)
    const retiring = this.set(this.retiring, t.name)
    for (const [id, endpoint] of now) {
      if (known.has(id)) continue
      leaving.delete(id)
      if (retiring.delete(id)) this.directory.resume(t.name, id)
      this.directory.register(t.name, endpoint, id, {}, t.secret).remote = true
      known.add(id)
      this.log(`discovery: found ${id}`, { event: 'discovered', microservice: t.name, instance: id })
    }
    for (const id of known) {
      if (now.has(id)) continue
      known.delete(id)
      leaving.add(id)
      this.log(`discovery: ${id} is gone from ${t.dns}; it finishes its calls and is removed`, {
        event: 'retiring',
        microservice: t.name,
        instance: id
      })
    }
    this.sweep(t.name)
  }

  private set(map: Map<string, Set<string>>, name: string): Set<string> {
    let s = map.get(name)
    if (s === undefined) map.set(name, (s = new Set()))
    return s
  }

  /**
   * Drains the instances gone from DNS once one still listed serves (a replaced pod keeps serving
   * until its successor does), and removes the drained ones that hold no call any more.
   */
  private sweep(name: string): void {
    const group = this.directory.get(name)
    const leaving = this.leaving.get(name)
    const retiring = this.set(this.retiring, name)
    if (leaving !== undefined && leaving.size > 0 && group !== undefined) {
      const successor = this.instances(name).some((id) => group.isServing(id))
      const last = this.instances(name).length === 0
      if (successor || last) {
        for (const id of leaving) {
          this.directory.drain(name, id)
          retiring.add(id)
        }
        leaving.clear()
      }
    }
    for (const id of retiring) {
      if ((this.directory.get(name)?.inflightOf(id) ?? 0) > 0) continue
      this.directory.removeInstance(name, id)
      retiring.delete(id)
    }
  }

  private schedule(t: DiscoveryTarget): void {
    if (this.closed) return
    const group = this.directory.get(t.name)
    const degraded =
      group !== undefined && this.instances(t.name).some((id) => group.instances.get(id)?.reason !== null)
    const retiring = (this.retiring.get(t.name)?.size ?? 0) + (this.leaving.get(t.name)?.size ?? 0) > 0
    const delay = degraded || retiring ? Math.max(100, Math.round(t.intervalMs / 5)) : t.intervalMs
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      void this.refresh(t).finally(() => this.schedule(t))
    }, delay)
    timer.unref()
    this.timers.add(timer)
  }

  private async lookup(t: DiscoveryTarget): Promise<Endpoint[]> {
    // Found by address, an instance is verified by the name it was found under (a pod's certificate
    // names its Service, not its address).
    const at = (host: string, port: number, name: string): Endpoint =>
      t.tls === null ? { host, port } : { host, port, tls: { ...t.tls, serverName: t.tls.serverName ?? name } }
    if (!t.srv) return (await this.addresses(t.dns)).map((host) => at(host, t.port!, t.dns))
    let records
    try {
      records = await this.resolver.resolveSrv(t.dns)
    } catch (err) {
      if (EMPTY_ANSWERS.has((err as NodeJS.ErrnoException).code ?? '')) return []
      throw err
    }
    const out: Endpoint[] = []
    for (const r of records) for (const host of await this.addresses(r.name)) out.push(at(host, r.port, r.name))
    return out
  }

  /**
   * A and AAAA records. When one family answers, its addresses are the answer, whatever the other
   * says (a server may refuse the family it does not serve); when neither does, a name without
   * records is no address, and any other failure is an error.
   */
  private async addresses(name: string): Promise<string[]> {
    const answers = await Promise.allSettled([this.resolver.resolve4(name), this.resolver.resolve6(name)])
    const out: string[] = []
    let failure: unknown = null
    for (const r of answers) {
      if (r.status === 'fulfilled') out.push(...r.value)
      else if (!EMPTY_ANSWERS.has((r.reason as NodeJS.ErrnoException).code ?? '')) failure ??= r.reason
    }
    if (out.length === 0 && failure !== null) throw failure
    return out.sort()
  }
}

function instanceId(name: string, e: Endpoint): string {
  if (!('host' in e)) return `${name}@${e.path}`
  return `${name}@${e.host.includes(':') ? `[${e.host}]` : e.host}:${e.port}`
}
