// Descriptors and values as plain JSON, so that a found case can be kept in a file and made again
// without the universe it came from (inherited fields are kept flat: our serializers see only the list).
// An Object slot is {"kind":"any","allowed":[<its classes>]}; a value in it is the oracle's tagged wire
// form (test/helpers/oracle.ts), made again as the Typed value of its runtime class.
import {
  LocalDate,
  Typed,
  t,
  type Descriptor,
  type FieldInput,
  type ListClass,
  type MapClass
} from '../../src/microservice/descriptors/descriptors'
import { tagType, type Tag, type Wire } from '../helpers/oracle'

export type DescriptorJson =
  | { kind: 'scalar'; type: string }
  | { kind: 'date' }
  | { kind: 'localDate' }
  | {
      kind: 'object'
      className: string
      alias?: string
      fields: Array<{
        name: string
        type: DescriptorJson
        attribute?: true
        alias?: string
        omit?: true
        implicit?: string
      }>
    }
  | { kind: 'list'; className: string; item: DescriptorJson }
  | { kind: 'array'; item: DescriptorJson }
  | { kind: 'map'; className: string; value: DescriptorJson }
  | { kind: 'any'; allowed: DescriptorJson[] }

export function descriptorToJson(d: Descriptor): DescriptorJson {
  switch (d.kind) {
    case 'scalar':
      return { kind: 'scalar', type: d.type }
    case 'date':
      return { kind: 'date' }
    case 'localDate':
      return { kind: 'localDate' }
    case 'object':
      return {
        kind: 'object',
        className: d.className,
        ...(d.alias === undefined ? {} : { alias: d.alias }),
        fields: d.fields.map((f) => ({
          name: f.name,
          type: descriptorToJson(f.type),
          ...(f.attribute ? { attribute: true as const } : {}),
          ...(f.alias === undefined ? {} : { alias: f.alias }),
          ...(f.omit ? { omit: true as const } : {}),
          ...(f.implicit === undefined ? {} : { implicit: f.implicit })
        }))
      }
    case 'list':
      return { kind: 'list', className: d.className, item: descriptorToJson(d.item) }
    case 'array':
      return { kind: 'array', item: descriptorToJson(d.item) }
    case 'map':
      return { kind: 'map', className: d.className, value: descriptorToJson(d.value) }
    case 'any':
      return { kind: 'any', allowed: d.allowed.map(descriptorToJson) }
    default:
      throw new Error(`no JSON form for ${d.kind}`)
  }
}

export function descriptorFromJson(j: DescriptorJson): Descriptor {
  switch (j.kind) {
    case 'scalar':
      return t[j.type as 'Integer']
    case 'date':
      return t.Date
    case 'localDate':
      return t.LocalDate
    case 'object': {
      const shape: Record<string, FieldInput> = {}
      for (const f of j.fields) {
        const type = descriptorFromJson(f.type)
        const plain =
          f.attribute === undefined && f.alias === undefined && f.omit === undefined && f.implicit === undefined
        shape[f.name] = plain
          ? type
          : t.field(type, { attribute: f.attribute, alias: f.alias, omit: f.omit, implicit: f.implicit })
      }
      return t.object(j.className, shape, { alias: j.alias })
    }
    case 'list':
      return t.list(descriptorFromJson(j.item), j.className as ListClass)
    case 'array':
      return t.array(descriptorFromJson(j.item))
    case 'map':
      return t.map(descriptorFromJson(j.value), j.className as MapClass)
    case 'any':
      return t.Object(j.allowed.map(descriptorFromJson))
  }
}

const f64 = new Float64Array(1)
const u64 = new BigUint64Array(f64.buffer)

/** The inverse of toWire: the JS value of ours that a wire value stands for. */
export function fromWire(w: Wire, d: Descriptor): unknown {
  if (w === null) return null
  switch (d.kind) {
    case 'scalar':
      if (d.type === 'long' || d.type === 'Long') return BigInt(w as string)
      if (d.type === 'double' || d.type === 'Double') {
        u64[0] = BigInt(`0x${w as string}`)
        return f64[0]
      }
      return w
    case 'date':
      return new Date(w as number)
    case 'localDate':
      return new LocalDate(w as string)
    case 'object': {
      const o = w as Record<string, Wire>
      return Object.fromEntries(d.fields.map((f) => [f.name, fromWire(o[f.name] ?? null, f.type)]))
    }
    case 'list':
    case 'array':
      return (w as Wire[]).map((i) => fromWire(i, d.item))
    case 'map':
      return new Map((w as Array<[string, Wire]>).map(([k, v]) => [k, fromWire(v, d.value)]))
    case 'any': {
      const { '!t': tag, v } = w as { '!t': Tag; v: Wire }
      const as = tagType(tag, d)
      if (as === undefined) throw new Error(`no value of ours is a ${JSON.stringify(tag)} in an Object slot`)
      return new Typed(as, fromWire(v, as))
    }
    default:
      return w
  }
}
