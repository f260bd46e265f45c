import { typeName } from '../descriptors/descriptors'
import type { gateway } from '../../common/protocol/generated/gateway'
import type { MethodDefinition, MicroserviceDefinition } from '../sdk/define'
import { InternalError, errorMessage } from '../../common/errors/internal'

export interface ServiceEntry {
  readonly name: string
  readonly remotelyEnabled: boolean
  readonly methods: ReadonlyMap<string, MethodDefinition>
}

/** Compiles platformRegularExpressionToRemotelyEnabled: each expression must match the whole name. */
export function compileRemotelyEnabled(patterns: readonly string[]): (service: string) => boolean {
  const compiled = patterns.map((p) => {
    try {
      return new RegExp(`^(?:${p})$`)
    } catch (err) {
      throw new InternalError(
        'IGW_MICROSERVICE_DEFINITION',
        `platformRegularExpressionToRemotelyEnabled: '${p}' is not a valid regular expression: ${errorMessage(err)}`
      )
    }
  })
  return (service) => compiled.some((r) => r.test(service))
}

/** Indexes the services, failing at start-up on duplicate names (the URL names a method by name only). */
export function buildServiceIndex(def: MicroserviceDefinition): Map<string, ServiceEntry> {
  const enabled = compileRemotelyEnabled(def.platformRegularExpressionToRemotelyEnabled)
  const services = new Map<string, ServiceEntry>()
  for (const s of def.services) {
    if (services.has(s.name)) throw definitionError(`service '${s.name}' is defined twice`)
    const methods = new Map<string, MethodDefinition>()
    for (const m of s.methods) {
      if (methods.has(m.name))
        throw definitionError(
          `service '${s.name}' has two methods named '${m.name}': method names must not be overloaded`
        )
      if (m.params.some((p) => p.kind === 'void'))
        throw definitionError(`${s.name}.${m.name}: a parameter cannot be void`)
      methods.set(m.name, m)
    }
    services.set(s.name, { name: s.name, remotelyEnabled: enabled(s.name), methods })
  }
  return services
}

function definitionError(message: string): InternalError {
  return new InternalError('IGW_MICROSERVICE_DEFINITION', message)
}

/** The catalog sent in the handshake: only remotely enabled services are listed. */
export function toCatalog(
  name: string,
  version: string,
  services: ReadonlyMap<string, ServiceEntry>,
  available: boolean
): gateway.ICatalog {
  const list: gateway.IService[] = []
  for (const s of services.values()) {
    if (!s.remotelyEnabled) continue
    list.push({
      name: s.name,
      remotelyEnabled: true,
      methods: [...s.methods.values()].map((m) => ({
        name: m.name,
        parameterCount: m.params.length,
        parameterTypes: m.params.map(typeName),
        returnType: typeName(m.returns),
        returnsVoid: m.returns.kind === 'void',
        needsPrivilege: m.privileged
      }))
    })
  }
  return { microservice: name, version, services: list, available }
}
