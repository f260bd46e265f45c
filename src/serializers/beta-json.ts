import { type Descriptor, isNullable, typeName, inferType, plain, LocalDate, Typed, t } from '../descriptors/types'
import { parseJson, type JsonNode } from '../json/parse'
import type { Serializer } from './serializer'
import { DEFAULT_READ_LIMITS, type ReadLimits } from './limits'
import { ValueError, within } from './errors'
import { javaDouble, kindOf, parseJavaInteger, parseJavaDouble, hashMapOrder } from './java-text'
import { jsonString, type JsonStringStyle } from './json-string'
import { primitiveDefault } from './alpha-node'

const JACKSON: JsonStringStyle = { escapeCloseTag: false, upperHex: true }

/** Jackson's string escaping: `"`, `\\` and control characters; `/` and non-ASCII stay raw. */
export function jacksonString (s: string): string {
  return jsonString(s, JACKSON)
}

const LOCAL_DATE_UNSUPPORTED = 'Java 8 date/time type `java.time.LocalDate` not supported by default: add Module "com.fasterxml.jackson.datatype:jackson-datatype-jsr310" to enable handling'

/** Entries of a map value in the order Java iterates it. */
export function orderedEntries (v: unknown, className: string): Array<[string, unknown]> {
  let entries: Array<[string, unknown]>
  if (v instanceof Map) entries = [...(v as Map<unknown, unknown>).entries()].map(([k, x]) => [String(k), x])
  else if (typeof v === 'object' && v !== null && !Array.isArray(v)) entries = Object.entries(v)
  else throw new ValueError(`expected a map, got ${kindOf(v)}`)
  if (className === 'java.util.Map' || className === 'java.util.HashMap') {
    const byKey = new Map(entries)
    entries = hashMapOrder(entries.map((e) => e[0])).map((k) => [k, byKey.get(k)])
  }
  return entries
}

/** The runtime type Jackson serializes: the value's own class in an Object slot, else the declared type. */
function runtimeOf (value: unknown, d: Descriptor): Descriptor {
  if (d.kind === 'any' || value instanceof Typed) {
    const r = inferType(value)
    if (r === undefined || r === null) throw new ValueError(`a ${kindOf(value)} in an Object slot needs its class: wrap it with t.typed(Type, value)`)
    return r
  }
  return d
}

/** Writes Jackson's compact form, or its DefaultPrettyPrinter form when `indent` is not null. */
function write (value: unknown, declared: Descriptor, indent: string | null): string {
  const v = plain(value)
  if (v === null || v === undefined) {
    if (!isNullable(declared)) throw new ValueError(`${typeName(declared)} cannot be null`)
    return 'null'
  }
  const d = runtimeOf(value, declared)
  switch (d.kind) {
    case 'scalar':
      switch (d.type) {
        case 'int': case 'Integer':
          if (typeof v !== 'number' || !Number.isInteger(v)) throw new ValueError(`expected an integer, got ${kindOf(v)}`)
          return String(v)
        case 'long': case 'Long':
          if (typeof v !== 'bigint' && !(typeof v === 'number' && Number.isSafeInteger(v))) throw new ValueError(`expected a 64-bit integer, got ${kindOf(v)}`)
          return String(v)
        case 'double': case 'Double':
          if (typeof v !== 'number') throw new ValueError(`expected a number, got ${kindOf(v)}`)
          return Number.isFinite(v) ? javaDouble(v) : `"${javaDouble(v)}"`
        case 'boolean': case 'Boolean':
          if (typeof v !== 'boolean') throw new ValueError(`expected a boolean, got ${kindOf(v)}`)
          return v ? 'true' : 'false'
        default:
          if (typeof v !== 'string') throw new ValueError(`expected a string, got ${kindOf(v)}`)
          return jacksonString(v)
      }
    case 'date':
      if (!(v instanceof Date)) throw new ValueError(`expected a Date, got ${kindOf(v)}`)
      return String(v.getTime())
    case 'localDate':
      throw new ValueError(LOCAL_DATE_UNSUPPORTED)
    case 'object': {
      if (typeof v !== 'object' || Array.isArray(v)) throw new ValueError(`expected ${d.className}, got ${kindOf(v)}`)
      const record = v as Record<string, unknown>
      return members(d.fields.map((f) => [f.name, Object.prototype.hasOwnProperty.call(record, f.name) ? record[f.name] : null, f.type] as const), indent)
    }
    case 'list': case 'array': {
      if (!Array.isArray(v)) throw new ValueError(`expected ${typeName(d)} (an array), got ${kindOf(v)}`)
      const item = d.item
      const parts = v.map((x, k) => within(k, () => write(x, item, indent === null ? null : indent + '  ')))
      if (indent === null) return `[${parts.join(',')}]`
      return parts.length === 0 ? '[ ]' : `[ ${parts.join(', ')} ]`
    }
    case 'map':
      return members(orderedEntries(v, d.className).map(([k, x]) => [k, x, d.value] as const), indent)
    case 'any': case 'void':
      throw new ValueError(`cannot write ${typeName(d)}`)
  }
}

