// What the two beta (Jackson) serializers share.
import { type Descriptor, boxed, inferType, Typed } from '../../descriptors/descriptors'
import { ValueError } from '../errors'
import { kindOf } from '../java/text'

/** Jackson without the jsr310 module, word for word. */
export const LOCAL_DATE_UNSUPPORTED =
  'Java 8 date/time type `java.time.LocalDate` not supported by default: add Module "com.fasterxml.jackson.datatype:jackson-datatype-jsr310" to enable handling'

/** The type Jackson writes a value as: its own class in an Object slot (or when typed), else the declared type. */
export function jacksonRuntimeType(value: unknown, d: Descriptor): Descriptor {
  if (d.kind === 'any' || value instanceof Typed) {
    const r = inferType(value)
    if (r === undefined || r === null)
      throw new ValueError(`a ${kindOf(value)} in an Object slot needs its class: wrap it with t.typed(Type, value)`)
    return r
  }
  return d
}

/**
 * The type a List's items or a Map's values are read as: a type argument is a class in Java
 * (List<Integer>), so a null item stays null where a primitive would take its default.
 */
export function elementType(container: Descriptor & { kind: 'list' | 'array' | 'map' }): Descriptor {
  if (container.kind === 'array') return container.item
  return boxed(container.kind === 'list' ? container.item : container.value)
}
