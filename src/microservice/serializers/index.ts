import type { Serializer } from './serializer'
import type { SerializerBeanName } from '../../common/contract/vocabulary'
import { createAlphaXmlSerializer } from './alpha-xml'
import { createAlphaJsonSerializer } from './alpha-json'
import { createBetaJsonSerializer } from './beta-json'
import { createBetaXmlSerializer } from './beta-xml'
import type { AliasMap } from './alpha-node'
import { DEFAULT_READ_LIMITS, type ReadLimits } from '../../common/contract/limits'

export { DEFAULT_READ_LIMITS, type ReadLimits }

export type { Serializer } from './serializer'
export { createAlphaXmlSerializer, createAlphaJsonSerializer, createBetaJsonSerializer, createBetaXmlSerializer }
export { ValueError } from './errors'

/** The default definition of each bean when the microservice defines none (SPEC, serialization sequences). */
export function defaultSerializers(
  aliases: AliasMap = new Map(),
  limits: ReadLimits = DEFAULT_READ_LIMITS
): Record<SerializerBeanName, Serializer> {
  return {
    alphaXmlSerializer: createAlphaXmlSerializer(aliases, limits),
    alphaJsonSerializer: createAlphaJsonSerializer(aliases, limits),
    betaXmlSerializer: createBetaXmlSerializer({ limits }),
    betaJsonSerializer: createBetaJsonSerializer({ limits })
  }
}
