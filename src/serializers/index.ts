import type { Serializer, SerializerBeanName } from './serializer'
import { createAlphaXmlSerializer } from './alpha-xml'
import { createAlphaJsonSerializer } from './alpha-json'
import { createBetaJsonSerializer } from './beta-json'
import { createBetaXmlSerializer } from './beta-xml'
import type { AliasMap } from './alpha-node'

export * from './serializer'
export { createAlphaXmlSerializer, createAlphaJsonSerializer, createBetaJsonSerializer, createBetaXmlSerializer }
export { ValueError } from './errors'

/** The default definition of each bean when the microservice defines none (SPEC, serialization sequences). */
export function defaultSerializers (aliases: AliasMap = new Map()): Record<SerializerBeanName, Serializer> {
  return {
    alphaXmlSerializer: createAlphaXmlSerializer(aliases),
    alphaJsonSerializer: createAlphaJsonSerializer(aliases),
    betaXmlSerializer: createBetaXmlSerializer(),
    betaJsonSerializer: createBetaJsonSerializer()
  }
}
