import type { Serializer } from './serializer'
import type { SerializerBeanName } from '../../common/contract/vocabulary'
import { createAlphaXmlSerializer } from './alpha/alpha-xml'
import { createAlphaJsonSerializer } from './alpha/alpha-json'
import { createBetaJsonSerializer } from './beta/beta-json'
import { createBetaXmlSerializer } from './beta/beta-xml'
import type { AliasMap } from './alpha/alpha-node'
import { DEFAULT_READ_LIMITS, type ReadLimits } from '../../common/contract/limits'

export { DEFAULT_READ_LIMITS, type ReadLimits }

export type { Serializer } from './serializer'
export { createAlphaXmlSerializer, createAlphaJsonSerializer, createBetaJsonSerializer, createBetaXmlSerializer }
export { ValueError } from './errors'

/**
 * The default definition of each bean when the microservice defines none (docs/contract.md, Sequences;
 * sequences); dates in `timeZone` (the microservice's settings.timeZone, UTC by default).
 */
export function defaultSerializers(
  aliases: AliasMap = new Map(),
  limits: ReadLimits = DEFAULT_READ_LIMITS,
  timeZone = 'UTC'
): Record<SerializerBeanName, Serializer> {
  return {
    alphaXmlSerializer: createAlphaXmlSerializer(aliases, limits, timeZone),
    alphaJsonSerializer: createAlphaJsonSerializer(aliases, limits, timeZone),
    betaXmlSerializer: createBetaXmlSerializer({ limits, timeZone }),
    betaJsonSerializer: createBetaJsonSerializer({ limits, timeZone })
  }
}