function members (entries: ReadonlyArray<readonly [string, unknown, Descriptor]>, indent: string | null): string {
  if (indent === null) {
    return `{${entries.map(([k, x, d]) => `${jacksonString(k)}:${within(k, () => write(x, d, null))}`).join(',')}}`
  }
  if (entries.length === 0) return '{ }'
  const inner = indent + '  '
  return `{\n${entries.map(([k, x, d]) => `${inner}${jacksonString(k)} : ${within(k, () => write(x, d, inner))}`).join(',\n')}\n${indent}}`
}

export function writeBetaJson (value: unknown, d: Descriptor): string {
  return write(value, d, null)
}

function jsonKind (node: JsonNode): string {
  switch (node.t) {
    case 'null': return 'null'
    case 'bool': return `Boolean value (token \`JsonToken.VALUE_${node.v ? 'TRUE' : 'FALSE'}\`)`
    case 'num': return `number ${node.text}`
    case 'str': return `String "${node.v.slice(0, 40)}"`
    case 'arr': return 'Array value (token `JsonToken.START_ARRAY`)'
    case 'obj': return 'Object value (token `JsonToken.START_OBJECT`)'
  }
}

function cannot (d: Descriptor, node: JsonNode): ValueError {
  return new ValueError(`Cannot deserialize value of type \`${typeName(d)}\` from ${jsonKind(node)}`)
}

function readScalar (node: JsonNode, d: Descriptor & { kind: 'scalar' }): unknown {
  const nullable = isNullable(d)
  if (node.t === 'null') return nullable ? null : primitiveDefault(d)
  switch (d.type) {
    case 'int': case 'Integer': case 'long': case 'Long': {
      const kind = d.type === 'int' || d.type === 'Integer' ? 'int' : 'long'
      if (node.t === 'num') {
        // Jackson truncates a fraction (6.5 → 6) when reading an integral type.
        const m = /^(-?[0-9]+)(\.[0-9]+)?([eE][-+]?[0-9]+)?$/.exec(node.text)!
        if (m[3] !== undefined) {
          const x = Number(node.text)
          if (!Number.isFinite(x)) throw new ValueError(`${node.text.slice(0, 40)} is out of range of a ${kind === 'int' ? '32' : '64'}-bit integer`)
          return parseJavaInteger(BigInt(Math.trunc(x)).toString(), kind)
        }
        return parseJavaInteger(m[1]!, kind)
      }
      if (node.t === 'str') {
        if (node.v === '') return nullable ? null : primitiveDefault(d)
        try {
          return parseJavaInteger(node.v.trim(), kind)
        } catch {
          throw new ValueError(`Cannot deserialize value of type \`${d.type}\` from String "${node.v.slice(0, 40)}": not a valid \`${d.type}\` value`)
        }
      }
      throw cannot(d, node)
    }
    case 'double': case 'Double':
      if (node.t === 'num') return Number(node.text)
      if (node.t === 'str') return node.v === '' ? (nullable ? null : 0) : parseJavaDouble(node.v.trim())
      throw cannot(d, node)
    case 'boolean': case 'Boolean':
      if (node.t === 'bool') return node.v
      if (node.t === 'str' && (node.v === 'true' || node.v === 'false')) return node.v === 'true'
      throw cannot(d, node)
    case 'char': case 'Character':
      if (node.t === 'str' && node.v.length === 1) return node.v
      throw cannot(d, node)
    case 'String':
      if (node.t === 'str') return node.v
      if (node.t === 'num') return node.text
      if (node.t === 'bool') return node.v ? 'true' : 'false'
      throw cannot(d, node)
  }
}

