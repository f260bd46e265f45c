import type { Descriptor } from '../descriptors/descriptors'
import type { BodyFormat } from '../../common/contract/vocabulary'

/**
 * A serializer of a sequence. A microservice may provide its own under a bean name
 * (alphaXmlSerializer, ...); it then gets it for that sequence (docs/contract.md, Sequences, rule 2).
 * `deserialize` throws ValueError (or JsonSyntaxError / XmlSyntaxError) for a bad argument.
 */
export interface Serializer {
  readonly format: BodyFormat
  serialize(value: unknown, type: Descriptor): string | Uint8Array
  deserialize(bytes: Uint8Array, type: Descriptor): unknown
}
