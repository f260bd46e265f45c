import type { Descriptor } from '../descriptors/types'

export type SerializerFormat = 'json' | 'xml'

/**
 * A serializer of a sequence. A microservice may provide its own under a bean name
 * (alphaXmlSerializer, ...); it then gets it for that sequence (SPEC, serialization rule 2).
 * `deserialize` throws ValueError (or JsonSyntaxError / XmlSyntaxError) for a bad argument.
 */
export interface Serializer {
  readonly format: SerializerFormat
  serialize (value: unknown, type: Descriptor): string | Uint8Array
  deserialize (bytes: Uint8Array, type: Descriptor): unknown
}

export const SEQUENCES = {
  alphaParamArrayXmlInOutSequence: { format: 'xml', bean: 'alphaXmlSerializer' },
  alphaParamArrayJsonInOutSequence: { format: 'json', bean: 'alphaJsonSerializer' },
  betaParamArrayXmlInOutSequence: { format: 'xml', bean: 'betaXmlSerializer' },
  betaParamArrayJsonInOutSequence: { format: 'json', bean: 'betaJsonSerializer' }
} as const satisfies Record<string, { format: SerializerFormat, bean: string }>

export type SequenceName = keyof typeof SEQUENCES
export type SerializerBeanName = (typeof SEQUENCES)[SequenceName]['bean']

export function isSequenceName (s: string): s is SequenceName {
  return Object.prototype.hasOwnProperty.call(SEQUENCES, s)
}