/** Jackson's untyped reading (an Object slot): numbers by size, objects as LinkedHashMap, arrays as ArrayList. */
function readUntyped (node: JsonNode): unknown {
  switch (node.t) {
    case 'null': return null
    case 'bool': return node.v
    case 'str': return node.v
    case 'num': {
      if (/^-?[0-9]+$/.test(node.text)) {
        const n = BigInt(node.text)
        if (n >= -2147483648n && n <= 2147483647n) return Number(n)
        return n
      }
      return Number(node.text)
    }
    case 'arr': return node.items.map(readUntyped)
    case 'obj': {
      const out = new Map<string, unknown>()
      for (const [k, v] of node.members) out.set(k, within(k, () => readUntyped(v)))
      return out
    }
  }
}

export function readBetaJson (node: JsonNode, d: Descriptor): unknown {
  switch (d.kind) {
    case 'scalar': return readScalar(node, d)
    case 'date':
      if (node.t === 'null') return null
      if (node.t === 'num' && /^-?[0-9]+$/.test(node.text)) return new Date(Number(node.text))
      if (node.t === 'str') {
        const ms = Date.parse(node.v)
        if (!Number.isNaN(ms)) return new Date(ms)
      }
      throw cannot(d, node)
    case 'localDate':
      throw new ValueError(LOCAL_DATE_UNSUPPORTED)
    case 'object': {
      if (node.t === 'null') return null
      if (node.t !== 'obj') throw cannot(d, node)
      const out: Record<string, unknown> = {}
      for (const f of d.fields) out[f.name] = primitiveDefault(f.type)
      for (const [key, value] of node.members) {
        const field = d.fields.find((f) => f.name === key)
        if (field === undefined) {
          const known = d.fields.map((f) => `"${f.name}"`).join(', ')
          throw new ValueError(`Unrecognized field "${key}" (class ${d.className}), not marked as ignorable (${d.fields.length} known properties: ${known}])`)
        }
        out[field.name] = within(field.name, () => readBetaJson(value, field.type))
      }
      return out
    }
    case 'list': case 'array':
      if (node.t === 'null') return null
      if (node.t !== 'arr') throw cannot(d, node)
      return node.items.map((item, k) => within(k, () => readBetaJson(item, d.item)))
    case 'map': {
      if (node.t === 'null') return null
      if (node.t !== 'obj') throw cannot(d, node)
      const out = new Map<string, unknown>()
      for (const [k, v] of node.members) out.set(k, within(k, () => readBetaJson(v, d.value)))
      return out
    }
    case 'any': {
      const v = readUntyped(node)
      // A double that looks integral (2.0) would come back as an Integer: keep its type.
      return node.t === 'num' && typeof v === 'number' && !/^-?[0-9]+$/.test(node.text) && Number.isInteger(v) ? t.typed(t.Double, v) : v
    }
    case 'void':
      throw new ValueError('void has no value')
  }
}

export interface BetaJsonOptions {
  /** writerWithDefaultPrettyPrinter(): two-space indentation, ` : ` between name and value. */
  pretty?: boolean
  limits?: ReadLimits
}

/** beta JSON: `new ObjectMapper()`: compact JSON, null fields written, Jackson coercions on read. */
export function createBetaJsonSerializer (options: BetaJsonOptions = {}): Serializer {
  const indent = options.pretty === true ? '' : null
  return {
    format: 'json',
    serialize: (value, type) => write(value, type, indent),
    deserialize (bytes: Uint8Array, type: Descriptor): unknown {
      // Jackson stops after the root value and ignores what follows it.
      return readBetaJson(parseJson(bytes, { allowTrailing: true, limits: options.limits ?? DEFAULT_READ_LIMITS }), type)
    }
  }
}

export { LocalDate }
