import type { gateway } from '../../common/protocol/generated/gateway'

export interface MethodInfo {
  readonly service: string
  readonly name: string
  readonly parameterCount: number
  readonly returnsVoid: boolean
  readonly needsPrivilege: boolean
}

/** The gateway's index of a microservice's handshake catalog: answers 404/400 without a round trip. */
export class CatalogIndex {
  private readonly services = new Map<string, Map<string, MethodInfo>>()
  /** A servletApp handles its own HTTP requests: the gateway does not expose it (docs/contract.md, Calls). */
  readonly servlet: boolean

  constructor(readonly catalog: gateway.Catalog) {
    this.servlet = catalog.applicationType === 'servletApp'
    for (const s of catalog.services as gateway.Service[]) {
      if (!s.remotelyEnabled) continue
      const methods = new Map<string, MethodInfo>()
      for (const m of s.methods as gateway.Method[]) {
        methods.set(
          m.name,
          Object.freeze({
            service: s.name,
            name: m.name,
            parameterCount: m.parameterCount,
            returnsVoid: m.returnsVoid,
            needsPrivilege: m.needsPrivilege
          })
        )
      }
      this.services.set(s.name, methods)
    }
  }

  service(name: string): ReadonlyMap<string, MethodInfo> | undefined {
    return this.services.get(name)
  }

  /** The remotely enabled methods as `service/method`. */
  methods(): string[] {
    return [...this.services].flatMap(([service, methods]) => [...methods.keys()].map((m) => `${service}/${m}`))
  }

  get version(): string {
    return this.catalog.version
  }
}
